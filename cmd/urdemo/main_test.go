package main

import (
	"bytes"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/gour-dev/gour/cmd/internal/cli"
	"github.com/gour-dev/gour/internal/harness/testenv"
	"github.com/gour-dev/gour/ur"
	"github.com/gour-dev/gour/ur/driver"
)

// An adapter registered only in this test binary that never loads, for a
// discovery that finds no device on any machine.
const (
	brokenName   = "urdemo_broken"
	brokenReason = "libbroken.so.1: cannot open shared object file"
)

func init() {
	driver.Register(brokenName, func() (driver.Adapter, error) {
		return nil, driver.NotAvailable("%s: %s", brokenName, brokenReason)
	})
}

// runDemo runs urdemo with args, its persistent cache in a directory of
// the test's own, and returns its exit status and output.
func runDemo(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	t.Setenv("SYCL_CACHE_DIR", t.TempDir())
	var out, errOut bytes.Buffer
	code = run(args, &out, &errOut)
	return code, out.String(), errOut.String()
}

// TestRun runs the demo as `make demo` does, twice: the second run loads
// the kernel from the persistent cache the first one filled.
func TestRun(t *testing.T) {
	testenv.Devices(t) // skips with the reason when there is no device
	t.Setenv("SYCL_CACHE_DIR", t.TempDir())
	t.Setenv("SYCL_CACHE_PERSISTENT", "1")
	for i, want := range []string{"stored in gour's persistent cache", "served from gour's persistent cache"} {
		var out, errOut bytes.Buffer
		if code := run(nil, &out, &errOut); code != cli.ExitOK {
			t.Fatalf("run %d: exit %d, stderr %q\noutput:\n%s", i+1, code, errOut.String(), out.String())
		}
		if !strings.HasSuffix(out.String(), "axpy OK\n") || !strings.Contains(out.String(), "n = 1048576)") {
			t.Errorf("run %d: output does not end with axpy OK after n = 1048576:\n%s", i+1, out.String())
		}
		if !strings.Contains(out.String(), want) {
			t.Errorf("run %d: output does not say %q:\n%s", i+1, want, out.String())
		}
		t.Logf("run %d:\n%s", i+1, out.String())
	}
}

