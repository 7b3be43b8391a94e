package compute

import (
	"fmt"
	"strings"

	"github.com/gour-dev/gour/ur"
)

// Broadcasting, NumPy's rules for Transform: an input's shape, aligned
// with the output's on the right, has each extent equal to the output's
// or 1, and may have fewer dimensions; such an input is read at every
// output element as if repeated along its extents of 1 and its missing
// leading dimensions. The work indexes the input by strides, 0 along a
// repeated dimension, over the output's shape after merging the
// dimensions every array walks alike: a bias row added to an [N, H]
// matrix is an input of strides (0, 1) over (N, H).

// maxBroadcastRank is the rank of the broadcast kernels' index: after
// merging, an output of more dimensions than this is an ErrShape.
const maxBroadcastRank = 4

// bcLayout is a broadcast Transform's index: the output's extents,
// outermost first, padded with 1s in front to maxBroadcastRank, and each
// input's strides in elements over them.
type bcLayout struct {
	dims    [maxBroadcastRank]uint64
	strides [][maxBroadcastRank]uint64
}

// broadcastable checks that in broadcasts to out.
func broadcastable(out, in []int) bool {
	if len(in) > len(out) {
		return false
	}
	off := len(out) - len(in)
	for i, d := range in {
		if d != 1 && d != out[off+i] {
			return false
		}
	}
	return true
}

// layout returns the broadcast index of ins over out, every input
// broadcastable.
func layout(out []int, ins [][]int) (bcLayout, error) {
	r := len(out)
	// strides[k][i]: input k's stride along output dimension i.
	strides := make([][]uint64, len(ins))
	for k, in := range ins {
		s := make([]uint64, r)
		off := r - len(in)
		step := uint64(1)
		for i := len(in) - 1; i >= 0; i-- {
			if in[i] != 1 {
				s[off+i] = step
			}
			step *= uint64(in[i])
		}
		strides[k] = s
	}
	// Merge dimension i into i-1 where every input (and the output,
	// contiguous) walks them as one: stride[i-1] == stride[i]*dims[i].
	// Extents of 1 drop out first.
	var dims []uint64
	var keep []int
	for i, d := range out {
		if d != 1 {
			keep = append(keep, i)
		}
	}
	merged := make([][]uint64, len(ins))
	for _, i := range keep {
		d := uint64(out[i])
		if len(dims) > 0 {
			last := len(dims) - 1
			ok := true
			for k := range ins {
				if merged[k][last] != strides[k][i]*d {
					ok = false
					break
				}
			}
			if ok {
				dims[last] *= d
				for k := range ins {
					merged[k][last] = strides[k][i]
				}
				continue
			}
		}
		dims = append(dims, d)
		for k := range ins {
			merged[k] = append(merged[k], strides[k][i])
		}
	}
	if len(dims) > maxBroadcastRank {
		return bcLayout{}, fmt.Errorf("%w: broadcasting over %v needs %d dimensions after merging, more than %d", ErrShape, out, len(dims), maxBroadcastRank)
	}
	var l bcLayout
	pad := maxBroadcastRank - len(dims)
	for i := range l.dims {
		l.dims[i] = 1
	}
	copy(l.dims[pad:], dims)
	l.strides = make([][maxBroadcastRank]uint64, len(ins))
	for k := range ins {
		copy(l.strides[k][pad:], merged[k])
	}
	return l, nil
}

// args are the layout's kernel arguments past n: the extents but the
// outermost, then input k's strides (the expand kernel's one input: k =
// the input expanded).
func (l *bcLayout) args(args []ur.Arg, inputs ...int) []ur.Arg {
	for _, d := range l.dims[1:] {
		args = append(args, ur.ArgOf(d))
	}
	for _, k := range inputs {
		for _, s := range l.strides[k] {
			args = append(args, ur.ArgOf(s))
		}
	}
	return args
}

// index is the element of input k at output element i.
func (l *bcLayout) index(k int, i uint64) uint64 {
	s := &l.strides[k]
	var x uint64
	for j := maxBroadcastRank - 1; j >= 0; j-- {
		d := l.dims[j]
		x += i % d * s[j]
		i /= d
	}
	return x
}

