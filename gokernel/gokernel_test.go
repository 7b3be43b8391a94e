package gokernel_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	_ "github.com/gour-dev/gour/adapters/all"
	"github.com/gour-dev/gour/compute"
	"github.com/gour-dev/gour/gokernel"
	"github.com/gour-dev/gour/gokernel/internal/testkernels"
	"github.com/gour-dev/gour/gokernel/kern"
	"github.com/gour-dev/gour/internal/testenv"
	"github.com/gour-dev/gour/programmgr"
	"github.com/gour-dev/gour/ur"
)

const kernelsFile = "internal/testkernels/kernels.go"

func compileTestKernels(t *testing.T) *gokernel.Module {
	t.Helper()
	src, err := os.ReadFile(kernelsFile)
	if err != nil {
		t.Fatal(err)
	}
	m, err := gokernel.Compile([]gokernel.File{{Name: kernelsFile, Src: src}})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// The generated module is what Compile makes of kernels.go today: an
// edit without go generate is found here.
func TestGeneratedModuleIsFresh(t *testing.T) {
	m := compileTestKernels(t)
	g := testkernels.Module
	if m.Hash != g.Hash || m.OpenCL != g.OpenCL || m.CUDA != g.CUDA || fmt.Sprint(m.Kernels) != fmt.Sprint(g.Kernels) ||
		m.DebugOpenCL != g.DebugOpenCL || m.DebugCUDA != g.DebugCUDA || fmt.Sprint(m.DebugSites) != fmt.Sprint(g.DebugSites) {
		t.Fatalf("zz_kernels.go is stale: run go generate ./gokernel/...")
	}
}

// Go's constant rules: x*0.5 + 1 in float32 code is float32 in C.
func TestConstantsStayFloat32(t *testing.T) {
	m := testkernels.Module
	for _, src := range []string{m.OpenCL, m.CUDA} {
		if !strings.Contains(src, "0.5f") || strings.Contains(src, "double") {
			t.Errorf("float32 kernel code should have 0.5f and no double:\n%s", src)
		}
	}
	if m.FP64 {
		t.Error("a module of float32 kernels needs fp64")
	}
}

func TestCompileRefuses(t *testing.T) {
	for _, c := range []struct {
		name, body string
		want       []string
	}{
		{"closure", "f := func() {}; f()", []string{"kernels.go:7:", "closures"}},
		{"goroutine", "go other(it)", []string{"kernels.go:7:", "goroutines"}},
		{"defer", "defer other(it)", []string{"defer"}},
		{"map", "m := map[int]int{}; _ = m", []string{"composite literals"}},
		{"string", `s := "x"; _ = s`, []string{"string"}},
		{"math", "x[0] = float32(math.Sqrt(2))", []string{"math.Sqrt is float64", "kern.Sqrt"}},
		{"package var", "x[0] = global", []string{"package variable global"}},
		{"slicing", "y := x[1:]; _ = y", []string{"slicing"}},
		{"dynamic shared", "n := len(x); s := kern.Shared[float32](it, n); _ = s", []string{"constant"}},
		{"type error", "x[0] = undefined", []string{"undefined"}},
		{"dimension", "x[0] = float32(it.GlobalID(len(x)))", []string{"constant 0, 1 or 2"}},
		{"recursion", "x[0] = float32(fact(3))", []string{"fact calls itself", "recursion"}},
	} {
		src := "package k\n\nimport (\"math\"; \"github.com/gour-dev/gour/gokernel/kern\")\n\nvar global float32\nfunc K(it kern.Item, x []float32) {\n" +
			c.body + "\n}\nfunc other(it kern.Item) {}\nvar _ = math.Pi\nfunc fact(n int) int { if n < 2 { return 1 }; return n * fact(n-1) }\n"
		_, err := gokernel.Compile([]gokernel.File{{Name: "kernels.go", Src: []byte(src)}}, "K")
		var ce *gokernel.CompileError
		if !errors.As(err, &ce) {
			t.Errorf("%s: %v, want a *CompileError", c.name, err)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: %q lacks %q", c.name, err, w)
			}
		}
	}
	_, err := gokernel.Compile([]gokernel.File{{Name: "k.go", Src: []byte("package k\nfunc F(x []float32) {}\n")}}, "F")
	if err == nil || !strings.Contains(err.Error(), "kern.Item") {
		t.Errorf("a kernel without kern.Item: %v", err)
	}
}

