package cache

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// Multi-process tests re-execute the test binary with GOUR_CACHE_HELPER
// naming what the child does; TestMain runs it instead of the tests.
const helperEnv = "GOUR_CACHE_HELPER"

func TestMain(m *testing.M) {
	if mode := os.Getenv(helperEnv); mode != "" {
		os.Exit(runHelper(mode))
	}
	os.Exit(m.Run())
}

// helper starts the test binary as a child in the given mode.
func helper(t *testing.T, mode string, env ...string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), append([]string{helperEnv + "=" + mode}, env...)...)
	cmd.Stderr = os.Stderr
	return cmd
}

func runHelper(mode string) int {
	dir := os.Getenv("GOUR_CACHE_DIR")
	c, err := Open(Config{Dir: dir, Getenv: env()})
	if err != nil || !c.Enabled() {
		fmt.Fprintln(os.Stderr, "helper: open:", err, c.Err())
		return 2
	}
	c.sweepEvery = -1
	switch mode {
	case "build-once":
		return helperBuildOnce(c)
	case "stall":
		return helperStall(c)
	case "churn":
		return helperChurn(c)
	}
	fmt.Fprintln(os.Stderr, "helper: unknown mode", mode)
	return 2
}

// helperBuildOnce: announce arrival, GetOrBuild one key; the build
// appends to a count file and waits until every child has arrived, so
// all of them miss together.
func helperBuildOnce(c *Cache) int {
	dir := os.Getenv("GOUR_TEST_DIR")
	n, _ := strconv.Atoi(os.Getenv("GOUR_TEST_N"))
	os.WriteFile(filepath.Join(dir, "arrived-"+os.Getenv("GOUR_TEST_I")), nil, 0o600)
	k := key("build-once")
	e, _, err := c.GetOrBuild(context.Background(), k, testInfo, func() ([]byte, error) {
		f, err := os.OpenFile(filepath.Join(dir, "builds"), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
		if err != nil {
			return nil, err
		}
		fmt.Fprintf(f, "built by %d\n", os.Getpid())
		f.Close()
		for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
			if m, _ := filepath.Glob(filepath.Join(dir, "arrived-*")); len(m) >= n {
				break
			}
		}
		time.Sleep(50 * time.Millisecond)
		return binFor(k, 100000), nil
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, "helper:", err)
		return 1
	}
	if !bytes.Equal(e.Binary, binFor(k, 100000)) {
		fmt.Fprintln(os.Stderr, "helper: wrong binary")
		return 1
	}
	return 0
}

// helperStall: GetOrBuild a key; at the named write point, print STALLED
// and hang until killed.
func helperStall(c *Cache) int {
	point := os.Getenv("GOUR_TEST_POINT")
	c.testHook = func(p string) error {
		if p == point {
			fmt.Println("STALLED")
			for { // hang (select{} would be a deadlock the runtime reports)
				time.Sleep(time.Hour)
			}
		}
		return nil
	}
	k := key(os.Getenv("GOUR_TEST_KEY"))
	size, _ := strconv.Atoi(os.Getenv("GOUR_TEST_SIZE"))
	c.GetOrBuild(context.Background(), k, testInfo, func() ([]byte, error) {
		c.testHook("build")
		return binFor(k, size), nil
	})
	fmt.Println("DONE")
	return 0
}

