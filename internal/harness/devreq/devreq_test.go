package devreq

import (
	"errors"
	"fmt"
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

// Select tells a reason to skip (no devices, why) from a failure (err): a
// required adapter without a device fails, by UR_REQUIRE_ADAPTERS or by
// require, and an adapter nobody requires only explains the skip.
func TestSelect(t *testing.T) {
	loadErr := fmt.Errorf("%w: libfoo.so.1: cannot open shared object file", ur.ErrAdapterNotAvailable)
	sys := &ur.System{Statuses: []ur.AdapterStatus{
		{Name: "loaded"},
		{Name: "broken", Err: loadErr},
	}}
	for _, tt := range []struct {
		name     string
		env      string   // UR_REQUIRE_ADAPTERS
		adapters []string // Select's
		require  bool
		fail     []string // substrings of the failure; none for a skip
		why      []string // substrings of the skip's reason
	}{
		{name: "every adapter", why: []string{"no device selected", "libfoo.so.1", `"loaded" loaded but has no device`}},
		{name: "every adapter, one required", env: "broken", fail: []string{"libfoo.so.1", "required by " + EnvRequireAdapters}},
		{name: "every adapter, an absent one required", env: "no_such_adapter,broken", fail: []string{"no_such_adapter", "not registered", "libfoo.so.1"}},
		{name: "named", adapters: []string{"broken", "loaded"}, why: []string{"no device of broken, loaded", "libfoo.so.1", "no device"}},
		{name: "named, required", adapters: []string{"broken"}, require: true, fail: []string{"libfoo.so.1", "(required)"}},
		{name: "named, required by the variable", env: "BROKEN", adapters: []string{"Broken"}, fail: []string{"libfoo.so.1", "required by " + EnvRequireAdapters}},
		{name: "named, another one required", env: "cuda", adapters: []string{"broken"}, why: []string{"libfoo.so.1"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv(EnvRequireAdapters, tt.env)
			devs, why, err := Select(sys, tt.adapters, tt.require)
			if len(devs) != 0 {
				t.Fatalf("Select = %d devices, want none", len(devs))
			}
			if len(tt.fail) > 0 {
				if err == nil || why != "" {
					t.Fatalf("Select: err %v, why %q; want a failure and no reason to skip", err, why)
				}
				if !errors.Is(err, ur.ErrAdapterNotAvailable) {
					t.Errorf("Select: %v does not match ur.ErrAdapterNotAvailable", err)
				}
				for _, s := range tt.fail {
					if !strings.Contains(err.Error(), s) {
						t.Errorf("Select: failure %q, want it to contain %q", err, s)
					}
				}
				return
			}
			if err != nil {
				t.Fatalf("Select: %v, want no failure", err)
			}
			for _, s := range tt.why {
				if !strings.Contains(why, s) {
					t.Errorf("Select: reason to skip %q, want it to contain %q", why, s)
				}
			}
		})
	}
}
