package blas

import (
	"context"
	"errors"
	"fmt"
	"math/bits"
	"sync"
	"sync/atomic"

	"github.com/gour-dev/gour/dtype"
	"github.com/gour-dev/gour/programmgr"
	"github.com/gour-dev/gour/ur"
)

// ownEngine runs the routines with the package's own kernels: OpenCL C
// on OpenCL, CUDA C on CUDA, OpenCL C compiled to SPIR-V by the program
// manager on Level Zero. Each element type's kernels are one program,
// built through the Handle's program manager on first use and so cached
// in memory and on disk like any program.
type ownEngine struct {
	h    *Handle
	lang string // "opencl" or "cuda": the language of the kernels
	info ur.DeviceInfo

	progs [dtype.BFloat16 + 1]atomic.Pointer[ownProgram]
	build sync.Mutex // one build of a type's program at a time

	// red orders a reduction's two passes on the queue against another
	// goroutine's, which would reuse the partials between them.
	red     sync.Mutex
	scratch *ur.Mem // the partials, made on the first reduction
	groups  int     // a reduction's first pass has at most this many work-groups

	solve trsmScratch // the triangular solve's device memory
}

// ownProgram is one type's built kernels.
type ownProgram struct {
	tiling  gemmTiling
	local   uint64 // work-group size of the GEMV and Level 1 kernels
	kernels map[string]*programmgr.Kernel
}

// maxGroups bounds a reduction's first pass; the scratch buffer holds
// three 8-byte values a work-group (Iamax: magnitude, index; Nrm2:
// scale, sum of squares).
const maxGroups = 1024

func newOwnEngine(h *Handle) (*ownEngine, error) {
	e := &ownEngine{h: h, lang: "opencl", info: h.dev.Info()}
	switch h.adapter {
	case "cuda":
		e.lang = "cuda"
	case "opencl", "level_zero":
	default:
		return nil, fmt.Errorf("blas: the %s adapter takes neither OpenCL C nor CUDA C kernels: %w", h.adapter, ur.ErrUnsupportedFeature)
	}
	// Enough work-groups to fill every compute unit a few times over.
	e.groups = min(maxGroups, max(1, 4*int(e.info.ComputeUnits)))
	return e, nil
}

func (e *ownEngine) close() error {
	var errs []error
	for i := range e.progs {
		if p := e.progs[i].Swap(nil); p != nil {
			for _, k := range p.kernels {
				errs = append(errs, k.Release())
			}
		}
	}
	e.red.Lock()
	if e.scratch != nil {
		errs = append(errs, e.scratch.Release())
		e.scratch = nil
	}
	e.red.Unlock()
	errs = append(errs, e.solve.close())
	return errors.Join(errs...)
}

// tilingFor picks the GEMM blocking for t on the device.
func (e *ownEngine) tilingFor(t dtype.Type) gemmTiling {
	switch {
	case e.info.MaxWorkGroupSize != 0 && e.info.MaxWorkGroupSize < 256:
		return tilingSmall
	case t == dtype.Float64:
		return tilingF64
	case e.info.Type == ur.DeviceTypeGPU && e.h.adapter != "level_zero":
		// Not through SPIR-V: LLVM vectorizes the 8×8 micro-tile into
		// 64-element vectors, which SPIR-V (and so llvm-spirv) refuses.
		return tilingBig
	}
	return tilingMid
}

// program returns t's kernels, building them the first time.
func (e *ownEngine) program(t dtype.Type) (*ownProgram, error) {
	if p := e.progs[t].Load(); p != nil {
		return p, nil
	}
	e.build.Lock()
	defer e.build.Unlock()
	if p := e.progs[t].Load(); p != nil {
		return p, nil
	}
	p, err := e.buildProgram(t, e.tilingFor(t))
	if err != nil {
		return nil, err
	}
	// A driver may allow fewer work-items to a GEMM kernel than its
	// tiling needs (registers); the small tiling needs 64.
	if k := p.kernels[gemmKernelName(NoTrans, NoTrans, false)]; p.tiling != tilingSmall {
		if info, err := k.UR().Info(e.h.dev); err == nil && info.WorkGroupSize != 0 && info.WorkGroupSize < uint64(p.tiling.threads()) {
			p.release()
			if p, err = e.buildProgram(t, tilingSmall); err != nil {
				return nil, err
			}
		}
	}
	e.progs[t].Store(p)
	return p, nil
}

