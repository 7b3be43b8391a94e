package cublas

import (
	"fmt"
	"runtime"
	"strings"
	"unsafe"

	"github.com/gour-dev/gour/internal/dl"
	"github.com/gour-dev/gour/internal/nvlib"
)

// Lib is the resolved cuBLAS entry-point table and the CUDA driver
// entry point every call needs. Fields hold C function addresses;
// optional entry points the library lacks are zero. A Lib is read-only
// after Load and may be used from any goroutine.
type Lib struct {
	// ctxSetCurrent is cuCtxSetCurrent, called before every cuBLAS call.
	ctxSetCurrent uintptr
	getErrorName  uintptr // cuGetErrorName, for messages
	ctxGetID      uintptr // cuCtxGetId (CUDA 12.0), or 0

	cuda, blas *dl.Library

	getProperty               uintptr
	create, destroy           uintptr
	getVersion                uintptr
	setStream, setWorkspace   uintptr
	setPointerMode            uintptr
	setMathMode, getMathMode  uintptr
	sgemm, dgemm, gemmEx      uintptr
	sgemmStrided, dgemmStride uintptr
	gemmStridedEx             uintptr
	gemmBatchedEx             uintptr
	sgemv, dgemv              uintptr
	saxpy, daxpy              uintptr
	sdot, ddot                uintptr
	snrm2, dnrm2              uintptr
	sasum, dasum              uintptr
	isamax, idamax            uintptr
	sscal, dscal              uintptr
	scopy, dcopy              uintptr
	sswap, dswap              uintptr
	strsm, dtrsm              uintptr
	axpyEx, dotEx             uintptr // optional: half-precision Level 1
	nrm2Ex, scalEx            uintptr // optional
}

// Versions are the sonames' versions the binding knows, newest first.
var Versions = []string{"13", "12"}

// library is cuBLAS for nvlib's finder.
var library = nvlib.Library{Name: "cuBLAS", Base: "libcublas.so", Versions: Versions}

// Load takes the CUDA driver (nvlib.Driver, opened once per process),
// opens cuBLAS and resolves the entry points. cuBLAS is looked for as
// nvlib.Load looks: a development link libcublas.so, then .13, then .12,
// through the loader's search path, then in the CUDA toolkit's
// directories (/usr/local/cuda, $CUDA_HOME, $CUDA_PATH) and extraDirs,
// newest version first. The error names everything tried; nothing
// panics.
func Load(extraDirs ...string) (*Lib, error) {
	cuda, err := nvlib.Driver()
	if err != nil {
		return nil, fmt.Errorf("CUDA driver not available: %w", err)
	}
	l := &Lib{cuda: cuda}
	if err := l.resolveCUDA(); err != nil {
		return nil, err
	}
	if l.blas, err = nvlib.Load(library, extraDirs, func(*dl.Library) []dl.Symbol { return l.table() }); err != nil {
		return nil, err
	}
	return l, nil
}

// LibraryName is the cuBLAS file that was loaded.
func (l *Lib) LibraryName() string { return l.blas.Name }

// resolveCUDA resolves the driver's entry points the binding calls.
func (l *Lib) resolveCUDA() error {
	return l.cuda.Resolve([]dl.Symbol{
		{Name: "cuCtxSetCurrent", Addr: &l.ctxSetCurrent},
		{Name: "cuGetErrorName", Addr: &l.getErrorName, Optional: true},
		{Name: "cuCtxGetId", Addr: &l.ctxGetID, Optional: true},
	})
}

