package blas

import (
	"encoding/binary"
	"errors"
	"fmt"
	"sync"

	"github.com/gour-dev/gour/blas/internal/cublas"
	"github.com/gour-dev/gour/dtype"
	"github.com/gour-dev/gour/ur"
)

// The cuBLAS backend: NVIDIA's library, loaded at run time
// (libcublas.so.13, else .12), on CUDA devices. Its handle is bound to
// the queue's stream and works in the queue's context, made current in
// the same C call as each cuBLAS call; its workspace comes from a gour
// pool. Row-major GEMM is cuBLAS's column-major GEMM on the transposes:
// C = A·B row-major is Cᵀ = Bᵀ·Aᵀ column-major, so A and B, M and N
// swap places. Float32 and Float64 (dtype's) use cublasSgemm and
// cublasDgemm with cuBLAS's default math (no TF32); Float16 and BFloat16
// cublasGemmEx with float32 accumulation (CUBLAS_COMPUTE_32F). Left to the own kernels: a
// negative increment, a Level 1 reduction of an empty vector, Iamax
// (cuBLAS's index is 1-based), Asum, Copy and Swap on half precision,
// GEMM with K = 0, GEMV with an empty x.

// cublasLib is cuBLAS, loaded once per process on first use.
var cublasLib = sync.OnceValues(func() (*cublas.Lib, error) { return cublas.Load() })

// cublasHandles keeps the handles of closed Handles for the next ones
// (cublas.Pool): a Handle's close waits for its own queue, where
// cublasDestroy would wait for the whole device.
var cublasHandles cublas.Pool

// cublasWorkspace is the workspace each handle gets: what NVIDIA
// recommends for Hopper (32 MiB; 4 MiB suffice before it).
const cublasWorkspace = 32 << 20

func cublasStatus(dev *ur.Device) LibraryStatus {
	l, err := cublasLib()
	if err != nil {
		return LibraryStatus{Library: "libcublas.so." + cublas.Versions[0], Reason: err.Error()}
	}
	s := LibraryStatus{Library: l.LibraryName(), Loaded: true}
	if major, minor, patch, err := l.Version(); err == nil {
		s.Version = fmt.Sprintf("%d.%d.%d", major, minor, patch)
	}
	return s
}

// cublasEngine is a cuBLAS handle on one queue. mu serializes the calls:
// the handle keeps the scalars and pointer mode of the call in progress.
type cublasEngine struct {
	h    *Handle
	mu   sync.Mutex
	blas *cublas.Handle
	pool *ur.Pool
	ws   *ur.USM
	// halfLevel1: the library has cublasAxpyEx, DotEx, Nrm2Ex and ScalEx.
	halfLevel1 bool
}

func openCUBLAS(h *Handle) (engine, error) {
	l, err := cublasLib()
	if err != nil {
		return nil, &LibraryError{Backend: BackendCUBLAS, Library: "libcublas.so." + cublas.Versions[0], Reason: err.Error()}
	}
	libErr := func(what string, err error) error {
		return &LibraryError{Backend: BackendCUBLAS, Library: l.LibraryName(), Reason: what + ": " + err.Error()}
	}
	// The queue's stream orders the handle's work with the queue's other
	// commands (a queue on the NULL stream gives 0, which is that stream).
	ctx, stream := h.q.NativeContext(), h.q.Native()
	if ctx == 0 {
		return nil, &LibraryError{Backend: BackendCUBLAS, Library: l.LibraryName(), Reason: "the queue's context has no CUDA context"}
	}
	b, err := cublasHandles.Get(l, ctx)
	if err != nil {
		return nil, libErr("cublasCreate", err)
	}
	e := &cublasEngine{h: h, blas: b, halfLevel1: l.HasHalfLevel1()}
	if err := e.setup(stream); err != nil {
		_ = e.close()
		return nil, libErr("setting up the handle", err)
	}
	return e, nil
}

// setup binds the handle to the stream, gives it its workspace and
// keeps cuBLAS's default math (no TF32).
func (e *cublasEngine) setup(stream uintptr) error {
	if err := e.blas.SetStream(stream); err != nil {
		return err
	}
	if err := e.blas.SetMathMode(cublas.DefaultMath); err != nil {
		return err
	}
	pool, err := e.h.ctx.NewPool(e.h.dev, ur.PoolOptions{})
	if err != nil {
		return err
	}
	e.pool = pool
	if e.ws, err = e.h.q.AllocAsync(pool, cublasWorkspace); err != nil {
		return err
	}
	// After SetStream, which puts the default workspace back.
	return e.blas.SetWorkspace(e.ws.Addr(), cublasWorkspace)
}

