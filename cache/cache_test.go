package cache

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gour-dev/gour/internal/harness/testenv"
)

func TestPutGet(t *testing.T) {
	dir := t.TempDir()
	c := mustOpen(t, dir)
	k := key("a")
	wantMiss(t, c, k)
	put(t, c, k, 10240)
	e := wantHit(t, c, k, 10240)
	if !e.Key.Equal(k) || !slices.Equal(e.Info.Kernels, testInfo.Kernels) || e.Info.Format != "native" || e.Info.ImageSize != 1234 {
		t.Errorf("entry = %+v %+v", e.Key, e.Info)
	}
	if !e.Stored() {
		t.Error("Stored() = false for an entry read from disk")
	}
	// A new Cache (a new process) finds it too.
	wantHit(t, mustOpen(t, dir), k, 10240)
	// Layout: <root>/v1/<device>/<images>/<spec>/<options>/0.src|0.bin|0.use
	leaf := leafOf(c, k)
	if got := files(t, leaf); !slices.Equal(got, []string{"0.bin", "0.src", "0.use"}) {
		t.Errorf("leaf holds %v", got)
	}
	rel, _ := filepath.Rel(dir, leaf)
	if parts := strings.Split(rel, string(filepath.Separator)); len(parts) != 5 || parts[0] != "v1" {
		t.Errorf("leaf path %s", rel)
	}
	for _, p := range []string{filepath.Join(dir, "v1"), leaf} {
		if fi, _ := os.Stat(p); fi.Mode().Perm() != 0o700 {
			t.Errorf("%s: mode %v, want 0700", p, fi.Mode().Perm())
		}
	}
	for _, n := range []string{"0.src", "0.bin", "0.use", "lock"} {
		if fi, _ := os.Stat(filepath.Join(leaf, n)); fi.Mode().Perm() != 0o600 {
			t.Errorf("%s: mode %v, want 0600", n, fi.Mode().Perm())
		}
	}
	// Putting the same key again keeps the entry.
	put(t, c, k, 10240)
	if got := files(t, leaf); len(got) != 3 {
		t.Errorf("after a second Put the leaf holds %v", got)
	}
	got := c.Counters()
	if got.Hits != 1 || got.Misses != 1 || got.Stores != 1 {
		t.Errorf("counters %+v", got)
	}
}

// Keys differing in any one field are different entries; spec values
// with NUL bytes work (intel/llvm KeysWithNullTermSymbol).
func TestKeyMismatch(t *testing.T) {
	c := mustOpen(t, t.TempDir())
	base := key("base")
	base.Spec = []byte{'1', 0, '3', '4', 0}
	base.CompileOptions, base.LinkOptions = "-D A=1", "-cl-denorms-are-zero"
	put(t, c, base, 128)
	variants := map[string]func(*Key){
		"backend":         func(k *Key) { k.Device.Backend = "level_zero" },
		"platform":        func(k *Key) { k.Device.Platform += " " },
		"device name":     func(k *Key) { k.Device.Name = "other" },
		"version":         func(k *Key) { k.Device.Version = "OpenCL 2.0" },
		"driver":          func(k *Key) { k.Device.Driver = "6.1" },
		"image":           func(k *Key) { k.Images = [][32]byte{{1}} },
		"second image":    func(k *Key) { k.Images = append(slices.Clone(k.Images), [32]byte{2}) },
		"no image":        func(k *Key) { k.Images = nil },
		"spec":            func(k *Key) { k.Spec = []byte{'1', 0, '3', '4', 1} },
		"spec prefix":     func(k *Key) { k.Spec = k.Spec[:4] },
		"no spec":         func(k *Key) { k.Spec = nil },
		"compile options": func(k *Key) { k.CompileOptions = "-D A=2" },
		"link options":    func(k *Key) { k.LinkOptions = "" },
		"options moved":   func(k *Key) { k.CompileOptions, k.LinkOptions = k.LinkOptions, k.CompileOptions },
		"options joined":  func(k *Key) { k.CompileOptions, k.LinkOptions = k.CompileOptions+" "+k.LinkOptions, "" },
		"field shifted": func(k *Key) {
			k.Device.Name, k.Device.Version = k.Device.Name+k.Device.Version[:1], k.Device.Version[1:]
		},
	}
	for name, mod := range variants {
		t.Run(name, func(t *testing.T) {
			k := base
			mod(&k)
			if k.Equal(base) {
				t.Fatal("variant equals base")
			}
			wantMiss(t, c, k)
		})
	}
	wantHit(t, c, base, 128)
	// Options with a NUL byte (which no driver reads past) are not cached.
	for _, mod := range []func(*Key){
		func(k *Key) { k.CompileOptions += "\x00-O0" },
		func(k *Key) { k.LinkOptions = "\x00" },
	} {
		k := base
		mod(&k)
		if err := c.Put(k, binFor(k, 10), testInfo); !errors.Is(err, ErrNotCacheable) {
			t.Errorf("options %q, %q: Put: %v", k.CompileOptions, k.LinkOptions, err)
		}
	}
	// nil and empty spec are one key.
	k := key("empty")
	k.Spec = nil
	put(t, c, k, 64)
	k.Spec = []byte{}
	wantHit(t, c, k, 64)
}

