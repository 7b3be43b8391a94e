package programmgr

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gour-dev/gour/internal/harness/testenv"
	"github.com/gour-dev/gour/programmgr/internal/faultinject"
	"github.com/gour-dev/gour/ur"
)

// TestColdProgram64: 64 goroutines ask at once for a program nobody has
// built: it is built once and all get it.
func TestColdProgram64(t *testing.T) {
	f := newFixture(t, Options{}, 1)
	img := image(t, 1, "k")
	const n = 64
	f.m.testHookBeforeBuild = func() {
		// Hold the build until every other caller waits for it.
		waitFor(t, "63 waiters", func() bool { return f.waiters(img) == n-1 })
	}
	progs := make([]*Program, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range progs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			progs[i], errs[i] = f.m.GetProgram(context.Background(), img, nil, SpecValues{}, "")
		}()
	}
	wg.Wait()
	for i := range progs {
		if errs[i] != nil {
			t.Fatalf("caller %d: %v", i, errs[i])
		}
		if progs[i] != progs[0] {
			t.Errorf("caller %d got another program", i)
		}
	}
	if got := f.ctl.Calls(faultinject.Build); got != 1 {
		t.Errorf("%d builds, want 1", got)
	}
	if s := f.m.Stats(); s.Builds != 1 || s.Misses != n || s.Hits != 0 {
		t.Errorf("Builds = %d, Misses = %d, Hits = %d; want 1, %d, 0", s.Builds, s.Misses, s.Hits, n)
	}
	for _, p := range progs {
		if err := p.Release(); err != nil {
			t.Error(err)
		}
	}
	if got := f.ctl.ProgramReleases(); got != 0 {
		t.Errorf("%d programs released while cached, want 0", got)
	}
}

// runConcurrently calls get from n goroutines at once and returns what
// they got.
func runConcurrently(n int, get func() (*Program, error)) ([]*Program, []error) {
	progs := make([]*Program, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range progs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			progs[i], errs[i] = get()
		}()
	}
	wg.Wait()
	return progs, errs
}

// TestPanicRetry: a builder that panics puts the entry back to "not
// built"; one waiter builds again and the others get its program.
func TestPanicRetry(t *testing.T) {
	f := newFixture(t, Options{}, 1)
	img := image(t, 1, "k")
	const n = 8
	var calls atomic.Int32
	f.m.testHookBeforeBuild = func() {
		if calls.Add(1) == 1 {
			waitFor(t, "waiters", func() bool { return f.waiters(img) == n-1 })
			panic("boom")
		}
	}
	progs, errs := runConcurrently(n, func() (*Program, error) {
		return f.m.GetProgram(context.Background(), img, nil, SpecValues{}, "")
	})
	failed, ok := 0, 0
	var got *Program
	for i, err := range errs {
		if err != nil {
			failed++
			if !strings.Contains(err.Error(), "panicked: boom") {
				t.Errorf("error %v does not report the panic", err)
			}
			continue
		}
		ok++
		if got != nil && progs[i] != got {
			t.Error("callers got different programs")
		}
		got = progs[i]
		progs[i].Release()
	}
	if failed != 1 || ok != n-1 {
		t.Errorf("%d callers failed and %d succeeded, want 1 (the one that panicked) and %d", failed, ok, n-1)
	}
	if calls.Load() != 2 {
		t.Errorf("%d build attempts, want 2", calls.Load())
	}
}

// TestPanicRetryBounded: when the retry panics too, every caller gets an
// error after two attempts in all; the entry is not poisoned.
func TestPanicRetryBounded(t *testing.T) {
	f := newFixture(t, Options{}, 1)
	img := image(t, 1, "k")
	const n = 8
	var calls atomic.Int32
	f.m.testHookBeforeBuild = func() {
		if calls.Add(1) == 1 {
			waitFor(t, "waiters", func() bool { return f.waiters(img) == n-1 })
		}
		panic("boom")
	}
	_, errs := runConcurrently(n, func() (*Program, error) {
		return f.m.GetProgram(context.Background(), img, nil, SpecValues{}, "")
	})
	for _, err := range errs {
		if err == nil || !strings.Contains(err.Error(), "panicked") {
			t.Errorf("got %v, want the panic", err)
		}
	}
	if calls.Load() != 2 {
		t.Errorf("%d build attempts, want 2", calls.Load())
	}
	f.m.testHookBeforeBuild = nil
	p, err := f.m.GetProgram(context.Background(), img, nil, SpecValues{}, "")
	if err != nil {
		t.Fatalf("after the panics: %v", err)
	}
	p.Release()
}

