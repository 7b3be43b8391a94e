package gomlx

import (
	"reflect"

	gc "github.com/gomlx/compute"
	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/compute/shapeinference"
	"github.com/gomlx/compute/shapes"
	"github.com/gomlx/compute/support/sets"
	"github.com/pkg/errors"
)

// The operations that make dimensions from values. In a graph as built
// (dynamic.go's template) a dimension given by a value is dynamic, and the
// node has only shapeinference's shape. In a replay the values are known
// on the host where they are a dimension's size (DynamicDimensionSize of
// a now static shape, a constant), a scalar input of the main function
// (read from its buffer: a probe, which the specialization's cache checks
// at every Execute), or integer arithmetic of those; then the operation is
// the static one it stands for (Reshape, BroadcastInDim, Iota, Pad). A
// dimension computed on the device otherwise is ErrNotImplemented.

// probe is a scalar input whose value a specialization was planned with.
type probe struct {
	param int
	value int64
}

// dimDType is the dtype of DynamicShape and DynamicDimensionSize.
const dimDType = dtypes.Int64

// scalarOf is the value of a buffer's single element, as an int64.
func scalarOf(buf gc.Buffer) (int64, error) {
	s, err := buf.Shape()
	if err != nil {
		return 0, err
	}
	if s.Size() != 1 || s.DType.GoType() == nil {
		return 0, errors.Errorf("gour backend: a dimension's value of %s, want a scalar", s)
	}
	v := reflect.MakeSlice(reflect.SliceOf(s.DType.GoType()), 1, 1)
	if err := buf.ToFlatData(v.Interface()); err != nil {
		return 0, err
	}
	return toInt64(v.Index(0))
}

func toInt64(v reflect.Value) (int64, error) {
	switch {
	case v.CanInt():
		return v.Int(), nil
	case v.CanUint():
		return int64(v.Uint()), nil
	case v.CanFloat():
		return int64(v.Float()), nil
	case v.Kind() == reflect.Bool:
		if v.Bool() {
			return 1, nil
		}
		return 0, nil
	}
	return 0, errors.Errorf("gour backend: a dimension's value of %s", v.Type())
}

// hostValue is a scalar node's value where the host knows it (see above).
func (f *Function) hostValue(n *node) (int64, bool, error) {
	if n.shape.IsDynamic() || n.shape.Size() != 1 {
		return 0, false, nil
	}
	bl := f.builder
	switch {
	case n.constant != nil:
		v, err := toInt64(reflect.ValueOf(n.constant).Index(0))
		return v, err == nil, err
	case n.op == gc.OpTypeParameter:
		if bl.inputs == nil || f != bl.main || n.param >= len(bl.inputs) {
			return 0, false, nil
		}
		for _, p := range bl.probes {
			if p.param == n.param {
				return p.value, true, nil
			}
		}
		v, err := scalarOf(bl.inputs[n.param])
		if err != nil {
			return 0, false, err
		}
		bl.probes = append(bl.probes, probe{param: n.param, value: v})
		return v, true, nil
	}
	vals := make([]int64, len(n.inputs))
	for i, in := range n.inputs {
		v, ok, err := f.hostValue(in)
		if !ok || err != nil {
			return 0, false, err
		}
		vals[i] = v
	}
	switch n.op {
	case gc.OpTypeReshape, gc.OpTypeIdentity, gc.OpTypeConvertDType, gc.OpTypeBroadcastInDim:
		return vals[0], true, nil
	case gc.OpTypeNeg:
		return -vals[0], true, nil
	case gc.OpTypeAdd:
		return vals[0] + vals[1], true, nil
	case gc.OpTypeSub:
		return vals[0] - vals[1], true, nil
	case gc.OpTypeMul:
		return vals[0] * vals[1], true, nil
	case gc.OpTypeDiv:
		if vals[1] == 0 {
			return 0, true, nil // compute/expr's integer division by zero
		}
		return vals[0] / vals[1], true, nil
	case gc.OpTypeMax:
		return max(vals[0], vals[1]), true, nil
	case gc.OpTypeMin:
		return min(vals[0], vals[1]), true, nil
	}
	return 0, false, nil
}

// valueDim is the dimension a spec's or a pad's value gives, in a replay.
func (f *Function) valueDim(op gc.OpType, v gc.Value) (int, error) {
	n, err := f.nodeOf(v)
	if err != nil {
		return 0, err
	}
	if !n.shape.DType.IsInt() || n.shape.Size() != 1 {
		return 0, errors.Errorf("gour backend: %s dimension of %s, want an integer scalar", op, n.shape)
	}
	d, ok, err := f.hostValue(n)
	if err != nil {
		return 0, err
	}
	if !ok {
		return 0, notImplemented("%s of a dimension computed on the device", op)
	}
	return int(d), nil
}

