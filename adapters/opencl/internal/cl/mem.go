package cl

import (
	"unsafe"

	"github.com/gour-dev/gour/internal/dl"
)

// CreateBuffer calls clCreateBuffer with Mem* flags. hostPtr may be nil; with
// MemUseHostPtr C keeps it, so it must outlive the buffer.
func (l *Lib) CreateBuffer(c Context, flags uint64, size uintptr, hostPtr unsafe.Pointer) (Mem, Status) {
	f := dl.NewFrame()
	f.Args = dl.Args{uintptr(c), uintptr(flags), size, f.Ptr(0, hostPtr), f.Out(0)}
	r, out, _ := f.Call(l.createBuffer)
	return Mem(r), errcode(out)
}

// RetainMemObject calls clRetainMemObject.
func (l *Lib) RetainMemObject(m Mem) Status { return call1(l.retainMemObject, uintptr(m)) }

// ReleaseMemObject calls clReleaseMemObject.
func (l *Lib) ReleaseMemObject(m Mem) Status { return call1(l.releaseMemObject, uintptr(m)) }

// GetMemObjectInfo calls clGetMemObjectInfo.
func (l *Lib) GetMemObjectInfo(m Mem, param uint32, size uintptr, value unsafe.Pointer, sizeRet *uintptr) Status {
	return getInfo(l.getMemObjectInfo, uintptr(m), param, size, value, sizeRet)
}

// EnqueueReadBuffer calls clEnqueueReadBuffer: size bytes at offset in buf
// go to dst. A non-blocking read writes dst later, so dst must stay alive
// until the event completes. event may be nil.
func (l *Lib) EnqueueReadBuffer(q Queue, buf Mem, blocking bool, offset, size uintptr, dst unsafe.Pointer, waitList []Event, event *Event) Status {
	f := dl.NewFrame()
	f.Args = dl.Args{
		uintptr(q),
		uintptr(buf),
		clBool(blocking),
		offset,
		size,
		f.Ptr(0, dst),
		uintptr(len(waitList)),
		f.Ptr(1, dl.First(waitList)),
		f.Ptr(2, unsafe.Pointer(event)),
	}
	r, _, _ := f.Call(l.enqueueReadBuffer)
	return status(r)
}

// EnqueueWriteBuffer calls clEnqueueWriteBuffer: size bytes from src go to
// offset in buf. A non-blocking write may read src later, so src must stay
// alive until the event completes. event may be nil.
func (l *Lib) EnqueueWriteBuffer(q Queue, buf Mem, blocking bool, offset, size uintptr, src unsafe.Pointer, waitList []Event, event *Event) Status {
	f := dl.NewFrame()
	f.Args = dl.Args{
		uintptr(q),
		uintptr(buf),
		clBool(blocking),
		offset,
		size,
		f.Ptr(0, src),
		uintptr(len(waitList)),
		f.Ptr(1, dl.First(waitList)),
		f.Ptr(2, unsafe.Pointer(event)),
	}
	r, _, _ := f.Call(l.enqueueWriteBuffer)
	return status(r)
}

// EnqueueCopyBuffer calls clEnqueueCopyBuffer. event may be nil.
func (l *Lib) EnqueueCopyBuffer(q Queue, src, dst Mem, srcOffset, dstOffset, size uintptr, waitList []Event, event *Event) Status {
	f := dl.NewFrame()
	f.Args = dl.Args{
		uintptr(q),
		uintptr(src),
		uintptr(dst),
		srcOffset,
		dstOffset,
		size,
		uintptr(len(waitList)),
		f.Ptr(0, dl.First(waitList)),
		f.Ptr(1, unsafe.Pointer(event)),
	}
	r, _, _ := f.Call(l.enqueueCopyBuffer)
	return status(r)
}

// EnqueueFillBuffer calls clEnqueueFillBuffer (1.2): the patternSize bytes
// at pattern are repeated over size bytes from offset. The pattern is copied
// before the call returns. event may be nil.
func (l *Lib) EnqueueFillBuffer(q Queue, buf Mem, pattern unsafe.Pointer, patternSize, offset, size uintptr, waitList []Event, event *Event) Status {
	f := dl.NewFrame()
	f.Args = dl.Args{
		uintptr(q),
		uintptr(buf),
		f.Ptr(0, pattern),
		patternSize,
		offset,
		size,
		uintptr(len(waitList)),
		f.Ptr(1, dl.First(waitList)),
		f.Ptr(2, unsafe.Pointer(event)),
	}
	r, _, _ := f.Call(l.enqueueFillBuffer)
	return status(r)
}

// CreateSubBuffer calls clCreateSubBuffer (1.1) with
// BufferCreateTypeRegion: a buffer of size bytes at origin in buf, with
// access flags (Mem*; host pointer flags are inherited and must not be
// given). An origin that is not a multiple of the devices'
// DeviceMemBaseAddrAlign gives MisalignedSubBufferOffset.
func (l *Lib) CreateSubBuffer(buf Mem, flags uint64, origin, size uintptr) (Mem, Status) {
	f := dl.NewFrame()
	// cl_buffer_region {origin, size} lives in slots 1 and 2, read during
	// the call only.
	region := (*[2]uintptr)(f.Slot(1))
	region[0], region[1] = origin, size
	f.Args = dl.Args{uintptr(buf), uintptr(flags), BufferCreateTypeRegion, uintptr(unsafe.Pointer(region)), f.Out(0)}
	r, out, _ := f.Call(l.createSubBuffer)
	return Mem(r), errcode(out)
}