// inputs are the test kernels' inputs and the CPU's results.
type inputs struct {
	x, y     []float32
	a        float32
	groups   int
	sums     []float32
	hist     []int32
	vals     []int32
	wrapped  []int32
	rows     int
	cols     int
	matrix   []float32
	trans    []float32
	softmaxd []float32
}

const n = 4096

func newInputs() *inputs {
	in := &inputs{a: 2, x: make([]float32, n), y: make([]float32, n), groups: n / 64, vals: make([]int32, n), rows: 48, cols: 80}
	for i := range n {
		in.x[i] = float32(i%97) * 0.25
		in.y[i] = float32(i % 13)
		in.vals[i] = int32(i*7919) % 16
		if i%3 == 0 {
			in.vals[i] = int32(i) * 1000003
		}
	}
	in.matrix = make([]float32, in.rows*in.cols)
	for i := range in.matrix {
		in.matrix[i] = float32(i%31) * 0.125
	}
	return in
}

// runCPU computes every kernel's result on the CPU.
func (in *inputs) runCPU(t *testing.T) {
	y := append([]float32(nil), in.y...)
	must(t, gokernel.RunCPU(ur.Range1D(n), func(it kern.Item) { testkernels.Axpy(it, in.a, in.x, y) }))
	in.y = y
	in.sums = make([]float32, in.groups)
	must(t, gokernel.RunCPU(ur.Range1D(n).WithLocal(64), func(it kern.Item) { testkernels.GroupSum(it, in.x, in.sums) }))
	byCall := make([]float32, in.groups)
	must(t, gokernel.RunCPU(ur.Range1D(n).WithLocal(64), func(it kern.Item) { testkernels.GroupSumByCall(it, in.x, byCall) }))
	for g := range byCall {
		if byCall[g] != in.sums[g] {
			t.Fatalf("GroupSumByCall[%d] = %v on the CPU, GroupSum's %v", g, byCall[g], in.sums[g])
		}
	}
	in.hist = make([]int32, 16)
	small := in.small()
	must(t, gokernel.RunCPU(ur.Range1D(n), func(it kern.Item) { testkernels.Histogram(it, small, in.hist) }))
	in.wrapped = make([]int32, n)
	must(t, gokernel.RunCPU(ur.Range1D(n), func(it kern.Item) { testkernels.Wrap(it, in.vals, in.wrapped) }))
	in.trans = make([]float32, len(in.matrix))
	must(t, gokernel.RunCPU(ur.Range2D(uint64(in.cols), uint64(in.rows)), func(it kern.Item) {
		testkernels.Transpose(it, in.matrix, in.trans, int32(in.rows), int32(in.cols))
	}))
	in.softmaxd = append([]float32(nil), in.matrix...)
	must(t, gokernel.RunCPU(ur.Range1D(uint64(in.rows)), func(it kern.Item) { testkernels.Softmax(it, in.softmaxd, in.cols) }))
}

