package cl

import (
	"encoding/binary"
	"unsafe"
)

// infoGetter is one clGet*Info call with its object arguments bound.
type infoGetter func(size uintptr, value unsafe.Pointer, sizeRet *uintptr) Status

// query runs the size-then-data protocol of the clGet*Info functions.
func query(get infoGetter) ([]byte, Status) {
	var n uintptr
	if s := get(0, nil, &n); s != Success {
		return nil, s
	}
	if n == 0 {
		return []byte{}, Success
	}
	buf := make([]byte, n)
	var got uintptr
	if s := get(n, unsafe.Pointer(&buf[0]), &got); s != Success {
		return nil, s
	}
	if got < n {
		buf = buf[:got]
	}
	return buf, Success
}

// PlatformInfo returns the raw value of a Platform* parameter.
func (l *Lib) PlatformInfo(p Platform, param uint32) ([]byte, Status) {
	return query(func(size uintptr, value unsafe.Pointer, sizeRet *uintptr) Status {
		return l.GetPlatformInfo(p, param, size, value, sizeRet)
	})
}

// DeviceInfo returns the raw value of a Device* parameter.
func (l *Lib) DeviceInfo(d Device, param uint32) ([]byte, Status) {
	return query(func(size uintptr, value unsafe.Pointer, sizeRet *uintptr) Status {
		return l.GetDeviceInfo(d, param, size, value, sizeRet)
	})
}

// ContextInfo returns the raw value of a Context* parameter.
func (l *Lib) ContextInfo(c Context, param uint32) ([]byte, Status) {
	return query(func(size uintptr, value unsafe.Pointer, sizeRet *uintptr) Status {
		return l.GetContextInfo(c, param, size, value, sizeRet)
	})
}

// QueueInfo returns the raw value of a Queue* info parameter.
func (l *Lib) QueueInfo(q Queue, param uint32) ([]byte, Status) {
	return query(func(size uintptr, value unsafe.Pointer, sizeRet *uintptr) Status {
		return l.GetCommandQueueInfo(q, param, size, value, sizeRet)
	})
}

// MemInfo returns the raw value of a Mem* info parameter.
func (l *Lib) MemInfo(m Mem, param uint32) ([]byte, Status) {
	return query(func(size uintptr, value unsafe.Pointer, sizeRet *uintptr) Status {
		return l.GetMemObjectInfo(m, param, size, value, sizeRet)
	})
}

// ProgramInfo returns the raw value of a Program* parameter. For
// ProgramBinaries use the ProgramBinaries method instead.
func (l *Lib) ProgramInfo(p Program, param uint32) ([]byte, Status) {
	return query(func(size uintptr, value unsafe.Pointer, sizeRet *uintptr) Status {
		return l.GetProgramInfo(p, param, size, value, sizeRet)
	})
}

// ProgramBuildInfo returns the raw value of a ProgramBuild* parameter for
// device d.
func (l *Lib) ProgramBuildInfo(p Program, d Device, param uint32) ([]byte, Status) {
	return query(func(size uintptr, value unsafe.Pointer, sizeRet *uintptr) Status {
		return l.GetProgramBuildInfo(p, d, param, size, value, sizeRet)
	})
}

// KernelInfo returns the raw value of a Kernel* info parameter.
func (l *Lib) KernelInfo(k Kernel, param uint32) ([]byte, Status) {
	return query(func(size uintptr, value unsafe.Pointer, sizeRet *uintptr) Status {
		return l.GetKernelInfo(k, param, size, value, sizeRet)
	})
}

// KernelWorkGroupInfo returns the raw value of a kernel work-group parameter
// for device d.
func (l *Lib) KernelWorkGroupInfo(k Kernel, d Device, param uint32) ([]byte, Status) {
	return query(func(size uintptr, value unsafe.Pointer, sizeRet *uintptr) Status {
		return l.GetKernelWorkGroupInfo(k, d, param, size, value, sizeRet)
	})
}

