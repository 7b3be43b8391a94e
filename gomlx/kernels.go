package gomlx

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/compute/shapes"
	"github.com/pkg/errors"

	gc "github.com/gomlx/compute"
	"github.com/gour-dev/gour/compute"
	"github.com/gour-dev/gour/compute/expr"
	"github.com/gour-dev/gour/programmgr"
	"github.com/gour-dev/gour/ur"
)

// kernelCache holds the kernels a backend has built, by a key of their
// source: each is built once through the device's program manager (and so
// cached on disk across processes too).
type kernelCache struct {
	mu sync.Mutex
	m  map[string]*programmgr.Kernel
}

func (c *kernelCache) release() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, k := range c.m {
		k.Release()
	}
	c.m = nil
}

// kernelSourceHook, where a test sets it, sees the source of every kernel
// asked for (so that their CUDA C is checked on an OpenCL machine), and
// says whether to build it.
var kernelSourceHook atomic.Pointer[func(key string, src func(backend string) string) bool]

// kernel returns the kernel name of the program src (OpenCL C on OpenCL
// and Level Zero, CUDA C on CUDA), building it the first time key is asked
// for.
func (b *Backend) kernel(key, name string, src func(backend string) string, fp64 bool) (*programmgr.Kernel, error) {
	if h := kernelSourceHook.Load(); h != nil && !(*h)(key, src) {
		return nil, errors.Errorf("gour backend: kernel %s not built (a test's hook)", name)
	}
	b.kernels.mu.Lock()
	defer b.kernels.mu.Unlock()
	if k, ok := b.kernels.m[key]; ok {
		return k, nil
	}
	backend := b.ctx.Backend()
	desc := programmgr.ImageDesc{
		Format:       programmgr.FormatOpenCLC,
		Bytes:        []byte(src(backend)),
		Requirements: programmgr.Requirements{FP64: fp64},
	}
	if backend == "cuda" {
		desc.Format = programmgr.FormatCUDAC
	}
	img, err := programmgr.NewImage(desc)
	if err != nil {
		return nil, err
	}
	dev, _, _ := b.ctx.UR()
	k, err := b.ctx.Manager().GetKernel(context.Background(), img, name, dev, programmgr.SpecValues{}, "")
	if err != nil {
		return nil, errors.Wrapf(err, "gour backend: building kernel %s", name)
	}
	if b.kernels.m == nil {
		b.kernels.m = map[string]*programmgr.Kernel{}
	}
	b.kernels.m[key] = k
	return k, nil
}

// launch enqueues k over n work-items on the device's queue.
func (b *Backend) launch(k *programmgr.Kernel, n int, args ...ur.Arg) error {
	_, _, q := b.ctx.UR()
	const local = 64
	global := (uint64(n) + local - 1) / local * local
	return q.Launch(k.UR(), ur.Range1D(global).WithLocal(local), args...)
}

// maxCopyRank is the most dimensions a strided copy walks.
const maxCopyRank = 8

// copySource is the strided copy kernel for elements of size bytes:
// work-item i < n decomposes i over the extents e0..e7 (e7 the fastest)
// and copies src[soff + Σ c_k·ss_k] to dst[doff + Σ c_k·ds_k]. It is every
// data movement of the backend: transposes, broadcasts, slices, reverses
// (negative strides), concatenations and pads (an offset and strides into
// the destination). Indices are computed without %, as compute's kernels
// are (llvm-spirv-15 cannot translate what clang makes of a / and % pair).
func copySource(backend string, size int) (name, src string) {
	ctype, ul, l := "uint", "ulong", "long"
	if size == 8 {
		ctype = "ulong"
	}
	name = fmt.Sprintf("gour_gomlx_copy%d", size*8)
	var sb strings.Builder
	if backend == "cuda" {
		ctype, ul, l = "unsigned int", "unsigned long long", "long long"
		if size == 8 {
			ctype = "unsigned long long"
		}
		fmt.Fprintf(&sb, "extern \"C\" __global__ void %s(%s* dst, const %s* src, %s n, %s doff, %s soff", name, ctype, ctype, ul, l, l)
	} else {
		fmt.Fprintf(&sb, "__kernel void %s(__global %s* dst, __global const %s* src, %s n, %s doff, %s soff", name, ctype, ctype, ul, l, l)
	}
	for k := range maxCopyRank {
		fmt.Fprintf(&sb, ", %s e%d", ul, k)
	}
	for k := range maxCopyRank {
		fmt.Fprintf(&sb, ", %s ds%d", l, k)
	}
	for k := range maxCopyRank {
		fmt.Fprintf(&sb, ", %s ss%d", l, k)
	}
	sb.WriteString(") {\n")
	if backend == "cuda" {
		fmt.Fprintf(&sb, "  %s i = blockIdx.x * (%s)blockDim.x + threadIdx.x;\n", ul, ul)
	} else {
		fmt.Fprintf(&sb, "  %s i = get_global_id(0);\n", ul)
	}
	fmt.Fprintf(&sb, "  if (i >= n) return;\n  %s r = i, q, c;\n  %s d = doff, s = soff;\n", ul, l)
	for k := maxCopyRank - 1; k >= 0; k-- {
		fmt.Fprintf(&sb, "  q = r / e%d; c = r - q * e%d; r = q; d += (%s)c * ds%d; s += (%s)c * ss%d;\n", k, k, l, k, l, k)
	}
	sb.WriteString("  dst[d] = src[s];\n}\n")
	return name, sb.String()
}

