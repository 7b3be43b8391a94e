package gomlx

import (
	"reflect"
	"strings"
	"sync"

	gc "github.com/gomlx/compute"
	"github.com/gomlx/compute/shapes"
	"github.com/pkg/errors"
)

// Dynamic shapes are specialized, not planned: the backend's plan, its
// generated kernels and their launch extents are all made from static
// shapes, so a graph with a dynamic axis (shapes.DynamicDim) is kept as it
// was built and planned again for each tuple of concrete input shapes that
// Execute sees (Capabilities.DynamicShapes is DynamicShapesRecompiling).
//
// To be built again, a graph is recorded: the functions the builder hands
// out are tracedFunctions, which forward every operation to the Function
// and log the call (its arguments and the values it returned). Building a
// node of a dynamic shape computes only its shape (shapeinference's, the
// dynamic axes and their names included): such a node has no run, as it is
// never planned. At Execute the log is replayed on a fresh builder whose
// parameters have the inputs' shapes, every dynamic shape among the
// arguments (BroadcastInDim's, RNGBitGenerator's) resolved by the axis
// bindings the inputs give; that builder is compiled like any other, and
// the executable is cached per tuple of input shapes. A shape inference
// that fails on the concrete shapes (two axes that unified at build time
// but differ at run time) fails Execute with its error. The operations
// whose dimensions are values, and NonZero, are in ops_dynshape.go.

// call is one recorded operation: fn's method with its arguments and the
// values it returned. NewFunction is recorded with a nil fn, Closure with
// its parent.
type call struct {
	fn     *Function
	method string
	args   []any
	outs   []any
}

// tracedFunction is the compute.Function the builder hands out: the
// Function, whose operations it records (the methods are in
// traced_gen.go).
type tracedFunction struct {
	f *Function
}

var _ gc.Function = (*tracedFunction)(nil)

// traced is f's tracedFunction.
func (f *Function) traced() *tracedFunction {
	if f.tracer == nil {
		f.tracer = &tracedFunction{f: f}
	}
	return f.tracer
}

// functionOf is the Function of a compute.Function of this backend: a
// tracedFunction's, or a Function itself (as replay passes them).
func functionOf(fn gc.Function) (*Function, bool) {
	switch t := fn.(type) {
	case *tracedFunction:
		if t == nil {
			return nil, false
		}
		return t.f, true
	case *Function:
		return t, t != nil
	}
	return nil, false
}

func (t *tracedFunction) record(method string, args, outs []any, err error) {
	if err != nil {
		return // a failed operation adds nothing to the graph
	}
	bl := t.f.builder
	bl.calls = append(bl.calls, call{fn: t.f, method: method, args: args, outs: outs})
}

// Name implements compute.Function.
func (t *tracedFunction) Name() string { return t.f.Name() }

// Builder implements compute.Function.
func (t *tracedFunction) Builder() gc.Builder { return t.f.Builder() }

// Parent implements compute.Function.
func (t *tracedFunction) Parent() gc.Function {
	if t.f.parent == nil {
		return nil
	}
	return t.f.parent.traced()
}

// Closure implements compute.Function.
func (t *tracedFunction) Closure() (gc.Function, error) {
	c, err := t.f.Closure()
	if err != nil {
		return nil, err
	}
	cf := c.(*Function)
	t.f.builder.calls = append(t.f.builder.calls, call{fn: t.f, method: "Closure", outs: []any{cf}})
	return cf.traced(), nil
}

// Shape implements compute.Function.
func (t *tracedFunction) Shape(v gc.Value) (shapes.Shape, error) { return t.f.Shape(v) }

func (t *tracedFunction) String() string { return t.f.String() }

// isDynamic reports whether a node of the main function has a dynamic
// shape or is pending.
func (bl *Builder) isDynamic() bool {
	for _, n := range bl.main.nodes {
		if n.shape.IsDynamic() || n.pending {
			return true
		}
	}
	return false
}

// dynamicPlan is an Executable's for a graph of dynamic shapes: the
// recorded builder, and an Executable per tuple of input shapes.
type dynamicPlan struct {
	template *Builder
	mu       sync.Mutex
	cache    map[string][]specialization
}

// specialization is the executable for a tuple of input shapes and the
// values of the scalar inputs its dimensions were read from.
type specialization struct {
	probes []probe
	exec   *Executable
}

// bindings resolves the template parameters' dynamic axes from the
// inputs' shapes, checking what is static.
func (d *dynamicPlan) bindings(params []*node, names []string, ins []shapes.Shape) (shapes.AxisBindings, error) {
	ab := shapes.AxisBindings{}
	for i, p := range params {
		want, got := p.shape, ins[i]
		if want.DType != got.DType || want.Rank() != got.Rank() {
			return nil, errors.Errorf("gour backend: input %d (%q) is %s, the executable takes %s", i, names[i], got, want)
		}
		for a, dim := range want.Dimensions {
			if dim != shapes.DynamicDim && dim != got.Dimensions[a] {
				return nil, errors.Errorf("gour backend: input %d (%q) is %s, the executable takes %s", i, names[i], got, want)
			}
		}
		if err := ab.Extract(want, got); err != nil {
			return nil, errors.WithMessagef(err, "gour backend: input %d (%q)", i, names[i])
		}
	}
	return ab, nil
}

