package cuda

import (
	"sync"
	"time"

	"github.com/gour-dev/gour/adapters/cuda/internal/cu"
	"github.com/gour-dev/gour/ur/driver"
)

// This file reads the device's time and the host's together
// (driver.TimestampDevice). CUDA has no call for the device clock: as for
// event profiling (event.go), device times are elapsed times from an
// event recorded and waited for once, paired with the Unix clock read
// then, so they are on the clock event timestamps are on.

var _ driver.TimestampDevice = (*device)(nil)

// anchor is a device's base event and the host time it completed at.
type anchor struct {
	once   sync.Once
	err    error
	base   cu.Event
	baseNS uint64
	mu     sync.Mutex // one reading at a time: they share the event now
	now    cu.Event
}

// GlobalTimestamps records an event on the primary context's NULL
// stream, waits for it and returns its elapsed time from the anchor, and
// the host clock read right after.
func (d *device) GlobalTimestamps() (device, host uint64, err error) {
	a := &d.stamps
	if err := d.bind(); err != nil {
		return 0, 0, err
	}
	defer unbind()
	l := d.a.cu
	a.once.Do(func() {
		var r cu.Result
		if a.base, r = l.EventCreate(cu.EventDefault); r != cu.Success {
			a.err = cuError("cuEventCreate", r)
			return
		}
		if a.now, r = l.EventCreate(cu.EventDefault); r != cu.Success {
			a.err = cuError("cuEventCreate", r)
			return
		}
		if r = l.EventRecord(a.base, 0); r == cu.Success {
			r = l.EventSynchronize(a.base)
		}
		if r != cu.Success {
			a.err = cuError("cuEventRecord", r)
			return
		}
		a.baseNS = uint64(time.Now().UnixNano())
	})
	if a.err != nil {
		return 0, 0, a.err
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if r := l.EventRecord(a.now, 0); r != cu.Success {
		return 0, 0, cuError("cuEventRecord", r)
	}
	if r := l.EventSynchronize(a.now); r != cu.Success {
		return 0, 0, cuError("cuEventSynchronize", r)
	}
	host = uint64(time.Now().UnixNano())
	ms, r := l.EventElapsedTime(a.base, a.now)
	if r != cu.Success {
		return 0, 0, cuError("cuEventElapsedTime", r)
	}
	return a.baseNS + uint64(float64(ms)*float64(time.Millisecond)), host, nil
}
