package programmgr

import (
	"context"
	"errors"
	"testing"

	"github.com/gour-dev/gour/programmgr/internal/faultinject"
	"github.com/gour-dev/gour/ur"
	"github.com/gour-dev/gour/ur/driver"
)

// lostDevices discovers the fault-injecting adapter's devices afresh: a
// lost device stays lost in its System, so a test that loses one must not
// use the devices the package's other tests share (fiDevices).
func lostDevices(t *testing.T) []*ur.Device {
	t.Helper()
	fiDevices(t) // skips, or fails, where the adapter has no device
	sys, err := ur.Discover(ur.Config{ForceLoad: []string{faultinject.Name}, Selector: "*:*"})
	if err != nil {
		t.Fatal(err)
	}
	return sys.Devices
}

// TestLostContextStoresNothing: a build in a context that is lost before
// the build finishes (the device faulted under it) gives ur.ErrDeviceLost
// and leaves nothing behind, neither in the memory cache (no program, no
// remembered failure) nor on disk, where a manager of a new context, on
// a device that is fine, builds the program again and is served.
func TestLostContextStoresNothing(t *testing.T) {
	dir := t.TempDir()
	img := image(t, 7, "k0")
	devs := lostDevices(t)

	ctx, err := ur.NewContext(devs[0])
	if err != nil {
		t.Fatal(err)
	}
	defer ctx.Release()
	ctl := faultinject.For(ctx)
	m, err := newManager(ctx, Options{InMemCache: ptr(true), DiskCache: openDiskAt(t, dir)}, noEnv)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()

	// During the build, another call of the context reports the device
	// lost, as a Finish of another goroutine would after a fault; the
	// build itself goes through.
	ctl.Fail(faultinject.Compile, driver.ResultDeviceLost, 1)
	ctl.Hook(faultinject.Build, func() error {
		ctl.Hook(faultinject.Build, nil)
		other, err := ctx.NewProgramFromSource(source("other"))
		if err != nil {
			return err
		}
		defer other.Release()
		if err := other.Compile(""); !errors.Is(err, ur.ErrDeviceLost) {
			t.Errorf("the injected Compile = %v, want ErrDeviceLost", err)
		}
		return nil
	})
	_, err = m.GetKernel(context.Background(), img, "k0", devs[0], SpecValues{}, "")
	if !errors.Is(err, ur.ErrDeviceLost) {
		t.Fatalf("GetKernel in a context lost during the build = %v, want ErrDeviceLost", err)
	}
	if !errors.Is(ctx.Lost(), ur.ErrDeviceLost) {
		t.Fatalf("Context.Lost = %v, want ErrDeviceLost", ctx.Lost())
	}
	if s := m.Stats(); s.Programs != 0 || s.Kernels != 0 || s.Remembered != 0 || s.FastEntries != 0 {
		t.Errorf("the lost context's manager keeps %d programs, %d kernels, %d fast entries, %d remembered failures; want none",
			s.Programs, s.Kernels, s.FastEntries, s.Remembered)
	}
	// Asked again, it fails again (the context refuses), still keeping
	// nothing.
	if _, err := m.GetProgram(context.Background(), img, nil, SpecValues{}, ""); !errors.Is(err, ur.ErrDeviceLost) {
		t.Errorf("GetProgram again = %v, want ErrDeviceLost", err)
	}
	if s := m.Stats(); s.Programs != 0 || s.Remembered != 0 {
		t.Errorf("after a second request: %d programs, %d remembered failures; want none", s.Programs, s.Remembered)
	}

	// Another device, another context, the same disk: nothing there, so
	// it builds, and works.
	other := newFixtureOn(t, devs[1], Options{DiskCache: openDiskAt(t, dir)})
	k := other.getKernel(img, "k0")
	other.runAndRelease(k, 7, "a new context after the loss")
	if s := other.m.Stats(); s.DiskHits != 0 || other.ctl.Calls(faultinject.CreateSource) != 1 {
		t.Errorf("the new context's manager: %d disk hits, %d programs from source; want 0 and 1 (the lost build stored nothing)",
			s.DiskHits, other.ctl.Calls(faultinject.CreateSource))
	}
}

// TestLostBuildIsNotRemembered: a build that itself reports the device
// lost is not remembered as the program's failure (a failure is
// remembered so as not to build a bad program twice; a lost device says
// nothing of the program), and writes nothing to disk.
func TestLostBuildIsNotRemembered(t *testing.T) {
	dir := t.TempDir()
	img := image(t, 3, "k0")
	devs := lostDevices(t)
	f := newFixtureOn(t, devs[0], Options{DiskCache: openDiskAt(t, dir)})
	f.ctl.Fail(faultinject.Build, driver.ResultDeviceLost, 1)
	if _, err := f.m.GetKernel(context.Background(), img, "k0", f.dev, SpecValues{}, ""); !errors.Is(err, ur.ErrDeviceLost) {
		t.Fatalf("GetKernel whose build reports the device lost = %v, want ErrDeviceLost", err)
	}
	if s := f.m.Stats(); s.Remembered != 0 || s.Programs != 0 {
		t.Errorf("after a lost build: %d remembered failures, %d programs; want none", s.Remembered, s.Programs)
	}
	if !errors.Is(f.dev.Lost(), ur.ErrDeviceLost) {
		t.Errorf("Device.Lost = %v, want ErrDeviceLost", f.dev.Lost())
	}
	next := newFixtureOn(t, devs[1], Options{DiskCache: openDiskAt(t, dir)})
	next.runAndRelease(next.getKernel(img, "k0"), 3, "another device after the loss")
	if s := next.m.Stats(); s.DiskHits != 0 {
		t.Errorf("the other device's manager had %d disk hits, want 0", s.DiskHits)
	}
}

// newFixtureOn is newFixture over the one device dev.
func newFixtureOn(t *testing.T, dev *ur.Device, opts Options) *fixture {
	t.Helper()
	ctx, err := ur.NewContext(dev)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ctx.Release() })
	if opts.InMemCache == nil {
		opts.InMemCache = ptr(true)
	}
	m, err := newManager(ctx, opts, noEnv)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	return &fixture{t: t, ctx: ctx, ctl: faultinject.For(ctx), dev: dev, m: m}
}
