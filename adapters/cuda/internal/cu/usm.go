package cu

import (
	"unsafe"

	"github.com/gour-dev/gour/internal/dl"
)

// This file binds the memory model beyond cuMemAlloc: managed and pinned
// host allocations, pointer queries, unified copies, prefetch and advice,
// stream-ordered pools and 3D copies. Host pointers are uintptr: they are
// driver allocations, or Go memory that the caller keeps alive and in
// place (registered or being copied).

// MemAllocManaged calls cuMemAllocManaged: size bytes of managed memory,
// with MemAttach* flags.
func (l *Lib) MemAllocManaged(size uintptr, flags uint32) (DevicePtr, Result) {
	f := dl.NewFrame()
	f.Args = dl.Args{f.Out(0), size, uintptr(flags)}
	r, out, _ := call(f, l.memAllocManaged)
	return DevicePtr(out[0]), r
}

// MemHostAlloc calls cuMemHostAlloc: size bytes of page-locked host memory,
// with MemHostAlloc* flags.
func (l *Lib) MemHostAlloc(size uintptr, flags uint32) (uintptr, Result) {
	f := dl.NewFrame()
	f.Args = dl.Args{f.Out(0), size, uintptr(flags)}
	r, out, _ := call(f, l.memHostAlloc)
	return uintptr(out[0]), r
}

// MemFreeHost calls cuMemFreeHost on memory MemHostAlloc returned.
func (l *Lib) MemFreeHost(p uintptr) Result { return call1(l.memFreeHost, p) }

// MemHostRegister calls cuMemHostRegister_v2: page-locks size bytes of
// existing host memory at p, with MemHostRegister* flags.
func (l *Lib) MemHostRegister(p, size uintptr, flags uint32) Result {
	f := dl.NewFrame()
	f.Args = dl.Args{p, size, uintptr(flags)}
	r, _, _ := call(f, l.memHostRegister)
	return r
}

// MemHostUnregister calls cuMemHostUnregister on memory MemHostRegister
// registered at p.
func (l *Lib) MemHostUnregister(p uintptr) Result { return call1(l.memHostUnregister, p) }

// PointerGetAttribute calls cuPointerGetAttribute for an attribute of at
// most 8 bytes, returned zero-extended. An address the driver does not
// know gives InvalidValue.
func (l *Lib) PointerGetAttribute(attr PointerAttribute, p DevicePtr) (uint64, Result) {
	f := dl.NewFrame()
	f.Args = dl.Args{f.Out(0), uintptr(attr), uintptr(p)}
	r, out, _ := call(f, l.pointerGetAttribute)
	return out[0], r
}

// PointerGetAttributes calls cuPointerGetAttributes for attributes of at
// most 8 bytes each, returned zero-extended in order. Unlike
// PointerGetAttribute it succeeds for an address the driver does not
// know, leaving every value zero (MEMORY_TYPE 0 is no memory type).
func (l *Lib) PointerGetAttributes(attrs []PointerAttribute, p DevicePtr) ([]uint64, Result) {
	if len(attrs) == 0 {
		return nil, InvalidValue
	}
	// One allocation holds the values and the table of pointers to them
	// that C reads; the table points into the same object, which the frame
	// keeps alive.
	blk := &struct {
		attrs []PointerAttribute
		vals  []uint64
		data  []unsafe.Pointer
	}{attrs: attrs, vals: make([]uint64, len(attrs)), data: make([]unsafe.Pointer, len(attrs))}
	for i := range blk.vals {
		blk.data[i] = unsafe.Pointer(&blk.vals[i])
	}
	f := dl.NewFrame()
	f.Args = dl.Args{
		uintptr(len(attrs)),
		f.Ptr(0, unsafe.Pointer(&blk.attrs[0])),
		f.Ptr(1, unsafe.Pointer(&blk.data[0])),
		uintptr(p),
	}
	f.Ptr(2, unsafe.Pointer(&blk.vals[0]))
	r, _, _ := call(f, l.pointerGetAttributes)
	return blk.vals, r
}

// MemGetAddressRange calls cuMemGetAddressRange_v2: the base and size of
// the device allocation p lies in.
func (l *Lib) MemGetAddressRange(p DevicePtr) (DevicePtr, uint64, Result) {
	f := dl.NewFrame()
	f.Args = dl.Args{f.Out(0), f.Out(1), uintptr(p)}
	r, out, _ := call(f, l.memGetAddressRange)
	return DevicePtr(out[0]), out[1], r
}

// MemcpyAsync calls cuMemcpyAsync: n bytes from src to dst in stream s,
// either of them device, managed or host memory, which unified addressing
// tells apart. Host memory the driver does not know (pageable) is staged
// before the call returns; other memory is read and written when the
// stream reaches the copy, so it must stay alive until then.
func (l *Lib) MemcpyAsync(dst, src DevicePtr, n uintptr, s Stream) Result {
	f := dl.NewFrame()
	f.Args = dl.Args{uintptr(dst), uintptr(src), n, uintptr(s)}
	r, _, _ := call(f, l.memcpyAsync)
	return r
}

// Memcpy3DAsync calls cuMemcpy3DAsync_v2 with the copy p describes; the
// driver reads *p during the call only.
func (l *Lib) Memcpy3DAsync(p *Memcpy3D, s Stream) Result {
	f := dl.NewFrame()
	f.Args = dl.Args{f.Ptr(0, unsafe.Pointer(p)), uintptr(s)}
	r, _, _ := call(f, l.memcpy3DAsync)
	return r
}