// stridedCopy enqueues a copy of the elements of extents ext from src (at
// soff with strides ss) to dst (at doff with strides ds), all in elements.
func (b *Backend) stridedCopy(dst, src store, ext []int, doff, soff int, ds, ss []int) error {
	if len(ext) > maxCopyRank {
		return errors.Wrapf(gc.ErrNotImplemented, "gour backend: data movement over %d axes (at most %d)", len(ext), maxCopyRank)
	}
	n := 1
	for _, e := range ext {
		n *= e
	}
	if n == 0 {
		return nil
	}
	size := elemSize(src.typ())
	name, _ := copySource(b.ctx.Backend(), size)
	k, err := b.kernel(name, name, func(backend string) string {
		_, src := copySource(backend, size)
		return src
	}, false)
	if err != nil {
		return err
	}
	da, err := dst.arg(compute.InOut)
	if err != nil {
		return err
	}
	sa, err := src.arg(compute.In)
	if err != nil {
		return err
	}
	args := make([]ur.Arg, 0, 5+3*maxCopyRank)
	args = append(args, da, sa, ur.ArgOf(uint64(n)), ur.ArgOf(int64(doff)), ur.ArgOf(int64(soff)))
	pad := maxCopyRank - len(ext)
	for k := range maxCopyRank {
		e := uint64(1)
		if k >= pad {
			e = uint64(ext[k-pad])
		}
		args = append(args, ur.ArgOf(e))
	}
	for _, st := range [][]int{ds, ss} {
		for k := range maxCopyRank {
			v := int64(0)
			if k >= pad {
				v = int64(st[k-pad])
			}
			args = append(args, ur.ArgOf(v))
		}
	}
	return b.launch(k, n, args...)
}

// rowMajorStrides are the strides of a row-major array of dims.
func rowMajorStrides(dims []int) []int {
	s := make([]int, len(dims))
	acc := 1
	for i := len(dims) - 1; i >= 0; i-- {
		s[i] = acc
		acc *= dims[i]
	}
	return s
}

// ewKernel is an element-wise kernel generated by compute/expr: out[i] =
// f(in0[i], in1[i], ...) over arrays named a00, a01, ... of their storage
// types.
type ewKernel struct {
	c    *expr.Compiled
	name string
	fp64 bool
}

func exprSignature(out expr.Type, ins []expr.Type) expr.Signature {
	sig := expr.Signature{Out: out, Arrays: map[string]expr.Type{}}
	for i, t := range ins {
		sig.Arrays[argName(i)] = t
	}
	return sig
}

func argName(i int) string { return fmt.Sprintf("a%03d", i) }

func compileEW(src string, out expr.Type, ins []expr.Type) (*ewKernel, error) {
	c, err := expr.Compile(src, exprSignature(out, ins))
	if err != nil {
		return nil, errors.Wrapf(err, "gour backend: element-wise expression %q", src)
	}
	fp64 := out == expr.Float64
	for _, t := range ins {
		fp64 = fp64 || t == expr.Float64
	}
	if strings.Contains(c.OpenCL("k"), "double") {
		fp64 = true
	}
	return &ewKernel{c: c, name: "gour_gomlx_ew", fp64: fp64}, nil
}

