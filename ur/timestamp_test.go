package ur_test

import (
	"errors"
	"testing"

	"github.com/gour-dev/gour/internal/harness/testenv"
	"github.com/gour-dev/gour/ur"
)

// TestGlobalTimestamps: two readings advance on both clocks, by about as
// much on each; a driver without the call says so, typed.
func TestGlobalTimestamps(t *testing.T) {
	for _, d := range testenv.Devices(t) {
		t.Run(d.Backend()+"/"+d.Name(), func(t *testing.T) {
			dev1, host1, err := d.GlobalTimestamps()
			if errors.Is(err, ur.ErrUnsupportedFeature) {
				t.Skipf("unsupported: %v", err)
			}
			if err != nil {
				t.Fatal(err)
			}
			dev2, host2, err := d.GlobalTimestamps()
			if err != nil {
				t.Fatal(err)
			}
			if dev2 < dev1 || host2 < host1 {
				t.Errorf("went back: device %d → %d, host %d → %d", dev1, dev2, host1, host2)
			}
			if dev1 == 0 || host1 == 0 {
				t.Errorf("zero timestamps: device %d host %d", dev1, host1)
			}
		})
	}
	var nilDev *ur.Device
	if _, _, err := nilDev.GlobalTimestamps(); !errors.Is(err, ur.ErrInvalidNullHandle) {
		t.Errorf("nil device: %v", err)
	}
}

// TestTimestampRecording: timestamps recorded on a profiling queue are in
// order and bracket a command; a queue without profiling is a typed error.
func TestTimestampRecording(t *testing.T) {
	for _, d := range testenv.Devices(t) {
		t.Run(d.Backend()+"/"+d.Name(), func(t *testing.T) {
			ctx, err := ur.NewContext(d)
			if err != nil {
				t.Fatal(err)
			}
			defer ctx.Release()
			q, err := ctx.NewQueue(d, ur.QueueProperties{Profiling: true})
			if err != nil {
				t.Fatal(err)
			}
			defer q.Release()
			e1, err := q.EnqueueTimestampRecording(false)
			if err != nil {
				t.Fatal(err)
			}
			defer e1.Release()
			buf, err := ctx.NewBuffer(ur.MemReadWrite, 1<<20)
			if err != nil {
				t.Fatal(err)
			}
			defer buf.Release()
			fill, err := q.EnqueueFill(buf, []byte{7}, 0, 1<<20)
			if err != nil {
				t.Fatal(err)
			}
			if fill != nil {
				defer fill.Release()
			}
			e2, err := q.EnqueueTimestampRecording(true)
			if err != nil {
				t.Fatal(err)
			}
			defer e2.Release()
			if st, err := e2.Status(); err != nil || st != ur.EventComplete {
				t.Errorf("blocking recording: status %v, %v", st, err)
			}
			p1, err := e1.Profiling()
			if err != nil {
				t.Fatal(err)
			}
			p2, err := e2.Profiling()
			if err != nil {
				t.Fatal(err)
			}
			if p1.End == 0 || p2.End < p1.End {
				t.Errorf("timestamps out of order: %d then %d", p1.End, p2.End)
			}
			plain, err := ctx.NewQueue(d, ur.QueueProperties{})
			if err != nil {
				t.Fatal(err)
			}
			defer plain.Release()
			if _, err := plain.EnqueueTimestampRecording(false); !errors.Is(err, ur.ErrInvalidQueueProperties) {
				t.Errorf("without profiling: %v", err)
			}
		})
	}
	var nilQ *ur.Queue
	if _, err := nilQ.EnqueueTimestampRecording(true); !errors.Is(err, ur.ErrInvalidNullHandle) {
		t.Errorf("nil queue: %v", err)
	}
}
