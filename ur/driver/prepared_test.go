package driver

import "testing"

func TestLaunchStatusString(t *testing.T) {
	for s, want := range map[LaunchStatus]string{
		Launched:        "Launched",
		LaunchStale:     "LaunchStale",
		LaunchFailed:    "LaunchFailed",
		LaunchStatus(7): "LaunchStatus(7)",
	} {
		if got := s.String(); got != want {
			t.Errorf("LaunchStatus(%d).String() = %q, want %q", int(s), got, want)
		}
	}
}
