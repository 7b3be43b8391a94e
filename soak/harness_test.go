package soak

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	_ "github.com/gour-dev/gour/adapters/all"
	"github.com/gour-dev/gour/internal/harness/testenv"
	"github.com/gour-dev/gour/ur"
)

// firstDevice is the first selected device a site can be made on.
func firstDevice(t *testing.T) *ur.Device {
	testenv.CheckRequired(t)
	for _, d := range testenv.System(t).Devices {
		if d.Backend() == "opencl" || d.Backend() == "cuda" {
			return d
		}
	}
	t.Skipf("no device: %s", testenv.Reasons(testenv.System(t)))
	return nil
}

// withOps runs f with the kinds of call replaced by these.
func withOps(t *testing.T, these []op, f func()) {
	saved := ops
	ops = these
	defer func() { ops = saved }()
	f()
}

// TestRunReportsFailures checks the harness: a call's error and a
// panic are failures naming the kind, every kind is called at least once
// even in a run shorter than a call, and calls are counted.
func TestRunReportsFailures(t *testing.T) {
	dev := firstDevice(t)
	boom := errors.New("a wrong result")
	withOps(t, []op{
		{"fails", 1, func(*worker, *site, *[]*held) error { time.Sleep(time.Millisecond); return boom }},
		{"panics", 1, func(*worker, *site, *[]*held) error { panic("a bug") }},
		{"passes", 1, func(*worker, *site, *[]*held) error { return nil }},
	}, func() {
		r, err := Run(context.Background(), Options{Devices: []*ur.Device{dev}, Duration: time.Nanosecond, Workers: 2})
		if err != nil {
			t.Fatal(err)
		}
		for _, kind := range Kinds() {
			if r.Ops[kind] == 0 {
				t.Errorf("no %s call", kind)
			}
		}
		var failed, panicked bool
		for _, f := range r.Failures {
			failed = failed || f.Op == "fails" && errors.Is(f.Err, boom)
			panicked = panicked || f.Op == "panics" && strings.Contains(f.Err.Error(), "panic: a bug")
			if f.Op == "passes" {
				t.Errorf("a call that passed is a failure: %v", f)
			}
		}
		if !failed || !panicked {
			t.Errorf("failures %v: want the error and the panic", r.Failures)
		}
		if s := r.String(); !strings.Contains(s, "FAIL worker") || !strings.Contains(s, "calls/s") {
			t.Errorf("the report does not show the failures and the rate:\n%s", s)
		}
	})
}

// TestRunReportsAHang checks that a call still running Hang after the
// run's end makes Run return ErrHung instead of waiting for it.
func TestRunReportsAHang(t *testing.T) {
	dev := firstDevice(t)
	release := make(chan struct{})
	withOps(t, []op{
		{"hangs", 1, func(*worker, *site, *[]*held) error { <-release; return nil }},
	}, func() {
		r, err := Run(context.Background(), Options{Devices: []*ur.Device{dev}, Duration: 10 * time.Millisecond, Workers: 1, Hang: 50 * time.Millisecond})
		if !errors.Is(err, ErrHung) {
			t.Errorf("Run = %v, want ErrHung", err)
		}
		// The hung call returns: the run releases what it made.
		close(release)
		select {
		case <-r.released:
		case <-time.After(time.Minute):
			t.Error("the run's objects not released a minute after the hung call returned")
		}
	})
}

func TestRunNeedsADevice(t *testing.T) {
	if _, err := Run(context.Background(), Options{}); err == nil {
		t.Error("Run with no device: no error")
	}
}
