package compute

import (
	"fmt"
	"math"
	"strings"

	"github.com/gour-dev/gour/ur"
)

// ReduceAxis combines the elements of in along one axis with op and
// writes the results to out (in is In, out is Out): row sums and row
// maxima of a matrix are axis 1, column sums axis 0. A negative axis
// counts from the end (-1 is the last). out has in's shape without the
// axis, or with the axis's extent 1 (NumPy's keepdims, so that the
// result broadcasts back against in in a Transform); anything else is
// an ErrShape naming both shapes. Reducing an axis of extent 0 gives
// op.Identity.
//
// Each result is combined in order along the axis on the CPU, and on a
// device in order within chunks of the axis and then the chunks in order
// (chunks where the results are too few to fill the device), so the
// results are the same on every run and, for integers and the built-in
// Min and Max, on every context. An axis that is the whole array (a
// 1-D array, or every other extent 1) is Reduce's reduction, combined as
// Reduce combines it, its result left on the device: no read-back and no
// wait, so that reductions chain with other work as CuPy's and PyTorch's
// do.
func ReduceAxis[T Number](ctx Context, out, in *Array[T], axis int, op ReduceOp[T]) error {
	if err := op.check(); err != nil {
		return err
	}
	if err := checkArray("ReduceAxis output", out); err != nil {
		return err
	}
	if err := checkArray("ReduceAxis input", in); err != nil {
		return err
	}
	if err := checkCtx(ctx); err != nil {
		return err
	}
	shape := in.c.shape
	r := len(shape)
	if axis < -r || axis >= r {
		return fmt.Errorf("%w: axis %d of a %d-dimensional array %v", ErrShape, axis, r, shape)
	}
	if axis < 0 {
		axis += r
	}
	if !axisShape(out.c.shape, shape, axis) {
		return fmt.Errorf("%w: reducing %v along axis %d gives %v or %v, not %v", ErrShape, shape, axis,
			dropAxis(shape, axis), keepAxis(shape, axis), out.c.shape)
	}
	if out == in {
		return fmt.Errorf("%w: ReduceAxis's output is its input", ErrInvalid)
	}
	outer, inner := 1, 1
	for _, d := range shape[:axis] {
		outer *= d
	}
	for _, d := range shape[axis+1:] {
		inner *= d
	}
	if outer == 1 && inner == 1 && shape[axis] > 0 {
		// One result of the whole array: Reduce's passes, which read
		// four elements at a time and fill the device, the result left
		// in out on the device, as cupy.sum and torch.sum leave theirs.
		r, uses := newRedOp(in, nil, op)
		r.into, r.axis = &out.c, axis
		return run(ctx, r, append(uses, use{&out.c, Out}))
	}
	et := in.c.et
	w := &axisOp{
		outer: outer, length: shape[axis], inner: inner, axis: axis,
		// the key's v2: the kernel's index without a remainder
		kernelSrc: kernelSrc{
			key: fmt.Sprintf("compute/axis/v3/%s/%s/%s", et.suffix, op.Name, op.Expr),
			source: sourceFunc(func(backend string) (string, error) {
				if op.Expr == "" {
					return "", fmt.Errorf("compute: reduce operator %s has no device Expr: %w", op.Name, ur.ErrUnsupportedFeature)
				}
				return kernelPrelude(backend, et) + axisSource(backend, et, op.Name, op.Expr), nil
			}),
			fp64: et.fp64,
		},
		name: "reduce_axis_" + op.Name + "_" + et.suffix, name1: "reduce_axis_part_" + op.Name + "_" + et.suffix,
		out: &out.c, in: &in.c, ident: ur.ArgOf(op.Identity),
		cpu: func(lo, hi int) {
			x, y := viewOf[T](in.c.host, in.c.n), viewOf[T](out.c.host, out.c.n)
			length := shape[axis]
			for g := lo; g < hi; g++ {
				o, j := g/inner, g%inner
				p := o*length*inner + j
				acc := op.Identity
				for t := 0; t < length; t++ {
					acc = op.Combine(acc, x[p+t*inner])
				}
				y[g] = acc
			}
		},
	}
	return run(ctx, w, []use{{&in.c, In}, {&out.c, Out}})
}

// axisShape reports whether out is in without axis, or with it of
// extent 1.
func axisShape(out, in []int, axis int) bool {
	return sameShapes(out, dropAxis(in, axis)) || sameShapes(out, keepAxis(in, axis))
}

