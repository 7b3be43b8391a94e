package compute

import (
	"fmt"
	"testing"

	_ "github.com/gour-dev/gour/adapters/all"
	"github.com/gour-dev/gour/internal/harness/testenv"
)

// contexts returns the CPU context and a Device context per selected
// device, released when the test ends. Without a device it skips the
// device part (failing where UR_REQUIRE_ADAPTERS says so).
func contexts(t *testing.T) []Context {
	t.Helper()
	ctxs := []Context{NewCPU(4)}
	for _, d := range deviceContexts(t) {
		ctxs = append(ctxs, d)
	}
	return ctxs
}

// deviceContexts returns a Device context per selected device whose
// backend takes OpenCL C or CUDA C.
func deviceContexts(t testing.TB) []*Device {
	t.Helper()
	testenv.CheckRequired(t)
	sys := testenv.System(t)
	var out []*Device
	for _, dev := range sys.Devices {
		if dev.Backend() != "opencl" && dev.Backend() != "cuda" {
			continue
		}
		d, err := NewDevice(dev)
		if err != nil {
			t.Fatalf("NewDevice(%v): %v", dev, err)
		}
		t.Cleanup(func() {
			if err := d.Release(); err != nil {
				t.Errorf("Release: %v", err)
			}
		})
		out = append(out, d)
	}
	if len(out) == 0 {
		t.Logf("no OpenCL or CUDA device: %s", testenv.Reasons(sys))
	}
	return out
}

// forDevicesBothStorages runs f as a subtest on a Device of each selected
// device whose backend takes OpenCL C or CUDA C, once with USM storage
// and once with buffers; the Device's Release is checked when f returns.
func forDevicesBothStorages(t *testing.T, f func(t *testing.T, d *Device)) {
	testenv.CheckRequired(t)
	for _, dev := range testenv.System(t).Devices {
		if dev.Backend() != "opencl" && dev.Backend() != "cuda" {
			continue
		}
		for _, buffers := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/buffers=%v", dev.Name(), buffers), func(t *testing.T) {
				d, err := NewDeviceFrom(queueOf(t, dev), DeviceOptions{Buffers: buffers})
				if err != nil {
					t.Fatal(err)
				}
				defer func() {
					if err := d.Release(); err != nil {
						t.Errorf("Release: %v", err)
					}
				}()
				f(t, d)
			})
		}
	}
}
