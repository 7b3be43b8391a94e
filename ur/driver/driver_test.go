package driver

import "testing"

// The event states carry the numbers of ur_event_status_t (and OpenCL's
// CL_COMPLETE ... CL_QUEUED), which adapters return and callers compare:
// the last state a command reaches is 0.
func TestEventStatusNumbers(t *testing.T) {
	for s, want := range map[EventStatus]int{EventComplete: 0, EventRunning: 1, EventSubmitted: 2, EventQueued: 3} {
		if int(s) != want {
			t.Errorf("%v = %d, want %d", s, int(s), want)
		}
	}
}

func TestWithLocal(t *testing.T) {
	r := NDRange{Dims: 3, Global: [3]uint64{64, 64, 64}}
	for _, tt := range []struct {
		local []uint64
		want  [3]uint64
	}{
		{[]uint64{4, 4, 4}, [3]uint64{4, 4, 4}},
		{[]uint64{8}, [3]uint64{8, 0, 0}}, // fewer than Dims: the launch says so
		{nil, [3]uint64{}},                // the driver chooses
		{[]uint64{1, 2, 3, 4}, [3]uint64{1, 2, 3}},
	} {
		got := r.WithLocal(tt.local...)
		if got.Local != tt.want || got.Global != r.Global || got.Dims != r.Dims {
			t.Errorf("WithLocal(%v) = %+v, want local %v and the rest unchanged", tt.local, got, tt.want)
		}
	}
}

func TestArgKindString(t *testing.T) {
	for k, want := range map[ArgKind]string{ArgUnknown: "unknown", ArgValue: "value", ArgMem: "buffer", ArgLocal: "local", ArgKind(9): "unknown"} {
		if got := k.String(); got != want {
			t.Errorf("ArgKind(%d).String() = %q, want %q", k, got, want)
		}
	}
}
