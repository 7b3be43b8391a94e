package compute

import (
	"fmt"
	"strings"
)

// The package's own kernels, written once per backend as templates over
// the element type. Each element-wise kernel takes (out, ins..., params...,
// n) and guards i < n, because launches round the range up to whole
// work-groups (CUDA and some OpenCL drivers need that).

// clIndex and cuIndex are the global index of a work-item.
const (
	clIndex = "size_t i = get_global_id(0);"
	cuIndex = "unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;"
)

// kernelPrelude starts a program for et on backend: the fp64 pragma for
// OpenCL doubles, the dynamic shared memory CUDA local arguments index.
func kernelPrelude(backend string, et *elemType) string {
	if backend == "cuda" {
		// gour_vec4 is four elements loaded as one (a 16-byte load for
		// 4-byte types): the reductions' four-a-load first pass.
		return "extern __shared__ unsigned char gour_local[];\ntemplate <typename T> struct __align__(4 * sizeof(T)) gour_vec4 { T v[4]; };\n"
	}
	if et.fp64 {
		return "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n"
	}
	return ""
}

// fillCopySource is the fill and copy kernels of et.
func fillCopySource(backend string, et *elemType) string {
	var b strings.Builder
	s := et.suffix
	if backend == "cuda" {
		t := et.cu
		fmt.Fprintf(&b, "extern \"C\" __global__ void fill_%s(%s* out, %s v, unsigned long long n) { %s if (i < n) out[i] = v; }\n", s, t, t, cuIndex)
		fmt.Fprintf(&b, "extern \"C\" __global__ void copy_%s(%s* out, const %s* in, unsigned long long n) { %s if (i < n) out[i] = in[i]; }\n", s, t, t, cuIndex)
		return b.String()
	}
	t := et.cl
	fmt.Fprintf(&b, "__kernel void fill_%s(__global %s* out, %s v, ulong n) { %s if (i < n) out[i] = v; }\n", s, t, t, clIndex)
	fmt.Fprintf(&b, "__kernel void copy_%s(__global %s* out, __global const %s* in, ulong n) { %s if (i < n) out[i] = in[i]; }\n", s, t, t, clIndex)
	return b.String()
}

// reduceSource is the reduction kernels of one operator on et:
// reduce_NAME_S(in, partial, scratch, ident, n) and, with the product of
// two inputs as the element, dot_NAME_S(a, b, partial, scratch, ident, n);
// and reduce4_NAME_S and dot4_NAME_S, with the same arguments, whose
// work-items read their share four elements at a time, as one vector
// (see vec4Loop): the first pass on a GPU where the inputs are aligned to
// four elements.
// Each work-group reduces a grid-strided share of the input into a
// register, then its work-items' values in local memory, halving (the
// group size is a power of two), and writes one partial. Reducing the
// partials is the same kernel with one group, in place: every read of it
// happens before the barrier that precedes the one write.
func reduceSource(backend string, et *elemType, name, expr string) string {
	var b strings.Builder
	s := et.suffix
	if backend == "cuda" {
		t := et.cu
		fmt.Fprintf(&b, "__device__ __forceinline__ %s op_%s_%s(%s a, %s b) { return (%s); }\n", t, name, s, t, t, expr)
		for _, k := range reduceKernels {
			ins, loop := k.body(backend, "", "unsigned long long", "(unsigned long long)blockIdx.x * L + lid", t, "op_"+name+"_"+s)
			fmt.Fprintf(&b, `extern "C" __global__ void %s_%s_%s(%s, %s* partial, size_t scratch_off, %s ident, unsigned long long n) {
	%s* scratch = (%s*)(gour_local + scratch_off);
	unsigned int lid = threadIdx.x, L = blockDim.x;
	unsigned long long stride = (unsigned long long)gridDim.x * L;
	%s
	scratch[lid] = acc;
	__syncthreads();
	for (unsigned int h = L / 2; h > 0; h >>= 1) {
		if (lid < h) scratch[lid] = op_%s_%s(scratch[lid], scratch[lid + h]);
		__syncthreads();
	}
	if (lid == 0) partial[blockIdx.x] = scratch[0];
}
`, k.name, name, s, ins, t, t, t, t, loop, name, s)
		}
		return b.String()
	}
	t := et.cl
	// A plain function: C99 inline semantics would want an external
	// definition some OpenCL compilers do not make.
	fmt.Fprintf(&b, "%s op_%s_%s(%s a, %s b) { return (%s); }\n", t, name, s, t, t, expr)
	for _, k := range reduceKernels {
		ins, loop := k.body(backend, "__global ", "ulong", "(ulong)get_group_id(0) * L + lid", t, "op_"+name+"_"+s)
		fmt.Fprintf(&b, `__kernel void %s_%s_%s(%s, __global %s* partial, __local %s* scratch, %s ident, ulong n) {
	size_t lid = get_local_id(0), L = get_local_size(0);
	ulong stride = (ulong)get_num_groups(0) * L;
	%s
	scratch[lid] = acc;
	barrier(CLK_LOCAL_MEM_FENCE);
	for (size_t h = L / 2; h > 0; h >>= 1) {
		if (lid < h) scratch[lid] = op_%s_%s(scratch[lid], scratch[lid + h]);
		barrier(CLK_LOCAL_MEM_FENCE);
	}
	if (lid == 0) partial[get_group_id(0)] = scratch[0];
}
`, k.name, name, s, ins, t, t, t, loop, name, s)
	}
	return b.String()
}

