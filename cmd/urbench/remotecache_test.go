package main

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/gour-dev/gour/internal/harness/testenv"
)

// The children of remotecache run urbench from this test binary: init
// runs before TestMain and the tests.
func init() {
	if os.Getenv(envRemoteChild) != "" {
		os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
	}
}

// urbench remotecache runs every phase on PoCL, small, with its own
// redis-server, and finds one build in the single-flight phase.
func TestRemotecache(t *testing.T) {
	testenv.MustHaveDevice(t, "opencl")
	if _, err := exec.LookPath("redis-server"); err != nil {
		if os.Getenv(testenv.EnvRequireRedis) == "1" {
			t.Fatalf("no redis-server (%s=1)", testenv.EnvRequireRedis)
		}
		t.Skip("no redis-server")
	}
	t.Setenv("POCL_KERNEL_CACHE", "0")
	code, out, errOut := runUrbench(t, "remotecache", "-backend", "opencl", "-kernels", "3", "-ops", "8", "-runs", "1", "-procs", "4")
	if code != 0 {
		t.Fatalf("urbench remotecache exited %d: %s\n%s", code, errOut, out)
	}
	for _, want := range []string{"(started by urbench)", "\nremote hit, empty disk ", "\nsingle flight, dir 1 ",
		"\n(a) first GetKernel of a new process (opencl, 3 kernels), median of 1 (ms): cold JIT ",
		"4 processes, 2 local directories, one cold key: 1 build(s) (want 1); 2 served from the local disk, 1 from the remote tier",
		"\n(c) empty local disk, 1 kernel(s), median of 1 (ms): no remote tier ", "time in the remote tier with the server down"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	t.Log("\n" + out)
	for _, args := range [][]string{{"remotecache", "-procs", "1"}, {"remotecache", "-runs", "0"}, {"remotecache", "-backend", "vulkan"}} {
		if code, _, _ := runUrbench(t, args...); code != 2 {
			t.Errorf("urbench %q exited %d, want 2", args, code)
		}
	}
}

// urbench remotecache on a server of the user's (-redis) leaves none of
// its keys there.
func TestRemotecacheLeavesNoKeys(t *testing.T) {
	testenv.MustHaveDevice(t, "opencl")
	srv := testenv.StartRedis(t)
	if _, err := srv.Do("SET", "users-key", "1"); err != nil {
		t.Fatal(err)
	}
	t.Setenv("POCL_KERNEL_CACHE", "0")
	code, out, errOut := runUrbench(t, "remotecache", "-backend", "opencl", "-kernels", "1", "-ops", "2", "-runs", "1", "-procs", "2",
		"-redis", srv.URL(""))
	if code != 0 {
		t.Fatalf("urbench remotecache exited %d: %s\n%s", code, errOut, out)
	}
	// Do returns the reply's first line: ":N" for an integer.
	if n, err := srv.Do("DBSIZE"); err != nil || n != ":1" {
		t.Errorf("keys left: DBSIZE %q, %v; want only the user's key", n, err)
	}
	if v, err := srv.Do("EXISTS", "users-key"); err != nil || v != ":1" {
		t.Errorf("the user's key: EXISTS %q, %v", v, err)
	}
}
