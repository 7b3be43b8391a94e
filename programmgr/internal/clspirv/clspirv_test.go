package clspirv

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gour-dev/gour/ur"
)

// EnvRequire set to 1 makes the tests that need clang and llvm-spirv fail
// where the tools are missing, instead of skipping.
const EnvRequire = "GOUR_REQUIRE_SPIRV_COMPILER"

// toolchain returns the machine's toolchain, or skips (fails under
// GOUR_REQUIRE_SPIRV_COMPILER=1).
func toolchain(t *testing.T) *Toolchain {
	t.Helper()
	tc, err := Find(nil)
	if err != nil {
		if os.Getenv(EnvRequire) == "1" {
			t.Fatalf("%s=1 and no toolchain: %v", EnvRequire, err)
		}
		t.Skipf("no OpenCL C to SPIR-V toolchain: %v", err)
	}
	return tc
}

const fillSource = `__kernel void fill_f32(__global float* out, float v, ulong n) {
	size_t i = get_global_id(0);
	if (i < n) out[i] = v;
}
`

// spirvWords checks the SPIR-V header and returns the words.
func spirvWords(t *testing.T, il []byte) []uint32 {
	t.Helper()
	if len(il) < 20 || len(il)%4 != 0 {
		t.Fatalf("%d bytes of SPIR-V", len(il))
	}
	w := make([]uint32, len(il)/4)
	for i := range w {
		w[i] = binary.LittleEndian.Uint32(il[4*i:])
	}
	if w[0] != 0x07230203 {
		t.Fatalf("magic %#x", w[0])
	}
	if w[1] != 0x00010000 {
		t.Errorf("SPIR-V version %#x, want 1.0", w[1])
	}
	return w
}

// entryPoints lists the OpEntryPoint names and the capabilities of a
// module.
func entryPoints(t *testing.T, il []byte) (names []string, caps []uint32) {
	w := spirvWords(t, il)
	for i := 5; i < len(w); {
		n, op := int(w[i]>>16), w[i]&0xffff
		if n == 0 || i+n > len(w) {
			t.Fatalf("cut instruction at word %d", i)
		}
		switch op {
		case 15: // OpEntryPoint model id name
			b := make([]byte, 0, 4*(n-3))
			for _, x := range w[i+3 : i+n] {
				b = binary.LittleEndian.AppendUint32(b, x)
			}
			names = append(names, string(b[:bytes.IndexByte(b, 0)]))
		case 17: // OpCapability
			caps = append(caps, w[i+1])
		}
		i += n
	}
	return names, caps
}

const capFloat64 = 10

func TestCompile(t *testing.T) {
	tc := toolchain(t)
	if !strings.Contains(tc.Version, "version") {
		t.Errorf("Version %q names no version", tc.Version)
	}
	il, err := tc.Compile(context.Background(), Input{Source: []byte(fillSource)})
	if err != nil {
		t.Fatal(err)
	}
	names, caps := entryPoints(t, il)
	if !slices.Equal(names, []string{"fill_f32"}) {
		t.Errorf("entry points %q", names)
	}
	if slices.Contains(caps, capFloat64) {
		t.Errorf("Float64 capability without FP64")
	}
}

// TestDivisionAndRemainder: clang's optimiser makes a freeze of a
// division and remainder of the same operands, which llvm-spirv 15
// cannot translate; the kernel still compiles.
func TestDivisionAndRemainder(t *testing.T) {
	tc := toolchain(t)
	src := `__kernel void split(__global long* out, long c) {
	long i = get_global_id(0);
	out[2 * i] = i / c;
	out[2 * i + 1] = i % c;
}
`
	il, err := tc.Compile(context.Background(), Input{Source: []byte(src)})
	if err != nil {
		t.Fatal(err)
	}
	if names, _ := entryPoints(t, il); !slices.Equal(names, []string{"split"}) {
		t.Errorf("entry points %q", names)
	}
}

