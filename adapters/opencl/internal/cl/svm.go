package cl

import (
	"unsafe"

	"github.com/gour-dev/gour/internal/dl"
)

// Shared virtual memory (OpenCL 2.0): allocations addressed by pointer in
// one virtual address space with the host. Every entry point is optional;
// each method returns InvalidOperation (or 0) when the loader lacks it.

// HasSVM reports whether the loader exports the SVM entry points gour uses
// (clSVMAlloc, clSVMFree, clEnqueueSVMMemcpy, clEnqueueSVMMemFill,
// clSetKernelArgSVMPointer). The device must still report
// DeviceSVMCapabilities.
func (l *Lib) HasSVM() bool {
	return l.svmAlloc != 0 && l.svmFree != 0 && l.enqueueSVMMemcpy != 0 && l.enqueueSVMMemFill != 0 &&
		l.setKernelArgSVMPointer != 0
}

// HasSVMMigrate reports whether clEnqueueSVMMigrateMem (2.1) is exported.
func (l *Lib) HasSVMMigrate() bool { return l.enqueueSVMMigrateMem != 0 }

// SVMAlloc calls clSVMAlloc with an access flag and optionally
// MemSVMFineGrainBuffer / MemSVMAtomics; alignment 0 is the driver's
// default. It returns 0 on any failure: clSVMAlloc reports no code.
func (l *Lib) SVMAlloc(c Context, flags uint64, size uintptr, alignment uint32) uintptr {
	if l.svmAlloc == 0 {
		return 0
	}
	f := dl.NewFrame()
	f.Args = dl.Args{uintptr(c), uintptr(flags), size, uintptr(alignment)}
	r, _, _ := f.Call(l.svmAlloc)
	return r
}

// SVMFree calls clSVMFree. It returns at once: it neither waits for
// commands still using the memory nor reports an error.
func (l *Lib) SVMFree(c Context, ptr uintptr) {
	if l.svmFree == 0 {
		return
	}
	f := dl.NewFrame()
	f.Args = dl.Args{uintptr(c), ptr}
	f.Call(l.svmFree)
}

// EnqueueSVMMemcpy calls clEnqueueSVMMemcpy: size bytes from src to dst,
// either of which may be ordinary host memory. Pointers are passed as
// addresses: Go memory among them must be kept alive (and, for a
// non-blocking copy, unchanged) by the caller until the command completes.
// event may be nil.
func (l *Lib) EnqueueSVMMemcpy(q Queue, blocking bool, dst, src, size uintptr, waitList []Event, event *Event) Status {
	if l.enqueueSVMMemcpy == 0 {
		return InvalidOperation
	}
	f := dl.NewFrame()
	f.Args = dl.Args{
		uintptr(q),
		clBool(blocking),
		dst,
		src,
		size,
		uintptr(len(waitList)),
		f.Ptr(0, dl.First(waitList)),
		f.Ptr(1, unsafe.Pointer(event)),
	}
	r, _, _ := f.Call(l.enqueueSVMMemcpy)
	return status(r)
}

// EnqueueSVMMemFill calls clEnqueueSVMMemFill: the patternSize bytes at
// pattern (copied before the call returns) repeated over size bytes at
// ptr, an SVM pointer. event may be nil.
func (l *Lib) EnqueueSVMMemFill(q Queue, ptr uintptr, pattern unsafe.Pointer, patternSize, size uintptr, waitList []Event, event *Event) Status {
	if l.enqueueSVMMemFill == 0 {
		return InvalidOperation
	}
	f := dl.NewFrame()
	f.Args = dl.Args{
		uintptr(q),
		ptr,
		f.Ptr(0, pattern),
		patternSize,
		size,
		uintptr(len(waitList)),
		f.Ptr(1, dl.First(waitList)),
		f.Ptr(2, unsafe.Pointer(event)),
	}
	r, _, _ := f.Call(l.enqueueSVMMemFill)
	return status(r)
}

// EnqueueSVMMigrateMem calls clEnqueueSVMMigrateMem (2.1) for one range of
// size bytes at ptr, with Migrate* flags (MigrateMemObjectHost moves it to
// the host). event may be nil.
func (l *Lib) EnqueueSVMMigrateMem(q Queue, ptr, size uintptr, flags uint64, waitList []Event, event *Event) Status {
	if l.enqueueSVMMigrateMem == 0 {
		return InvalidOperation
	}
	f := dl.NewFrame()
	// The one-element pointer and size arrays live in the frame's slots,
	// which C reads during the call only.
	ptrs, sizes := f.Slot(0), f.Slot(1)
	*(*uintptr)(ptrs), *(*uintptr)(sizes) = ptr, size
	f.Args = dl.Args{
		uintptr(q),
		1,
		uintptr(ptrs),
		uintptr(sizes),
		uintptr(flags),
		uintptr(len(waitList)),
		f.Ptr(0, dl.First(waitList)),
		f.Ptr(1, unsafe.Pointer(event)),
	}
	r, _, _ := f.Call(l.enqueueSVMMigrateMem)
	return status(r)
}

// SetKernelArgSVMPointer calls clSetKernelArgSVMPointer: argument index
// becomes ptr, an address in (or anywhere inside) an SVM allocation. It
// allocates nothing.
func (l *Lib) SetKernelArgSVMPointer(k Kernel, index uint32, ptr uintptr) Status {
	if l.setKernelArgSVMPointer == 0 {
		return InvalidOperation
	}
	f := dl.NewFrame()
	f.Args = dl.Args{uintptr(k), uintptr(index), ptr}
	r, _, _ := f.Call(l.setKernelArgSVMPointer)
	return status(r)
}
