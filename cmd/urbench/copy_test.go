package main

import (
	"strings"
	"testing"

	"github.com/gour-dev/gour/compare"
	"github.com/gour-dev/gour/internal/harness/testenv"
)

// urbench copy measures and checks the three transfers on PoCL.
func TestCopy(t *testing.T) {
	testenv.MustHaveDevice(t, "opencl")
	code, out, errOut := runUrbench(t, "copy", "-backend", "opencl", "-bytes", "1M", "-rounds", "3")
	if code != 0 {
		t.Fatalf("urbench copy exited %d: %s", code, errOut)
	}
	for _, want := range []string{"1048576 bytes per transfer, 3 rounds, data checked each round\n", "\ncopy.h2d  GB/s ", "\ncopy.d2h  GB/s ", "\ncopy.d2d  GB/s "} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	for _, args := range [][]string{{"copy", "-bytes", "x"}, {"copy", "-rounds", "0"}, {"copy", "-backend", "vulkan"}} {
		if code, _, _ := runUrbench(t, args...); code != 2 {
			t.Errorf("urbench %q exited %d, want 2", args, code)
		}
	}
}

func TestCopiesPerRound(t *testing.T) {
	if copiesPerRound != compare.CopiesPerRound {
		t.Errorf("urbench copy enqueues %d copies a round, urcompare %d: the two would not measure alike", copiesPerRound, compare.CopiesPerRound)
	}
}
