package main

import (
	"bytes"
	"regexp"
	"strings"
	"testing"

	"github.com/gour-dev/gour/cmd/internal/cli"
	"github.com/gour-dev/gour/internal/harness/testenv"
	"github.com/gour-dev/gour/ur"
)

// TestLaunchOnOpenCL runs `urbench launch` on the OpenCL device and checks
// its line: the format scripts/bench parses. -device wins over the
// variable, which would leave no OpenCL device.
func TestLaunchOnOpenCL(t *testing.T) {
	testenv.MustHaveDevice(t, "opencl")
	t.Setenv(ur.EnvDeviceSelector, "!opencl:*")
	for _, args := range [][]string{nil, {"-prepared"}} {
		code, out, errOut := runUrbench(t, append([]string{"launch", "-backend", "opencl", "-device", "opencl:0", "-iters", "20", "-rounds", "3"}, args...)...)
		if code != cli.ExitOK {
			t.Fatalf("%v: exit %d, stderr %q", args, code, errOut)
		}
		if !regexp.MustCompile(`^gour ns/launch [0-9.]+ enqueue [0-9.]+ \(median of 3 rounds x 20 launches`).MatchString(out) {
			t.Errorf("urbench launch %v printed %q", args, out)
		}
	}
}

// TestCompareRotatesSides gives compare two sides that record their
// order: every round runs each side once, the first side of a round
// rotates, and the ratios are printed against the first side.
func TestCompareRotatesSides(t *testing.T) {
	testenv.MustHaveDevice(t, "opencl")
	var out bytes.Buffer
	b, err := newLaunchBench(cli.New("urbench launch", "", ""), "opencl", "")
	if err != nil {
		t.Fatal(err)
	}
	defer b.close()
	var order []string
	recorded := func(name string) side {
		return side{name: name, launchN: func(n int) error {
			order = append(order, name)
			return b.gourLaunches(n)
		}}
	}
	if err := b.compare(&out, []side{recorded("a"), recorded("b"), recorded("c")}, 5, 3); err != nil {
		t.Fatal(err)
	}
	// Three warm-ups, then rounds a b c, b c a, c a b.
	if got, want := strings.Join(order, ""), "abc"+"abcbcacab"; got != want {
		t.Errorf("sides ran in the order %s, want %s", got, want)
	}
	for _, want := range []string{"in-process a ", "in-process b ", "in-process c ", "ratio b/a:", "ratio c/a:"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("compare's output lacks %q:\n%s", want, out.String())
		}
	}
}
