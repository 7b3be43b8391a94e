package main

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"github.com/gour-dev/gour/internal/testenv"
)

func TestRun(t *testing.T) {
	testenv.Devices(t) // skips with the reason when there is no device
	var out bytes.Buffer
	if err := run(&out); err != nil {
		t.Fatalf("run: %v\noutput:\n%s", err, out.String())
	}
	if !strings.HasSuffix(out.String(), "axpy OK\n") {
		t.Errorf("output does not end with axpy OK:\n%s", out.String())
	}
	t.Logf("\n%s", out.String())
}

func TestCheck(t *testing.T) {
	xs, ys := inputs()
	got := make([]float32, n)
	for i := range got {
		got[i] = alpha*xs[i] + ys[i]
	}
	var res axpyResult
	check(&res, xs, ys, got)
	if res.bad != 0 || res.maxErr != 0 {
		t.Fatalf("exact result: bad=%d maxErr=%g", res.bad, res.maxErr)
	}

	got[7] *= 1 + 2e-5 // just past the tolerance
	got[9] = float32(math.NaN())
	res = axpyResult{}
	check(&res, xs, ys, got)
	if res.bad != 2 || res.firstBad != 7 {
		t.Errorf("bad=%d firstBad=%d, want 2 and 7", res.bad, res.firstBad)
	}
	if !math.IsNaN(res.maxErr) {
		t.Errorf("maxErr = %g, want NaN to show", res.maxErr)
	}

	got[7], got[9] = alpha*xs[7]+ys[7], alpha*xs[9]+ys[9]
	got[11] *= 1 + 5e-6 // within the tolerance
	res = axpyResult{}
	check(&res, xs, ys, got)
	if res.bad != 0 || res.maxErr == 0 {
		t.Errorf("bad=%d maxErr=%g, want 0 bad and a non-zero error", res.bad, res.maxErr)
	}
}
