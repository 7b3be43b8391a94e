package main

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/gour-dev/gour/cmd/internal/cli"
	"github.com/gour-dev/gour/internal/harness/testenv"
	"github.com/gour-dev/gour/ur"
)

// runUrbench runs urbench with args and returns its exit status and output.
func runUrbench(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = run(args, &out, &errOut)
	return code, out.String(), errOut.String()
}

// TestHelp: every way of asking for the usage prints it on standard output
// and exits 0.
func TestHelp(t *testing.T) {
	top := "usage: urbench BENCHMARK [flags]\n       urbench help [BENCHMARK]\n"
	for _, tc := range []struct {
		args []string
		want []string // substrings of stdout
	}{
		{[]string{"-h"}, []string{top, "\n  launch ", "\n  jit ", "\n  diskcache "}},
		{[]string{"--help"}, []string{top}},
		{[]string{"help"}, []string{top}},
		{[]string{"help", "launch"}, []string{"usage: urbench launch [-backend cuda|opencl]", "\n  -c-loop LIB", "\n  -device SELECTOR"}},
		{[]string{"launch", "-h"}, []string{"usage: urbench launch ", "\n  -iters int"}},
		{[]string{"launch", "--help"}, []string{"usage: urbench launch "}},
		{[]string{"help", "jit"}, []string{"usage: urbench jit ", "\n  -kernels int"}},
		{[]string{"jit", "-h"}, []string{"usage: urbench jit "}},
		{[]string{"help", "diskcache"}, []string{"usage: urbench diskcache ", "\n  -runs int"}},
		{[]string{"diskcache", "--help"}, []string{"usage: urbench diskcache "}},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			code, out, errOut := runUrbench(t, tc.args...)
			if code != cli.ExitOK || errOut != "" {
				t.Errorf("exit %d, stderr %q; want 0 and nothing", code, errOut)
			}
			for _, want := range tc.want {
				if !strings.Contains(out, want) {
					t.Errorf("stdout lacks %q:\n%s", want, out)
				}
			}
		})
	}
}

// TestMisuse: each misuse exits 2 with a message and a pointer to the -h
// that helps, and prints nothing on standard output.
func TestMisuse(t *testing.T) {
	t.Setenv(ur.EnvDeviceSelector, "")
	for _, tc := range []struct {
		args   []string
		stderr string
	}{
		{nil, "urbench: no benchmark named: want launch, jit, diskcache, remotecache, bundle, copy, memory, graph, compute, blas, gonum or collectives\nrun 'urbench -h' for usage\n"},
		{[]string{"-x"}, "urbench: unknown benchmark \"-x\": want launch, jit, diskcache, remotecache, bundle, copy, memory, graph, compute, blas, gonum or collectives\nrun 'urbench -h' for usage\n"},
		{[]string{"bogus"}, "urbench: unknown benchmark \"bogus\": want launch, jit, diskcache, remotecache, bundle, copy, memory, graph, compute, blas, gonum or collectives\nrun 'urbench -h' for usage\n"},
		{[]string{"help", "bogus"}, "urbench: unknown benchmark \"bogus\": want launch, jit, diskcache, remotecache, bundle, copy, memory, graph, compute, blas, gonum or collectives\nrun 'urbench -h' for usage\n"},
		{[]string{"help", "launch", "jit"}, "urbench: help takes one benchmark, not [\"launch\" \"jit\"]\nrun 'urbench -h' for usage\n"},
		{[]string{"launch", "-bogus"}, "urbench launch: flag provided but not defined: -bogus\nrun 'urbench launch -h' for usage\n"},
		{[]string{"launch", "extra"}, "urbench launch: unexpected argument \"extra\"\nrun 'urbench launch -h' for usage\n"},
		{[]string{"launch", "-backend", "level_zero"}, "urbench launch: -backend \"level_zero\": want opencl or cuda\nrun 'urbench launch -h' for usage\n"},
		{[]string{"launch", "-backend", "opencl", "-c-loop", "lib.so"}, "urbench launch: -c-loop needs -backend cuda\nrun 'urbench launch -h' for usage\n"},
		{[]string{"launch", "-iters", "0"}, "urbench launch: -iters and -rounds must be at least 1\nrun 'urbench launch -h' for usage\n"},
		{[]string{"launch", "-device", "cuda:tpu"}, "urbench launch: the -device flag: bad selector term \"cuda:tpu\": …\nrun 'urbench launch -h' for usage\n"},
		{[]string{"jit", "-kernels", "x"}, "urbench jit: invalid value \"x\" for flag -kernels: parse error\nrun 'urbench jit -h' for usage\n"},
		{[]string{"jit", "-loads", "0"}, "urbench jit: -kernels, -ops and -loads must be at least 1\nrun 'urbench jit -h' for usage\n"},
		{[]string{"diskcache", "-backend", "hip"}, "urbench diskcache: -backend \"hip\": want opencl or cuda\nrun 'urbench diskcache -h' for usage\n"},
		{[]string{"diskcache", "-runs", "0"}, "urbench diskcache: -kernels and -runs must be at least 1\nrun 'urbench diskcache -h' for usage\n"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			code, out, errOut := runUrbench(t, tc.args...)
			// "…" stands for ur's own words about a bad selector term.
			prefix, suffix, elided := strings.Cut(tc.stderr, "…")
			matches := errOut == tc.stderr || elided && strings.HasPrefix(errOut, prefix) && strings.HasSuffix(errOut, suffix)
			if code != cli.ExitUsage || out != "" || !matches {
				t.Errorf("exit %d, stdout %q, stderr\n%q\nwant %d, nothing,\n%q", code, out, errOut, cli.ExitUsage, tc.stderr)
			}
		})
	}

	// A malformed variable is misuse too; it is no flag, so no pointer to -h.
	t.Setenv(ur.EnvDeviceSelector, "opencl:seven")
	code, _, errOut := runUrbench(t, "jit")
	if want := "urbench jit: ONEAPI_DEVICE_SELECTOR: bad selector term \"opencl:seven\""; code != cli.ExitUsage || !strings.HasPrefix(errOut, want) || strings.Contains(errOut, "-h") {
		t.Errorf("exit %d, stderr %q; want %d and %q", code, errOut, cli.ExitUsage, want)
	}
}