// small is vals reduced to histogram bins.
func (in *inputs) small() []int32 {
	s := make([]int32, n)
	for i, v := range in.vals {
		s[i] = (v%16 + 16) % 16
	}
	return s
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// The CPU run is the Go function run as Go: its results are Go's.
func TestRunCPU(t *testing.T) {
	in := newInputs()
	y0 := append([]float32(nil), in.y...)
	in.runCPU(t)
	for i := range n {
		if want := y0[i] + in.a*in.x[i]; in.y[i] != want {
			t.Fatalf("Axpy y[%d] = %v, want %v", i, in.y[i], want)
		}
	}
	for g := range in.groups {
		var want float32
		for _, v := range in.x[g*64 : g*64+64] {
			want += v
		}
		if math.Abs(float64(in.sums[g]-want)) > 1e-3 {
			t.Fatalf("GroupSum[%d] = %v, want %v", g, in.sums[g], want)
		}
	}
	var total int32
	for _, c := range in.hist {
		total += c
	}
	if total != n {
		t.Errorf("Histogram counts %d values, want %d", total, n)
	}
	if in.trans[1*in.rows+2] != in.matrix[2*in.cols+1] {
		t.Error("Transpose moved the wrong element")
	}
}

// A kernel's panic is an error naming the work-item, and a work-group
// whose work-item panicked does not hang at its barrier.
func TestRunCPUPanic(t *testing.T) {
	x := make([]float32, 100) // GroupSum reads x[GlobalID], past the end
	err := gokernel.RunCPU(ur.Range1D(128).WithLocal(64), func(it kern.Item) { testkernels.GroupSum(it, x, make([]float32, 2)) })
	if err == nil || !strings.Contains(err.Error(), "panicked") || !strings.Contains(err.Error(), "out of range") {
		t.Errorf("RunCPU of an out-of-range read: %v", err)
	}
	if err := gokernel.RunCPU(ur.Range1D(100).WithLocal(64), func(kern.Item) {}); !errors.Is(err, ur.ErrInvalidWorkGroupSize) {
		t.Errorf("global size not a multiple of the local: %v", err)
	}
}

// The race detector finds the missing barrier: the test re-runs its own
// binary, built with -race, on the racy kernel, and reads the report;
// the kernel with its barrier passes in the same binary (TestRunCPU).
func TestRaceFindsMissingBarrier(t *testing.T) {
	if os.Getenv("GOKERNEL_RACY") == "1" {
		x := make([]float32, 256)
		gokernel.RunCPU(ur.Range1D(256).WithLocal(64), func(it kern.Item) { testkernels.GroupSumNoBarrier(it, x, make([]float32, 4)) })
		return
	}
	if !raceEnabled {
		t.Skip("needs -race (make test runs it)")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestRaceFindsMissingBarrier$", "-test.count=1")
	cmd.Env = append(os.Environ(), "GOKERNEL_RACY=1")
	out, _ := cmd.CombinedOutput()
	if !strings.Contains(string(out), "WARNING: DATA RACE") || !strings.Contains(string(out), "GroupSumNoBarrier") {
		t.Errorf("the race detector did not report the missing barrier:\n%s", out)
	}
}

// Every kernel runs on every device and agrees with its CPU run.
func TestDevices(t *testing.T) {
	in := newInputs()
	y0 := append([]float32(nil), in.y...)
	in.runCPU(t)
	ran := 0
	for _, dev := range testenv.Devices(t) {
		if dev.Backend() == "level_zero" {
			continue // the test driver runs only its own kernels: TestBuildLevelZero
		}
		ran++
		t.Run(dev.Name(), func(t *testing.T) {
			ctx, q := testenv.ContextQueue(t, dev)
			mgr, err := programmgr.New(ctx, programmgr.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer mgr.Close()
			k := func(name string) *gokernel.Kernel {
				k, err := testkernels.Module.Kernel(context.Background(), mgr, dev, name)
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { k.Release() })
				return k
			}
			buf := func(data []byte) *ur.Mem {
				m, err := ctx.NewBufferFrom(ur.MemReadWrite, data)
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { m.Release() })
				return m
			}
			read := func(m *ur.Mem, dst []byte) {
				t.Helper()
				must(t, q.ReadBuffer(m, 0, dst))
			}
			x, y := buf(ur.AsBytes(in.x)), buf(ur.AsBytes(y0))
			must(t, k("Axpy").Launch(q, ur.Range1D(n), gokernel.Value(in.a), gokernel.Buffer[float32](x, n), gokernel.Buffer[float32](y, n)))
			gotY := make([]float32, n)
			read(y, ur.AsBytes(gotY))
			checkF32(t, "Axpy", gotY, in.y, 0)

			sums := buf(make([]byte, 4*in.groups))
			must(t, k("GroupSum").Launch(q, ur.Range1D(n).WithLocal(64), gokernel.Buffer[float32](x, n), gokernel.Buffer[float32](sums, in.groups)))
			gotS := make([]float32, in.groups)
			read(sums, ur.AsBytes(gotS))
			checkF32(t, "GroupSum", gotS, in.sums, 1e-4)
			must(t, k("GroupSumByCall").Launch(q, ur.Range1D(n).WithLocal(64), gokernel.Buffer[float32](x, n), gokernel.Buffer[float32](sums, in.groups)))
			read(sums, ur.AsBytes(gotS))
			checkF32(t, "GroupSumByCall", gotS, in.sums, 1e-4)

			vals, counts := buf(ur.AsBytes(in.small())), buf(make([]byte, 4*16))
			must(t, k("Histogram").Launch(q, ur.Range1D(n), gokernel.Buffer[int32](vals, n), gokernel.Buffer[int32](counts, 16)))
			gotH := make([]int32, 16)
			read(counts, ur.AsBytes(gotH))
			checkI32(t, "Histogram", gotH, in.hist)

			raw, wrapped := buf(ur.AsBytes(in.vals)), buf(make([]byte, 4*n))
			must(t, k("Wrap").Launch(q, ur.Range1D(n), gokernel.Buffer[int32](raw, n), gokernel.Buffer[int32](wrapped, n)))
			gotW := make([]int32, n)
			read(wrapped, ur.AsBytes(gotW))
			checkI32(t, "Wrap", gotW, in.wrapped)

			mat, tr := buf(ur.AsBytes(in.matrix)), buf(make([]byte, 4*len(in.matrix)))
			must(t, k("Transpose").Launch(q, ur.Range2D(uint64(in.cols), uint64(in.rows)), gokernel.Buffer[float32](mat, len(in.matrix)),
				gokernel.Buffer[float32](tr, len(in.matrix)), gokernel.Value(int32(in.rows)), gokernel.Value(int32(in.cols))))
			gotT := make([]float32, len(in.matrix))
			read(tr, ur.AsBytes(gotT))
			checkF32(t, "Transpose", gotT, in.trans, 0)

			sm := buf(ur.AsBytes(in.matrix))
			must(t, k("Softmax").Launch(q, ur.Range1D(uint64(in.rows)), gokernel.Buffer[float32](sm, len(in.matrix)), gokernel.Value(in.cols)))
			gotM := make([]float32, len(in.matrix))
			read(sm, ur.AsBytes(gotM))
			checkF32(t, "Softmax", gotM, in.softmaxd, 1e-5)

			// 64-bit and bitwise atomics, against the CPU run.
			words := make([]uint32, n)
			for i := range words {
				words[i] = uint32(i*2654435761) >> 8
			}
			cpuTotal, cpuBits := make([]int64, 1), make([]uint32, 1)
			must(t, gokernel.RunCPU(ur.Range1D(n), func(it kern.Item) { testkernels.Totals(it, words, cpuTotal, cpuBits) }))
			tot, bits := buf(make([]byte, 8)), buf(make([]byte, 4))
			must(t, k("Totals").Launch(q, ur.Range1D(n), gokernel.Buffer[uint32](buf(ur.AsBytes(words)), n), gokernel.Buffer[int64](tot, 1), gokernel.Buffer[uint32](bits, 1)))
			gotTot, gotBits := make([]int64, 1), make([]uint32, 1)
			read(tot, ur.AsBytes(gotTot))
			read(bits, ur.AsBytes(gotBits))
			if gotTot[0] != cpuTotal[0] || gotBits[0] != cpuBits[0] || cpuTotal[0] <= 1<<32 {
				t.Errorf("Totals: %d and %#x on the device, %d and %#x on the CPU", gotTot[0], gotBits[0], cpuTotal[0], cpuBits[0])
			}

			// One generic device function, two instantiations.
			tx, ty := buf(ur.AsBytes([]float32{1.5, -2})), buf(ur.AsBytes([]int32{1 << 30, -7}))
			must(t, k("Twice").Launch(q, ur.Range1D(2), gokernel.Buffer[float32](tx, 2), gokernel.Buffer[int32](ty, 2)))
			gx, gy := make([]float32, 2), make([]int32, 2)
			read(tx, ur.AsBytes(gx))
			read(ty, ur.AsBytes(gy))
			if fmt.Sprint(gx, gy) != "[3 -4] [-2147483648 -14]" {
				t.Errorf("Twice: %v %v, want [3 -4] [-2147483648 -14] (int32 wraps)", gx, gy)
			}

			// A kernel calling a device function that takes the Item.
			idx := buf(make([]byte, 4*n))
			must(t, k("Index").Launch(q, ur.Range1D(n), gokernel.Buffer[int32](idx, n)))
			gotI := make([]int32, n)
			read(idx, ur.AsBytes(gotI))
			for i, v := range gotI {
				if v != int32(i) {
					t.Fatalf("Index[%d] = %d", i, v)
				}
			}

			// The generated launch function: typed arguments, and the kernel
			// it is given checked.
			must(t, testkernels.LaunchAxpy(k("Axpy"), q, ur.Range1D(n), 0, gokernel.BufferSlice[float32](x, n), gokernel.BufferSlice[float32](y, n)))
			if err := testkernels.LaunchAxpy(k("Scale"), q, ur.Range1D(n), 0, gokernel.BufferSlice[float32](x, n), gokernel.BufferSlice[float32](y, n)); !errors.Is(err, gokernel.ErrArgs) {
				t.Errorf("LaunchAxpy given Scale: %v", err)
			}

			// Arguments that do not fit: nothing is launched.
			err = k("Axpy").Launch(q, ur.Range1D(n), gokernel.Value(2.0), gokernel.Buffer[float32](x, n), gokernel.Buffer[float32](y, n))
			if !errors.Is(err, gokernel.ErrArgs) || !errors.Is(err, ur.ErrInvalidKernelArgs) || !strings.Contains(err.Error(), "argument 0 (a) is float64, want float32") {
				t.Errorf("Axpy with a float64: %v", err)
			}
			if err := k("Axpy").Launch(q, ur.Range1D(n), gokernel.Value(in.a)); !errors.Is(err, gokernel.ErrArgs) {
				t.Errorf("Axpy with one argument: %v", err)
			}
			if _, err := testkernels.Module.Kernel(context.Background(), mgr, dev, "Nope"); !errors.Is(err, ur.ErrInvalidKernelName) {
				t.Errorf("an unknown kernel: %v", err)
			}
		})
	}
	if ran == 0 {
		t.Skip("no device that runs kernels of its own (the Level Zero test driver's are checked by TestBuildLevelZero)")
	}
}

// On Level Zero the module's OpenCL C is compiled to SPIR-V and built
// into a module (over the test driver, which then runs only its own
// kernels: there is no Intel GPU here).
func TestBuildLevelZero(t *testing.T) {
	var devs []*ur.Device
	for _, d := range testenv.Devices(t) {
		if d.Backend() == "level_zero" {
			devs = append(devs, d)
		}
	}
	if len(devs) == 0 {
		t.Skip("no Level Zero device")
	}
	for _, dev := range devs {
		ctx, _ := testenv.ContextQueue(t, dev)
		mgr, err := programmgr.New(ctx, programmgr.Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer mgr.Close()
		// A device without 64-bit atomics refuses the module whose Totals
		// uses them, naming the aspect; the kernels without them build.
		m := testkernels.Module
		if ok, err := dev.QueryBool(ur.DeviceInfoAtomic64); err == nil && !ok {
			err := m.Build(context.Background(), mgr, dev)
			if !errors.Is(err, ur.ErrUnsupportedFeature) || !strings.Contains(err.Error(), "atomic64") {
				t.Errorf("%s: the module with 64-bit atomics: %v", dev.Name(), err)
			}
			src, err := os.ReadFile(kernelsFile)
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, k := range m.Kernels {
				if k.Name != "Totals" {
					names = append(names, k.Name)
				}
			}
			if m, err = gokernel.Compile([]gokernel.File{{Name: kernelsFile, Src: src}}, names...); err != nil {
				t.Fatal(err)
			}
		}
		if err := m.Build(context.Background(), mgr, dev); err != nil {
			t.Fatalf("%s: %v", dev.Name(), err)
		}
	}
}

func checkF32(t *testing.T, what string, got, want []float32, tol float64) {
	t.Helper()
	for i := range want {
		if d := math.Abs(float64(got[i] - want[i])); d > tol*math.Max(1, math.Abs(float64(want[i]))) {
			t.Fatalf("%s[%d] = %v on the device, %v on the CPU", what, i, got[i], want[i])
		}
	}
}

func checkI32(t *testing.T, what string, got, want []int32) {
	t.Helper()
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("%s[%d] = %d on the device, %d on the CPU", what, i, got[i], want[i])
		}
	}
}

