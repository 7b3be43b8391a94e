package cublas

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unsafe"

	"github.com/gour-dev/gour/internal/dl"
	"github.com/gour-dev/gour/internal/nvlib"
)

// standIn builds testdata/fake_cublas.c, which plays both libcuda and
// libcublas, and loads it as Load would.
func standIn(t testing.TB) (*Lib, uintptr) {
	t.Helper()
	cc, err := exec.LookPath("cc")
	if err != nil {
		t.Skip("no C compiler to build the stand-in library")
	}
	so := filepath.Join(t.TempDir(), "libcublas.so.13")
	if out, err := exec.Command(cc, "-shared", "-fPIC", "-o", so, "testdata/fake_cublas.c").CombinedOutput(); err != nil {
		t.Fatalf("building the stand-in: %v\n%s", err, out)
	}
	lib, err := dl.Open(so)
	if err != nil {
		t.Fatal(err)
	}
	l := &Lib{cuda: lib, blas: lib}
	if err := l.resolveCUDA(); err != nil {
		t.Fatal(err)
	}
	if err := lib.Resolve(l.table()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(l.Close)
	last, err := l.blas.Lookup("fake_last")
	if err != nil {
		t.Fatal(err)
	}
	return l, last
}

// record is what the stand-in saw last.
type record struct {
	name        string
	args        []int64
	alpha, beta float64
	ctx         int64
	mode        int32
}

func lastCall(t *testing.T, fn uintptr) record {
	t.Helper()
	out := new(struct {
		args        [24]int64
		n           int32
		alpha, beta float64
		ctx         int64
		mode        int32
	})
	a := dl.Args{uintptr(unsafe.Pointer(&out.args)), uintptr(unsafe.Pointer(&out.n)), uintptr(unsafe.Pointer(&out.alpha)),
		uintptr(unsafe.Pointer(&out.beta)), uintptr(unsafe.Pointer(&out.ctx)), uintptr(unsafe.Pointer(&out.mode))}
	r := dl.Call(fn, &a)
	name := cString(*(**byte)(unsafe.Pointer(&r)))
	return record{name, append([]int64(nil), out.args[:out.n]...), out.alpha, out.beta, out.ctx, out.mode}
}

func check(t *testing.T, last uintptr, err error, name string, args []int64, alpha, beta float64) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	r := lastCall(t, last)
	if r.name != name {
		t.Fatalf("called %s, want %s", r.name, name)
	}
	if len(r.args) != len(args) {
		t.Fatalf("%s: %d arguments, want %d", name, len(r.args), len(args))
	}
	for i := range args {
		if r.args[i] != args[i] {
			t.Errorf("%s: argument %d = %d (%#x), want %d (%#x)", name, i+1, r.args[i], r.args[i], args[i], args[i])
		}
	}
	if r.alpha != alpha || r.beta != beta {
		t.Errorf("%s: alpha, beta = %v, %v; want %v, %v", name, r.alpha, r.beta, alpha, beta)
	}
	if r.ctx != 0x77 {
		t.Errorf("%s: current context %#x, want 0x77", name, r.ctx)
	}
}

