package compare

import (
	"os"
	"testing"

	_ "github.com/gour-dev/gour/adapters/all"
)

// TestMain lets this test binary be the child processes of Run.
func TestMain(m *testing.M) {
	if code, ok := RunChild(); ok {
		os.Exit(code)
	}
	os.Exit(m.Run())
}
