package testenv

import (
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/gour-dev/gour/ur"
)

func TestParseRequiredAdapters(t *testing.T) {
	tests := []struct {
		name, in string
		want     []string
	}{
		{"empty", "", nil},
		{"blank", "   ", nil},
		{"one", "opencl", []string{"opencl"}},
		{"two", "opencl,cuda", []string{"opencl", "cuda"}},
		{"spaces", " opencl , cuda ", []string{"opencl", "cuda"}},
		{"case", "OpenCL,CUDA", []string{"opencl", "cuda"}},
		{"empty entries", ",opencl,,cuda,", []string{"opencl", "cuda"}},
		{"duplicates", "opencl,OPENCL,cuda,opencl", []string{"opencl", "cuda"}},
		{"order kept", "level_zero,opencl", []string{"level_zero", "opencl"}},
		{"library name", "libur_adapter_opencl.so", []string{"opencl"}},
		{"library path", "/usr/lib/libur_adapter_level_zero.so.0,cuda", []string{"level_zero", "cuda"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ParseRequiredAdapters(tt.in)
			if !slices.Equal(got, tt.want) {
				t.Errorf("ParseRequiredAdapters(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestRequiredAdaptersFromEnvironment(t *testing.T) {
	t.Setenv(EnvRequireAdapters, "cuda, opencl")
	if got, want := RequiredAdapters(), []string{"cuda", "opencl"}; !slices.Equal(got, want) {
		t.Errorf("RequiredAdapters() = %q, want %q", got, want)
	}
	if !IsRequired("opencl") || !IsRequired("CUDA") {
		t.Errorf("IsRequired: opencl and cuda should be required with %s=%q", EnvRequireAdapters, "cuda, opencl")
	}
	if IsRequired("level_zero") {
		t.Errorf("IsRequired(level_zero) = true, want false")
	}
	t.Setenv(EnvRequireAdapters, "")
	if got := RequiredAdapters(); len(got) != 0 {
		t.Errorf("RequiredAdapters() with the variable empty = %q, want none", got)
	}
}

func TestAdapterProblem(t *testing.T) {
	loadErr := fmt.Errorf("%w: libfoo.so.1: cannot open shared object file", ur.ErrAdapterNotAvailable)
	sys := &ur.System{Statuses: []ur.AdapterStatus{
		{Name: "loaded"},
		{Name: "broken", Err: loadErr},
	}}
	if err := AdapterProblem(sys, "loaded"); err != nil {
		t.Errorf("AdapterProblem(loaded) = %v, want nil", err)
	}
	err := AdapterProblem(sys, "broken")
	if !errors.Is(err, ur.ErrAdapterNotAvailable) || !strings.Contains(err.Error(), "libfoo.so.1") {
		t.Errorf("AdapterProblem(broken) = %v, want the adapter's reason", err)
	}
	err = AdapterProblem(sys, "no_such_adapter")
	if !errors.Is(err, ur.ErrAdapterNotAvailable) || !strings.Contains(err.Error(), "not registered") {
		t.Errorf("AdapterProblem(no_such_adapter) = %v, want a not-registered error", err)
	}
	// Loaded, but without any device.
	err = DeviceProblem(sys, "loaded")
	if err == nil || !strings.Contains(err.Error(), "no device") {
		t.Errorf("DeviceProblem(loaded, no devices) = %v, want a no-device error", err)
	}
	if r := Reasons(sys); !strings.Contains(r, "libfoo.so.1") || !strings.Contains(r, "no device") {
		t.Errorf("Reasons = %q, want both adapters' reasons", r)
	}
}

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
