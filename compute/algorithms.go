package compute

import (
	"fmt"
	"slices"
	"sync"

	"github.com/gour-dev/gour/ur"
)

// The algorithms: each checks its arrays, states their access modes and
// describes its work to the context as one element-wise operation or one
// reduction. Nothing here knows which context runs it.

func checkArray[T Element](what string, a *Array[T]) error {
	if a == nil {
		return fmt.Errorf("%w: nil %s array", ErrInvalid, what)
	}
	return nil
}

func sameShape[T Element](a, b *Array[T]) error {
	if !slices.Equal(a.c.shape, b.c.shape) {
		return fmt.Errorf("%w: %v and %v", ErrShape, a.c.shape, b.c.shape)
	}
	return nil
}

// Fill sets every element of a to v (a is Out: nothing is uploaded).
func Fill[T Element](ctx Context, a *Array[T], v T) error {
	if err := checkArray("Fill", a); err != nil {
		return err
	}
	if err := checkCtx(ctx); err != nil {
		return err
	}
	et := a.c.et
	op := &ewOp{
		n: a.c.n, kernelSrc: kernelSrc{builtinKey(et), builtinSource(et), et.fp64}, name: "fill_" + et.suffix,
		out: &a.c, params: []ur.Arg{ur.ArgOf(v)}, cpu: fillBody[T]{v}, call: "Fill",
	}
	return run(ctx, op, []use{{&a.c, Out}})
}

// Copy copies src into dst, of the same shape (src In, dst Out).
func Copy[T Element](ctx Context, dst, src *Array[T]) error {
	if err := checkArray("Copy destination", dst); err != nil {
		return err
	}
	if err := checkArray("Copy source", src); err != nil {
		return err
	}
	if err := checkCtx(ctx); err != nil {
		return err
	}
	if err := sameShape(dst, src); err != nil {
		return err
	}
	if dst == src {
		return prepare(ctx, []use{{&src.c, In}})
	}
	et := dst.c.et
	op := &ewOp{
		n: dst.c.n, kernelSrc: kernelSrc{builtinKey(et), builtinSource(et), et.fp64}, name: "copy_" + et.suffix,
		out: &dst.c, ins: []*core{&src.c}, cpu: copyBody[T]{}, driverCopy: true, call: "Copy",
	}
	return run(ctx, op, []use{{&src.c, In}, {&dst.c, Out}})
}

// The CPU sides of the element-wise algorithms, over the host copies of
// the operation's arrays.
type (
	fillBody[T Element]     struct{ v T }
	copyBody[T Element]     struct{}
	transformBody[T Number] struct{}
)

func (b fillBody[T]) body(op *ewOp) func(lo, hi int) {
	out := viewOf[T](op.out.host, op.n)
	return func(lo, hi int) {
		s := out[lo:hi]
		for i := range s {
			s[i] = b.v
		}
	}
}

func (copyBody[T]) body(op *ewOp) func(lo, hi int) {
	out, in := viewOf[T](op.out.host, op.n), viewOf[T](op.ins[0].host, op.n)
	return func(lo, hi int) { copy(out[lo:hi], in[lo:hi]) }
}

func (transformBody[T]) body(op *ewOp) func(lo, hi int) {
	fn := op.fn.(Func[T])
	out := viewOf[T](op.out.host, op.n)
	ins := make([][]T, len(op.ins))
	for i, c := range op.ins {
		ins[i] = viewOf[T](c.host, op.n)
	}
	params := fn.Params()
	return func(lo, hi int) { fn.CPU(out, ins, params, lo, hi) }
}

// Transform computes out[i] = fn(ins[0][i], ..., fn.Params()...) for
// every element: ins are In, out is Out (InOut where it is also an
// input, as in y = a*x + y).
//
// An input has out's shape or broadcasts to it by NumPy's rules: its
// shape, aligned with out's on the right, has each extent equal to
// out's or 1, and it may have fewer dimensions; it is read as if
// repeated along those. A bias row of shape [H] (or [1, H]) is added to
// every row of an [N, H] array, a column [N, 1] scales every row. An
// Expr's kernel indexes such inputs by strides; a Func of hand-written
// kernels gets them expanded to out's shape first (a temporary, and a
// copy, per broadcast input), as does every Func's CPU function. out
// itself is never broadcast: an input of a shape that does not broadcast
// to out's is an ErrShape naming both.
func Transform[T Number](ctx Context, fn Func[T], out *Array[T], ins ...*Array[T]) error {
	if isNilFunc(fn) {
		return fmt.Errorf("%w: nil Func", ErrInvalid)
	}
	if err := checkArray("Transform output", out); err != nil {
		return err
	}
	if err := checkCtx(ctx); err != nil {
		return err
	}
	if len(ins) != fn.Inputs() {
		return fmt.Errorf("%w: function %s takes %d inputs, got %d", ErrInvalid, fn.Kernel(), fn.Inputs(), len(ins))
	}
	bcast := false
	for i, in := range ins {
		if err := checkArray("Transform input", in); err != nil {
			return err
		}
		if !sameShapes(out.c.shape, in.c.shape) {
			if !broadcastable(out.c.shape, in.c.shape) {
				return fmt.Errorf("input %d: %w: %v does not broadcast to the output's %v", i, ErrShape, in.c.shape, out.c.shape)
			}
			bcast = true
		}
	}
	if bcast {
		return transformBroadcast(ctx, fn, out, ins)
	}
	op := ewOps.Get().(*ewOp)
	defer putEwOp(op)
	op.n, op.key, op.name, op.source, op.fp64, op.out = out.c.n, fn.Key(), fn.Kernel(), fn, out.c.et.fp64, &out.c
	op.cpu, op.fn, op.call = transformBody[T]{}, fn, "Transform"
	op.vec, _ = fn.(vec4Func)
	uses, cores := op.useBuf[:0], op.coreBuf[:0]
	for _, in := range ins {
		uses = append(uses, use{&in.c, In})
		cores = append(cores, &in.c)
	}
	uses = append(uses, use{&out.c, Out})
	args := op.paramBuf[:0]
	for _, p := range fn.Params() {
		args = append(args, ur.ArgOf(p))
	}
	op.ins, op.params = cores, args
	return run(ctx, op, uses)
}

