package ur

import (
	"sync/atomic"

	"github.com/gour-dev/gour/trace"
	"github.com/gour-dev/gour/ur/driver"
)

// PreparedLaunch is a launch of one kernel over one index space on one
// queue, checked once, for code that makes the same launch many times (a
// solver's time step, a training loop). Each Launch enqueues the kernel
// with its arguments as they are then, like Queue.Launch, but skips the
// checks already made: the adapter's prepared launch
// (driver.PreparedLaunch; on CUDA and OpenCL one C call, the driver's
// launch) and the same guards against release as every call.
//
// A PreparedLaunch holds its queue and kernel: releasing either makes
// Launch fail with ErrInvalidQueue or ErrInvalidKernel, and their driver
// objects are freed once the PreparedLaunch is released too. Any goroutine
// may call Launch; setting the kernel's arguments is ordered with launches
// by the caller, as for Queue.Launch.
type PreparedLaunch struct {
	object
	q    *Queue
	k    *Kernel
	call atomic.Pointer[preparedCall] // nil where the adapter cannot prepare launches
	prep driver.LaunchPreparer        // nil for such an adapter
	r    NDRange
}

// preparedCall holds the adapter's prepared launch behind one pointer, so
// that a launch gone stale is replaced atomically while other goroutines
// launch it.
type preparedCall struct {
	// native is the prepared launch when it is one C call
	// (driver.NativeCall), which the front end calls directly: cheaper
	// than the interface call by a measurable share of a launch.
	native *driver.NativeCall
	other  driver.PreparedLaunch
}

// newPreparedCall wraps an adapter's prepared launch; nil, which an
// adapter should not return without an error, leaves the launches to the
// adapter's Queue.Launch.
func newPreparedCall(pl driver.PreparedLaunch) *preparedCall {
	if pl == nil {
		return nil
	}
	n, _ := pl.(*driver.NativeCall)
	return &preparedCall{native: n, other: pl}
}

// launch makes the prepared launch. (The hot paths, PreparedLaunch.Launch
// and Queue.launch, write it out: it does not inline.)
func (c *preparedCall) launch() driver.LaunchStatus {
	if c.native != nil {
		return c.native.Launch()
	}
	return c.other.Launch()
}

// PrepareLaunch checks a launch of k over r on q as Queue.Launch would and
// returns it prepared.
func (q *Queue) PrepareLaunch(k *Kernel, r NDRange) (rh *PreparedLaunch, rerr error) {
	const op = "Queue.PrepareLaunch"
	if t := trace.Active(); t != nil {
		tc := beginCall(t, op, q, k)
		tc.launchArgs(k, &r)
		defer endNewOf(&tc, &rh, &rerr)
	}

	if err := q.enter(op); err != nil {
		return nil, err
	}
	if err := k.enter(op); err != nil {
		q.life.leave()
		return nil, err
	}
	p, err := q.prepare(op, k, &r)
	if err != nil {
		leaveBoth(&q.life, &k.life)
		return nil, err
	}
	// The queue and the kernel stay entered until p is freed.
	p.created("PreparedLaunch")
	p.life.free = func() error {
		leaveBoth(&q.life, &k.life)
		return nil
	}
	return p, nil
}

func (q *Queue) prepare(op string, k *Kernel, r *NDRange) (*PreparedLaunch, error) {
	if k.ctx != q.ctx {
		return nil, q.foreignKernel(op, k)
	}
	if err := checkRange(op, q.adapter.name, r); err != nil {
		return nil, err
	}
	if err := k.checkLaunch(op, q, r); err != nil {
		return nil, err
	}
	p := &PreparedLaunch{object: object{adapter: q.adapter}, q: q, k: k, r: *r}
	if prep, ok := q.drv.(driver.LaunchPreparer); ok {
		pl, err := prep.PrepareLaunch(k.drv, *r)
		if err != nil {
			return nil, q.ctx.wrap(err, op)
		}
		p.call.Store(newPreparedCall(pl))
		p.prep = prep
	}
	return p, nil
}

// Launch enqueues the prepared launch. It returns no event and allocates
// nothing, except to prepare the launch again after a change of the kernel
// made it stale (on CUDA, resized local memory). On a released
// PreparedLaunch it fails with ErrInvalidValue.
func (p *PreparedLaunch) Launch() error {
	if p == nil || !p.life.enter() {
		return p.enterError()
	}
	defer p.life.leave()
	// p keeps the queue and the kernel from being freed, so a load tells
	// whether they were released: no read-modify-write for them.
	if p.q.life.refs.Load()&releasedBit != 0 || p.k.life.refs.Load()&releasedBit != 0 {
		return p.heldReleasedError()
	}
	if t := trace.Active(); t != nil {
		return p.launchTraced(t)
	}
	// The rest, and the errors, are made out of line, for a smaller frame.
	if c := p.call.Load(); c != nil {
		var st driver.LaunchStatus
		if c.native != nil {
			st = c.native.Launch() // a direct call, not through the interface
		} else {
			st = c.other.Launch()
		}
		if st == driver.Launched {
			return nil
		}
		return p.launchSlowly(st)
	}
	return p.launchSlowly(driver.LaunchFailed)
}

const opPreparedLaunch = "PreparedLaunch.Launch"

// launchSlowly is Launch when the prepared launch reported st instead of
// launching, or there is none (st LaunchFailed): prepare again where it
// went stale, else launch through the adapter, which makes the error of a
// failed launch (which enqueued nothing).
func (p *PreparedLaunch) launchSlowly(st driver.LaunchStatus) error {
	if st == driver.LaunchStale {
		pl, err := p.prep.PrepareLaunch(p.k.drv, p.r)
		if err != nil {
			return p.q.ctx.wrap(err, opPreparedLaunch)
		}
		c := newPreparedCall(pl)
		p.call.Store(c)
		if c != nil && c.launch() == driver.Launched {
			return nil
		}
	}
	_, err := p.q.drv.Launch(p.k.drv, p.r, nil, false)
	return p.q.ctx.wrap(err, opPreparedLaunch)
}

// enterError is Launch's error for a nil or released p.
func (p *PreparedLaunch) enterError() error {
	if p == nil {
		return nilHandle("PreparedLaunch", opPreparedLaunch)
	}
	return p.releasedError("PreparedLaunch", ErrInvalidValue, opPreparedLaunch)
}

// heldReleasedError is Launch's error for a released queue or kernel.
func (p *PreparedLaunch) heldReleasedError() error {
	if p.q.life.refs.Load()&releasedBit != 0 {
		return newError(ErrInvalidQueue, opPreparedLaunch, p.adapter.name, "Queue was released")
	}
	return newError(ErrInvalidKernel, opPreparedLaunch, p.adapter.name, "Kernel was released")
}

// Release releases the prepared launch, and with it its hold on the queue
// and the kernel, once no Launch is running.
func (p *PreparedLaunch) Release() error {
	if p == nil {
		return nilHandle("PreparedLaunch", "PreparedLaunch.Release")
	}
	return p.release("PreparedLaunch", ErrInvalidValue)
}
