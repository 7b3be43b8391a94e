package cl

import (
	"unsafe"

	"github.com/gour-dev/gour/internal/dl"
)

// Launch model: kernel clones, sub-group queries, event callbacks, queue
// priorities, suggested work-group sizes and device globals.

// Queue property keys and values of cl_khr_priority_hints.
const (
	QueuePriorityKHR     = 0x1096 // CL_QUEUE_PRIORITY_KHR
	QueuePriorityHighKHR = 1 << 0 // CL_QUEUE_PRIORITY_HIGH_KHR
	QueuePriorityMedKHR  = 1 << 1 // CL_QUEUE_PRIORITY_MED_KHR
	QueuePriorityLowKHR  = 1 << 2 // CL_QUEUE_PRIORITY_LOW_KHR
)

// Device and kernel queries of the launch model.
const (
	DeviceQueueOnHostProperties = 0x102A // CL_DEVICE_QUEUE_ON_HOST_PROPERTIES (CL_DEVICE_QUEUE_PROPERTIES)
	DeviceExtensionsWithVersion = 0x1060 // CL_DEVICE_EXTENSIONS_WITH_VERSION (3.0)
	DeviceSubGroupSizesINTEL    = 0x4108 // CL_DEVICE_SUB_GROUP_SIZES_INTEL

	KernelMaxSubGroupSizeForNDRange = 0x2033 // CL_KERNEL_MAX_SUB_GROUP_SIZE_FOR_NDRANGE
)

// NameVersionSize is the size of a cl_name_version: a cl_version and a
// 64-byte name.
const NameVersionSize = 4 + 64

// CloneKernel calls clCloneKernel (2.1): a new kernel with k's argument
// values. It returns InvalidOperation where the loader lacks it (see
// HasCloneKernel); a 3.0 driver without it answers the same.
func (l *Lib) CloneKernel(k Kernel) (Kernel, Status) {
	if l.cloneKernel == 0 {
		return 0, InvalidOperation
	}
	f := dl.NewFrame()
	f.Args = dl.Args{uintptr(k), f.Out(0)}
	r, out, _ := f.Call(l.cloneKernel)
	return Kernel(r), errcode(out)
}

// HasCloneKernel reports whether the loader exports clCloneKernel.
func (l *Lib) HasCloneKernel() bool { return l.cloneKernel != 0 }

// KernelSubGroupInfo calls clGetKernelSubGroupInfo (2.1) for a value of
// up to 8 bytes with input (a range of local sizes) of inputSize bytes.
// It returns InvalidOperation where the loader lacks it.
func (l *Lib) KernelSubGroupInfo(k Kernel, d Device, param uint32, input unsafe.Pointer, inputSize uintptr) (uint64, Status) {
	if l.getKernelSubGroupInfo == 0 {
		return 0, InvalidOperation
	}
	f := dl.NewFrame()
	f.Args = dl.Args{uintptr(k), uintptr(d), uintptr(param), inputSize, f.Ptr(0, input), 8, f.Out(0), 0}
	r, out, _ := f.Call(l.getKernelSubGroupInfo)
	return out[0], status(r)
}

// SetEventCallback calls clSetEventCallback (1.1) for CL_COMPLETE with
// the process's one trampoline (EventTrampoline) and id as user data.
func (l *Lib) SetEventCallback(e Event, trampoline, id uintptr) Status {
	if l.setEventCallback == 0 {
		return InvalidOperation
	}
	f := dl.NewFrame()
	f.Args = dl.Args{uintptr(e), Complete, trampoline, id}
	r, _, _ := f.Call(l.setEventCallback)
	return status(r)
}

// SuggestedLocalSizeFunc returns clGetKernelSuggestedLocalWorkSizeKHR of
// cl_khr_suggested_local_work_size on p, or 0.
func (l *Lib) SuggestedLocalSizeFunc(p Platform) uintptr {
	return l.ExtensionFunction(p, "clGetKernelSuggestedLocalWorkSizeKHR")
}

// SuggestedLocalSize calls clGetKernelSuggestedLocalWorkSizeKHR (fn, from
// SuggestedLocalSizeFunc) on q for a launch of k over global (offset may
// be nil).
func SuggestedLocalSize(fn uintptr, q Queue, k Kernel, dims uint32, offset, global *[3]uintptr) ([3]uintptr, Status) {
	var local [3]uintptr
	f := dl.NewFrame()
	f.Args = dl.Args{uintptr(q), uintptr(k), uintptr(dims), f.Ptr(0, unsafe.Pointer(offset)), f.Ptr(1, unsafe.Pointer(global)), f.Ptr(2, unsafe.Pointer(&local))}
	r, _, _ := f.Call(fn)
	return local, status(r)
}

// GlobalVariablePointerFunc returns clGetDeviceGlobalVariablePointerINTEL
// of cl_intel_global_variable_pointers on p, or 0.
func (l *Lib) GlobalVariablePointerFunc(p Platform) uintptr {
	return l.ExtensionFunction(p, "clGetDeviceGlobalVariablePointerINTEL")
}

// GlobalVariablePointer calls clGetDeviceGlobalVariablePointerINTEL (fn)
// for the global name of program prog on d.
func GlobalVariablePointer(fn uintptr, d Device, prog Program, name string) (ptr, size uintptr, st Status) {
	n := dl.CString(name)
	f := dl.NewFrame()
	f.Args = dl.Args{uintptr(d), uintptr(prog), f.Ptr(0, unsafe.Pointer(&n[0])), f.Out(0), f.Out(1)}
	r, out, _ := f.Call(fn)
	return uintptr(out[1]), uintptr(out[0]), status(r)
}
