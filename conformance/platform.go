package conformance

import (
	"fmt"
	"slices"
	"testing"

	"github.com/gour-dev/gour/ur"
)

func TestPlatformInfo(t *testing.T) {
	forEachDevice(t, func(t *testing.T, f *Fixture) {
		p := f.Device.Platform()
		if p == nil {
			t.Fatal("Device.Platform() = nil")
		}
		info := p.Info()
		for _, field := range []struct{ name, value string }{
			{"Name", info.Name}, {"Vendor", info.Vendor}, {"Version", info.Version},
		} {
			if field.value == "" {
				t.Errorf("PlatformInfo.%s is empty (%+v)", field.name, info)
			}
		}
	})
}

func TestPlatformListsDevice(t *testing.T) {
	forEachDevice(t, func(t *testing.T, f *Fixture) {
		if !slices.Contains(f.Device.Platform().Devices(), f.Device) {
			t.Errorf("Platform.Devices() does not contain the device it was found on")
		}
	})
}

func TestPlatformAdapter(t *testing.T) {
	forEachDevice(t, func(t *testing.T, f *Fixture) {
		a := f.Device.Platform().Adapter()
		if a == nil {
			t.Fatal("Platform.Adapter() = nil")
		}
		if a.Name() != f.Device.Backend() {
			t.Errorf("Adapter.Name() = %q, Device.Backend() = %q: want equal", a.Name(), f.Device.Backend())
		}
		if !slices.Contains(a.Platforms(), f.Device.Platform()) {
			t.Errorf("Adapter.Platforms() does not contain the device's platform")
		}
	})
}

func TestPlatformDeviceIndices(t *testing.T) {
	forEachDevice(t, func(t *testing.T, f *Fixture) {
		// Indices count the adapter's devices across platforms, from 0.
		var all []*ur.Device
		for _, p := range f.Device.Platform().Adapter().Platforms() {
			all = append(all, p.Devices()...)
		}
		for i, d := range all {
			if d.Index() != i {
				t.Errorf("device %d (%s) has Index() %d", i, d.Name(), d.Index())
			}
		}
	})
}

func TestPlatformSelectorPicksDevice(t *testing.T) {
	forEachDevice(t, func(t *testing.T, f *Fixture) {
		sel := fmt.Sprintf("%s:%d", f.Backend, f.Device.Index())
		sys, err := ur.Discover(ur.Config{Selector: sel})
		must(t, "Discover("+sel+")", err)
		if len(sys.Devices) != 1 {
			t.Fatalf("Discover(%s) selected %d devices, want 1", sel, len(sys.Devices))
		}
		got := sys.Devices[0]
		if got.Backend() != f.Backend || got.Index() != f.Device.Index() || got.Name() != f.Device.Name() {
			t.Errorf("Discover(%s) selected %s, want %s", sel, got, f.Device)
		}
	})
}

func TestPlatformSelectorExcludes(t *testing.T) {
	forEachDevice(t, func(t *testing.T, f *Fixture) {
		sel := fmt.Sprintf("!%s:*", f.Backend)
		sys, err := ur.Discover(ur.Config{Selector: sel})
		must(t, "Discover("+sel+")", err)
		for _, d := range sys.Devices {
			if d.Backend() == f.Backend {
				t.Errorf("Discover(%s) selected %s", sel, d)
			}
		}
		sel = fmt.Sprintf("%s:%s", f.Backend, f.Device.Type())
		sys, err = ur.Discover(ur.Config{Selector: sel})
		must(t, "Discover("+sel+")", err)
		if !slices.ContainsFunc(sys.Devices, func(d *ur.Device) bool { return d.Index() == f.Device.Index() && d.Backend() == f.Backend }) {
			t.Errorf("Discover(%s) did not select %s", sel, f.Device)
		}
	})
}

func TestPlatformDefaultDevice(t *testing.T) {
	selectedDevices(t) // skips or fails without devices
	d, err := ur.DefaultDevice()
	must(t, "DefaultDevice", err)
	if d == nil || d.Name() == "" {
		t.Errorf("DefaultDevice() = %v, want a named device", d)
	}
}

func TestPlatformAdapterStatuses(t *testing.T) {
	sys := system(t)
	for _, s := range sys.Statuses {
		if s.Err != nil {
			t.Logf("adapter %s not loaded: %v", s.Name, s.Err)
		}
	}
	selectedDevices(t)
	for _, a := range sys.Adapters {
		if !slices.ContainsFunc(sys.Statuses, func(s ur.AdapterStatus) bool { return s.Name == a.Name() && s.Err == nil }) {
			t.Errorf("adapter %s loaded but Statuses does not say so", a.Name())
		}
	}
}
