package opencl

import (
	ctxpkg "context"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/gour-dev/gour/adapters/opencl/internal/cl"
	"github.com/gour-dev/gour/ur/driver"
)

// hasExtension reports whether the device lists ext in CL_DEVICE_EXTENSIONS.
func (d *device) hasExtension(ext string) bool {
	return slices.Contains(strings.Fields(d.info.Extensions), ext)
}

// extensionVersion is ext's version from CL_DEVICE_EXTENSIONS_WITH_VERSION
// (OpenCL 3.0), or 0 where the device does not say.
func (d *device) extensionVersion(ext string) uint32 {
	b, st := d.p.a.lib.DeviceInfo(d.handle, cl.DeviceExtensionsWithVersion)
	if st != cl.Success {
		return 0
	}
	for ; len(b) >= cl.NameVersionSize; b = b[cl.NameVersionSize:] {
		if cl.CString(b[4:cl.NameVersionSize]) == ext {
			return cl.Uint32(b[:4])
		}
	}
	return 0
}

// NewQueue creates a command queue. Profiling and out-of-order execution
// are CL_QUEUE_PROPERTIES bits; a priority is cl_khr_priority_hints'
// CL_QUEUE_PRIORITY_KHR (high above 0, low below), which needs
// clCreateCommandQueueWithProperties. A device that cannot run commands
// out of order (CL_DEVICE_QUEUE_ON_HOST_PROPERTIES) refuses it with
// ErrInvalidQueueProperties before OpenCL is asked.
func (c *context) NewQueue(dev driver.Device, props driver.QueueProperties) (driver.Queue, error) {
	d := dev.(*device)
	var flags uint64
	if props.Profiling {
		flags |= cl.QueueProfilingEnable
	}
	if props.OutOfOrder {
		b, st := c.a.lib.DeviceInfo(d.handle, cl.DeviceQueueOnHostProperties)
		if st != cl.Success || cl.Uint64(b)&cl.QueueOutOfOrderExecModeEnable == 0 {
			return nil, driver.Errorf(driver.ResultInvalidQueueProperties, "device %q runs no commands out of order (CL_DEVICE_QUEUE_ON_HOST_PROPERTIES lacks CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE)", d.info.Name)
		}
		flags |= cl.QueueOutOfOrderExecModeEnable
	}
	var h cl.Queue
	var st cl.Status
	fn := "clCreateCommandQueue"
	if props.Priority != 0 {
		if !d.hasExtension("cl_khr_priority_hints") {
			return nil, driver.Errorf(driver.ResultUnsupportedFeature, "device %q has no queue priorities (cl_khr_priority_hints)", d.info.Name)
		}
		if !c.a.lib.HasQueueWithProperties() {
			return nil, driver.Errorf(driver.ResultUnsupportedFeature, "queue priorities need clCreateCommandQueueWithProperties (OpenCL 2.0), which the OpenCL library lacks")
		}
		prio := uint64(cl.QueuePriorityHighKHR)
		if props.Priority < 0 {
			prio = cl.QueuePriorityLowKHR
		}
		fn = "clCreateCommandQueueWithProperties"
		h, st = c.a.lib.CreateCommandQueueWithProperties(c.handle, d.handle, []uint64{cl.QueueProperties, flags, cl.QueuePriorityKHR, prio, 0})
	} else {
		h, st = c.a.lib.CreateCommandQueue(c.handle, d.handle, flags)
	}
	if err := check(fn, st); err != nil {
		return nil, err
	}
	return c.track(&queue{ctx: c, lib: c.a.lib, handle: h, outOfOrder: props.OutOfOrder}), nil
}

// internalQueue is the context's own in-order queue on d, made on first
// use and released with the context: command buffers are created for it
// and clGetKernelSuggestedLocalWorkSizeKHR asks for a queue.
func (c *context) internalQueue(d *device) (cl.Queue, error) {
	c.internalMu.Lock()
	defer c.internalMu.Unlock()
	if q, ok := c.internal[d.handle]; ok {
		return q, nil
	}
	q, st := c.a.lib.CreateCommandQueue(c.handle, d.handle, 0)
	if err := check("clCreateCommandQueue", st); err != nil {
		return 0, err
	}
	if c.internal == nil {
		c.internal = make(map[cl.Device]cl.Queue)
	}
	c.internal[d.handle] = q
	return q, nil
}