// TestPanicInDriver: a panic inside the driver during Build releases the
// program created before it (the fixture checks for leaks).
func TestPanicInDriver(t *testing.T) {
	f := newFixture(t, Options{}, 1)
	img := image(t, 1, "k")
	f.ctl.Hook(faultinject.Build, func() error { panic("driver crash") })
	_, err := f.m.GetProgram(context.Background(), img, nil, SpecValues{}, "")
	if err == nil || !strings.Contains(err.Error(), "driver crash") {
		t.Fatalf("got %v, want the panic", err)
	}
	if f.ctl.LivePrograms() != 0 {
		t.Errorf("%d programs alive after the panic", f.ctl.LivePrograms())
	}
	f.ctl.Hook(faultinject.Build, nil)
	p, err := f.m.GetProgram(context.Background(), img, nil, SpecValues{}, "")
	if err != nil {
		t.Fatal(err)
	}
	p.Release()
}

// TestBuilderCancelled: the builder's context is cancelled during the
// build: it gets the context's error, and a waiter builds again.
func TestBuilderCancelled(t *testing.T) {
	f := newFixture(t, Options{}, 1)
	img := image(t, 1, "k")
	builderCtx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var calls atomic.Int32
	f.m.testHookBeforeBuild = func() {
		if calls.Add(1) == 1 {
			waitFor(t, "a waiter", func() bool { return f.waiters(img) == 1 })
			cancel()
		}
	}
	var builderErr error
	done := make(chan struct{})
	go func() {
		defer close(done)
		var p *Program
		p, builderErr = f.m.GetProgram(builderCtx, img, nil, SpecValues{}, "")
		if p != nil {
			p.Release()
		}
	}()
	waitFor(t, "the build", func() bool { return calls.Load() == 1 })
	p, err := f.m.GetProgram(context.Background(), img, nil, SpecValues{}, "")
	<-done
	if err != nil {
		t.Fatalf("waiter: %v", err)
	}
	p.Release()
	if !errors.Is(builderErr, context.Canceled) {
		t.Errorf("builder got %v, want context.Canceled", builderErr)
	}
	if calls.Load() != 2 {
		t.Errorf("%d build attempts, want 2", calls.Load())
	}
}

// TestWaiterCancelled: a waiter whose context ends gives up at once; the
// build goes on, and the references stay balanced (the fixture checks).
func TestWaiterCancelled(t *testing.T) {
	f := newFixture(t, Options{}, 1)
	img := image(t, 1, "k")
	release := make(chan struct{})
	f.m.testHookBeforeBuild = func() { <-release }
	builder := make(chan *Program)
	go func() {
		p, err := f.m.GetProgram(context.Background(), img, nil, SpecValues{}, "")
		if err != nil {
			t.Error(err)
		}
		builder <- p
	}()
	waitFor(t, "the build", func() bool {
		f.m.mu.Lock()
		defer f.m.mu.Unlock()
		return len(f.m.programs) == 1
	})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	_, err := f.m.GetProgram(ctx, img, nil, SpecValues{}, "")
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("waiter got %v, want context.DeadlineExceeded", err)
	}
	close(release)
	p := <-builder
	if p != nil {
		p.Release()
	}
	if f.waiters(img) != 0 {
		t.Error("the waiter that gave up is still counted")
	}
}