// close waits for the queue's work, which may still use the workspace,
// frees the workspace and gives the cuBLAS handle back to cublasHandles;
// a handle whose queue failed is destroyed instead.
func (e *cublasEngine) close() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	var errs []error
	if e.blas != nil {
		if err := e.h.q.Finish(); err != nil {
			errs = append(errs, err, e.blas.Destroy())
		} else {
			errs = append(errs, cublasHandles.Put(e.blas))
		}
		e.blas = nil
	}
	if e.ws != nil {
		errs = append(errs, e.ws.Free())
		e.ws = nil
	}
	if e.pool != nil {
		errs = append(errs, e.pool.Release())
		e.pool = nil
	}
	return errors.Join(errs...)
}

// cublasType is t's cudaDataType.
func cublasType(t dtype.Type) cublas.DataType {
	switch t {
	case dtype.Float64:
		return cublas.R64F
	case dtype.Float16:
		return cublas.R16F
	case dtype.BFloat16:
		return cublas.R16BF
	}
	return cublas.R32F
}

func cublasComputeType(t dtype.Type) cublas.ComputeType {
	if t == dtype.Float64 {
		return cublas.Compute64F
	}
	return cublas.Compute32F
}

func cublasOp(t Transpose) cublas.Operation {
	if t == Trans {
		return cublas.OpT
	}
	return cublas.OpN
}

// err maps a cuBLAS failure onto the package's errors: an invalid value
// is ur.ErrInvalidValue, a missing feature ur.ErrUnsupportedFeature, the
// rest the library's own error, which names the status.
func (e *cublasEngine) err(op string, err error) error {
	if err == nil {
		return nil
	}
	var ce *cublas.Error
	if errors.As(err, &ce) && ce.CUDA == 0 {
		switch ce.Status {
		case cublas.InvalidValue:
			return &ArgError{Op: op, Arg: "cuBLAS", Problem: err.Error(), Code: ur.ErrInvalidValue, Err: err}
		case cublas.NotSupported, cublas.ArchMismatch:
			return &ArgError{Op: op, Arg: "cuBLAS", Problem: err.Error(), Code: ur.ErrUnsupportedFeature, Err: err}
		}
	}
	return fmt.Errorf("%s: %w", op, err)
}

// matrix is the column-major view of a row-major operand: the same
// memory, the leading dimension and the stride.
func (e *cublasEngine) matrix(o Operand, t dtype.Type, ld, stride int) cublas.Matrix {
	return cublas.Matrix{Ptr: o.addr("cuda"), Type: cublasType(t), LD: ld, Stride: int64(stride)}
}

func (e *cublasEngine) gemm(a GemmArgs) error {
	if a.K == 0 {
		return errFallback // C = beta*C: cuBLAS's quick returns are not BLAS's everywhere
	}
	const op = "blas.Gemm"
	// Row-major C = op(A)·op(B) is column-major Cᵀ = op(B)ᵀ·op(A)ᵀ, and
	// a row-major matrix is its transpose column-major: swap A and B,
	// M and N.
	A := e.matrix(a.B, a.Type, a.LDB, a.StrideB)
	B := e.matrix(a.A, a.Type, a.LDA, a.StrideA)
	C := e.matrix(a.C, a.Type, a.LDC, a.StrideC)
	ct := cublasComputeType(a.Type)
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.blas == nil {
		return ErrClosed
	}
	if a.Batch <= 1 {
		return e.err(op, e.blas.Gemm(cublasOp(a.TransB), cublasOp(a.TransA), a.N, a.M, a.K, a.Alpha, A, B, a.Beta, C, ct))
	}
	return e.err(op, e.blas.GemmStridedBatched(cublasOp(a.TransB), cublasOp(a.TransA), a.N, a.M, a.K, a.Alpha, A, B, a.Beta, C, a.Batch, ct))
}

