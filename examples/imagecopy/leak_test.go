package main

import (
	"os"
	"testing"

	"github.com/gour-dev/gour/ur/leaktest"
)

// TestMain fails the run on handles left unreleased when leak checking is
// on (make test sets GOUR_LEAK_CHECK=1).
func TestMain(m *testing.M) { os.Exit(leaktest.Main(m)) }
