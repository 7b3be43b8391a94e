package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gour-dev/gour/adapters/cuda/nvrtc"
	"github.com/gour-dev/gour/bundle"
	"github.com/gour-dev/gour/internal/harness/testenv"
)

const testdata = "../../conformance/testdata/"

// urpack runs the command and returns its exit status and output.
func urpack(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = run(args, &out, &errOut)
	return code, out.String(), errOut.String()
}

// buildSample builds a bundle of the conformance kernels with tools that
// are never there, so that only what needs no tool goes in.
func buildSample(t *testing.T, extra ...string) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), "k.urb")
	cubin := filepath.Join(t.TempDir(), "k.cubin")
	if err := os.WriteFile(cubin, []byte("\x7fELF not really a cubin"), 0o644); err != nil {
		t.Fatal(err)
	}
	args := append([]string{"build", "-o", out, "-q", "-skip-missing", "-no-nvrtc", "-nvcc", "/nonexistent/nvcc", "-cuda-arch", "sm_80,sm_90", "-kernels", "axpy,iota",
		testdata + "opencl/kernels.cl", testdata + "cuda/kernels.cu", testdata + "spirv/kernels.spv", testdata + "spirv/kernels_fp64.spv",
		testdata + "cuda/kernels.ptx", cubin + "=sm_90"}, extra...)
	if code, _, stderr := urpack(t, args...); code != 0 {
		t.Fatalf("urpack %s: exit %d\n%s", strings.Join(args, " "), code, stderr)
	}
	return out
}

func TestBuildAndInspect(t *testing.T) {
	path := buildSample(t, "-spec", "3:BLOCK:uint32=256")
	code, stdout, stderr := urpack(t, "inspect", "--json", path)
	if code != 0 {
		t.Fatalf("inspect: exit %d: %s", code, stderr)
	}
	var got struct {
		Kernels []string
		Images  []imageJSON
	}
	if err := json.Unmarshal([]byte(stdout), &got); err != nil {
		t.Fatal(err)
	}
	var images []string
	for _, im := range got.Images {
		images = append(images, im.Format+" "+im.Backend+":"+im.Arch+" "+strings.Join(im.Aspects, "+")+" "+strings.Join(im.Kernels, ","))
	}
	want := []string{
		"opencl-c opencl:  add_one,axpy,fill_u32,group_sum,index2d,index3d,iota,local_ids,scalars,scale",
		"opencl-c opencl: fp64 axpy_f64",
		"cuda-c cuda: fp64 add_one,axpy,axpy_f64,fill_u32,group_sum,index2d,index3d,iota,local_ids,scalars,scale",
		"spir-v :  add_one,axpy,fill_u32,group_sum,index2d,index3d,iota,local_ids,scalars,scale",
		"spir-v : fp64 add_one,axpy,axpy_f64,fill_u32,group_sum,index2d,index3d,iota,local_ids,scalars,scale",
		"ptx cuda:compute_52  add_one,fill_u32,iota",
		"native cuda:sm_90  axpy,iota",
	}
	if strings.Join(images, "\n") != strings.Join(want, "\n") {
		t.Errorf("images:\n%s\nwant\n%s", strings.Join(images, "\n"), strings.Join(want, "\n"))
	}
	if sc := got.Images[0].SpecConstants; len(sc) != 1 || sc[0].Name != "BLOCK" || sc[0].Default != "256" || sc[0].Size != 4 {
		t.Errorf("spec constants of the OpenCL C image: %+v", sc)
	}
	code, stdout, _ = urpack(t, "inspect", path)
	if code != 0 || !strings.Contains(stdout, "image 1: opencl-c opencl, 3412 bytes") || !strings.Contains(stdout, "spec constant: 3 BLOCK uint32 = 256") {
		t.Errorf("inspect: exit %d\n%s", code, stdout)
	}
}

func TestBuildIsDeterministic(t *testing.T) {
	a, err := os.ReadFile(buildSample(t))
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(buildSample(t))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a, b) {
		t.Error("two builds from the same inputs differ")
	}
}