// expandSource is the expand kernel of et: out[i] = in[the broadcast
// index of i], an input made whole for a Func that has no broadcast
// kernel of its own.
func expandSource(backend string, et *elemType) string {
	var b strings.Builder
	s := et.suffix
	if backend == "cuda" {
		t, u := et.cu, "unsigned long long"
		fmt.Fprintf(&b, `extern "C" __global__ void expand_%s(%s* out, const %s* in, %s n, %s d1, %s d2, %s d3, %s s0, %s s1, %s s2, %s s3) {
	%s
	if (i >= n) return;
	%s q3 = i / d3, q2 = q3 / d2, c0 = q2 / d1;
	out[i] = in[%s];
}
`, s, t, t, u, u, u, u, u, u, u, u, cuIndex, u, broadcastIndex)
		return b.String()
	}
	t := et.cl
	fmt.Fprintf(&b, `__kernel void expand_%s(__global %s* out, __global const %s* in, ulong n, ulong d1, ulong d2, ulong d3, ulong s0, ulong s1, ulong s2, ulong s3) {
	%s
	if (i >= n) return;
	ulong q3 = i / d3, q2 = q3 / d2, c0 = q2 / d1;
	out[i] = in[%s];
}
`, s, t, t, clIndex, broadcastIndex)
	return b.String()
}

// broadcastIndex is the C expression of the broadcast index of element
// i over extents (_, d1, d2, d3) with strides s0..s3, from the quotients
// q3 = i/d3, q2 = q3/d2, c0 = q2/d1: each coordinate a difference, not a
// remainder (clang -O2 pairs a division with a remainder through a
// freeze instruction, which llvm-spirv-15 cannot translate).
const broadcastIndex = "(i - q3 * d3) * s3 + (q3 - q2 * d2) * s2 + (q2 - c0 * d1) * s1 + c0 * s0"

// stridedFunc is a Func with a kernel of its own indexing its inputs by
// broadcast strides (an ExprFunc):
//
//	NAME(out, in0, ..., params..., n, d1, d2, d3, in0's s0..s3, in1's ...)
type stridedFunc interface {
	stridedKey() string
	stridedKernel() string
	stridedSource(backend string) (string, error)
}

// stridedSrc is a stridedFunc's broadcast kernel as a sourcer.
type stridedSrc struct{ f stridedFunc }

func (s stridedSrc) Source(backend string) (string, error) { return s.f.stridedSource(backend) }

// bcOp is a Transform with broadcast inputs: on a device, one launch of
// the Func's strided kernel where it has one, else the broadcast inputs
// expanded into temporaries and the Func's kernel; on the CPU, the
// broadcast inputs expanded and the Func's CPU function.
type bcOp struct {
	ewOp
	l      bcLayout
	bcast  []bool // input k is broadcast (not of out's shape)
	strKey string // the strided kernel's key; "" without one
	expand kernelSrc
	kexp   *kernelEntry
	// expandCPU expands input k into a host buffer of n elements.
	expandCPU func(c *CPU, k int) ([]byte, error)
	cpuBody   bcBody
}

func (op *bcOp) kernels(d *Device) (err error) {
	if op.n == 0 {
		return nil
	}
	if op.strKey != "" {
		op.kernel, err = d.kernel(&op.kernelSrc, op.name)
		return err
	}
	if op.kernel, err = d.kernel(&op.kernelSrc, op.name); err != nil {
		return err
	}
	op.kexp, err = d.kernel(&op.expand, "expand_"+op.out.et.suffix)
	return err
}

func (op *bcOp) onDevice(d *Device) error {
	if op.n == 0 {
		return nil
	}
	n := uint64(op.n)
	if op.strKey != "" {
		args := make([]ur.Arg, 0, 2+len(op.ins)*5+len(op.params)+3)
		args = append(args, op.out.dev.arg())
		for _, in := range op.ins {
			args = append(args, in.dev.arg())
		}
		args = append(args, op.params...)
		args = append(args, ur.ArgOf(n))
		all := make([]int, len(op.ins))
		for k := range all {
			all[k] = k
		}
		args = op.l.args(args, all...)
		e := op.kernel
		return d.launch(e, roundUp(n, e.local), e.local, args)
	}
	// Expand each broadcast input into a temporary, freed in the
	// queue's order after the Func's launch.
	ins := make([]ur.Arg, len(op.ins))
	var tmps []*devMem
	defer func() {
		for _, m := range tmps {
			m.free()
		}
	}()
	for k, in := range op.ins {
		if !op.bcast[k] {
			ins[k] = in.dev.arg()
			continue
		}
		m, err := d.allocDev(n * uint64(op.out.et.size))
		if err != nil {
			return err
		}
		tmps = append(tmps, m)
		var src ur.Arg
		if in.n > 0 {
			src = in.dev.arg()
		}
		args := op.l.args([]ur.Arg{m.arg(), src, ur.ArgOf(n)}, k)
		if err := d.launch(op.kexp, roundUp(n, op.kexp.local), op.kexp.local, args); err != nil {
			return err
		}
		ins[k] = m.arg()
	}
	args := append([]ur.Arg{op.out.dev.arg()}, ins...)
	args = append(args, op.params...)
	args = append(args, ur.ArgOf(n))
	e := op.kernel
	return d.launch(e, roundUp(n, e.local), e.local, args)
}