// cudaShim declares what the generated CUDA C takes from CUDA, so that a
// host C++ compiler checks it where there is no NVRTC (the kernels are
// not run).
const cudaShim = `#include <cmath>
#include <cstring>
static inline float __uint_as_float(unsigned u) { float f; std::memcpy(&f, &u, 4); return f; }
static inline unsigned __float_as_uint(float f) { unsigned u; std::memcpy(&u, &f, 4); return u; }
struct gx_dim { unsigned x, y, z; };
static gx_dim blockIdx, blockDim, threadIdx, gridDim;
#define __global__
#define __device__
#define __shared__ static
static inline void __syncthreads() {}
static inline int atomicAdd(int* p, int v) { int o = *p; *p += v; return o; }
static inline unsigned atomicAdd(unsigned* p, unsigned v) { unsigned o = *p; *p += v; return o; }
static inline float atomicAdd(float* p, float v) { float o = *p; *p += v; return o; }
static inline float rsqrtf(float x) { return 1 / std::sqrt(x); }
static inline unsigned long long atomicAdd(unsigned long long* p, unsigned long long v) { unsigned long long o = *p; *p += v; return o; }
static inline unsigned atomicOr(unsigned* p, unsigned v) { unsigned o = *p; *p |= v; return o; }
static inline unsigned atomicAnd(unsigned* p, unsigned v) { unsigned o = *p; *p &= v; return o; }
static inline unsigned atomicXor(unsigned* p, unsigned v) { unsigned o = *p; *p ^= v; return o; }
static inline unsigned long long atomicCAS(unsigned long long* p, unsigned long long c, unsigned long long v) { unsigned long long o = *p; if (o == c) *p = v; return o; }
`