// helperChurn: random stores and reads of a few keys under a small size
// limit, checking every binary read.
func helperChurn(c *Cache) int {
	max, _ := strconv.ParseInt(os.Getenv("GOUR_TEST_MAX"), 10, 64)
	c.s.maxSize = max
	c.sweepEvery = 20 * time.Millisecond
	seed, _ := strconv.Atoi(os.Getenv("GOUR_TEST_I"))
	hits := 0
	for i := 0; i < 120; i++ {
		k := key(strconv.Itoa((seed*7 + i*13) % 16))
		size := 3000 + 100*len(k.CompileOptions)
		if i%3 == 0 {
			c.Put(k, binFor(k, size), testInfo)
			continue
		}
		if e, ok := c.Get(k); ok {
			hits++
			if !bytes.Equal(e.Binary, binFor(k, size)) {
				fmt.Fprintln(os.Stderr, "helper: wrong binary for", k.CompileOptions)
				return 1
			}
		}
	}
	if !c.Enabled() {
		fmt.Fprintln(os.Stderr, "helper: disabled:", c.Err())
		return 1
	}
	fmt.Println("hits", hits)
	return 0
}

// 16 processes miss the same key at once: one builds, all get the binary.
func TestProcessesBuildOnce(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns 16 processes")
	}
	const n = 16
	dir, work := t.TempDir(), t.TempDir()
	var cmds []*exec.Cmd
	for i := 0; i < n; i++ {
		cmd := helper(t, "build-once", "GOUR_CACHE_DIR="+dir, "GOUR_TEST_DIR="+work, "GOUR_TEST_N="+strconv.Itoa(n), "GOUR_TEST_I="+strconv.Itoa(i))
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds = append(cmds, cmd)
	}
	for i, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Errorf("child %d: %v", i, err)
		}
	}
	b, _ := os.ReadFile(filepath.Join(work, "builds"))
	if got := strings.Count(string(b), "\n"); got != 1 {
		t.Fatalf("%d builds, want 1:\n%s", got, b)
	}
	wantHit(t, mustOpen(t, dir), key("build-once"), 100000)
}

// Writers killed with SIGKILL at every point of a store, 100 rounds: no
// reader ever gets a wrong binary, the locks of the dead are released,
// and the sweep removes what they left.
func TestKilledWriters(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns 100 processes")
	}
	points := []string{"bin:create", "bin:write", "bin:renamed", "use", "src:write", "src:renamed", "stored", "size:write"}
	dir := t.TempDir()
	const rounds, batch = 100, 4
	type round struct {
		k     Key
		size  int
		point string
		cmd   *exec.Cmd
	}
	all := make([]round, rounds)
	for r := range all {
		all[r] = round{k: key(fmt.Sprint("round", r)), size: 50000 + 997*r, point: points[r%len(points)]}
	}
	reader := mustOpen(t, dir)
	for start := 0; start < rounds; start += batch {
		var wg sync.WaitGroup
		for r := start; r < start+batch && r < rounds; r++ {
			rd := &all[r]
			rd.cmd = helper(t, "stall", "GOUR_CACHE_DIR="+dir, "GOUR_TEST_POINT="+rd.point,
				"GOUR_TEST_KEY="+strings.TrimPrefix(rd.k.CompileOptions, "-cl-fast-relaxed-math -D NAME="), "GOUR_TEST_SIZE="+strconv.Itoa(rd.size))
			out, err := rd.cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := rd.cmd.Start(); err != nil {
				t.Fatal(err)
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				line, _ := bufio.NewReader(out).ReadString('\n')
				if line != "STALLED\n" {
					t.Errorf("round %s: child said %q", rd.point, line)
				}
				rd.cmd.Process.Signal(syscall.SIGKILL)
				rd.cmd.Wait()
			}()
		}
		wg.Wait()
		// Every key so far: a miss or exactly its binary.
		for r := 0; r < start+batch && r < rounds; r++ {
			if e, ok := reader.Get(all[r].k); ok && !bytes.Equal(e.Binary, binFor(all[r].k, all[r].size)) {
				t.Fatalf("round %d (%s): wrong binary served", r, all[r].point)
			}
		}
	}
	if t.Failed() {
		return
	}
	temps := findFiles(t, dir, tempPrefix)
	if len(temps) == 0 {
		t.Fatal("no temporary files left: the children did not stall mid-write")
	}
	res, err := reader.Prune(PruneOptions{})
	if err != nil || res.Busy != 0 {
		t.Fatalf("sweep: %+v %v", res, err)
	}
	if temps := findFiles(t, dir, tempPrefix); len(temps) != 0 {
		t.Fatalf("sweep left %d temporary files: %v", len(temps), temps)
	}
	if v, _ := reader.Verify(false); len(v.Problems) != 0 {
		t.Fatalf("after the sweep: %+v", v.Problems)
	}
	// Every key can be built and read again; nothing is locked.
	for _, rd := range all {
		e, _, err := reader.GetOrBuild(context.Background(), rd.k, testInfo, func() ([]byte, error) { return binFor(rd.k, rd.size), nil })
		if err != nil || !bytes.Equal(e.Binary, binFor(rd.k, rd.size)) {
			t.Fatalf("%s: %v", rd.point, err)
		}
	}
	if n, ok := reader.readSizeFile(); !ok || n != entrySize(t, reader) {
		t.Errorf("cache_size.txt says %d, entries take %d", n, entrySize(t, reader))
	}
	if !reader.Enabled() {
		t.Fatal(reader.Err())
	}
	t.Logf("%d temporary files swept", len(temps))
}