// onCPU expands the broadcast inputs, then runs the Func's CPU function
// over out's chunks as Transform does.
func (op *bcOp) onCPU(c *CPU) (err error) {
	if op.n == 0 {
		return nil
	}
	defer recovered("CPU function", &err)
	hosts := make([][]byte, len(op.ins))
	for k, in := range op.ins {
		if !op.bcast[k] {
			hosts[k] = in.host
			continue
		}
		if hosts[k], err = op.expandCPU(c, k); err != nil {
			return err
		}
	}
	f := op.cpuBody.bodyOf(op, hosts)
	return c.parallel(op.n, c.chunks(op.n), func(_, lo, hi int) { f(lo, hi) })
}

// bcBody is a broadcast Transform's CPU side, over its inputs' host
// storage, some of it expanded.
type bcBody interface {
	bodyOf(op *bcOp, ins [][]byte) func(lo, hi int)
}

type bcTransformBody[T Number] struct{}

func (bcTransformBody[T]) bodyOf(op *bcOp, hosts [][]byte) func(lo, hi int) {
	fn := op.fn.(Func[T])
	out := viewOf[T](op.out.host, op.n)
	ins := make([][]T, len(hosts))
	for i, h := range hosts {
		ins[i] = viewOf[T](h, op.n)
	}
	params := fn.Params()
	return func(lo, hi int) { fn.CPU(out, ins, params, lo, hi) }
}

// transformBroadcast is Transform with inputs of other shapes than out's,
// each broadcastable to it (checked by Transform). ins must not escape:
// Transform's variadic slice would then be allocated on every call, the
// fast path's included.
func transformBroadcast[T Number](ctx Context, fn Func[T], out *Array[T], ins []*Array[T]) error {
	shapes := make([][]int, len(ins))
	for k, in := range ins {
		shapes[k] = in.c.shape
	}
	l, err := layout(out.c.shape, shapes)
	if err != nil {
		return err
	}
	et := out.c.et
	op := &bcOp{l: l, bcast: make([]bool, len(ins))}
	op.n, op.key, op.name, op.source, op.fp64, op.out = out.c.n, fn.Key(), fn.Kernel(), fn, et.fp64, &out.c
	op.cpuBody, op.fn, op.call = bcTransformBody[T]{}, fn, "Transform"
	op.expand = kernelSrc{builtinKey(et), builtinSource(et), et.fp64}
	if sf, ok := fn.(stridedFunc); ok {
		op.strKey, op.key, op.name, op.source = sf.stridedKey(), sf.stridedKey(), sf.stridedKernel(), stridedSrc{sf}
	}
	uses := make([]use, 0, len(ins)+1)
	for k, in := range ins {
		op.bcast[k] = !sameShapes(in.c.shape, out.c.shape)
		uses = append(uses, use{&in.c, In})
		op.ins = append(op.ins, &in.c)
	}
	uses = append(uses, use{&out.c, Out})
	for _, p := range fn.Params() {
		op.params = append(op.params, ur.ArgOf(p))
	}
	op.expandCPU = func(c *CPU, k int) ([]byte, error) {
		b, err := alignedBytes(op.n * et.size)
		if err != nil {
			return nil, err
		}
		in := op.ins[k]
		dst, src := viewOf[T](b, op.n), viewOf[T](in.host, in.n)
		err = c.parallel(op.n, c.chunks(op.n), func(_, lo, hi int) {
			for i := lo; i < hi; i++ {
				dst[i] = src[op.l.index(k, uint64(i))]
			}
		})
		return b, err
	}
	return run(ctx, op, uses)
}

func sameShapes(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func (op *bcOp) onMulti(m *MultiDevice) error { return splitRun(m, op) }

// onPart is op over part i of its arrays, broadcast as their parts'
// shapes say: a split input of the output's rows is no longer broadcast
// where it was only for its rows.
func (op *bcOp) onPart(i int) (work, []use, error) {
	e := op.ewOp.partOp(i)
	shapes := make([][]int, len(e.ins))
	bcast := make([]bool, len(e.ins))
	for k, in := range e.ins {
		shapes[k], bcast[k] = in.shape, !sameShapes(in.shape, e.out.shape)
	}
	l, err := layout(e.out.shape, shapes)
	if err != nil {
		return nil, nil, err
	}
	p := &bcOp{ewOp: *e, l: l, bcast: bcast, strKey: op.strKey, expand: op.expand, cpuBody: op.cpuBody}
	return p, p.uses(), nil
}
