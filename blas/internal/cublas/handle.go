package cublas

import (
	"math"
	"runtime"
	"unsafe"
)

// Handle is a cublasHandle_t and the CUDA context it was created in. It
// keeps the host-side scalars and outputs of its calls, so that a call
// allocates nothing, and the pointer mode it last set; it must not be
// used by two goroutines at once.
type Handle struct {
	lib  *Lib
	h    uintptr
	ctx  uintptr
	mode PointerMode
	// sc holds alpha and beta of the current call; out takes the outputs
	// of the getters. Both are on the heap with the Handle, so the
	// uintptrs passed to C cannot go stale (see Args).
	sc  [2]uint64
	out uint64
}

// Create creates a handle in the CUDA context ctx (a CUcontext), which
// cuBLAS binds to the context's device. The handle starts in host pointer
// mode and cuBLAS's default math (no TF32), on the NULL stream until
// SetStream.
func (l *Lib) Create(ctx uintptr) (*Handle, error) {
	h := &Handle{lib: l, ctx: ctx}
	var a Args
	a[0] = uintptr(unsafe.Pointer(&h.out))
	if err := h.call(l.create, "cublasCreate_v2", &a); err != nil {
		return nil, err
	}
	h.h = uintptr(h.out)
	return h, nil
}

// Native is the cublasHandle_t.
func (h *Handle) Native() uintptr { return h.h }

// Context is the CUcontext the handle was created in.
func (h *Handle) Context() uintptr { return h.ctx }

// Destroy releases the handle. It does not wait for the handle's work.
func (h *Handle) Destroy() error {
	if h.h == 0 {
		return nil
	}
	var a Args
	a[0] = h.h
	err := h.call(h.lib.destroy, "cublasDestroy_v2", &a)
	h.h = 0
	return err
}

// Version is the library's version: 130100 for cuBLAS 13.1.0.
func (h *Handle) Version() (int, error) {
	var a Args
	a[0], a[1] = h.h, uintptr(unsafe.Pointer(&h.out))
	if err := h.call(h.lib.getVersion, "cublasGetVersion_v2", &a); err != nil {
		return 0, err
	}
	return int(int32(h.out)), nil
}

// SetStream binds the handle to stream (a CUstream of its context). cuBLAS
// then goes back to its default workspace: call SetWorkspace after.
func (h *Handle) SetStream(stream uintptr) error {
	a := Args{h.h, stream}
	return h.call(h.lib.setStream, "cublasSetStream_v2", &a)
}

// SetWorkspace gives the handle size bytes of device memory at ptr for
// its kernels' scratch, instead of memory cuBLAS allocates itself. The
// memory must stay allocated, and be used by nothing else, until the
// handle is destroyed or given another workspace.
func (h *Handle) SetWorkspace(ptr uintptr, size uint64) error {
	a := Args{h.h, ptr, uintptr(size)}
	return h.call(h.lib.setWorkspace, "cublasSetWorkspace_v2", &a)
}

// SetMathMode sets the handle's math mode.
func (h *Handle) SetMathMode(m Math) error {
	a := Args{h.h, uintptr(m)}
	return h.call(h.lib.setMathMode, "cublasSetMathMode", &a)
}

// MathMode is the handle's math mode.
func (h *Handle) MathMode() (Math, error) {
	h.out = 0
	a := Args{h.h, uintptr(unsafe.Pointer(&h.out))}
	if err := h.call(h.lib.getMathMode, "cublasGetMathMode", &a); err != nil {
		return 0, err
	}
	return Math(int32(h.out)), nil
}

// pointerMode sets the pointer mode when it differs from the one set.
func (h *Handle) pointerMode(m PointerMode) error {
	if h.mode == m {
		return nil
	}
	a := Args{h.h, uintptr(m)}
	if err := h.call(h.lib.setPointerMode, "cublasSetPointerMode_v2", &a); err != nil {
		return err
	}
	h.mode = m
	return nil
}

// call makes fn(a...) with the handle's context current.
func (h *Handle) call(fn uintptr, name string, a *Args) error {
	if fn == 0 {
		return &Error{Func: name, Status: NotSupported}
	}
	r, cr := callCtx(h.lib.ctxSetCurrent, h.ctx, fn, a)
	runtime.KeepAlive(h)
	if cr != 0 {
		return h.lib.cudaError(name, cr)
	}
	if s := Status(int32(r)); s != Success {
		return &Error{Func: name, Status: s}
	}
	return nil
}

