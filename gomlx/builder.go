package gomlx

import (
	"fmt"
	"reflect"

	gc "github.com/gomlx/compute"
	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/compute/notimplemented"
	"github.com/gomlx/compute/shapes"
	"github.com/pkg/errors"
)

// Builder is a GoMLX graph builder: it records the operations of its main
// function as nodes, and Compile turns them into an Executable.
type Builder struct {
	backend  *Backend
	name     string
	main     *Function
	compiled bool
	// calls records the operations in the order they were built, for a
	// graph of dynamic shapes to be built again per input shapes
	// (dynamic.go).
	calls []call
	// inputs are a replay's input buffers, read where a dimension is a
	// scalar input's value; probes are the values read, and axes the axis
	// bindings of the replay (ops_dynshape.go).
	inputs []gc.Buffer
	probes []probe
	axes   map[string]int
	// dataDependent marks a replay whose plan holds values of the inputs'
	// data (NonZero's coordinates): it is used once, not cached.
	dataDependent bool
}

var _ gc.Builder = (*Builder)(nil)

// Name implements compute.Builder.
func (bl *Builder) Name() string { return bl.name }

// Main implements compute.Builder.
func (bl *Builder) Main() gc.Function { return bl.main.traced() }

// NewFunction implements compute.Builder: a function that Call inlines
// into its caller (it is not compiled on its own).
func (bl *Builder) NewFunction(name string) (gc.Function, error) {
	if bl.backend.IsFinalized() {
		return nil, errors.Wrapf(gc.ErrBackendFinalized, "gour backend builder")
	}
	f := bl.newFunction(name, nil)
	bl.calls = append(bl.calls, call{method: "NewFunction", outs: []any{f}})
	return f.traced(), nil
}

// newFunction makes a function of the builder: a named one (parent nil)
// or a closure of parent.
func (bl *Builder) newFunction(name string, parent *Function) *Function {
	return &Function{builder: bl, name: name, parent: parent,
		Function: notimplemented.Function{ErrFn: func(op gc.OpType) error {
			return notImplemented("operation %s", op)
		}}}
}

// OpShape implements compute.Builder.
func (bl *Builder) OpShape(op gc.Value) (shapes.Shape, error) { return bl.main.Shape(op) }

// DistributedSPMD implements compute.Builder: not supported.
func (bl *Builder) DistributedSPMD(numDevices int) error {
	return errors.Wrapf(gc.ErrNotImplemented, "gour backend: DistributedSPMD")
}

// DistributedAutoSharding implements compute.Builder: not supported.
func (bl *Builder) DistributedAutoSharding(meshes ...gc.Mesh) error {
	return errors.Wrapf(gc.ErrNotImplemented, "gour backend: DistributedAutoSharding")
}

// DeviceAssignment implements compute.Builder: device 0 only.
func (bl *Builder) DeviceAssignment(devices ...gc.DeviceNum) error {
	if len(devices) == 1 && devices[0] == 0 {
		return nil
	}
	return errors.Wrapf(gc.ErrNotImplemented, "gour backend: device assignment %v (one device only)", devices)
}

// node is one operation of a function: its output shape, its inputs and
// what runs it.
type node struct {
	id     int
	op     gc.OpType
	shape  shapes.Shape
	inputs []*node

	// param is the parameter's index (OpTypeParameter).
	param int
	// constant is a constant's data (OpTypeConstant, Iota): a flat Go
	// slice of the dtype's Go type, uploaded at Compile.
	constant any
	// constStore is a constant adopted from a buffer (ConstantFromBuffer).
	constStore store
	constOwned bool
	// pending marks a node whose operation is built only in a replay, with
	// concrete shapes (dynamic.go).
	pending bool
	// alias marks an operation whose output is its first input's storage
	// (Reshape, Identity, barriers).
	alias bool
	// ew is set for element-wise operations, which Compile fuses.
	ew *ewSpec
	// run computes the output of other operations from their inputs'
	// storage.
	run func(b *Backend, ins []store) (store, error)
}

