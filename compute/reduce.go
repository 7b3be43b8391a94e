package compute

import (
	"context"
	"fmt"
	"math"

	"github.com/gour-dev/gour/ur"
)

// ReduceOp is an associative and commutative operator with its
// identity, for Reduce: Combine on the CPU context and Expr on devices.
// The CPU context combines chunks in order; a device combines elements
// a stride apart and then the work-items' values in a tree, so it needs
// commutativity, and an only approximately associative operator
// (floating-point addition) gives results differing by rounding.
type ReduceOp[T Number] struct {
	// Name is a C identifier: part of the kernels' names and of the
	// cache key, so two operators of one type need two names.
	Name string
	// Identity is the operator's neutral element, and the result of
	// reducing no elements.
	Identity T
	// Combine is the operator on the CPU.
	Combine func(a, b T) T
	// Expr is the operator as a C expression of a and b of the element
	// type, valid in OpenCL C and CUDA C ("a + b", "max(a, b)").
	Expr string

	builtin bool
}

// Sum is addition, identity 0.
func Sum[T Number]() ReduceOp[T] {
	return ReduceOp[T]{Name: "sum", Identity: 0, Combine: func(a, b T) T { return a + b }, Expr: "a + b", builtin: true}
}

// Prod is multiplication, identity 1.
func Prod[T Number]() ReduceOp[T] {
	return ReduceOp[T]{Name: "prod", Identity: 1, Combine: func(a, b T) T { return a * b }, Expr: "a * b", builtin: true}
}

// Min is the minimum, identity the largest T (+Inf for floats).
func Min[T Number]() ReduceOp[T] {
	return ReduceOp[T]{Name: "min", Identity: highest[T](), Combine: func(a, b T) T {
		if b < a {
			return b
		}
		return a
	}, Expr: "b < a ? b : a", builtin: true}
}

// Max is the maximum, identity the lowest T (-Inf for floats).
func Max[T Number]() ReduceOp[T] {
	return ReduceOp[T]{Name: "max", Identity: lowest[T](), Combine: func(a, b T) T {
		if b > a {
			return b
		}
		return a
	}, Expr: "b > a ? b : a", builtin: true}
}

// highest and lowest go through variables: a constant conversion to T
// must hold for every type of Number, a run-time one only for T.
func highest[T Number]() T {
	inf, i32, u32, i64, u64 := math.Inf(1), int64(math.MaxInt32), uint64(math.MaxUint32), int64(math.MaxInt64), uint64(math.MaxUint64)
	switch typeOf[T]() {
	case typeF32, typeF64:
		return T(inf)
	case typeI32:
		return T(i32)
	case typeU32:
		return T(u32)
	case typeI64:
		return T(i64)
	}
	return T(u64)
}

func lowest[T Number]() T {
	inf, i32, i64 := math.Inf(-1), int64(math.MinInt32), int64(math.MinInt64)
	switch typeOf[T]() {
	case typeF32, typeF64:
		return T(inf)
	case typeI32:
		return T(i32)
	case typeI64:
		return T(i64)
	}
	return 0 // unsigned
}

// check validates a user's operator.
func (op *ReduceOp[T]) check() error {
	if !isIdent(op.Name) {
		return fmt.Errorf("%w: reduce operator name %q is not a C identifier", ErrInvalid, op.Name)
	}
	if op.Combine == nil {
		return fmt.Errorf("%w: reduce operator %s has no Combine", ErrInvalid, op.Name)
	}
	return nil
}