// runEW enqueues an element-wise kernel: out and ins all of n elements.
func (b *Backend) runEW(k *ewKernel, out store, ins []store) error {
	n := out.len()
	if n == 0 {
		return nil
	}
	kern, err := b.kernel(k.c.Key(), k.name, func(backend string) string {
		if backend == "cuda" {
			return k.c.CUDA(k.name)
		}
		return k.c.OpenCL(k.name)
	}, k.fp64)
	if err != nil {
		return err
	}
	args, err := ioArgs(out, ins, 1)
	if err != nil {
		return err
	}
	args = append(args, ur.ArgOf(uint64(n)))
	return b.launch(kern, n, args...)
}

// launchEach launches the kernel key, built from src once, with a
// work-item an element of out: its arguments out, ins and out's length,
// the shape of most of the backend's own kernels.
func (b *Backend) launchEach(key string, src func(backend string) string, fp64 bool, out store, ins []store) error {
	n := out.len()
	if n == 0 {
		return nil
	}
	k, err := b.kernel(key, key, src, fp64)
	if err != nil {
		return err
	}
	args, err := ioArgs(out, ins, 1)
	if err != nil {
		return err
	}
	return b.launch(k, n, append(args, ur.ArgOf(uint64(n)))...)
}

// eachRun is the run of a node whose output, of shape sh, is one
// launchEach over the node's inputs: the output allocated, and released
// where the launch fails.
func eachRun(sh shapes.Shape, key string, src func(backend string) string, fp64 bool) func(*Backend, []store) (store, error) {
	return func(b *Backend, ins []store) (store, error) {
		out, err := b.alloc(sh)
		if err != nil {
			return nil, err
		}
		if err := b.launchEach(key, src, fp64, out, ins); err != nil {
			_ = out.release()
			return nil, err
		}
		return out, nil
	}
}

// ioArgs are a kernel's first arguments: out, written, then ins, read;
// extra is room for the arguments the caller appends.
func ioArgs(out store, ins []store, extra int) ([]ur.Arg, error) {
	args := make([]ur.Arg, 0, 1+len(ins)+extra)
	oa, err := out.arg(compute.Out)
	if err != nil {
		return nil, err
	}
	args = append(args, oa)
	for _, in := range ins {
		a, err := in.arg(compute.In)
		if err != nil {
			return nil, err
		}
		args = append(args, a)
	}
	return args, nil
}

// dtypeStorage reports a GoMLX dtype's storage type, or an ErrNotImplemented.
func dtypeStorage(dt dtypes.DType) (expr.Type, error) {
	t, ok := storageType(dt)
	if !ok {
		return 0, errors.Wrapf(gc.ErrNotImplemented, "gour backend: dtype %s is not supported", dt)
	}
	return t, nil
}

// cType is the C type of a storage type, in OpenCL C or CUDA C.
// bitsType is the C unsigned integer of elem bytes (4 or 8) on backend:
// what a copy of elements of that size moves.
func bitsType(backend string, elem int) string {
	if elem == 8 {
		return cType(backend, expr.Uint64)
	}
	return cType(backend, expr.Uint32)
}

func cType(backend string, t expr.Type) string {
	cuda := backend == "cuda"
	switch t {
	case expr.Float32:
		return "float"
	case expr.Float64:
		return "double"
	case expr.Int32:
		return "int"
	case expr.Uint32:
		if cuda {
			return "unsigned int"
		}
		return "uint"
	case expr.Int64:
		if cuda {
			return "long long"
		}
		return "long"
	case expr.Uint64:
		if cuda {
			return "unsigned long long"
		}
		return "ulong"
	}
	return "void"
}

// kernelHead opens a kernel's source: the OpenCL fp64 pragma where
// needed, and the signature's first part, "kernel void name(".
func kernelHead(sb *strings.Builder, backend, name string, fp64 bool) {
	if backend == "cuda" {
		fmt.Fprintf(sb, "extern \"C\" __global__ void %s(", name)
		return
	}
	if fp64 {
		sb.WriteString("#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n")
	}
	fmt.Fprintf(sb, "__kernel void %s(", name)
}

// globalPtr is a kernel's pointer parameter to elements of C type ct.
func globalPtr(backend, ct string, write bool) string {
	c := "const "
	if write {
		c = ""
	}
	if backend == "cuda" {
		return c + ct + "*"
	}
	return "__global " + c + ct + "*"
}

// globalID is the statement declaring i, the work-item's 1D index.
func globalID(backend string) string {
	if backend == "cuda" {
		return "  unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x;\n"
	}
	return "  ulong i = get_global_id(0);\n"
}

