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

func TestGoid(t *testing.T) {
	if goidOffset() < 0 {
		t.Log("the goroutine id's offset in g was not found: ids come from runtime.Stack")
	}
	for range 5 {
		ch := make(chan [2]int64)
		go func() { ch <- [2]int64{goid(), slowGoid()} }()
		if r := <-ch; r[0] != r[1] {
			t.Fatalf("goid %d, runtime.Stack says %d", r[0], r[1])
		}
	}
}

// TestConcurrent records from many goroutines (run it with -race): the
// file is a JSON array with every event, and each goroutine's track is
// named once.
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
	if len(names) != goroutines {
		t.Errorf("%d goroutine tracks named, want %d", len(names), goroutines)
	}
	for tid, n := range names {
		if n != 1 {
			t.Errorf("track %d named %d times", tid, n)
		}
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

// TestUnterminated: a recorder never closed leaves, after its flush, an
// unterminated array that Read reads whole and Repair closes.
func TestUnterminated(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.json")
	r, err := Create(path, Options{FlushInterval: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	r.Complete("test", "call", 0, 1, nil)
	r.Flush()
	data, _ := os.ReadFile(path)
	evs, truncated, _, err := Read(data)
	if err != nil || !truncated || len(evs) == 0 || evs[len(evs)-1].Name != "call" {
		t.Fatalf("Read: %d events, truncated %v, %v", len(evs), truncated, err)
	}
	fixed, n, _, err := Repair(data)
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
