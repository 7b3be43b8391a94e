package main

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/gour-dev/gour/internal/harness/testenv"
	"github.com/gour-dev/gour/ur"
)

// TestRun runs the example on every selected device whose backend takes
// OpenCL C or CUDA C, split as main splits it (PoCL's CPU device into two
// sub-devices), and on that device alone, and checks what it prints.
func TestRun(t *testing.T) {
	for _, dev := range testenv.Devices(t) {
		if dev.Backend() != "opencl" && dev.Backend() != "cuda" {
			continue
		}
		split, release := devicesOf(dev)
		defer release()
		for _, devs := range [][]*ur.Device{split, {dev}} {
			t.Run(fmt.Sprintf("%s/%s/%d", dev.Backend(), dev.Name(), len(devs)), func(t *testing.T) {
				var out bytes.Buffer
				if err := run(&out, devs); err != nil {
					t.Fatal(err)
				}
				want := fmt.Sprintf("%d device(s), one context: true\n", len(devs))
				for i, d := range devs {
					lo, hi := i*(1<<20)/len(devs), (i+1)*(1<<20)/len(devs)
					want += fmt.Sprintf("device %d: %d elements (%s)\n", i, hi-lo, d.Name())
				}
				want += "y[:4] = [6 7 8 9] sum = 7864320\n"
				if got := out.String(); got != want {
					t.Errorf("run printed\n%s\nwant\n%s", got, want)
				}
			})
		}
	}
}
