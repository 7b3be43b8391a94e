package cl

import (
	"unsafe"

	"github.com/gour-dev/gour/internal/dl"
)

// CreateKernel calls clCreateKernel.
func (l *Lib) CreateKernel(p Program, name string) (Kernel, Status) {
	n := dl.CString(name)
	f := dl.NewFrame()
	f.Args = dl.Args{uintptr(p), f.Ptr(0, unsafe.Pointer(&n[0])), f.Out(0)}
	r, out, _ := f.Call(l.createKernel)
	return Kernel(r), errcode(out)
}

// RetainKernel calls clRetainKernel.
func (l *Lib) RetainKernel(k Kernel) Status { return call1(l.retainKernel, uintptr(k)) }

// ReleaseKernel calls clReleaseKernel.
func (l *Lib) ReleaseKernel(k Kernel) Status { return call1(l.releaseKernel, uintptr(k)) }

// SetKernelArg calls clSetKernelArg. value points to size bytes (a *Mem for
// a buffer argument, the scalar itself otherwise) and is copied before the
// call returns; nil with a size declares __local memory.
//
// Hot path: it allocates nothing when value points to heap memory. A
// pointer to a local variable moves that variable to the heap (see dl.Frame).
func (l *Lib) SetKernelArg(k Kernel, index uint32, size uintptr, value unsafe.Pointer) Status {
	f := dl.NewFrame()
	f.Args = dl.Args{uintptr(k), uintptr(index), size, f.Ptr(0, value)}
	r, _, _ := f.Call(l.setKernelArg)
	return status(r)
}

// GetKernelInfo calls clGetKernelInfo.
func (l *Lib) GetKernelInfo(k Kernel, param uint32, size uintptr, value unsafe.Pointer, sizeRet *uintptr) Status {
	return getInfo(l.getKernelInfo, uintptr(k), param, size, value, sizeRet)
}

// GetKernelWorkGroupInfo calls clGetKernelWorkGroupInfo.
func (l *Lib) GetKernelWorkGroupInfo(k Kernel, d Device, param uint32, size uintptr, value unsafe.Pointer, sizeRet *uintptr) Status {
	return getInfo2(l.getKernelWorkGroupInfo, uintptr(k), uintptr(d), param, size, value, sizeRet)
}

// GetKernelArgInfo calls clGetKernelArgInfo (1.2). Drivers may answer
// KernelArgInfoNotAvailable unless the program was built with
// -cl-kernel-arg-info.
func (l *Lib) GetKernelArgInfo(k Kernel, index uint32, param uint32, size uintptr, value unsafe.Pointer, sizeRet *uintptr) Status {
	return getInfo2(l.getKernelArgInfo, uintptr(k), uintptr(index), param, size, value, sizeRet)
}

// EnqueueNDRangeKernelCall returns clEnqueueNDRangeKernel's address and
// the arguments of EnqueueNDRangeKernel(q, k, workDim, globalOffset,
// globalSize, localSize, nil, nil), for a caller that makes the same call
// many times itself (a prepared launch). The size arrays must be heap
// memory that outlives the arguments.
func (l *Lib) EnqueueNDRangeKernelCall(q Queue, k Kernel, workDim uint32, globalOffset, globalSize, localSize *uintptr) (uintptr, dl.Args) {
	return l.enqueueNDRangeKernel, dl.Args{
		uintptr(q),
		uintptr(k),
		uintptr(workDim),
		uintptr(unsafe.Pointer(globalOffset)),
		uintptr(unsafe.Pointer(globalSize)),
		uintptr(unsafe.Pointer(localSize)),
	}
}

// EnqueueNDRangeKernel calls clEnqueueNDRangeKernel. globalOffset,
// globalSize and localSize each point to workDim sizes; globalOffset and
// localSize may be nil (zero offset, driver-chosen work-group size). event
// may be nil.
//
// Hot path: it allocates nothing when the pointers and waitList point to
// heap memory, for example arrays kept in a long-lived struct.
func (l *Lib) EnqueueNDRangeKernel(q Queue, k Kernel, workDim uint32, globalOffset, globalSize, localSize *uintptr, waitList []Event, event *Event) Status {
	f := dl.NewFrame()
	f.Args = dl.Args{
		uintptr(q),
		uintptr(k),
		uintptr(workDim),
		f.Ptr(0, unsafe.Pointer(globalOffset)),
		f.Ptr(1, unsafe.Pointer(globalSize)),
		f.Ptr(2, unsafe.Pointer(localSize)),
		uintptr(len(waitList)),
		f.Ptr(3, dl.First(waitList)),
		f.Ptr(4, unsafe.Pointer(event)),
	}
	r, _, _ := f.Call(l.enqueueNDRangeKernel)
	return status(r)
}
