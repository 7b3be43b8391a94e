package programmgr

import (
	"os"
	"testing"

	"github.com/gour-dev/gour/cache"
	"github.com/gour-dev/gour/programmgr/internal/faultinject"
	"github.com/gour-dev/gour/ur"
)

// openDiskAt opens a persistent cache in dir, as a new process would.
func openDiskAt(t testing.TB, dir string) *cache.Cache {
	t.Helper()
	c, err := cache.Open(cache.Config{Dir: dir, Persistent: ptr(true)})
	if err != nil {
		t.Fatal(err)
	}
	if !c.Enabled() {
		t.Fatalf("cache in %s is disabled: %v", dir, c.Err())
	}
	return c
}

// TestDiskCacheServesANewManager: a manager over a new context (what a
// restarted process has) gets the program from the binary the first one
// stored, without building, and the kernel computes the same.
func TestDiskCacheServesANewManager(t *testing.T) {
	dir := t.TempDir()
	img := image(t, 7, "k0", "k1")
	first := newFixture(t, Options{DiskCache: openDiskAt(t, dir)}, 1)
	k := first.getKernel(img, "k1")
	first.runAndRelease(k, 8, "first manager: k1")
	if n := first.ctl.Calls(faultinject.CreateSource); n != 1 {
		t.Errorf("first manager: %d programs from source, want 1", n)
	}

	second := newFixture(t, Options{DiskCache: openDiskAt(t, dir)}, 1)
	k = second.getKernel(img, "k1")
	second.runAndRelease(k, 8, "second manager: k1")
	if n := second.ctl.Calls(faultinject.CreateSource); n != 0 {
		t.Errorf("second manager built %d programs from source, want 0 (served from disk)", n)
	}
	if n := second.ctl.Calls(faultinject.CreateBinaries); n != 1 {
		t.Errorf("second manager created %d programs from binaries, want 1", n)
	}
	if s := second.m.Stats(); s.DiskHits != 1 || s.Builds != 0 {
		t.Errorf("second manager: DiskHits %d, Builds %d; want 1 and 0", s.DiskHits, s.Builds)
	}

	// Other spec-constant values or options are other entries.
	third := newFixture(t, Options{DiskCache: openDiskAt(t, dir)}, 1)
	k = third.getKernelSpec(img, "k1", Spec(map[uint32][]byte{1: SpecInt32(40)}))
	third.runAndRelease(k, 41, "spec 40: k1")
	if n := third.ctl.Calls(faultinject.CreateSource); n != 1 {
		t.Errorf("other spec values: %d programs from source, want 1 (not the cached default)", n)
	}
}

// TestDiskCacheRejectedBinaryIsRebuilt: a binary the driver refuses (as
// after a driver upgrade) is removed, the program built again and the good
// binary stored in its place.
func TestDiskCacheRejectedBinaryIsRebuilt(t *testing.T) {
	dir := t.TempDir()
	img := image(t, 3, "k0")
	f := newFixture(t, Options{DiskCache: openDiskAt(t, dir)}, 1)
	key := diskKey(img, f.dev, SpecValues{}, f.m.cfg.optionsFor(img, SpecValues{}, ""))
	stale := openDiskAt(t, dir)
	if err := stale.Put(key, []byte("a binary of another driver version"), cache.Info{Format: "opencl-c", Kernels: []string{"k0"}}); err != nil {
		t.Fatal(err)
	}
	k := f.getKernel(img, "k0")
	f.runAndRelease(k, 3, "k0")
	if s := f.m.Stats(); s.DiskRejects != 1 || s.DiskHits != 0 {
		t.Errorf("DiskRejects %d, DiskHits %d; want 1 and 0", s.DiskRejects, s.DiskHits)
	}
	if n := f.ctl.Calls(faultinject.CreateSource); n != 1 {
		t.Errorf("%d programs from source, want 1 (the rebuild)", n)
	}
	again := newFixture(t, Options{DiskCache: openDiskAt(t, dir)}, 1)
	k = again.getKernel(img, "k0")
	again.runAndRelease(k, 3, "after the rebuild: k0")
	if s := again.m.Stats(); s.DiskHits != 1 {
		t.Errorf("after the rebuild: DiskHits %d, want 1 (the rebuilt binary replaced the refused one)", s.DiskHits)
	}
}

// TestDiskCacheOffByEnvironment: SYCL_CACHE_PERSISTENT=0 stores nothing.
func TestDiskCacheOffByEnvironment(t *testing.T) {
	dir := t.TempDir()
	env := map[string]string{"SYCL_CACHE_PERSISTENT": "0", "SYCL_CACHE_DIR": dir}
	c, err := openDisk(config{}, func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	if c.Enabled() {
		t.Fatal("SYCL_CACHE_PERSISTENT=0 left the persistent cache on")
	}
	env["SYCL_CACHE_PERSISTENT"] = "maybe"
	if _, err := openDisk(config{}, func(k string) string { return env[k] }); err == nil {
		t.Error("SYCL_CACHE_PERSISTENT=maybe was accepted")
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("the cache directory holds %d entries, want none", len(entries))
	}
}

// TestManagersShareTheProcessDiskCache: managers made with New and no
// DiskCache share one persistent cache, opened once.
func TestManagersShareTheProcessDiskCache(t *testing.T) {
	t.Setenv("SYCL_CACHE_DIR", t.TempDir()) // used if this test opens it first
	ctx, err := ur.NewContext(fiDevices(t)[0])
	if err != nil {
		t.Fatal(err)
	}
	defer ctx.Release()
	a, err := New(ctx, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := New(ctx, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if a.disk == nil || a.disk != b.disk {
		t.Errorf("two managers have persistent caches %p and %p, want one shared", a.disk, b.disk)
	}
	own := noDisk(t)
	c, err := New(ctx, Options{DiskCache: own})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if c.disk != own {
		t.Error("Options.DiskCache was not used")
	}
}
