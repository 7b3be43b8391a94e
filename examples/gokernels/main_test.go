package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/gour-dev/gour/internal/harness/testenv"
)

// TestRun runs every kernel on the CPU and on each selected device that
// runs kernels of its own, and checks they agree.
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
			// ShuffleSum runs where the device has subgroup shuffles, and
			// says why not elsewhere.
			want := "9 Go kernels agree on the CPU and " + dev.Backend() + "; sum = 32429, y[1] = 1.02\n"
			if skipped, _, ok := strings.Cut(out.String(), "\n"); ok && strings.HasPrefix(skipped, "ShuffleSum skipped: gokernel: kernel ShuffleSum uses subgroup") &&
				strings.Contains(skipped, "(aspect subgroup") {
				want = skipped + "\n8" + want[1:]
			}
			if out.String() != want {
				t.Errorf("run printed %q, want %q", out.String(), want)
			}
		})
	}
	if ran == 0 {
		t.Skip("no device that runs its own kernels")
	}
}
