package gomlx

import (
	"slices"
	"sync"

	gc "github.com/gomlx/compute"
	"github.com/gomlx/compute/shapes"
	"github.com/pkg/errors"
)

// maxFusedExpr bounds the length of a fused expression's source: an
// operation that repeats its input (Round, Rem, Sign) would otherwise
// grow a long chain's text exponentially.
const maxFusedExpr = 4096

// step is one device call of a plan: a node's operation, or a fused
// chain of element-wise nodes computed by one kernel.
type step struct {
	n *node
	// ins are the nodes whose values the step reads: the node's inputs,
	// or a fused chain's leaves.
	ins []*node
	// ew is a fused chain's kernel.
	ew *ewKernel
}

// Executable is a compiled graph: a plan of device calls, run in order on
// the backend's queue, with the constants uploaded once.
type Executable struct {
	backend *Backend
	names   []string
	params  []*node
	outputs []*node
	steps   []step
	// consts holds each constant node's storage.
	consts map[*node]store
	owned  []store // constants the executable frees
	// lastUse is, per node, the index of the last step reading it
	// (len(steps) for an output).
	lastUse map[*node]int
	// dyn is set for a graph of dynamic shapes: it is planned per tuple of
	// input shapes at Execute (dynamic.go), and steps is empty.
	dyn *dynamicPlan

	mu        sync.Mutex
	finalized bool
}

var _ gc.Executable = (*Executable)(nil)

// Compile implements compute.Builder: element-wise operations are fused
// into one compute/expr kernel per chain (a node used once, by an
// element-wise node of its shape, is inlined into it); every other
// operation is a step of its own.
func (bl *Builder) Compile() (gc.Executable, error) {
	b := bl.backend
	if err := b.enter(); err != nil {
		return nil, err
	}
	defer b.live.Done()
	f := bl.main
	if bl.compiled {
		return nil, errors.New("gour backend: builder compiled already")
	}
	if !f.returned {
		return nil, errors.New("gour backend: Compile before Return")
	}
	bl.compiled = true
	if bl.isDynamic() {
		// Planned at Execute, per tuple of input shapes; the executable
		// owns the donated constants that every plan shares.
		e := &Executable{backend: b, names: slices.Clone(f.pnames), params: slices.Clone(f.params),
			outputs: slices.Clone(f.outputs), dyn: &dynamicPlan{template: bl, cache: map[string][]specialization{}}}
		for _, n := range f.nodes {
			if n.constStore != nil && n.constOwned {
				e.owned = append(e.owned, n.constStore)
			}
		}
		return e, nil
	}
	e, err := bl.compile()
	if err != nil {
		return nil, err
	}
	return e, nil
}

// compile plans the main function of static shapes.
func (bl *Builder) compile() (*Executable, error) {
	b := bl.backend
	f := bl.main

	// The nodes the outputs need, and how many of them use each.
	live := make([]bool, len(f.nodes))
	for _, o := range f.outputs {
		live[o.id] = true
	}
	for i := len(f.nodes) - 1; i >= 0; i-- {
		if live[i] {
			for _, in := range f.nodes[i].inputs {
				live[in.id] = true
			}
		}
	}
	uses := make([]int, len(f.nodes))
	isOutput := make([]bool, len(f.nodes))
	for _, o := range f.outputs {
		isOutput[o.id] = true
	}
	for i, n := range f.nodes {
		if live[i] {
			for _, in := range n.inputs {
				uses[in.id]++
			}
		}
	}
	// inlined: an element-wise node computed inside its only consumer.
	inlined := make([]bool, len(f.nodes))
	for _, n := range f.nodes {
		if !live[n.id] || n.ew == nil {
			continue
		}
		for _, in := range n.inputs {
			if in.ew != nil && uses[in.id] == 1 && !isOutput[in.id] && in.shape.EqualDimensions(n.shape) {
				inlined[in.id] = true
			}
		}
	}

	e := &Executable{backend: b, names: slices.Clone(f.pnames), params: slices.Clone(f.params),
		outputs: slices.Clone(f.outputs), consts: map[*node]store{}, lastUse: map[*node]int{}}
	fail := func(err error) (*Executable, error) {
		e.release()
		return nil, err
	}
	for _, n := range f.nodes {
		if !live[n.id] || inlined[n.id] {
			continue
		}
		switch {
		case n.op == gc.OpTypeParameter:
		case n.constStore != nil:
			e.consts[n] = n.constStore
			if n.constOwned {
				e.owned = append(e.owned, n.constStore)
			}
		case n.constant != nil:
			st, err := storeFromFlat(b.ctx, n.shape.DType, n.constant, n.shape.Dimensions)
			if err != nil {
				return fail(err)
			}
			b.track(st)
			e.consts[n] = st
			e.owned = append(e.owned, st)
		case n.ew != nil:
			s, err := fuse(n, inlined)
			if err != nil {
				return fail(err)
			}
			e.steps = append(e.steps, s)
		case n.pending:
			return fail(errors.Errorf("gour backend: %s of %s left unresolved by the input shapes", n.op, n.shape))
		default:
			e.steps = append(e.steps, step{n: n, ins: n.inputs})
		}
	}
	for i, s := range e.steps {
		for _, in := range s.ins {
			e.lastUse[in] = i
		}
	}
	for _, o := range e.outputs {
		e.lastUse[o] = len(e.steps)
	}
	return e, nil
}

