package conformance_test

import (
	"os"
	"testing"

	_ "github.com/gour-dev/gour/adapters/all"
	"github.com/gour-dev/gour/conformance"
	"github.com/gour-dev/gour/ur/leaktest"
)

// The cases run as this package's tests (wrappers_generated_test.go), on
// every adapter of this module.
//
// With leak checking on (make test sets GOUR_LEAK_CHECK=1), handles left
// unreleased fail the run.
func TestMain(m *testing.M) { os.Exit(leaktest.After(conformance.Main(m))) }
