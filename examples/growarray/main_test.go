package main

import (
	"strings"
	"testing"

	"github.com/gour-dev/gour/internal/harness/testenv"
)

// TestGrowArray runs the example small: on a device with virtual memory it
// grows and checks the array; without, it says so.
func TestGrowArray(t *testing.T) {
	testenv.Devices(t)
	var out strings.Builder
	if err := run(&out, 4, 1<<20); err != nil {
		t.Fatal(err)
	}
	s := out.String()
	if !strings.Contains(s, "no virtual memory") && !strings.Contains(s, "kept their contents") {
		t.Errorf("output:\n%s", s)
	}
	t.Log(s)
}