// reduceKernel is one kernel reduceSource makes of an operator: over one
// input or the products of two (dot), one element or four at a time.
type reduceKernel struct {
	name      string
	dot, vec4 bool
}

// reduceKernels are the kernels reduceSource makes of an operator.
var reduceKernels = []reduceKernel{{"reduce", false, false}, {"dot", true, false}, {"reduce4", false, true}, {"dot4", true, true}}

// body is k's input parameters, pointers qualified with qual, and its
// loop combining op over them into acc: idx is the index type and start
// the work-item's first index, in the backend's language.
func (k reduceKernel) body(backend, qual, idx, start, t, op string) (ins, loop string) {
	ins, elem := fmt.Sprintf("%sconst %s* in", qual, t), "in[%s]"
	if k.dot {
		ins, elem = fmt.Sprintf("%[1]sconst %[2]s* a, %[1]sconst %[2]s* b", qual, t), "a[%[1]s] * b[%[1]s]"
	}
	if k.vec4 {
		return ins, vec4Loop(backend, idx, start, t, op, elem, k.dot)
	}
	return ins, stridedLoop(idx, start, t, op, elem)
}

// vec4Loop is stridedLoop for reduce4 and dot4: work-item j of the grid
// combines vectors j, j+stride, ... of four consecutive elements, two
// vectors an iteration (two loads in flight), each component into an
// accumulator of its own, then the elements past the last whole four,
// one each for the first n%4 work-items. The inputs must be aligned to four
// elements: a vector is one aligned load on both backends (OpenCL's vload4
// would promise the compiler only an element's alignment, and LLVM's
// NVPTX backend splits such a load into four).
func vec4Loop(backend, idx, start, t, op, elem string, dot bool) string {
	ins := []string{"in"}
	if dot {
		ins = []string{"a", "b"}
	}
	vt, load, comp := "const "+t+"4", "((__global const "+t+"4*)%[1]s)[%[2]s]", "%s.s%d"
	if backend == "cuda" {
		vt, load, comp = "const gour_vec4<"+t+">", "reinterpret_cast<const gour_vec4<"+t+">*>(%[1]s)[%[2]s]", "%s.v[%d]"
	}
	var b strings.Builder
	// step combines the vectors at index at into the four accumulators.
	step := func(at, tag string) {
		for _, in := range ins {
			fmt.Fprintf(&b, "\t\t%s v%s_%s = %s;\n", vt, tag, in, fmt.Sprintf(load, in, at))
		}
		for k, acc := range []string{"acc", "acc1", "acc2", "acc3"} {
			e := fmt.Sprintf(comp, "v"+tag+"_"+ins[0], k)
			if dot {
				e += " * " + fmt.Sprintf(comp, "v"+tag+"_"+ins[1], k)
			}
			fmt.Fprintf(&b, "\t\t%s = %s(%s, %s);\n", acc, op, acc, e)
		}
	}
	fmt.Fprintf(&b, "%[1]s acc = ident, acc1 = ident, acc2 = ident, acc3 = ident;\n\tconst %[2]s n4 = n / 4;\n\t%[2]s i = %[3]s;\n", t, idx, start)
	b.WriteString("\tfor (; i + stride < n4; i += 2 * stride) {\n")
	step("i", "0")
	step("i + stride", "1")
	b.WriteString("\t}\n\tfor (; i < n4; i += stride) {\n")
	step("i", "0")
	fmt.Fprintf(&b, "\t}\n\tfor (%[1]s t = 4 * n4 + (%[2]s); t < n; t += stride) acc = %[3]s(acc, %[4]s);\n\tacc = %[3]s(%[3]s(acc, acc1), %[3]s(acc2, acc3));", idx, start, op, fmt.Sprintf(elem, "t"))
	return b.String()
}

