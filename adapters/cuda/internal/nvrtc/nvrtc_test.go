package nvrtc

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gour-dev/gour/internal/harness/testenv"
)

var (
	testLib     *Lib
	testLoadErr error
)

func TestMain(m *testing.M) {
	testLib, testLoadErr = Load()
	os.Exit(m.Run())
}

func TestLoad(t *testing.T) {
	if testLoadErr == nil {
		major, minor, r := testLib.Version()
		t.Logf("loaded %s: NVRTC %d.%d (%v)", testLib.LibraryName(), major, minor, r)
		if r != Success || major < 11 {
			t.Errorf("Version = %d.%d, %v", major, minor, r)
		}
		return
	}
	msg := testLoadErr.Error()
	for _, want := range append(library.Names(), "/usr/local/cuda/lib64") {
		if !strings.Contains(msg, want) {
			t.Errorf("Load error %q does not name %s", msg, want)
		}
	}
	t.Logf("Load (expected without a toolkit): %v", testLoadErr)
}

// TestLoadSearchesExtraDirs plants files that look like NVRTC libraries but
// are not: Load must try them (newest version first) and name them in its
// error, without panicking.
func TestLoadSearchesExtraDirs(t *testing.T) {
	if testLoadErr == nil {
		t.Skip("a real NVRTC loads first")
	}
	dir := t.TempDir()
	t.Setenv("CUDA_HOME", "")
	t.Setenv("CUDA_PATH", "")
	for _, n := range []string{"libnvrtc.so.12", "libnvrtc.so.12.8.93", "libnvrtc.so.13.0.48", "libnvrtc-builtins.so.12"} {
		if err := os.WriteFile(filepath.Join(dir, n), []byte("not ELF"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	l, err := Load(dir)
	if err == nil {
		l.Close()
		t.Fatal("Load accepted a fake library")
	}
	msg := err.Error()
	for _, n := range []string{"libnvrtc.so.12", "libnvrtc.so.12.8.93", "libnvrtc.so.13.0.48"} {
		if !strings.Contains(msg, filepath.Join(dir, n)) {
			t.Errorf("error does not name %s: %s", n, msg)
		}
	}
	if strings.Contains(msg, "builtins") {
		t.Errorf("error names libnvrtc-builtins: %s", msg)
	}

	got := library.Candidates([]string{dir})
	var inDir []string
	for _, c := range got {
		if strings.HasPrefix(c, dir) {
			inDir = append(inDir, filepath.Base(c))
		}
	}
	want := []string{"libnvrtc.so.12", "libnvrtc.so.13.0.48", "libnvrtc.so.12.8.93"}
	if !slices.Equal(inDir, want) {
		t.Errorf("candidates in dir = %v, want %v", inDir, want)
	}
}

func TestResultName(t *testing.T) {
	for _, c := range []struct {
		r    Result
		want string
	}{
		{Success, "NVRTC_SUCCESS"},
		{InvalidOption, "NVRTC_ERROR_INVALID_OPTION"},
		{Compilation, "NVRTC_ERROR_COMPILATION"},
		{InternalError, "NVRTC_ERROR_INTERNAL_ERROR"},
		{Result(6), "NVRTC_ERROR_COMPILATION"},
		{Result(99), "NVRTC_ERROR(99)"},
		{EntryPointMissing, "NVRTC_ENTRY_POINT_MISSING"},
	} {
		if got := c.r.Name(); got != c.want {
			t.Errorf("Result(%d).Name() = %q, want %q", int32(c.r), got, c.want)
		}
	}
}

// TestResultValues checks the codes against the CUDA 12.6 nvrtc.h (read
// from github.com/zspace/system.cuda-12.6, include/nvrtc.h, enum
// nvrtcResult) and, for 13-16, the CUDA 12.8 header.
func TestResultValues(t *testing.T) {
	want := []Result{Success, OutOfMemory, ProgramCreationFailure, InvalidInput, InvalidProgram,
		InvalidOption, Compilation, BuiltinOperationFailure, NoNameExpressionsAfterCompilation,
		NoLoweredNamesBeforeCompilation, NameExpressionNotValid, InternalError, TimeFileWriteFailed,
		NoPCHCreateAttempted, PCHCreateHeapExhausted, PCHCreate, Cancelled}
	for i, r := range want {
		if int(r) != i {
			t.Errorf("%s = %d, want %d", r.Name(), int32(r), i)
		}
	}
}

func TestRealArch(t *testing.T) {
	for _, c := range []struct {
		opts []string
		want bool
	}{
		{nil, false},
		{[]string{"-arch=compute_80"}, false},
		{[]string{"-arch=sm_80"}, true},
		{[]string{"--gpu-architecture=sm_90a"}, true},
		{[]string{"-arch", "sm_75"}, true},
		{[]string{"--gpu-architecture", "compute_75"}, false},
		{[]string{"-arch"}, false},
		{[]string{"-architecture=sm_80"}, false},
		{[]string{"--std=c++17", "-DX=sm_80"}, false},
	} {
		if got := RealArch(c.opts); got != c.want {
			t.Errorf("RealArch(%q) = %v, want %v", c.opts, got, c.want)
		}
	}
}

func TestZeroLibNeverPanics(t *testing.T) {
	var l Lib
	if l.HasCUBIN() || l.HasNameExpressions() {
		t.Error("zero Lib reports optional entry points")
	}
	if _, _, r := l.Version(); r != EntryPointMissing {
		t.Errorf("Version = %v", r)
	}
	if _, _, _, err := l.Compile("x", "x.cu", nil); err == nil {
		t.Error("Compile on a zero Lib succeeded")
	} else {
		var e *Error
		if !errors.As(err, &e) || e.Result != EntryPointMissing {
			t.Errorf("Compile error = %v", err)
		}
	}
	if _, r := l.CUBIN(0); r != EntryPointMissing {
		t.Errorf("CUBIN = %v", r)
	}
	if _, r := l.GetLoweredName(0, "&k"); r != EntryPointMissing {
		t.Errorf("GetLoweredName = %v", r)
	}
	if got := l.GetErrorString(Compilation); got != "NVRTC_ERROR_COMPILATION" {
		t.Errorf("GetErrorString fallback = %q", got)
	}
}

// Tests below need NVRTC; they skip without it. None needs a GPU. They use
// sm_80/compute_80, which CUDA 12 and 13 both accept (13 dropped sm_70).

const saxpy = `
extern "C" __global__ void saxpy(float a, const float* x, float* y, unsigned n) {
	unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) y[i] = a * x[i] + y[i];
}

template <typename T> __global__ void scale(T* p, T s) { p[threadIdx.x] *= s; }
`

// needNVRTC skips without NVRTC, or fails where UR_REQUIRE_ADAPTERS
// names cuda (the GPU machine, which has the toolkit).
func needNVRTC(t *testing.T) *Lib {
	t.Helper()
	if testLoadErr != nil && testenv.IsRequired("cuda") {
		t.Fatalf("NVRTC required (UR_REQUIRE_ADAPTERS) but not available: %v", testLoadErr)
	}
	if testLoadErr != nil {
		t.Skipf("NVRTC not available: %v", testLoadErr)
	}
	return testLib
}

func TestCompilePTX(t *testing.T) {
	l := needNVRTC(t)
	ptx, cubin, log, err := l.Compile(saxpy, "saxpy.cu", []string{"-arch=compute_80", "--std=c++17"})
	if err != nil {
		t.Fatalf("Compile: %v", err)
	}
	if cubin != nil {
		t.Errorf("virtual architecture gave a %d-byte cubin", len(cubin))
	}
	if !bytes.Contains(ptx, []byte(".entry saxpy")) || bytes.HasSuffix(ptx, []byte{0}) {
		t.Errorf("PTX lacks saxpy or ends in NUL:\n%s", ptx)
	}
	t.Logf("%d bytes of PTX, log %q", len(ptx), log)
	if got := l.GetErrorString(Compilation); got == "" {
		t.Error("GetErrorString empty")
	}
}

func TestCompileCubin(t *testing.T) {
	l := needNVRTC(t)
	if !l.HasCUBIN() {
		t.Skip("no nvrtcGetCUBIN")
	}
	ptx, cubin, _, err := l.Compile(saxpy, "saxpy.cu", []string{"-arch=sm_80"})
	if err != nil {
		t.Fatalf("Compile: %v", err)
	}
	if !bytes.HasPrefix(cubin, []byte("\x7fELF")) {
		t.Errorf("cubin (%d bytes) is not ELF", len(cubin))
	}
	t.Logf("sm_80: %d bytes of cubin, %d of PTX", len(cubin), len(ptx))
}

func TestCompileError(t *testing.T) {
	l := needNVRTC(t)
	_, _, log, err := l.Compile(`__global__ void k() { undeclared = 1; }`, "bad.cu", nil)
	var e *Error
	if !errors.As(err, &e) || e.Result != Compilation {
		t.Fatalf("Compile(bad) error = %v, want NVRTC_ERROR_COMPILATION", err)
	}
	if !strings.Contains(log, "undeclared") || e.Log != log {
		t.Errorf("log = %q", log)
	}
	if _, _, _, err := l.Compile(saxpy, "x.cu", []string{"--no-such-option"}); err == nil {
		t.Error("bad option accepted")
	} else {
		t.Logf("bad option: %v", err)
	}
}

func TestLoweredName(t *testing.T) {
	l := needNVRTC(t)
	if !l.HasNameExpressions() {
		t.Skip("no name expressions")
	}
	p, r := l.CreateProgram(saxpy, "saxpy.cu")
	if r != Success {
		t.Fatalf("CreateProgram: %v", r)
	}
	defer l.DestroyProgram(p)
	if r := l.AddNameExpression(p, "&scale<float>"); r != Success {
		t.Fatalf("AddNameExpression: %v", r)
	}
	if _, r := l.GetLoweredName(p, "&scale<float>"); r != NoLoweredNamesBeforeCompilation {
		t.Errorf("GetLoweredName before compiling = %v", r)
	}
	if r := l.CompileProgram(p, []string{"-arch=compute_80"}); r != Success {
		log, _ := l.ProgramLog(p)
		t.Fatalf("CompileProgram: %v\n%s", r, log)
	}
	name, r := l.GetLoweredName(p, "&scale<float>")
	if r != Success || !strings.HasPrefix(name, "_Z") {
		t.Errorf("GetLoweredName = %q, %v", name, r)
	}
	ptx, _ := l.PTX(p)
	if !bytes.Contains(ptx, []byte(name)) {
		t.Errorf("PTX does not define %s", name)
	}
}