// fuse makes the step of element-wise node n with its inlined inputs: one
// expression over the leaves, compiled by compute/expr.
func fuse(n *node, inlined []bool) (step, error) {
	var leaves []*node
	leafIndex := map[*node]int{}
	var build func(m *node) string
	build = func(m *node) string {
		args := make([]string, len(m.inputs))
		for i, in := range m.inputs {
			if inlined[in.id] {
				args[i] = "(" + build(in) + ")"
				continue
			}
			j, ok := leafIndex[in]
			if !ok {
				j = len(leaves)
				leafIndex[in] = j
				leaves = append(leaves, in)
			}
			args[i] = argName(j)
		}
		return ewExpr(m, args)
	}
	src := build(n)
	if len(src) > maxFusedExpr {
		// Too long: compute the inlined inputs on their own.
		for i := range inlined {
			inlined[i] = false
		}
		leaves, leafIndex = nil, map[*node]int{}
		src = build(n)
	}
	out, _ := storageType(n.shape.DType)
	k, err := compileEW("out = "+src, out, ewTypes(leaves))
	if err != nil {
		return step{}, err
	}
	return step{n: n, ins: leaves, ew: k}, nil
}

// Finalize implements compute.Executable.
func (e *Executable) Finalize() {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.finalized {
		return
	}
	e.finalized = true
	if !e.backend.IsFinalized() {
		e.release()
	}
}

func (e *Executable) release() {
	if e.dyn != nil {
		e.dyn.release()
	}
	for _, st := range e.owned {
		if e.backend.untrack(st) {
			_ = st.release()
		}
	}
	e.owned = nil
}

// Inputs implements compute.Executable.
func (e *Executable) Inputs() ([]string, []shapes.Shape) {
	ss := make([]shapes.Shape, len(e.params))
	for i, p := range e.params {
		ss[i] = p.shape.Clone()
	}
	return slices.Clone(e.names), ss
}

// Outputs implements compute.Executable.
func (e *Executable) Outputs() []shapes.Shape {
	ss := make([]shapes.Shape, len(e.outputs))
	for i, o := range e.outputs {
		ss[i] = o.shape.Clone()
	}
	return ss
}