func dropAxis(s []int, axis int) []int {
	return append(append([]int{}, s[:axis]...), s[axis+1:]...)
}

func keepAxis(s []int, axis int) []int {
	k := append([]int{}, s...)
	k[axis] = 1
	return k
}

// axisOp is a reduction along an axis: in seen as [outer, length,
// inner], out[o*inner+j] combines in[o, 0.., j] in order. On a device
// one work-item computes one result (coalesced where inner is large:
// column sums), or one chunk of a result's axis where the results are
// few (onDevice).
type axisOp struct {
	outer, length, inner int
	axis                 int
	kernelSrc
	name    string // one work-item a result
	name1   string // the first pass over chunks of the axis
	out, in *core
	ident   ur.Arg
	kernel  *kernelEntry
	kernel1 *kernelEntry
	cpu     func(lo, hi int)
}

func (w *axisOp) results() int { return w.outer * w.inner }

func (w *axisOp) kernels(d *Device) (err error) {
	if w.results() > 0 {
		if w.kernel, err = d.kernel(&w.kernelSrc, w.name); err == nil {
			w.kernel1, err = d.kernel(&w.kernelSrc, w.name1)
		}
	}
	return err
}

// onDevice launches one work-item per result where there are enough
// results to fill the device. Few results along a long axis (the column
// sums of a tall matrix: a bias's gradient) would leave the device
// nearly idle, each work-item walking the whole axis: there the axis is
// cut into chunks, a first pass reduces every chunk of every result into
// a partial ([chunks, results], in order within the chunk), and the
// same kernel reduces the partials along the chunks, in order. The
// number of chunks depends on the shape and the device only, so the
// results are the same on every run.
func (w *axisOp) onDevice(d *Device) error {
	m := uint64(w.results())
	if m == 0 {
		return nil
	}
	var in ur.Arg
	if w.in.n > 0 {
		in = w.in.dev.arg()
	} else {
		in = w.out.dev.arg() // not read: the axis is empty
	}
	e := w.kernel
	length := uint64(w.length)
	chunks := axisChunks(m, length, d.groups*e.local)
	if chunks <= 1 {
		return d.launch(e, roundUp(m, e.local), e.local, []ur.Arg{
			w.out.dev.arg(), in, w.ident, ur.ArgOf(uint64(w.inner)), ur.ArgOf(length), ur.ArgOf(m),
		})
	}
	part, err := d.allocDev(chunks * m * uint64(w.out.et.size))
	if err != nil {
		return err
	}
	defer part.free()
	k1 := w.kernel1
	if err := d.launch(k1, roundUp(chunks*m, k1.local), k1.local, []ur.Arg{
		part.arg(), in, w.ident, ur.ArgOf(uint64(w.inner)), ur.ArgOf(length), ur.ArgOf(m), ur.ArgOf(chunks),
	}); err != nil {
		return err
	}
	return d.launch(e, roundUp(m, e.local), e.local, []ur.Arg{
		w.out.dev.arg(), part.arg(), w.ident, ur.ArgOf(m), ur.ArgOf(chunks), ur.ArgOf(m),
	})
}

// axisChunks is how many chunks an axis of length is cut into for m
// results on a device running about threads work-items at once: 1 where
// the results fill it or the axis is short, else about √length chunks
// (both passes walk about √length elements), at most enough to fill it.
func axisChunks(m, length, threads uint64) uint64 {
	if m >= threads/2 || length < 256 {
		return 1
	}
	c := uint64(math.Sqrt(float64(length)))
	return max(1, min(c, threads/m))
}

// onCPU splits the results into chunks of about the CPU context's chunk
// size in elements read.
func (w *axisOp) onCPU(c *CPU) (err error) {
	m := w.results()
	if m == 0 {
		return nil
	}
	defer recovered("CPU function", &err)
	k := min(m, c.chunks(m*max(1, w.length)))
	return c.parallel(m, k, func(_, lo, hi int) { w.cpu(lo, hi) })
}

