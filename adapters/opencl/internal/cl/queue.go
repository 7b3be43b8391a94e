package cl

import (
	"unsafe"

	"github.com/gour-dev/gour/internal/dl"
)

// CreateCommandQueue calls clCreateCommandQueue (the 1.2 entry point,
// deprecated in 2.0 but exported by every loader) with a Queue* bitfield.
func (l *Lib) CreateCommandQueue(c Context, d Device, properties uint64) (Queue, Status) {
	f := dl.NewFrame()
	f.Args = dl.Args{uintptr(c), uintptr(d), uintptr(properties), f.Out(0)}
	r, out, _ := f.Call(l.createCommandQueue)
	return Queue(r), errcode(out)
}

// CreateCommandQueueWithProperties calls clCreateCommandQueueWithProperties
// (2.0). properties holds cl_queue_properties key/value pairs (for example
// QueueProperties, QueueProfilingEnable); the terminating 0 is added when
// missing. It returns InvalidOperation when the loader lacks the entry point
// (see HasQueueWithProperties).
func (l *Lib) CreateCommandQueueWithProperties(c Context, d Device, properties []uint64) (Queue, Status) {
	if l.createCommandQueueWithProperties == 0 {
		return 0, InvalidOperation
	}
	if len(properties) > 0 && properties[len(properties)-1] != 0 {
		properties = append(properties[:len(properties):len(properties)], 0)
	}
	f := dl.NewFrame()
	f.Args = dl.Args{uintptr(c), uintptr(d), f.Ptr(0, dl.First(properties)), f.Out(0)}
	r, out, _ := f.Call(l.createCommandQueueWithProperties)
	return Queue(r), errcode(out)
}

// RetainCommandQueue calls clRetainCommandQueue.
func (l *Lib) RetainCommandQueue(q Queue) Status { return call1(l.retainCommandQueue, uintptr(q)) }

// ReleaseCommandQueue calls clReleaseCommandQueue.
func (l *Lib) ReleaseCommandQueue(q Queue) Status { return call1(l.releaseCommandQueue, uintptr(q)) }

// Flush calls clFlush.
func (l *Lib) Flush(q Queue) Status { return call1(l.flush, uintptr(q)) }

// Finish calls clFinish.
func (l *Lib) Finish(q Queue) Status { return call1(l.finish, uintptr(q)) }

// GetCommandQueueInfo calls clGetCommandQueueInfo.
func (l *Lib) GetCommandQueueInfo(q Queue, param uint32, size uintptr, value unsafe.Pointer, sizeRet *uintptr) Status {
	return getInfo(l.getCommandQueueInfo, uintptr(q), param, size, value, sizeRet)
}

// EnqueueMarkerWithWaitList calls clEnqueueMarkerWithWaitList (1.2): the
// event completes when the wait list has, or with an empty list when every
// command enqueued before it has.
func (l *Lib) EnqueueMarkerWithWaitList(q Queue, waitList []Event, event *Event) Status {
	return l.enqueueWaitList(l.enqueueMarkerWithWaitList, q, waitList, event)
}

// EnqueueBarrierWithWaitList calls clEnqueueBarrierWithWaitList (1.2):
// a marker that also holds back the commands enqueued after it.
func (l *Lib) EnqueueBarrierWithWaitList(q Queue, waitList []Event, event *Event) Status {
	return l.enqueueWaitList(l.enqueueBarrierWithWaitList, q, waitList, event)
}

func (l *Lib) enqueueWaitList(fn uintptr, q Queue, waitList []Event, event *Event) Status {
	f := dl.NewFrame()
	f.Args = dl.Args{
		uintptr(q),
		uintptr(len(waitList)),
		f.Ptr(0, dl.First(waitList)),
		f.Ptr(1, unsafe.Pointer(event)),
	}
	r, _, _ := f.Call(fn)
	return status(r)
}