// scalars stores alpha and beta in the handle as the compute type wants
// them (float for 32F, double for 64F) and returns their addresses.
func (h *Handle) scalars(ct ComputeType, alpha, beta float64) (uintptr, uintptr) {
	if ct == Compute64F {
		h.sc[0], h.sc[1] = math.Float64bits(alpha), math.Float64bits(beta)
	} else {
		h.sc[0], h.sc[1] = uint64(math.Float32bits(float32(alpha))), uint64(math.Float32bits(float32(beta)))
	}
	return uintptr(unsafe.Pointer(&h.sc[0])), uintptr(unsafe.Pointer(&h.sc[1]))
}

// compute is the compute type of the S and D entry points for dt.
func compute(dt DataType) ComputeType {
	if dt == R64F {
		return Compute64F
	}
	return Compute32F
}

// i passes a C int: its low 32 bits.
func i(v int) uintptr { return uintptr(uint32(int32(v))) }

// Matrix is one GEMM operand as cuBLAS reads it (column-major): its
// device address, element type, leading dimension and, for the strided
// batched calls, the elements from one matrix of the batch to the next.
type Matrix struct {
	Ptr    uintptr
	Type   DataType
	LD     int
	Stride int64
}

// Gemm is C = alpha·op(A)·op(B) + beta·C, column-major, op(A) m×k,
// op(B) k×n, in host pointer mode. All three of the same type R32F or
// R64F call cublasSgemm or cublasDgemm; anything else calls cublasGemmEx
// with compute (Compute32F for half precision). alpha and beta are
// converted to the compute type's precision.
func (h *Handle) Gemm(ta, tb Operation, m, n, k int, alpha float64, A, B Matrix, beta float64, C Matrix, ct ComputeType) error {
	if err := h.pointerMode(PointerHost); err != nil {
		return err
	}
	al, be := h.scalars(ct, alpha, beta)
	if A.Type == B.Type && A.Type == C.Type && (A.Type == R32F && ct == Compute32F || A.Type == R64F && ct == Compute64F) {
		a := Args{h.h, uintptr(ta), uintptr(tb), i(m), i(n), i(k), al, A.Ptr, i(A.LD), B.Ptr, i(B.LD), be, C.Ptr, i(C.LD)}
		if A.Type == R32F {
			return h.call(h.lib.sgemm, "cublasSgemm_v2", &a)
		}
		return h.call(h.lib.dgemm, "cublasDgemm_v2", &a)
	}
	a := Args{h.h, uintptr(ta), uintptr(tb), i(m), i(n), i(k), al,
		A.Ptr, uintptr(A.Type), i(A.LD), B.Ptr, uintptr(B.Type), i(B.LD), be,
		C.Ptr, uintptr(C.Type), i(C.LD), uintptr(ct), algoDefault}
	return h.call(h.lib.gemmEx, "cublasGemmEx", &a)
}

// GemmStridedBatched is Gemm on batch matrices each, matrix j of A at
// A.Ptr + j·A.Stride elements, and so for B and C.
func (h *Handle) GemmStridedBatched(ta, tb Operation, m, n, k int, alpha float64, A, B Matrix, beta float64, C Matrix, batch int, ct ComputeType) error {
	if err := h.pointerMode(PointerHost); err != nil {
		return err
	}
	al, be := h.scalars(ct, alpha, beta)
	if A.Type == B.Type && A.Type == C.Type && (A.Type == R32F && ct == Compute32F || A.Type == R64F && ct == Compute64F) {
		a := Args{h.h, uintptr(ta), uintptr(tb), i(m), i(n), i(k), al,
			A.Ptr, i(A.LD), uintptr(A.Stride), B.Ptr, i(B.LD), uintptr(B.Stride), be,
			C.Ptr, i(C.LD), uintptr(C.Stride), i(batch)}
		if A.Type == R32F {
			return h.call(h.lib.sgemmStrided, "cublasSgemmStridedBatched", &a)
		}
		return h.call(h.lib.dgemmStride, "cublasDgemmStridedBatched", &a)
	}
	a := Args{h.h, uintptr(ta), uintptr(tb), i(m), i(n), i(k), al,
		A.Ptr, uintptr(A.Type), i(A.LD), uintptr(A.Stride),
		B.Ptr, uintptr(B.Type), i(B.LD), uintptr(B.Stride), be,
		C.Ptr, uintptr(C.Type), i(C.LD), uintptr(C.Stride), i(batch), uintptr(ct), algoDefault}
	return h.call(h.lib.gemmStridedEx, "cublasGemmStridedBatchedEx", &a)
}

