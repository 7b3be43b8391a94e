package blas

import (
	"context"
	"errors"
	"math"
	"os"
	"strings"
	"testing"

	_ "github.com/gour-dev/gour/adapters/all"
	"github.com/gour-dev/gour/cache"
	"github.com/gour-dev/gour/dtype"
	"github.com/gour-dev/gour/internal/harness/testenv"
	"github.com/gour-dev/gour/programmgr"
	"github.com/gour-dev/gour/ur"
)

// ownEngineOn returns the own engine of a Handle on the own kernels over
// dev, with a program manager without a persistent cache, and the Handle
// (released when the test ends).
func ownEngineOn(t *testing.T, dev *ur.Device) (*Handle, *ownEngine) {
	t.Helper()
	ctx, q := testenv.ContextQueue(t, dev)
	off := false
	disk, err := cache.Open(cache.Config{Persistent: &off})
	if err != nil {
		t.Fatal(err)
	}
	mgr, err := programmgr.New(ctx, programmgr.Options{DiskCache: disk})
	if err != nil {
		t.Fatal(err)
	}
	h, err := New(q, Options{Backend: BackendGour, Programs: mgr})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := errors.Join(h.Close(), mgr.Close()); err != nil {
			t.Errorf("release: %v", err)
		}
	})
	e, err := h.ownEngine()
	if err != nil {
		t.Fatal(err)
	}
	return h, e
}

// TestTilings runs a float32 GEMM with the tilings float32 does not get
// on the device (the GPUs' 128×128, the small devices' 32×32), each
// transpose and both load paths, on each OpenCL device; TestGemm checks
// the device's own, and float64's.
func TestTilings(t *testing.T) {
	testenv.CheckRequired(t)
	for _, dev := range testenv.Devices(t) {
		if dev.Backend() != "opencl" {
			continue
		}
		h, e := ownEngineOn(t, dev)
		for _, g := range []gemmTiling{tilingBig, tilingMid, tilingSmall} {
			if g == e.tilingFor(dtype.Float32) {
				continue
			}
			p, err := e.buildProgram(dtype.Float32, g)
			if err != nil {
				t.Fatalf("tiling %+v: %v", g, err)
			}
			if old := e.progs[dtype.Float32].Swap(p); old != nil {
				old.release()
			}
			for _, sh := range [][3]int{{130, 67, 70}, {132, 260, 36}} {
				for _, ta := range []Transpose{NoTrans, Trans} {
					for _, tb := range []Transpose{NoTrans, Trans} {
						checkTiling(t, h, g, ta, tb, sh[0], sh[1], sh[2])
					}
				}
			}
		}
	}
}

func checkTiling(t *testing.T, h *Handle, g gemmTiling, ta, tb Transpose, m, n, k int) {
	t.Helper()
	ra, ca := rowsCols(ta, m, k)
	rb, cb := rowsCols(tb, k, n)
	A, B, C := make([]float32, ra*ca), make([]float32, rb*cb), make([]float32, m*n)
	for i := range A {
		A[i] = float32(i%7) - 3
	}
	for i := range B {
		B[i] = float32(i%5) - 2
	}
	bufs := make([]*ur.Mem, 3)
	for i, xs := range [][]float32{A, B, C} {
		m, err := h.ctx.NewBufferFrom(ur.MemReadWrite, ur.AsBytes(xs))
		if err != nil {
			t.Fatal(err)
		}
		defer m.Release()
		bufs[i] = m
	}
	a := GemmArgs{Type: dtype.Float32, TransA: ta, TransB: tb, M: m, N: n, K: k, Alpha: 1, A: OnBuffer(bufs[0], 0), B: OnBuffer(bufs[1], 0), C: OnBuffer(bufs[2], 0), LDA: ca, LDB: cb, LDC: n}
	if err := h.Gemm(a); err != nil {
		t.Fatal(err)
	}
	if err := h.q.ReadBuffer(bufs[2], 0, ur.AsBytes(C)); err != nil {
		t.Fatal(err)
	}
	at := func(xs []float32, tr Transpose, ld, i, j int) float32 {
		if tr == Trans {
			return xs[j*ld+i]
		}
		return xs[i*ld+j]
	}
	for i := range m {
		for j := range n {
			var want float32
			for l := range k {
				want += at(A, ta, ca, i, l) * at(B, tb, cb, l, j)
			}
			if got := C[i*n+j]; math.Abs(float64(got-want)) > 1e-3 {
				t.Fatalf("tiling %+v %v%v %dx%dx%d (four at a time: %v): C[%d,%d] = %v, want %v",
					g, ta, tb, m, n, k, m%4 == 0 && n%4 == 0 && k%4 == 0, i, j, got, want)
			}
		}
	}
}

