package programmgr

import (
	"context"
	"encoding/binary"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	_ "github.com/gour-dev/gour/adapters/all"
	"github.com/gour-dev/gour/cache"
	"github.com/gour-dev/gour/internal/harness/testenv"
	"github.com/gour-dev/gour/programmgr/internal/faultinject"
	"github.com/gour-dev/gour/ur"
)

func TestMain(m *testing.M) {
	faultinject.Register()
	os.Exit(m.Run())
}

var (
	fiOnce sync.Once
	fiSys  *ur.System
	fiErr  error
)

// fiDevices returns the fault-injecting adapter's devices (PoCL's, each
// twice). Without OpenCL the test is skipped, or fails when
// UR_REQUIRE_ADAPTERS names opencl.
func fiDevices(t testing.TB) []*ur.Device {
	t.Helper()
	fiOnce.Do(func() {
		fiSys, fiErr = ur.Discover(ur.Config{ForceLoad: []string{faultinject.Name}, Selector: "*:*"})
	})
	if fiErr != nil {
		t.Fatalf("discovering %s: %v", faultinject.Name, fiErr)
	}
	if err := testenv.DeviceProblem(fiSys, faultinject.Name); err != nil {
		if testenv.IsRequired("opencl") {
			t.Fatalf("%v (the fault injector wraps opencl, required by %s)", err, testenv.EnvRequireAdapters)
		}
		t.Skipf("%v", err)
	}
	var devs []*ur.Device
	for _, d := range fiSys.Devices {
		if d.Backend() == faultinject.Name {
			devs = append(devs, d)
		}
	}
	return devs
}

// noEnv is an empty environment, so that tests do not depend on the
// caller's SYCL_* variables.
func noEnv(string) string { return "" }

func ptr[T any](v T) *T { return &v }

// fixture is one test's context on the fault-injecting adapter, with its
// controller and a manager.
type fixture struct {
	t   testing.TB
	ctx *ur.Context
	ctl *faultinject.Controller
	dev *ur.Device
	m   *Manager
}

// newFixture makes a context over the first ndev fault-injecting devices
// and a manager with opts (and no environment). At cleanup it closes the
// manager and checks that every program and kernel was released exactly
// once: the test must have released what it got.
func newFixture(t testing.TB, opts Options, ndev int) *fixture {
	t.Helper()
	devs := fiDevices(t)[:ndev]
	ctx, err := ur.NewContext(devs...)
	if err != nil {
		t.Fatal(err)
	}
	ctl := faultinject.For(ctx)
	if ctl == nil {
		t.Fatal("no fault-injection controller for the context")
	}
	if opts.InMemCache == nil {
		opts.InMemCache = ptr(true)
	}
	if opts.DiskCache == nil {
		opts.DiskCache = noDisk(t)
	}
	m, err := newManager(ctx, opts, noEnv)
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{t: t, ctx: ctx, ctl: ctl, dev: devs[0], m: m}
	t.Cleanup(func() {
		m.checkInvariants(t)
		m.Close()
		if n := ctl.LiveKernels(); n != 0 {
			t.Errorf("leak: %d kernels not released after Close", n)
		}
		if n := ctl.LivePrograms(); n != 0 {
			t.Errorf("leak: %d programs not released after Close", n)
		}
		if n := ctl.DoubleReleases(); n != 0 {
			t.Errorf("%d programs or kernels were released twice", n)
		}
		ctx.Release()
	})
	return f
}

// source returns OpenCL C source with one kernel per name; kernel i
// stores VALUE + i in out[0]. VALUE comes from a -D definition (a spec
// constant or the build options).
func source(names ...string) string {
	var b strings.Builder
	for i, n := range names {
		fmt.Fprintf(&b, "__kernel void %s(__global int* out) { out[0] = VALUE + %d; }\n", n, i)
	}
	return b.String()
}

// image makes an OpenCL C image of source(names...) whose VALUE is a 4-byte
// spec constant (ID 1) with default def.
func image(t testing.TB, def int32, names ...string) *Image {
	t.Helper()
	img, err := NewImage(ImageDesc{
		Format:        FormatOpenCLC,
		Bytes:         []byte(source(names...)),
		KernelNames:   names,
		SpecConstants: []SpecConstant{{ID: 1, Name: "VALUE", Default: SpecInt32(def)}},
	})
	if err != nil {
		t.Fatal(err)
	}
	return img
}

// run launches k (a kernel of source) on one work-item and returns out[0].
func (f *fixture) run(k *Kernel) int32 {
	f.t.Helper()
	return runKernel(f.t, f.ctx, k)
}

// runAndRelease runs k, checks that it computed want, and releases it;
// what names the kernel in the error.
func (f *fixture) runAndRelease(k *Kernel, want int32, what string) {
	f.t.Helper()
	if got := f.run(k); got != want {
		f.t.Errorf("%s computed %d, want %d", what, got, want)
	}
	k.Release()
}

