package conformance_test

import (
	"os"
	"testing"

	_ "github.com/gour-dev/gour/adapters/all"
	"github.com/gour-dev/gour/conformance"
)

// The cases run as this package's tests (wrappers_generated_test.go), on
// every adapter of this module.
func TestMain(m *testing.M) { os.Exit(conformance.Main(m)) }