// TestLevelZeroPrograms builds every type's program through SPIR-V on
// each Level Zero device: the test driver builds modules but runs none
// of these kernels. Run as compute's Level Zero tests are:
//
//	fake=$(mktemp -d)/libze_gour_fake.so
//	cc -shared -fPIC -O1 -o $fake adapters/levelzero/testdata/fakedriver/ze_fake_driver.c
//	ZE_ENABLE_ALT_DRIVERS=$fake ONEAPI_DEVICE_SELECTOR='level_zero:*' UR_REQUIRE_ADAPTERS=level_zero \
//	    go test -run LevelZero ./blas/
//
// It skips without a Level Zero device (failing where UR_REQUIRE_ADAPTERS
// names level_zero) and without clang and llvm-spirv (failing under
// GOUR_REQUIRE_SPIRV_COMPILER=1).
func TestLevelZeroPrograms(t *testing.T) {
	testenv.CheckRequired(t)
	sys := testenv.System(t)
	found := false
	for _, dev := range sys.Devices {
		if dev.Backend() != "level_zero" {
			continue
		}
		found = true
		h, e := ownEngineOn(t, dev)
		mgr, err := h.programs()
		if err != nil {
			t.Fatal(err)
		}
		for _, ty := range []dtype.Type{dtype.Float32, dtype.Float64, dtype.Float16, dtype.BFloat16} {
			if ty == dtype.Float64 && !h.fp64 {
				continue
			}
			img, _, err := e.image(ty, e.tilingFor(ty))
			if err != nil {
				t.Fatal(err)
			}
			p, err := mgr.GetProgram(context.Background(), img, nil, programmgr.SpecValues{}, "")
			if errors.Is(err, ur.ErrUnsupportedFeature) && strings.Contains(err.Error(), "not installed") {
				if os.Getenv("GOUR_REQUIRE_SPIRV_COMPILER") == "1" {
					t.Fatalf("GOUR_REQUIRE_SPIRV_COMPILER=1: %v", err)
				}
				t.Skipf("no OpenCL C to SPIR-V toolchain: %v", err)
			}
			if err != nil {
				t.Fatalf("%s: %v", ty, err)
			}
			p.Release()
		}
	}
	if !found {
		t.Skipf("no Level Zero device: %s", testenv.Reasons(sys))
	}
}

// TestFloat16Storage runs the own float16 kernels on each OpenCL device,
// also one without cl_khr_fp16 (PoCL): OpenCL C's vload_half and
// vstore_half need no extension, so the kernels run there, and the
// front end's refusal of the type is the only thing the aspect decides.
// The engine is called directly, past that refusal.
func TestFloat16Storage(t *testing.T) {
	testenv.CheckRequired(t)
	for _, dev := range testenv.Devices(t) {
		if dev.Backend() != "opencl" {
			continue
		}
		h, e := ownEngineOn(t, dev)
		const m, n, k = 33, 20, 17
		half := func(xs []float32) *ur.Mem {
			b := make([]uint16, len(xs))
			for i, x := range xs {
				b[i] = dtype.Float16Bits(x)
			}
			mem, err := h.ctx.NewBufferFrom(ur.MemReadWrite, ur.AsBytes(b))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { mem.Release() })
			return mem
		}
		read := func(mem *ur.Mem, count int) []float32 {
			b := make([]uint16, count)
			if err := h.q.ReadBuffer(mem, 0, ur.AsBytes(b)); err != nil {
				t.Fatal(err)
			}
			out := make([]float32, count)
			for i, x := range b {
				out[i] = dtype.Float16From(x)
			}
			return out
		}
		A, B := make([]float32, m*k), make([]float32, k*n)
		for i := range A {
			A[i] = float32(i%9-4) / 4
		}
		for i := range B {
			B[i] = float32(i%7-3) / 2
		}
		a, b, c := half(A), half(B), half(make([]float32, m*n))
		err := e.gemm(GemmArgs{Type: dtype.Float16, TransA: NoTrans, TransB: Trans, M: m, N: n, K: k, Alpha: 2, Beta: 0,
			A: OnBuffer(a, 0), B: OnBuffer(b, 0), C: OnBuffer(c, 0), LDA: k, LDB: k, LDC: n, Batch: 1})
		if err != nil {
			t.Fatal(err)
		}
		got := read(c, m*n)
		for i := range m {
			for j := range n {
				var want float32
				for l := range k {
					want += A[i*k+l] * B[j*k+l] // B stored n×k: transposed
				}
				want = dtype.Float16From(dtype.Float16Bits(2 * want))
				if got[i*n+j] != want {
					t.Fatalf("%s: C[%d,%d] = %v, want %v", dev.Name(), i, j, got[i*n+j], want)
				}
			}
		}
		r := half([]float32{0})
		if err := e.vector(&vecArgs{Op: opDot, Type: dtype.Float16, N: k, X: OnBuffer(a, 0), IncX: 1, Y: OnBuffer(b, 0), IncY: 1, Result: OnBuffer(r, 0)}); err != nil {
			t.Fatal(err)
		}
		var dot float32
		for l := range k {
			dot += A[l] * B[l]
		}
		if got := read(r, 1)[0]; got != dtype.Float16From(dtype.Float16Bits(dot)) {
			t.Errorf("%s: Dot = %v, want %v", dev.Name(), got, dot)
		}
	}
}
