package nvjitlink

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
		t.Logf("loaded %s, entry points %q, version %d.%d (%v)",
			testLib.LibraryName(), "nvJitLinkCreate"+testLib.SymbolSuffix(), major, minor, r)
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

func TestLoadSearchesExtraDirs(t *testing.T) {
	if testLoadErr == nil {
		t.Skip("a real nvJitLink loads first")
	}
	dir := t.TempDir()
	fake := filepath.Join(dir, "libnvJitLink.so.12.8.93")
	if err := os.WriteFile(fake, []byte("not ELF"), 0o644); err != nil {
		t.Fatal(err)
	}
	l, err := Load(dir)
	if err == nil {
		l.Close()
		t.Fatal("Load accepted a fake library")
	}
	if !strings.Contains(err.Error(), fake) || !strings.Contains(err.Error(), dir) {
		t.Errorf("error does not name %s: %v", fake, err)
	}
}

// TestSymbolNames checks the naming scheme of nvJitLink.h: the inline
// nvJitLinkCreate calls __nvJitLinkCreate_<major>_<minor> (CUDA 12.6's header
// uses __nvJitLinkCreate_12_6; libraries of 12.0-12.9 export
// __nvJitLinkCreate_12_0, CUDA 13's __nvJitLinkCreate_13_0).
func TestSymbolNames(t *testing.T) {
	names := symbolNames("nvJitLinkCreate")
	if names[0] != "nvJitLinkCreate" {
		t.Errorf("first name %q, want the plain name", names[0])
	}
	for _, want := range []string{"__nvJitLinkCreate_13_0", "__nvJitLinkCreate_12_6", "__nvJitLinkCreate_12_0"} {
		if !slices.Contains(names, want) {
			t.Errorf("symbolNames lacks %s", want)
		}
	}
	i13, i12 := slices.Index(names, "__nvJitLinkCreate_13_0"), slices.Index(names, "__nvJitLinkCreate_12_9")
	if i13 > i12 || slices.Index(names, "__nvJitLinkCreate_12_9") > slices.Index(names, "__nvJitLinkCreate_12_0") {
		t.Errorf("names not newest first: %v", names)
	}
	if got := exportedName("nvJitLinkAddData", "_12_0"); got != "__nvJitLinkAddData_12_0" {
		t.Errorf("exportedName = %q", got)
	}
	if got := exportedName("nvJitLinkAddData", ""); got != "nvJitLinkAddData" {
		t.Errorf("exportedName plain = %q", got)
	}
}

// TestValues checks codes against the CUDA 12.6 nvJitLink.h (read from
// github.com/zspace/system.cuda-12.6, include/nvJitLink.h) and, for results
// 10-18, the numbered enum of later headers.
func TestValues(t *testing.T) {
	for _, c := range []struct {
		name      string
		got, want int
	}{
		{"NVJITLINK_SUCCESS", int(Success), 0},
		{"NVJITLINK_ERROR_MISSING_ARCH", int(MissingArch), 2},
		{"NVJITLINK_ERROR_PTX_COMPILE", int(PTXCompile), 4},
		{"NVJITLINK_ERROR_INTERNAL", int(Internal), 6},
		{"NVJITLINK_ERROR_FINALIZE", int(Finalize), 9},
		{"NVJITLINK_ERROR_NULL_INPUT", int(NullInput), 10},
		{"NVJITLINK_ERROR_MISSING_FATBIN", int(MissingFatbin), 15},
		{"NVJITLINK_ERROR_LTO_NOT_ENABLED", int(LTONotEnabled), 18},
		{"NVJITLINK_INPUT_CUBIN", int(InputCUBIN), 1},
		{"NVJITLINK_INPUT_PTX", int(InputPTX), 2},
		{"NVJITLINK_INPUT_LTOIR", int(InputLTOIR), 3},
		{"NVJITLINK_INPUT_FATBIN", int(InputFatbin), 4},
		{"NVJITLINK_INPUT_INDEX", int(InputIndex), 7},
		{"NVJITLINK_INPUT_ANY", int(InputAny), 10},
	} {
		if c.got != c.want {
			t.Errorf("%s = %d, want %d", c.name, c.got, c.want)
		}
	}
	for _, c := range []struct {
		r    Result
		want string
	}{
		{Success, "NVJITLINK_SUCCESS"},
		{PTXCompile, "NVJITLINK_ERROR_PTX_COMPILE"},
		{Result(4), "NVJITLINK_ERROR_PTX_COMPILE"},
		{Result(77), "NVJITLINK_ERROR(77)"},
	} {
		if got := c.r.Name(); got != c.want {
			t.Errorf("Result(%d).Name() = %q, want %q", int32(c.r), got, c.want)
		}
	}
}

