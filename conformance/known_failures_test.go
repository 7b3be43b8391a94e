package conformance

import "testing"

func TestKnownFailureMatcher(t *testing.T) {
	list := []KnownFailure{
		{Adapter: "opencl", Device: "pthread", Test: "TestEventProfiling", Reason: "a"},
		{Adapter: "*", Device: "", Test: "TestMemoryFill/pattern16", Reason: "b"},
		{Adapter: "cuda", Device: "H100", Test: "TestKernelLocalMemory", Reason: "c"},
		{Adapter: "opencl", Test: "", Reason: "an entry without a test matches nothing"},
	}
	tests := []struct {
		name, adapter, device, test string
		want                        string // the matching entry's reason, "" for none
	}{
		{"exact", "opencl", "pthread-skylake", "TestEventProfiling", "a"},
		{"subtest of entry", "opencl", "pthread-skylake", "TestEventProfiling/row", "a"},
		{"adapter case", "OpenCL", "pthread-skylake", "TestEventProfiling", "a"},
		{"device substring case", "opencl", "PoCL PTHREAD cpu", "TestEventProfiling", "a"},
		{"other adapter", "cuda", "pthread-skylake", "TestEventProfiling", ""},
		{"other device", "opencl", "NVIDIA GeForce", "TestEventProfiling", ""},
		{"name prefix is not a parent", "opencl", "pthread", "TestEventProfilingX", ""},
		{"parent of entry", "opencl", "pthread", "TestEventProfil", ""},
		{"any adapter, any device", "level_zero", "Intel Arc", "TestMemoryFill/pattern16", "b"},
		{"other row", "opencl", "pthread", "TestMemoryFill/pattern8", ""},
		{"parent of row entry", "opencl", "pthread", "TestMemoryFill", ""},
		{"cuda entry", "cuda", "NVIDIA H100 80GB HBM3", "TestKernelLocalMemory", "c"},
		{"cuda entry other device", "cuda", "NVIDIA A100", "TestKernelLocalMemory", ""},
		{"empty test name", "opencl", "pthread", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			k, ok := FindKnownFailure(list, tt.adapter, tt.device, tt.test)
			if got := k.Reason; ok != (tt.want != "") || got != tt.want {
				t.Errorf("FindKnownFailure(%q, %q, %q) = %q, %v; want %q", tt.adapter, tt.device, tt.test, got, ok, tt.want)
			}
		})
	}
}

func TestKnownFailuresWellFormed(t *testing.T) {
	for i, k := range KnownFailures {
		if k.Test == "" || k.Reason == "" {
			t.Errorf("KnownFailures[%d] = %+v: want a test name and a reason", i, k)
		}
	}
}
