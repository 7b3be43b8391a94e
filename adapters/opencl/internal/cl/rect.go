package cl

import (
	"unsafe"

	"github.com/gour-dev/gour/internal/dl"
)

// The rectangular copies take 13 and 14 arguments, more than the 12 of
// dl.Args, so they go through dl.CallMany. They are not on a hot path: a
// rectangle is one command for many bytes. CallMany is marked
// uintptrescapes, so the pointers converted in its argument list stay
// alive and in place for the call.

// BufferRect is the geometry of clEnqueueReadBufferRect and
// clEnqueueWriteBufferRect: origins {bytes, rows, slices}, a region
// {bytes per row, rows, slices} and pitches in bytes.
type BufferRect struct {
	BufferOrigin, HostOrigin, Region                               [3]uintptr
	BufferRowPitch, BufferSlicePitch, HostRowPitch, HostSlicePitch uintptr
}

// CopyRect is the geometry of clEnqueueCopyBufferRect.
type CopyRect struct {
	SrcOrigin, DstOrigin, Region                           [3]uintptr
	SrcRowPitch, SrcSlicePitch, DstRowPitch, DstSlicePitch uintptr
}

// EnqueueReadBufferRect calls clEnqueueReadBufferRect (1.1): the region of
// buf goes to host memory at ptr (an address the caller keeps alive, and
// unchanged until a non-blocking read completes). event may be nil.
func (l *Lib) EnqueueReadBufferRect(q Queue, buf Mem, blocking bool, r *BufferRect, ptr uintptr, waitList []Event, event *Event) Status {
	return l.bufferRect(l.enqueueReadBufferRect, q, buf, blocking, r, ptr, waitList, event)
}

// EnqueueWriteBufferRect calls clEnqueueWriteBufferRect (1.1): host memory
// at ptr goes to the region of buf.
func (l *Lib) EnqueueWriteBufferRect(q Queue, buf Mem, blocking bool, r *BufferRect, ptr uintptr, waitList []Event, event *Event) Status {
	return l.bufferRect(l.enqueueWriteBufferRect, q, buf, blocking, r, ptr, waitList, event)
}

func (l *Lib) bufferRect(fn uintptr, q Queue, buf Mem, blocking bool, r *BufferRect, ptr uintptr, waitList []Event, event *Event) Status {
	rc := dl.CallMany(fn,
		uintptr(q),
		uintptr(buf),
		clBool(blocking),
		uintptr(unsafe.Pointer(&r.BufferOrigin)),
		uintptr(unsafe.Pointer(&r.HostOrigin)),
		uintptr(unsafe.Pointer(&r.Region)),
		r.BufferRowPitch,
		r.BufferSlicePitch,
		r.HostRowPitch,
		r.HostSlicePitch,
		ptr,
		uintptr(len(waitList)),
		uintptr(dl.First(waitList)),
		uintptr(unsafe.Pointer(event)),
	)
	return status(rc)
}

// EnqueueCopyBufferRect calls clEnqueueCopyBufferRect (1.1). event may be
// nil.
func (l *Lib) EnqueueCopyBufferRect(q Queue, src, dst Mem, r *CopyRect, waitList []Event, event *Event) Status {
	rc := dl.CallMany(l.enqueueCopyBufferRect,
		uintptr(q),
		uintptr(src),
		uintptr(dst),
		uintptr(unsafe.Pointer(&r.SrcOrigin)),
		uintptr(unsafe.Pointer(&r.DstOrigin)),
		uintptr(unsafe.Pointer(&r.Region)),
		r.SrcRowPitch,
		r.SrcSlicePitch,
		r.DstRowPitch,
		r.DstSlicePitch,
		uintptr(len(waitList)),
		uintptr(dl.First(waitList)),
		uintptr(unsafe.Pointer(event)),
	)
	return status(rc)
}