// TestNoDevice: a benchmark without a device of its backend fails (exit 1)
// naming why, and the selector only with where it really came from.
func TestNoDevice(t *testing.T) {
	// Without CUDA loaded (UR_ADAPTERS_FORCE_LOAD leaves it out) and with
	// no selector, jit blames the adapter, not a selector nobody set.
	t.Setenv(ur.EnvForceLoad, "opencl")
	t.Setenv(ur.EnvDeviceSelector, "")
	for _, args := range [][]string{{"jit"}, {"launch"}, {"diskcache", "-backend", "cuda"}} {
		code, out, errOut := runUrbench(t, args...)
		want := "urbench " + args[0] + ": no cuda device: the cuda adapter did not load: not among the adapters UR_ADAPTERS_FORCE_LOAD loads\n"
		if code != cli.ExitFailure || out != "" || errOut != want {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want %d, nothing, %q", args, code, out, errOut, cli.ExitFailure, want)
		}
	}

	// OpenCL loads and has devices; a selector that lets none through is
	// named with its source.
	devs := testenv.MustHaveDevice(t, "opencl")
	var found []string
	for _, d := range devs {
		found = append(found, fmt.Sprintf("opencl:%d (%s)", d.Index(), d.Type()))
	}
	for _, tc := range []struct {
		env  string
		args []string
		from string
	}{
		{"", []string{"launch", "-backend", "opencl", "-device", "cuda:*"}, "the -device flag"},
		{"cuda:*", []string{"launch", "-backend", "opencl"}, "ONEAPI_DEVICE_SELECTOR"},
		{"opencl:*", []string{"diskcache", "-device", "cuda:*"}, "the -device flag"},
		{"cuda:*", []string{"diskcache"}, "ONEAPI_DEVICE_SELECTOR"},
	} {
		t.Setenv(ur.EnvDeviceSelector, tc.env)
		code, out, errOut := runUrbench(t, tc.args...)
		want := "urbench " + tc.args[0] + `: no opencl device: the selector "cuda:*" (` + tc.from + ") matches none of the devices found: " + strings.Join(found, ", ") + "\n"
		if code != cli.ExitFailure || out != "" || errOut != want {
			t.Errorf("%s=%s %v: exit %d, stdout %q, stderr\n%q\nwant %d, nothing,\n%q", ur.EnvDeviceSelector, tc.env, tc.args, code, out, errOut, cli.ExitFailure, want)
		}
	}
}

// TestDiskcacheChildrenGetTheFlags: the flags given to diskcache, and
// only those, go to its children, so that they choose the same device.
func TestDiskcacheChildrenGetTheFlags(t *testing.T) {
	c, _ := diskcacheCommand()
	if err := c.Parse([]string{"-backend", "cuda", "-device", "!opencl:*;cuda:1", "-runs", "3"}, &bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
	got := flagsSet(c)
	want := []string{"-backend=cuda", "-device=!opencl:*;cuda:1", "-runs=3"}
	if !slices.Equal(got, want) {
		t.Errorf("flagsSet = %q, want %q", got, want)
	}
}
