package cl

import (
	"unsafe"

	"github.com/gour-dev/gour/internal/dl"
)

// WaitForEvents calls clWaitForEvents. An empty list gives InvalidValue
// from C.
func (l *Lib) WaitForEvents(events []Event) Status {
	f := dl.NewFrame()
	f.Args = dl.Args{uintptr(len(events)), f.Ptr(0, dl.First(events))}
	r, _, _ := f.Call(l.waitForEvents)
	return status(r)
}

// GetEventInfo calls clGetEventInfo.
func (l *Lib) GetEventInfo(e Event, param uint32, size uintptr, value unsafe.Pointer, sizeRet *uintptr) Status {
	return getInfo(l.getEventInfo, uintptr(e), param, size, value, sizeRet)
}

// GetEventProfilingInfo calls clGetEventProfilingInfo; the queue needs
// QueueProfilingEnable.
func (l *Lib) GetEventProfilingInfo(e Event, param uint32, size uintptr, value unsafe.Pointer, sizeRet *uintptr) Status {
	return getInfo(l.getEventProfilingInfo, uintptr(e), param, size, value, sizeRet)
}

// RetainEvent calls clRetainEvent.
func (l *Lib) RetainEvent(e Event) Status { return call1(l.retainEvent, uintptr(e)) }

// ReleaseEvent calls clReleaseEvent.
func (l *Lib) ReleaseEvent(e Event) Status { return call1(l.releaseEvent, uintptr(e)) }
