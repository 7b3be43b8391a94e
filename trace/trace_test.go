package trace

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestConcurrent records from many goroutines (run it with -race): the
// file is a JSON array with every event, each host track is named once,
// and no two events of one track partly overlap.
func TestConcurrent(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.json")
	r, err := Start(path, Options{FlushInterval: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	const goroutines, each = 16, 500
	var wg sync.WaitGroup
	for range goroutines {
		wg.Go(func() {
			for i := range each {
				s := Begin("test", "span")
				var a Args
				a.Int("i", int64(i))
				a.Str("quote", `a "quoted" \ string`+"\n")
				r.Complete("test", "call", r.Now(), r.Now(), &a)
				s.End("k", "v")
			}
		})
	}
	wg.Wait()
	if err := Stop(); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	var raw []map[string]any
	if err := json.Unmarshal(data, &raw); err != nil {
		t.Fatalf("not a JSON array: %v", err)
	}
	evs, truncated, _, err := Read(data)
	if err != nil || truncated {
		t.Fatal(truncated, err)
	}
	calls, names := 0, map[int64]int{}
	for _, e := range evs {
		if e.Name == "call" || e.Name == "span" {
			calls++
		}
		if e.Ph == "M" && e.Name == "thread_name" && e.Pid == HostPID {
			names[e.Tid]++
		}
	}
	if calls != 2*goroutines*each {
		t.Errorf("%d events, want %d", calls, 2*goroutines*each)
	}
	for tid, n := range names {
		if n != 1 {
			t.Errorf("track %d named %d times", tid, n)
		}
	}
	checkLanes(t, evs, names)
}

// checkLanes checks that every host event is on a named track and that
// the events of each track nest or follow one another.
func checkLanes(t *testing.T, evs []Event, names map[int64]int) {
	t.Helper()
	tracks := map[int64][]Event{}
	for _, e := range evs {
		if e.Pid == HostPID && (e.Ph == "X" || e.Ph == "i") {
			if names[e.Tid] == 0 {
				t.Errorf("event %s on track %d, which has no name", e.Name, e.Tid)
			}
			tracks[e.Tid] = append(tracks[e.Tid], e)
		}
	}
	for tid, es := range tracks {
		for i, a := range es {
			for _, b := range es[i+1:] {
				// Times are microseconds with nanosecond decimals:
				// compare them at a nanosecond's precision.
				lt := func(x, y float64) bool { return x < y-1e-4 }
				if lt(a.Ts, b.Ts) && lt(b.Ts, a.End()) && lt(a.End(), b.End()) || lt(b.Ts, a.Ts) && lt(a.Ts, b.End()) && lt(b.End(), a.End()) {
					t.Fatalf("track %d: %s [%v, %v] and %s [%v, %v] partly overlap", tid, a.Name, a.Ts, a.End(), b.Name, b.Ts, b.End())
				}
			}
		}
	}
}

// TestLanes: spans of one goroutine, recorded inner first, share a lane;
// an event cutting across a block of a lane, or recorded inside one after
// it, goes to another lane; a lane forgets its oldest blocks and takes
// nothing that starts before them.
func TestLanes(t *testing.T) {
	var r Recorder
	steps := []struct {
		start, end int64
		want       int64
	}{
		{2, 5, 1},   // a call inside a span
		{6, 8, 1},   // the next call
		{0, 10, 1},  // the span around both: encloses lane 1's blocks
		{9, 12, 2},  // cuts across the span
		{11, 20, 1}, // after the span
		{10, 30, 1}, // encloses [11, 20], touching the span's end
		{15, 16, 2}, // inside lane 1's [10, 30], recorded after it
		{40, 40, 1}, // an instant, later
	}
	for i, s := range steps {
		got, _ := r.laneOf(s.start, s.end)
		if got != s.want {
			t.Errorf("step %d: [%d, %d] on lane %d, want %d", i, s.start, s.end, got, s.want)
		}
	}
	var l lane
	for i := range int64(laneBlocks + 2) {
		if !l.place(10*i, 10*i+5) {
			t.Fatalf("block %d refused", i)
		}
	}
	if len(l.blocks) != laneBlocks || l.dropped != 15 {
		t.Errorf("%d blocks kept, dropped up to %d; want %d and 15", len(l.blocks), l.dropped, laneBlocks)
	}
	if l.place(12, 200) {
		t.Error("an event starting inside a forgotten block was placed")
	}
	if !l.place(20, 200) {
		t.Error("an event enclosing every kept block was refused")
	}
}

// TestFullDisk: writes that fail (/dev/full) give a warning, drop what
// follows, and Close returns without hanging.
func TestFullDisk(t *testing.T) {
	full, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
	if err != nil {
		t.Skip("no /dev/full")
	}
	var warn bytes.Buffer
	r, err := Create(filepath.Join(t.TempDir(), "t.json"), Options{Warn: &warn})
	if err != nil {
		t.Fatal(err)
	}
	r.mu.Lock()
	r.f.Close()
	r.f = full
	r.mu.Unlock()
	for range 10 {
		r.Complete("test", "call", 0, 1, nil)
	}
	if err := r.Flush(); err == nil {
		t.Error("Flush to a full disk: no error")
	}
	r.Complete("test", "after", 0, 1, nil)
	done := make(chan error)
	go func() { done <- r.Close() }()
	select {
	case err := <-done:
		if err == nil {
			t.Error("Close after a failed write: no error")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Close hangs")
	}
	if !strings.Contains(warn.String(), "urtrace repair") {
		t.Errorf("warning: %q", warn.String())
	}
	if _, dropped := r.Events(); dropped == 0 {
		t.Error("nothing dropped")
	}
}

// TestNeverClosed: a recorder never closed (a program that exits without
// Stop) leaves, after each flush, a complete trace holding every event
// flushed; the next flush writes over the closing bracket. A trace cut
// short, which Read reads whole, Repair closes.
func TestNeverClosed(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.json")
	r, err := Create(path, Options{FlushInterval: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	for i, name := range []string{"first", "second"} {
		r.Complete("test", name, 0, 1, nil)
		if err := r.Flush(); err != nil {
			t.Fatal(err)
		}
		data, _ := os.ReadFile(path)
		if !json.Valid(data) {
			t.Fatalf("after flush %d the file is not a complete trace:\n%s", i+1, data)
		}
		evs, truncated, _, err := Read(data)
		if err != nil || truncated || evs[len(evs)-1].Name != name {
			t.Fatalf("after flush %d: Read: %d events, truncated %v, %v", i+1, len(evs), truncated, err)
		}
	}
	data, _ := os.ReadFile(path)
	cut := data[:bytes.LastIndexByte(data, ']')]
	evs, truncated, _, err := Read(cut)
	if err != nil || !truncated || evs[len(evs)-1].Name != "second" {
		t.Fatalf("Read of a cut trace: %d events, truncated %v, %v", len(evs), truncated, err)
	}
	fixed, n, _, err := Repair(cut)
	if err != nil || n != len(evs) || !json.Valid(fixed) {
		t.Fatalf("Repair: %d events, %v, valid %v", n, err, json.Valid(fixed))
	}
}

func TestOffAllocatesNothing(t *testing.T) {
	if Active() != nil {
		t.Skip("a trace is active")
	}
	if n := testing.AllocsPerRun(100, func() {
		s := Begin("cache", "get")
		s.End("k", "v")
		Mark("cache", "hit", "entry", 1)
	}); n != 0 {
		t.Errorf("%v allocations with tracing off", n)
	}
}

func TestStartTwice(t *testing.T) {
	dir := t.TempDir()
	if _, err := Start(filepath.Join(dir, "a.json"), Options{}); err != nil {
		t.Fatal(err)
	}
	defer Stop()
	if _, err := Start(filepath.Join(dir, "b.json"), Options{}); err != ErrActive {
		t.Errorf("second Start: %v", err)
	}
}

func BenchmarkComplete(b *testing.B) {
	r, err := Create(filepath.Join(b.TempDir(), "t.json"), Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer r.Close()
	var a Args
	a.Uint("queue", 3)
	a.Str("name", "axpy")
	b.ReportAllocs()
	for b.Loop() {
		r.Complete("ur", "Queue.Launch", r.Now(), r.Now(), &a)
	}
}

// TestValidateFile: a closed trace reads whole; one cut short, or
// missing, is an error.
func TestValidateFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.json")
	r, err := Create(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	r.Complete("test", "call", 0, 10, nil)
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	evs, err := ValidateFile(path)
	if err != nil || len(evs) == 0 {
		t.Fatalf("ValidateFile of a closed trace = %d events, %v", len(evs), err)
	}
	data, _ := os.ReadFile(path)
	cut := filepath.Join(t.TempDir(), "cut.json")
	if err := os.WriteFile(cut, data[:len(data)-3], 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ValidateFile(cut); err == nil || !strings.Contains(err.Error(), "cut short") {
		t.Errorf("ValidateFile of a cut trace = %v, want an error saying so", err)
	}
	if _, err := ValidateFile(filepath.Join(t.TempDir(), "none.json")); err == nil {
		t.Error("ValidateFile of a missing file succeeded")
	}
}
