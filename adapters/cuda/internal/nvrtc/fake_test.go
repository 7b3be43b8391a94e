package nvrtc

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/gour-dev/gour/internal/nvlib/toolkittest"
)

// loadFake builds testdata/fake_nvrtc.c into a library and loads it as
// Load would: the binding's every call then runs through internal/dl on a
// machine without a CUDA toolkit.
func loadFake(t *testing.T) *Lib {
	t.Helper()
	l, err := load(toolkittest.StandIn(t, "testdata/fake_nvrtc.c", "libnvrtc.so.12"), nil)
	if err != nil {
		t.Fatalf("Load of the stand-in library: %v", err)
	}
	t.Cleanup(func() { l.Close() })
	return l
}

// TestCallsThroughStandIn: every call passes its arguments (strings, the
// option array) and takes its outputs (sizes, handles, a C string) as the
// C API says.
func TestCallsThroughStandIn(t *testing.T) {
	l := loadFake(t)
	if l.HasCUBIN() || !l.HasNameExpressions() {
		t.Errorf("HasCUBIN = %v, HasNameExpressions = %v; the stand-in has only name expressions", l.HasCUBIN(), l.HasNameExpressions())
	}
	if major, minor, r := l.Version(); major != 12 || minor != 8 || r != Success {
		t.Errorf("Version = %d.%d, %v", major, minor, r)
	}
	if got := l.GetErrorString(Compilation); got != "NVRTC_ERROR_COMPILATION (stand-in)" {
		t.Errorf("GetErrorString = %q", got)
	}
	ptx, cubin, log, err := l.Compile(saxpy, "saxpy.cu", []string{"-arch=sm_80", "--std=c++17"})
	if err != nil {
		t.Fatalf("Compile: %v", err)
	}
	want := "// saxpy.cu\n// -arch=sm_80 --std=c++17\n" + saxpy
	if string(ptx) != want || cubin != nil || log != "" {
		t.Errorf("Compile = PTX %q, %d bytes of cubin, log %q; want PTX %q and no cubin without nvrtcGetCUBIN", ptx, len(cubin), log, want)
	}
	if ptx, _, _, err := l.Compile("x", "", nil); err != nil || !bytes.HasPrefix(ptx, []byte("// default_program\n//\n")) {
		t.Errorf("Compile without a name or options = %q, %v", ptx, err)
	}

	_, _, log, err = l.Compile(`__global__ void k() { undeclared = 1; }`, "bad.cu", nil)
	var e *Error
	if !errors.As(err, &e) || e.Result != Compilation || !strings.Contains(log, `"undeclared" is undefined`) || e.Log != log {
		t.Errorf("Compile(bad) = %v, log %q; want NVRTC_ERROR_COMPILATION with the log", err, log)
	}

	p, r := l.CreateProgram(saxpy, "saxpy.cu")
	if r != Success || p == 0 {
		t.Fatalf("CreateProgram = %#x, %v", p, r)
	}
	if r := l.AddNameExpression(p, "&scale<float>"); r != Success {
		t.Errorf("AddNameExpression = %v", r)
	}
	if _, r := l.GetLoweredName(p, "&scale<float>"); r != NoLoweredNamesBeforeCompilation {
		t.Errorf("GetLoweredName before compiling = %v", r)
	}
	if r := l.CompileProgram(p, nil); r != Success {
		t.Fatalf("CompileProgram = %v", r)
	}
	if name, r := l.GetLoweredName(p, "&scale<float>"); name != "_Z5scaleIfEvPT_S0_" || r != Success {
		t.Errorf("GetLoweredName = %q, %v", name, r)
	}
	if r := l.GetPTX(p, nil); r != InvalidInput {
		t.Errorf("GetPTX(nil buffer) = %v, want NVRTC_ERROR_INVALID_INPUT without a call", r)
	}
	if _, r := l.CUBIN(p); r != EntryPointMissing {
		t.Errorf("CUBIN = %v, want NVRTC_ENTRY_POINT_MISSING", r)
	}
	if r := l.DestroyProgram(p); r != Success {
		t.Errorf("DestroyProgram = %v", r)
	}
}
