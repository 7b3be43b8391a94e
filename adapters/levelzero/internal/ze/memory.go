package ze

import (
	"unsafe"

	"github.com/gour-dev/gour/internal/dl"
)

// MemAllocDevice calls zeMemAllocDevice: size bytes of device memory on
// dev, aligned to alignment (0: the driver's default). The result is a
// device address, never dereferenced on the host.
func (l *Lib) MemAllocDevice(c Context, dev Device, size, alignment uintptr, ordinal uint32) (uintptr, Result) {
	desc := &DeviceMemAllocDesc{Stype: StructureTypeDeviceMemAllocDesc, Ordinal: ordinal}
	f := newFrame()
	f.args = dl.Args{uintptr(c), f.ptr(0, unsafe.Pointer(desc)), size, alignment, uintptr(dev), f.outPtr(0)}
	r, out := f.call(l.memAllocDevice)
	return uintptr(out[0]), r
}

// MemAllocHost calls zeMemAllocHost: size bytes of host memory the
// context's devices can access.
func (l *Lib) MemAllocHost(c Context, size, alignment uintptr) (uintptr, Result) {
	desc := &HostMemAllocDesc{Stype: StructureTypeHostMemAllocDesc}
	f := newFrame()
	f.args = dl.Args{uintptr(c), f.ptr(0, unsafe.Pointer(desc)), size, alignment, f.outPtr(0)}
	r, out := f.call(l.memAllocHost)
	return uintptr(out[0]), r
}

// MemAllocShared calls zeMemAllocShared: size bytes that migrate between
// the host and the devices; dev 0 lets every device of the context use it.
func (l *Lib) MemAllocShared(c Context, dev Device, size, alignment uintptr) (uintptr, Result) {
	ddesc := &DeviceMemAllocDesc{Stype: StructureTypeDeviceMemAllocDesc}
	hdesc := &HostMemAllocDesc{Stype: StructureTypeHostMemAllocDesc}
	f := newFrame()
	f.args = dl.Args{uintptr(c), f.ptr(0, unsafe.Pointer(ddesc)), f.ptr(1, unsafe.Pointer(hdesc)), size, alignment, uintptr(dev), f.outPtr(0)}
	r, out := f.call(l.memAllocShared)
	return uintptr(out[0]), r
}

// MemFree calls zeMemFree. The device must no longer use the memory.
func (l *Lib) MemFree(c Context, ptr uintptr) Result {
	f := newFrame()
	f.args = dl.Args{uintptr(c), ptr}
	r, _ := f.call(l.memFree)
	return r
}