// TestCallsThroughStandIn: every entry point gets its arguments in
// order, the ones past the sixth on the stack (up to 23 of them), the
// scalars in the compute type's precision, with the handle's context
// current, and the pointer mode the routine needs.
func TestCallsThroughStandIn(t *testing.T) {
	l, last := standIn(t)
	if major, minor, patch, err := l.Version(); major != 13 || minor != 1 || patch != 7 || err != nil {
		t.Errorf("Version = %d.%d.%d, %v", major, minor, patch, err)
	}
	if !l.HasHalfLevel1() {
		t.Error("HasHalfLevel1 = false")
	}
	h, err := l.Create(0x77)
	if err != nil {
		t.Fatal(err)
	}
	const H = 0x4242
	if h.Native() != H {
		t.Fatalf("handle %#x", h.Native())
	}
	if v, err := h.Version(); v != 130107 || err != nil {
		t.Errorf("Version = %d, %v", v, err)
	}
	check(t, last, h.SetStream(0x5000), "cublasSetStream_v2", []int64{H, 0x5000}, 0, 0)
	check(t, last, h.SetWorkspace(0x6000, 32<<20), "cublasSetWorkspace_v2", []int64{H, 0x6000, 32 << 20}, 0, 0)
	if err := h.SetMathMode(PedanticMath); err != nil {
		t.Fatal(err)
	}
	if m, err := h.MathMode(); m != PedanticMath || err != nil {
		t.Errorf("MathMode = %d, %v", m, err)
	}

	A := Matrix{Ptr: 0xa000, Type: R32F, LD: 11, Stride: 1 << 33}
	B := Matrix{Ptr: 0xb000, Type: R32F, LD: 12, Stride: 0}
	C := Matrix{Ptr: 0xc000, Type: R32F, LD: 13, Stride: 5000}
	check(t, last, h.Gemm(OpT, OpN, 3, 4, 5, 1.5, A, B, -2, C, Compute32F), "cublasSgemm_v2",
		[]int64{H, 1, 0, 3, 4, 5, 0, 0xa000, 11, 0xb000, 12, 0, 0xc000, 13}, 1.5, -2)
	A.Type, B.Type, C.Type = R64F, R64F, R64F
	check(t, last, h.Gemm(OpN, OpT, 3, 4, 5, 1.0/3, A, B, 0.1, C, Compute64F), "cublasDgemm_v2",
		[]int64{H, 0, 1, 3, 4, 5, 0, 0xa000, 11, 0xb000, 12, 0, 0xc000, 13}, 1.0/3, 0.1)
	check(t, last, h.GemmStridedBatched(OpN, OpT, 3, 4, 5, 2, A, B, 3, C, 7, Compute64F), "cublasDgemmStridedBatched",
		[]int64{H, 0, 1, 3, 4, 5, 0, 0xa000, 11, 1 << 33, 0xb000, 12, 0, 0, 0xc000, 13, 5000, 7}, 2, 3)
	A.Type, B.Type, C.Type = R32F, R32F, R32F
	check(t, last, h.GemmStridedBatched(OpN, OpN, 3, 4, 5, 2, A, B, 3, C, 7, Compute32F), "cublasSgemmStridedBatched",
		[]int64{H, 0, 0, 3, 4, 5, 0, 0xa000, 11, 1 << 33, 0xb000, 12, 0, 0, 0xc000, 13, 5000, 7}, 2, 3)
	A.Type, B.Type, C.Type = R16F, R16F, R16F
	check(t, last, h.Gemm(OpT, OpT, 3, 4, 5, 0.5, A, B, 0.25, C, Compute32F), "cublasGemmEx",
		[]int64{H, 1, 1, 3, 4, 5, 0, 0xa000, 2, 11, 0xb000, 2, 12, 0, 0xc000, 2, 13, 68, -1}, 0.5, 0.25)
	A.Type, B.Type, C.Type = R16BF, R16BF, R16BF
	check(t, last, h.GemmStridedBatched(OpN, OpT, 3, 4, 5, 0.5, A, B, 0.25, C, 9, Compute32F), "cublasGemmStridedBatchedEx",
		[]int64{H, 0, 1, 3, 4, 5, 0, 0xa000, 14, 11, 1 << 33, 0xb000, 14, 12, 0, 0, 0xc000, 14, 13, 5000, 9, 68, -1}, 0.5, 0.25)
	check(t, last, h.GemmBatched(OpT, OpN, 3, 4, 5, 0.5, A, B, 0.25, C, 9, Compute32F), "cublasGemmBatchedEx",
		[]int64{H, 1, 0, 3, 4, 5, 0, 0xa000, 14, 11, 0xb000, 14, 12, 0, 0xc000, 14, 13, 9, 68, -1}, 0.5, 0.25)

	check(t, last, h.Gemv(R32F, OpT, 6, 7, 1.25, 0xa000, 8, 0xb000, 2, 0.5, 0xc000, 3), "cublasSgemv_v2",
		[]int64{H, 1, 6, 7, 0, 0xa000, 8, 0xb000, 2, 0, 0xc000, 3}, 1.25, 0.5)
	check(t, last, h.Gemv(R64F, OpN, 6, 7, 1.0/3, 0xa000, 8, 0xb000, 2, 0.1, 0xc000, 3), "cublasDgemv_v2",
		[]int64{H, 0, 6, 7, 0, 0xa000, 8, 0xb000, 2, 0, 0xc000, 3}, 1.0/3, 0.1)

	check(t, last, h.Axpy(R32F, 9, 1.5, 0xa000, 2, 0xb000, -3), "cublasSaxpy_v2", []int64{H, 9, 0, 0xa000, 2, 0xb000, -3}, 1.5, 0)
	check(t, last, h.Axpy(R64F, 9, 0.1, 0xa000, 2, 0xb000, 3), "cublasDaxpy_v2", []int64{H, 9, 0, 0xa000, 2, 0xb000, 3}, 0.1, 0)
	check(t, last, h.Axpy(R16F, 9, 1.5, 0xa000, 2, 0xb000, 3), "cublasAxpyEx", []int64{H, 9, 0, 0, 0xa000, 2, 2, 0xb000, 2, 3, 0}, 1.5, 0)
	check(t, last, h.Scal(R32F, 9, 4, 0xa000, 2), "cublasSscal_v2", []int64{H, 9, 0, 0xa000, 2}, 4, 0)
	check(t, last, h.Scal(R16BF, 9, 4, 0xa000, 2), "cublasScalEx", []int64{H, 9, 0, 0, 0xa000, 14, 2, 0}, 4, 0)
	check(t, last, h.Dot(R64F, 9, 0xa000, 2, 0xb000, 3, 0xd000), "cublasDdot_v2", []int64{H, 9, 0xa000, 2, 0xb000, 3, 0xd000}, 0, 0)
	if r := lastCall(t, last); r.mode != int32(PointerDevice) {
		t.Errorf("pointer mode %d for a reduction, want device", r.mode)
	}
	check(t, last, h.Dot(R16F, 9, 0xa000, 2, 0xb000, 3, 0xd000), "cublasDotEx", []int64{H, 9, 0xa000, 2, 2, 0xb000, 2, 3, 0xd000, 2, 0}, 0, 0)
	check(t, last, h.Nrm2(R32F, 9, 0xa000, 2, 0xd000), "cublasSnrm2_v2", []int64{H, 9, 0xa000, 2, 0xd000}, 0, 0)
	check(t, last, h.Nrm2(R16BF, 9, 0xa000, 2, 0xd000), "cublasNrm2Ex", []int64{H, 9, 0xa000, 14, 2, 0xd000, 14, 0}, 0, 0)
	check(t, last, h.Asum(R64F, 9, 0xa000, 2, 0xd000), "cublasDasum_v2", []int64{H, 9, 0xa000, 2, 0xd000}, 0, 0)
	check(t, last, h.Iamax(R32F, 9, 0xa000, 2, 0xd000), "cublasIsamax_v2", []int64{H, 9, 0xa000, 2, 0xd000}, 0, 0)
	// Back to host mode for a routine with a host scalar.
	check(t, last, h.Scal(R64F, 9, 0.5, 0xa000, 2), "cublasDscal_v2", []int64{H, 9, 0, 0xa000, 2}, 0.5, 0)
	check(t, last, h.Copy(R32F, 9, 0xa000, 2, 0xb000, -1), "cublasScopy_v2", []int64{H, 9, 0xa000, 2, 0xb000, -1}, 0, 0)
	check(t, last, h.Swap(R64F, 9, 0xa000, 2, 0xb000, 1), "cublasDswap_v2", []int64{H, 9, 0xa000, 2, 0xb000, 1}, 0, 0)

	check(t, last, h.Trsm(R32F, SideRight, FillUpper, OpT, DiagUnit, 6, 7, 1.5, 0xa000, 8, 0xb000, 9), "cublasStrsm_v2",
		[]int64{H, 1, 1, 1, 1, 6, 7, 0, 0xa000, 8, 0xb000, 9}, 1.5, 0)
	check(t, last, h.Trsm(R64F, SideLeft, FillLower, OpN, DiagNonUnit, 6, 7, 1.0/3, 0xa000, 8, 0xb000, 9), "cublasDtrsm_v2",
		[]int64{H, 0, 0, 0, 0, 6, 7, 0, 0xa000, 8, 0xb000, 9}, 1.0/3, 0)
	if r := lastCall(t, last); r.mode != int32(PointerHost) {
		t.Errorf("pointer mode %d for Trsm, want host", r.mode)
	}

	if err := h.Destroy(); err != nil {
		t.Fatal(err)
	}
	if r := lastCall(t, last); r.name != "cublasDestroy_v2" || r.args[0] != H {
		t.Errorf("Destroy called %s(%#x)", r.name, r.args)
	}
}