// Colliding hashes share a directory; the full key picks the entry, and a
// colliding entry is never served.
func TestHashCollision(t *testing.T) {
	c := mustOpen(t, t.TempDir())
	c.hash = func([]byte) [32]byte { return [32]byte{0xab} } // every key collides
	a, b, d := key("a"), key("b"), key("d")
	put(t, c, a, 100)
	put(t, c, b, 200)
	wantMiss(t, c, d)
	wantHit(t, c, a, 100)
	wantHit(t, c, b, 200)
	if leafOf(c, a) != leafOf(c, b) {
		t.Fatal("keys do not collide")
	}
	if got := files(t, leafOf(c, a)); !slices.Equal(got, []string{"0.bin", "0.src", "0.use", "1.bin", "1.src", "1.use"}) {
		t.Fatalf("leaf holds %v", got)
	}
	// Removing entry 0 leaves a hole; entry 1 is still found, and the next
	// store fills the hole.
	e, _ := c.Get(a)
	if !c.Reject(e) {
		t.Fatal("Reject failed")
	}
	wantHit(t, c, b, 200)
	put(t, c, d, 300)
	wantHit(t, c, d, 300)
	if _, err := os.Stat(filepath.Join(leafOf(c, d), "0.src")); err != nil {
		t.Errorf("the hole was not reused: %v", err)
	}
}

// An entry moved into another key's directory (a forced collision with
// the real hash) is not served for that key.
func TestForcedCollidingDirectory(t *testing.T) {
	c := mustOpen(t, t.TempDir())
	a, b := key("a"), key("b")
	put(t, c, a, 100)
	la, lb := leafOf(c, a), leafOf(c, b)
	if err := os.MkdirAll(lb, 0o700); err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"0.src", "0.bin", "0.use"} {
		if err := os.Rename(filepath.Join(la, n), filepath.Join(lb, n)); err != nil {
			t.Fatal(err)
		}
	}
	wantMiss(t, c, b)
	wantMiss(t, c, a)
	put(t, c, b, 200)
	wantHit(t, c, b, 200)
	if _, err := os.Stat(filepath.Join(lb, "1.src")); err != nil {
		t.Errorf("b was not stored beside the colliding entry: %v", err)
	}
}