// Release releases the context's own queues, then the cl_context.
func (c *context) Release() error {
	c.internalMu.Lock()
	for _, q := range c.internal {
		c.a.lib.ReleaseCommandQueue(q)
	}
	c.internal = nil
	c.internalMu.Unlock()
	c.copier.release(c.a.lib)
	return check("clReleaseContext", c.a.lib.ReleaseContext(c.handle))
}

// emptyPoll bounds how long Empty lets the driver retire its marker.
const emptyPoll = 5 * time.Millisecond

// Empty enqueues a marker, which completes once every command enqueued
// before it has (in order or not), flushes it and reads its status. A
// driver retires even a marker with nothing ahead of it on a thread of its
// own (docs/benchmarks.md, "Kernel launch: gour vs OpenCL from C, on
// PoCL"), so a queue that has just drained may
// still show it queued or submitted — PoCL moves a flushed command from
// queued to submitted on its own thread, which a loaded machine may not
// have run yet: until the marker completes Empty reads its status again,
// yielding between reads, for up to emptyPoll, and otherwise answers
// false. It never waits for the queue's work beyond that bound.
func (q *queue) Empty() (bool, error) {
	var m cl.Event
	if err := check("clEnqueueMarkerWithWaitList", q.lib.EnqueueMarkerWithWaitList(q.handle, nil, &m)); err != nil {
		return false, err
	}
	defer q.lib.ReleaseEvent(m)
	if err := check("clFlush", q.lib.Flush(q.handle)); err != nil {
		return false, err
	}
	e := event{lib: q.lib, handle: m}
	deadline := time.Now().Add(emptyPoll)
	for {
		st, err := e.Status()
		switch {
		case err != nil:
			return false, err
		case st == driver.EventComplete:
			return true, nil
		case time.Now().After(deadline):
			return false, nil
		}
		runtime.Gosched()
	}
}

// Event callbacks. clSetEventCallback calls one trampoline (cl.EventTrampoline)
// with an id; callbacks maps the id to the Go function, which runs on a
// goroutine of its own: the trampoline only starts it.
var callbacks struct {
	mu   sync.Mutex
	next uintptr
	fns  map[uintptr]func(status int32)
}

// deliver is the trampoline's hand-off, on the driver's thread.
func deliver(id uintptr, status int32) {
	callbacks.mu.Lock()
	fn := callbacks.fns[id]
	delete(callbacks.fns, id)
	callbacks.mu.Unlock()
	if fn != nil {
		go fn(status)
	}
}

// OnComplete calls fn once the command has completed, through
// clSetEventCallback(CL_COMPLETE): the driver calls the trampoline, which
// starts fn's goroutine and returns. The event is retained until fn has
// returned, so a Release before then is safe. Where the platform has no C
// callbacks (see cl.EventTrampoline) or the driver no clSetEventCallback,
// a goroutine waits in clWaitForEvents instead.
func (e *event) OnComplete(fn func(status driver.EventStatus, err error)) error {
	if err := check("clRetainEvent", e.lib.RetainEvent(e.handle)); err != nil {
		return err
	}
	done := func(status int32) {
		defer e.lib.ReleaseEvent(e.handle)
		if status < 0 {
			fn(driver.EventComplete, e.waitError("command", cl.Status(status)))
			return
		}
		fn(driver.EventComplete, nil)
	}
	tramp := cl.EventTrampoline(deliver)
	if tramp != 0 {
		callbacks.mu.Lock()
		callbacks.next++
		id := callbacks.next
		if callbacks.fns == nil {
			callbacks.fns = make(map[uintptr]func(int32))
		}
		callbacks.fns[id] = done
		callbacks.mu.Unlock()
		st := e.lib.SetEventCallback(e.handle, tramp, id)
		if st == cl.Success {
			return nil
		}
		callbacks.mu.Lock()
		delete(callbacks.fns, id)
		callbacks.mu.Unlock()
		if st != cl.InvalidOperation {
			e.lib.ReleaseEvent(e.handle)
			return check("clSetEventCallback", st)
		}
	}
	go func() {
		err := e.Wait(ctxpkg.Background())
		if err != nil {
			defer e.lib.ReleaseEvent(e.handle)
			fn(driver.EventComplete, err)
			return
		}
		done(cl.Complete)
	}()
	return nil
}

var (
	_ driver.QueueFeatures  = (*queue)(nil)
	_ driver.EventCallbacks = (*event)(nil)
)