func TestZeroLibNeverPanics(t *testing.T) {
	var l Lib
	if l.HasInfoLog() || l.HasVersion() {
		t.Error("zero Lib reports optional entry points")
	}
	_, _, err := l.LinkPTX([]byte(".version 7.0"), "sm_80")
	var e *Error
	if !errors.As(err, &e) || e.Result != EntryPointMissing || e.Op != "nvJitLinkCreate" {
		t.Errorf("LinkPTX on a zero Lib = %v", err)
	}
	if r := l.AddData(0, InputPTX, nil, ""); r != EntryPointMissing {
		t.Errorf("AddData = %v", r)
	}
	if _, r := l.LinkedCubin(0); r != EntryPointMissing {
		t.Errorf("LinkedCubin = %v", r)
	}
}

// axpyPTX is a hand-written PTX kernel; linking it needs nvJitLink but no
// GPU.
const axpyPTX = `.version 7.0
.target sm_52
.address_size 64

.visible .entry axpy(
	.param .f32 axpy_param_0,
	.param .u64 axpy_param_1,
	.param .u64 axpy_param_2
)
{
	.reg .f32 %f<5>;
	.reg .b32 %r<2>;
	.reg .b64 %rd<8>;

	ld.param.f32 %f1, [axpy_param_0];
	ld.param.u64 %rd1, [axpy_param_1];
	ld.param.u64 %rd2, [axpy_param_2];
	mov.u32 %r1, %tid.x;
	cvta.to.global.u64 %rd3, %rd1;
	cvta.to.global.u64 %rd4, %rd2;
	mul.wide.u32 %rd5, %r1, 4;
	add.s64 %rd6, %rd3, %rd5;
	add.s64 %rd7, %rd4, %rd5;
	ld.global.f32 %f2, [%rd6];
	ld.global.f32 %f3, [%rd7];
	fma.rn.f32 %f4, %f1, %f2, %f3;
	st.global.f32 [%rd7], %f4;
	ret;
}
`

func TestLinkPTX(t *testing.T) {
	if testLoadErr != nil && testenv.IsRequired("cuda") {
		t.Fatalf("nvJitLink required (UR_REQUIRE_ADAPTERS) but not available: %v", testLoadErr)
	}
	if testLoadErr != nil {
		t.Skipf("nvJitLink not available: %v", testLoadErr)
	}
	l := testLib
	cubin, log, err := l.LinkPTX([]byte(axpyPTX), "sm_80")
	if err != nil {
		t.Fatalf("LinkPTX: %v", err)
	}
	if !bytes.HasPrefix(cubin, []byte("\x7fELF")) {
		t.Errorf("cubin (%d bytes) is not ELF", len(cubin))
	}
	t.Logf("sm_80 cubin: %d bytes, log %q", len(cubin), log)

	bad := strings.Replace(axpyPTX, "ret;", "bogus;", 1)
	_, log, err = l.LinkPTX([]byte(bad), "-arch=sm_80")
	var e *Error
	if !errors.As(err, &e) || e.Result == Success || log == "" {
		t.Errorf("LinkPTX(bad) = %v, log %q", err, log)
	} else {
		t.Logf("LinkPTX(bad): %v", err)
	}
	if _, _, err := l.LinkPTX([]byte(axpyPTX), "sm_nope"); err == nil {
		t.Error("bad arch accepted")
	}
}
