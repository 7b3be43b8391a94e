package main

import (
	"bytes"
	"testing"

	"github.com/gour-dev/gour/internal/harness/testenv"
)

// TestRun runs the example twice on every selected device that builds
// source, against an empty persistent cache: the first run builds the kernel
// and stores it, the second, with a new context and manager as in a new
// process, loads it from disk. Both serve the other two requests from memory
// and compute y = 1 + 3*2x.
func TestRun(t *testing.T) {
	// The persistent cache is opened once per process, at its first use:
	// one directory for every device.
	t.Setenv("SYCL_CACHE_PERSISTENT", "1")
	t.Setenv("SYCL_CACHE_DIR", t.TempDir())
	const values = "y[:4] = [1 7 13 19] y[1023] = 6139\n"
	runs := []struct{ name, want string }{
		{"first", values + "kernel requests: 1 built, 0 loaded from disk, 2 served from memory\n"},
		{"second", values + "kernel requests: 0 built, 1 loaded from disk, 2 served from memory\n"},
	}
	for _, dev := range testenv.Devices(t) {
		t.Run(dev.Backend()+"/"+dev.Name(), func(t *testing.T) {
			if b := dev.Backend(); b != "opencl" && b != "cuda" {
				t.Skipf("the example has no source for %s devices", b)
			}
			for _, r := range runs {
				var out bytes.Buffer
				if err := run(&out, dev); err != nil {
					t.Fatalf("%s run on %s: %v", r.name, dev, err)
				}
				if got := out.String(); got != r.want {
					t.Errorf("%s run on %s printed\n%q\nwant\n%q", r.name, dev, got, r.want)
				}
			}
		})
	}
}
