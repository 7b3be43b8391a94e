package main

import (
	"strings"
	"testing"

	"github.com/gour-dev/gour/internal/harness/testenv"
)

// TestImageCopy runs the example small.
func TestImageCopy(t *testing.T) {
	testenv.Devices(t)
	var out strings.Builder
	if err := run(&out, 256, 2); err != nil {
		t.Fatal(err)
	}
	if s := out.String(); !strings.Contains(s, "ratio") && !strings.Contains(s, "no images") {
		t.Errorf("output: %s", s)
	}
	t.Log(out.String())
}