// TestErrors: a status is a typed error naming the function and the
// status, a context that cannot be made current stops the call before
// cuBLAS, and a routine without an entry point for a type is
// CUBLAS_STATUS_NOT_SUPPORTED.
func TestErrors(t *testing.T) {
	l, _ := standIn(t)
	h, err := l.Create(0x77)
	if err != nil {
		t.Fatal(err)
	}
	var e *Error
	err = h.SetMathMode(99)
	if !errors.As(err, &e) || e.Status != InvalidValue || e.Func != "cublasSetMathMode" || err.Error() != "cublas: cublasSetMathMode: CUBLAS_STATUS_INVALID_VALUE" {
		t.Errorf("SetMathMode(99) = %v", err)
	}
	err = h.Asum(R16F, 4, 0xa000, 1, 0xd000)
	if !errors.As(err, &e) || e.Status != NotSupported {
		t.Errorf("Asum(R16F) = %v, want CUBLAS_STATUS_NOT_SUPPORTED", err)
	}
	bad, err := l.Create(0xbad)
	if !errors.As(err, &e) || e.CUDA != 201 || e.CUDAName != "CUDA_ERROR_INVALID_CONTEXT" || e.Func != "cublasCreate_v2" || bad != nil {
		t.Errorf("Create in a context that cannot be made current = %v, %v", bad, err)
	}
	if Status(13).Name() != "CUBLAS_STATUS_EXECUTION_FAILED" || Status(99).Name() != "CUBLAS_STATUS_99" {
		t.Errorf("names %s, %s", Status(13).Name(), Status(99).Name())
	}
}

