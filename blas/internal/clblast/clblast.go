// Package clblast binds the C API of CLBlast (clblast_c.h), the tuned
// OpenCL BLAS, loaded at run time from libclblast.so.1 (Debian package
// libclblast1): no headers or library are needed to build.
//
// CLBlast takes OpenCL buffers (cl_mem) with element offsets, a pointer
// to the command queue, and an optional event (nil here: the queue's
// order tells completion). Scalars are passed by value, float ones in
// floating-point registers, so the routines are bound with
// purego.RegisterFunc, which follows the C calling convention for them.
package clblast

import (
	"fmt"
	"sync"

	"github.com/ebitengine/purego"
	"github.com/gour-dev/gour/internal/dl"
)

// Names are the shared objects Load tries, in order.
var Names = []string{"libclblast.so.1", "libclblast.so"}

// Layouts, transpositions, triangles, diagonals and sides
// (CLBlastLayout, CLBlastTranspose, CLBlastTriangle, CLBlastDiagonal,
// CLBlastSide).
const (
	RowMajor int32 = 101
	NoTrans  int32 = 111
	Trans    int32 = 112
	Upper    int32 = 121
	Lower    int32 = 122
	NonUnit  int32 = 131
	Unit     int32 = 132
	Left     int32 = 141
	Right    int32 = 142
)

// Status is a CLBlast status code: 0, an OpenCL error code, or one of
// CLBlast's own (-1024 and below).
type Status int32

// Success is CLBlastSuccess.
const Success Status = 0

var statusNames = map[Status]string{
	-4: "CLBlastTempBufferAllocFailure", -5: "CLBlastOpenCLOutOfResources", -6: "CLBlastOpenCLOutOfHostMemory",
	-11: "CLBlastOpenCLBuildProgramFailure", -30: "CLBlastInvalidValue", -36: "CLBlastInvalidCommandQueue",
	-38: "CLBlastInvalidMemObject", -54: "CLBlastInvalidLocalThreadsTotal", -1024: "CLBlastNotImplemented",
	-1017: "CLBlastInvalidDimension", -2046: "CLBlastInvalidLocalMemUsage", -2045: "CLBlastNoHalfPrecision",
	-2044: "CLBlastNoDoublePrecision", -2041: "CLBlastDatabaseError", -2040: "CLBlastUnknownError",
	-2039: "CLBlastUnexpectedError",
}

func (s Status) Error() string {
	if name, ok := statusNames[s]; ok {
		return fmt.Sprintf("%s (%d)", name, int32(s))
	}
	return fmt.Sprintf("CLBlast status %d", int32(s))
}

// Routines are one precision's entry points. F is the scalar as the C
// API takes it: float32, float64, or uint16 for cl_half's bits. Offsets,
// leading dimensions, increments and strides are in elements. queue
// points to the cl_command_queue; event is nil.
type Routines[F float32 | float64 | uint16] struct {
	Gemm func(layout, ta, tb int32, m, n, k uint64, alpha F, a uintptr, aOff, lda uint64,
		b uintptr, bOff, ldb uint64, beta F, c uintptr, cOff, ldc uint64, queue, event *uintptr) Status
	GemmStridedBatched func(layout, ta, tb int32, m, n, k uint64, alpha F, a uintptr, aOff, lda, aStride uint64,
		b uintptr, bOff, ldb, bStride uint64, beta F, c uintptr, cOff, ldc, cStride, batch uint64, queue, event *uintptr) Status
	GemmBatched func(layout, ta, tb int32, m, n, k uint64, alphas *F, a uintptr, aOffs *uint64, lda uint64,
		b uintptr, bOffs *uint64, ldb uint64, betas *F, c uintptr, cOffs *uint64, ldc, batch uint64, queue, event *uintptr) Status
	Gemv func(layout, ta int32, m, n uint64, alpha F, a uintptr, aOff, lda uint64, x uintptr, xOff, xInc uint64,
		beta F, y uintptr, yOff, yInc uint64, queue, event *uintptr) Status
	Axpy func(n uint64, alpha F, x uintptr, xOff, xInc uint64, y uintptr, yOff, yInc uint64, queue, event *uintptr) Status
	Dot  func(n uint64, r uintptr, rOff uint64, x uintptr, xOff, xInc uint64, y uintptr, yOff, yInc uint64, queue, event *uintptr) Status
	Asum func(n uint64, r uintptr, rOff uint64, x uintptr, xOff, xInc uint64, queue, event *uintptr) Status
	Scal func(n uint64, alpha F, x uintptr, xOff, xInc uint64, queue, event *uintptr) Status
	Copy func(n uint64, x uintptr, xOff, xInc uint64, y uintptr, yOff, yInc uint64, queue, event *uintptr) Status
	Swap func(n uint64, x uintptr, xOff, xInc uint64, y uintptr, yOff, yInc uint64, queue, event *uintptr) Status
	// Trsm is nil for half precision, which CLBlast does not solve in.
	Trsm func(layout, side, triangle, ta, diag int32, m, n uint64, alpha F, a uintptr, aOff, lda uint64,
		b uintptr, bOff, ldb uint64, queue, event *uintptr) Status
}

// Lib is the loaded library: single (S), double (D) and half (H)
// precision.
type Lib struct {
	Name string // the shared object loaded
	S    Routines[float32]
	D    Routines[float64]
	H    Routines[uint16]
}

var (
	once   sync.Once
	loaded *Lib
	errLib error
)

// Load opens CLBlast once per process and resolves every routine the
// package binds; a library without one of them is refused.
func Load() (*Lib, error) {
	once.Do(func() { loaded, errLib = load(Names) })
	return loaded, errLib
}

func load(names []string) (*Lib, error) {
	so, err := dl.Open(names...)
	if err != nil {
		return nil, err
	}
	l := &Lib{Name: so.Name}
	err = resolve(so, "S", &l.S)
	if err == nil {
		err = resolve(so, "D", &l.D)
	}
	if err == nil {
		err = resolve(so, "H", &l.H)
	}
	if err != nil {
		so.Close()
		return nil, err
	}
	return l, nil
}

// resolve binds one precision's routines, CLBlast<prefix><routine>.
func resolve[F float32 | float64 | uint16](so *dl.Library, prefix string, r *Routines[F]) error {
	type routine struct {
		name string
		fn   any
	}
	routines := []routine{
		{"gemm", &r.Gemm}, {"gemmStridedBatched", &r.GemmStridedBatched}, {"gemmBatched", &r.GemmBatched},
		{"gemv", &r.Gemv}, {"axpy", &r.Axpy}, {"dot", &r.Dot}, {"asum", &r.Asum},
		{"scal", &r.Scal}, {"copy", &r.Copy}, {"swap", &r.Swap},
	}
	if prefix != "H" {
		routines = append(routines, routine{"trsm", &r.Trsm})
	}
	for _, f := range routines {
		sym, err := so.Lookup("CLBlast" + prefix + f.name)
		if err != nil {
			return err
		}
		purego.RegisterFunc(f.fn, sym)
	}
	return nil
}