// isNilFunc reports whether fn is nil or a nil pointer of the package's
// Funcs, whose methods would panic.
func isNilFunc[T Number](fn Func[T]) bool {
	switch f := fn.(type) {
	case nil:
		return true
	case *SourceFunc[T]:
		return f == nil
	case *ExprFunc[T]:
		return f == nil
	}
	return false
}

// ewOps recycles Transform's operations: nothing keeps one after run
// returns.
var ewOps = sync.Pool{New: func() any { return new(ewOp) }}

func putEwOp(op *ewOp) {
	*op = ewOp{}
	ewOps.Put(op)
}

// ForEach applies fn, a Func of one input, to a in place: a[i] =
// fn(a[i], params...). a is InOut.
func ForEach[T Number](ctx Context, fn Func[T], a *Array[T]) error {
	return Transform(ctx, fn, a, a)
}

// Reduce combines every element of a with op (a is In). An empty array
// gives op.Identity.
func Reduce[T Number](ctx Context, a *Array[T], op ReduceOp[T]) (T, error) {
	if err := op.check(); err != nil {
		return 0, err
	}
	return reduce(ctx, a, nil, op)
}

// Dot returns the sum of a[i]*b[i] over arrays of one shape (both In).
func Dot[T Number](ctx Context, a, b *Array[T]) (T, error) {
	if err := checkArray("Dot", b); err != nil {
		return 0, err
	}
	return reduce(ctx, a, b, Sum[T]())
}

func reduce[T Number](ctx Context, a, b *Array[T], op ReduceOp[T]) (T, error) {
	if err := checkArray("Reduce", a); err != nil {
		return 0, err
	}
	if err := checkCtx(ctx); err != nil {
		return 0, err
	}
	if b != nil {
		if err := sameShape(a, b); err != nil {
			return 0, err
		}
	}
	r, uses := newRedOp(a, b, op)
	if err := run(ctx, r, uses); err != nil {
		return 0, err
	}
	return viewOf[T](r.res, 1)[0], nil
}

// newRedOp describes reducing a (a[i]*b[i] with b) with op as one
// reduction, and the arrays it uses.
func newRedOp[T Number](a, b *Array[T], op ReduceOp[T]) (*redOp, []use) {
	uses := []use{{&a.c, In}}
	if b != nil {
		uses = append(uses, use{&b.c, In})
	}
	et := a.c.et
	key, source := builtinKey(et), builtinSource(et)
	if !op.builtin {
		key = fmt.Sprintf("compute/reduce/v1/%s/%s/%s", et.suffix, op.Name, op.Expr)
		source = func(backend string) (string, error) {
			if op.Expr == "" {
				return "", fmt.Errorf("compute: reduce operator %s has no device Expr: %w", op.Name, ur.ErrUnsupportedFeature)
			}
			return kernelPrelude(backend, et) + reduceSource(backend, et, op.Name, op.Expr), nil
		}
	}
	kind := "reduce"
	if b != nil {
		kind = "dot"
	}
	name, name4 := kind+"_"+op.Name+"_"+et.suffix, kind+"4_"+op.Name+"_"+et.suffix
	ident := []T{op.Identity}
	r := &redOp{
		n: a.c.n, kernelSrc: kernelSrc{key, source, et.fp64}, name: name, name2: "reduce_" + op.Name + "_" + et.suffix, name4: name4,
		a: &a.c, ident: ur.ArgOf(op.Identity), identB: bytesOf(ident),
		fns: typedReducer[T]{op},
	}
	if b != nil {
		r.b = &b.c
	}
	return r, uses
}
