package bundle

import (
	"encoding/binary"
	"errors"
	"os/exec"
	"strings"
	"testing"

	"github.com/gour-dev/gour/ur"
)

// mixedCL has kernels that need nothing, fp64 through a typedef, a helper
// and a macro, 64-bit atomics, sub-groups and a required sub-group size.
const mixedCL = `// A comment naming double, which does not count.
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#define SCALE(x) ((x) * 2.0f)
#define TWICE_D(x) ((double)(x) * 2)
typedef double real;
typedef float4 vec;
struct pair { double a; double b; };
enum mode { MODE_A, MODE_B };
constant float table[2] = {1.0f, 2.0f};

double dhelp(double x);
float fhelp(float x) { return SCALE(x) + table[MODE_A]; }
double dhelp(double x) { return x * x; }

__kernel void plain(__global float *out) { out[0] = fhelp(1.0f); }
__kernel void uses_helper(__global float *out) { out[0] = (float)dhelp(2.0); }
__kernel void uses_typedef(__global real *out) { out[0] = 1; }
__kernel void uses_macro(__global float *out) { out[0] = (float)TWICE_D(out[0]); }
__kernel void uses_struct(__global struct pair *p) { p->a = 0; }
kernel void counts(__global ulong *c) { atom_add(c, 1UL); }
__kernel void plain_too(__global uint *out) { out[0] = "double"[0]; }
__kernel __attribute__((intel_reqd_sub_group_size(16))) void shuffles(__global uint *out) {
	out[0] = sub_group_reduce_add(out[get_sub_group_local_id()]);
}
`

func TestAnalyzeOpenCLC(t *testing.T) {
	a, err := Analyze(FormatOpenCLC, []byte(mixedCL))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"plain": "none", "plain_too": "none", "uses_helper": "fp64", "uses_typedef": "fp64",
		"uses_macro": "fp64", "uses_struct": "fp64", "counts": "int64_atomics", "shuffles": "sub_groups",
	}
	if len(a.Kernels) != len(want) {
		t.Errorf("kernels %v, want %d", a.Kernels, len(want))
	}
	for _, k := range a.Kernels {
		if k.Aspects.String() != want[k.Name] {
			t.Errorf("kernel %s: aspects %s, want %s", k.Name, k.Aspects, want[k.Name])
		}
	}
	if k, _ := a.Kernel("shuffles"); len(k.SubGroupSizes) != 1 || k.SubGroupSizes[0] != 16 {
		t.Errorf("shuffles requires sub-group sizes %v, want [16]", k.SubGroupSizes)
	}
}

func TestSplitModes(t *testing.T) {
	a, err := Analyze(FormatOpenCLC, []byte(mixedCL))
	if err != nil {
		t.Fatal(err)
	}
	names := func(parts []Part) string {
		var s []string
		for _, p := range parts {
			s = append(s, p.Name+"="+strings.Join(p.Kernels, ","))
		}
		return strings.Join(s, " ")
	}
	for _, tc := range []struct {
		opts SplitOptions
		want string
	}{
		{SplitOptions{}, "default=plain,plain_too fp64=uses_helper,uses_macro,uses_struct,uses_typedef int64_atomics=counts sub_groups.sg16=shuffles"},
		{SplitOptions{Mode: SplitPerKernel}, "counts=counts plain=plain plain_too=plain_too shuffles=shuffles uses_helper=uses_helper uses_macro=uses_macro uses_struct=uses_struct uses_typedef=uses_typedef"},
		{SplitOptions{Mode: SplitPerModule, Modules: []Module{
			{"math", []string{"plain", "uses_helper", "uses_typedef"}},
			{"rest", []string{"plain_too", "uses_macro", "uses_struct", "counts", "shuffles"}},
		}}, "math.default=plain math.fp64=uses_helper,uses_typedef rest.default=plain_too rest.fp64=uses_macro,uses_struct rest.int64_atomics=counts rest.sub_groups.sg16=shuffles"},
		{SplitOptions{Mode: SplitPerModule, Modules: []Module{{"all", []string{"plain", "plain_too"}}, {"f", []string{"uses_helper", "uses_typedef", "uses_macro", "uses_struct", "counts", "shuffles"}}},
			Aspects: map[string]Aspects{"counts": AspectFP64, "shuffles": AspectFP64}}, "all=plain,plain_too f.fp64=counts,uses_helper,uses_macro,uses_struct,uses_typedef f.fp64.sg16=shuffles"},
	} {
		parts, err := a.Split(tc.opts)
		if err != nil {
			t.Errorf("Split(%v) = %v", tc.opts.Mode, err)
			continue
		}
		if got := names(parts); got != tc.want {
			t.Errorf("Split(%v):\n got %s\nwant %s", tc.opts.Mode, got, tc.want)
		}
	}
	for _, tc := range []struct {
		opts SplitOptions
		says string
	}{
		{SplitOptions{Mode: SplitPerModule, Modules: []Module{{"m", []string{"plain"}}}}, `are in no module`},
		{SplitOptions{Mode: SplitPerModule, Modules: []Module{{"m", []string{"plain"}}, {"n", []string{"plain"}}}}, `kernel "plain" is in modules "m" and "n"`},
		{SplitOptions{Mode: SplitPerModule, Modules: []Module{{"m", []string{"nope"}}}}, `module "m" names kernel "nope"`},
		{SplitOptions{Aspects: map[string]Aspects{"nope": AspectFP64}}, `aspects given for kernel "nope"`},
	} {
		if _, err := a.Split(tc.opts); !errors.Is(err, ur.ErrInvalidValue) || !strings.Contains(err.Error(), tc.says) {
			t.Errorf("Split = %v, want ur.ErrInvalidValue saying %q", err, tc.says)
		}
	}
}

