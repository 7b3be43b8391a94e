package gomlx_test

import (
	"flag"
	"fmt"
	"os"
	"slices"
	"testing"

	gc "github.com/gomlx/compute"
	"github.com/gomlx/compute/support/backendtest"

	"github.com/gour-dev/gour/gomlx"
	"github.com/gour-dev/gour/ur"
)

// newBackend returns the gour backend on the default device (GOMLX's
// registration, with an empty configuration), finalized at the test's end.
func newBackend(t *testing.T) gc.Backend {
	t.Helper()
	b, err := gc.NewWithConfig(gomlx.BackendName)
	if err != nil {
		t.Fatalf("gour backend: %v", err)
	}
	t.Cleanup(b.Finalize)
	t.Logf("%s", b.Description())
	return b
}

// TestBackendSuite runs GoMLX's conformance suite for backends against
// the gour backend: every operation and dtype Capabilities declares is
// tested, the others are skipped by the suite. In a run of the whole
// package (no -run) that is not -short it is left to TestSuiteCounts,
// which runs it in its child process and fails where it fails, so that
// the suite does not run twice.
func TestBackendSuite(t *testing.T) {
	if f := flag.Lookup("test.run"); f != nil && f.Value.String() == "" && !testing.Short() {
		t.Skip("run (and failed where it fails) by TestSuiteCounts's child process")
	}
	backendtest.RunAll(t, newBackend(t), nil)
}

// TestRegistration checks that "gour" is registered with GoMLX and that a
// device named by a gour selector in the configuration is the one used.
func TestRegistration(t *testing.T) {
	if !slices.Contains(gc.List(), gomlx.BackendName) {
		t.Fatalf("%q is not among GoMLX's backends %v", gomlx.BackendName, gc.List())
	}
	dev, err := ur.DefaultDevice()
	if err != nil {
		t.Fatal(err)
	}
	sel := fmt.Sprintf("%s:%d", dev.Backend(), dev.Index())
	t.Setenv(gc.ConfigEnvVar, gomlx.BackendName+":device="+sel)
	b, err := gc.New()
	if err != nil {
		t.Fatalf("GOMLX_BACKEND=%s: %v", os.Getenv(gc.ConfigEnvVar), err)
	}
	defer b.Finalize()
	if b.Name() != gomlx.BackendName || b.DeviceDescription(0) != dev.String() {
		t.Errorf("GOMLX_BACKEND=%s gave %s on %q, want %q", os.Getenv(gc.ConfigEnvVar), b.Name(), b.DeviceDescription(0), dev.String())
	}
	if _, err := gc.NewWithConfig(gomlx.BackendName + ":device=nosuch:0"); err == nil {
		t.Errorf("a selector of no device made a backend")
	}
}
