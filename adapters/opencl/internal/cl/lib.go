package cl

import (
	"unsafe"

	"github.com/gour-dev/gour/internal/dl"
)

// Lib is the resolved OpenCL entry-point table. Fields hold C function
// addresses; optional entry points the loader lacks are zero. A Lib is
// read-only after Load, so its methods may be called from any goroutine
// (OpenCL's own rules still apply, e.g. clSetKernelArg on one kernel).
type Lib struct {
	lib *dl.Library

	// Platform and device (1.0, 1.2).
	getPlatformIDs   uintptr
	getPlatformInfo  uintptr
	getDeviceIDs     uintptr
	getDeviceInfo    uintptr
	retainDevice     uintptr
	releaseDevice    uintptr
	createSubDevices uintptr // 1.2, optional

	// Context.
	createContext  uintptr
	retainContext  uintptr
	releaseContext uintptr
	getContextInfo uintptr

	// Command queue.
	createCommandQueue               uintptr
	createCommandQueueWithProperties uintptr // 2.0, optional
	retainCommandQueue               uintptr
	releaseCommandQueue              uintptr
	flush                            uintptr
	finish                           uintptr
	getCommandQueueInfo              uintptr

	// Memory objects.
	createBuffer       uintptr
	retainMemObject    uintptr
	releaseMemObject   uintptr
	getMemObjectInfo   uintptr
	enqueueReadBuffer  uintptr
	enqueueWriteBuffer uintptr
	enqueueCopyBuffer  uintptr
	enqueueFillBuffer  uintptr

	// Sub-buffers and rectangular copies (1.1).
	createSubBuffer        uintptr
	enqueueReadBufferRect  uintptr
	enqueueWriteBufferRect uintptr
	enqueueCopyBufferRect  uintptr

	// Markers and barriers (1.2).
	enqueueMarkerWithWaitList  uintptr
	enqueueBarrierWithWaitList uintptr

	// Shared virtual memory (2.0; migration 2.1), optional.
	svmAlloc               uintptr
	svmFree                uintptr
	enqueueSVMMemcpy       uintptr
	enqueueSVMMemFill      uintptr
	enqueueSVMMigrateMem   uintptr
	setKernelArgSVMPointer uintptr

	// Extension entry points (1.2), optional: a loader without it has no
	// extension functions to give.
	getExtensionFunctionAddressForPlatform uintptr

	// Programs.
	createProgramWithSource          uintptr
	createProgramWithBinary          uintptr
	createProgramWithIL              uintptr // 2.1, optional
	buildProgram                     uintptr
	compileProgram                   uintptr
	linkProgram                      uintptr
	retainProgram                    uintptr
	releaseProgram                   uintptr
	getProgramInfo                   uintptr
	getProgramBuildInfo              uintptr
	setProgramSpecializationConstant uintptr // 2.2, optional

	// Kernels.
	createKernel           uintptr
	retainKernel           uintptr
	releaseKernel          uintptr
	setKernelArg           uintptr
	getKernelInfo          uintptr
	getKernelWorkGroupInfo uintptr
	getKernelArgInfo       uintptr
	enqueueNDRangeKernel   uintptr
	cloneKernel            uintptr // 2.1, optional
	getKernelSubGroupInfo  uintptr // 2.1, optional

	// Events.
	waitForEvents         uintptr
	getEventInfo          uintptr
	getEventProfilingInfo uintptr
	retainEvent           uintptr
	releaseEvent          uintptr
	setEventCallback      uintptr // 1.1, optional
}

// libraryNames are tried in order: the versioned soname first, since the
// unversioned link only exists where development packages are installed.
var libraryNames = []string{"libOpenCL.so.1", "libOpenCL.so"}

// Load opens the OpenCL ICD loader and resolves every entry point. It fails
// when the library or a required (OpenCL 1.2) function is missing. Each call
// returns a new table; nothing is cached.
func Load() (*Lib, error) {
	lib, err := dl.Open(libraryNames...)
	if err != nil {
		return nil, err
	}
	l := &Lib{lib: lib}
	if err := lib.Resolve(l.symbols()); err != nil {
		_ = lib.Close()
		return nil, err
	}
	return l, nil
}

