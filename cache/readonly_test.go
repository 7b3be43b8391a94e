package cache

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/gour-dev/gour/internal/harness/testenv"
)

// Read-only caches. Permissions do not stop root (CI runs as root), so a
// read-only file system is simulated by the write hook, which fails every
// write the cache makes through it with EROFS, and a snapshot of the tree,
// which catches any write made around it; where mounting is permitted the
// same runs on a real read-only mount.

var errROFS = &fs.PathError{Op: "open", Path: "(test)", Err: syscall.EROFS}

// readOnlyFS is a test hook under which every write fails with EROFS.
func readOnlyFS(string) error { return errROFS }

// snapshot describes every file and directory under root: type, mode,
// size, modification time and content.
func snapshot(t *testing.T, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := os.Lstat(p)
		if err != nil {
			return err
		}
		desc := fmt.Sprintf("%v %d %d", fi.Mode(), fi.Size(), fi.ModTime().UnixNano())
		if fi.Mode().IsRegular() {
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			desc += fmt.Sprintf(" %x", sha256.Sum256(b))
		}
		out[p] = desc
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func sameSnapshot(t *testing.T, before, after map[string]string) {
	t.Helper()
	for p, d := range before {
		if after[p] != d {
			t.Errorf("%s changed: %q, was %q", p, after[p], d)
		}
	}
	for p := range after {
		if _, ok := before[p]; !ok {
			t.Errorf("%s was created", p)
		}
	}
}

// prewarm stores the keys in a cache at dir, as a build step shipping a
// pre-warmed cache would, and returns their binaries' size.
func prewarm(t *testing.T, dir string, keys ...Key) int {
	t.Helper()
	c := mustOpen(t, dir)
	for _, k := range keys {
		put(t, c, k, 700)
	}
	return 700
}

// servesReadOnly checks that c is a read-only cache serving the
// pre-warmed keys: hits, GetOrBuild without a build, a miss built and not
// stored, every write refused with ErrReadOnly, the listing and a check
// working, and exactly one warning.
func servesReadOnly(t *testing.T, c *Cache, rec *testenv.LogRecorder, size int, warm ...Key) {
	t.Helper()
	if !c.Enabled() || !c.ReadOnly() {
		t.Fatalf("enabled %v, read-only %v, Err %v", c.Enabled(), c.ReadOnly(), c.Err())
	}
	for _, k := range warm {
		wantHit(t, c, k, size)
		e, fromCache, err := c.GetOrBuild(context.Background(), k, testInfo, func() ([]byte, error) {
			t.Fatal("built a key the read-only cache holds")
			return nil, nil
		})
		if err != nil || !fromCache || !bytes.Equal(e.Binary, binFor(k, size)) {
			t.Fatalf("GetOrBuild of a pre-warmed key: from cache %v, err %v", fromCache, err)
		}
	}
	cold := key("not pre-warmed")
	builds := 0
	e, fromCache, err := c.GetOrBuild(context.Background(), cold, testInfo, func() ([]byte, error) {
		builds++
		return binFor(cold, 100), nil
	})
	if err != nil || fromCache || builds != 1 || e.Stored() || !bytes.Equal(e.Binary, binFor(cold, 100)) {
		t.Fatalf("GetOrBuild of a new key: from cache %v, builds %d, stored %v, err %v", fromCache, builds, e.Stored(), err)
	}
	wantMiss(t, c, cold)
	if err := c.Put(cold, binFor(cold, 100), testInfo); !errors.Is(err, ErrReadOnly) {
		t.Errorf("Put: %v, want ErrReadOnly", err)
	}
	if _, err := c.Prune(PruneOptions{MaxSize: 1}); !errors.Is(err, ErrReadOnly) {
		t.Errorf("Prune: %v, want ErrReadOnly", err)
	}
	if _, err := c.Clear(); !errors.Is(err, ErrReadOnly) {
		t.Errorf("Clear: %v, want ErrReadOnly", err)
	}
	if _, err := c.Verify(true); !errors.Is(err, ErrReadOnly) {
		t.Errorf("Verify(true): %v, want ErrReadOnly", err)
	}
	list, err := c.List()
	if err != nil || len(list) != len(warm) {
		t.Errorf("List: %d entries, %v; want %d", len(list), err, len(warm))
	}
	st, err := c.Stats()
	if err != nil || st.Entries != len(warm) || !st.ReadOnly {
		t.Errorf("Stats: %+v, %v", st, err)
	}
	if res, err := c.Verify(false); err != nil || res.Good != len(warm) {
		t.Errorf("Verify(false): %+v, %v", res, err)
	}
	if n := rec.Count(slog.LevelWarn); n != 1 {
		t.Fatalf("%d warnings, want exactly 1: %q", n, rec.Messages(slog.LevelWarn))
	}
	if msg := rec.Messages(slog.LevelWarn)[0]; !strings.Contains(msg, "read-only") {
		t.Errorf("warning: %s", msg)
	}
}

// A pre-warmed cache on a read-only file system serves its entries and
// changes nothing on disk: no use stamps, no lock files, no sweep.
func TestReadOnlyRootInjected(t *testing.T) {
	dir := t.TempDir()
	a, b := key("a"), key("b")
	size := prewarm(t, dir, a, b)
	// A cache copied without its lock files (some image builders drop
	// empty files) is read all the same.
	os.Remove(filepath.Join(leafOf(mustOpen(t, dir), b), dataLockName))
	before := snapshot(t, dir)

	withOpenHook(t, readOnlyFS)
	c, rec := openTest(t, dir, func(cfg *Config) { cfg.Getenv = env(EnvMaxSize, "1", EnvThreshold, "1") })
	c.sweepEvery = 0 // a writable cache would sweep on every store
	servesReadOnly(t, c, rec, size, a, b)
	sameSnapshot(t, before, snapshot(t, dir))
}

// A bad entry in a read-only cache is a miss and stays where it is; an
// entry the driver refuses is hidden for the rest of the run.
func TestReadOnlyBadAndRejectedEntries(t *testing.T) {
	dir := t.TempDir()
	good, bad := key("good"), key("bad")
	size := prewarm(t, dir, good, bad)
	os.Truncate(filepath.Join(leafOf(mustOpen(t, dir), bad), "0.bin"), 40)
	before := snapshot(t, dir)

	withOpenHook(t, readOnlyFS)
	c, rec := openTest(t, dir, nil)
	if !c.ReadOnly() {
		t.Fatalf("not read-only: %v", c.Err())
	}
	wantMiss(t, c, bad)
	res, err := c.Verify(false)
	if err != nil || res.Good != 1 || len(res.Problems) != 1 || res.Problems[0].Removed {
		t.Errorf("Verify: %+v, %v", res, err)
	}
	e := wantHit(t, c, good, size)
	if !c.Reject(e) {
		t.Fatal("Reject of a read-only entry: false")
	}
	builds := 0
	_, fromCache, err := c.GetOrBuild(context.Background(), good, testInfo, func() ([]byte, error) {
		builds++
		return binFor(good, size), nil
	})
	if err != nil || fromCache || builds != 1 {
		t.Errorf("after Reject: from cache %v, builds %d, err %v; want a build", fromCache, builds, err)
	}
	if n := rec.Count(slog.LevelWarn); n != 1 {
		t.Errorf("%d warnings: %q", n, rec.Messages(slog.LevelWarn))
	}
	sameSnapshot(t, before, snapshot(t, dir))
	// Another process (a new Cache) still sees the rejected entry.
	wantHit(t, mustOpen(t, dir), good, size)
}

// A root that cannot be written without being read-only (a full disk)
// still turns the cache off.
func TestOnlyReadOnlyErrorsMakeAReadOnlyCache(t *testing.T) {
	withOpenHook(t, injectAt("probe", &os.PathError{Op: "write", Path: "probe", Err: syscall.ENOSPC}))
	c, rec := openTest(t, t.TempDir(), nil)
	goesOnUncached(t, c, rec)
	if c.ReadOnly() {
		t.Error("a full disk made a read-only cache")
	}
}

// The file system turns read-only in the middle of a run, at each write
// point of a store: the cache goes read-only, with one warning, and goes
// on serving what it holds.
func TestReadOnlyMidRun(t *testing.T) {
	for _, point := range []string{"bin:create", "bin:write", "use", "src:create", "src:write", "stored"} {
		t.Run(point, func(t *testing.T) {
			c, rec := openTest(t, t.TempDir(), nil)
			put(t, c, key("before"), 100)
			c.testHook = injectAt(point, &os.PathError{Op: "write", Path: point, Err: syscall.EROFS})
			k := key("during")
			err := c.Put(k, binFor(k, 100), testInfo)
			if !errors.Is(err, syscall.EROFS) || !c.ReadOnly() || !c.Enabled() {
				t.Fatalf("Put: %v; read-only %v, enabled %v", err, c.ReadOnly(), c.Enabled())
			}
			c.testHook = readOnlyFS
			before := snapshot(t, c.root)
			wantHit(t, c, key("before"), 100)
			if err := c.Put(k, binFor(k, 100), testInfo); !errors.Is(err, ErrReadOnly) {
				t.Errorf("second Put: %v", err)
			}
			if n := rec.Count(slog.LevelWarn); n != 1 {
				t.Errorf("%d warnings: %q", n, rec.Messages(slog.LevelWarn))
			}
			sameSnapshot(t, before, snapshot(t, c.root))
		})
	}
}

// remountReadOnly makes the tmpfs at dir read-only, or skips.
func remountReadOnly(t *testing.T, dir string) {
	t.Helper()
	if out, err := exec.Command("mount", "-o", "remount,ro", dir).CombinedOutput(); err != nil {
		t.Skipf("remount: %v %s", err, out)
	}
}

// A real read-only file system, from the start and in the middle of a run.
func TestReadOnlyTmpfs(t *testing.T) {
	dir := t.TempDir()
	mountTmpfs(t, dir, "size=1m,mode=0700")
	c, rec := openTest(t, dir, nil)
	a := key("a")
	put(t, c, a, 700)
	remountReadOnly(t, dir)
	wantHit(t, c, a, 700)
	k := key("b")
	if err := c.Put(k, binFor(k, 100), testInfo); !errors.Is(err, syscall.EROFS) || !c.ReadOnly() {
		t.Fatalf("Put on a file system turned read-only: %v, read-only %v", err, c.ReadOnly())
	}
	wantHit(t, c, a, 700)
	if n := rec.Count(slog.LevelWarn); n != 1 {
		t.Errorf("%d warnings: %q", n, rec.Messages(slog.LevelWarn))
	}
	c, rec = openTest(t, dir, nil)
	servesReadOnly(t, c, rec, 700, a)
}

// A read-only root without a version directory is an empty read-only
// cache, not a disabled one.
func TestReadOnlyEmptyTmpfs(t *testing.T) {
	dir := t.TempDir()
	mountTmpfs(t, dir, "size=1m,mode=0700,ro")
	c, rec := openTest(t, dir, nil)
	if !c.ReadOnly() || !c.Enabled() {
		t.Fatalf("read-only %v, enabled %v, err %v", c.ReadOnly(), c.Enabled(), c.Err())
	}
	wantMiss(t, c, key("a"))
	if list, err := c.List(); err != nil || len(list) != 0 {
		t.Errorf("List: %v, %v", list, err)
	}
	if res, err := c.Verify(false); err != nil || res.Entries != 0 {
		t.Errorf("Verify: %+v, %v", res, err)
	}
	if n := rec.Count(slog.LevelWarn); n != 1 {
		t.Errorf("%d warnings: %q", n, rec.Messages(slog.LevelWarn))
	}
}