// TestDeviceAndSize runs a small axpy on the device -device names.
func TestDeviceAndSize(t *testing.T) {
	devs := testenv.MustHaveDevice(t, "opencl")
	t.Setenv(ur.EnvDeviceSelector, "!opencl:*") // -device overrides it
	code, out, errOut := runDemo(t, "-device", "opencl:0", "-n", "1000")
	if code != cli.ExitOK {
		t.Fatalf("exit %d, stderr %q\noutput:\n%s", code, errOut, out)
	}
	for _, want := range []string{"\nusing " + devs[0].String() + "\n", "n = 1000)\n", "axpy OK\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

// TestExitStatuses checks the status and the message of every way urdemo
// stops without running axpy.
func TestExitStatuses(t *testing.T) {
	for _, tc := range []struct {
		name      string
		forceLoad string // UR_ADAPTERS_FORCE_LOAD
		selector  string // ONEAPI_DEVICE_SELECTOR
		args      []string
		code      int
		stdout    string // substring
		stderr    string // the whole of it, or its start when it ends in "…"
	}{
		{name: "-h", args: []string{"-h"}, code: cli.ExitOK, stdout: "usage: urdemo [-device SELECTOR] [-n N]\n"},
		{name: "--help", args: []string{"--help"}, code: cli.ExitOK, stdout: "\nflags:\n  -device SELECTOR\n"},
		{name: "bad flag", args: []string{"-bogus"}, code: cli.ExitUsage,
			stderr: "urdemo: flag provided but not defined: -bogus\nrun 'urdemo -h' for usage\n"},
		{name: "argument", args: []string{"axpy"}, code: cli.ExitUsage,
			stderr: "urdemo: unexpected argument \"axpy\"\nrun 'urdemo -h' for usage\n"},
		{name: "-n zero", args: []string{"-n", "0"}, code: cli.ExitUsage,
			stderr: "urdemo: -n 0: want 1 to 268435456 elements\nrun 'urdemo -h' for usage\n"},
		{name: "-n too big", args: []string{"-n", "268435457"}, code: cli.ExitUsage,
			stderr: "urdemo: -n 268435457: want 1 to 268435456 elements\nrun 'urdemo -h' for usage\n"},
		{name: "-n not a number", args: []string{"-n", "lots"}, code: cli.ExitUsage,
			stderr: "urdemo: invalid value \"lots\" for flag -n: parse error\nrun 'urdemo -h' for usage\n"},
		{name: "bad -device", args: []string{"-device", "opencl:tpu"}, code: cli.ExitUsage,
			stderr: "urdemo: the -device flag: bad selector term \"opencl:tpu\"…"},
		{name: "bad variable", selector: "bogus", code: cli.ExitUsage,
			stderr: "urdemo: ONEAPI_DEVICE_SELECTOR: bad selector term \"bogus\"…"},
		{name: "bad force load", forceLoad: "no_such_adapter", code: cli.ExitUsage,
			stderr: "urdemo: UR_ADAPTERS_FORCE_LOAD: unknown adapter \"no_such_adapter\"\n"},
		{name: "no adapter", forceLoad: brokenName, code: cli.ExitFailure,
			stdout: brokenName + ": not available: " + brokenReason + "\n",
			stderr: "urdemo: no device: no adapter found one; the lines above say why (`make deps` installs PoCL)\n"},
		{name: "no adapter, a selector", forceLoad: brokenName, selector: "cuda:*", code: cli.ExitFailure,
			stderr: "urdemo: no device: no adapter found one for the selector \"cuda:*\" (ONEAPI_DEVICE_SELECTOR) to choose from;…"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv(ur.EnvForceLoad, tc.forceLoad)
			t.Setenv(ur.EnvDeviceSelector, tc.selector)
			code, out, errOut := runDemo(t, tc.args...)
			if code != tc.code {
				t.Errorf("exit %d, want %d", code, tc.code)
			}
			if !strings.Contains(out, tc.stdout) {
				t.Errorf("stdout lacks %q:\n%s", tc.stdout, out)
			}
			if prefix, ok := strings.CutSuffix(tc.stderr, "…"); ok {
				if !strings.HasPrefix(errOut, prefix) {
					t.Errorf("stderr = %q, want it to start with %q", errOut, prefix)
				}
			} else if errOut != tc.stderr {
				t.Errorf("stderr = %q, want %q", errOut, tc.stderr)
			}
			if strings.Contains(out, "\nusing ") {
				t.Errorf("axpy ran:\n%s", out)
			}
		})
	}
}

// TestSelectorThatMatchesNothing: devices are found, the selector lets
// none through, and the message says which selector and where it came
// from.
func TestSelectorThatMatchesNothing(t *testing.T) {
	devs := testenv.MustHaveDevice(t, "opencl")
	t.Setenv(ur.EnvForceLoad, "opencl")
	var found []string
	for _, d := range devs {
		found = append(found, fmt.Sprintf("opencl:%d (%s)", d.Index(), d.Type()))
	}
	for _, tc := range []struct {
		selector string
		args     []string
		from     string
	}{
		{"cuda:*", nil, "ONEAPI_DEVICE_SELECTOR"},
		{"opencl:*", []string{"-device", "cuda:*"}, "the -device flag"},
	} {
		t.Setenv(ur.EnvDeviceSelector, tc.selector)
		code, out, errOut := runDemo(t, tc.args...)
		want := `urdemo: no device: the selector "cuda:*" (` + tc.from + `) matches none of the devices found: ` + strings.Join(found, ", ") + "\n"
		if code != cli.ExitFailure || errOut != want {
			t.Errorf("%s=%s %v: exit %d, stderr %q; want %d, %q", ur.EnvDeviceSelector, tc.selector, tc.args, code, errOut, cli.ExitFailure, want)
		}
		if strings.Contains(out, "\nusing ") {
			t.Errorf("axpy ran:\n%s", out)
		}
	}
}

func TestCheck(t *testing.T) {
	const n = 4096
	xs, ys := inputs(n)
	got := make([]float32, n)
	for i := range got {
		got[i] = alpha*xs[i] + ys[i]
	}
	var res axpyResult
	check(&res, xs, ys, got)
	if res.bad != 0 || res.maxErr != 0 {
		t.Fatalf("exact result: bad=%d maxErr=%g", res.bad, res.maxErr)
	}

	got[7] *= 1 + 2e-5 // just past the tolerance
	got[9] = float32(math.NaN())
	res = axpyResult{}
	check(&res, xs, ys, got)
	if res.bad != 2 || res.firstBad != 7 {
		t.Errorf("bad=%d firstBad=%d, want 2 and 7", res.bad, res.firstBad)
	}
	if !math.IsNaN(res.maxErr) {
		t.Errorf("maxErr = %g, want NaN to show", res.maxErr)
	}

	got[7], got[9] = alpha*xs[7]+ys[7], alpha*xs[9]+ys[9]
	got[11] *= 1 + 5e-6 // within the tolerance
	res = axpyResult{}
	check(&res, xs, ys, got)
	if res.bad != 0 || res.maxErr == 0 {
		t.Errorf("bad=%d maxErr=%g, want 0 bad and a non-zero error", res.bad, res.maxErr)
	}
}