// Function is the main function of a Builder. Operations the backend does
// not implement come from notimplemented.Function and return errors
// wrapping compute.ErrNotImplemented.
type Function struct {
	notimplemented.Function

	builder  *Builder
	name     string
	parent   *Function // a closure's
	nodes    []*node
	params   []*node
	pnames   []string
	outputs  []*node
	returned bool
	tracer   *tracedFunction
}

var _ gc.Function = (*Function)(nil)

// Name implements compute.Function.
func (f *Function) Name() string { return f.name }

// Builder implements compute.Function.
func (f *Function) Builder() gc.Builder { return f.builder }

// Parent implements compute.Function: a closure's function; main and
// named functions have none.
func (f *Function) Parent() gc.Function {
	if f.parent == nil {
		return nil
	}
	return f.parent
}

// Closure implements compute.Function: a function of its own parameters
// (it captures no value of f), for Call and for Sort's comparator.
func (f *Function) Closure() (gc.Function, error) {
	if f.builder.backend.IsFinalized() {
		return nil, errors.Wrapf(gc.ErrBackendFinalized, "gour backend builder")
	}
	return f.builder.newFunction(fmt.Sprintf("%s.closure%d", f.name, len(f.nodes)), f), nil
}

func (f *Function) check() error {
	if f.builder.backend.IsFinalized() {
		return errors.Wrapf(gc.ErrBackendFinalized, "gour backend builder")
	}
	if f.returned {
		return errors.Errorf("gour backend: function %q already returned", f.name)
	}
	return nil
}

func (f *Function) add(n *node) *node {
	n.id = len(f.nodes)
	f.nodes = append(f.nodes, n)
	return n
}

// nodeOf checks that v is a node of f.
func (f *Function) nodeOf(v gc.Value) (*node, error) {
	n, ok := v.(*node)
	if !ok || n == nil {
		return nil, errors.Errorf("gour backend: value %T is not of the gour backend", v)
	}
	if n.id >= len(f.nodes) || f.nodes[n.id] != n {
		return nil, errors.New("gour backend: value of another function or builder")
	}
	return n, nil
}

func (f *Function) nodesOf(vs ...gc.Value) ([]*node, error) {
	ns := make([]*node, len(vs))
	for i, v := range vs {
		n, err := f.nodeOf(v)
		if err != nil {
			return nil, err
		}
		ns[i] = n
	}
	return ns, nil
}

// Shape implements compute.Function.
func (f *Function) Shape(v gc.Value) (shapes.Shape, error) {
	n, err := f.nodeOf(v)
	if err != nil {
		return shapes.Invalid(), err
	}
	return n.shape, nil
}

// Parameter implements compute.Function.
func (f *Function) Parameter(name string, shape shapes.Shape, sharding *gc.ShardingSpec) (gc.Value, error) {
	if err := f.check(); err != nil {
		return nil, err
	}
	if sharding != nil {
		return nil, errors.Wrapf(gc.ErrNotImplemented, "gour backend: sharded parameters")
	}
	if err := f.builder.backend.checkDType(shape.DType); err != nil {
		return nil, err
	}
	n := f.add(&node{op: gc.OpTypeParameter, shape: shape.Clone(), param: len(f.params)})
	f.params = append(f.params, n)
	f.pnames = append(f.pnames, name)
	return n, nil
}

// Constant implements compute.Function: flat is copied, and uploaded once
// at Compile.
func (f *Function) Constant(flat any, dims ...int) (gc.Value, error) {
	if err := f.check(); err != nil {
		return nil, err
	}
	rv := reflect.ValueOf(flat)
	if rv.Kind() != reflect.Slice {
		return nil, errors.Errorf("gour backend: Constant of %T, want a flat slice", flat)
	}
	dt := dtypes.FromGoType(rv.Type().Elem())
	if err := f.builder.backend.checkDType(dt); err != nil {
		return nil, err
	}
	shape := shapes.Make(dt, dims...)
	if shape.Size() != rv.Len() {
		return nil, errors.Errorf("gour backend: Constant of %d elements for shape %s", rv.Len(), shape)
	}
	cp := reflect.MakeSlice(rv.Type(), rv.Len(), rv.Len())
	reflect.Copy(cp, rv)
	return f.add(&node{op: gc.OpTypeConstant, shape: shape, constant: cp.Interface()}), nil
}