// TestSplitCutsFP64 checks what the image for devices without fp64 keeps:
// no double anywhere but in directives and comments, the same line count,
// and every kernel that needs no more than it.
func TestSplitCutsFP64(t *testing.T) {
	a, err := Analyze(FormatOpenCLC, []byte(mixedCL))
	if err != nil {
		t.Fatal(err)
	}
	parts, err := a.Split(SplitOptions{})
	if err != nil {
		t.Fatal(err)
	}
	def := string(parts[0].Code)
	for _, gone := range []string{"typedef double", "struct pair", "double dhelp", "uses_helper", "uses_typedef", "uses_struct", "uses_macro"} {
		if strings.Contains(def, gone) {
			t.Errorf("the default part still holds %q", gone)
		}
	}
	for _, kept := range []string{"#define TWICE_D", "typedef float4 vec;", "enum mode", "constant float table", "float fhelp", "void plain(", "void plain_too("} {
		if !strings.Contains(def, kept) {
			t.Errorf("the default part lost %q", kept)
		}
	}
	if strings.Count(def, "\n") != strings.Count(mixedCL, "\n") {
		t.Errorf("the default part has %d lines, the source %d", strings.Count(def, "\n"), strings.Count(mixedCL, "\n"))
	}
	if fp64 := string(parts[1].Code); fp64 == def || !strings.Contains(fp64, "typedef double real;") {
		t.Errorf("the fp64 part lost its typedef")
	}
	// Where clang is installed, it checks that the default part compiles for
	// a device without fp64 (the whole source does not).
	clang, err := exec.LookPath("clang-15")
	if err != nil {
		t.Log("clang-15 not installed: the default part is not compiled")
		return
	}
	compile := func(src string) error {
		cmd := exec.Command(clang, "-fsyntax-only", "-target", "spir64", "-x", "cl", "-cl-std=CL1.2", "-Xclang", "-cl-ext=-cl_khr_fp64,-cl_khr_int64_base_atomics", "-")
		cmd.Stdin = strings.NewReader(src)
		out, err := cmd.CombinedOutput()
		if err != nil {
			return errors.New(string(out))
		}
		return nil
	}
	if err := compile(def); err != nil {
		t.Errorf("the default part does not compile without fp64:\n%v", err)
	}
	if compile(mixedCL) == nil {
		t.Errorf("the whole source compiles without fp64: the test shows nothing")
	}
}

func TestAnalyzeSPIRV(t *testing.T) {
	for _, tc := range []struct {
		path    string
		aspects Aspects
	}{{spirvKernels, 0}, {spirvFP64, AspectFP64}} {
		a, err := Analyze(FormatSPIRV, readFile(t, tc.path))
		if err != nil {
			t.Fatal(err)
		}
		if a.SPIRVVersion != "1.0" || len(a.Kernels) < 10 {
			t.Errorf("%s: SPIR-V %s, kernels %v", tc.path, a.SPIRVVersion, a.Kernels)
		}
		for _, k := range a.Kernels {
			if k.Aspects != tc.aspects {
				t.Errorf("%s: kernel %s aspects %s, want %s", tc.path, k.Name, k.Aspects, tc.aspects)
			}
		}
	}
	if _, err := Analyze(FormatSPIRV, []byte("not SPIR-V at all")); !errors.Is(err, ur.ErrInvalidBinary) {
		t.Errorf("Analyze(garbage) = %v, want ur.ErrInvalidBinary", err)
	}
}