// TestDefinesReachClang: a kernel that compiles only with -DGOUR_N=4 and
// -DGOUR_ON.
func TestDefinesReachClang(t *testing.T) {
	tc := toolchain(t)
	src := `#ifndef GOUR_ON
#error GOUR_ON is not defined
#endif
__kernel void k(__global int* out) { out[0] = GOUR_N; }
`
	clang, driver := SplitOptions("-DGOUR_N=4 -D GOUR_ON -cl-mad-enable -ze-opt-large-register-file")
	if want := []string{"-DGOUR_N=4", "-DGOUR_ON", "-cl-mad-enable"}; !slices.Equal(clang, want) {
		t.Errorf("clang options %q, want %q", clang, want)
	}
	if want := "-cl-mad-enable -ze-opt-large-register-file"; driver != want {
		t.Errorf("driver options %q, want %q", driver, want)
	}
	if _, err := tc.Compile(context.Background(), Input{Source: []byte(src), Args: clang}); err != nil {
		t.Fatal(err)
	}
	_, err := tc.Compile(context.Background(), Input{Source: []byte(src), Args: []string{"-DGOUR_N=4"}})
	var ce *CompileError
	if !errors.As(err, &ce) || !errors.Is(err, ur.ErrProgramBuildFailure) {
		t.Fatalf("without -DGOUR_ON: %v", err)
	}
	if !strings.Contains(ce.Log, "GOUR_ON is not defined") || !strings.Contains(ce.Log, "image.cl:2") {
		t.Errorf("log %q lacks the #error and its place", ce.Log)
	}
	if strings.Contains(ce.Log, os.TempDir()+"/gour-clspirv-") {
		t.Errorf("log %q names the temporary directory", ce.Log)
	}
	if args := strings.Join(ce.Args, " "); strings.Contains(args, "gour-clspirv-") || !strings.Contains(args, " image.cl") {
		t.Errorf("arguments %q name the temporary directory, or not the source", args)
	}
}

// TestRelativeInclude: a relative -I path is relative to the process's
// working directory, as it is for an OpenCL driver.
func TestRelativeInclude(t *testing.T) {
	tc := toolchain(t)
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "inc"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "inc", "val.h"), []byte("#define GOUR_VAL 7\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	src := "#include \"val.h\"\n__kernel void k(__global int* out) { out[0] = GOUR_VAL; }\n"
	for _, opts := range []string{"-I inc", "-Iinc"} {
		clang, _ := SplitOptions(opts)
		if _, err := tc.Compile(context.Background(), Input{Source: []byte(src), Args: clang}); err != nil {
			t.Errorf("%s: %v", opts, err)
		}
	}
}