// TestMissingLibrary: cuBLAS is looked for through nvlib's finder, in
// the toolkit's directories too, and a cuBLAS that does not load is an
// error naming what was tried.
func TestMissingLibrary(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "libcublas.so.12")
	if err := os.WriteFile(bad, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if got := library.Candidates([]string{dir}); !slices.Contains(got, bad) || got[0] != "libcublas.so" {
		t.Errorf("Candidates = %q, want the development link first and %s among them", got, bad)
	}
	l := &Lib{}
	lib, err := nvlib.Load(library, []string{dir}, func(*dl.Library) []dl.Symbol { return l.table() })
	if err == nil {
		lib.Close()
		t.Logf("a cuBLAS on the loader's path loaded: %s", lib.Name)
		return
	}
	if !strings.Contains(err.Error(), bad) || !strings.Contains(err.Error(), "libcublas.so.13") {
		t.Errorf("error %q does not name what was tried", err)
	}
}

// TestCallAllocatesNothing: a GEMM call through the binding allocates
// nothing.
func TestCallAllocatesNothing(t *testing.T) {
	l, _ := standIn(t)
	h, err := l.Create(0x77)
	if err != nil {
		t.Fatal(err)
	}
	A := Matrix{Ptr: 0xa000, Type: R32F, LD: 64}
	if n := testing.AllocsPerRun(100, func() {
		if err := h.Gemm(OpN, OpN, 64, 64, 64, 1, A, A, 0, A, Compute32F); err != nil {
			t.Fatal(err)
		}
	}); n != 0 {
		t.Errorf("%v allocations per Gemm", n)
	}
}

// BenchmarkGemmStandIn is the binding's own cost of a cublasSgemm call:
// making the context current and calling a C function that only records
// its arguments.
func BenchmarkGemmStandIn(b *testing.B) {
	l, _ := standIn(b)
	h, err := l.Create(0x77)
	if err != nil {
		b.Fatal(err)
	}
	A := Matrix{Ptr: 0xa000, Type: R32F, LD: 64}
	b.ReportAllocs()
	for b.Loop() {
		if err := h.Gemm(OpN, OpN, 64, 64, 64, 1, A, A, 0, A, Compute32F); err != nil {
			b.Fatal(err)
		}
	}
}
