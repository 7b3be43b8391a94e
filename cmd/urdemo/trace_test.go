package main

import (
	"bytes"
	"path/filepath"
	"testing"

	"github.com/gour-dev/gour/cmd/internal/cli"
	"github.com/gour-dev/gour/internal/harness/testenv"
	"github.com/gour-dev/gour/trace"
	"github.com/gour-dev/gour/ur"
)

// TestTrace runs the demo traced: the trace is what Perfetto opens, and
// the demo's launches are on their queue's track at device times.
func TestTrace(t *testing.T) {
	testenv.Devices(t)
	if trace.Active() != nil {
		t.Skip("a trace is being recorded (GOUR_TRACE)")
	}
	t.Setenv("SYCL_CACHE_DIR", t.TempDir())
	path := filepath.Join(t.TempDir(), "urdemo.json")
	if err := ur.StartTrace(path); err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	code := run([]string{"-n", "4096"}, &out, &errOut)
	if err := ur.StopTrace(); err != nil {
		t.Fatal(err)
	}
	if code != cli.ExitOK {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	events, err := trace.ValidateFile(path)
	if err != nil {
		t.Fatal(err)
	}
	launches := 0
	for _, cmds := range trace.OnQueue(events) {
		for _, c := range cmds {
			if c.Name == "Queue.Launch" || c.Name == "Queue.EnqueueLaunch" {
				launches++
			}
		}
	}
	if launches == 0 {
		t.Error("no launch on a queue's track")
	}
	spans := map[string]bool{}
	for _, e := range events {
		spans[e.Cat] = true
	}
	for _, cat := range []string{"ur", "programmgr", "cache"} {
		if !spans[cat] {
			t.Errorf("no %s events in the trace", cat)
		}
	}
}
