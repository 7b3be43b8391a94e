package testenv

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
)

// recorder is a testing.TB that records Skipf and Fatalf instead of acting
// on the real test; both end the calling goroutine, as the real ones do.
type recorder struct {
	testing.TB
	skipped, fatal bool
	msg            string
}

func (r *recorder) Helper() {}

func (r *recorder) Skipf(format string, args ...any) {
	r.skipped, r.msg = true, fmt.Sprintf(format, args...)
	runtime.Goexit()
}

func (r *recorder) Fatalf(format string, args ...any) {
	r.fatal, r.msg = true, fmt.Sprintf(format, args...)
	runtime.Goexit()
}

func (r *recorder) Errorf(format string, args ...any) {
	r.fatal, r.msg = true, r.msg+fmt.Sprintf(format, args...)
}

func (r *recorder) Failed() bool { return r.fatal }

func (r *recorder) FailNow() { runtime.Goexit() }

func runRecorded(t *testing.T, f func(tb testing.TB)) *recorder {
	r := &recorder{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		f(r)
	}()
	<-done
	return r
}

func TestMustHaveAdapterSkipsOrFails(t *testing.T) {
	const name = "no_such_adapter"
	t.Setenv(EnvRequireAdapters, "")
	r := runRecorded(t, func(tb testing.TB) { MustHaveAdapter(tb, name) })
	if !r.skipped || r.fatal || !strings.Contains(r.msg, name) {
		t.Errorf("not required: skipped=%v fatal=%v msg=%q, want a skip naming the adapter", r.skipped, r.fatal, r.msg)
	}

	t.Setenv(EnvRequireAdapters, "cuda,"+name)
	r = runRecorded(t, func(tb testing.TB) { MustHaveAdapter(tb, name) })
	if r.skipped || !r.fatal || !strings.Contains(r.msg, name) || !strings.Contains(r.msg, EnvRequireAdapters) {
		t.Errorf("required: skipped=%v fatal=%v msg=%q, want a failure naming the adapter and %s",
			r.skipped, r.fatal, r.msg, EnvRequireAdapters)
	}
}

func TestCheckRequired(t *testing.T) {
	t.Setenv(EnvRequireAdapters, "")
	if r := runRecorded(t, CheckRequired); r.fatal || r.skipped {
		t.Errorf("nothing required: fatal=%v skipped=%v msg=%q, want no effect", r.fatal, r.skipped, r.msg)
	}
	t.Setenv(EnvRequireAdapters, "no_such_adapter")
	if r := runRecorded(t, CheckRequired); !r.fatal || !strings.Contains(r.msg, "no_such_adapter") {
		t.Errorf("missing adapter required: fatal=%v msg=%q, want a failure naming it", r.fatal, r.msg)
	}
	r := runRecorded(t, func(tb testing.TB) { Devices(tb) })
	if !r.fatal || r.skipped {
		t.Errorf("Devices with a missing required adapter: fatal=%v skipped=%v msg=%q, want a failure", r.fatal, r.skipped, r.msg)
	}
}