// KernelArgInfo returns the raw value of a KernelArg* parameter of argument
// index.
func (l *Lib) KernelArgInfo(k Kernel, index uint32, param uint32) ([]byte, Status) {
	return query(func(size uintptr, value unsafe.Pointer, sizeRet *uintptr) Status {
		return l.GetKernelArgInfo(k, index, param, size, value, sizeRet)
	})
}

// EventInfo returns the raw value of an Event* parameter.
func (l *Lib) EventInfo(e Event, param uint32) ([]byte, Status) {
	return query(func(size uintptr, value unsafe.Pointer, sizeRet *uintptr) Status {
		return l.GetEventInfo(e, param, size, value, sizeRet)
	})
}

// EventProfilingInfo returns the raw value of a ProfilingCommand* parameter
// (a cl_ulong in nanoseconds; decode with Uint64).
func (l *Lib) EventProfilingInfo(e Event, param uint32) ([]byte, Status) {
	return query(func(size uintptr, value unsafe.Pointer, sizeRet *uintptr) Status {
		return l.GetEventProfilingInfo(e, param, size, value, sizeRet)
	})
}

// ProgramBinaries returns the binary of each device of p, in the order of
// ProgramDevices; a device without a binary gets nil.
func (l *Lib) ProgramBinaries(p Program) ([][]byte, Status) {
	b, s := l.ProgramInfo(p, ProgramBinarySizes)
	if s != Success {
		return nil, s
	}
	sizes := Uintptrs(b)
	if len(sizes) == 0 {
		return nil, Success
	}
	bins := make([][]byte, len(sizes))
	// C fills the buffers through this array; NULL entries are skipped.
	ptrs := make([]*byte, len(sizes))
	for i, n := range sizes {
		if n > 0 {
			bins[i] = make([]byte, n)
			ptrs[i] = &bins[i][0]
		}
	}
	s = l.GetProgramInfo(p, ProgramBinaries, uintptr(len(ptrs))*unsafe.Sizeof(ptrs[0]), unsafe.Pointer(&ptrs[0]), nil)
	if s != Success {
		return nil, s
	}
	return bins, Success
}

// CString decodes a char[] value, dropping the trailing NULs.
func CString(b []byte) string {
	for len(b) > 0 && b[len(b)-1] == 0 {
		b = b[:len(b)-1]
	}
	return string(b)
}

// Uint32 decodes a cl_uint (or cl_bool) value; a short value gives 0.
func Uint32(b []byte) uint32 {
	if len(b) < 4 {
		return 0
	}
	return binary.NativeEndian.Uint32(b)
}

// Int32 decodes a cl_int value, such as a build or execution status; a
// short value gives 0.
func Int32(b []byte) int32 { return int32(Uint32(b)) }

// Uint64 decodes a cl_ulong or cl_bitfield value; a 4-byte value is read as
// a cl_uint and anything shorter gives 0.
func Uint64(b []byte) uint64 {
	switch {
	case len(b) >= 8:
		return binary.NativeEndian.Uint64(b)
	case len(b) >= 4:
		return uint64(binary.NativeEndian.Uint32(b))
	}
	return 0
}

// Uintptr decodes a size_t or handle value; a short value gives 0.
func Uintptr(b []byte) uintptr {
	if len(b) < ptrSize {
		return 0
	}
	return readUintptr(b)
}

// Uintptrs decodes a size_t[] or handle[] value, ignoring a partial tail.
func Uintptrs(b []byte) []uintptr {
	out := make([]uintptr, len(b)/ptrSize)
	for i := range out {
		out[i] = readUintptr(b[i*ptrSize:])
	}
	return out
}

const ptrSize = int(unsafe.Sizeof(uintptr(0)))

// readUintptr reads one native uintptr; b holds at least ptrSize bytes.
func readUintptr(b []byte) uintptr {
	if ptrSize == 8 {
		return uintptr(binary.NativeEndian.Uint64(b))
	}
	return uintptr(binary.NativeEndian.Uint32(b))
}
