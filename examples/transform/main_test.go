package main

import (
	"bytes"
	"testing"

	"github.com/gour-dev/gour/compute"
	"github.com/gour-dev/gour/internal/harness/testenv"
)

// TestRun runs the example on the CPU and on every selected device whose
// backend takes OpenCL C or CUDA C, and checks what it prints: the same
// everywhere but the upload count, one on a device and none on the CPU.
func TestRun(t *testing.T) {
	check := func(t *testing.T, ctx compute.Context, uploads int) {
		var out bytes.Buffer
		if err := run(&out, ctx); err != nil {
			t.Fatal(err)
		}
		want := "y[:4] = [6 7 8 9] sum = 7864320 uploads = 0\n"
		if uploads == 1 {
			want = "y[:4] = [6 7 8 9] sum = 7864320 uploads = 1\n"
		}
		if got := out.String(); got != want {
			t.Errorf("run printed\n%q\nwant\n%q", got, want)
		}
	}
	t.Run("cpu", func(t *testing.T) { check(t, compute.NewCPU(0), 0) })
	for _, dev := range testenv.Devices(t) {
		if dev.Backend() != "opencl" && dev.Backend() != "cuda" {
			continue
		}
		t.Run(dev.Backend()+"/"+dev.Name(), func(t *testing.T) {
			d, err := compute.NewDevice(dev)
			if err != nil {
				t.Fatal(err)
			}
			defer d.Release()
			check(t, d, 1)
		})
	}
}