// intel/llvm CorruptedCacheFiles and more: every bad entry is a miss, is
// removed, and is rebuilt by the next store.
func TestCorruptedFiles(t *testing.T) {
	other := func(t *testing.T, c *Cache) []byte {
		put(t, c, key("other"), 500)
		b, err := os.ReadFile(filepath.Join(leafOf(c, key("other")), "0.bin"))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	cases := map[string]func(t *testing.T, c *Cache, leaf string){
		"only .src": func(t *testing.T, c *Cache, leaf string) { os.Remove(filepath.Join(leaf, "0.bin")) },
		"only .bin": func(t *testing.T, c *Cache, leaf string) { os.Remove(filepath.Join(leaf, "0.src")) },
		"empty .src": func(t *testing.T, c *Cache, leaf string) {
			os.WriteFile(filepath.Join(leaf, "0.src"), nil, 0o600)
		},
		"empty .bin": func(t *testing.T, c *Cache, leaf string) {
			os.WriteFile(filepath.Join(leaf, "0.bin"), nil, 0o600)
		},
		"truncated .src": func(t *testing.T, c *Cache, leaf string) { os.Truncate(filepath.Join(leaf, "0.src"), 40) },
		"truncated .bin": func(t *testing.T, c *Cache, leaf string) { os.Truncate(filepath.Join(leaf, "0.bin"), 3000) },
		"header only .bin": func(t *testing.T, c *Cache, leaf string) {
			os.Truncate(filepath.Join(leaf, "0.bin"), headerSize)
		},
		"garbage .src": func(t *testing.T, c *Cache, leaf string) {
			os.WriteFile(filepath.Join(leaf, "0.src"), bytes.Repeat([]byte("garbage!"), 100), 0o600)
		},
		"bit flip .bin": func(t *testing.T, c *Cache, leaf string) {
			p := filepath.Join(leaf, "0.bin")
			b, _ := os.ReadFile(p)
			b[len(b)/2] ^= 0x10
			os.WriteFile(p, b, 0o600)
		},
		"bit flip .src header length": func(t *testing.T, c *Cache, leaf string) {
			p := filepath.Join(leaf, "0.src")
			b, _ := os.ReadFile(p)
			b[20] = 0xff // payload length ≈ 2^32·255
			os.WriteFile(p, b, 0o600)
		},
		"foreign .src (a .bin)": func(t *testing.T, c *Cache, leaf string) {
			b, _ := os.ReadFile(filepath.Join(leaf, "0.bin"))
			os.WriteFile(filepath.Join(leaf, "0.src"), b, 0o600)
		},
		"DPC++-style .bin": func(t *testing.T, c *Cache, leaf string) {
			// intel/llvm's test: "binary for 2 devices, the second truncated".
			os.WriteFile(filepath.Join(leaf, "0.bin"), []byte("212123456789012231234"), 0o600)
		},
		".bin of another entry": func(t *testing.T, c *Cache, leaf string) {
			os.WriteFile(filepath.Join(leaf, "0.bin"), other(t, c), 0o600)
		},
		"newer format version": func(t *testing.T, c *Cache, leaf string) {
			p := filepath.Join(leaf, "0.src")
			b, _ := os.ReadFile(p)
			b[9] = formatVersion + 1
			os.WriteFile(p, b, 0o600)
		},
		".src is a directory": func(t *testing.T, c *Cache, leaf string) {
			os.Remove(filepath.Join(leaf, "0.src"))
			os.Mkdir(filepath.Join(leaf, "0.src"), 0o700)
		},
	}
	for name, corrupt := range cases {
		t.Run(name, func(t *testing.T) {
			c := mustOpen(t, t.TempDir())
			k := key("k")
			put(t, c, k, 4096)
			leaf := leafOf(c, k)
			corrupt(t, c, leaf)
			wantMiss(t, c, k)
			if name != ".src is a directory" {
				if got := files(t, leaf); len(got) != 0 {
					t.Errorf("bad entry not removed: %v", got)
				}
			}
			put(t, c, k, 4096)
			wantHit(t, c, k, 4096)
			if got := c.Counters().Corrupt; got == 0 {
				t.Error("Corrupt counter not incremented")
			}
		})
	}
}

// A bad entry is removed only if it is still the file that was read.
func TestBadEntryReplacedBeforeRemoval(t *testing.T) {
	c := mustOpen(t, t.TempDir())
	k := key("k")
	put(t, c, k, 4096)
	leaf := leafOf(c, k)
	good, _ := os.ReadFile(filepath.Join(leaf, "0.src"))
	os.Truncate(filepath.Join(leaf, "0.src"), 10)
	var once sync.Once
	c.testHook = func(point string) error {
		if point == "remove-bad" {
			once.Do(func() {
				// Another process repairs the entry between our read and our removal.
				tmp := filepath.Join(leaf, "x")
				os.WriteFile(tmp, good, 0o600)
				os.Rename(tmp, filepath.Join(leaf, "0.src"))
			})
		}
		return nil
	}
	wantMiss(t, c, k)
	c.testHook = nil
	wantHit(t, c, k, 4096)
}

func TestRemoveIfUnchanged(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f")
	os.WriteFile(p, []byte("one"), 0o600)
	was, _ := os.Lstat(p)
	tmp := filepath.Join(dir, "g")
	os.WriteFile(tmp, []byte("two"), 0o600)
	os.Rename(tmp, p)
	if removeIfUnchanged(p, was) != 0 {
		t.Fatal("removed a replaced file")
	}
	if _, err := os.Stat(p); err != nil {
		t.Fatal(err)
	}
	now, _ := os.Lstat(p)
	if removeIfUnchanged(p, now) != 3 {
		t.Fatal("did not remove an unchanged file")
	}
}

// intel/llvm LockFile: an entry locked by a writer is a miss for a reader
// (after a short wait), is served once the lock is gone, and a lock held
// by a process that died blocks nobody.
func TestLockedEntry(t *testing.T) {
	c := mustOpen(t, t.TempDir())
	k := key("k")
	put(t, c, k, 1000)
	leaf := leafOf(c, k)
	l, err := c.tryLock(filepath.Join(leaf, dataLockName), true)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	wantMiss(t, c, k)
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("a locked entry took %v to miss", d)
	}
	if err := c.Put(k, binFor(k, 1000), testInfo); !errors.Is(err, ErrBusy) {
		t.Errorf("Put on a locked entry: %v, want busy", err)
	}
	if !c.Enabled() {
		t.Fatal("a busy entry disabled the cache")
	}
	l.unlock()
	wantHit(t, c, k, 1000)
	// A lock file left behind (no holder) blocks nothing.
	os.WriteFile(filepath.Join(leaf, buildLockName), []byte("stale"), 0o600)
	e, hit, err := c.GetOrBuild(context.Background(), k, testInfo, func() ([]byte, error) { return nil, errors.New("built") })
	if err != nil || !hit || !bytes.Equal(e.Binary, binFor(k, 1000)) {
		t.Fatalf("GetOrBuild: %v %v", hit, err)
	}
}

