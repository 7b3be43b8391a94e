package main

import (
	"bytes"
	"testing"

	"github.com/gour-dev/gour/internal/harness/testenv"
)

// TestRun runs the example on every selected device that builds source and
// checks what it prints: y = 1 + 2x after the first launch, plus 2x for each
// of the ten prepared ones.
func TestRun(t *testing.T) {
	const want = "y[:4] = [1 23 45 67] y[1023] = 22507\n"
	for _, dev := range testenv.Devices(t) {
		t.Run(dev.Backend()+"/"+dev.Name(), func(t *testing.T) {
			if _, ok := sources[dev.Backend()]; !ok {
				t.Skipf("the example has no source for %s devices", dev.Backend())
			}
			var out bytes.Buffer
			if err := run(&out, dev); err != nil {
				t.Fatalf("run on %s: %v", dev, err)
			}
			if got := out.String(); got != want {
				t.Errorf("run on %s printed\n%q\nwant\n%q", dev, got, want)
			}
		})
	}
}