// redOp is one reduction of a (or of a[i]*b[i] when b is set, a dot
// product) with an associative operator; running it sets res.
type redOp struct {
	n int
	kernelSrc
	name   string // the first pass's kernel; the second pass is reduce over its partials
	name2  string
	name4  string // the first pass reading four elements at a time: reduce4_..., dot4_...
	a, b   *core
	ident  ur.Arg
	identB []byte // the identity's bytes: the result of an empty reduction
	// k1 and k2 are the passes' device kernels, found by kernels; k1v
	// the first pass reading four elements at a time (reduce4, dot4),
	// on a Device of ElementsPerThread 4, used where the inputs are
	// aligned to four elements.
	k1, k2, k1v *kernelEntry
	// fns is the reduction's typed side: the CPU's chunk bodies and the
	// combination of partial results in order.
	fns reducer
	res []byte // the result's bytes
	// deferred makes onDevice enqueue the passes only, leaving the
	// partials in part for readBack and finish (MultiDevice).
	deferred bool
	part     *devMem
	ev       *ur.Event // the async read-back's
	out      []byte    // the read-back's destination
	// into: ReduceAxis of a whole array, whose result stays in into's
	// storage (one element): the last pass writes it there and nothing
	// is read back or waited for.
	into *core
	axis int // ReduceAxis's axis, with into
}

func (op *redOp) kernels(d *Device) (err error) {
	if op.n == 0 {
		return nil
	}
	if op.k1, err = d.kernel(&op.kernelSrc, op.name); err == nil {
		op.k2, err = d.kernel(&op.kernelSrc, op.name2)
	}
	if err == nil && d.perThread == 4 {
		op.k1v, err = d.kernel(&op.kernelSrc, op.name4)
	}
	return err
}

// onDevice is a two-pass tree reduction: the first pass has up to
// d.groups work-groups, each reducing a grid-strided share of the input
// in registers and then in local memory to one partial; the second pass
// is one work-group reducing the partials in place. No atomics, so the
// result is the same on every run. A deferred op only enqueues the
// passes: a MultiDevice enqueues every device's before it reads any
// result back (readBack, then finish), so that the devices run at once.
func (op *redOp) onDevice(d *Device) error {
	if op.n == 0 {
		op.res = op.identB
		return nil
	}
	if err := op.launch(d); err != nil || op.deferred || op.into != nil {
		return err
	}
	return op.finish(op.readBack(false))
}

// launch enqueues the passes on d, leaving the result first in op.part,
// or in op.into's storage with the partials given back at once;
// on an error nothing is left pending.
func (op *redOp) launch(d *Device) error {
	k1, k2 := op.k1, op.k2
	n, size := uint64(op.n), uint64(op.a.et.size)
	items := n // the first pass's work: elements, or vectors of four
	if op.k1v != nil && op.a.dev.alignedTo(4*size) && (op.b == nil || op.b.dev.alignedTo(4*size)) {
		k1, items = op.k1v, max(1, n/4)
	}
	l1 := k1.local
	g := min(d.groups, (items+l1-1)/l1)
	// part holds the first pass's partials, but where one group's result
	// is the result and it has somewhere to go (into).
	var part *devMem
	var err error
	if op.into == nil || g > 1 {
		if part, err = d.takePartials(); err != nil {
			return err
		}
	}
	last := op.resultArg(part)
	first := last
	if part != nil {
		first = part.arg()
	}
	args := make([]ur.Arg, 0, 6)
	args = append(args, op.a.dev.arg())
	if op.b != nil {
		args = append(args, op.b.dev.arg())
	}
	args = append(args, first, ur.ArgLocalMem(l1*size), op.ident, ur.ArgOf(n))
	err = d.launch(k1, g*l1, l1, args)
	if err == nil && g > 1 {
		l2 := k2.local
		args = append(args[:0], part.arg(), last, ur.ArgLocalMem(l2*size), op.ident, ur.ArgOf(g))
		err = d.launch(k2, l2, l2, args)
	}
	switch {
	case err != nil && part != nil:
		part.free()
	case op.into != nil && part != nil:
		// Nothing reads the partials after the passes: the next user's
		// commands go to the same in-order queue, after them.
		err = d.givePartials(part)
	case op.into == nil:
		op.part = part
	}
	return err
}