func (l *Lib) table() []dl.Symbol {
	return []dl.Symbol{
		{Name: "cublasGetProperty", Addr: &l.getProperty},
		{Name: "cublasCreate_v2", Addr: &l.create},
		{Name: "cublasDestroy_v2", Addr: &l.destroy},
		{Name: "cublasGetVersion_v2", Addr: &l.getVersion},
		{Name: "cublasSetStream_v2", Addr: &l.setStream},
		{Name: "cublasSetWorkspace_v2", Addr: &l.setWorkspace},
		{Name: "cublasSetPointerMode_v2", Addr: &l.setPointerMode},
		{Name: "cublasSetMathMode", Addr: &l.setMathMode},
		{Name: "cublasGetMathMode", Addr: &l.getMathMode},
		{Name: "cublasSgemm_v2", Addr: &l.sgemm},
		{Name: "cublasDgemm_v2", Addr: &l.dgemm},
		{Name: "cublasGemmEx", Addr: &l.gemmEx},
		{Name: "cublasSgemmStridedBatched", Addr: &l.sgemmStrided},
		{Name: "cublasDgemmStridedBatched", Addr: &l.dgemmStride},
		{Name: "cublasGemmStridedBatchedEx", Addr: &l.gemmStridedEx},
		{Name: "cublasGemmBatchedEx", Addr: &l.gemmBatchedEx},
		{Name: "cublasSgemv_v2", Addr: &l.sgemv},
		{Name: "cublasDgemv_v2", Addr: &l.dgemv},
		{Name: "cublasSaxpy_v2", Addr: &l.saxpy},
		{Name: "cublasDaxpy_v2", Addr: &l.daxpy},
		{Name: "cublasSdot_v2", Addr: &l.sdot},
		{Name: "cublasDdot_v2", Addr: &l.ddot},
		{Name: "cublasSnrm2_v2", Addr: &l.snrm2},
		{Name: "cublasDnrm2_v2", Addr: &l.dnrm2},
		{Name: "cublasSasum_v2", Addr: &l.sasum},
		{Name: "cublasDasum_v2", Addr: &l.dasum},
		{Name: "cublasIsamax_v2", Addr: &l.isamax},
		{Name: "cublasIdamax_v2", Addr: &l.idamax},
		{Name: "cublasSscal_v2", Addr: &l.sscal},
		{Name: "cublasDscal_v2", Addr: &l.dscal},
		{Name: "cublasScopy_v2", Addr: &l.scopy},
		{Name: "cublasDcopy_v2", Addr: &l.dcopy},
		{Name: "cublasSswap_v2", Addr: &l.sswap},
		{Name: "cublasDswap_v2", Addr: &l.dswap},
		{Name: "cublasStrsm_v2", Addr: &l.strsm},
		{Name: "cublasDtrsm_v2", Addr: &l.dtrsm},
		{Name: "cublasAxpyEx", Addr: &l.axpyEx, Optional: true},
		{Name: "cublasDotEx", Addr: &l.dotEx, Optional: true},
		{Name: "cublasNrm2Ex", Addr: &l.nrm2Ex, Optional: true},
		{Name: "cublasScalEx", Addr: &l.scalEx, Optional: true},
	}
}

// Version is the library's version (cublasGetProperty), which needs no
// handle and no device.
func (l *Lib) Version() (major, minor, patch int, err error) {
	out := new([3]int32)
	for i := range out {
		a := dl.Args{uintptr(i), uintptr(unsafe.Pointer(&out[i]))}
		if s := Status(int32(dl.Call(l.getProperty, &a))); s != Success {
			return 0, 0, 0, &Error{Func: "cublasGetProperty", Status: s}
		}
	}
	runtime.KeepAlive(out)
	return int(out[0]), int(out[1]), int(out[2]), nil
}

// ContextID is the CUDA context's process-unique id (cuCtxGetId, never
// reused, unlike a destroyed context's address); ok is false where the
// driver has no such call or refuses the context.
func (l *Lib) ContextID(ctx uintptr) (id uint64, ok bool) {
	if l.ctxGetID == 0 {
		return 0, false
	}
	out := new(uint64)
	a := dl.Args{ctx, uintptr(unsafe.Pointer(out))}
	r := dl.Call(l.ctxGetID, &a)
	runtime.KeepAlive(out)
	return *out, r == 0
}

// HasHalfLevel1 reports whether the library has the Level 1 entry points
// that take half precision (cublasAxpyEx, DotEx, Nrm2Ex, ScalEx).
func (l *Lib) HasHalfLevel1() bool {
	return l.axpyEx != 0 && l.dotEx != 0 && l.nrm2Ex != 0 && l.scalEx != 0
}

// Close releases cuBLAS (the driver is the process's); the Lib and its
// handles must not be used afterwards.
func (l *Lib) Close() {
	if l == nil {
		return
	}
	if l.blas != nil {
		_ = l.blas.Close()
	}
}

// cudaError describes a failed cuCtxSetCurrent before fn.
func (l *Lib) cudaError(fn string, r uintptr) *Error {
	e := &Error{Func: fn, CUDA: int32(r), CUDAName: fmt.Sprintf("CUresult %d", int32(r))}
	if l.getErrorName != 0 {
		var name *byte
		keep := &name
		var a dl.Args
		a[0] = r
		a[1] = uintptr(unsafe.Pointer(keep))
		if dl.Call(l.getErrorName, &a) == 0 && *keep != nil {
			e.CUDAName = cString(*keep)
		}
		runtime.KeepAlive(keep)
	}
	return e
}

// cString copies a NUL-terminated C string.
func cString(p *byte) string {
	var b strings.Builder
	for q := unsafe.Pointer(p); *(*byte)(q) != 0; q = unsafe.Add(q, 1) {
		b.WriteByte(*(*byte)(q))
	}
	return b.String()
}