// A build lock held by another builder: GetOrBuild waits; its context
// ends the wait without building.
func TestGetOrBuildWaitCancelled(t *testing.T) {
	c := mustOpen(t, t.TempDir())
	k := key("k")
	leaf, err := c.ensureLeaf(leafRel(c.hash, k))
	if err != nil {
		t.Fatal(err)
	}
	l, err := c.tryLock(filepath.Join(leaf, buildLockName), true)
	if err != nil {
		t.Fatal(err)
	}
	defer l.unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	built := false
	_, _, err = c.GetOrBuild(ctx, k, testInfo, func() ([]byte, error) { built = true; return nil, nil })
	if !errors.Is(err, context.DeadlineExceeded) || built {
		t.Fatalf("err %v, built %v", err, built)
	}
}

func TestGetOrBuildGoroutines(t *testing.T) {
	c := mustOpen(t, t.TempDir())
	k := key("k")
	var builds atomic.Int32
	var wg sync.WaitGroup
	errs := make(chan error, 32)
	for i := 0; i < 32; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			e, _, err := c.GetOrBuild(context.Background(), k, testInfo, func() ([]byte, error) {
				builds.Add(1)
				time.Sleep(20 * time.Millisecond)
				return binFor(k, 5000), nil
			})
			if err == nil && !bytes.Equal(e.Binary, binFor(k, 5000)) {
				err = errors.New("wrong binary")
			}
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if n := builds.Load(); n != 1 {
		t.Fatalf("%d builds, want 1", n)
	}
}