// The generated CUDA C (of the test kernels and of examples/gokernels)
// compiles, syntax only, with the host's C++ compiler: a generator's slip
// fails here, not first on a GPU machine.
func TestCUDASyntax(t *testing.T) {
	cxx := testenv.CXX(t)
	example, err := os.ReadFile("../examples/gokernels/kernels.go")
	if err != nil {
		t.Fatal(err)
	}
	em, err := gokernel.Compile([]gokernel.File{{Name: "kernels.go", Src: example}})
	if err != nil {
		t.Fatal(err)
	}
	for name, src := range map[string]string{"plain": testkernels.Module.CUDA, "debug": testkernels.Module.DebugCUDA, "example": em.CUDA, "example-debug": em.DebugCUDA} {
		path := filepath.Join(t.TempDir(), name+".cpp")
		if err := os.WriteFile(path, []byte(cudaShim+src), 0o600); err != nil {
			t.Fatal(err)
		}
		if out, err := exec.Command(cxx, "-std=c++17", "-fsyntax-only", path).CombinedOutput(); err != nil {
			t.Errorf("%s: %v\n%s", name, err, out)
		}
	}
}

// BenchmarkLaunch is a Go kernel's launch over 1,024 elements on each
// device: Kernel.Launch's checks, then ur's launch (the prepared launch
// from the third on); the queue finished after the loop.
func BenchmarkLaunch(b *testing.B) {
	for _, dev := range testenv.Devices(b) {
		if dev.Backend() == "level_zero" {
			continue
		}
		b.Run(dev.Backend()+"/"+dev.Name(), func(b *testing.B) {
			ctx, q := testenv.ContextQueue(b, dev)
			mgr, err := programmgr.New(ctx, programmgr.Options{})
			if err != nil {
				b.Fatal(err)
			}
			defer mgr.Close()
			k, err := testkernels.Module.Kernel(context.Background(), mgr, dev, "Axpy")
			if err != nil {
				b.Fatal(err)
			}
			defer k.Release()
			const n = 1024
			x, err := ctx.NewBuffer(ur.MemReadWrite, 4*n)
			if err != nil {
				b.Fatal(err)
			}
			defer x.Release()
			y, err := ctx.NewBuffer(ur.MemReadWrite, 4*n)
			if err != nil {
				b.Fatal(err)
			}
			defer y.Release()
			a, xs, ys := gokernel.Value(float32(2)), gokernel.Buffer[float32](x, n), gokernel.Buffer[float32](y, n)
			b.ReportAllocs()
			for b.Loop() {
				if err := k.Launch(q, ur.Range1D(n), a, xs, ys); err != nil {
					b.Fatal(err)
				}
			}
			if err := q.Finish(); err != nil {
				b.Fatal(err)
			}
		})
	}
}

