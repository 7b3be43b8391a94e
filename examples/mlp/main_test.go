package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/gour-dev/gour/compute"
	"github.com/gour-dev/gour/internal/testenv"
)

// testConfig is a small run: 256 points, two hidden layers of 32, 300
// epochs, which the CPU context trains to a loss near 0.007.
var testConfig = config{Points: 128, Hidden: 32, Epochs: 300, Rate: 0.1, Momentum: 0.9, Threshold: 0.05, Every: 100}

// TestTrain trains the network on the CPU and on every selected device
// whose backend takes OpenCL C or CUDA C, and checks that the loss falls
// below the threshold and the time per epoch is printed.
func TestTrain(t *testing.T) {
	check := func(t *testing.T, ctx compute.Context) {
		var out bytes.Buffer
		r, err := train(&out, ctx, testConfig)
		t.Log("\n" + out.String())
		if err != nil {
			t.Fatal(err)
		}
		if r.Loss >= testConfig.Threshold || r.Accuracy < 0.95 {
			t.Errorf("loss %v (threshold %v), accuracy %v", r.Loss, testConfig.Threshold, r.Accuracy)
		}
		if !strings.Contains(out.String(), "ms per epoch") {
			t.Errorf("no time per epoch in %q", out.String())
		}
	}
	t.Run("cpu", func(t *testing.T) { check(t, compute.NewCPU(0)) })
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
			check(t, d)
		})
	}
}