// TestDifferentKeysDoNotWait: while one program builds, another builds and
// returns: no lock is held across a build.
func TestDifferentKeysDoNotWait(t *testing.T) {
	f := newFixture(t, Options{}, 1)
	slow, fast := image(t, 1, "k"), image(t, 2, "k")
	started, release := make(chan struct{}), make(chan struct{})
	var first atomic.Bool
	f.ctl.Hook(faultinject.Build, func() error {
		if first.CompareAndSwap(false, true) {
			close(started)
			<-release
		}
		return nil
	})
	done := make(chan error)
	go func() {
		p, err := f.m.GetProgram(context.Background(), slow, nil, SpecValues{}, "")
		if err == nil {
			p.Release()
		}
		done <- err
	}()
	<-started
	p, err := f.m.GetProgram(context.Background(), fast, nil, SpecValues{}, "")
	if err != nil {
		t.Fatal(err)
	}
	p.Release()
	select {
	case <-done:
		t.Fatal("the slow build finished before it was released")
	default:
	}
	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// TestReleaseExactlyOnce: the cache and each caller hold references; an
// evicted kernel stays usable until its last holder releases it, and the
// driver objects are released exactly once, kernel before program.
func TestReleaseExactlyOnce(t *testing.T) {
	f := newFixture(t, Options{}, 1)
	img := image(t, 4, "k")
	k1 := f.getKernel(img, "k")
	k2 := f.getKernel(img, "k") // a fast hit
	if k1 != k2 {
		t.Fatal("two requests got different kernels")
	}
	p, err := f.m.GetProgram(context.Background(), img, []*ur.Device{f.dev}, SpecValues{}, "")
	if err != nil {
		t.Fatal(err)
	}
	if p != k1.Program() {
		t.Error("GetProgram and GetKernel disagree on the program")
	}
	f.m.Evict()
	if s := f.m.Stats(); s.Programs != 0 || s.Kernels != 0 || s.FastEntries != 0 || s.Evictions != 1 {
		t.Errorf("after Evict: %+v", s)
	}
	if f.ctl.KernelReleases() != 0 || f.ctl.ProgramReleases() != 0 {
		t.Fatal("Evict freed objects still held")
	}
	if got := f.run(k1); got != 4 {
		t.Errorf("evicted kernel computed %d, want 4", got)
	}
	k1.Release()
	if f.ctl.KernelReleases() != 0 {
		t.Fatal("the kernel was freed with a holder left")
	}
	p.Release()
	if f.ctl.ProgramReleases() != 0 {
		t.Fatal("the program was freed while its kernel lives")
	}
	if err := k2.Release(); err != nil {
		t.Fatal(err)
	}
	if f.ctl.KernelReleases() != 1 || f.ctl.ProgramReleases() != 1 {
		t.Errorf("%d kernel and %d program releases, want 1 and 1", f.ctl.KernelReleases(), f.ctl.ProgramReleases())
	}
	checkCode(t, k2.Release(), ur.ErrInvalidKernel)
	checkCode(t, p.Release(), ur.ErrInvalidProgram)
	// A new request builds anew.
	k3 := f.getKernel(img, "k")
	if k3 == k1 {
		t.Error("an evicted kernel came back")
	}
	k3.Release()
}

// TestTwoDevices: one context with two devices. Kernels per device get
// their own programs and fast-cache entries, and evicting removes every
// one of them (DPC++ once leaked fast-cache entries in this case).
func TestTwoDevices(t *testing.T) {
	f := newFixture(t, Options{}, 2)
	devs := f.ctx.Devices()
	img := image(t, 6, "k")
	for round := 0; round < 2; round++ {
		for _, d := range devs {
			k, err := f.m.GetKernel(context.Background(), img, "k", d, SpecValues{}, "")
			if err != nil {
				t.Fatal(err)
			}
			if k.Device() != d {
				t.Error("kernel of another device")
			}
			if round == 0 {
				if got := runKernel(t, f.ctx, k); got != 6 {
					t.Errorf("kernel on %s computed %d, want 6", d.Name(), got)
				}
			}
			k.Release()
		}
	}
	s := f.m.Stats()
	if s.Programs != 2 || s.Kernels != 2 || s.FastEntries != 2 || s.FastHits != 2 {
		t.Errorf("%d programs, %d kernels, %d fast entries, %d fast hits; want 2, 2, 2, 2", s.Programs, s.Kernels, s.FastEntries, s.FastHits)
	}
	// A program for both devices; the device list is a set.
	p1, err := f.m.GetProgram(context.Background(), img, []*ur.Device{devs[1], devs[0], devs[1]}, SpecValues{}, "")
	if err != nil {
		t.Fatal(err)
	}
	p2, err := f.m.GetProgram(context.Background(), img, nil, SpecValues{}, "")
	if err != nil {
		t.Fatal(err)
	}
	if p1 != p2 || len(p1.Devices()) != 2 {
		t.Errorf("device sets [1 0 1] and all: programs %p and %p with %d devices", p1, p2, len(p1.Devices()))
	}
	p1.Release()
	p2.Release()
	f.m.Evict()
	if s := f.m.Stats(); s.Programs != 0 || s.Kernels != 0 || s.FastEntries != 0 || s.Bytes != 0 {
		t.Errorf("after Evict: %+v", s)
	}
	if f.ctl.LivePrograms() != 0 || f.ctl.LiveKernels() != 0 {
		t.Errorf("after Evict: %d programs and %d kernels alive", f.ctl.LivePrograms(), f.ctl.LiveKernels())
	}
}

// TestRequirements: an image needing a feature the device lacks is
// refused with UNSUPPORTED_FEATURE before anything is created.
func TestRequirements(t *testing.T) {
	f := newFixture(t, Options{}, 2)
	noFP64 := f.ctx.Devices()[1] // the adapter's second copy has no fp64
	desc := image(t, 1, "k").Desc()
	desc.Requirements.FP64 = true
	img, err := NewImage(desc)
	if err != nil {
		t.Fatal(err)
	}
	_, err = f.m.GetKernel(context.Background(), img, "k", noFP64, SpecValues{}, "")
	checkCode(t, err, ur.ErrUnsupportedFeature)
	_, err = f.m.GetProgram(context.Background(), img, nil, SpecValues{}, "")
	checkCode(t, err, ur.ErrUnsupportedFeature)
	if got := f.ctl.Calls(faultinject.CreateSource); got != 0 {
		t.Errorf("%d programs created, want 0", got)
	}
	if f.dev.Info().FP64 {
		f.getKernel(img, "k").Release()
	}
}

// TestKernelNames: a kernel the image does not list is refused without
// building; one the driver does not find is a remembered failure.
func TestKernelNames(t *testing.T) {
	f := newFixture(t, Options{}, 1)
	img := image(t, 1, "k")
	_, err := f.m.GetKernel(context.Background(), img, "nope", f.dev, SpecValues{}, "")
	checkCode(t, err, ur.ErrInvalidKernelName)
	_, err = f.m.GetKernel(context.Background(), img, "", f.dev, SpecValues{}, "")
	checkCode(t, err, ur.ErrInvalidKernelName)
	if got := f.ctl.Calls(faultinject.CreateSource); got != 0 {
		t.Errorf("%d programs created, want 0", got)
	}
	unlisted, err := NewImage(ImageDesc{Format: FormatOpenCLC, Bytes: []byte(source("k")),
		SpecConstants: img.SpecConstants()})
	if err != nil {
		t.Fatal(err)
	}
	_, err1 := f.m.GetKernel(context.Background(), unlisted, "nope", f.dev, SpecValues{}, "")
	checkCode(t, err1, ur.ErrInvalidKernelName)
	_, err2 := f.m.GetKernel(context.Background(), unlisted, "nope", f.dev, SpecValues{}, "")
	if err2 != err1 {
		t.Errorf("second error %v differs from the first %v", err2, err1)
	}
	if got := f.ctl.Calls(faultinject.CreateKernel); got != 1 {
		t.Errorf("%d kernel creations, want 1", got)
	}
	if s := f.m.Stats(); s.Remembered != 1 || s.Programs != 1 {
		t.Errorf("Remembered = %d, Programs = %d; want 1 and 1", s.Remembered, s.Programs)
	}
	_, err = f.m.GetKernel(context.Background(), nil, "k", f.dev, SpecValues{}, "")
	checkCode(t, err, ur.ErrInvalidNullPointer)
	_, err = f.m.GetKernel(context.Background(), img, "k", nil, SpecValues{}, "")
	checkCode(t, err, ur.ErrInvalidNullHandle)
}

// TestForeignDevice: a device outside the context is refused.
func TestForeignDevice(t *testing.T) {
	f := newFixture(t, Options{}, 1)
	other := fiDevices(t)[1]
	_, err := f.m.GetKernel(context.Background(), image(t, 1, "k"), "k", other, SpecValues{}, "")
	checkCode(t, err, ur.ErrInvalidDevice)
	_, err = f.m.GetProgram(context.Background(), image(t, 1, "k"), []*ur.Device{nil}, SpecValues{}, "")
	checkCode(t, err, ur.ErrInvalidNullHandle)
}

// TestOptionsArePartOfTheKey: different build options are different
// programs; the same options share one.
func TestOptionsArePartOfTheKey(t *testing.T) {
	f := newFixture(t, Options{}, 1)
	img := image(t, 1, "k")
	var progs []*Program
	for _, o := range []string{"-a", "-b", "-b", "", "-a"} {
		// PoCL refuses unknown options: use harmless definitions.
		p, err := f.m.GetProgram(context.Background(), img, nil, SpecValues{}, strings.ReplaceAll(o, "-", "-DOPT_"))
		if err != nil {
			t.Fatal(err)
		}
		progs = append(progs, p)
	}
	if progs[0] != progs[4] || progs[1] != progs[2] || progs[0] == progs[1] || progs[3] == progs[0] {
		t.Error("options do not key the cache")
	}
	if s := f.m.Stats(); s.Programs != 3 || s.Builds != 3 {
		t.Errorf("%d programs after %d builds, want 3 and 3", s.Programs, s.Builds)
	}
	for _, p := range progs {
		p.Release()
	}
}

// syncBuffer is a bytes.Buffer safe for concurrent writes.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestTrace: SYCL_CACHE_TRACE bit 2 (value 2) logs every insert, fetch and
// evict of the in-memory cache through slog; bit 1 (the persistent cache)
// logs nothing here.
func TestTrace(t *testing.T) {
	var buf syncBuffer
	logger := slog.New(slog.NewTextHandler(&buf, nil))
	f := newFixture(t, Options{Trace: ptr(TraceInMemCache), Logger: logger}, 1)
	img := image(t, 1, "k")
	f.getKernel(img, "k").Release()
	f.getKernel(img, "k").Release()
	p, err := f.m.GetProgram(context.Background(), img, []*ur.Device{f.dev}, SpecValues{}, "")
	if err != nil {
		t.Fatal(err)
	}
	p.Release()
	f.m.Evict()
	out := buf.String()
	for _, want := range []string{
		`"programmgr: in-memory cache insert" cache=program image=` + img.id.Short(),
		`"programmgr: in-memory cache insert" cache=kernel kernel=k`,
		`"programmgr: in-memory cache insert" cache=fast-kernel kernel=k`,
		`"programmgr: in-memory cache fetch" cache=fast-kernel kernel=k`,
		`"programmgr: in-memory cache fetch" cache=program`,
		`"programmgr: in-memory cache evict" cache=program`,
		`"programmgr: in-memory cache evict" cache=kernel`,
		`"programmgr: in-memory cache evict" cache=fast-kernel`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("trace lacks %s:\n%s", want, out)
		}
	}

	var quiet syncBuffer
	g := newFixture(t, Options{Trace: ptr(TracePersistentCache), Logger: slog.New(slog.NewTextHandler(&quiet, nil))}, 1)
	g.getKernel(img, "k").Release()
	g.m.Evict()
	if quiet.String() != "" {
		t.Errorf("trace bit 1 logged:\n%s", quiet.String())
	}
}