// gemmBatched uploads the three pointer arrays to device memory from the
// engine's pool, in the queue's order, and calls cublasGemmBatchedEx;
// the arrays go back to the pool in the queue's order after it.
func (e *cublasEngine) gemmBatched(a *GemmArgs, as, bs, cs []Operand) error {
	if a.K == 0 {
		return errFallback
	}
	const op = "blas.GemmBatched"
	n := len(as)
	host := make([]byte, 3*n*8)
	for i := range n {
		// Swapped as for gemm: cuBLAS's A is the row-major B.
		binary.LittleEndian.PutUint64(host[8*i:], uint64(bs[i].addr("cuda")))
		binary.LittleEndian.PutUint64(host[8*(n+i):], uint64(as[i].addr("cuda")))
		binary.LittleEndian.PutUint64(host[8*(2*n+i):], uint64(cs[i].addr("cuda")))
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.blas == nil {
		return ErrClosed
	}
	arrays, err := e.h.q.AllocAsync(e.pool, uint64(len(host)))
	if err != nil {
		return err
	}
	ev, err := e.h.q.EnqueueCopyToPtr(arrays.Ptr(), host)
	if err != nil {
		_ = arrays.Free()
		return err
	}
	_ = ev.Release()
	base := arrays.Addr()
	A := cublas.Matrix{Ptr: base, Type: cublasType(a.Type), LD: a.LDB}
	B := cublas.Matrix{Ptr: base + uintptr(8*n), Type: cublasType(a.Type), LD: a.LDA}
	C := cublas.Matrix{Ptr: base + uintptr(16*n), Type: cublasType(a.Type), LD: a.LDC}
	err = e.blas.GemmBatched(cublasOp(a.TransB), cublasOp(a.TransA), a.N, a.M, a.K, a.Alpha, A, B, a.Beta, C, n, cublasComputeType(a.Type))
	// Freed in the queue's order: the block is reused only by commands
	// enqueued after the GEMM.
	return errors.Join(e.err(op, err), arrays.Free())
}

func (e *cublasEngine) gemv(a GemvArgs) error {
	if a.M == 0 || a.N == 0 || a.IncX < 0 || a.IncY < 0 {
		return errFallback
	}
	const op = "blas.Gemv"
	A, x, y := a.A.addr("cuda"), a.X.addr("cuda"), a.Y.addr("cuda")
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.blas == nil {
		return ErrClosed
	}
	if a.Type == dtype.Float32 || a.Type == dtype.Float64 {
		// Row-major A (M×N) is column-major Aᵀ (N×M): y = A·x is cuBLAS's
		// transposed product of it, y = Aᵀ·x its plain one.
		t := cublas.OpT
		if a.Trans == Trans {
			t = cublas.OpN
		}
		return e.err(op, e.blas.Gemv(cublasType(a.Type), t, a.N, a.M, a.Alpha, A, a.LDA, x, a.IncX, a.Beta, y, a.IncY))
	}
	// Half precision has no cuBLAS GEMV: yᵀ = xᵀ·op(A)ᵀ as a GEMM with
	// one row, x and y rows of stride incX and incY. Column-major, the
	// row-major A is Aᵀ, which is op(A)ᵀ for NoTrans.
	dt := cublasType(a.Type)
	xlen, ylen, tb := a.N, a.M, cublas.OpN
	if a.Trans == Trans {
		xlen, ylen, tb = a.M, a.N, cublas.OpT
	}
	X := cublas.Matrix{Ptr: x, Type: dt, LD: a.IncX}
	M := cublas.Matrix{Ptr: A, Type: dt, LD: a.LDA}
	Y := cublas.Matrix{Ptr: y, Type: dt, LD: a.IncY}
	return e.err(op, e.blas.Gemm(cublas.OpN, tb, 1, ylen, xlen, a.Alpha, X, M, a.Beta, Y, cublas.Compute32F))
}

func (e *cublasEngine) vector(a *vecArgs) error {
	half := a.Type == dtype.Float16 || a.Type == dtype.BFloat16
	switch {
	case a.IncX < 0 || a.IncY < 0,
		a.N == 0 && a.Op.hasResult(),
		a.Op == opIamax,
		half && (a.Op == opAsum || a.Op == opCopy || a.Op == opSwap || !e.halfLevel1):
		return errFallback
	case a.N == 0:
		return nil
	}
	op := "blas." + a.Op.String()
	dt := cublasType(a.Type)
	x, y, r := a.X.addr("cuda"), a.Y.addr("cuda"), a.Result.addr("cuda")
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.blas == nil {
		return ErrClosed
	}
	var err error
	switch a.Op {
	case opAxpy:
		err = e.blas.Axpy(dt, a.N, a.Alpha, x, a.IncX, y, a.IncY)
	case opDot:
		err = e.blas.Dot(dt, a.N, x, a.IncX, y, a.IncY, r)
	case opNrm2:
		err = e.blas.Nrm2(dt, a.N, x, a.IncX, r)
	case opAsum:
		err = e.blas.Asum(dt, a.N, x, a.IncX, r)
	case opScal:
		err = e.blas.Scal(dt, a.N, a.Alpha, x, a.IncX)
	case opCopy:
		err = e.blas.Copy(dt, a.N, x, a.IncX, y, a.IncY)
	case opSwap:
		err = e.blas.Swap(dt, a.N, x, a.IncX, y, a.IncY)
	default:
		return errFallback
	}
	return e.err(op, err)
}

func (e *cublasEngine) trsm(a TrsmArgs) error {
	if a.Alpha == 0 {
		return errFallback // B = 0: BLAS's definition, which cuBLAS does not document
	}
	const op = "blas.Trsm"
	side, fill, diag := cublas.SideRight, cublas.FillLower, cublas.DiagNonUnit
	if a.Side == Right {
		side = cublas.SideLeft
	}
	if a.Uplo == Lower {
		fill = cublas.FillUpper
	}
	if a.Diag == Unit {
		diag = cublas.DiagUnit
	}
	A, B := a.A.addr("cuda"), a.B.addr("cuda")
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.blas == nil {
		return ErrClosed
	}
	return e.err(op, e.blas.Trsm(cublasType(a.Type), side, fill, cublasOp(a.Trans), diag, a.N, a.M, a.Alpha, A, a.LDA, B, a.LDB))
}
