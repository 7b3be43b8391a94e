package cu

import (
	"unsafe"

	"github.com/gour-dev/gour/internal/dl"
)

// MemAlloc calls cuMemAlloc_v2 in the current context.
func (l *Lib) MemAlloc(size uintptr) (DevicePtr, Result) {
	f := dl.NewFrame()
	f.Args = dl.Args{f.Out(0), size}
	r, out, _ := call(f, l.memAlloc)
	return DevicePtr(out[0]), r
}

// MemFree calls cuMemFree_v2.
func (l *Lib) MemFree(p DevicePtr) Result { return call1(l.memFree, uintptr(p)) }

// MemGetInfo calls cuMemGetInfo_v2: free and total bytes of the current
// context's device.
func (l *Lib) MemGetInfo() (free, total uint64, r Result) {
	f := dl.NewFrame()
	f.Args = dl.Args{f.Out(0), f.Out(1)}
	r, out, _ := call(f, l.memGetInfo)
	return out[0], out[1], r
}

// MemcpyHtoD calls cuMemcpyHtoD_v2: n bytes from host src to dst.
func (l *Lib) MemcpyHtoD(dst DevicePtr, src unsafe.Pointer, n uintptr) Result {
	f := dl.NewFrame()
	f.Args = dl.Args{uintptr(dst), f.Ptr(0, src), n}
	r, _, _ := call(f, l.memcpyHtoD)
	return r
}

// MemcpyDtoH calls cuMemcpyDtoH_v2: n bytes from src to host dst.
func (l *Lib) MemcpyDtoH(dst unsafe.Pointer, src DevicePtr, n uintptr) Result {
	f := dl.NewFrame()
	f.Args = dl.Args{f.Ptr(0, dst), uintptr(src), n}
	r, _, _ := call(f, l.memcpyDtoH)
	return r
}

// MemcpyHtoDAsync calls cuMemcpyHtoDAsync_v2. For pageable memory the copy
// is staged before the call returns; for page-locked memory the driver may
// read src later, so src must stay alive until the stream passes the copy.
func (l *Lib) MemcpyHtoDAsync(dst DevicePtr, src unsafe.Pointer, n uintptr, s Stream) Result {
	f := dl.NewFrame()
	f.Args = dl.Args{uintptr(dst), f.Ptr(0, src), n, uintptr(s)}
	r, _, _ := call(f, l.memcpyHtoDAsync)
	return r
}

// MemcpyDtoHAsync calls cuMemcpyDtoHAsync_v2: dst is written when the
// stream reaches the copy, so it must stay alive until then.
func (l *Lib) MemcpyDtoHAsync(dst unsafe.Pointer, src DevicePtr, n uintptr, s Stream) Result {
	f := dl.NewFrame()
	f.Args = dl.Args{f.Ptr(0, dst), uintptr(src), n, uintptr(s)}
	r, _, _ := call(f, l.memcpyDtoHAsync)
	return r
}

// MemcpyDtoDAsync calls cuMemcpyDtoDAsync_v2.
func (l *Lib) MemcpyDtoDAsync(dst, src DevicePtr, n uintptr, s Stream) Result {
	f := dl.NewFrame()
	f.Args = dl.Args{uintptr(dst), uintptr(src), n, uintptr(s)}
	r, _, _ := call(f, l.memcpyDtoDAsync)
	return r
}

// MemsetD8Async calls cuMemsetD8Async: n bytes set to v.
func (l *Lib) MemsetD8Async(dst DevicePtr, v uint8, n uintptr, s Stream) Result {
	return memset(l.memsetD8Async, dst, uintptr(v), n, s)
}

// MemsetD16Async calls cuMemsetD16Async: n 16-bit values set to v; dst
// must be 2-byte aligned.
func (l *Lib) MemsetD16Async(dst DevicePtr, v uint16, n uintptr, s Stream) Result {
	return memset(l.memsetD16Async, dst, uintptr(v), n, s)
}

// MemsetD32Async calls cuMemsetD32Async: n 32-bit values set to v; dst
// must be 4-byte aligned.
func (l *Lib) MemsetD32Async(dst DevicePtr, v uint32, n uintptr, s Stream) Result {
	return memset(l.memsetD32Async, dst, uintptr(v), n, s)
}

func memset(fn uintptr, dst DevicePtr, v, n uintptr, s Stream) Result {
	f := dl.NewFrame()
	f.Args = dl.Args{uintptr(dst), v, n, uintptr(s)}
	r, _, _ := call(f, fn)
	return r
}

// MemsetD2D8Async calls cuMemsetD2D8Async: height rows of width bytes,
// pitch bytes apart, set to v. NotSupported when missing (see HasMemset2D).
func (l *Lib) MemsetD2D8Async(dst DevicePtr, pitch uintptr, v uint8, width, height uintptr, s Stream) Result {
	return memset2D(l.memsetD2D8Async, dst, pitch, uintptr(v), width, height, s)
}

// MemsetD2D16Async calls cuMemsetD2D16Async (width in 16-bit elements).
func (l *Lib) MemsetD2D16Async(dst DevicePtr, pitch uintptr, v uint16, width, height uintptr, s Stream) Result {
	return memset2D(l.memsetD2D16Async, dst, pitch, uintptr(v), width, height, s)
}

// MemsetD2D32Async calls cuMemsetD2D32Async (width in 32-bit elements).
func (l *Lib) MemsetD2D32Async(dst DevicePtr, pitch uintptr, v uint32, width, height uintptr, s Stream) Result {
	return memset2D(l.memsetD2D32Async, dst, pitch, uintptr(v), width, height, s)
}

func memset2D(fn uintptr, dst DevicePtr, pitch, v, width, height uintptr, s Stream) Result {
	f := dl.NewFrame()
	f.Args = dl.Args{uintptr(dst), pitch, v, width, height, uintptr(s)}
	r, _, _ := call(f, fn)
	return r
}