// TestClose: after Close every Get fails; what callers hold stays valid.
func TestClose(t *testing.T) {
	f := newFixture(t, Options{}, 1)
	img := image(t, 2, "k")
	k := f.getKernel(img, "k")
	if err := f.m.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.m.Close(); err != nil {
		t.Fatal(err)
	}
	_, err := f.m.GetKernel(context.Background(), img, "k", f.dev, SpecValues{}, "")
	checkCode(t, err, ur.ErrInvalidOperation)
	_, err = f.m.GetProgram(context.Background(), img, nil, SpecValues{}, "")
	checkCode(t, err, ur.ErrInvalidOperation)
	if got := f.run(k); got != 2 {
		t.Errorf("kernel computed %d after Close, want 2", got)
	}
	k.Release()
}

// TestFastPathAllocatesNothing: a fast-cache hit and its Release allocate
// nothing.
func TestFastPathAllocatesNothing(t *testing.T) {
	f := newFixture(t, Options{}, 1)
	img := image(t, 2, "k")
	f.getKernel(img, "k").Release()
	ctx := context.Background()
	spec := SpecValues{}
	allocs := testing.AllocsPerRun(1000, func() {
		k, err := f.m.GetKernel(ctx, img, "k", f.dev, spec, "")
		if err != nil {
			t.Fatal(err)
		}
		k.Release()
	})
	if allocs != 0 {
		t.Errorf("a fast hit allocates %v times, want 0", allocs)
	}
}