// kernelNames are the kernels of a program besides the GEMMs.
var kernelNames = []string{"gemv_n", "gemv_t", "axpy", "scal", "copy", "swap",
	"dot_p1", "asum_p1", "sum_p2", "nrm2_p1", "nrm2_p2", "iamax_p1", "iamax_p2", "trsm_inv", "mcopy"}

// image is the program of t's kernels tiled by g, and its kernels'
// names.
func (e *ownEngine) image(t dtype.Type, g gemmTiling) (*programmgr.Image, []string, error) {
	names := append([]string(nil), kernelNames...)
	for _, ta := range []Transpose{NoTrans, Trans} {
		for _, tb := range []Transpose{NoTrans, Trans} {
			names = append(names, gemmKernelName(ta, tb, false))
			if t == dtype.Float32 && g.vec() {
				names = append(names, gemmKernelName(ta, tb, true))
			}
		}
	}
	desc := programmgr.ImageDesc{
		Format:       programmgr.FormatOpenCLC,
		Bytes:        []byte(programSource(e.lang, t, g)),
		KernelNames:  names,
		Requirements: programmgr.Requirements{FP64: t == dtype.Float64},
	}
	if e.lang == "cuda" {
		desc.Format = programmgr.FormatCUDAC
	}
	img, err := programmgr.NewImage(desc)
	return img, names, err
}

func (e *ownEngine) buildProgram(t dtype.Type, g gemmTiling) (*ownProgram, error) {
	mgr, err := e.h.programs()
	if err != nil {
		return nil, err
	}
	img, names, err := e.image(t, g)
	if err != nil {
		return nil, err
	}
	p := &ownProgram{tiling: g, local: maxLocal, kernels: make(map[string]*programmgr.Kernel, len(names))}
	if m := e.info.MaxWorkGroupSize; m != 0 && m < p.local {
		p.local = 1 << (bits.Len64(m) - 1)
	}
	for _, name := range names {
		k, err := mgr.GetKernel(context.Background(), img, name, e.h.dev, programmgr.SpecValues{}, "")
		if err != nil {
			p.release()
			return nil, err
		}
		p.kernels[name] = k
		if info, err := k.UR().Info(e.h.dev); err == nil && !isGemm(name) && info.WorkGroupSize != 0 && info.WorkGroupSize < p.local {
			p.local = 1 << (bits.Len64(info.WorkGroupSize) - 1)
		}
	}
	return p, nil
}

func isGemm(name string) bool { return len(name) > 5 && name[:5] == "gemm_" }

func (p *ownProgram) release() {
	for _, k := range p.kernels {
		k.Release()
	}
}

// launch enqueues kernel name of p over r.
func (e *ownEngine) launch(p *ownProgram, name string, r ur.NDRange, args ...ur.Arg) error {
	return e.h.q.Launch(p.kernels[name].UR(), r, args...)
}

// arg is an operand as a kernel's pointer argument and its element
// offset: a buffer's offset goes to the kernel, a pointer carries its
// own.
func arg(o Operand, size int) (ur.Arg, uint64) {
	if o.mem != nil {
		return ur.ArgBuffer(o.mem), o.off / uint64(size)
	}
	return ur.ArgPtr(o.ptr), 0
}

// vecArg is a vector's three arguments: pointer, element offset and
// increment. A negative increment moves the offset to the last element,
// so that element i is at offset + i*inc in the kernels.
func vecArg(o Operand, size, n, inc int) []ur.Arg {
	p, off := arg(o, size)
	if inc < 0 && n > 0 {
		off += uint64(n-1) * uint64(-inc)
	}
	return []ur.Arg{p, ur.ArgOf(off), ur.ArgOf(int64(inc))}
}

// unread is o, or standIn for an operand the kernel does not read
// (empty, and so possibly nil or at the end of its memory, which a launch
// would refuse).
func unread(o Operand, empty bool, standIn Operand) Operand {
	if empty || o.IsNil() {
		return standIn
	}
	return o
}

// scalar is a float argument in the type the kernels compute in.
func scalar(t dtype.Type, v float64) ur.Arg {
	if t == dtype.Float64 {
		return ur.ArgOf(v)
	}
	return ur.ArgOf(float32(v))
}

func i32(v int) ur.Arg { return ur.ArgOf(int32(v)) }

func ceilDiv(a, b int) int { return (a + b - 1) / b }

// maxBatchLaunch is the most matrices of a batch one GEMM launch takes:
// CUDA's limit on a grid's third dimension.
const maxBatchLaunch = 65535