func TestGetOrBuildFailures(t *testing.T) {
	c := mustOpen(t, t.TempDir())
	k := key("k")
	boom := errors.New("build failed")
	if _, _, err := c.GetOrBuild(context.Background(), k, testInfo, func() ([]byte, error) { return nil, boom }); !errors.Is(err, boom) {
		t.Fatalf("err %v", err)
	}
	wantMiss(t, c, k)
	// A panicking build releases the locks; the panic goes on.
	func() {
		defer func() {
			if recover() == nil {
				t.Fatal("no panic")
			}
		}()
		c.GetOrBuild(context.Background(), k, testInfo, func() ([]byte, error) { panic("boom") })
	}()
	done := make(chan struct{})
	go func() {
		defer close(done)
		e, hit, err := c.GetOrBuild(context.Background(), k, testInfo, func() ([]byte, error) { return binFor(k, 10), nil })
		if err != nil || hit || !e.Stored() {
			t.Errorf("after a panic: hit %v, err %v", hit, err)
		}
	}()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("GetOrBuild blocked after a panicking build")
	}
	e, hit, err := c.GetOrBuild(context.Background(), k, testInfo, nil)
	if err != nil || !hit || !bytes.Equal(e.Binary, binFor(k, 10)) {
		t.Fatalf("hit %v err %v", hit, err)
	}
	if !c.Enabled() {
		t.Fatal("build failures disabled the cache")
	}
}

// The driver refused a binary: Reject removes it, unless the entry was
// replaced since it was read.
func TestReject(t *testing.T) {
	c := mustOpen(t, t.TempDir())
	k := key("k")
	put(t, c, k, 100)
	e := wantHit(t, c, k, 100)
	e2 := wantHit(t, c, k, 100)
	if !c.Reject(e) {
		t.Fatal("Reject: not removed")
	}
	wantMiss(t, c, k)
	if c.Reject(e2) {
		t.Fatal("Reject of an entry already removed reported a removal")
	}
	put(t, c, k, 100) // another process stored a new binary
	if c.Reject(e2) {
		t.Fatal("Reject removed an entry stored after the read")
	}
	wantHit(t, c, k, 100)
	// GetOrBuild after a rejection builds and stores again.
	e3, hit, _ := c.GetOrBuild(context.Background(), k, testInfo, nil)
	if !hit || !c.Reject(e3) {
		t.Fatal("reject of a GetOrBuild entry")
	}
	e4, hit, err := c.GetOrBuild(context.Background(), k, testInfo, func() ([]byte, error) { return binFor(k, 100), nil })
	if err != nil || hit || !e4.Stored() {
		t.Fatalf("rebuild: hit %v err %v", hit, err)
	}
	// A freshly built entry can be rejected too.
	if !c.Reject(e4) {
		t.Fatal("Reject of a stored build")
	}
	if got := c.Counters().Rejects; got != 3 {
		t.Errorf("Rejects = %d", got)
	}
}

