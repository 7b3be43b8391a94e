package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/gour-dev/gour/internal/harness/testenv"
)

// TestRun generates on each selected device that runs kernels of its
// own and on the host, and checks they agree.
func TestRun(t *testing.T) {
	ran := 0
	for _, dev := range testenv.Devices(t) {
		if dev.Backend() == "level_zero" {
			continue // the test driver runs only its own kernels
		}
		ran++
		t.Run(dev.Name(), func(t *testing.T) {
			var out bytes.Buffer
			if err := run(&out, dev); err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(out.String(), "GPT-2 (2 layers, width 64) on "+dev.Backend()+" and on the host: [") {
				t.Errorf("run printed %q", out.String())
			}
		})
	}
	if ran == 0 {
		t.Skip("no device that runs its own kernels")
	}
}