// TestToolThatDoesNotRun: a tool found whose --version fails is a
// *ToolError wrapping ErrUnsupportedFeature, and names the tool.
func TestToolThatDoesNotRun(t *testing.T) {
	dir := t.TempDir()
	broken := filepath.Join(dir, "clang")
	if err := os.WriteFile(broken, []byte("#!/bin/sh\necho cannot load libclang >&2\nexit 3\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	_, err := Find(func(k string) string { return map[string]string{EnvClang: broken, EnvLLVMSPIRV: broken}[k] })
	var te *ToolError
	if !errors.As(err, &te) || !errors.Is(err, ur.ErrUnsupportedFeature) {
		t.Fatalf("got %v, want a *ToolError wrapping ErrUnsupportedFeature", err)
	}
	for _, want := range []string{broken, "cannot load libclang", "exit status 3"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%q does not say %q", err, want)
		}
	}
}

// TestVersionHashesTheExecutable: two tools printing the same version
// line are told apart by their executables.
func TestVersionHashesTheExecutable(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	for i, p := range []string{a, b} {
		script := "#!/bin/sh\necho fake clang version 1\n# build " + string(rune('0'+i)) + "\n"
		if err := os.WriteFile(p, []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	va, err := version(a)
	if err != nil {
		t.Fatal(err)
	}
	vb, err := version(b)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(va, "fake clang version 1") || !strings.Contains(va, "sha256 ") {
		t.Errorf("version %q lacks the version line or the hash", va)
	}
	if strings.TrimPrefix(va, "a") == strings.TrimPrefix(vb, "b") {
		t.Errorf("two executables, one identity: %q", va)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(a, link); err != nil {
		t.Fatal(err)
	}
	if vl, err := version(link); err != nil || vl != va {
		t.Errorf("through a link: %q, %v; want %q", vl, err, va)
	}
}

func TestFP64(t *testing.T) {
	tc := toolchain(t)
	src := `#pragma OPENCL EXTENSION cl_khr_fp64 : enable
__kernel void axpy_f64(double a, __global const double* x, __global double* y) {
	size_t i = get_global_id(0);
	y[i] = a * x[i] + y[i];
}
`
	il, err := tc.Compile(context.Background(), Input{Source: []byte(src), FP64: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, caps := entryPoints(t, il); !slices.Contains(caps, capFloat64) {
		t.Errorf("no Float64 capability: %v", caps)
	}
	if _, err := tc.Compile(context.Background(), Input{Source: []byte(src)}); !errors.Is(err, ur.ErrProgramBuildFailure) {
		t.Errorf("doubles without FP64: %v", err)
	}
}

func TestCompileError(t *testing.T) {
	tc := toolchain(t)
	_, err := tc.Compile(context.Background(), Input{Source: []byte("__kernel void k(__global int* p) { p[0] = undeclared; }\n")})
	var ce *CompileError
	if !errors.As(err, &ce) {
		t.Fatalf("got %v, want a *CompileError", err)
	}
	if !strings.Contains(ce.Log, "undeclared") || !strings.Contains(err.Error(), "error") {
		t.Errorf("error %q, log %q", err, ce.Log)
	}
	if ce.Tool != tc.Clang {
		t.Errorf("Tool %q, want clang %q", ce.Tool, tc.Clang)
	}
}

func TestTimeoutAndCancel(t *testing.T) {
	dir := t.TempDir()
	slow := filepath.Join(dir, "slow-clang")
	if err := os.WriteFile(slow, []byte("#!/bin/sh\nexec sleep 30\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	tc := &Toolchain{Clang: slow, LLVMSPIRV: slow, Timeout: 200 * time.Millisecond}
	start := time.Now()
	_, err := tc.Compile(context.Background(), Input{Source: []byte(fillSource)})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("timeout: %v", err)
	}
	var ce *CompileError
	if errors.As(err, &ce) {
		t.Errorf("a timeout is a *CompileError: %v", err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("took %v", d)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	tc.Timeout = 0
	if _, err := tc.Compile(ctx, Input{Source: []byte(fillSource)}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}

func TestMissingTool(t *testing.T) {
	env := map[string]string{EnvClang: "gour-no-such-clang"}
	_, err := Find(func(k string) string { return env[k] })
	var me *MissingToolError
	if !errors.As(err, &me) || !errors.Is(err, ur.ErrUnsupportedFeature) {
		t.Fatalf("got %v, want a *MissingToolError wrapping ErrUnsupportedFeature", err)
	}
	if me.Tool != "clang" || me.Env != EnvClang || !slices.Equal(me.Tried, []string{"gour-no-such-clang"}) {
		t.Errorf("%+v", me)
	}
	for _, want := range []string{"gour-no-such-clang", EnvClang, "apt-get install clang-15 llvm-spirv-15"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%q does not say %q", err, want)
		}
	}
	// Nothing on PATH: the defaults are tried, in order.
	t.Setenv("PATH", t.TempDir())
	_, err = Find(func(string) string { return "" })
	if !errors.As(err, &me) || !slices.Equal(me.Tried, DefaultClang) {
		t.Errorf("empty PATH: %v", err)
	}
	// clang found, the translator not.
	dir := t.TempDir()
	fake := filepath.Join(dir, "clang")
	if err := os.WriteFile(fake, []byte("#!/bin/sh\necho fake clang version 1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	env = map[string]string{EnvClang: fake, EnvLLVMSPIRV: filepath.Join(dir, "llvm-spirv")}
	_, err = Find(func(k string) string { return env[k] })
	if !errors.As(err, &me) || me.Tool != "llvm-spirv" || me.Env != EnvLLVMSPIRV {
		t.Errorf("missing translator: %v", err)
	}
}

func TestSplitOptions(t *testing.T) {
	for _, tc := range []struct {
		in     string
		clang  []string
		driver string
	}{
		{"", nil, ""},
		{"-DCOMPUTE_BLOCKED", []string{"-DCOMPUTE_BLOCKED"}, ""},
		{" -D  A=1 -UB -I inc -cl-std=CL2.0 -w -Werror ", []string{"-DA=1", "-UB", "-Iinc", "-cl-std=CL2.0", "-w", "-Werror"}, ""},
		{"-cl-fast-relaxed-math -ze-opt-disable", []string{"-cl-fast-relaxed-math"}, "-cl-fast-relaxed-math -ze-opt-disable"},
		{`-DMSG="a b" -gour-fake-build-error`, []string{"-DMSG=a b"}, "-gour-fake-build-error"},
		{"-D", nil, "-D"}, // no value: left to the driver to refuse
	} {
		clang, driver := SplitOptions(tc.in)
		if !slices.Equal(clang, tc.clang) || driver != tc.driver {
			t.Errorf("SplitOptions(%q) = %q, %q; want %q, %q", tc.in, clang, driver, tc.clang, tc.driver)
		}
	}
}
