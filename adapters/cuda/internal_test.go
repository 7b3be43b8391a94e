package cuda

import (
	"errors"
	"testing"

	"github.com/gour-dev/gour/ur/driver"
)

// TestCUDACWithoutNVRTCIsUnsupported needs no GPU: an adapter whose NVRTC
// failed to load refuses CUDA C with UNSUPPORTED_FEATURE and the reason.
func TestCUDACWithoutNVRTCIsUnsupported(t *testing.T) {
	a := &adapter{}
	a.nvrtcOnce.Do(func() {})
	a.nvrtcErr = errors.New("cannot load libnvrtc.so: not found")
	c := &context{dev: &device{a: a}}
	_, err := c.NewProgramFromSource(`extern "C" __global__ void k() {}`)
	var e *driver.Error
	if !errors.As(err, &e) || e.Result != driver.ResultUnsupportedFeature {
		t.Fatalf("NewProgramFromSource without NVRTC: %v, want UNSUPPORTED_FEATURE", err)
	}
	if !errors.Is(err, driver.ResultUnsupportedFeature) {
		t.Error("errors.Is(err, UNSUPPORTED_FEATURE) is false")
	}
}

func TestNotPTXIsRefused(t *testing.T) {
	c := &context{dev: &device{a: &adapter{}}}
	if _, err := c.NewProgramFromIL([]byte("\x03\x02\x23\x07 SPIR-V words")); !errors.Is(err, driver.ResultInvalidBinary) {
		t.Errorf("NewProgramFromIL(SPIR-V) = %v, want INVALID_BINARY", err)
	}
	if _, err := c.NewProgramFromBinaries(nil, [][]byte{[]byte("garbage, not ELF")}); !errors.Is(err, driver.ResultInvalidBinary) {
		t.Errorf("NewProgramFromBinaries(garbage) = %v, want INVALID_BINARY", err)
	}
}

func TestJITOptions(t *testing.T) {
	opts, err := jitOptions("-O2 -lineinfo")
	if err != nil || len(opts) != 2 || opts[0].Value != 2 {
		t.Errorf("jitOptions(-O2 -lineinfo) = %v, %v", opts, err)
	}
	if _, err := jitOptions("-cl-fast-relaxed-math"); !errors.Is(err, driver.ResultProgramBuildFailure) {
		t.Errorf("jitOptions(unknown) = %v, want PROGRAM_BUILD_FAILURE", err)
	}
}

func TestLargestDivisor(t *testing.T) {
	for _, c := range []struct{ n, limit, want uint64 }{
		{1 << 20, 1024, 1024},
		{1000, 1024, 1000},
		{3000, 1024, 1000},
		{96, 1024, 96},
		{1031, 1024, 1}, // a prime
		{7, 1024, 7},
		{1, 1024, 1},
	} {
		if got := largestDivisor(c.n, c.limit); got != c.want {
			t.Errorf("largestDivisor(%d, %d) = %d, want %d", c.n, c.limit, got, c.want)
		}
	}
	// Against the obvious search.
	for _, limit := range []uint64{1, 7, 32, 1000, 1024} {
		for n := uint64(1); n <= 5000; n++ {
			want := uint64(1)
			for b := min(n, limit); b >= 1; b-- {
				if n%b == 0 {
					want = b
					break
				}
			}
			if got := largestDivisor(n, limit); got != want {
				t.Fatalf("largestDivisor(%d, %d) = %d, want %d", n, limit, got, want)
			}
		}
	}
}

func TestKernelArgsWithoutParamInfo(t *testing.T) {
	k := &kernel{name: "k"}
	if err := k.SetArgValue(2, []byte{1, 2, 3, 4}); err != nil {
		t.Fatal(err)
	}
	if err := k.SetArgValue(0, []byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}); err != nil {
		t.Fatal(err)
	}
	if err := k.SetArgLocal(1, 100); err != nil {
		t.Fatal(err)
	}
	if err := k.SetArgLocal(3, 64); err != nil {
		t.Fatal(err)
	}
	if k.nset != 4 || len(k.ptrs) != 4 {
		t.Fatalf("nset %d, %d params", k.nset, len(k.ptrs))
	}
	if got := *(*[4]byte)(k.ptrs[2]); got != [4]byte{1, 2, 3, 4} {
		t.Errorf("argument 2 = %v after the arena grew", got)
	}
	if got := (*[12]byte)(k.ptrs[0])[11]; got != 12 {
		t.Errorf("argument 0 last byte = %d", got)
	}
	if off := *(*uint64)(k.ptrs[3]); off != 112 || k.sharedMem != 176 {
		t.Errorf("local offsets: arg 3 at %d, shared %d; want 112, 176", off, k.sharedMem)
	}
}