// Execute implements compute.Executable: the plan's steps are enqueued on
// the device's queue and Execute returns without waiting for them; a
// buffer's ToFlatData waits. Donated inputs are released (or become
// outputs) once their last reader is enqueued.
func (e *Executable) Execute(inputs []gc.Buffer, donate []bool, defaultDevice gc.DeviceNum) ([]gc.Buffer, error) {
	b := e.backend
	if err := b.enter(); err != nil {
		return nil, err
	}
	defer b.live.Done()
	e.mu.Lock()
	finalized := e.finalized
	e.mu.Unlock()
	if finalized {
		return nil, errors.New("gour backend: Execute of a finalized executable")
	}
	if defaultDevice != 0 {
		return nil, errors.Errorf("gour backend: no device %d", defaultDevice)
	}
	if len(inputs) != len(e.params) {
		return nil, errors.Errorf("gour backend: Execute with %d inputs, the executable takes %d", len(inputs), len(e.params))
	}
	if donate != nil && len(donate) != len(inputs) {
		return nil, errors.Errorf("gour backend: Execute with %d donate flags for %d inputs", len(donate), len(inputs))
	}
	if e.dyn != nil {
		ss := make([]shapes.Shape, len(inputs))
		for i, in := range inputs {
			buf, ok := in.(*Buffer)
			if !ok || buf.backend != b {
				return nil, errors.Errorf("gour backend: input %d is a %T of another backend", i, in)
			}
			ss[i] = buf.shape
		}
		x, cached, err := e.dyn.specialize(e, inputs, ss)
		if err != nil {
			return nil, err
		}
		if !cached {
			defer x.Finalize() // its constants are released in the queue's order
		}
		return x.Execute(inputs, donate, defaultDevice)
	}

	vals := make(map[*node]store, len(e.steps)+len(inputs))
	// owned: storage this execution may free or return (made by a step, or
	// donated).
	owned := map[store]bool{}
	var donated []*Buffer
	for i, in := range inputs {
		buf, ok := in.(*Buffer)
		if !ok || buf.backend != b {
			return nil, errors.Errorf("gour backend: input %d is a %T of another backend", i, in)
		}
		if !buf.shape.Equal(e.params[i].shape) {
			return nil, errors.Errorf("gour backend: input %d (%q) is %s, the executable takes %s", i, e.names[i], buf.shape, e.params[i].shape)
		}
		st, err := buf.storage()
		if err != nil {
			return nil, errors.WithMessagef(err, "input %d (%q)", i, e.names[i])
		}
		vals[e.params[i]] = st
		if donate != nil && donate[i] {
			donated = append(donated, buf)
		}
	}
	for _, buf := range donated {
		if st := buf.take(); st != nil {
			owned[st] = true
		}
	}
	for n, st := range e.consts {
		vals[n] = st
	}

	// refs counts, per storage, the values not yet past their last use
	// that hold it (an alias shares its input's).
	refs := map[store]int{}
	for n, st := range vals {
		if _, ok := e.lastUse[n]; ok {
			refs[st]++
		}
	}
	drop := func(n *node) {
		st := vals[n]
		refs[st]--
		if refs[st] == 0 && owned[st] {
			_ = st.release()
			delete(owned, st)
		}
	}
	var err error
	for i, s := range e.steps {
		var st store
		st, err = e.run(s, vals)
		if err != nil {
			break
		}
		if !s.n.alias { // a new array (an alias shares its input's)
			owned[st] = true
		}
		vals[s.n] = st
		if _, ok := e.lastUse[s.n]; ok {
			refs[st]++
		} else {
			refs[st]++
			drop(s.n) // a value nothing reads
		}
		for _, in := range s.ins {
			if e.lastUse[in] == i {
				drop(in)
			}
		}
	}
	if err != nil {
		for st := range owned {
			_ = st.release()
		}
		return nil, err
	}

	outs := make([]gc.Buffer, len(e.outputs))
	returned := map[store]bool{}
	for i, o := range e.outputs {
		st := vals[o]
		if !owned[st] || returned[st] {
			// A parameter not donated, a constant or a second output of one
			// array: the output gets a copy.
			cp, err := b.alloc(o.shape)
			if err == nil {
				err = b.copyAll(cp, st)
			}
			if err != nil {
				for _, ob := range outs[:i] {
					_ = ob.Finalize()
				}
				return nil, err
			}
			st = cp
		}
		returned[st] = true
		outs[i] = b.newBuffer(o.shape.Clone(), st)
	}
	for st := range owned {
		if !returned[st] && refs[st] <= 0 {
			_ = st.release()
		}
	}
	return outs, nil
}

// run computes one step's value.
func (e *Executable) run(s step, vals map[*node]store) (store, error) {
	b := e.backend
	ins := make([]store, len(s.ins))
	for i, in := range s.ins {
		ins[i] = vals[in]
	}
	switch {
	case s.n.alias:
		return ins[0], nil
	case s.ew != nil:
		return e.runFused(s, ins)
	default:
		return s.n.run(b, ins)
	}
}

// runFused runs a fused element-wise step: leaves of another shape than
// the output's are broadcast into temporaries first.
func (e *Executable) runFused(s step, ins []store) (store, error) {
	b := e.backend
	out, err := b.alloc(s.n.shape)
	if err != nil {
		return nil, err
	}
	var tmps []store
	defer func() {
		for _, t := range tmps {
			_ = t.release()
		}
	}()
	odims := s.n.shape.Dimensions
	for i, leaf := range s.ins {
		if leaf.shape.EqualDimensions(s.n.shape) {
			continue
		}
		t, err := b.alloc(shapes.Make(leaf.shape.DType, odims...))
		if err != nil {
			_ = out.release()
			return nil, err
		}
		tmps = append(tmps, t)
		ss := make([]int, len(odims))
		if !leaf.shape.IsScalar() {
			is := rowMajorStrides(leaf.shape.Dimensions)
			for k, d := range leaf.shape.Dimensions {
				if d == odims[k] {
					ss[k] = is[k]
				}
			}
		}
		if err := b.stridedCopy(t, ins[i], odims, 0, 0, rowMajorStrides(odims), ss); err != nil {
			_ = out.release()
			return nil, err
		}
		ins[i] = t
	}
	if err := b.runEW(s.ew, out, ins); err != nil {
		_ = out.release()
		return nil, err
	}
	return out, nil
}

// copyAll copies src into dst, of as many elements.
func (b *Backend) copyAll(dst, src store) error {
	n := src.len()
	return b.stridedCopy(dst, src, []int{n}, 0, 0, []int{1}, []int{1})
}
