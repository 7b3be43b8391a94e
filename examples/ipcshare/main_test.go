package main

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/gour-dev/gour/internal/harness/testenv"
)

// TestIPCShare runs the example small, the child being this test binary
// again (TestMain below runs it as the child when the handle is set).
func TestIPCShare(t *testing.T) {
	testenv.Devices(t)
	var out strings.Builder
	err := parent(&out, 16<<20, func(handle, event string) ([]byte, error) {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), envHandle+"="+handle, envEvent+"="+event)
		return cmd.CombinedOutput()
	})
	if err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	t.Log(out.String())
}
