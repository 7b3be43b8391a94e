package levelzero

import (
	ctxpkg "context"
	"math/bits"

	"github.com/gour-dev/gour/adapters/levelzero/internal/ze"
	"github.com/gour-dev/gour/ur/driver"
)

// waitSlice is how long one zeEventHostSynchronize waits before Wait
// checks its context again.
const waitSlice = 10_000_000 // 10 ms, in ns

// event is the Level Zero event a command signals on completion; on a
// profiling queue it comes from a pool with kernel timestamps.
type event struct {
	q          *queue
	alloc      *eventAllocator
	handle     ze.Event
	slot       eventSlot
	timestamps bool
	queuedNS   uint64 // host time of the enqueue, on a profiling queue
	keep       []byte // host memory the command reads or writes
}

func (e *event) Native() uintptr { return uintptr(e.handle) }

// Release waits for the command (Level Zero requires that the device no
// longer uses an event it destroys), then frees the event's slot.
func (e *event) Release() error {
	err := check("zeEventHostSynchronize", e.q.ze.EventHostSynchronize(e.handle, ze.TimeoutInfinite))
	if err2 := e.free(); err == nil {
		err = err2
	}
	return err
}

// free destroys the event and drops its hold on the context.
func (e *event) free() error {
	err := e.alloc.put(e.handle, e.slot)
	e.keep = nil
	if err2 := e.q.c.unref(); err == nil {
		err = err2
	}
	return err
}

// Wait blocks in zeEventHostSynchronize (hostSynchronize).
func (e *event) Wait(ctx ctxpkg.Context) error { return hostSynchronize(ctx, e.q.ze, e.handle) }

// hostSynchronize blocks in zeEventHostSynchronize, in slices of
// waitSlice when ctx can be cancelled, so that a cancelled wait returns
// ctx's error.
func hostSynchronize(ctx ctxpkg.Context, l *ze.Lib, ev ze.Event) error {
	if ctx == nil || ctx.Done() == nil {
		return check("zeEventHostSynchronize", l.EventHostSynchronize(ev, ze.TimeoutInfinite))
	}
	for {
		switch r := l.EventHostSynchronize(ev, waitSlice); r {
		case ze.Success:
			return nil
		case ze.NotReady:
			if err := ctx.Err(); err != nil {
				return err
			}
		default:
			return zeError("zeEventHostSynchronize", r)
		}
	}
}

// Status is complete or submitted: Level Zero tells no more.
func (e *event) Status() (driver.EventStatus, error) {
	switch r := e.q.ze.EventQueryStatus(e.handle); r {
	case ze.Success:
		return driver.EventComplete, nil
	case ze.NotReady:
		return driver.EventSubmitted, nil
	default:
		return 0, zeError("zeEventQueryStatus", r)
	}
}

// Profiling converts the command's global kernel timestamps (device ticks)
// to nanoseconds on the host clock, from the queue's reference pair. Level
// Zero records no queued or submit time: both are the host's enqueue time,
// capped at the start.
func (e *event) Profiling() (driver.Profiling, error) {
	if !e.timestamps {
		return driver.Profiling{}, driver.Errorf(driver.ResultProfilingInfoNotAvailable, "the queue was created without profiling")
	}
	l := e.q.ze
	switch r := l.EventQueryStatus(e.handle); r {
	case ze.Success:
	case ze.NotReady:
		return driver.Profiling{}, driver.Errorf(driver.ResultProfilingInfoNotAvailable, "the command has not completed")
	default:
		return driver.Profiling{}, zeError("zeEventQueryStatus", r)
	}
	ts, r := l.EventQueryKernelTimestamp(e.handle)
	if err := check("zeEventQueryKernelTimestamp", r); err != nil {
		return driver.Profiling{}, err
	}
	q := e.q
	start := q.hostNS(ts.Global.KernelStart)
	end := max(q.hostNS(ts.Global.KernelEnd), start)
	queued := min(e.queuedNS, start)
	return driver.Profiling{Queued: queued, Submit: queued, Start: start, End: end}, nil
}

// hostNS converts a kernel timestamp to host nanoseconds. Kernel
// timestamps keep only the device's kernelTimestampValidBits low bits, so
// the difference from the reference is taken modulo that width: right for
// commands within one wrap (minutes) of the queue's creation reference.
func (q *queue) hostNS(ticks uint64) uint64 {
	return q.baseNS + q.dev.ticksToNS(tickDelta(q.baseTicks, ticks, q.dev.kernelTSBits))
}

// ticksToNS converts a number of timestamp ticks to nanoseconds: exactly
// from the frequency when the driver gave it, else from the whole
// nanoseconds per tick of zeDeviceGetProperties 1.0.
func (d *device) ticksToNS(ticks uint64) uint64 {
	if d.timerHz == 0 {
		return ticks * d.timerNS
	}
	hi, lo := bits.Mul64(ticks, 1_000_000_000)
	if hi >= d.timerHz {
		return ^uint64(0)
	}
	ns, _ := bits.Div64(hi, lo, d.timerHz)
	return ns
}

// tickDelta returns ticks - base modulo 2^bits (bits 0 or ≥ 64: no wrap).
func tickDelta(base, ticks uint64, bits uint32) uint64 {
	if bits == 0 || bits >= 64 {
		return ticks - base
	}
	mask := uint64(1)<<bits - 1
	return (ticks - base) & mask
}
