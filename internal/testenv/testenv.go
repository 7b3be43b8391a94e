package testenv

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/gour-dev/gour/ur"
	"github.com/gour-dev/gour/ur/driver"
)

// EnvRequireAdapters names the adapters whose absence fails a test instead
// of skipping it.
const EnvRequireAdapters = "UR_REQUIRE_ADAPTERS"

// RequiredAdapters returns the adapters named in UR_REQUIRE_ADAPTERS.
func RequiredAdapters() []string {
	return ParseRequiredAdapters(os.Getenv(EnvRequireAdapters))
}

// ParseRequiredAdapters parses a UR_REQUIRE_ADAPTERS value: adapter names
// separated by commas, case-insensitive, blanks and empty entries ignored,
// duplicates dropped, in the order given. A Unified Runtime library name
// ("libur_adapter_opencl.so") stands for its adapter, as in
// UR_ADAPTERS_FORCE_LOAD.
func ParseRequiredAdapters(value string) []string {
	var names []string
	for _, term := range strings.Split(value, ",") {
		name := adapterName(strings.TrimSpace(term))
		if name != "" && !slices.Contains(names, name) {
			names = append(names, name)
		}
	}
	return names
}

// adapterName maps "libur_adapter_opencl.so.0" or a path to it to
// "opencl"; a plain name passes through, lower-cased.
func adapterName(term string) string {
	base := term[strings.LastIndexByte(term, '/')+1:]
	if rest, ok := strings.CutPrefix(base, "libur_adapter_"); ok {
		if i := strings.Index(rest, ".so"); i >= 0 {
			rest = rest[:i]
		}
		base = rest
	} else {
		base = term
	}
	return strings.ToLower(base)
}

// IsRequired reports whether UR_REQUIRE_ADAPTERS names the adapter.
func IsRequired(name string) bool {
	return slices.Contains(RequiredAdapters(), strings.ToLower(name))
}

var (
	discoverOnce sync.Once
	discovered   *ur.System
	discoverErr  error
)

// System returns the result of discovery with the environment's settings,
// run once per process. A malformed setting (UR_ADAPTERS_FORCE_LOAD,
// ONEAPI_DEVICE_SELECTOR) fails the test: it is a mistake in the test
// command, not a missing driver.
func System(t testing.TB) *ur.System {
	t.Helper()
	sys, err := discover()
	if err != nil {
		t.Fatalf("testenv: discovery failed: %v", err)
	}
	return sys
}

func discover() (*ur.System, error) {
	discoverOnce.Do(func() {
		discovered, discoverErr = ur.Discover(ur.Config{})
	})
	return discovered, discoverErr
}

// AdapterProblem says why the adapter is not usable in sys: not
// registered, left out by UR_ADAPTERS_FORCE_LOAD, or failed to load (the
// adapter's own reason). It returns nil for a loaded adapter.
func AdapterProblem(sys *ur.System, name string) error {
	name = strings.ToLower(name)
	for _, s := range sys.Statuses {
		if s.Name == name {
			if s.Err != nil {
				return fmt.Errorf("adapter %q is not available: %w", name, s.Err)
			}
			return nil
		}
	}
	registered := driver.Registered()
	if !slices.Contains(registered, name) {
		return fmt.Errorf("adapter %q is not registered in this test binary (registered: %s): %w",
			name, listOrNone(registered), ur.ErrAdapterNotAvailable)
	}
	return fmt.Errorf("adapter %q was not loaded (%s=%q): %w",
		name, ur.EnvForceLoad, os.Getenv(ur.EnvForceLoad), ur.ErrAdapterNotAvailable)
}

// DeviceProblem says why the adapter has no selected device in sys, or
// returns nil when it has at least one.
func DeviceProblem(sys *ur.System, name string) error {
	if err := AdapterProblem(sys, name); err != nil {
		return err
	}
	name = strings.ToLower(name)
	for _, d := range sys.Devices {
		if d.Backend() == name {
			return nil
		}
	}
	total := 0
	for _, a := range sys.Adapters {
		if a.Name() == name {
			for _, p := range a.Platforms() {
				total += len(p.Devices())
			}
		}
	}
	if total == 0 {
		return fmt.Errorf("adapter %q loaded but has no device", name)
	}
	return fmt.Errorf("adapter %q has %d device(s) but %s=%q selects none of them",
		name, total, ur.EnvDeviceSelector, os.Getenv(ur.EnvDeviceSelector))
}

// MustHaveAdapter skips the test unless the adapter loaded, giving the
// reason; if UR_REQUIRE_ADAPTERS names the adapter, the test fails instead.
func MustHaveAdapter(t testing.TB, name string) {
	t.Helper()
	if err := AdapterProblem(System(t), name); err != nil {
		if IsRequired(name) {
			t.Fatalf("testenv: %v (required by %s)", err, EnvRequireAdapters)
		}
		t.Skipf("testenv: %v", err)
	}
}

// MustHaveDevice is MustHaveAdapter that also wants at least one selected
// device of the adapter, and returns those devices.
func MustHaveDevice(t testing.TB, name string) []*ur.Device {
	t.Helper()
	sys := System(t)
	if err := DeviceProblem(sys, name); err != nil {
		if IsRequired(name) {
			t.Fatalf("testenv: %v (required by %s)", err, EnvRequireAdapters)
		}
		t.Skipf("testenv: %v", err)
	}
	var devs []*ur.Device
	for _, d := range sys.Devices {
		if d.Backend() == strings.ToLower(name) {
			devs = append(devs, d)
		}
	}
	return devs
}

// CheckRequired fails the test for every adapter named in
// UR_REQUIRE_ADAPTERS that did not load or has no selected device.
func CheckRequired(t testing.TB) {
	t.Helper()
	sys := System(t)
	for _, name := range RequiredAdapters() {
		if err := DeviceProblem(sys, name); err != nil {
			t.Errorf("testenv: %v (required by %s)", err, EnvRequireAdapters)
		}
	}
	if t.Failed() {
		t.FailNow()
	}
}

// Devices returns every selected device of every loaded adapter. With none
// it skips the test, giving each adapter's reason; it fails instead when an
// adapter named in UR_REQUIRE_ADAPTERS is missing or has no selected
// device.
func Devices(t testing.TB) []*ur.Device {
	t.Helper()
	CheckRequired(t)
	sys := System(t)
	if len(sys.Devices) == 0 {
		t.Skipf("testenv: no device selected: %s", Reasons(sys))
	}
	return sys.Devices
}

// Reasons summarises, one entry per registered adapter, why it has no
// selected device, for skip messages.
func Reasons(sys *ur.System) string {
	var why []string
	for _, s := range sys.Statuses {
		if err := DeviceProblem(sys, s.Name); err != nil {
			why = append(why, err.Error())
		}
	}
	if len(sys.Statuses) == 0 {
		why = append(why, fmt.Sprintf("no adapter registered or loaded (registered: %s; %s=%q)",
			listOrNone(driver.Registered()), ur.EnvForceLoad, os.Getenv(ur.EnvForceLoad)))
	}
	if len(why) == 0 {
		return "no adapter reported a problem"
	}
	return strings.Join(why, "; ")
}

func listOrNone(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}