func (e *ownEngine) gemm(a GemmArgs) error {
	p, err := e.program(a.Type)
	if err != nil {
		return err
	}
	g := p.tiling
	name := gemmKernelName(a.TransA, a.TransB, g.vec() && e.vectorizable(&a))
	size := a.Type.Size()
	A, B := unread(a.A, a.K == 0, a.C), unread(a.B, a.K == 0, a.C)
	argA, offA := arg(A, size)
	argB, offB := arg(B, size)
	argC, offC := arg(a.C, size)
	nt := uint64(g.threads())
	gx, gy := uint64(ceilDiv(a.N, g.BN)), uint64(ceilDiv(a.M, g.BM))
	for b0 := 0; b0 < a.Batch; b0 += maxBatchLaunch {
		nb := uint64(min(maxBatchLaunch, a.Batch-b0))
		r := ur.Range3D(gx*nt, gy, nb).WithLocal(nt, 1, 1)
		err := e.launch(p, name, r, argA, ur.ArgOf(offA), argB, ur.ArgOf(offB), argC, ur.ArgOf(offC),
			i32(a.M), i32(a.N), i32(a.K), i32(a.LDA), i32(a.LDB), i32(a.LDC),
			scalar(a.Type, a.Alpha), scalar(a.Type, a.Beta),
			ur.ArgOf(uint64(a.StrideA)), ur.ArgOf(uint64(a.StrideB)), ur.ArgOf(uint64(a.StrideC)), ur.ArgOf(uint64(b0)))
		if err != nil {
			return err
		}
	}
	return nil
}

// vectorizable reports whether the float32 GEMM may move four elements
// at a time: every dimension, leading dimension, stride and offset a
// multiple of four, every address 16-byte aligned.
func (e *ownEngine) vectorizable(a *GemmArgs) bool {
	if a.Type != dtype.Float32 {
		return false
	}
	for _, v := range [...]int{a.M, a.N, a.K, a.LDA, a.LDB, a.LDC} {
		if v%4 != 0 {
			return false
		}
	}
	if a.Batch > 1 && (a.StrideA%4 != 0 || a.StrideB%4 != 0 || a.StrideC%4 != 0) {
		return false
	}
	for _, o := range [...]Operand{a.A, a.B, a.C} {
		if !e.aligned16(o) {
			return false
		}
	}
	return true
}

// aligned16 reports whether an operand starts 16-byte aligned: a
// buffer's base is (OpenCL aligns buffers to at least 128 bytes, CUDA to
// 256), so its offset decides; a pointer's address does.
func (e *ownEngine) aligned16(o Operand) bool {
	if o.mem != nil {
		return o.off%16 == 0
	}
	return o.ptr.Addr()%16 == 0
}

// gemmBatched launches one GEMM a matrix. Every launch is checked
// (ur.Queue.PrepareLaunchArgs) before the first is enqueued, so that a
// freed pointer among the operands leaves every output unwritten.
func (e *ownEngine) gemmBatched(a *GemmArgs, as, bs, cs []Operand) error {
	p, err := e.program(a.Type)
	if err != nil {
		return err
	}
	g := p.tiling
	size := a.Type.Size()
	nt := uint64(g.threads())
	r := ur.Range3D(uint64(ceilDiv(a.N, g.BN))*nt, uint64(ceilDiv(a.M, g.BM)), 1).WithLocal(nt, 1, 1)
	launches := make([]*ur.ArgLaunch, 0, len(as))
	defer func() {
		for _, l := range launches {
			l.Release()
		}
	}()
	for i := range as {
		one := *a
		one.A, one.B, one.C, one.Batch = as[i], bs[i], cs[i], 1
		argA, offA := arg(unread(as[i], a.K == 0, cs[i]), size)
		argB, offB := arg(unread(bs[i], a.K == 0, cs[i]), size)
		argC, offC := arg(cs[i], size)
		k := p.kernels[gemmKernelName(a.TransA, a.TransB, g.vec() && e.vectorizable(&one))].UR()
		l, err := e.h.q.PrepareLaunchArgs(k, r, ur.LaunchProperties{}, argA, ur.ArgOf(offA), argB, ur.ArgOf(offB), argC, ur.ArgOf(offC),
			i32(a.M), i32(a.N), i32(a.K), i32(a.LDA), i32(a.LDB), i32(a.LDC),
			scalar(a.Type, a.Alpha), scalar(a.Type, a.Beta),
			ur.ArgOf(uint64(0)), ur.ArgOf(uint64(0)), ur.ArgOf(uint64(0)), ur.ArgOf(uint64(0)))
		if err != nil {
			return fmt.Errorf("blas.GemmBatched: matrix %d: %w", i, err)
		}
		launches = append(launches, l)
	}
	for _, l := range launches {
		if err := l.Launch(); err != nil {
			return err
		}
	}
	return nil
}

