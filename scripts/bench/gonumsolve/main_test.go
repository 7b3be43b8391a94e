package main

import (
	"bytes"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/gour-dev/gour/internal/harness/testenv"
)

// TestRun runs the benchmark at small sizes on the default device, every
// call on the device (threshold 0, after the set-up), and checks its
// output: a row per size and operation whose device results are near
// gonum's, and a summary counting device calls.
func TestRun(t *testing.T) {
	testenv.CheckRequired(t)
	testenv.Devices(t) // skips, or fails where required, without a device
	var out bytes.Buffer
	c := config{sizes: []int{16, 100}, runs: 1, maxTime: time.Second, threshold: 0, wait: true}
	if err := run(&out, c); err != nil {
		t.Fatal(err)
	}
	t.Log("\n" + out.String())
	row := regexp.MustCompile(`(?m)^\s*(\d+)\s+(Mul|Solve)(?:\s+\d+\.\d+){4}\s+\d+\.\d+x\s+(\S+)\s*$`)
	rows := row.FindAllStringSubmatch(out.String(), -1)
	if len(rows) != 4 {
		t.Fatalf("%d rows, want 4 (2 sizes, Mul and Solve)", len(rows))
	}
	for _, r := range rows {
		if d, err := strconv.ParseFloat(r[3], 64); err != nil || d > 1e-10 {
			t.Errorf("%s %s: the device's result differs from gonum's by %s", r[1], r[2], r[3])
		}
	}
	m := regexp.MustCompile(`gonumblas calls: (\d+) on the device, \d+ on the host \(0 before the device was ready\), 0 device failures`).FindStringSubmatch(out.String())
	if m == nil || m[1] == "0" {
		t.Errorf("summary %q: want device calls, none before the device was ready, no failures", m)
	}
}