// ConstantFromBuffer implements compute.Function: the buffer's device
// storage becomes the constant, with no copy. Donated, the executable
// owns it; otherwise the caller keeps it alive and unchanged.
func (f *Function) ConstantFromBuffer(buf gc.Buffer, donate bool) (gc.Value, error) {
	if err := f.check(); err != nil {
		return nil, err
	}
	gb, ok := buf.(*Buffer)
	if !ok || gb.backend != f.builder.backend {
		return nil, errors.Errorf("gour backend: ConstantFromBuffer of a buffer of another backend (%T)", buf)
	}
	var st store
	if donate {
		st = gb.take()
		if st == nil {
			return nil, errors.New("gour backend: ConstantFromBuffer of a finalized buffer")
		}
		f.builder.backend.track(st) // the executable's, or Finalize's to release
	} else {
		var err error
		if st, err = gb.storage(); err != nil {
			return nil, err
		}
	}
	return f.add(&node{op: gc.OpTypeConstant, shape: gb.shape.Clone(), constStore: st, constOwned: donate}), nil
}

// Return implements compute.Function.
func (f *Function) Return(outputs []gc.Value, shardings []*gc.ShardingSpec) error {
	if err := f.check(); err != nil {
		return err
	}
	if len(shardings) > 0 {
		return errors.Wrapf(gc.ErrNotImplemented, "gour backend: output shardings")
	}
	if len(outputs) == 0 {
		return errors.New("gour backend: Return with no outputs")
	}
	ns, err := f.nodesOf(outputs...)
	if err != nil {
		return err
	}
	f.outputs = ns
	f.returned = true
	return nil
}

// Call implements compute.Function: target's operations are inlined into
// f, its parameters taken by inputs (so that a call is fused and planned
// with the rest of the graph).
func (f *Function) Call(target gc.Function, inputs ...gc.Value) ([]gc.Value, error) {
	if err := f.check(); err != nil {
		return nil, err
	}
	t, ok := functionOf(target)
	if !ok || t.builder != f.builder {
		return nil, errors.Errorf("gour backend: Call of %T, not a function of this builder", target)
	}
	if t == f {
		return nil, errors.New("gour backend: a function calls itself")
	}
	if !t.returned {
		return nil, errors.Errorf("gour backend: Call of %q before its Return", t.name)
	}
	ins, err := f.nodesOf(inputs...)
	if err != nil {
		return nil, err
	}
	if len(ins) != len(t.params) {
		return nil, errors.Errorf("gour backend: Call of %q with %d inputs, it takes %d", t.name, len(ins), len(t.params))
	}
	for i, p := range t.params {
		if !ins[i].shape.Equal(p.shape) {
			return nil, errors.Errorf("gour backend: Call of %q: input %d is %s, the parameter %s", t.name, i, ins[i].shape, p.shape)
		}
	}
	m := map[*node]*node{}
	for i, p := range t.params {
		m[p] = ins[i]
	}
	for _, n := range t.nodes {
		if n.op == gc.OpTypeParameter {
			continue
		}
		c := *n
		c.constOwned = false // the function's constant stays the backend's (released by Finalize)
		c.inputs = make([]*node, len(n.inputs))
		for j, in := range n.inputs {
			c.inputs[j] = m[in]
		}
		m[n] = f.add(&c)
	}
	outs := make([]gc.Value, len(t.outputs))
	for i, o := range t.outputs {
		outs[i] = m[o]
	}
	return outs, nil
}

func (f *Function) String() string { return fmt.Sprintf("gour function %q", f.name) }

// notImplemented is the error of an operation the backend lacks for
// some configuration.
func notImplemented(format string, args ...any) error {
	return errors.Wrapf(gc.ErrNotImplemented, "gour backend: "+format, args...)
}