// mapKernel is an element-wise kernel of the backend's own, for what
// compute/expr cannot write (bitwise operations): work-item i < n
// decomposes i over the extents e0..e7 (e7 the fastest) and computes
// dst[i] from x0 = src0[Σ c_k·s0_k], x1 = src1[Σ c_k·s1_k], ..., so that
// an input broadcasts by strides of 0, with no copy.
type mapKernel struct {
	// name is the kernel's name, unique to its source.
	name string
	out  expr.Type
	ins  []expr.Type
	// body is dst[i]'s expression of x0, x1, ... in the backend's
	// language.
	body func(backend string) string
}

func (k *mapKernel) source(backend string) string {
	fp64 := k.out == expr.Float64 || slices.Contains(k.ins, expr.Float64)
	ul, l := cType(backend, expr.Uint64), cType(backend, expr.Int64)
	var sb strings.Builder
	kernelHead(&sb, backend, k.name, fp64)
	fmt.Fprintf(&sb, "%s dst", globalPtr(backend, cType(backend, k.out), true))
	for j, t := range k.ins {
		fmt.Fprintf(&sb, ", %s src%d", globalPtr(backend, cType(backend, t), false), j)
	}
	fmt.Fprintf(&sb, ", %s n", ul)
	for d := range maxCopyRank {
		fmt.Fprintf(&sb, ", %s e%d", ul, d)
	}
	for j := range k.ins {
		for d := range maxCopyRank {
			fmt.Fprintf(&sb, ", %s s%d_%d", l, j, d)
		}
	}
	sb.WriteString(") {\n")
	sb.WriteString(globalID(backend))
	fmt.Fprintf(&sb, "  if (i >= n) return;\n  %s r = i, q, c;\n", ul)
	for j := range k.ins {
		fmt.Fprintf(&sb, "  %s p%d = 0;\n", l, j)
	}
	for d := maxCopyRank - 1; d >= 0; d-- {
		fmt.Fprintf(&sb, "  q = r / e%d; c = r - q * e%d; r = q;", d, d)
		for j := range k.ins {
			fmt.Fprintf(&sb, " p%d += (%s)c * s%d_%d;", j, l, j, d)
		}
		sb.WriteString("\n")
	}
	for j, t := range k.ins {
		fmt.Fprintf(&sb, "  %s x%d = src%d[p%d];\n", cType(backend, t), j, j, j)
	}
	fmt.Fprintf(&sb, "  dst[i] = %s;\n}\n", k.body(backend))
	return sb.String()
}

// runMap enqueues a map kernel computing out, of dimensions dims, from
// ins of dimensions inDims (dims, or broadcasting to them: a scalar or
// extents of 1).
func (b *Backend) runMap(k *mapKernel, out store, dims []int, ins []store, inDims [][]int) error {
	n := out.len()
	if n == 0 {
		return nil
	}
	ext := dims
	strides := make([][]int, len(ins))
	same := true
	for _, d := range inDims {
		same = same && slices.Equal(d, dims)
	}
	if same {
		// No broadcast: one flat axis.
		ext = []int{n}
		for j := range strides {
			strides[j] = []int{1}
		}
	} else {
		for j, d := range inDims {
			ss := make([]int, len(dims))
			if len(d) > 0 {
				is := rowMajorStrides(d)
				for a := range d {
					if d[a] == dims[a] {
						ss[a] = is[a]
					}
				}
			}
			strides[j] = ss
		}
	}
	if len(ext) > maxCopyRank {
		return errors.Wrapf(gc.ErrNotImplemented, "gour backend: %s over %d axes (at most %d)", k.name, len(ext), maxCopyRank)
	}
	fp64 := k.out == expr.Float64 || slices.Contains(k.ins, expr.Float64)
	kern, err := b.kernel(k.name, k.name, k.source, fp64)
	if err != nil {
		return err
	}
	args, err := ioArgs(out, ins, 1+(1+len(ins))*maxCopyRank)
	if err != nil {
		return err
	}
	args = append(args, ur.ArgOf(uint64(n)))
	pad := maxCopyRank - len(ext)
	for d := range maxCopyRank {
		e := uint64(1)
		if d >= pad {
			e = uint64(ext[d-pad])
		}
		args = append(args, ur.ArgOf(e))
	}
	for _, st := range strides {
		for d := range maxCopyRank {
			v := int64(0)
			if d >= pad {
				v = int64(st[d-pad])
			}
			args = append(args, ur.ArgOf(v))
		}
	}
	return b.launch(kern, n, args...)
}
