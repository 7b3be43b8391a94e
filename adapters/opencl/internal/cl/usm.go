package cl

import (
	"unsafe"

	"github.com/gour-dev/gour/internal/dl"
)

// USMINTEL holds the entry points of cl_intel_unified_shared_memory on one
// platform. Extension functions are not exported by the ICD loader: they
// come from clGetExtensionFunctionAddressForPlatform, per platform, and
// call the driver directly. Read-only once loaded.
type USMINTEL struct {
	hostMemAlloc       uintptr
	deviceMemAlloc     uintptr
	sharedMemAlloc     uintptr
	memFree            uintptr
	memBlockingFree    uintptr // optional: memFree serves where it is missing
	getMemAllocInfo    uintptr
	setKernelArgMemPtr uintptr
	enqueueMemFill     uintptr
	enqueueMemcpy      uintptr
	enqueueMigrateMem  uintptr // optional
}

// ExtensionFunction returns the address of an extension function of p
// (clGetExtensionFunctionAddressForPlatform), or 0 when the platform or
// the loader does not have it.
func (l *Lib) ExtensionFunction(p Platform, name string) uintptr {
	if l.getExtensionFunctionAddressForPlatform == 0 {
		return 0
	}
	n := dl.CString(name)
	f := dl.NewFrame()
	f.Args = dl.Args{uintptr(p), f.Ptr(0, unsafe.Pointer(&n[0]))}
	r, _, _ := f.Call(l.getExtensionFunctionAddressForPlatform)
	return r
}

// LoadUSMINTEL resolves cl_intel_unified_shared_memory on p. It returns
// nil when any function gour needs is missing (clEnqueueMigrateMemINTEL
// is optional; clMemBlockingFreeINTEL is preferred, clMemFreeINTEL taken
// where it is missing). clEnqueueMemAdviseINTEL is not bound: the
// extension defines no advice values to pass it.
func (l *Lib) LoadUSMINTEL(p Platform) *USMINTEL {
	u := &USMINTEL{}
	for _, e := range []struct {
		name     string
		addr     *uintptr
		optional bool
	}{
		{"clHostMemAllocINTEL", &u.hostMemAlloc, false},
		{"clDeviceMemAllocINTEL", &u.deviceMemAlloc, false},
		{"clSharedMemAllocINTEL", &u.sharedMemAlloc, false},
		{"clMemFreeINTEL", &u.memFree, true},
		{"clMemBlockingFreeINTEL", &u.memBlockingFree, true},
		{"clGetMemAllocInfoINTEL", &u.getMemAllocInfo, false},
		{"clSetKernelArgMemPointerINTEL", &u.setKernelArgMemPtr, false},
		{"clEnqueueMemFillINTEL", &u.enqueueMemFill, false},
		{"clEnqueueMemcpyINTEL", &u.enqueueMemcpy, false},
		{"clEnqueueMigrateMemINTEL", &u.enqueueMigrateMem, true},
	} {
		*e.addr = l.ExtensionFunction(p, e.name)
		if *e.addr == 0 && !e.optional {
			return nil
		}
	}
	if u.memFree == 0 && u.memBlockingFree == 0 {
		return nil
	}
	return u
}

// HasMigrate reports whether clEnqueueMigrateMemINTEL was found.
func (u *USMINTEL) HasMigrate() bool { return u.enqueueMigrateMem != 0 }

// BlockingFree reports whether MemFree is clMemBlockingFreeINTEL.
func (u *USMINTEL) BlockingFree() bool { return u.memBlockingFree != 0 }

// memAlloc runs one of the allocation functions; dev is 0 for host memory,
// whose function takes no device argument.
func (u *USMINTEL) memAlloc(fn uintptr, c Context, dev Device, withDevice bool, size uintptr, alignment uint32) (uintptr, Status) {
	f := dl.NewFrame()
	// No properties: a NULL list.
	if withDevice {
		f.Args = dl.Args{uintptr(c), uintptr(dev), 0, size, uintptr(alignment), f.Out(0)}
	} else {
		f.Args = dl.Args{uintptr(c), 0, size, uintptr(alignment), f.Out(0)}
	}
	r, out, _ := f.Call(fn)
	return r, errcode(out)
}

