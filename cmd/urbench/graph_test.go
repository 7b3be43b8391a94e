package main

import (
	"strings"
	"testing"

	"github.com/gour-dev/gour/internal/harness/testenv"
)

// urbench graph measures and checks the launch model on PoCL.
func TestGraph(t *testing.T) {
	testenv.MustHaveDevice(t, "opencl")
	code, out, errOut := runUrbench(t, "graph", "-backend", "opencl", "-rounds", "2", "-iters", "256", "-kernels", "32", "-launch-rounds", "3", "-launch-iters", "20")
	if code != 0 {
		t.Fatalf("urbench graph exited %d: %s", code, errOut)
	}
	for _, want := range []string{"2 rounds; 256 launches per round; 32 kernels in the command buffer\n", "\nlaunch.args ", "command buffer of 32 launches", "\ngraph.replay ", "\ngraph.single ", "\nparallel.1 ", "\nparallel.64 "} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	for _, args := range [][]string{{"graph", "-kernels", "0"}, {"graph", "-backend", "opencl", "-c-lib", "x.so"}, {"graph", "-backend", "vulkan"}} {
		if code, _, _ := runUrbench(t, args...); code != 2 {
			t.Errorf("urbench %q exited %d, want 2", args, code)
		}
	}
}