// resultArg is where the last pass writes the result: into's storage, or
// the first of the partials, in place.
func (op *redOp) resultArg(part *devMem) ur.Arg {
	if op.into != nil {
		return op.into.dev.arg()
	}
	return part.arg()
}

// readBack copies the result of the launched passes to the host: at
// once, or with async enqueued after them (into Go memory, which the
// CUDA driver stages, returning once the copy is done: the reason a
// MultiDevice enqueues every device's passes first). An op with nothing
// pending (empty, or its launch failed) has nothing to read.
func (op *redOp) readBack(async bool) error {
	if op.part == nil {
		return nil
	}
	out, err := alignedBytes(op.a.et.size)
	if err != nil {
		return err
	}
	if async {
		if op.ev, err = op.part.readAsync(out); err == nil && op.ev == nil {
			err = op.part.d.finish() // no event to wait on
		}
	} else {
		err = op.part.read(out)
	}
	if err == nil {
		op.out = out
	}
	return err
}

// finish waits for an async read-back, frees the partials and, when err
// (the read-back's) is nil and the read succeeded, sets the result.
func (op *redOp) finish(err error) error {
	part, ev := op.part, op.ev
	op.part, op.ev = nil, nil
	if part == nil {
		return err
	}
	if ev != nil {
		if werr := ev.Wait(context.Background()); err == nil {
			err = werr
		}
		ev.Release()
	}
	if err == nil {
		err = part.d.givePartials(part) // the read-back waited for the passes
		op.res = op.out
	} else {
		part.free()
	}
	return err
}

// onCPU recovers a panic in making the body and in combining the
// partials, on the caller's goroutine, as parallel does one in a chunk.
func (op *redOp) onCPU(c *CPU) (err error) {
	if op.n == 0 {
		op.res = op.identB
		return nil
	}
	defer recovered("CPU function", &err)
	k := c.chunks(op.n)
	body, finish := op.fns.cpu(op.a, op.b, k)
	if err := c.parallel(op.n, k, body); err != nil {
		return err
	}
	op.res = finish()
	if op.into != nil {
		copy(op.into.host, op.res)
	}
	return nil
}

// reducer is what a reduction does with its element type: the CPU's
// chunk bodies (each leaving its chunk's partial result) with the
// combination of the partials, and the combination of partial results
// computed elsewhere (a MultiDevice's devices), both in order.
type reducer interface {
	cpu(a, b *core, chunks int) (body func(chunk, lo, hi int), finish func() []byte)
	combine(parts [][]byte) ([]byte, error)
}

// typedReducer is ReduceOp[T] as a reducer.
type typedReducer[T Number] struct{ op ReduceOp[T] }

func (r typedReducer[T]) cpu(a, b *core, chunks int) (func(chunk, lo, hi int), func() []byte) {
	x := viewOf[T](a.host, a.n)
	var y []T
	if b != nil {
		y = viewOf[T](b.host, b.n)
	}
	op, part := r.op, make([]T, chunks)
	body := func(chunk, lo, hi int) {
		acc := op.Identity
		if y == nil {
			for _, v := range x[lo:hi] {
				acc = op.Combine(acc, v)
			}
		} else {
			ys := y[lo:hi]
			for i, v := range x[lo:hi] {
				acc = op.Combine(acc, v*ys[i])
			}
		}
		part[chunk] = acc
	}
	return body, func() []byte { return bytesOf([]T{r.combineAll(part)}) }
}

// combineAll combines partial results in order, from the identity.
func (r typedReducer[T]) combineAll(parts []T) T {
	acc := r.op.Identity
	for _, p := range parts {
		acc = r.op.Combine(acc, p)
	}
	return acc
}

func (r typedReducer[T]) combine(parts [][]byte) (res []byte, err error) {
	defer recovered("ReduceOp's Combine", &err)
	vals := make([]T, len(parts))
	for i, p := range parts {
		vals[i] = viewOf[T](p, 1)[0]
	}
	return bytesOf([]T{r.combineAll(vals)}), nil
}