// A builder that dies releases the key's build lock (the kernel does): a
// process waiting for it then finds no entry and builds.
func TestDeadBuilderReleasesLock(t *testing.T) {
	dir := t.TempDir()
	k := key("dead")
	child := helper(t, "stall", "GOUR_CACHE_DIR="+dir, "GOUR_TEST_POINT=build", "GOUR_TEST_KEY=dead", "GOUR_TEST_SIZE=1000")
	out, _ := child.StdoutPipe()
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	if line, _ := bufio.NewReader(out).ReadString('\n'); line != "STALLED\n" {
		child.Process.Kill()
		t.Fatalf("child said %q", line)
	}
	c := mustOpen(t, dir)
	type result struct {
		e   *Entry
		hit bool
		err error
	}
	done := make(chan result, 1)
	builds := 0
	go func() {
		e, hit, err := c.GetOrBuild(context.Background(), k, testInfo, func() ([]byte, error) {
			builds++
			return binFor(k, 1000), nil
		})
		done <- result{e, hit, err}
	}()
	select {
	case r := <-done:
		t.Fatalf("did not wait for the builder: %+v", r)
	case <-time.After(300 * time.Millisecond):
	}
	child.Process.Signal(syscall.SIGKILL)
	child.Wait()
	select {
	case r := <-done:
		if r.err != nil || r.hit || builds != 1 || !bytes.Equal(r.e.Binary, binFor(k, 1000)) || !r.e.Stored() {
			t.Fatalf("after the builder died: %+v, %d builds", r, builds)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("still waiting after the builder died")
	}
	wantHit(t, mustOpen(t, dir), k, 1000)
}

// Processes storing and reading with eviction running: every hit is the
// right binary.
func TestProcessesChurnWithEviction(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns processes")
	}
	dir := t.TempDir()
	probe := mustOpen(t, dir)
	put(t, probe, key("probe"), 5000)
	max := 8 * entrySize(t, probe)
	var cmds []*exec.Cmd
	var outs []*bytes.Buffer
	for i := 0; i < 4; i++ {
		cmd := helper(t, "churn", "GOUR_CACHE_DIR="+dir, "GOUR_TEST_I="+strconv.Itoa(i), "GOUR_TEST_MAX="+strconv.FormatInt(max, 10))
		var out bytes.Buffer
		cmd.Stdout = &out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds, outs = append(cmds, cmd), append(outs, &out)
	}
	for i, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Errorf("child %d: %v", i, err)
		}
	}
	t.Logf("children: %q", outs)
	c := mustOpen(t, dir)
	if v, err := c.Verify(false); err != nil || len(v.Problems) != 0 {
		t.Fatalf("verify: %v %+v", err, v.Problems)
	}
}