// specialize is the Executable for inputs of the shapes ins: cached, or
// the template replayed with those shapes and compiled.
//
// An executable that is not cached (cached false) is the caller's to
// finalize once it is run.
func (d *dynamicPlan) specialize(e *Executable, inputs []gc.Buffer, ins []shapes.Shape) (x *Executable, cached bool, err error) {
	var key strings.Builder
	for _, s := range ins {
		key.WriteString(s.String())
		key.WriteByte(';')
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	values := map[int]int64{}
	for _, sp := range d.cache[key.String()] {
		match := true
		for _, p := range sp.probes {
			v, ok := values[p.param]
			if !ok {
				var err error
				if v, err = scalarOf(inputs[p.param]); err != nil {
					return nil, false, err
				}
				values[p.param] = v
			}
			match = match && v == p.value
		}
		if match {
			return sp.exec, true, nil
		}
	}
	ab, err := d.bindings(e.params, e.names, ins)
	if err != nil {
		return nil, false, err
	}
	bl, err := d.template.replay(inputs, ins, ab)
	if err != nil {
		return nil, false, err
	}
	if x, err = bl.compile(); err != nil {
		return nil, false, err
	}
	if bl.dataDependent {
		return x, false, nil
	}
	d.cache[key.String()] = append(d.cache[key.String()], specialization{probes: bl.probes, exec: x})
	return x, true, nil
}

// release finalizes the specializations.
func (d *dynamicPlan) release() {
	d.mu.Lock()
	defer d.mu.Unlock()
	for k, sps := range d.cache {
		for _, sp := range sps {
			sp.exec.Finalize()
		}
		delete(d.cache, k)
	}
}

// replayer maps the template's functions and values to a replay's.
type replayer struct {
	ab   shapes.AxisBindings
	fns  map[*Function]*Function
	vals map[*node]*node
	err  error
}

var shapeType = reflect.TypeOf(shapes.Shape{})

// mapValue copies v with the template's values and functions replaced by
// the replay's and its dynamic shapes resolved, through slices, pointers
// and structs (the configurations of the fused operations hold values).
func (r *replayer) mapValue(v reflect.Value) reflect.Value {
	if !v.IsValid() || r.err != nil {
		return v
	}
	switch v.Kind() {
	case reflect.Interface:
		if v.IsNil() {
			return v
		}
		m := r.mapValue(v.Elem())
		out := reflect.New(v.Type()).Elem()
		out.Set(m)
		return out
	case reflect.Pointer:
		if v.IsNil() {
			return v
		}
		switch p := v.Interface().(type) {
		case *node:
			n, ok := r.vals[p]
			if !ok {
				r.err = errors.New("gour backend: replay of a value not recorded")
				return v
			}
			return reflect.ValueOf(n)
		case *tracedFunction:
			return reflect.ValueOf(r.fns[p.f])
		case *Function:
			return reflect.ValueOf(r.fns[p])
		}
		if v.Elem().Kind() != reflect.Struct {
			return v
		}
		out := reflect.New(v.Type().Elem())
		out.Elem().Set(r.mapValue(v.Elem()))
		return out
	case reflect.Slice:
		if v.IsNil() {
			return v
		}
		out := reflect.MakeSlice(v.Type(), v.Len(), v.Len())
		for i := 0; i < v.Len(); i++ {
			out.Index(i).Set(r.mapValue(v.Index(i)))
		}
		return out
	case reflect.Struct:
		if v.Type() == shapeType {
			s := v.Interface().(shapes.Shape)
			if s.IsDynamic() {
				rs, err := s.Resolve(r.ab)
				if err != nil {
					r.err = errors.WithMessagef(err, "gour backend: resolving %s", s)
					return v
				}
				s = shapes.Make(rs.DType, rs.Dimensions...) // static: no axis names
			}
			return reflect.ValueOf(s)
		}
		out := reflect.New(v.Type()).Elem()
		out.Set(v)
		for i := 0; i < v.NumField(); i++ {
			if out.Field(i).CanSet() {
				out.Field(i).Set(r.mapValue(v.Field(i)))
			}
		}
		return out
	}
	return v
}

// replay builds the template's graph again on a fresh builder, the main
// function's parameters of the shapes ins.
func (bl *Builder) replay(inputs []gc.Buffer, ins []shapes.Shape, ab shapes.AxisBindings) (*Builder, error) {
	nb := bl.backend.newBuilder(bl.name)
	nb.inputs = inputs
	nb.axes = map[string]int{}
	for k, v := range ab {
		nb.axes[k] = v
	}
	r := &replayer{ab: shapes.AxisBindings(nb.axes), fns: map[*Function]*Function{bl.main: nb.main}, vals: map[*node]*node{}}
	for _, c := range bl.calls {
		switch c.method {
		case "NewFunction":
			old := c.outs[0].(*Function)
			r.fns[old] = nb.newFunction(old.name, nil)
			continue
		case "Closure":
			old := c.outs[0].(*Function)
			p := r.fns[c.fn]
			r.fns[old] = nb.newFunction(old.name, p)
			continue
		}
		f := r.fns[c.fn]
		if f == nil {
			return nil, errors.Errorf("gour backend: replay of %s on an unknown function", c.method)
		}
		var outs []reflect.Value
		switch c.method {
		case "Parameter":
			old := c.outs[0].(*node)
			shape := old.shape
			if c.fn == bl.main {
				shape = ins[old.param]
			} else if shape.IsDynamic() {
				var err error
				if shape, err = shape.Resolve(ab); err != nil {
					return nil, errors.WithMessagef(err, "gour backend: parameter %q of %q", c.args[0], c.fn.name)
				}
				shape = shapes.Make(shape.DType, shape.Dimensions...)
			}
			v, err := f.Parameter(c.args[0].(string), shape, nil)
			if err != nil {
				return nil, err
			}
			outs = []reflect.Value{reflect.ValueOf(v)}
		case "ConstantFromBuffer":
			// The template's storage, owned by the template's executable
			// (donated) or the caller.
			old := c.outs[0].(*node)
			outs = []reflect.Value{reflect.ValueOf(f.add(&node{op: gc.OpTypeConstant, shape: old.shape, constStore: old.constStore}))}
		default:
			m := reflect.ValueOf(f).MethodByName(c.method)
			if !m.IsValid() {
				return nil, errors.Errorf("gour backend: replay of unknown operation %s", c.method)
			}
			mt := m.Type()
			args := make([]reflect.Value, len(c.args))
			for i, a := range c.args {
				if a == nil {
					args[i] = reflect.Zero(mt.In(i))
					continue
				}
				args[i] = r.mapValue(reflect.ValueOf(a))
			}
			if r.err != nil {
				return nil, r.err
			}
			if c.method == "Slice" {
				// A limit of DynamicDim on a dynamic axis is its end.
				operand, _ := args[0].Interface().(*node)
				limits, _ := args[2].Interface().([]int)
				for a, l := range limits {
					if l == shapes.DynamicDim && operand != nil && a < operand.shape.Rank() {
						limits[a] = operand.shape.Dimensions[a]
					}
				}
			}
			var res []reflect.Value
			if mt.IsVariadic() {
				res = m.CallSlice(args)
			} else {
				res = m.Call(args)
			}
			if last := res[len(res)-1]; last.Type() == reflect.TypeOf((*error)(nil)).Elem() {
				if !last.IsNil() {
					return nil, errors.WithMessagef(last.Interface().(error), "gour backend: %s at the input shapes %v", c.method, ins)
				}
				res = res[:len(res)-1]
			}
			outs = res
		}
		// Map the template's returned values to the replay's.
		for i, o := range c.outs {
			if i >= len(outs) {
				break
			}
			switch ov := o.(type) {
			case *node:
				if n, ok := outs[i].Interface().(*node); ok {
					r.vals[ov] = n
					nb.bind(ov.shape, n.shape)
				}
			case []gc.Value:
				nv, _ := outs[i].Interface().([]gc.Value)
				for j, v := range ov {
					on, ok1 := v.(*node)
					if j < len(nv) && ok1 {
						if nn, ok2 := nv[j].(*node); ok2 {
							r.vals[on] = nn
							nb.bind(on.shape, nn.shape)
						}
					}
				}
			}
		}
	}
	if !nb.main.returned {
		return nil, errors.New("gour backend: replay of a graph that did not return")
	}
	return nb, nil
}

// pending adds a node of a dynamic shape: only its shape is known until
// Execute builds the graph again with the inputs' shapes, so it has no run
// (a graph with one is never planned as built).
func (f *Function) pending(op gc.OpType, shape shapes.Shape, inputs ...*node) *node {
	return f.add(&node{op: op, shape: shape, inputs: inputs, pending: true})
}

// bind records, in a replay, the sizes that a template's named dynamic
// axes took (a NonZero's count, an inferred DynamicReshape axis), for the
// shapes given by name later in the graph.
func (bl *Builder) bind(template, concrete shapes.Shape) {
	if template.Rank() != concrete.Rank() {
		return
	}
	for a := range template.Dimensions {
		name := template.AxisName(a)
		if name == "" || !template.IsAxisDynamic(a) || concrete.IsAxisDynamic(a) {
			continue
		}
		if _, ok := bl.axes[name]; !ok {
			bl.axes[name] = concrete.Dimensions[a]
		}
	}
}
