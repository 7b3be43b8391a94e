package ur

import (
	"context"

	"github.com/gour-dev/gour/trace"
	"github.com/gour-dev/gour/ur/driver"
)

// This file holds device and host timestamps (the Unified Runtime's
// urDeviceGetGlobalTimestamps) and timestamps recorded on a queue
// (urEnqueueTimestampRecordingExp).

func init() {
	// Timestamps are recorded through markers on profiling queues,
	// which every adapter of this module has.
	frontQueries[DeviceInfoTimestampRecordingSupportExp] = func(*Device) (any, error) { return true, nil }
}

// GlobalTimestamps reads the device's timer and the host's together, in
// nanoseconds, as the Unified Runtime's urDeviceGetGlobalTimestamps: the
// pair lets event timestamps (Event.Profiling) be placed on the host's
// time line. OpenCL reads both with clGetDeviceAndHostTimer (OpenCL 2.1;
// the host clock is the driver's); Level Zero with
// zeDeviceGetGlobalTimestamps (the device's ticks converted to
// nanoseconds, within the timer's valid bits); CUDA has no device clock
// call: the device time is an event's elapsed time from one recorded when
// the host clock (Unix nanoseconds, the clock CUDA event profiling uses)
// was read, so it is good to cuEventElapsedTime's half microsecond, and
// the host time is the Unix clock. A driver without the call gives
// ErrUnsupportedFeature.
func (d *Device) GlobalTimestamps() (device, host uint64, err error) {
	const op = "Device.GlobalTimestamps"
	if t := trace.Active(); t != nil {
		tc := beginCall(t, op, d)
		defer tc.end(&err)
	}

	if d == nil {
		return 0, 0, nilHandle("Device", op)
	}
	if err := d.usable(op); err != nil {
		return 0, 0, err
	}
	td, ok := d.drv.(driver.TimestampDevice)
	if !ok {
		return 0, 0, newError(ErrUnsupportedFeature, op, d.adapter.name, "the %s adapter cannot read device timestamps", d.adapter.name)
	}
	device, host, err = td.GlobalTimestamps()
	return device, host, wrapError(err, op, d.adapter.name)
}

// EnqueueTimestampRecording records the device's time once every command
// before it (or, with a wait list, the listed ones) has completed, as the
// Unified Runtime's urEnqueueTimestampRecordingExp: the event's
// Profiling().Start and End hold that time, in the same nanoseconds as
// every event's profiling. Blocking waits for it before returning. The
// queue must have been made with QueueProperties.Profiling (the device
// time is read through profiling: ErrInvalidQueueProperties otherwise).
func (q *Queue) EnqueueTimestampRecording(blocking bool, wait ...*Event) (rh *Event, rerr error) {
	const op = "Queue.EnqueueTimestampRecording"
	if t := trace.Active(); t != nil {
		tc := beginCall(t, op, q)
		defer tc.endEventOf(q, &rh, &rerr)
	}

	if err := q.enter(op); err != nil {
		return nil, err
	}
	defer q.life.leave()
	if !q.props.Profiling {
		return nil, newError(ErrInvalidQueueProperties, op, q.adapter.name, "the queue was made without profiling, which timestamps are read through")
	}
	dw, err := q.useWaitList(op, wait)
	if err != nil {
		return nil, err
	}
	defer leaveEvents(wait)
	var ev driver.Event
	switch dq := q.drv.(type) {
	case driver.TimestampQueue:
		ev, err = dq.RecordTimestamp(blocking, dw)
	case driver.MarkerQueue:
		ev, err = dq.Marker(dw, false)
		if err == nil && blocking {
			if werr := ev.Wait(context.Background()); werr != nil {
				_ = ev.Release()
				return nil, q.ctx.wrap(werr, op)
			}
		}
	default:
		return nil, newError(ErrUnsupportedFeature, op, q.adapter.name, "the %s adapter's queues record no timestamps", q.adapter.name)
	}
	return q.finishEnqueue(op, ev, err, nil)
}