// TestNativeAndILImages: a native image made of a built program's binary
// builds and runs, and takes no spec constants; PoCL takes no IL, which
// the adapter reports as UNSUPPORTED_FEATURE.
func TestNativeAndILImages(t *testing.T) {
	f := newFixture(t, Options{}, 1)
	src := image(t, 9, "k")
	p, err := f.m.GetProgram(context.Background(), src, []*ur.Device{f.dev}, SpecValues{}, "")
	if err != nil {
		t.Fatal(err)
	}
	bins, err := p.UR().Binaries()
	p.Release()
	if err != nil {
		t.Fatal(err)
	}
	native, err := NewImage(ImageDesc{Format: FormatNative, Bytes: bins[0], KernelNames: []string{"k"},
		SpecConstants: []SpecConstant{{ID: 1, Default: SpecInt32(9)}}})
	if err != nil {
		t.Fatal(err)
	}
	k := f.getKernel(native, "k")
	f.runAndRelease(k, 9, "native kernel")
	if got := f.ctl.Calls(faultinject.CreateBinaries); got != 1 {
		t.Errorf("%d programs from binaries, want 1", got)
	}
	_, err = f.m.GetKernel(context.Background(), native, "k", f.dev, Spec(map[uint32][]byte{1: SpecInt32(3)}), "")
	checkCode(t, err, ur.ErrUnsupportedFeature)

	spirv, err := NewImage(ImageDesc{Format: FormatSPIRV, Bytes: []byte{0x03, 0x02, 0x23, 0x07}})
	if err != nil {
		t.Fatal(err)
	}
	_, err = f.m.GetProgram(context.Background(), spirv, nil, SpecValues{}, "")
	if f.dev.Info().ILVersions == "" { // PoCL on the CPU takes no IL
		checkCode(t, err, ur.ErrUnsupportedFeature)
	} else if err == nil {
		t.Error("four bytes of garbage built as SPIR-V")
	}
}

