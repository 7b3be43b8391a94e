package cache

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/gour-dev/gour/internal/harness/testenv"
)

// goesOnUncached checks that the cache is off with exactly one warning
// and that every call still works: Get misses, Put fails with
// ErrDisabled, GetOrBuild builds; nothing warns again.
func goesOnUncached(t *testing.T, c *Cache, rec *testenv.LogRecorder) {
	t.Helper()
	for i := 0; i < 3; i++ {
		k := key(fmt.Sprint("after", i))
		builds := 0
		e, hit, err := c.GetOrBuild(context.Background(), k, testInfo, func() ([]byte, error) {
			builds++
			return binFor(k, 3000), nil
		})
		if err != nil || hit || builds != 1 || !bytes.Equal(e.Binary, binFor(k, 3000)) {
			t.Fatalf("GetOrBuild: hit %v builds %d err %v", hit, builds, err)
		}
		if _, ok := c.Get(k); ok {
			t.Fatal("hit on a disabled cache")
		}
		if err := c.Put(k, []byte("x"), testInfo); !errors.Is(err, ErrDisabled) {
			t.Fatalf("Put: %v", err)
		}
	}
	if c.Enabled() || !errors.Is(c.Err(), ErrDisabled) {
		t.Fatalf("enabled %v, Err %v", c.Enabled(), c.Err())
	}
	if n := rec.Count(slog.LevelWarn); n != 1 {
		t.Fatalf("%d warnings, want exactly 1: %q", n, rec.Messages(slog.LevelWarn))
	}
	t.Logf("warning: %s", rec.Messages(slog.LevelWarn)[0])
}

func TestNoDirectory(t *testing.T) {
	c, rec := openTest(t, "", nil) // no SYCL_CACHE_DIR, XDG_CACHE_HOME or HOME
	goesOnUncached(t, c, rec)
	if !strings.Contains(rec.Messages(slog.LevelWarn)[0], "HOME") {
		t.Error("the warning does not say why")
	}
}

// A file where the root, or the version directory, should be.
func TestRootIsAFile(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	os.WriteFile(file, nil, 0o600)
	for _, root := range []string{file, filepath.Join(file, "cache")} {
		c, rec := openTest(t, root, nil)
		goesOnUncached(t, c, rec)
	}
	root := filepath.Join(dir, "r")
	os.MkdirAll(root, 0o700)
	os.WriteFile(filepath.Join(root, versionDir), nil, 0o600)
	c, rec := openTest(t, root, nil)
	goesOnUncached(t, c, rec)
}

// withOpenHook injects errors at the named points of every write, from Open on.
func withOpenHook(t *testing.T, h func(point string) error) {
	testOpenHook = h
	t.Cleanup(func() { testOpenHook = nil })
}

func injectAt(point string, err error) func(string) error {
	return func(p string) error {
		if p == point {
			return err
		}
		return nil
	}
}

// A full disk in the middle of a run, at each write point of a store,
// turns the cache off (a read-only one makes it read-only: see
// TestReadOnlyMidRun).
func TestWriteFailsMidRun(t *testing.T) {
	for _, point := range []string{"bin:create", "bin:write", "use", "src:create", "src:write", "stored"} {
		t.Run(point, func(t *testing.T) {
			c, rec := openTest(t, t.TempDir(), nil)
			put(t, c, key("before"), 100)
			c.testHook = injectAt(point, &os.PathError{Op: "write", Path: point, Err: syscall.ENOSPC})
			goesOnUncached(t, c, rec)
			c.testHook = nil
			// What was stored before is intact; no debris is left.
			c2 := mustOpen(t, c.root)
			wantHit(t, c2, key("before"), 100)
			if tmp := findFiles(t, c.vdir, tempPrefix); len(tmp) != 0 {
				t.Errorf("temporary files left: %v", tmp)
			}
			res, _ := c2.Verify(false)
			if len(res.Problems) != 0 {
				t.Errorf("verify: %+v", res.Problems)
			}
		})
	}
}

func TestRootDeletedDuringRun(t *testing.T) {
	root := filepath.Join(t.TempDir(), "cache")
	c, rec := openTest(t, root, nil)
	put(t, c, key("a"), 100)
	wantHit(t, c, key("a"), 100)
	if err := os.RemoveAll(root); err != nil {
		t.Fatal(err)
	}
	wantMiss(t, c, key("a"))
	goesOnUncached(t, c, rec)
	if _, err := os.Stat(root); !os.IsNotExist(err) {
		t.Error("the deleted root was made again")
	}
}

func TestForeignOrSharedRoot(t *testing.T) {
	cases := map[string]func(t *testing.T, root string){
		"world-writable": func(t *testing.T, root string) { os.Chmod(root, 0o777) },
		"group-writable": func(t *testing.T, root string) { os.Chmod(root, 0o770) },
		"other user": func(t *testing.T, root string) {
			if os.Geteuid() != 0 {
				t.Skip("chown needs root")
			}
			if err := os.Chown(root, 65534, 65534); err != nil {
				t.Skip(err)
			}
		},
	}
	for name, spoil := range cases {
		t.Run(name, func(t *testing.T) {
			root := filepath.Join(t.TempDir(), "cache")
			os.MkdirAll(root, 0o700)
			spoil(t, root)
			c, rec := openTest(t, root, nil)
			goesOnUncached(t, c, rec)
			// Opting in: SYCL_CACHE_ALLOW_SHARED=1 (or Config.AllowShared).
			c, rec = openTest(t, root, func(cfg *Config) { cfg.Getenv = env(EnvAllowShared, "1") })
			if !c.Enabled() {
				t.Fatalf("shared root refused: %v", c.Err())
			}
			put(t, c, key("k"), 10)
			wantHit(t, c, key("k"), 10)
			leaf := leafOf(c, key("k"))
			if fi, _ := os.Stat(leaf); fi.Mode().Perm() != 0o770 {
				t.Errorf("shared cache directory mode %v", fi.Mode().Perm())
			}
			if fi, _ := os.Stat(filepath.Join(leaf, "0.use")); fi.Mode().Perm() != 0o660 {
				t.Errorf("shared cache use stamp mode %v", fi.Mode().Perm())
			}
			if n := rec.Count(slog.LevelWarn); n != 0 {
				t.Errorf("%d warnings", n)
			}
		})
	}
}

// mountTmpfs mounts a small tmpfs at dir, or skips.
func mountTmpfs(t *testing.T, dir, opts string) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("mounting needs root")
	}
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", opts, "tmpfs", dir).CombinedOutput(); err != nil {
		t.Skipf("mount: %v %s", err, out)
	}
	t.Cleanup(func() { exec.Command("umount", "-l", dir).Run() })
}

// A real full disk: a 256 KiB tmpfs.
func TestFullDiskTmpfs(t *testing.T) {
	dir := t.TempDir()
	mountTmpfs(t, dir, "size=256k,mode=0700")
	c, rec := openTest(t, dir, nil)
	if !c.Enabled() {
		t.Fatal(c.Err())
	}
	for i := 0; i < 40 && c.Enabled(); i++ {
		k := key(fmt.Sprint(i))
		e, _, err := c.GetOrBuild(context.Background(), k, testInfo, func() ([]byte, error) { return binFor(k, 20000), nil })
		if err != nil || !bytes.Equal(e.Binary, binFor(k, 20000)) {
			t.Fatal(err)
		}
	}
	goesOnUncached(t, c, rec)
	if !strings.Contains(rec.Messages(slog.LevelWarn)[0], "no space") {
		t.Errorf("warning: %s", rec.Messages(slog.LevelWarn)[0])
	}
}