// replaying reports whether f is being built again with concrete shapes.
func (f *Function) replaying() bool { return f.builder.inputs != nil }

// specDims are the concrete dimensions of specs in a replay: a Name with
// a Value is the value (and binds the name), a Name alone the name's
// binding, or DynamicDim where inferred (DynamicReshape's).
func (f *Function) specDims(op gc.OpType, specs []gc.DynamicDimensionSpec, inferred bool) ([]int, error) {
	bl := f.builder
	dims := make([]int, len(specs))
	for i, s := range specs {
		switch {
		case s.Name == "":
			dims[i] = s.Static
		case s.Value != nil:
			d, err := f.valueDim(op, s.Value)
			if err != nil {
				return nil, err
			}
			if d < 0 {
				return nil, errors.Errorf("gour backend: %s dimension %q of %d", op, s.Name, d)
			}
			if prev, ok := bl.axes[s.Name]; ok && prev != d && !shapes.IsGeneratedAxisName(s.Name) {
				return nil, errors.Errorf("gour backend: %s dimension %q of %d, bound to %d", op, s.Name, d, prev)
			}
			bl.axes[s.Name] = d
			dims[i] = d
		case inferred:
			dims[i] = shapes.DynamicDim
		default:
			d, ok := bl.axes[s.Name]
			if !ok {
				return nil, errors.Errorf("gour backend: %s dimension %q of no value and no binding", op, s.Name)
			}
			dims[i] = d
		}
	}
	return dims, nil
}

// knownAxes are the dynamic axis names of f's nodes, for shapeinference.
func (f *Function) knownAxes() sets.Set[string] {
	known := sets.Make[string]()
	for name := range f.builder.axes {
		known.Insert(name)
	}
	for _, n := range f.nodes {
		for a := range n.shape.Dimensions {
			if name := n.shape.AxisName(a); name != "" && n.shape.IsAxisDynamic(a) {
				known.Insert(name)
			}
		}
	}
	return known
}

// valueInputs are the nodes of specs' values, the inputs of a pending node.
func (f *Function) valueInputs(first []*node, vs ...gc.Value) ([]*node, error) {
	ins := first
	for _, v := range vs {
		if v == nil {
			continue
		}
		n, err := f.nodeOf(v)
		if err != nil {
			return nil, err
		}
		ins = append(ins, n)
	}
	return ins, nil
}

func specValues(specs []gc.DynamicDimensionSpec) []gc.Value {
	vs := make([]gc.Value, len(specs))
	for i, s := range specs {
		vs[i] = s.Value
	}
	return vs
}

// DynamicDimensionSize implements compute.Function: a constant where the
// axis is static (as it is in a replay).
func (f *Function) DynamicDimensionSize(operand gc.Value, axis int) (gc.Value, error) {
	if err := f.check(); err != nil {
		return nil, err
	}
	n, err := f.nodeOf(operand)
	if err != nil {
		return nil, err
	}
	if axis < 0 || axis >= n.shape.Rank() {
		return nil, errors.Errorf("gour backend: DynamicDimensionSize axis %d of %s", axis, n.shape)
	}
	if n.shape.IsAxisDynamic(axis) {
		return f.pending(gc.OpTypeDynamicDimensionSize, shapes.Make(dimDType), n), nil
	}
	return f.Constant([]int64{int64(n.shape.Dimensions[axis])})
}

// DynamicShape implements compute.Function: a constant where the shape is
// static (as it is in a replay).
func (f *Function) DynamicShape(operand gc.Value) (gc.Value, error) {
	if err := f.check(); err != nil {
		return nil, err
	}
	n, err := f.nodeOf(operand)
	if err != nil {
		return nil, err
	}
	if n.shape.IsDynamic() {
		return f.pending(gc.OpTypeDynamicShape, shapes.Make(dimDType, n.shape.Rank()), n), nil
	}
	dims := make([]int64, n.shape.Rank())
	for i, d := range n.shape.Dimensions {
		dims[i] = int64(d)
	}
	return f.Constant(dims, len(dims))
}

