package gomlx

import (
	"os"
	"testing"

	"github.com/gour-dev/gour/ur/leaktest"
)

// TestMain fails the run, with GOUR_LEAK_CHECK=1, if a gour handle is left
// unreleased: every test finalizes its backend, which must release all.
func TestMain(m *testing.M) { os.Exit(leaktest.Main(m)) }
