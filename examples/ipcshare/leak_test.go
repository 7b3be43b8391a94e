package main

import (
	"os"
	"testing"

	"github.com/gour-dev/gour/ur/leaktest"
)

// TestMain is the child of TestIPCShare when the handle is set; otherwise
// it runs the tests, failing on handles left unreleased when leak checking
// is on (make test sets GOUR_LEAK_CHECK=1).
func TestMain(m *testing.M) {
	if h := os.Getenv(envHandle); h != "" {
		if err := child(os.Stdout, h, os.Getenv(envEvent), 16<<20); err != nil {
			os.Stdout.WriteString(err.Error() + "\n")
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(leaktest.Main(m))
}