// MemPrefetchAsync prefetches n bytes of managed memory at p to loc in
// stream s: cuMemPrefetchAsync_v2 (CUDA 12.2) with loc, or on older
// drivers cuMemPrefetchAsync with loc's device (DeviceCPU for the host).
// NotSupported when the driver has neither (see HasMemPrefetch).
func (l *Lib) MemPrefetchAsync(p DevicePtr, n uintptr, loc MemLocation, s Stream) Result {
	f := dl.NewFrame()
	if l.memPrefetchLocation {
		f.Args = dl.Args{uintptr(p), n, loc.word(), 0, uintptr(s)}
	} else {
		f.Args = dl.Args{uintptr(p), n, uintptr(uint32(loc.device())), uintptr(s)}
	}
	r, _, _ := call(f, l.memPrefetchAsync)
	return r
}

// MemAdvise advises the driver about n bytes of managed memory at p:
// cuMemAdvise_v2 (CUDA 12.2) with loc, or cuMemAdvise with loc's device on
// older drivers. NotSupported when the driver has neither.
func (l *Lib) MemAdvise(p DevicePtr, n uintptr, advice MemAdvise, loc MemLocation) Result {
	f := dl.NewFrame()
	if l.memAdviseLocation {
		f.Args = dl.Args{uintptr(p), n, uintptr(advice), loc.word()}
	} else {
		f.Args = dl.Args{uintptr(p), n, uintptr(advice), uintptr(uint32(loc.device()))}
	}
	r, _, _ := call(f, l.memAdvise)
	return r
}

// device is the CUdevice the CUDA 8 entry points take for a location.
func (m MemLocation) device() Device {
	if m.Type == MemLocationTypeHost {
		return DeviceCPU
	}
	return Device(m.ID)
}

// MemPoolCreate calls cuMemPoolCreate; the driver reads *props during the
// call only.
func (l *Lib) MemPoolCreate(props *MemPoolProps) (MemPool, Result) {
	f := dl.NewFrame()
	f.Args = dl.Args{f.Out(0), f.Ptr(0, unsafe.Pointer(props))}
	r, out, _ := call(f, l.memPoolCreate)
	return MemPool(out[0]), r
}

// MemPoolDestroy calls cuMemPoolDestroy.
func (l *Lib) MemPoolDestroy(p MemPool) Result { return call1(l.memPoolDestroy, uintptr(p)) }

// MemPoolSetAttribute calls cuMemPoolSetAttribute for an attribute that
// takes a cuuint64_t (MemPoolAttrReleaseThreshold, the *_HIGH resets).
func (l *Lib) MemPoolSetAttribute(p MemPool, attr MemPoolAttribute, v uint64) Result {
	f := dl.NewFrame()
	f.Args = dl.Args{uintptr(p), uintptr(attr), f.InOut(0, v)}
	r, _, _ := call(f, l.memPoolSetAttribute)
	return r
}

// MemPoolGetAttribute calls cuMemPoolGetAttribute for an attribute that is
// a cuuint64_t.
func (l *Lib) MemPoolGetAttribute(p MemPool, attr MemPoolAttribute) (uint64, Result) {
	f := dl.NewFrame()
	f.Args = dl.Args{uintptr(p), uintptr(attr), f.Out(0)}
	r, out, _ := call(f, l.memPoolGetAttribute)
	return out[0], r
}

// MemPoolTrimTo calls cuMemPoolTrimTo: the pool returns memory to the
// driver until keep bytes stay reserved (memory in use stays).
func (l *Lib) MemPoolTrimTo(p MemPool, keep uintptr) Result {
	f := dl.NewFrame()
	f.Args = dl.Args{uintptr(p), keep}
	r, _, _ := call(f, l.memPoolTrimTo)
	return r
}

// MemAllocFromPoolAsync calls cuMemAllocFromPoolAsync: size bytes from pool
// p, usable by work in stream s from this point of the stream on. A hot
// path: it takes a pooled frame and allocates nothing.
func (l *Lib) MemAllocFromPoolAsync(size uintptr, p MemPool, s Stream) (DevicePtr, Result) {
	f := dl.NewFrame()
	f.Args = dl.Args{f.Out(0), size, uintptr(p), uintptr(s)}
	r, out, _ := call(f, l.memAllocFromPoolAsync)
	return DevicePtr(out[0]), r
}

// MemFreeAsync calls cuMemFreeAsync: ptr returns to its pool when stream s
// reaches this point.
func (l *Lib) MemFreeAsync(ptr DevicePtr, s Stream) Result {
	f := dl.NewFrame()
	f.Args = dl.Args{uintptr(ptr), uintptr(s)}
	r, _, _ := call(f, l.memFreeAsync)
	return r
}

// CtxGetDevice calls cuCtxGetDevice: the device of the current context.
func (l *Lib) CtxGetDevice() (Device, Result) {
	f := dl.NewFrame()
	f.Args[0] = f.Out(0)
	r, out, _ := call(f, l.ctxGetDevice)
	return Device(int32At(&out[0])), r
}

// StreamGetCtx calls cuStreamGetCtx: the context s belongs to.
// NotSupported when the driver lacks it (see HasStreamGetCtx).
func (l *Lib) StreamGetCtx(s Stream) (Context, Result) {
	f := dl.NewFrame()
	f.Args = dl.Args{uintptr(s), f.Out(0)}
	r, out, _ := call(f, l.streamGetCtx)
	return Context(out[0]), r
}
