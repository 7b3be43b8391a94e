package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gour-dev/gour/trace"
)

// writeTrace records a small trace: calls on two goroutines, commands on
// a queue with a gap between them.
func writeTrace(t *testing.T) string {
	path := filepath.Join(t.TempDir(), "t.json")
	r, err := trace.Create(path, trace.Options{})
	if err != nil {
		t.Fatal(err)
	}
	r.NameQueue(7, "Queue #7 (test)")
	var a trace.Args
	a.Str("name", "axpy")
	for i := range int64(5) {
		r.CompleteOn(trace.HostPID, 1, "ur", "Queue.Launch", i*1000, i*1000+200, &a)
		r.Queue(7, "device", "Queue.Launch", i*1000+300, i*1000+800, &a)
	}
	r.CompleteOn(trace.HostPID, 2, "cache", "cache.Get", 0, 50, nil)
	r.Queue(7, "device", "Queue.Launch", 20000, 21000, &a) // the largest gap
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestSummary(t *testing.T) {
	path := writeTrace(t)
	var out, errb bytes.Buffer
	if code := run([]string{"summary", path}, &out, &errb); code != exitOK {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	s := out.String()
	for _, want := range []string{"Queue.Launch", "5", "cache.Get", "Queue #7 (test)", "6", "largest gaps", "15.2 µs"} {
		if !strings.Contains(s, want) {
			t.Errorf("summary lacks %q:\n%s", want, s)
		}
	}
	// Five commands of 0.5 µs and one of 1 µs: busy 3.5 µs of 20.7 µs.
	if !strings.Contains(s, "16.9%") {
		t.Errorf("busy fraction not 16.9%%:\n%s", s)
	}
}

func TestDraw(t *testing.T) {
	path := writeTrace(t)
	for _, ext := range []string{".png", ".svg"} {
		out := filepath.Join(t.TempDir(), "t"+ext)
		var o, e bytes.Buffer
		if code := run([]string{"draw", "-o", out, path}, &o, &e); code != exitOK {
			t.Fatalf("exit %d: %s", code, e.String())
		}
		fi, err := os.Stat(out)
		if err != nil || fi.Size() < 1000 {
			t.Errorf("%s: %v, %v", out, fi, err)
		}
		if ext == ".svg" {
			b, _ := os.ReadFile(out)
			if !strings.Contains(string(b), "Queue #7 (test)") {
				t.Error("the picture does not name the queue's row")
			}
		}
	}
}

// TestRepair cuts a trace at every length and repairs it: the result is
// JSON with the whole events before the cut.
func TestRepair(t *testing.T) {
	data, err := os.ReadFile(writeTrace(t))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for cut := 2; cut < len(data); cut += 7 {
		p := filepath.Join(dir, "cut.json")
		os.WriteFile(p, data[:cut], 0o644)
		var o, e bytes.Buffer
		if code := run([]string{"repair", p}, &o, &e); code != exitOK {
			t.Fatalf("cut at %d: exit %d: %s", cut, code, e.String())
		}
		fixed, _ := os.ReadFile(p)
		var evs []map[string]any
		if err := json.Unmarshal(fixed, &evs); err != nil {
			t.Fatalf("cut at %d: repaired is no JSON array: %v\n%s", cut, err, fixed)
		}
	}
	var o, e bytes.Buffer
	p := filepath.Join(dir, "whole.json")
	os.WriteFile(p, data, 0o644)
	if code := run([]string{"repair", p}, &o, &e); code != exitOK || !strings.Contains(o.String(), "whole") {
		t.Errorf("a whole trace: exit %d, %s", code, o.String())
	}
}

func TestUsage(t *testing.T) {
	var o, e bytes.Buffer
	if code := run([]string{"nope"}, &o, &e); code != exitUsage {
		t.Errorf("unknown command: exit %d", code)
	}
	if code := run([]string{"summary", filepath.Join(t.TempDir(), "none.json")}, &o, &e); code != exitError {
		t.Errorf("missing file: exit %d", code)
	}
}