// HostMemAlloc calls clHostMemAllocINTEL; alignment 0 is the default.
func (u *USMINTEL) HostMemAlloc(c Context, size uintptr, alignment uint32) (uintptr, Status) {
	return u.memAlloc(u.hostMemAlloc, c, 0, false, size, alignment)
}

// DeviceMemAlloc calls clDeviceMemAllocINTEL.
func (u *USMINTEL) DeviceMemAlloc(c Context, d Device, size uintptr, alignment uint32) (uintptr, Status) {
	return u.memAlloc(u.deviceMemAlloc, c, d, true, size, alignment)
}

// SharedMemAlloc calls clSharedMemAllocINTEL.
func (u *USMINTEL) SharedMemAlloc(c Context, d Device, size uintptr, alignment uint32) (uintptr, Status) {
	return u.memAlloc(u.sharedMemAlloc, c, d, true, size, alignment)
}

// MemFree calls clMemBlockingFreeINTEL, which waits for commands still
// using ptr before freeing it, or clMemFreeINTEL where the driver lacks
// it (see BlockingFree).
func (u *USMINTEL) MemFree(c Context, ptr uintptr) Status {
	fn := u.memBlockingFree
	if fn == 0 {
		fn = u.memFree
	}
	f := dl.NewFrame()
	f.Args = dl.Args{uintptr(c), ptr}
	r, _, _ := f.Call(fn)
	return status(r)
}

// MemAllocInfo calls clGetMemAllocInfoINTEL for a value of up to 8 bytes
// (a type, a base pointer, a size, a device), returned as a uintptr.
func (u *USMINTEL) MemAllocInfo(c Context, ptr uintptr, param uint32) (uintptr, Status) {
	f := dl.NewFrame()
	f.Args = dl.Args{uintptr(c), ptr, uintptr(param), 8, f.Out(0), 0}
	r, out, _ := f.Call(u.getMemAllocInfo)
	return uintptr(out[0]), status(r)
}

// SetKernelArgMemPointer calls clSetKernelArgMemPointerINTEL: argument
// index becomes ptr, an address in a USM allocation. It allocates nothing.
func (u *USMINTEL) SetKernelArgMemPointer(k Kernel, index uint32, ptr uintptr) Status {
	f := dl.NewFrame()
	f.Args = dl.Args{uintptr(k), uintptr(index), ptr}
	r, _, _ := f.Call(u.setKernelArgMemPtr)
	return status(r)
}

// EnqueueMemcpy calls clEnqueueMemcpyINTEL: size bytes from src to dst,
// USM or ordinary host memory (kept alive by the caller). event may be
// nil.
func (u *USMINTEL) EnqueueMemcpy(q Queue, blocking bool, dst, src, size uintptr, waitList []Event, event *Event) Status {
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
	r, _, _ := f.Call(u.enqueueMemcpy)
	return status(r)
}

// EnqueueMemFill calls clEnqueueMemFillINTEL; the pattern is copied before
// the call returns. event may be nil.
func (u *USMINTEL) EnqueueMemFill(q Queue, ptr uintptr, pattern unsafe.Pointer, patternSize, size uintptr, waitList []Event, event *Event) Status {
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
	r, _, _ := f.Call(u.enqueueMemFill)
	return status(r)
}

// EnqueueMigrateMem calls clEnqueueMigrateMemINTEL with Migrate* flags; it
// returns InvalidOperation where the driver lacks it (see HasMigrate).
// event may be nil.
func (u *USMINTEL) EnqueueMigrateMem(q Queue, ptr, size uintptr, flags uint64, waitList []Event, event *Event) Status {
	if u.enqueueMigrateMem == 0 {
		return InvalidOperation
	}
	f := dl.NewFrame()
	f.Args = dl.Args{
		uintptr(q),
		ptr,
		size,
		uintptr(flags),
		uintptr(len(waitList)),
		f.Ptr(0, dl.First(waitList)),
		f.Ptr(1, unsafe.Pointer(event)),
	}
	r, _, _ := f.Call(u.enqueueMigrateMem)
	return status(r)
}