// GemmBatched is Gemm on batch matrices each, given by device arrays of
// batch device pointers (A.Ptr, B.Ptr and C.Ptr point to the arrays;
// Stride is unused), through cublasGemmBatchedEx.
func (h *Handle) GemmBatched(ta, tb Operation, m, n, k int, alpha float64, A, B Matrix, beta float64, C Matrix, batch int, ct ComputeType) error {
	if err := h.pointerMode(PointerHost); err != nil {
		return err
	}
	al, be := h.scalars(ct, alpha, beta)
	a := Args{h.h, uintptr(ta), uintptr(tb), i(m), i(n), i(k), al,
		A.Ptr, uintptr(A.Type), i(A.LD), B.Ptr, uintptr(B.Type), i(B.LD), be,
		C.Ptr, uintptr(C.Type), i(C.LD), i(batch), uintptr(ct), algoDefault}
	return h.call(h.lib.gemmBatchedEx, "cublasGemmBatchedEx", &a)
}

// Gemv is y = alpha·op(A)·x + beta·y, A m×n column-major, for R32F or
// R64F.
func (h *Handle) Gemv(dt DataType, t Operation, m, n int, alpha float64, A uintptr, lda int, x uintptr, incx int, beta float64, y uintptr, incy int) error {
	if err := h.pointerMode(PointerHost); err != nil {
		return err
	}
	al, be := h.scalars(compute(dt), alpha, beta)
	a := Args{h.h, uintptr(t), i(m), i(n), al, A, i(lda), x, i(incx), be, y, i(incy)}
	switch dt {
	case R32F:
		return h.call(h.lib.sgemv, "cublasSgemv_v2", &a)
	case R64F:
		return h.call(h.lib.dgemv, "cublasDgemv_v2", &a)
	}
	return &Error{Func: "cublasSgemv_v2 (" + dt.String() + ")", Status: NotSupported}
}

// Trsm solves op(A)·X = alpha·B (side Left) or X·op(A) = alpha·B
// (side Right) in place of B, column-major, B m×n and A triangular
// (m×m for Left, n×n for Right), in host pointer mode, for R32F or R64F.
func (h *Handle) Trsm(dt DataType, side Side, fill Fill, t Operation, diag Diag, m, n int, alpha float64, A uintptr, lda int, B uintptr, ldb int) error {
	if err := h.pointerMode(PointerHost); err != nil {
		return err
	}
	al, _ := h.scalars(compute(dt), alpha, 0)
	a := Args{h.h, uintptr(side), uintptr(fill), uintptr(t), uintptr(diag), i(m), i(n), al, A, i(lda), B, i(ldb)}
	switch dt {
	case R32F:
		return h.call(h.lib.strsm, "cublasStrsm_v2", &a)
	case R64F:
		return h.call(h.lib.dtrsm, "cublasDtrsm_v2", &a)
	}
	return &Error{Func: "cublasStrsm_v2 (" + dt.String() + ")", Status: NotSupported}
}

// Axpy is y += alpha·x. R16F and R16BF go through cublasAxpyEx with
// float32 alpha and arithmetic.
func (h *Handle) Axpy(dt DataType, n int, alpha float64, x uintptr, incx int, y uintptr, incy int) error {
	if err := h.pointerMode(PointerHost); err != nil {
		return err
	}
	al, _ := h.scalars(compute(dt), alpha, 0)
	switch dt {
	case R32F, R64F:
		a := Args{h.h, i(n), al, x, i(incx), y, i(incy)}
		if dt == R32F {
			return h.call(h.lib.saxpy, "cublasSaxpy_v2", &a)
		}
		return h.call(h.lib.daxpy, "cublasDaxpy_v2", &a)
	}
	a := Args{h.h, i(n), al, uintptr(R32F), x, uintptr(dt), i(incx), y, uintptr(dt), i(incy), uintptr(R32F)}
	return h.call(h.lib.axpyEx, "cublasAxpyEx", &a)
}