func (l *Lib) symbols() []dl.Symbol {
	return []dl.Symbol{
		{Name: "clGetPlatformIDs", Addr: &l.getPlatformIDs},
		{Name: "clGetPlatformInfo", Addr: &l.getPlatformInfo},
		{Name: "clGetDeviceIDs", Addr: &l.getDeviceIDs},
		{Name: "clGetDeviceInfo", Addr: &l.getDeviceInfo},
		{Name: "clRetainDevice", Addr: &l.retainDevice},
		{Name: "clReleaseDevice", Addr: &l.releaseDevice},
		{Name: "clCreateSubDevices", Addr: &l.createSubDevices, Optional: true},

		{Name: "clCreateContext", Addr: &l.createContext},
		{Name: "clRetainContext", Addr: &l.retainContext},
		{Name: "clReleaseContext", Addr: &l.releaseContext},
		{Name: "clGetContextInfo", Addr: &l.getContextInfo},

		{Name: "clCreateCommandQueue", Addr: &l.createCommandQueue},
		{Name: "clCreateCommandQueueWithProperties", Addr: &l.createCommandQueueWithProperties, Optional: true},
		{Name: "clRetainCommandQueue", Addr: &l.retainCommandQueue},
		{Name: "clReleaseCommandQueue", Addr: &l.releaseCommandQueue},
		{Name: "clFlush", Addr: &l.flush},
		{Name: "clFinish", Addr: &l.finish},
		{Name: "clGetCommandQueueInfo", Addr: &l.getCommandQueueInfo},

		{Name: "clCreateBuffer", Addr: &l.createBuffer},
		{Name: "clRetainMemObject", Addr: &l.retainMemObject},
		{Name: "clReleaseMemObject", Addr: &l.releaseMemObject},
		{Name: "clGetMemObjectInfo", Addr: &l.getMemObjectInfo},
		{Name: "clEnqueueReadBuffer", Addr: &l.enqueueReadBuffer},
		{Name: "clEnqueueWriteBuffer", Addr: &l.enqueueWriteBuffer},
		{Name: "clEnqueueCopyBuffer", Addr: &l.enqueueCopyBuffer},
		{Name: "clEnqueueFillBuffer", Addr: &l.enqueueFillBuffer},

		{Name: "clCreateSubBuffer", Addr: &l.createSubBuffer},
		{Name: "clEnqueueReadBufferRect", Addr: &l.enqueueReadBufferRect},
		{Name: "clEnqueueWriteBufferRect", Addr: &l.enqueueWriteBufferRect},
		{Name: "clEnqueueCopyBufferRect", Addr: &l.enqueueCopyBufferRect},
		{Name: "clEnqueueMarkerWithWaitList", Addr: &l.enqueueMarkerWithWaitList},
		{Name: "clEnqueueBarrierWithWaitList", Addr: &l.enqueueBarrierWithWaitList},

		{Name: "clSVMAlloc", Addr: &l.svmAlloc, Optional: true},
		{Name: "clSVMFree", Addr: &l.svmFree, Optional: true},
		{Name: "clEnqueueSVMMemcpy", Addr: &l.enqueueSVMMemcpy, Optional: true},
		{Name: "clEnqueueSVMMemFill", Addr: &l.enqueueSVMMemFill, Optional: true},
		{Name: "clEnqueueSVMMigrateMem", Addr: &l.enqueueSVMMigrateMem, Optional: true},
		{Name: "clSetKernelArgSVMPointer", Addr: &l.setKernelArgSVMPointer, Optional: true},
		{Name: "clGetExtensionFunctionAddressForPlatform", Addr: &l.getExtensionFunctionAddressForPlatform, Optional: true},

		{Name: "clCreateProgramWithSource", Addr: &l.createProgramWithSource},
		{Name: "clCreateProgramWithBinary", Addr: &l.createProgramWithBinary},
		{Name: "clCreateProgramWithIL", Addr: &l.createProgramWithIL, Optional: true},
		{Name: "clBuildProgram", Addr: &l.buildProgram},
		{Name: "clCompileProgram", Addr: &l.compileProgram},
		{Name: "clLinkProgram", Addr: &l.linkProgram},
		{Name: "clRetainProgram", Addr: &l.retainProgram},
		{Name: "clReleaseProgram", Addr: &l.releaseProgram},
		{Name: "clGetProgramInfo", Addr: &l.getProgramInfo},
		{Name: "clGetProgramBuildInfo", Addr: &l.getProgramBuildInfo},
		{Name: "clSetProgramSpecializationConstant", Addr: &l.setProgramSpecializationConstant, Optional: true},

		{Name: "clCreateKernel", Addr: &l.createKernel},
		{Name: "clRetainKernel", Addr: &l.retainKernel},
		{Name: "clReleaseKernel", Addr: &l.releaseKernel},
		{Name: "clSetKernelArg", Addr: &l.setKernelArg},
		{Name: "clGetKernelInfo", Addr: &l.getKernelInfo},
		{Name: "clGetKernelWorkGroupInfo", Addr: &l.getKernelWorkGroupInfo},
		{Name: "clGetKernelArgInfo", Addr: &l.getKernelArgInfo},
		{Name: "clEnqueueNDRangeKernel", Addr: &l.enqueueNDRangeKernel},
		{Name: "clCloneKernel", Addr: &l.cloneKernel, Optional: true},
		{Name: "clGetKernelSubGroupInfo", Addr: &l.getKernelSubGroupInfo, Optional: true},

		{Name: "clWaitForEvents", Addr: &l.waitForEvents},
		{Name: "clGetEventInfo", Addr: &l.getEventInfo},
		{Name: "clGetEventProfilingInfo", Addr: &l.getEventProfilingInfo},
		{Name: "clRetainEvent", Addr: &l.retainEvent},
		{Name: "clReleaseEvent", Addr: &l.releaseEvent},
		{Name: "clSetEventCallback", Addr: &l.setEventCallback, Optional: true},
	}
}