func TestBuildSplitModes(t *testing.T) {
	out := filepath.Join(t.TempDir(), "m.urb")
	code, _, stderr := urpack(t, "build", "-o", out, "-split", "module",
		"-module", "basic=axpy,iota,fill_u32,add_one", "-module", "other=axpy_f64,group_sum,index2d,index3d,local_ids,scalars,scale",
		"-aspects", "scale=int64_atomics", testdata+"opencl/kernels.cl")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stderr, "11 kernels in 4 parts (split module)") {
		t.Errorf("progress: %s", stderr)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	b, err := bundle.Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, im := range b.Images {
		got = append(got, im.Properties.Aspects.String()+":"+strings.Join(im.Kernels, ","))
	}
	want := "none:add_one,axpy,fill_u32,iota none:group_sum,index2d,index3d,local_ids,scalars fp64:axpy_f64 int64_atomics:scale"
	if strings.Join(got, " ") != want {
		t.Errorf("images %s, want %s", strings.Join(got, " "), want)
	}
}

// TestSelectOnPoCL runs select through discovery on the OpenCL devices.
func TestSelectOnPoCL(t *testing.T) {
	testenv.MustHaveDevice(t, "opencl")
	path := buildSample(t)
	code, stdout, stderr := urpack(t, "select", "--device", "opencl:cpu", "--verbose", path)
	if code != 0 {
		t.Fatalf("select: exit %d: %s", code, stderr)
	}
	for _, want := range []string{
		"seen as opencl:",
		"add_one axpy fill_u32 group_sum index2d index3d iota local_ids scalars scale: image 0 (opencl-c opencl), source compiled at run time",
		"not image 3 (spir-v any): the device takes no SPIR-V",
		"not image 5 (ptx cuda:compute_52): for cuda, the device is opencl",
		"axpy_f64: image 1 (opencl-c opencl), source compiled at run time",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("select printed no %q:\n%s", want, stdout)
		}
	}
	code, stdout, _ = urpack(t, "select", "--json", "--kernel", "axpy", "--device", "opencl:cpu", path)
	var got []deviceJSON
	if err := json.Unmarshal([]byte(stdout), &got); code != 0 || err != nil || len(got) == 0 || got[0].Choices[0].Image != 0 || len(got[0].Choices) != 1 {
		t.Errorf("select --json: exit %d, %v\n%s", code, err, stdout)
	}
}

