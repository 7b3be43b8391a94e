package opencl

import (
	ctxpkg "context"
	"sync"
	"time"

	"github.com/gour-dev/gour/adapters/opencl/internal/cl"
	"github.com/gour-dev/gour/ur/driver"
)

var (
	_ driver.TimestampDevice = (*device)(nil)
	_ driver.TimestampQueue  = (*queue)(nil)
)

// RecordTimestamp records the device time with a marker whose wait list
// is empty, so that it waits for every command enqueued before it. A
// wait list is taken by a marker of its own, enqueued first, which the
// timed marker then waits for as one of those commands. One marker with
// the wait list would do as OpenCL has it, but NVIDIA's driver (580,
// OpenCL 3.0) gives such a marker no profiling: with an earlier event of
// the queue listed, its four times read 0 after it completed, where a
// marker with an empty list has them. On an out-of-order queue the time
// is that of every earlier command having completed, not only the listed
// ones: later, never earlier, than asked.
func (q *queue) RecordTimestamp(blocking bool, wait []driver.Event) (driver.Event, error) {
	if len(wait) > 0 {
		if err := check("clEnqueueMarkerWithWaitList", q.lib.EnqueueMarkerWithWaitList(q.handle, waitList(wait), nil)); err != nil {
			return nil, err
		}
	}
	e, ev := q.newEvent(true)
	if err := check("clEnqueueMarkerWithWaitList", q.lib.EnqueueMarkerWithWaitList(q.handle, nil, ev)); err != nil {
		return nil, err
	}
	if blocking {
		if err := e.Wait(ctxpkg.Background()); err != nil {
			e.Release()
			return nil, err
		}
	}
	return e, nil
}

// GlobalTimestamps reads clGetDeviceAndHostTimer (OpenCL 2.1). Where the
// device has no such timer (PoCL's CPU device answers
// CL_INVALID_OPERATION), the device time is the end of a marker on a
// private profiling queue, waited for, and the host time the Unix clock
// read right after: good to the wait's latency.
func (d *device) GlobalTimestamps() (device, host uint64, err error) {
	dev, h, st := d.p.a.lib.GetDeviceAndHostTimer(d.handle)
	switch st {
	case cl.Success:
		return dev, h, nil
	case cl.InvalidOperation:
		return d.markerTimestamps()
	}
	return 0, 0, check("clGetDeviceAndHostTimer", st)
}

// timerQueue is a device's private profiling queue for markerTimestamps
// (device.timer), made on first use and kept for the life of the process.
type timerQueue struct {
	once sync.Once
	err  error
	mu   sync.Mutex
	q    cl.Queue
}

func (d *device) markerTimestamps() (device, host uint64, err error) {
	lib := d.p.a.lib
	tq := &d.timer
	tq.once.Do(func() {
		var c cl.Context
		if c, tq.err = d.contextRef(); tq.err != nil {
			return
		}
		var st cl.Status
		tq.q, st = lib.CreateCommandQueue(c, d.handle, cl.QueueProfilingEnable)
		tq.err = check("clCreateCommandQueue", st)
	})
	if tq.err != nil {
		return 0, 0, tq.err
	}
	tq.mu.Lock()
	defer tq.mu.Unlock()
	var ev cl.Event
	if err := check("clEnqueueMarkerWithWaitList", lib.EnqueueMarkerWithWaitList(tq.q, nil, &ev)); err != nil {
		return 0, 0, err
	}
	defer lib.ReleaseEvent(ev)
	if err := check("clWaitForEvents", lib.WaitForEvents([]cl.Event{ev})); err != nil {
		return 0, 0, err
	}
	host = uint64(time.Now().UnixNano())
	b, st := lib.EventProfilingInfo(ev, cl.ProfilingCommandEnd)
	if err := check("clGetEventProfilingInfo", st); err != nil {
		return 0, 0, err
	}
	return cl.Uint64(b), host, nil
}