// LibraryName returns the file name the loader was opened under.
func (l *Lib) LibraryName() string { return l.lib.Name }

// Close unloads the library. No method may be called afterwards, nor may
// any object created through it be used.
func (l *Lib) Close() error {
	if l == nil {
		return nil
	}
	return l.lib.Close()
}

// HasQueueWithProperties reports whether clCreateCommandQueueWithProperties
// (OpenCL 2.0) is exported by the loader.
func (l *Lib) HasQueueWithProperties() bool { return l.createCommandQueueWithProperties != 0 }

// HasIL reports whether clCreateProgramWithIL (OpenCL 2.1) is exported. The
// devices must still list an IL in DeviceILVersion.
func (l *Lib) HasIL() bool { return l.createProgramWithIL != 0 }

// HasSpecializationConstants reports whether
// clSetProgramSpecializationConstant (OpenCL 2.2) is exported.
func (l *Lib) HasSpecializationConstants() bool { return l.setProgramSpecializationConstant != 0 }

// status converts a cl_int return register: only the low 32 bits are
// defined by the C ABI.
func status(r uintptr) Status { return Status(int32(r)) }

// errcode reads the cl_int errcode_ret of a create function, which C
// wrote into output slot 0 (passed as f.Out(0)).
func errcode(out [4]uint64) Status { return Status(int32(out[0])) }

// call1 runs a function of one handle, such as clRetainKernel or clFinish.
func call1(fn, h uintptr) Status {
	f := dl.NewFrame()
	f.Args[0] = h
	r, _, _ := f.Call(fn)
	return status(r)
}

// getInfo runs a clGet*Info function of one object.
func getInfo(fn, obj uintptr, param uint32, size uintptr, value unsafe.Pointer, sizeRet *uintptr) Status {
	f := dl.NewFrame()
	f.Args = dl.Args{obj, uintptr(param), size, f.Ptr(0, value), f.Ptr(1, unsafe.Pointer(sizeRet))}
	r, _, _ := f.Call(fn)
	return status(r)
}

// getInfo2 runs a clGet*Info function of two objects (or an object and an
// index), such as clGetProgramBuildInfo.
func getInfo2(fn, obj, obj2 uintptr, param uint32, size uintptr, value unsafe.Pointer, sizeRet *uintptr) Status {
	f := dl.NewFrame()
	f.Args = dl.Args{obj, obj2, uintptr(param), size, f.Ptr(0, value), f.Ptr(1, unsafe.Pointer(sizeRet))}
	r, _, _ := f.Call(fn)
	return status(r)
}

// clBool converts to cl_bool.
func clBool(b bool) uintptr {
	if b {
		return True
	}
	return False
}
