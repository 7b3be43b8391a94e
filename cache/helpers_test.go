package cache

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gour-dev/gour/internal/harness/testenv"
)

// env is a Getenv over a map: the tests never read the real environment.
func env(kv ...string) func(string) string {
	m := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return func(k string) string { return m[k] }
}

// openTest opens a cache in dir with short waits, no automatic sweep and
// a recording logger. mod may change the Config.
func openTest(t testing.TB, dir string, mod func(*Config)) (*Cache, *testenv.LogRecorder) {
	t.Helper()
	rec := &testenv.LogRecorder{}
	cfg := Config{Dir: dir, Logger: slog.New(rec), Getenv: env()}
	if mod != nil {
		mod(&cfg)
	}
	c, err := Open(cfg)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	c.readWait = 50 * time.Millisecond
	c.writeWait = 200 * time.Millisecond
	c.sizeWait = 5 * time.Second
	c.sweepEvery = -1
	return c, rec
}

func mustOpen(t testing.TB, dir string) *Cache {
	t.Helper()
	c, rec := openTest(t, dir, nil)
	if !c.Enabled() {
		t.Fatalf("cache disabled: %v (%v)", c.Err(), rec.Messages(slog.LevelWarn))
	}
	return c
}

var testDevice = DeviceKey{Backend: "opencl", Platform: "Portable Computing Language", Name: "cpu-x86-64", Version: "OpenCL 3.0 PoCL", Driver: "6.0"}

// key makes a test key; its binary is binFor(key).
func key(name string) Key {
	return Key{
		Device:         testDevice,
		Images:         [][32]byte{sha256.Sum256([]byte("image " + name))},
		Spec:           []byte{1, 0, 0, 0},
		CompileOptions: "-cl-fast-relaxed-math -D NAME=" + name,
	}
}

var testInfo = Info{Format: "native", Kernels: []string{"axpy", "scale"}, ImageSize: 1234}

// binFor returns the binary a test stores for k: derived from the key,
// so any binary served for the wrong key is caught.
func binFor(k Key, size int) []byte {
	h := sha256.Sum256([]byte(fmt.Sprintf("%v|%x|%x|%s", k.Device, k.Images, k.Spec, k.CompileOptions)))
	b := bytes.Repeat(h[:], size/32+1)
	return b[:size]
}

func put(t testing.TB, c *Cache, k Key, size int) {
	t.Helper()
	if err := c.Put(k, binFor(k, size), testInfo); err != nil {
		t.Fatalf("Put: %v", err)
	}
}

// wantHit checks that Get(k) serves exactly binFor(k, size).
func wantHit(t testing.TB, c *Cache, k Key, size int) *Entry {
	t.Helper()
	e, ok := c.Get(k)
	if !ok {
		t.Fatalf("Get(%s): miss, want hit", k.CompileOptions)
	}
	if !bytes.Equal(e.Binary, binFor(k, size)) {
		t.Fatalf("Get(%s): wrong binary (%d bytes)", k.CompileOptions, len(e.Binary))
	}
	return e
}

func wantMiss(t testing.TB, c *Cache, k Key) {
	t.Helper()
	if e, ok := c.Get(k); ok {
		t.Fatalf("Get(%s): hit (%d bytes), want miss", k.CompileOptions, len(e.Binary))
	}
}

// leafOf returns the leaf directory of k.
func leafOf(c *Cache, k Key) string {
	rel := leafRel(c.hash, k)
	return filepath.Join(c.vdir, rel[0], rel[1], rel[2], rel[3])
}

// files lists the names in dir (sorted), without the lock files.
func files(t testing.TB, dir string) []string {
	t.Helper()
	des, err := os.ReadDir(dir)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	var out []string
	for _, de := range des {
		if de.Name() != dataLockName && de.Name() != buildLockName {
			out = append(out, de.Name())
		}
	}
	return out
}

// findFiles returns every path under root whose name has the prefix.
func findFiles(t testing.TB, root, prefix string) []string {
	t.Helper()
	var out []string
	filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err == nil && strings.HasPrefix(d.Name(), prefix) {
			out = append(out, p)
		}
		return nil
	})
	return out
}
