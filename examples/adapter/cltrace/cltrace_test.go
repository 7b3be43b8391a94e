package cltrace_test

import (
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/gour-dev/gour/conformance"
	"github.com/gour-dev/gour/examples/adapter/cltrace"
	"github.com/gour-dev/gour/ur"
	"github.com/gour-dev/gour/ur/driver"
)

// required reports whether UR_REQUIRE_ADAPTERS names OpenCL, which
// cltrace wraps: a run that requires OpenCL requires cltrace too, so that
// it cannot pass by skipping.
func required() bool {
	for _, name := range strings.Split(os.Getenv("UR_REQUIRE_ADAPTERS"), ",") {
		if n := strings.ToLower(strings.TrimSpace(name)); n == cltrace.Inner || n == cltrace.Name {
			return true
		}
	}
	return false
}

func TestRegistered(t *testing.T) {
	if !slices.Contains(driver.Registered(), cltrace.Name) {
		t.Fatalf("driver.Registered() = %v, want %q among them", driver.Registered(), cltrace.Name)
	}
	if _, err := ur.ParseSelector(cltrace.Name + ":cpu"); err != nil {
		t.Errorf("a selector naming the adapter: %v", err)
	}
}

// The whole conformance suite, on cltrace's devices, with the suite's
// OpenCL C: a proxy must answer as the adapter it wraps does, so it claims
// every case, and OpenCL's known driver failures are its own.
func TestConformance(t *testing.T) {
	var known []conformance.KnownFailure
	for _, k := range conformance.KnownFailures {
		if k.Adapter == cltrace.Inner {
			k.Adapter = cltrace.Name
			known = append(known, k)
		}
	}
	conformance.Run(t, conformance.Options{
		Adapters:      []string{cltrace.Name},
		Require:       required(),
		DeviceCode:    map[string]conformance.DeviceCode{cltrace.Name: conformance.OpenCLC()},
		KnownFailures: known,
	})
}
