package cuda

import (
	ctxpkg "context"
	"time"

	"github.com/gour-dev/gour/adapters/cuda/internal/cu"
	"github.com/gour-dev/gour/ur/driver"
)

// event is the CUDA event recorded after a command (end) and, on a
// profiling queue, one recorded before it (start).
type event struct {
	q          *queue
	start, end cu.Event
	queuedNS   uint64 // host time of the enqueue, on a profiling queue
}

func (e *event) Native() uintptr { return uintptr(e.end) }

func (e *event) Release() error {
	d := e.q.dev
	if err := d.bind(); err != nil {
		return err
	}
	defer unbind()
	err := check("cuEventDestroy", d.a.cu.EventDestroy(e.end))
	if e.start != 0 {
		if err2 := check("cuEventDestroy", d.a.cu.EventDestroy(e.start)); err == nil {
			err = err2
		}
	}
	return err
}

// Wait blocks in cuEventSynchronize, which cannot be cancelled; the front
// end honours the context around it.
func (e *event) Wait(ctxpkg.Context) error {
	d := e.q.dev
	if err := d.bind(); err != nil {
		return err
	}
	defer unbind()
	return check("cuEventSynchronize", d.a.cu.EventSynchronize(e.end))
}

func (e *event) Status() (driver.EventStatus, error) {
	d := e.q.dev
	if err := d.bind(); err != nil {
		return 0, err
	}
	defer unbind()
	switch r := d.a.cu.EventQuery(e.end); r {
	case cu.Success:
		return driver.EventComplete, nil
	case cu.NotReady:
		return driver.EventSubmitted, nil
	default:
		return 0, cuError("cuEventQuery", r)
	}
}

// Profiling converts the elapsed times from the queue's base event into
// nanoseconds on the host clock. CUDA records no queued or submit time on
// the device: both are the host's enqueue time, capped at the start.
func (e *event) Profiling() (driver.Profiling, error) {
	q := e.q
	if !q.profiling || e.start == 0 {
		return driver.Profiling{}, driver.Errorf(driver.ResultProfilingInfoNotAvailable, "the queue was created without profiling")
	}
	d := q.dev
	if err := d.bind(); err != nil {
		return driver.Profiling{}, err
	}
	defer unbind()
	if r := d.a.cu.EventQuery(e.end); r != cu.Success {
		if r == cu.NotReady {
			return driver.Profiling{}, driver.Errorf(driver.ResultProfilingInfoNotAvailable, "the command has not completed")
		}
		return driver.Profiling{}, cuError("cuEventQuery", r)
	}
	at := func(ev cu.Event) (uint64, error) {
		ms, r := d.a.cu.EventElapsedTime(q.base, ev)
		if r != cu.Success {
			return 0, cuError("cuEventElapsedTime", r)
		}
		return q.baseNS + uint64(float64(ms)*float64(time.Millisecond)), nil
	}
	start, err := at(e.start)
	if err != nil {
		return driver.Profiling{}, err
	}
	end, err := at(e.end)
	if err != nil {
		return driver.Profiling{}, err
	}
	end = max(end, start)
	queued := min(e.queuedNS, start)
	return driver.Profiling{Queued: queued, Submit: queued, Start: start, End: end}, nil
}