func (e *ownEngine) gemv(a GemvArgs) error {
	p, err := e.program(a.Type)
	if err != nil {
		return err
	}
	size := a.Type.Size()
	nx, ny := a.N, a.M
	name := "gemv_n"
	if a.Trans == Trans {
		nx, ny, name = a.M, a.N, "gemv_t"
	}
	empty := a.M == 0 || a.N == 0
	argA, offA := arg(unread(a.A, empty, a.Y), size)
	x := vecArg(unread(a.X, empty, a.Y), size, nx, a.IncX)
	y := vecArg(a.Y, size, ny, a.IncY)
	l := p.local
	r := ur.Range1D(uint64(ny) * l).WithLocal(l)
	if a.Trans == Trans {
		r = ur.Range1D(uint64(ceilDiv(ny, int(l))) * l).WithLocal(l)
	}
	return e.launch(p, name, r, argA, ur.ArgOf(offA), i32(a.LDA), x[0], x[1], x[2], y[0], y[1], y[2],
		i32(a.M), i32(a.N), scalar(a.Type, a.Alpha), scalar(a.Type, a.Beta))
}

func (e *ownEngine) vector(a *vecArgs) error {
	p, err := e.program(a.Type)
	if err != nil {
		return err
	}
	size := a.Type.Size()
	vecs := vecArg(unread(a.X, a.N == 0, a.Result), size, a.N, a.IncX)
	if a.Op.hasY() {
		vecs = append(vecs, vecArg(unread(a.Y, a.N == 0, a.Result), size, a.N, a.IncY)...)
	}
	n := ur.ArgOf(int64(a.N))
	l := p.local
	groups := uint64(max(1, min(e.groups, ceilDiv(a.N, int(l)))))
	r := ur.Range1D(groups * l).WithLocal(l)
	switch a.Op {
	case opAxpy, opScal:
		return e.launch(p, vecKernels[a.Op][0], r, append([]ur.Arg{n, scalar(a.Type, a.Alpha)}, vecs...)...)
	case opCopy, opSwap:
		return e.launch(p, vecKernels[a.Op][0], r, append([]ur.Arg{n}, vecs...)...)
	}
	return e.reduce(p, a, r, groups, n, vecs)
}

// reduce runs a reduction's two passes; with one work-group the first
// writes the result and there is no second.
func (e *ownEngine) reduce(p *ownProgram, a *vecArgs, r ur.NDRange, groups uint64, n ur.Arg, vecs []ur.Arg) error {
	e.red.Lock()
	defer e.red.Unlock()
	if e.scratch == nil {
		m, err := e.h.ctx.NewBuffer(ur.MemReadWrite, 3*8*maxGroups)
		if err != nil {
			return err
		}
		e.scratch = m
	}
	size := a.Type.Size()
	if a.Op == opIamax {
		size = 4
	}
	argR, offR := arg(a.Result, size)
	part := ur.ArgBuffer(e.scratch)
	first, second := vecKernels[a.Op][0], vecKernels[a.Op][1]
	args := append(append([]ur.Arg{n}, vecs...), part, argR, ur.ArgOf(offR))
	if err := e.launch(p, first, r, args...); err != nil {
		return err
	}
	if groups == 1 {
		return nil
	}
	return e.launch(p, second, ur.Range1D(p.local).WithLocal(p.local), ur.ArgOf(int64(groups)), part, argR, ur.ArgOf(offR))
}

// vecKernels are each Level 1 routine's kernels: a reduction's two
// passes, one kernel for the others.
var vecKernels = [...][2]string{
	opAxpy:  {"axpy"},
	opDot:   {"dot_p1", "sum_p2"},
	opNrm2:  {"nrm2_p1", "nrm2_p2"},
	opAsum:  {"asum_p1", "sum_p2"},
	opIamax: {"iamax_p1", "iamax_p2"},
	opScal:  {"scal"},
	opCopy:  {"copy"},
	opSwap:  {"swap"},
}