func runKernel(t testing.TB, ctx *ur.Context, k *Kernel) int32 {
	t.Helper()
	q, err := ctx.NewQueue(k.Device(), ur.QueueProperties{})
	if err != nil {
		t.Fatal(err)
	}
	defer q.Release()
	out, err := ctx.NewBuffer(ur.MemReadWrite, 4)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Release()
	k.Lock()
	err = k.UR().SetArgMem(0, out)
	if err == nil {
		err = q.Launch(k.UR(), ur.Range1D(1))
	}
	k.Unlock()
	if err != nil {
		t.Fatal(err)
	}
	var b [4]byte
	if err := q.ReadBuffer(out, 0, b[:]); err != nil {
		t.Fatal(err)
	}
	return int32(binary.LittleEndian.Uint32(b[:]))
}

// getKernel is GetKernel with default spec values and options that fails
// the test on error.
func (f *fixture) getKernel(img *Image, name string) *Kernel {
	f.t.Helper()
	return f.getKernelSpec(img, name, SpecValues{})
}

// getKernelSpec is getKernel with spec-constant values.
func (f *fixture) getKernelSpec(img *Image, name string, spec SpecValues) *Kernel {
	f.t.Helper()
	k, err := f.m.GetKernel(context.Background(), img, name, f.dev, spec, "")
	if err != nil {
		f.t.Fatalf("GetKernel(%s): %v", name, err)
	}
	return k
}

// waitFor polls cond until it holds or a minute passes.
func waitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(time.Millisecond)
	}
}

// waiters returns the number of callers waiting for the build of the
// program entry of img (with default spec values, options "" and the
// fixture's device).
func (f *fixture) waiters(img *Image) int {
	f.m.mu.Lock()
	defer f.m.mu.Unlock()
	for key, pe := range f.m.programs {
		if key.image == img.id && pe.cell.fl != nil {
			return pe.cell.fl.waiters
		}
	}
	return 0
}

func checkCode(t testing.TB, err error, want ur.Result) {
	t.Helper()
	if err == nil {
		t.Fatalf("got no error, want %v", want)
	}
	if got := ur.ResultOf(err); got != want {
		t.Fatalf("got %v (%v), want %v", got, err, want)
	}
}

// checkInvariants checks that the manager's bookkeeping agrees with what
// its maps hold.
func (m *Manager) checkInvariants(t testing.TB) {
	t.Helper()
	m.mu.Lock()
	defer m.mu.Unlock()
	progs, kernels, fast := 0, 0, 0
	var bytes int64
	cachedKernels := map[*Kernel]*programEntry{}
	for key, pe := range m.programs {
		if !pe.cached || pe.key != key {
			t.Errorf("entry under %v: cached %v, key %v", key, pe.cached, pe.key)
		}
		if pe.cell.state != cellDone {
			if len(pe.kernels) != 0 || len(pe.fast) != 0 {
				t.Errorf("a program entry in state %d has kernels", pe.cell.state)
			}
			continue
		}
		progs++
		bytes += pe.cell.val.size
		if pe.cell.val.refs.n.Load() < 1 {
			t.Errorf("a cached program has %d references", pe.cell.val.refs.n.Load())
		}
		for _, kc := range pe.kernels {
			if kc.state == cellDone {
				kernels++
				cachedKernels[kc.val] = pe
				if kc.val.refs.n.Load() < 1 {
					t.Errorf("a cached kernel has %d references", kc.val.refs.n.Load())
				}
			}
		}
	}
	if fm := m.fast.Load(); fm != nil {
		for _, e := range *fm {
			for ; e != nil; e = e.next {
				fast++
				pe := cachedKernels[e.kernel]
				if pe == nil {
					t.Errorf("fast-cache entry %s/%s leads to a kernel not in the cache", e.key.image.Short(), e.key.name)
				} else if !slices.Contains(pe.fast, e.key) {
					t.Errorf("fast-cache entry %s/%s is not listed by its program", e.key.image.Short(), e.key.name)
				}
			}
		}
	}
	if progs != m.nProgs || kernels != m.nKernels || fast != m.nFast || bytes != m.bytes {
		t.Errorf("counted %d programs, %d kernels, %d fast entries, %d bytes; the manager says %d, %d, %d, %d",
			progs, kernels, fast, bytes, m.nProgs, m.nKernels, m.nFast, m.bytes)
	}
	if m.cfg.threshold > 0 && m.bytes > m.cfg.threshold {
		t.Errorf("%d bytes cached, over the threshold of %d", m.bytes, m.cfg.threshold)
	}
}

// noDisk is a persistent cache that is off, so that tests count every build.
func noDisk(t testing.TB) *cache.Cache {
	c, err := cache.Open(cache.Config{Persistent: ptr(false)})
	if err != nil {
		t.Fatal(err)
	}
	return c
}