// A compute.Array is passed where the kernel takes a slice, and stays
// the array's: Out leaves the device copy the valid one, read back by
// ToSlice.
func TestComputeArrayArgument(t *testing.T) {
	for _, dev := range testenv.Devices(t) {
		if dev.Backend() == "level_zero" {
			continue
		}
		d, err := compute.NewDevice(dev)
		if err != nil {
			t.Fatal(err)
		}
		defer d.Release()
		_, _, q := d.UR()
		x, err := compute.FromSlice(d, []float32{1, 2, 3, 4})
		if err != nil {
			t.Fatal(err)
		}
		defer x.Release()
		y, err := compute.FromSlice(d, []float32{10, 20, 30, 40})
		if err != nil {
			t.Fatal(err)
		}
		defer y.Release()
		k, err := testkernels.Module.Kernel(context.Background(), d.Manager(), dev, "Axpy")
		if err != nil {
			t.Fatal(err)
		}
		defer k.Release()
		xa, err := gokernel.Array(x, compute.In)
		if err != nil {
			t.Fatal(err)
		}
		ya, err := gokernel.Array(y, compute.InOut)
		if err != nil {
			t.Fatal(err)
		}
		if err := k.Launch(q, ur.Range1D(4), gokernel.Value(float32(3)), xa, ya); err != nil {
			t.Fatal(err)
		}
		got, err := y.ToSlice()
		if err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(got) != "[13 26 39 52]" {
			t.Errorf("%s: y = %v, want [13 26 39 52]", dev.Name(), got)
		}
		i32, err := compute.FromSlice(d, []int32{1})
		if err != nil {
			t.Fatal(err)
		}
		defer i32.Release()
		ia, err := gokernel.Array(i32, compute.In)
		if err != nil {
			t.Fatal(err)
		}
		if err := k.Launch(q, ur.Range1D(4), gokernel.Value(float32(3)), ia, ya); !errors.Is(err, gokernel.ErrArgs) {
			t.Errorf("an int32 array for a float32 slice: %v", err)
		}
	}
}

