package testenv

import (
	"errors"
	"os/exec"
	"testing"

	"github.com/gour-dev/gour/internal/harness/devreq"
	"github.com/gour-dev/gour/ur"
)

// EnvRequireAdapters names the adapters whose absence fails a test instead
// of skipping it.
const EnvRequireAdapters = devreq.EnvRequireAdapters

// RequiredAdapters returns the adapters named in UR_REQUIRE_ADAPTERS.
func RequiredAdapters() []string { return devreq.RequiredAdapters() }

// IsRequired reports whether UR_REQUIRE_ADAPTERS names the adapter.
func IsRequired(name string) bool { return devreq.IsRequired(name) }

// System returns the result of discovery with the environment's settings,
// run once per process (devreq.System: the conformance suite sees the same
// devices). A malformed setting (UR_ADAPTERS_FORCE_LOAD,
// ONEAPI_DEVICE_SELECTOR) fails the test: it is a mistake in the test
// command, not a missing driver.
func System(t testing.TB) *ur.System {
	t.Helper()
	sys, err := devreq.System()
	if err != nil {
		t.Fatalf("testenv: discovery failed: %v", err)
	}
	return sys
}

// AdapterProblem says why the adapter is not usable in sys, or returns
// nil for a loaded adapter (devreq.AdapterProblem).
func AdapterProblem(sys *ur.System, name string) error { return devreq.AdapterProblem(sys, name) }

// DeviceProblem says why the adapter has no selected device in sys, or
// returns nil when it has at least one (devreq.DeviceProblem).
func DeviceProblem(sys *ur.System, name string) error { return devreq.DeviceProblem(sys, name) }

// Reasons summarises, one entry per registered adapter, why it has no
// selected device, for skip messages (devreq.Reasons).
func Reasons(sys *ur.System) string { return devreq.Reasons(sys) }

// MustHaveAdapter skips the test unless the adapter loaded, giving the
// reason; if UR_REQUIRE_ADAPTERS names the adapter, the test fails instead.
func MustHaveAdapter(t testing.TB, name string) {
	t.Helper()
	if err := devreq.AdapterProblem(System(t), name); err != nil {
		if devreq.IsRequired(name) {
			t.Fatalf("testenv: %v (required by %s)", err, EnvRequireAdapters)
		}
		t.Skipf("testenv: %v", err)
	}
}

// MustHaveDevice is MustHaveAdapter that also wants at least one selected
// device of the adapter, and returns those devices.
func MustHaveDevice(t testing.TB, name string) []*ur.Device {
	t.Helper()
	devs, why, err := devreq.Select(System(t), []string{name}, false)
	if err != nil {
		t.Fatalf("testenv: %v", err)
	}
	if len(devs) == 0 {
		t.Skipf("testenv: %s", why)
	}
	return devs
}

// CheckRequired fails the test for every adapter named in
// UR_REQUIRE_ADAPTERS that did not load or has no selected device.
func CheckRequired(t testing.TB) {
	t.Helper()
	sys := System(t)
	for _, name := range devreq.RequiredAdapters() {
		if err := devreq.DeviceProblem(sys, name); err != nil {
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
	devs, why, err := devreq.Select(System(t), nil, false)
	if err != nil {
		t.Fatalf("testenv: %v", err)
	}
	if len(devs) == 0 {
		t.Skipf("testenv: %s", why)
	}
	return devs
}

// ContextQueue makes a context of dev and a queue on it, both released
// when the test ends (a failed release fails the test).
func ContextQueue(t testing.TB, dev *ur.Device) (*ur.Context, *ur.Queue) {
	t.Helper()
	ctx, err := ur.NewContext(dev)
	if err != nil {
		t.Fatal(err)
	}
	q, err := ctx.NewQueue(dev, ur.QueueProperties{})
	if err != nil {
		ctx.Release()
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := errors.Join(q.Release(), ctx.Release()); err != nil {
			t.Errorf("release: %v", err)
		}
	})
	return ctx, q
}

// CXX returns a C++ compiler on PATH (g++, clang++, clang++-15, c++), for
// tests that build generated CUDA C as host code; it skips without one.
func CXX(t testing.TB) string {
	t.Helper()
	for _, c := range []string{"g++", "clang++", "clang++-15", "c++"} {
		if p, err := exec.LookPath(c); err == nil {
			return p
		}
	}
	t.Skip("no C++ compiler on PATH")
	return ""
}
