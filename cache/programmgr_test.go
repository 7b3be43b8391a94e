package cache_test

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	_ "github.com/gour-dev/gour/adapters/all"
	"github.com/gour-dev/gour/cache"
	"github.com/gour-dev/gour/internal/harness/testenv"
	"github.com/gour-dev/gour/programmgr"
	"github.com/gour-dev/gour/ur"
)

const fillSource = `__kernel void fill(__global int *out, int v) { out[get_global_id(0)] = v + (int)get_global_id(0); }`

// A cache pre-warmed by a build step and shipped read-only (a container
// image's layer) serves a new process's program manager: the kernel
// comes from disk, runs, and nothing on disk changes.
func TestPrewarmedReadOnlyCacheServesProgramManager(t *testing.T) {
	dev := testenv.MustHaveDevice(t, "opencl")[0]
	img, err := programmgr.NewImage(programmgr.ImageDesc{
		Format: programmgr.FormatOpenCLC, Bytes: []byte(fillSource), KernelNames: []string{"fill"},
	})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	on := true
	open := func() *cache.Cache {
		c, err := cache.Open(cache.Config{Dir: dir, Persistent: &on})
		if err != nil || !c.Enabled() {
			t.Fatalf("Open: %v, %v", err, c.Err())
		}
		return c
	}

	// The build step: a writable cache, filled by a manager.
	if s := runFill(t, dev, img, open(), 7); s.Builds != 1 || s.DiskHits != 0 {
		t.Fatalf("build step: %d builds, %d disk hits; want 1 and 0", s.Builds, s.DiskHits)
	}
	before := treeOf(t, dir)

	// The shipped image: the same directory, read-only.
	cache.SimulateReadOnlyFS(t)
	ro := open()
	if !ro.ReadOnly() {
		t.Fatal("the cache is not read-only")
	}
	if s := runFill(t, dev, img, ro, 40); s.Builds != 0 || s.DiskHits != 1 {
		t.Fatalf("read-only cache: %d builds, %d disk hits; want 0 and 1", s.Builds, s.DiskHits)
	}
	after := treeOf(t, dir)
	for p, d := range before {
		if after[p] != d {
			t.Errorf("%s changed", p)
		}
	}
	if len(after) != len(before) {
		t.Errorf("%d paths under the cache, were %d", len(after), len(before))
	}
}

// runFill gets the fill kernel through a new manager over a new context
// (what a new process has), runs it and checks the result.
func runFill(t *testing.T, dev *ur.Device, img *programmgr.Image, c *cache.Cache, v int32) programmgr.Stats {
	t.Helper()
	ctx, err := ur.NewContext(dev)
	if err != nil {
		t.Fatal(err)
	}
	defer ctx.Release()
	q, err := ctx.NewQueue(dev, ur.QueueProperties{})
	if err != nil {
		t.Fatal(err)
	}
	defer q.Release()
	const n = 64
	out, err := ctx.NewBuffer(ur.MemReadWrite, 4*n)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Release()
	m, err := programmgr.New(ctx, programmgr.Options{DiskCache: c})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	k, err := m.GetKernel(context.Background(), img, "fill", dev, programmgr.SpecValues{}, "")
	if err != nil {
		t.Fatal(err)
	}
	defer k.Release()
	k.Lock()
	err = errors.Join(k.UR().SetArgMem(0, out), k.UR().SetArgInt32(1, v), q.Launch(k.UR(), ur.Range1D(n)))
	k.Unlock()
	if err != nil {
		t.Fatal(err)
	}
	got := make([]int32, n)
	if err := q.ReadBuffer(out, 0, ur.AsBytes(got)); err != nil {
		t.Fatal(err)
	}
	for i, g := range got {
		if g != v+int32(i) {
			t.Fatalf("out[%d] = %d, want %d", i, g, v+int32(i))
		}
	}
	return m.Stats()
}

// treeOf describes every path under root: mode, size, modification time
// and, for files, content.
func treeOf(t *testing.T, root string) map[string]string {
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
		desc := fmt.Sprint(fi.Mode(), fi.Size(), fi.ModTime().UnixNano())
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
