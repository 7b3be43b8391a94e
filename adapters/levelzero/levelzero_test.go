package levelzero_test

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/gour-dev/gour/adapters/levelzero"
	"github.com/gour-dev/gour/adapters/levelzero/internal/ze"
	"github.com/gour-dev/gour/ur"
)

// envRequireLoader, set to 1 (as make test does), turns a missing Level
// Zero loader into a failure, so that CI cannot skip the no-driver test.
const envRequireLoader = "GOUR_REQUIRE_ZE_LOADER"

// TestOpenWithLoaderWithoutDriver runs where the loader is installed
// (Debian: libze1) but no driver: Open must fail with
// ErrAdapterNotAvailable, saying "no driver/device" with the loader's
// code, and never panic.
func TestOpenWithLoaderWithoutDriver(t *testing.T) {
	if l, err := ze.Load(); err != nil {
		if os.Getenv(envRequireLoader) == "1" {
			t.Fatalf("%s=1 but the Level Zero loader does not load: %v", envRequireLoader, err)
		}
		t.Skipf("Level Zero loader not installed (%v); the missing-loader path is TestOpenWithoutLoader", err)
	} else {
		l.Close()
	}
	a, err := levelzero.Open()
	if err == nil {
		t.Skipf("a Level Zero driver and device are present (adapter %s)", a.Name())
	}
	if !errors.Is(err, ur.ErrAdapterNotAvailable) {
		t.Fatalf("Open: %v, want an error matching ur.ErrAdapterNotAvailable", err)
	}
	msg := err.Error()
	if !strings.Contains(msg, "level_zero: no driver/device") {
		t.Errorf("Open: %q does not say \"level_zero: no driver/device\"", msg)
	}
	if !strings.Contains(msg, "ZE_RESULT_") && !strings.Contains(msg, "0 drivers") {
		t.Errorf("Open: %q gives neither the loader's code nor a driver count", msg)
	}
	t.Logf("reported: %v", err)
}

// TestDiscoveryReportsLevelZero checks what ur.Discover (and so urinfo)
// reports for Level Zero on a machine without a device: a status with the
// reason, and no failure of the discovery itself.
func TestDiscoveryReportsLevelZero(t *testing.T) {
	sys, err := ur.Discover(ur.Config{ForceLoad: []string{levelzero.Name}, Selector: "*:*"})
	if err != nil {
		t.Fatalf("Discover: %v", err)
	}
	if len(sys.Statuses) != 1 || sys.Statuses[0].Name != levelzero.Name {
		t.Fatalf("Statuses = %+v, want one for %s", sys.Statuses, levelzero.Name)
	}
	st := sys.Statuses[0]
	if st.Err == nil {
		t.Skipf("Level Zero is available here: %d devices", len(sys.Devices))
	}
	if !errors.Is(st.Err, ur.ErrAdapterNotAvailable) {
		t.Errorf("status error %v does not match ErrAdapterNotAvailable", st.Err)
	}
	if len(sys.Devices) != 0 {
		t.Errorf("%d devices from an adapter that did not load", len(sys.Devices))
	}
	t.Logf("level_zero status: %v", st.Err)
}
