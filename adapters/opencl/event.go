package opencl

import (
	ctxpkg "context"

	"github.com/gour-dev/gour/adapters/opencl/internal/cl"
	"github.com/gour-dev/gour/ur/driver"
)

type event struct {
	lib    *cl.Lib
	handle cl.Event
	// q is the queue the event's command was enqueued on, nil for an
	// event gour did not enqueue: its failures are read as device faults
	// by q's rules (lost.go).
	q *queue
}

// waitError is the error of a wait for the event's command (fn returned
// st, or the command ended with st): q.check's, for an event of a queue.
func (e *event) waitError(fn string, st cl.Status) error {
	if e.q != nil {
		return e.q.check(fn, st, true)
	}
	return check(fn, st)
}

func (e *event) Native() uintptr { return uintptr(e.handle) }

func (e *event) Release() error { return check("clReleaseEvent", e.lib.ReleaseEvent(e.handle)) }

// Wait blocks in clWaitForEvents, which OpenCL offers no way to cancel.
func (e *event) Wait(ctxpkg.Context) error {
	return e.waitError("clWaitForEvents", e.lib.WaitForEvents([]cl.Event{e.handle}))
}

func (e *event) Status() (driver.EventStatus, error) {
	b, st := e.lib.EventInfo(e.handle, cl.EventCommandExecutionStatus)
	if err := check("clGetEventInfo", st); err != nil {
		return 0, err
	}
	switch s := cl.Int32(b); {
	case s < 0:
		// A negative execution status is the error the command ended with.
		return 0, e.waitError("command", cl.Status(s))
	case s == cl.Complete:
		return driver.EventComplete, nil
	case s == cl.Running:
		return driver.EventRunning, nil
	case s == cl.Submitted:
		return driver.EventSubmitted, nil
	}
	return driver.EventQueued, nil
}

func (e *event) Profiling() (driver.Profiling, error) {
	var p driver.Profiling
	for _, f := range []struct {
		param uint32
		dst   *uint64
	}{
		{cl.ProfilingCommandQueued, &p.Queued},
		{cl.ProfilingCommandSubmit, &p.Submit},
		{cl.ProfilingCommandStart, &p.Start},
		{cl.ProfilingCommandEnd, &p.End},
	} {
		b, st := e.lib.EventProfilingInfo(e.handle, f.param)
		if err := check("clGetEventProfilingInfo", st); err != nil {
			return driver.Profiling{}, err
		}
		*f.dst = cl.Uint64(b)
	}
	return p, nil
}
