package main

import (
	"bytes"
	"flag"
	"strings"
	"testing"

	"github.com/gour-dev/gour/compute"
	"github.com/gour-dev/gour/internal/harness/testenv"
)

// testConfig is a small run: 256 points, two hidden layers of 32, 300
// epochs, which the CPU context trains to a loss near 0.007.
var testConfig = config{Points: 128, Hidden: 32, Epochs: 300, Rate: 0.1, Momentum: 0.9, Threshold: 0.05, Every: 100}

// Flags of the test binary, to time a larger network where there is no
// Go toolchain (bin/examples-mlp.test from make build-device-tests):
//
//	bin/examples-mlp.test -test.run TestTrain -test.v -mlp.points 8192 -mlp.hidden 256 -mlp.epochs 500
var (
	flagPoints = flag.Int("mlp.points", 0, "points per spiral (0: the test's 128)")
	flagHidden = flag.Int("mlp.hidden", 0, "units per hidden layer (0: the test's 32)")
	flagEpochs = flag.Int("mlp.epochs", 0, "epochs (0: the test's 300)")
)

// TestTrain trains the network on the CPU and on every selected device
// whose backend takes OpenCL C or CUDA C, and checks that the loss falls
// below the threshold and the time per epoch is printed.
func TestTrain(t *testing.T) {
	cfg := testConfig
	for _, f := range []struct{ flag, field *int }{{flagPoints, &cfg.Points}, {flagHidden, &cfg.Hidden}, {flagEpochs, &cfg.Epochs}} {
		if *f.flag > 0 {
			*f.field = *f.flag
		}
	}
	cfg.Every = max(1, cfg.Epochs/3)
	check := func(t *testing.T, ctx compute.Context) {
		var out bytes.Buffer
		r, err := train(&out, ctx, cfg)
		t.Log("\n" + out.String())
		if err != nil {
			t.Fatal(err)
		}
		if r.Loss >= cfg.Threshold || r.Accuracy < 0.95 {
			t.Errorf("loss %v (threshold %v), accuracy %v", r.Loss, cfg.Threshold, r.Accuracy)
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
