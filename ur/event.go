package ur

import (
	"context"

	"github.com/gour-dev/gour/trace"
	"github.com/gour-dev/gour/ur/driver"
)

// EventStatus is the execution state of a command.
type EventStatus = driver.EventStatus

// Event states.
const (
	EventComplete  = driver.EventComplete
	EventRunning   = driver.EventRunning
	EventSubmitted = driver.EventSubmitted
	EventQueued    = driver.EventQueued
)

// Profiling holds a command's device timestamps in nanoseconds; the queue
// must have been created with profiling on.
type Profiling = driver.Profiling

// Event tracks one enqueued command.
type Event struct {
	object
	drv   driver.Event
	queue *Queue
}

// newEvent wraps a command's event. When the command is a non-blocking
// transfer of host, the queue holds host until the command completes, and
// the driver's event lives until both the queue and the Event let go.
func newEvent(q *Queue, drv driver.Event, host []byte) *Event {
	e := &Event{object: object{adapter: q.adapter}, drv: drv, queue: q}
	e.created("Event")
	e.life.free = drv.Release
	if len(host) > 0 {
		e.life.free = q.holds.add(drv, host).drop
	}
	return e
}

// enter checks that e is live and its queue's context not lost
// (lost.go); on nil error the caller must call e.life.leave.
func (e *Event) enter(op string) error {
	if e == nil {
		return nilHandle("Event", op)
	}
	if err := e.object.enter("Event", ErrInvalidEvent, op); err != nil {
		return err
	}
	if ctx := e.queue.ctx; ctx.lost.first.Load() != nil {
		e.life.leave()
		return ctx.lostError(op)
	}
	return nil
}

// Release releases the event. A command still running goes on.
func (e *Event) Release() error {
	if e == nil {
		return nilHandle("Event", "Event.Release")
	}
	return e.release("Event", ErrInvalidEvent)
}

// Wait blocks until the command completes or ctx is done. A command that
// failed on the device gives its error.
func (e *Event) Wait(ctx context.Context) (rerr error) {
	const op = "Event.Wait"
	if t := trace.Active(); t != nil {
		tc := beginCall(t, op, e)
		defer tc.end(&rerr)
	}

	if err := e.enter(op); err != nil {
		return err
	}
	return e.queue.ctx.settle(e.waitEntered(ctx, op, e.drv))
}

// driverWaiter is what waitEntered waits through: a driver's event. An
// interface, not a func, so that a wait allocates no method value.
type driverWaiter interface{ Wait(context.Context) error }

// waitEntered waits through w for the handle o, which the caller has
// entered, and leaves it. The driver's wait may not be interruptible:
// where ctx can end, it runs aside and holds o alive until it returns,
// even if ctx ends first.
func (o *object) waitEntered(ctx context.Context, op string, w driverWaiter) error {
	if ctx.Done() == nil {
		defer o.life.leave()
		return wrapError(w.Wait(ctx), op, o.adapter.name)
	}
	if err := ctx.Err(); err != nil {
		o.life.leave()
		return err
	}
	done := make(chan error, 1)
	go func() {
		err := w.Wait(ctx)
		// Left before the result is sent: a caller that has its result
		// and releases the handle finds it no longer held, and the
		// release is not deferred behind this goroutine.
		o.life.leave()
		done <- err
	}()
	select {
	case err := <-done:
		return wrapError(err, op, o.adapter.name)
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Status returns the command's execution state.
func (e *Event) Status() (rv EventStatus, rerr error) {
	const op = "Event.Status"
	if t := trace.Active(); t != nil {
		tc := beginCall(t, op, e)
		defer tc.end(&rerr)
	}

	if err := e.enter(op); err != nil {
		return 0, err
	}
	defer e.life.leave()
	s, err := e.drv.Status()
	return s, e.queue.ctx.wrap(err, op)
}

// Profiling returns the command's device timestamps. It fails with
// ErrProfilingInfoNotAvailable unless the queue has profiling on and the
// command has completed.
func (e *Event) Profiling() (rv Profiling, rerr error) {
	const op = "Event.Profiling"
	if t := trace.Active(); t != nil {
		tc := beginCall(t, op, e)
		defer tc.end(&rerr)
	}

	if err := e.enter(op); err != nil {
		return Profiling{}, err
	}
	defer e.life.leave()
	if !e.queue.props.Profiling {
		return Profiling{}, newError(ErrProfilingInfoNotAvailable, op, e.adapter.name, "the queue was created without profiling")
	}
	p, err := e.drv.Profiling()
	return p, wrapError(err, op, e.adapter.name)
}

// Native returns the vendor handle (cl_event, CUevent, ...); 0 for a nil
// or released event.
func (e *Event) Native() uintptr {
	if e.enter("Event.Native") != nil {
		return 0
	}
	defer e.life.leave()
	return e.drv.Native()
}

// WaitAll waits for every event in turn.
func WaitAll(ctx context.Context, events ...*Event) error {
	for _, e := range events {
		if err := e.Wait(ctx); err != nil {
			return err
		}
	}
	return nil
}