func TestExitStatuses(t *testing.T) {
	good, err := os.ReadFile(buildSample(t))
	if err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(t.TempDir(), "bad.urb")
	if err := os.WriteFile(bad, good[:len(good)-10], 0o644); err != nil { // truncated
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "k.urb")
	for _, tc := range []struct {
		args   []string
		code   int
		stdout string
		stderr string
	}{
		{[]string{"-h"}, 0, "usage: urpack COMMAND", ""},
		{[]string{"help"}, 0, "commands:", ""},
		{[]string{"build", "-h"}, 0, "usage: urpack build -o OUT [flags] INPUT...", ""},
		{[]string{"inspect", "--help"}, 0, "usage: urpack inspect", ""},
		{[]string{"select", "-h"}, 0, "-device SELECTOR", ""},
		{nil, 2, "", "usage: urpack COMMAND"},
		{[]string{"frobnicate"}, 2, "", `urpack: unknown command "frobnicate"`},
		{[]string{"build", testdata + "opencl/kernels.cl"}, 2, "", "urpack build: -o is required\nrun 'urpack build -h' for usage"},
		{[]string{"build", "-o", out}, 2, "", "no input"},
		{[]string{"build", "-o", out, "-split", "halves", "x.cl"}, 2, "", `unknown split mode "halves"`},
		{[]string{"build", "-o", out, "-spec", "3:BLOCK:uint33=1", "x.cl"}, 2, "", `-spec "3:BLOCK:uint33=1"`},
		{[]string{"build", "-o", out, "-spec", "3:BLOCK:int=1", "x.cl"}, 2, "", `unknown kind "int"`},
		{[]string{"build", "-o", out, "-spec", "3:BLOCK:uint8=300", "x.cl"}, 2, "", `default "300" is not a uint8: value out of range`},
		{[]string{"build", "-o", out, "-cuda-arch", "90", "x.cu"}, 2, "", `"90" is not sm_XY`},
		{[]string{"build", "-o", out, "x.txt"}, 2, "", `unknown extension ".txt"`},
		{[]string{"build", "-o", out, "k.bin=level_zero:0x0bd5"}, 2, "", "name them with -kernels"},
		{[]string{"build", "-o", out, "-kernels", "k", "k.bin=hip:gfx90a"}, 2, "", `unknown backend "hip"`},
		{[]string{"build", "-o", out, "-no-nvrtc", "-nvcc", "/nonexistent/nvcc", "-cuda-arch", "sm_90", testdata + "cuda/kernels.cu"}, 1, "",
			"cannot build cuda:sm_90 from " + testdata + "cuda/kernels.cu: /nonexistent/nvcc not found"},
		{[]string{"build", "-o", out, "-spirv", "-llvm-spirv", "/nonexistent/llvm-spirv", "-clang", "/nonexistent/clang", testdata + "opencl/kernels.cl"}, 1, "", "/nonexistent/clang not found"},
		{[]string{"build", "-o", out, "missing.cl"}, 1, "", "missing.cl: no such file"},
		{[]string{"inspect", bad}, 1, "", "UR_RESULT_ERROR_INVALID_BINARY: not a valid bundle: offset 16 (header, length): truncated"},
		{[]string{"inspect"}, 2, "", "want one bundle, got 0 arguments"},
		{[]string{"select", "--device", "bogus:::", out}, 2, "", "urpack select: the -device flag: "},
	} {
		code, stdout, stderr := urpack(t, tc.args...)
		if code != tc.code || !strings.Contains(stdout, tc.stdout) || !strings.Contains(stderr, tc.stderr) {
			t.Errorf("urpack %q: exit %d\nstdout: %s\nstderr: %s\nwant exit %d, stdout with %q, stderr with %q", tc.args, code, stdout, stderr, tc.code, tc.stdout, tc.stderr)
		}
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("a failed build left %s behind (%v)", out, err)
	}
}

// TestBuildCUDAWithNVRTC: without nvcc, CUDA C is compiled by NVRTC where
// it loads; where it does not (CI), the build fails naming both, or with
// -skip-missing keeps the source alone.
func TestBuildCUDAWithNVRTC(t *testing.T) {
	out := filepath.Join(t.TempDir(), "k.urb")
	args := []string{"build", "-o", out, "-nvcc", "/nonexistent/nvcc", "-cuda-arch", "sm_80,sm_90", testdata + "cuda/kernels.cu"}
	code, _, stderr := urpack(t, args...)
	if err := nvrtc.Available(); err != nil {
		if code != 1 || !strings.Contains(stderr, "/nonexistent/nvcc (or NVRTC) not found") || !strings.Contains(stderr, "NVRTC is not available") {
			t.Fatalf("without nvcc and NVRTC: exit %d\n%s", code, stderr)
		}
		code, _, stderr = urpack(t, append(args, "-skip-missing")...)
		if code != 0 || strings.Count(stderr, "warning: skipped") != 3 {
			t.Fatalf("-skip-missing: exit %d, want 0 and three targets skipped\n%s", code, stderr)
		}
	} else if code != 0 || strings.Count(stderr, ": NVRTC -arch=") != 3 {
		t.Fatalf("with NVRTC: exit %d, want 0 and three NVRTC compiles\n%s", code, stderr)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	b, err := bundle.Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, im := range b.Images {
		got = append(got, im.Format.String()+" "+im.Target.String())
	}
	want := "cuda-c cuda"
	if nvrtc.Available() == nil {
		want = "native cuda:sm_80, native cuda:sm_90, ptx cuda:compute_80, cuda-c cuda"
	}
	if strings.Join(got, ", ") != want {
		t.Errorf("images: %s; want %s", strings.Join(got, ", "), want)
	}
}
