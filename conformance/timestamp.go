package conformance

import (
	"errors"
	"testing"

	"github.com/gour-dev/gour/ur"
)

// The cases of this file are the Unified Runtime CTS's
// urDeviceGetGlobalTimestamps and urEnqueueTimestampRecordingExp tests.

// TestDeviceGlobalTimestamps: readings advance on both clocks.
func TestDeviceGlobalTimestamps(t *testing.T) {
	forEachDevice(t, func(t *testing.T, f *Fixture) {
		d1, h1, err := f.Device.GlobalTimestamps()
		if errors.Is(err, ur.ErrUnsupportedFeature) {
			t.Skipf("unsupported: %v", err)
		}
		if err != nil {
			t.Fatal(err)
		}
		d2, h2, err := f.Device.GlobalTimestamps()
		if err != nil {
			t.Fatal(err)
		}
		if d1 == 0 || h1 == 0 || d2 < d1 || h2 < h1 {
			t.Errorf("device %d → %d, host %d → %d: want non-zero and not going back", d1, d2, h1, h2)
		}
	})
}

// TestEnqueueTimestampRecording: recorded times are in order around a
// command, a blocking recording has completed on return, and a queue
// without profiling is ErrInvalidQueueProperties.
func TestEnqueueTimestampRecording(t *testing.T) {
	forEachDevice(t, func(t *testing.T, f *Fixture) {
		if ok, err := f.Device.QueryBool(ur.DeviceInfoTimestampRecordingSupportExp); err != nil || !ok {
			t.Skipf("TIMESTAMP_RECORDING_SUPPORT_EXP = %v, %v", ok, err)
		}
		ctx := f.Context(t)
		q := f.QueueIn(t, ctx, ur.QueueProperties{Profiling: true})
		e1, err := q.EnqueueTimestampRecording(false)
		if errors.Is(err, ur.ErrUnsupportedFeature) {
			t.Skipf("the device reports timestamp recording, its adapter's queues do not: %v", err)
		}
		if err != nil {
			t.Fatal(err)
		}
		defer e1.Release()
		m := f.BufferIn(t, ctx, ur.MemReadWrite, 1<<16)
		fill, err := q.EnqueueFill(m, []byte{1, 2, 3, 4}, 0, 1<<16)
		if err != nil {
			t.Fatal(err)
		}
		if fill != nil {
			defer fill.Release()
		}
		e2, err := q.EnqueueTimestampRecording(true, e1)
		if err != nil {
			t.Fatal(err)
		}
		defer e2.Release()
		if st, err := e2.Status(); err != nil || st != ur.EventComplete {
			t.Errorf("blocking recording: %v, %v", st, err)
		}
		p1, err1 := e1.Profiling()
		p2, err2 := e2.Profiling()
		if err1 != nil || err2 != nil {
			t.Fatalf("profiling: %v, %v", err1, err2)
		}
		if p1.End == 0 || p2.End < p1.End || p1.Start > p1.End {
			t.Errorf("timestamps %+v then %+v", p1, p2)
		}
		plain := f.QueueIn(t, ctx, ur.QueueProperties{})
		if _, err := plain.EnqueueTimestampRecording(true); !errors.Is(err, ur.ErrInvalidQueueProperties) {
			t.Errorf("queue without profiling: %v, want ErrInvalidQueueProperties", err)
		}
		var nilQ *ur.Queue
		if _, err := nilQ.EnqueueTimestampRecording(true); !errors.Is(err, ur.ErrInvalidNullHandle) {
			t.Errorf("nil queue: %v", err)
		}
	})
}
