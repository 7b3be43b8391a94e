//go:build unix

package cache

import (
	"bytes"
	"context"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// plantFunc puts something that is not a regular file at path; outside
// is a directory out of the cache that links may point into.
type plantFunc func(t *testing.T, path, outside string)

var impostors = []struct {
	name  string
	plant plantFunc
}{
	{"empty directory", func(t *testing.T, path, _ string) { must(t, os.Mkdir(path, 0o700)) }},
	{"directory", func(t *testing.T, path, outside string) {
		must(t, os.MkdirAll(filepath.Join(path, "sub"), 0o700))
		must(t, os.WriteFile(filepath.Join(path, "sub", "f"), []byte("x"), 0o600))
		must(t, os.Symlink(filepath.Join(outside, "target"), filepath.Join(path, "link")))
		must(t, os.Symlink(outside, filepath.Join(path, "sub", "dirlink")))
	}},
	{"fifo", func(t *testing.T, path, _ string) { must(t, syscall.Mkfifo(path, 0o600)) }},
	{"socket", plantSocket},
	{"link to a file", func(t *testing.T, path, outside string) {
		must(t, os.Symlink(filepath.Join(outside, "target"), path))
	}},
	{"link to a directory", func(t *testing.T, path, outside string) { must(t, os.Symlink(outside, path)) }},
	{"dangling link", func(t *testing.T, path, outside string) {
		must(t, os.Symlink(filepath.Join(outside, "none"), path))
	}},
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// plantSocket binds a Unix socket at a short path (socket paths are
// limited to about 100 bytes; cache paths are longer) and moves it.
func plantSocket(t *testing.T, path, _ string) {
	short, err := os.MkdirTemp("", "s")
	must(t, err)
	defer os.RemoveAll(short)
	l, err := net.Listen("unix", filepath.Join(short, "s"))
	if err != nil {
		t.Skipf("unix socket: %v", err)
	}
	l.(*net.UnixListener).SetUnlinkOnClose(false)
	l.Close()
	must(t, os.Rename(filepath.Join(short, "s"), path))
}

// Something that is not a regular file where an entry's .src, .bin or
// use stamp, or a lock file, belongs is removed — never what a link
// points to — and the entry is cached again: the next run is a hit.
func TestNonRegularFilesHeal(t *testing.T) {
	for _, place := range []string{"0.src", "0.bin", "0.use", dataLockName, buildLockName} {
		for _, imp := range impostors {
			t.Run(place+"/"+imp.name, func(t *testing.T) {
				c, rec := openTest(t, t.TempDir(), nil)
				outside := t.TempDir()
				must(t, os.WriteFile(filepath.Join(outside, "target"), []byte("not the cache's"), 0o600))
				outsideBefore := snapshot(t, outside)
				k := key("k")
				build := func() ([]byte, error) { return binFor(k, 500), nil }
				if _, _, err := c.GetOrBuild(context.Background(), k, testInfo, build); err != nil {
					t.Fatal(err)
				}
				path := filepath.Join(leafOf(c, k), place)
				must(t, os.Remove(path))
				imp.plant(t, path, outside)
				if place == buildLockName {
					// Only a miss takes the build lock.
					must(t, os.Remove(filepath.Join(leafOf(c, k), "0.src")))
				}

				builds := 0
				build = func() ([]byte, error) { builds++; return binFor(k, 500), nil }
				for run := 0; run < 2; run++ {
					e, _, err := c.GetOrBuild(context.Background(), k, testInfo, build)
					if err != nil || !bytes.Equal(e.Binary, binFor(k, 500)) {
						t.Fatalf("run %d: %v", run, err)
					}
				}
				_, fromCache, err := c.GetOrBuild(context.Background(), k, testInfo, build)
				if err != nil || !fromCache || builds > 1 {
					t.Fatalf("after healing: from cache %v, %d builds, err %v; want a hit and at most one build", fromCache, builds, err)
				}
				if fi, err := os.Lstat(path); err != nil || !fi.Mode().IsRegular() {
					t.Errorf("%s: %v, %v; want a regular file", place, fi.Mode(), err)
				}
				if !c.Enabled() || rec.Count(slog.LevelWarn) != 0 {
					t.Errorf("enabled %v, warnings %q", c.Enabled(), rec.Messages(slog.LevelWarn))
				}
				if res, err := c.Verify(false); err != nil || res.Good != 1 || len(res.Problems) != 0 {
					t.Errorf("Verify: %+v, %v", res, err)
				}
				sameSnapshot(t, outsideBefore, snapshot(t, outside))
			})
		}
	}
}

// Put, Get and a read-only cache meet the same debris: Put replaces it,
// a read-only cache leaves it and misses.
func TestNonRegularFilesPutAndReadOnly(t *testing.T) {
	for _, place := range []string{"0.src", "0.bin"} {
		t.Run(place, func(t *testing.T) {
			dir := t.TempDir()
			c := mustOpen(t, dir)
			k := key("k")
			put(t, c, k, 500)
			path := filepath.Join(leafOf(c, k), place)
			must(t, os.Remove(path))
			impostors[1].plant(t, path, t.TempDir()) // a directory with contents

			withOpenHook(t, readOnlyFS)
			ro, _ := openTest(t, dir, nil)
			before := snapshot(t, dir)
			wantMiss(t, ro, k)
			sameSnapshot(t, before, snapshot(t, dir))
			testOpenHook = nil

			put(t, c, k, 500)
			wantHit(t, c, k, 500)
		})
	}
}