// builtinOps are the operators of the built-in reductions, as C
// expressions of a and b; Min and Max compare as the Go side does, so
// that the CPU and device agree on NaNs too.
var builtinOps = []struct{ name, expr string }{
	{"sum", "a + b"},
	{"prod", "a * b"},
	{"min", "b < a ? b : a"},
	{"max", "b > a ? b : a"},
}

// builtinKey identifies the built-in program of et.
func builtinKey(et *elemType) string { return "compute/builtin/v2/" + et.suffix }

// builtinSource is the built-in program of et: fill, copy, expand (a
// broadcast input made whole) and, but for the half-precision storage
// types, the reductions of builtinOps, one program so that a type costs
// one build.
func builtinSource(et *elemType) sourceFunc {
	return func(backend string) (string, error) {
		var b strings.Builder
		b.WriteString(kernelPrelude(backend, et))
		b.WriteString(fillCopySource(backend, et))
		b.WriteString(expandSource(backend, et))
		if et.half {
			return b.String(), nil // storage: no arithmetic
		}
		for _, op := range builtinOps {
			b.WriteString(reduceSource(backend, et, op.name, op.expr))
		}
		return b.String(), nil
	}
}

// stridedLoop is the first part of a reduction: each work-item combines
// its share of the elements into acc. On a GPU (the default) the share is
// start, start+stride, ...: loads coalesced across the work-group, with
// four accumulators over four strides to keep four independent loads in
// flight per work-item, which a GPU needs to approach its memory
// bandwidth. On a CPU device (built with -DCOMPUTE_BLOCKED) it is one
// contiguous block, so that each cache line is read once, by one
// work-item, with the four accumulators over consecutive elements: with
// one, each addition waited for the one before, and PoCL's sum fell far
// behind its read kernel (docs/benchmarks.md, "Reductions and copies on a
// CPU device"). elem is a format of the element
// at an index, "in[%s]".
// Either split needs a commutative operator.
func stridedLoop(idx, start, t, op, elem string) string {
	e := func(i string) string { return fmt.Sprintf(elem, i) }
	return fmt.Sprintf(`%[1]s acc = ident;
	%[1]s acc1 = ident, acc2 = ident, acc3 = ident;
#ifdef COMPUTE_BLOCKED
	%[2]s block = (n + stride - 1) / stride;
	%[2]s i = (%[3]s) * block, end = i + block < n ? i + block : n;
	for (; i + 3 < end; i += 4) {
		acc = %[4]s(acc, %[5]s);
		acc1 = %[4]s(acc1, %[9]s);
		acc2 = %[4]s(acc2, %[10]s);
		acc3 = %[4]s(acc3, %[11]s);
	}
	for (; i < end; i++) acc = %[4]s(acc, %[5]s);
#else
	%[2]s i = %[3]s;
	for (; i + 3 * stride < n; i += 4 * stride) {
		acc = %[4]s(acc, %[5]s);
		acc1 = %[4]s(acc1, %[6]s);
		acc2 = %[4]s(acc2, %[7]s);
		acc3 = %[4]s(acc3, %[8]s);
	}
	for (; i < n; i += stride) acc = %[4]s(acc, %[5]s);
#endif
	acc = %[4]s(%[4]s(acc, acc1), %[4]s(acc2, acc3));`, t, idx, start, op, e("i"), e("i + stride"), e("i + 2 * stride"), e("i + 3 * stride"), e("i + 1"), e("i + 2"), e("i + 3"))
}