// TestRealOpenCL runs the main flows on the plain OpenCL adapter, without
// the fault injector.
func TestRealOpenCL(t *testing.T) {
	devs := testenv.MustHaveDevice(t, "opencl")
	ctx, err := ur.NewContext(devs[0])
	if err != nil {
		t.Fatal(err)
	}
	defer ctx.Release()
	m, err := newManager(ctx, Options{InMemCache: ptr(true), DiskCache: noDisk(t)}, noEnv)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	img := image(t, 11, "k")
	get := func(spec SpecValues) *Kernel {
		t.Helper()
		k, err := m.GetKernel(context.Background(), img, "k", devs[0], spec, "")
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	start := time.Now()
	k := get(SpecValues{})
	cold := time.Since(start)
	if got := runKernel(t, ctx, k); got != 11 {
		t.Errorf("kernel computed %d, want 11", got)
	}
	k.Release()
	start = time.Now()
	k = get(SpecValues{})
	hot := time.Since(start)
	k.Release()
	k = get(Spec(map[uint32][]byte{1: SpecInt32(-4)}))
	if got := runKernel(t, ctx, k); got != -4 {
		t.Errorf("kernel with spec -4 computed %d", got)
	}
	k.Release()
	s := m.Stats()
	if s.Builds != 2 || s.FastHits != 1 || s.Programs != 2 || s.Bytes <= 0 {
		t.Errorf("stats %+v: want 2 builds, 1 fast hit, 2 programs, some bytes", s)
	}
	t.Logf("cold GetKernel %v, cached %v; %d bytes cached", cold, hot, s.Bytes)

	cuda, err := NewImage(ImageDesc{Format: FormatCUDAC, Bytes: []byte("__global__ void k() {}")})
	if err != nil {
		t.Fatal(err)
	}
	_, err = m.GetProgram(context.Background(), cuda, nil, SpecValues{}, "")
	checkCode(t, err, ur.ErrUnsupportedFeature)
	if !devs[0].Info().FP16 {
		desc := img.Desc()
		desc.Requirements.FP16 = true
		fp16, err := NewImage(desc)
		if err != nil {
			t.Fatal(err)
		}
		_, err = m.GetProgram(context.Background(), fp16, nil, SpecValues{}, "")
		checkCode(t, err, ur.ErrUnsupportedFeature)
	}
}