func TestImageSizeLimits(t *testing.T) {
	min, max := int64(100), int64(1000)
	c, _ := openTest(t, t.TempDir(), func(cfg *Config) { cfg.MinImageSize, cfg.MaxImageSize = &min, &max })
	for _, size := range []int64{99, 1001} {
		k := key("k")
		info := Info{ImageSize: size}
		if err := c.Put(k, []byte("x"), info); !errors.Is(err, ErrNotCacheable) {
			t.Errorf("size %d: Put err %v", size, err)
		}
		builds := 0
		for i := 0; i < 2; i++ {
			_, hit, _ := c.GetOrBuild(context.Background(), k, info, func() ([]byte, error) { builds++; return []byte("x"), nil })
			if hit {
				t.Errorf("size %d: hit", size)
			}
		}
		if builds != 2 {
			t.Errorf("size %d: %d builds", size, builds)
		}
	}
	if err := c.Put(key("ok"), []byte("x"), Info{ImageSize: 100}); err != nil {
		t.Error(err)
	}
	if !c.Cacheable(Info{ImageSize: 1000}) || c.Cacheable(Info{ImageSize: 1001}) {
		t.Error("Cacheable")
	}
}

// Links inside the cache are never followed.
func TestSymlinks(t *testing.T) {
	c := mustOpen(t, t.TempDir())
	outside := t.TempDir()
	k := key("k")
	put(t, c, k, 300)
	leaf := leafOf(c, k)
	// A .src that is a link to a valid .src elsewhere.
	os.Rename(filepath.Join(leaf, "0.src"), filepath.Join(outside, "0.src"))
	os.Symlink(filepath.Join(outside, "0.src"), filepath.Join(leaf, "0.src"))
	wantMiss(t, c, k)
	if _, err := os.Lstat(filepath.Join(leaf, "0.src")); !os.IsNotExist(err) {
		t.Errorf("link not removed: %v", err)
	}
	if _, err := os.Stat(filepath.Join(outside, "0.src")); err != nil {
		t.Errorf("link target touched: %v", err)
	}
	// A directory on the way that is a link: a miss, and a store replaces
	// the link by a directory without writing through it.
	put(t, c, k, 300)
	opts := leaf
	spec := filepath.Dir(opts)
	moved := filepath.Join(outside, "spec")
	os.Rename(spec, moved)
	os.Symlink(moved, spec)
	wantMiss(t, c, k)
	put(t, c, k, 300)
	if fi, err := os.Lstat(spec); err != nil || !fi.IsDir() {
		t.Fatalf("link on the way not replaced: %v", err)
	}
	wantHit(t, c, k, 300)
	before := findFiles(t, moved, "")
	put(t, c, key("k2"), 10)
	if after := findFiles(t, moved, ""); !slices.Equal(before, after) {
		t.Error("wrote through a link")
	}
	// A lock file that is a link: not followed, replaced by a file.
	lk := filepath.Join(leaf, dataLockName)
	os.Remove(lk)
	os.Symlink(filepath.Join(outside, "lock"), lk)
	wantHit(t, c, k, 300)
	if _, err := os.Stat(filepath.Join(outside, "lock")); !os.IsNotExist(err) {
		t.Error("created the lock through a link")
	}
	if fi, err := os.Lstat(lk); err != nil || !fi.Mode().IsRegular() {
		t.Errorf("lock link not replaced: %v", err)
	}
}

func TestTrace(t *testing.T) {
	on := true
	c, rec := openTest(t, t.TempDir(), func(cfg *Config) { cfg.Trace = &on })
	k := key("k")
	c.Get(k)
	put(t, c, k, 10)
	e, _ := c.Get(k)
	c.Reject(e)
	msgs := strings.Join(rec.Messages(slog.LevelInfo), "\n")
	for _, want := range []string{"persistent cache miss", "persistent cache store", "persistent cache hit", "persistent cache reject"} {
		if !strings.Contains(msgs, want) {
			t.Errorf("trace lacks %q:\n%s", want, msgs)
		}
	}
	// SYCL_CACHE_TRACE=1 turns it on, 2 (the in-memory cache) does not.
	for v, want := range map[string]bool{"1": true, "3": true, "2": false, "0": false} {
		rec := &testenv.LogRecorder{}
		c, err := Open(Config{Dir: t.TempDir(), Logger: slog.New(rec), Getenv: env(EnvTrace, v)})
		if err != nil {
			t.Fatal(err)
		}
		c.Get(k)
		if got := rec.Count(slog.LevelInfo) > 0; got != want {
			t.Errorf("SYCL_CACHE_TRACE=%s: traced %v", v, got)
		}
	}
}

