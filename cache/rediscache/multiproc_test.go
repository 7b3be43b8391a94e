package rediscache_test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gour-dev/gour/cache"
	"github.com/gour-dev/gour/internal/harness/testenv"
)

// Multi-process tests re-execute the test binary with
// GOUR_REDISCACHE_HELPER naming what the child does.
const helperEnv = "GOUR_REDISCACHE_HELPER"

func TestMain(m *testing.M) {
	if mode := os.Getenv(helperEnv); mode != "" {
		os.Exit(runHelper(mode))
	}
	os.Exit(m.Run())
}

func helper(mode string, env ...string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), append([]string{helperEnv + "=" + mode, helperKeyEnv + "=" + fleetKey.String()}, env...)...)
	cmd.Stderr = os.Stderr
	return cmd
}

func runHelper(mode string) int {
	lease, _ := time.ParseDuration(os.Getenv("GOUR_TEST_LEASE"))
	c, err := cache.Open(cache.Config{Dir: os.Getenv("GOUR_TEST_CACHE"), RemoteURL: os.Getenv("GOUR_TEST_REMOTE"),
		RemoteOptions: cache.RemoteOptions{LeaseTTL: lease, Timeout: 10 * time.Second}, RemoteKeys: fleetKeys(), Getenv: noEnv, Logger: slog.New(slog.NewTextHandler(os.Stderr, nil))})
	if err != nil || !c.Enabled() {
		fmt.Fprintln(os.Stderr, "helper: open:", err)
		return 2
	}
	defer c.Close()
	work := os.Getenv("GOUR_TEST_DIR")
	k := key(os.Getenv("GOUR_TEST_KEY"))
	switch mode {
	case "build-once":
		// Announce arrival, then GetOrBuild; the build records itself and
		// waits until every child has arrived, so that all miss together.
		n, _ := strconv.Atoi(os.Getenv("GOUR_TEST_N"))
		os.WriteFile(filepath.Join(work, "arrived-"+os.Getenv("GOUR_TEST_I")), nil, 0o600)
		for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(2 * time.Millisecond) {
			if m, _ := filepath.Glob(filepath.Join(work, "arrived-*")); len(m) >= n {
				break
			}
		}
		e, from, err := c.GetOrBuild(context.Background(), k, info, func() ([]byte, error) {
			f, err := os.OpenFile(filepath.Join(work, "builds"), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
			if err != nil {
				return nil, err
			}
			fmt.Fprintf(f, "built by %d\n", os.Getpid())
			f.Close()
			time.Sleep(300 * time.Millisecond)
			return binFor(k, 50000), nil
		})
		if err != nil || !bytes.Equal(e.Binary, binFor(k, 50000)) {
			fmt.Fprintln(os.Stderr, "helper:", err)
			return 1
		}
		fmt.Println("OK", from)
		return 0
	case "crash":
		// Take the lease, say so and hang in the build until killed.
		c.GetOrBuild(context.Background(), k, info, func() ([]byte, error) {
			fmt.Println("BUILDING")
			for {
				time.Sleep(time.Hour)
			}
		})
		return 1
	}
	return 2
}

// TestSingleFlightProcesses: 16 processes in two groups of 8, each group
// sharing a local directory ("two machines"), miss one key at once: one
// build in all.
func TestSingleFlightProcesses(t *testing.T) {
	srv := testenv.StartRedis(t)
	work := t.TempDir()
	dirs := []string{t.TempDir(), t.TempDir()}
	const n = 16
	var wg sync.WaitGroup
	outs := make([]string, n)
	errs := make([]error, n)
	for i := range n {
		cmd := helper("build-once", "GOUR_TEST_CACHE="+dirs[i%2], "GOUR_TEST_REMOTE="+srv.URL(""), "GOUR_TEST_DIR="+work,
			"GOUR_TEST_KEY=procs", "GOUR_TEST_N="+strconv.Itoa(n), "GOUR_TEST_I="+strconv.Itoa(i))
		wg.Go(func() {
			out, err := cmd.Output()
			outs[i], errs[i] = strings.TrimSpace(string(out)), err
		})
	}
	wg.Wait()
	served := 0
	for i := range n {
		if errs[i] != nil {
			t.Errorf("child %d: %v", i, errs[i])
		}
		if outs[i] == "OK true" {
			served++
		}
	}
	b, _ := os.ReadFile(filepath.Join(work, "builds"))
	if got := strings.Count(string(b), "built by"); got != 1 {
		t.Fatalf("%d builds across 16 processes on 2 machines, want 1:\n%s", got, b)
	}
	if served != n-1 {
		t.Fatalf("%d processes served from a cache, want %d: %q", served, n-1, outs)
	}
}

// TestCrashedBuilder: a process holding the lease is killed mid-build;
// its lease expires and the next machine builds, well before Wait.
func TestCrashedBuilder(t *testing.T) {
	srv := testenv.StartRedis(t)
	child := helper("crash", "GOUR_TEST_CACHE="+t.TempDir(), "GOUR_TEST_REMOTE="+srv.URL(""), "GOUR_TEST_KEY=crash",
		"GOUR_TEST_LEASE=600ms")
	out, err := child.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	line, _ := bufio.NewReader(out).ReadString('\n')
	if strings.TrimSpace(line) != "BUILDING" {
		child.Process.Kill()
		child.Wait()
		t.Fatalf("child: %q", line)
	}
	// The child holds the lease and renews it: a waiter waits.
	m := newMachine(t, srv.URL(""), cache.RemoteOptions{LeaseTTL: 600 * time.Millisecond, Wait: time.Minute})
	go func() {
		time.Sleep(time.Second) // past one lease life: renewal keeps it
		child.Process.Kill()
	}()
	start := time.Now()
	bld := &builder{size: 100}
	if m.getOrBuild(t, key("crash"), bld) {
		t.Fatal("served from a cache")
	}
	child.Wait()
	d := time.Since(start)
	if d < time.Second {
		t.Fatalf("built after %v, while the child still held its lease", d)
	}
	if d > 5*time.Second {
		t.Fatalf("built after %v: the dead builder's lease did not expire", d)
	}
	if bld.n.Load() != 1 {
		t.Fatal("no build")
	}
}