// The debug variant reports an index out of range with the kernel and
// its place, and launches that stay in range run as the plain kernel.
func TestDebugKernel(t *testing.T) {
	for _, dev := range testenv.Devices(t) {
		if dev.Backend() == "level_zero" {
			continue
		}
		t.Run(dev.Name(), func(t *testing.T) {
			ctx, q := testenv.ContextQueue(t, dev)
			mgr, err := programmgr.New(ctx, programmgr.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer mgr.Close()
			k, err := testkernels.Module.DebugKernel(context.Background(), mgr, dev, "GroupSum")
			if err != nil {
				t.Fatal(err)
			}
			defer k.Release()
			x, err := ctx.NewBufferFrom(ur.MemReadWrite, make([]byte, 4*128))
			if err != nil {
				t.Fatal(err)
			}
			defer x.Release()
			sums, err := ctx.NewBufferFrom(ur.MemReadWrite, make([]byte, 4*2))
			if err != nil {
				t.Fatal(err)
			}
			defer sums.Release()
			if err := k.Launch(q, ur.Range1D(128).WithLocal(64), gokernel.Buffer[float32](x, 128), gokernel.Buffer[float32](sums, 2)); err != nil {
				t.Fatalf("in range: %v", err)
			}
			// x said to hold 100 elements: work-items 100 to 127 read past it.
			err = k.Launch(q, ur.Range1D(128).WithLocal(64), gokernel.Buffer[float32](x, 100), gokernel.Buffer[float32](sums, 2))
			var ie *gokernel.IndexError
			if !errors.As(err, &ie) || ie.Kernel != "GroupSum" || ie.Pos != "kernels.go:33:12" || ie.Len != 100 || ie.Index < 100 || ie.Index > 127 {
				t.Fatalf("out of range: %v", err)
			}
			// The record is reset: the next launch in range is clean.
			if err := k.Launch(q, ur.Range1D(128).WithLocal(64), gokernel.Buffer[float32](x, 128), gokernel.Buffer[float32](sums, 2)); err != nil {
				t.Fatalf("in range after a failure: %v", err)
			}
		})
	}
}