func TestSettings(t *testing.T) {
	bad := map[string]string{
		EnvPersistent:      "yes",
		EnvMaxSize:         "10X",
		EnvThreshold:       "-1",
		EnvEvictionDisable: "disable",
		EnvMinImageSize:    "1e3",
		EnvMaxImageSize:    "-5",
		EnvTrace:           "x",
		EnvAllowShared:     "2",
	}
	for name, v := range bad {
		_, err := Open(Config{Dir: t.TempDir(), Getenv: env(name, v)})
		var se *SettingError
		if !errors.As(err, &se) || se.Name != name || !strings.Contains(err.Error(), name) {
			t.Errorf("%s=%s: err %v", name, v, err)
		}
	}
	if _, err := Open(Config{Dir: t.TempDir(), Getenv: env(EnvMinImageSize, "10", EnvMaxImageSize, "5")}); err == nil {
		t.Error("min > max accepted")
	}
	s, err := Config{Getenv: env("HOME", "/home/u")}.resolve()
	if err != nil {
		t.Fatal(err)
	}
	if !s.persistent || s.maxSize != 0 || s.thresholdDays != 0 || s.evictionDisabled || s.minImage != 0 ||
		s.maxImage != 1<<30 || s.allowShared || s.trace || s.dir != "/home/u/.cache/gour" {
		t.Errorf("defaults: %+v", s)
	}
	s, _ = Config{Getenv: env("HOME", "/home/u", "XDG_CACHE_HOME", "/xdg")}.resolve()
	if s.dir != "/xdg/gour" {
		t.Errorf("XDG: %s", s.dir)
	}
	s, _ = Config{Getenv: env("HOME", "/home/u", "XDG_CACHE_HOME", "/xdg", EnvDir, "/d")}.resolve()
	if s.dir != "/d" {
		t.Errorf("SYCL_CACHE_DIR: %s", s.dir)
	}
	s, _ = Config{Getenv: env(EnvMaxSize, "1000", EnvThreshold, "7", EnvEvictionDisable, "1", EnvPersistent, "0",
		EnvMinImageSize, "1", EnvMaxImageSize, "2", EnvAllowShared, "1", EnvTrace, "1")}.resolve()
	if s.persistent || s.maxSize != 1000 || s.thresholdDays != 7 || !s.evictionDisabled || s.minImage != 1 ||
		s.maxImage != 2 || !s.allowShared || !s.trace || s.dir != "" {
		t.Errorf("from env: %+v", s)
	}
	// The API wins.
	yes, zero := true, int64(0)
	s, _ = Config{Dir: "/api", Persistent: &yes, MaxSize: &zero, Getenv: env(EnvDir, "/d", EnvPersistent, "0", EnvMaxSize, "5")}.resolve()
	if s.dir != "/api" || !s.persistent || s.maxSize != 0 {
		t.Errorf("API: %+v", s)
	}
}

// SYCL_CACHE_PERSISTENT=0: off, silently.
func TestPersistentOff(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "c")
	c, rec := openTest(t, dir, func(cfg *Config) { cfg.Getenv = env(EnvPersistent, "0") })
	if c.Enabled() || rec.Count(slog.LevelWarn) != 0 || !errors.Is(c.Err(), ErrDisabled) {
		t.Fatalf("enabled %v, warnings %d, err %v", c.Enabled(), rec.Count(slog.LevelWarn), c.Err())
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Error("a disabled cache made its directory")
	}
	if err := c.Put(key("k"), nil, testInfo); !errors.Is(err, ErrDisabled) {
		t.Error(err)
	}
}
