package cuda

import (
	ctxpkg "context"
	"sync"
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

	// mu guards the callbacks pending (OnComplete) and released: a
	// release while a callback waits defers destroying the CUDA events to
	// the last callback.
	mu       sync.Mutex
	pending  int
	released bool
}

var _ driver.EventCallbacks = (*event)(nil)

func (e *event) Native() uintptr { return uintptr(e.end) }

func (e *event) Release() error {
	e.mu.Lock()
	e.released = true
	deferred := e.pending > 0
	e.mu.Unlock()
	if deferred {
		return nil
	}
	return e.destroy()
}

// destroy destroys the CUDA events.
func (e *event) destroy() error {
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

// OnComplete calls fn on a goroutine of its own once the command has
// completed: the goroutine waits in cuEventSynchronize (an OS thread
// blocked per callback pending, as for Event.Wait), so fn never runs on a
// driver thread, where a CUDA host callback (cuLaunchHostFunc) would run
// and could not call CUDA. The CUDA events stay alive until fn has
// returned, even if the event is released first.
func (e *event) OnComplete(fn func(status driver.EventStatus, err error)) error {
	e.mu.Lock()
	if e.released {
		e.mu.Unlock()
		return driver.Errorf(driver.ResultInvalidEvent, "the event is released")
	}
	e.pending++
	e.mu.Unlock()
	go func() {
		err := e.Wait(ctxpkg.Background())
		fn(driver.EventComplete, err)
		e.mu.Lock()
		e.pending--
		last := e.released && e.pending == 0
		e.mu.Unlock()
		if last {
			e.destroy()
		}
	}()
	return nil
}
