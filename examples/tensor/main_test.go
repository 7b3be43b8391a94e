package main

import (
	"bytes"
	"errors"
	"testing"

	"github.com/gour-dev/gour/internal/harness/testenv"
	"github.com/gour-dev/gour/ur"
)

// TestRun runs the example on every selected device with USM and checks
// what it prints: y = 2x + 1.
func TestRun(t *testing.T) {
	const want = "y[:4] = [1 3 5 7] y[65535] = 131071\n"
	for _, dev := range testenv.Devices(t) {
		t.Run(dev.Backend()+"/"+dev.Name(), func(t *testing.T) {
			if _, ok := sources[dev.Backend()]; !ok {
				t.Skipf("the example has no source for %s devices", dev.Backend())
			}
			var out bytes.Buffer
			err := run(&out, dev)
			if u := dev.Info().USM; !u.Device || !u.Host {
				if !errors.Is(err, ur.ErrUnsupportedFeature) {
					t.Fatalf("on a device without device and host USM (%v), run gave %v, want ErrUnsupportedFeature", u, err)
				}
				t.Skipf("%s has no device and host USM: %v", dev, err)
			}
			if err != nil {
				t.Fatalf("run on %s: %v", dev, err)
			}
			if got := out.String(); got != want {
				t.Errorf("run on %s printed\n%q\nwant\n%q", dev, got, want)
			}
		})
	}
}
