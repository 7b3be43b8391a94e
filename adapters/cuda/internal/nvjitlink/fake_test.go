package nvjitlink

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/gour-dev/gour/internal/nvlib/toolkittest"
)

// loadFake builds testdata/fake_nvjitlink.c into a library and loads it as
// Load would: the binding's every call then runs through internal/dl on a
// machine without a CUDA toolkit.
func loadFake(t *testing.T) *Lib {
	t.Helper()
	l, err := load(toolkittest.StandIn(t, "testdata/fake_nvjitlink.c", "libnvJitLink.so.12"), nil)
	if err != nil {
		t.Fatalf("Load of the stand-in library: %v", err)
	}
	t.Cleanup(func() { l.Close() })
	return l
}

// TestCallsThroughStandIn: the versioned entry points are found and every
// call passes its arguments and takes its outputs as the C API says.
func TestCallsThroughStandIn(t *testing.T) {
	l := loadFake(t)
	if l.SymbolSuffix() != "_12_0" {
		t.Errorf("SymbolSuffix = %q, want _12_0", l.SymbolSuffix())
	}
	if l.HasInfoLog() || !l.HasVersion() {
		t.Errorf("HasInfoLog = %v, HasVersion = %v; the stand-in has only the version", l.HasInfoLog(), l.HasVersion())
	}
	if major, minor, r := l.Version(); major != 12 || minor != 8 || r != Success {
		t.Errorf("Version = %d.%d, %v", major, minor, r)
	}
	ptx := []byte(axpyPTX) // without its NUL: AddData adds one
	cubin, log, err := l.LinkPTX(ptx, "sm_80")
	if err != nil {
		t.Fatalf("LinkPTX: %v", err)
	}
	if want := append([]byte("\x7fELF"), append(ptx, 0)...); !bytes.Equal(cubin, want) || log != "" {
		t.Errorf("LinkPTX = %d bytes %q..., log %q; want the ELF magic, then the PTX with its NUL", len(cubin), cubin[:min(8, len(cubin))], log)
	}

	_, log, err = l.LinkPTX([]byte(strings.Replace(axpyPTX, "ret;", "bogus;", 1)), "-arch=sm_80")
	var e *Error
	if !errors.As(err, &e) || e.Result != PTXCompile || e.Op != "nvJitLinkComplete" || !strings.Contains(log, "bogus") {
		t.Errorf("LinkPTX(bogus) = %v, log %q; want NVJITLINK_ERROR_PTX_COMPILE with the error log", err, log)
	}
	if _, _, err := l.LinkPTX(ptx, "sm_nope"); !errors.As(err, &e) || e.Result != MissingArch {
		t.Errorf("LinkPTX(sm_nope) = %v, want NVJITLINK_ERROR_MISSING_ARCH", err)
	}

	h, r := l.Create([]string{"-arch=sm_90"})
	if r != Success || h == 0 {
		t.Fatalf("Create = %#x, %v", h, r)
	}
	if r := l.AddData(h, InputPTX, nil, "empty.ptx"); r != InvalidInput {
		t.Errorf("AddData(empty) = %v, want NVJITLINK_ERROR_INVALID_INPUT without a call", r)
	}
	if r := l.GetLinkedCubin(h, nil); r != InvalidInput {
		t.Errorf("GetLinkedCubin(nil buffer) = %v, want NVJITLINK_ERROR_INVALID_INPUT without a call", r)
	}
	if _, r := l.InfoLog(h); r != EntryPointMissing {
		t.Errorf("InfoLog = %v, want NVJITLINK_ENTRY_POINT_MISSING", r)
	}
	if r := l.Destroy(h); r != Success {
		t.Errorf("Destroy = %v", r)
	}
}