// TestAnalyzeSPIRVSpecConstants reads a hand-assembled module: a kernel,
// Float64 and Int64Atomics, sub-group size 8, and two specialization
// constants (a named 32-bit int, an unnamed bool).
func TestAnalyzeSPIRVSpecConstants(t *testing.T) {
	str := func(s string) []uint32 {
		b := append([]byte(s), make([]byte, 4-len(s)%4)...)
		w := make([]uint32, len(b)/4)
		for i := range w {
			w[i] = binary.LittleEndian.Uint32(b[4*i:])
		}
		return w
	}
	ins := func(op uint32, args ...uint32) []uint32 {
		return append([]uint32{uint32(len(args)+1)<<16 | op}, args...)
	}
	words := []uint32{spirvMagic, 0x00010200, 0, 100, 0}
	words = append(words, ins(opCapability, 10)...)
	words = append(words, ins(opCapability, 12)...)
	words = append(words, ins(opEntryPoint, append([]uint32{execModelKernel, 1}, str("scan")...)...)...)
	words = append(words, ins(opExecutionMode, 1, execModeSubgroup, 8)...)
	words = append(words, ins(opName, append([]uint32{5}, str("BLOCK")...)...)...)
	words = append(words, ins(opDecorate, 5, decorationSpecID, 3)...)
	words = append(words, ins(opDecorate, 6, decorationSpecID, 1)...)
	words = append(words, ins(opTypeInt, 2, 32, 0)...)
	words = append(words, ins(opTypeBool, 4)...)
	words = append(words, ins(opSpecConstant, 2, 5, 256)...)
	words = append(words, ins(opSpecConstTrue, 4, 6)...)
	code := make([]byte, 4*len(words))
	for i, w := range words {
		binary.LittleEndian.PutUint32(code[4*i:], w)
	}
	a, err := Analyze(FormatSPIRV, code)
	if err != nil {
		t.Fatal(err)
	}
	k, ok := a.Kernel("scan")
	if !ok || k.Aspects != AspectFP64|AspectInt64Atomics || len(k.SubGroupSizes) != 1 || k.SubGroupSizes[0] != 8 || a.SPIRVVersion != "1.2" {
		t.Errorf("Analyze = %+v, version %s", a.Kernels, a.SPIRVVersion)
	}
	want := []SpecConstant{{ID: 1, Kind: SpecBool, Default: []byte{1}}, {ID: 3, Name: "BLOCK", Kind: SpecUint, Default: []byte{0, 1, 0, 0}}}
	if len(a.SpecConstants) != 2 || a.SpecConstants[0].String() != want[0].String() || a.SpecConstants[1].String() != want[1].String() {
		t.Errorf("spec constants %v, want %v", a.SpecConstants, want)
	}
	// A word count running past the end is refused.
	if _, err := Analyze(FormatSPIRV, code[:len(code)-4]); !errors.Is(err, ur.ErrInvalidBinary) {
		t.Errorf("Analyze(truncated) = %v, want ur.ErrInvalidBinary", err)
	}
}

func TestAnalyzePTX(t *testing.T) {
	a, err := Analyze(FormatPTX, readFile(t, ptxKernels))
	if err != nil {
		t.Fatal(err)
	}
	if a.PTXTarget != "compute_52" || len(a.Kernels) != 3 || a.Kernels[0].Name != "add_one" || a.Kernels[0].Aspects != 0 {
		t.Errorf("Analyze(kernels.ptx) = %s %+v", a.PTXTarget, a.Kernels)
	}
	const ptx = `.version 7.0
.target sm_80
.address_size 64
.func (.param .f64 r) square(.param .f64 x)
{
	.reg .f64 %fd<3>;
	mul.f64 %fd2, %fd1, %fd1;
	ret;
}
.visible .entry calls_square(.param .u64 p)
{
	call.uni (retval0), square, (param0);
	ret;
}
.visible .entry counts(.param .u64 p)
{
	atom.global.add.u64 %rd2, [%rd1], 1;
	ret;
}
.visible .entry plain(.param .u64 p)
{
	// mul.f64 in a comment does not count
	ret;
}
`
	a, err = Analyze(FormatPTX, []byte(ptx))
	if err != nil {
		t.Fatal(err)
	}
	got := ""
	for _, k := range a.Kernels {
		got += k.Name + ":" + k.Aspects.String() + " "
	}
	if want := "calls_square:fp64 counts:int64_atomics plain:none "; got != want || a.PTXTarget != "compute_80" {
		t.Errorf("Analyze(PTX) = %s%s, want %s", got, a.PTXTarget, want)
	}
	if _, err := Analyze(FormatNative, []byte("cubin")); !errors.Is(err, ur.ErrInvalidValue) {
		t.Errorf("Analyze(native) = %v, want ur.ErrInvalidValue", err)
	}
}

func TestParseNames(t *testing.T) {
	if a, err := ParseAspects("fp64+int64_atomics"); err != nil || a != AspectFP64|AspectInt64Atomics || a.String() != "fp64+int64_atomics" {
		t.Errorf("ParseAspects = %v, %v", a, err)
	}
	if _, err := ParseAspects("fp128"); !errors.Is(err, ur.ErrInvalidValue) || !strings.Contains(err.Error(), `unknown aspect "fp128"`) {
		t.Errorf("ParseAspects(fp128) = %v", err)
	}
	for f := FormatOpenCLC; f <= FormatNative; f++ {
		if g, err := ParseFormat(f.String()); err != nil || g != f {
			t.Errorf("ParseFormat(%s) = %v, %v", f, g, err)
		}
	}
	if m, err := ParseSplitMode("module"); err != nil || m != SplitPerModule {
		t.Errorf("ParseSplitMode = %v, %v", m, err)
	}
}