// DynamicReshape implements compute.Function: Reshape in a replay.
func (f *Function) DynamicReshape(operand gc.Value, dimensions ...gc.DynamicDimensionSpec) (gc.Value, error) {
	if err := f.check(); err != nil {
		return nil, err
	}
	n, err := f.nodeOf(operand)
	if err != nil {
		return nil, err
	}
	out, err := shapeinference.DynamicReshape(n.shape, dimensions)
	if err != nil {
		return nil, err
	}
	if !f.replaying() || n.shape.IsDynamic() {
		if !out.IsDynamic() && !n.shape.IsDynamic() {
			return f.Reshape(operand, out.Dimensions...)
		}
		ins, err := f.valueInputs([]*node{n}, specValues(dimensions)...)
		if err != nil {
			return nil, err
		}
		return f.pending(gc.OpTypeDynamicReshape, out, ins...), nil
	}
	dims, err := f.specDims(gc.OpTypeDynamicReshape, dimensions, true)
	if err != nil {
		return nil, err
	}
	known, inferred := 1, -1
	for i, d := range dims {
		if d == shapes.DynamicDim {
			inferred = i
		} else {
			known *= d
		}
	}
	if inferred >= 0 {
		if known == 0 || n.shape.Size()%known != 0 {
			return nil, errors.Errorf("gour backend: DynamicReshape of %s to %v: no inferred dimension fits", n.shape, dims)
		}
		dims[inferred] = n.shape.Size() / known
		if name := dimensions[inferred].Name; name != "" {
			f.builder.axes[name] = dims[inferred]
		}
	}
	return f.Reshape(operand, dims...)
}

// DynamicBroadcastInDim implements compute.Function: BroadcastInDim in a
// replay (whose shape inference checks the operand against the values).
func (f *Function) DynamicBroadcastInDim(operand gc.Value, broadcastAxes []int, dimensions ...gc.DynamicDimensionSpec) (gc.Value, error) {
	if err := f.check(); err != nil {
		return nil, err
	}
	n, err := f.nodeOf(operand)
	if err != nil {
		return nil, err
	}
	out, err := shapeinference.DynamicBroadcastInDim(n.shape, broadcastAxes, dimensions, f.knownAxes())
	if err != nil {
		return nil, err
	}
	if !f.replaying() || n.shape.IsDynamic() {
		if !out.IsDynamic() && !n.shape.IsDynamic() {
			return f.BroadcastInDim(operand, shapes.Make(n.shape.DType, out.Dimensions...), broadcastAxes)
		}
		ins, err := f.valueInputs([]*node{n}, specValues(dimensions)...)
		if err != nil {
			return nil, err
		}
		return f.pending(gc.OpTypeDynamicBroadcastInDim, out, ins...), nil
	}
	dims, err := f.specDims(gc.OpTypeDynamicBroadcastInDim, dimensions, false)
	if err != nil {
		return nil, err
	}
	return f.BroadcastInDim(operand, shapes.Make(n.shape.DType, dims...), broadcastAxes)
}

// DynamicIota implements compute.Function: Iota in a replay.
func (f *Function) DynamicIota(dtype dtypes.DType, iotaAxis int, dimensions ...gc.DynamicDimensionSpec) (gc.Value, error) {
	if err := f.check(); err != nil {
		return nil, err
	}
	out, err := shapeinference.DynamicIota(dtype, iotaAxis, dimensions, f.knownAxes())
	if err != nil {
		return nil, err
	}
	if !f.replaying() {
		if !out.IsDynamic() {
			return f.Iota(shapes.Make(dtype, out.Dimensions...), iotaAxis)
		}
		ins, err := f.valueInputs(nil, specValues(dimensions)...)
		if err != nil {
			return nil, err
		}
		return f.pending(gc.OpTypeDynamicIota, out, ins...), nil
	}
	dims, err := f.specDims(gc.OpTypeDynamicIota, dimensions, false)
	if err != nil {
		return nil, err
	}
	return f.Iota(shapes.Make(dtype, dims...), iotaAxis)
}