// axisSource is the kernels reducing an axis with one operator on et:
// reduce_axis_NAME_S(out, in, ident, inner, length, m), a work-item a
// result, and reduce_axis_part_NAME_S(part, in, ident, inner, length, m,
// chunks), a work-item a chunk of a result's axis, partial c of result r
// at part[c*m + r]. Result i =
// o*inner + j starts at o*length*inner + j = i + o*(length-1)*inner: one
// division, no remainder (clang -O2 pairs a division with a remainder
// through a freeze instruction, which llvm-spirv-15 cannot translate).
func axisSource(backend string, et *elemType, name, expr string) string {
	var b strings.Builder
	s := et.suffix
	if backend == "cuda" {
		t, u := et.cu, "unsigned long long"
		fmt.Fprintf(&b, "__device__ __forceinline__ %s op_%s_%s(%s a, %s b) { return (%s); }\n", t, name, s, t, t, expr)
		fmt.Fprintf(&b, `extern "C" __global__ void reduce_axis_%[1]s_%[2]s(%[3]s* out, const %[3]s* in, %[3]s ident, %[4]s inner, %[4]s length, %[4]s m) {
	%[5]s
	if (i >= m) return;
	const %[3]s* p = in + i + (i / inner) * (length - 1) * inner;
	%[3]s acc = ident;
	for (%[4]s t = 0; t < length; t++) acc = op_%[1]s_%[2]s(acc, p[t * inner]);
	out[i] = acc;
}
extern "C" __global__ void reduce_axis_part_%[1]s_%[2]s(%[3]s* part, const %[3]s* in, %[3]s ident, %[4]s inner, %[4]s length, %[4]s m, %[4]s chunks) {
	%[5]s
	if (i >= m * chunks) return;
	%[4]s c = i / m, r = i - c * m;
	const %[3]s* p = in + r + (r / inner) * (length - 1) * inner;
	%[3]s acc = ident;
	for (%[4]s t = c * length / chunks, end = (c + 1) * length / chunks; t < end; t++) acc = op_%[1]s_%[2]s(acc, p[t * inner]);
	part[i] = acc;
}
`, name, s, t, u, cuIndex)
		return b.String()
	}
	t := et.cl
	fmt.Fprintf(&b, "%s op_%s_%s(%s a, %s b) { return (%s); }\n", t, name, s, t, t, expr)
	fmt.Fprintf(&b, `__kernel void reduce_axis_%[1]s_%[2]s(__global %[3]s* out, __global const %[3]s* in, %[3]s ident, ulong inner, ulong length, ulong m) {
	%[4]s
	if (i >= m) return;
	__global const %[3]s* p = in + i + (i / inner) * (length - 1) * inner;
	%[3]s acc = ident;
	for (ulong t = 0; t < length; t++) acc = op_%[1]s_%[2]s(acc, p[t * inner]);
	out[i] = acc;
}
__kernel void reduce_axis_part_%[1]s_%[2]s(__global %[3]s* part, __global const %[3]s* in, %[3]s ident, ulong inner, ulong length, ulong m, ulong chunks) {
	%[4]s
	if (i >= m * chunks) return;
	ulong c = i / m, r = i - c * m;
	__global const %[3]s* p = in + r + (r / inner) * (length - 1) * inner;
	%[3]s acc = ident;
	for (ulong t = c * length / chunks, end = (c + 1) * length / chunks; t < end; t++) acc = op_%[1]s_%[2]s(acc, p[t * inner]);
	part[i] = acc;
}
`, name, s, t, clIndex)
	return b.String()
}

func (w *axisOp) onMulti(m *MultiDevice) error {
	if !w.in.replicated && w.axis == 0 {
		return fmt.Errorf("%w: ReduceAxis along axis 0 of an array split along it across devices: Reduce it, or replicate it", ErrInvalid)
	}
	return splitRun(m, w)
}

func (w *axisOp) layout() (string, *core, []marg) {
	args := append(margsOf("ReduceAxis input", true, w.in), margsOf("ReduceAxis output", false, w.out)...)
	args[0].spl = true // axis > 0: out keeps in's first axis
	return "ReduceAxis", w.out, args
}

// onPart is w over part i: the part's rows (axis > 0) or the whole
// replica.
func (w *axisOp) onPart(i int) (work, []use, error) {
	p := *w
	p.in, p.out, p.kernel, p.kernel1, p.cpu = w.in.parts[i], w.out.parts[i], nil, nil, nil
	p.outer = 1
	for _, d := range p.in.shape[:w.axis] {
		p.outer *= d
	}
	return &p, []use{{p.in, In}, {p.out, Out}}, nil
}