// Scal is x *= alpha. R16F and R16BF go through cublasScalEx.
func (h *Handle) Scal(dt DataType, n int, alpha float64, x uintptr, incx int) error {
	if err := h.pointerMode(PointerHost); err != nil {
		return err
	}
	al, _ := h.scalars(compute(dt), alpha, 0)
	switch dt {
	case R32F, R64F:
		a := Args{h.h, i(n), al, x, i(incx)}
		if dt == R32F {
			return h.call(h.lib.sscal, "cublasSscal_v2", &a)
		}
		return h.call(h.lib.dscal, "cublasDscal_v2", &a)
	}
	a := Args{h.h, i(n), al, uintptr(R32F), x, uintptr(dt), i(incx), uintptr(R32F)}
	return h.call(h.lib.scalEx, "cublasScalEx", &a)
}

// Dot writes x·y to the device memory at result, an element of type dt.
// R16F and R16BF go through cublasDotEx with float32 arithmetic.
func (h *Handle) Dot(dt DataType, n int, x uintptr, incx int, y uintptr, incy int, result uintptr) error {
	if err := h.pointerMode(PointerDevice); err != nil {
		return err
	}
	switch dt {
	case R32F, R64F:
		a := Args{h.h, i(n), x, i(incx), y, i(incy), result}
		if dt == R32F {
			return h.call(h.lib.sdot, "cublasSdot_v2", &a)
		}
		return h.call(h.lib.ddot, "cublasDdot_v2", &a)
	}
	a := Args{h.h, i(n), x, uintptr(dt), i(incx), y, uintptr(dt), i(incy), result, uintptr(dt), uintptr(R32F)}
	return h.call(h.lib.dotEx, "cublasDotEx", &a)
}

// Nrm2 writes the Euclidean norm of x to the device memory at result, an
// element of type dt. R16F and R16BF go through cublasNrm2Ex.
func (h *Handle) Nrm2(dt DataType, n int, x uintptr, incx int, result uintptr) error {
	if err := h.pointerMode(PointerDevice); err != nil {
		return err
	}
	switch dt {
	case R32F, R64F:
		a := Args{h.h, i(n), x, i(incx), result}
		if dt == R32F {
			return h.call(h.lib.snrm2, "cublasSnrm2_v2", &a)
		}
		return h.call(h.lib.dnrm2, "cublasDnrm2_v2", &a)
	}
	a := Args{h.h, i(n), x, uintptr(dt), i(incx), result, uintptr(dt), uintptr(R32F)}
	return h.call(h.lib.nrm2Ex, "cublasNrm2Ex", &a)
}

// level1 calls the S or D function of a Level 1 routine without scalars.
func (h *Handle) level1(dt DataType, mode PointerMode, s, d uintptr, sName, dName string, a *Args) error {
	if dt != R32F && dt != R64F {
		return &Error{Func: sName + " (" + dt.String() + ")", Status: NotSupported}
	}
	if err := h.pointerMode(mode); err != nil {
		return err
	}
	if dt == R32F {
		return h.call(s, sName, a)
	}
	return h.call(d, dName, a)
}

// Asum writes the sum of |x_i| to the device memory at result (R32F or
// R64F, as x).
func (h *Handle) Asum(dt DataType, n int, x uintptr, incx int, result uintptr) error {
	a := Args{h.h, i(n), x, i(incx), result}
	return h.level1(dt, PointerDevice, h.lib.sasum, h.lib.dasum, "cublasSasum_v2", "cublasDasum_v2", &a)
}

// Iamax writes the 1-based index of the first element of largest |x_i|
// to the device memory at result, a C int (0 for n ≤ 0).
func (h *Handle) Iamax(dt DataType, n int, x uintptr, incx int, result uintptr) error {
	a := Args{h.h, i(n), x, i(incx), result}
	return h.level1(dt, PointerDevice, h.lib.isamax, h.lib.idamax, "cublasIsamax_v2", "cublasIdamax_v2", &a)
}

// Copy is y = x (R32F or R64F).
func (h *Handle) Copy(dt DataType, n int, x uintptr, incx int, y uintptr, incy int) error {
	a := Args{h.h, i(n), x, i(incx), y, i(incy)}
	return h.level1(dt, h.mode, h.lib.scopy, h.lib.dcopy, "cublasScopy_v2", "cublasDcopy_v2", &a)
}

// Swap exchanges x and y (R32F or R64F).
func (h *Handle) Swap(dt DataType, n int, x uintptr, incx int, y uintptr, incy int) error {
	a := Args{h.h, i(n), x, i(incx), y, i(incy)}
	return h.level1(dt, h.mode, h.lib.sswap, h.lib.dswap, "cublasSswap_v2", "cublasDswap_v2", &a)
}