// DynamicPad implements compute.Function: Pad in a replay.
func (f *Function) DynamicPad(x, fillValue gc.Value, axesConfig ...gc.DynamicPadAxis) (gc.Value, error) {
	if err := f.check(); err != nil {
		return nil, err
	}
	ns, err := f.nodesOf(x, fillValue)
	if err != nil {
		return nil, err
	}
	out, err := shapeinference.DynamicPad(ns[0].shape, axesConfig...)
	if err != nil {
		return nil, err
	}
	hasValue := false
	var vs []gc.Value
	for _, a := range axesConfig {
		vs = append(vs, a.StartValue, a.EndValue, a.InteriorValue)
		hasValue = hasValue || a.StartValue != nil || a.EndValue != nil || a.InteriorValue != nil
	}
	if (!f.replaying() && (hasValue || out.IsDynamic())) || ns[0].shape.IsDynamic() {
		ins, err := f.valueInputs(ns, vs...)
		if err != nil {
			return nil, err
		}
		return f.pending(gc.OpTypeDynamicPad, out, ins...), nil
	}
	pads := make([]gc.PadAxis, len(axesConfig))
	for i, a := range axesConfig {
		pads[i] = gc.PadAxis{Start: a.Start, End: a.End, Interior: a.Interior}
		for _, p := range []struct {
			v   gc.Value
			dst *int
		}{{a.StartValue, &pads[i].Start}, {a.EndValue, &pads[i].End}, {a.InteriorValue, &pads[i].Interior}} {
			if p.v == nil {
				continue
			}
			d, err := f.valueDim(gc.OpTypeDynamicPad, p.v)
			if err != nil {
				return nil, err
			}
			*p.dst = d
		}
	}
	return f.Pad(x, fillValue, pads...)
}

// NonZero implements compute.Function. Its output's size is the data's,
// so in a replay the plan up to its operand is run (evaluate) and the
// coordinates, found on the host, are a constant of the rest of the plan;
// that specialization is data-dependent, made again at every Execute.
func (f *Function) NonZero(operand gc.Value, cfg gc.NonZeroConfig) (gc.Value, error) {
	if err := f.check(); err != nil {
		return nil, err
	}
	n, err := f.nodeOf(operand)
	if err != nil {
		return nil, err
	}
	if _, err := shapeinference.NonZero(n.shape, cfg); err != nil {
		return nil, err
	}
	if name := cfg.CountAxisName; name != "" && !f.replaying() && f.knownAxes().Has(name) {
		return nil, errors.Errorf("gour backend: NonZero's count axis %q is an axis of the graph already", name)
	}
	if err := f.builder.backend.checkDType(n.shape.DType); err != nil {
		return nil, err
	}
	if !f.replaying() || n.shape.IsDynamic() {
		out, _ := shapeinference.NonZero(n.shape, cfg)
		return f.pending(gc.OpTypeNonZero, out, n), nil
	}
	if f != f.builder.main {
		return nil, notImplemented("NonZero in a function called by main")
	}
	data, err := f.evaluate(n)
	if err != nil {
		return nil, err
	}
	dims := n.shape.Dimensions
	rank := len(dims)
	strides := rowMajorStrides(dims)
	var coords []int64
	count := 0
	half := n.shape.DType == dtypes.Float16 || n.shape.DType == dtypes.BFloat16
	for i := 0; i < data.Len(); i++ {
		v := data.Index(i)
		var nz bool
		switch {
		case v.Kind() == reflect.Bool:
			nz = v.Bool()
		case half:
			nz = v.Uint()&0x7fff != 0 // the sign bit alone is -0
		case v.CanFloat():
			nz = v.Float() != 0 // NaN is nonzero
		case v.CanInt():
			nz = v.Int() != 0
		case v.CanUint():
			nz = v.Uint() != 0
		}
		if !nz {
			continue
		}
		count++
		for a := range rank {
			coords = append(coords, int64(i/strides[a]%dims[a]))
		}
	}
	f.builder.dataDependent = true
	if cfg.Transpose {
		t := make([]int64, len(coords))
		for c := range count {
			for a := range rank {
				t[a*count+c] = coords[c*rank+a]
			}
		}
		return f.Constant(t, rank, count)
	}
	if coords == nil {
		coords = []int64{}
	}
	return f.Constant(coords, count, rank)
}

// evaluate runs the replay's plan as built so far, up to n, and returns
// n's value on the host (a slice of its dtype's Go type).
func (f *Function) evaluate(n *node) (reflect.Value, error) {
	bl := f.builder
	pb := bl.backend.newBuilder(bl.name + ".prefix")
	pf := pb.main
	pf.nodes, pf.params, pf.pnames = f.nodes, f.params, f.pnames
	pf.outputs, pf.returned, pb.compiled = []*node{n}, true, true
	x, err := pb.compile()
	if err != nil {
		return reflect.Value{}, err
	}
	defer x.Finalize()
	outs, err := x.Execute(bl.inputs[:len(f.params)], nil, 0)
	if err != nil {
		return reflect.Value{}, err
	}
	defer func() { _ = outs[0].Finalize() }()
	data := reflect.MakeSlice(reflect.SliceOf(n.shape.DType.GoType()), n.shape.Size(), n.shape.Size())
	if err := outs[0].ToFlatData(data.Interface()); err != nil {
		return reflect.Value{}, err
	}
	return data, nil
}
