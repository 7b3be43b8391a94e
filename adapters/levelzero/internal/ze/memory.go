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
	f := dl.NewFrame()
	f.Args = dl.Args{uintptr(c), f.Ptr(0, unsafe.Pointer(desc)), size, alignment, uintptr(dev), f.Out(0)}
	r, out := call(f, l.memAllocDevice)
	return uintptr(out[0]), r
}

// MemAllocHost calls zeMemAllocHost: size bytes of host memory the
// context's devices can access.
func (l *Lib) MemAllocHost(c Context, size, alignment uintptr) (uintptr, Result) {
	desc := &HostMemAllocDesc{Stype: StructureTypeHostMemAllocDesc}
	f := dl.NewFrame()
	f.Args = dl.Args{uintptr(c), f.Ptr(0, unsafe.Pointer(desc)), size, alignment, f.Out(0)}
	r, out := call(f, l.memAllocHost)
	return uintptr(out[0]), r
}

// MemAllocShared calls zeMemAllocShared: size bytes that migrate between
// the host and the devices; dev 0 lets every device of the context use it.
func (l *Lib) MemAllocShared(c Context, dev Device, size, alignment uintptr) (uintptr, Result) {
	ddesc := &DeviceMemAllocDesc{Stype: StructureTypeDeviceMemAllocDesc}
	hdesc := &HostMemAllocDesc{Stype: StructureTypeHostMemAllocDesc}
	f := dl.NewFrame()
	f.Args = dl.Args{uintptr(c), f.Ptr(0, unsafe.Pointer(ddesc)), f.Ptr(1, unsafe.Pointer(hdesc)), size, alignment, uintptr(dev), f.Out(0)}
	r, out := call(f, l.memAllocShared)
	return uintptr(out[0]), r
}

// MemFree calls zeMemFree. The device must no longer use the memory.
func (l *Lib) MemFree(c Context, ptr uintptr) Result {
	f := dl.NewFrame()
	f.Args = dl.Args{uintptr(c), ptr}
	r, _ := call(f, l.memFree)
	return r
}

// MemGetAllocProperties calls zeMemGetAllocProperties: the kind of
// allocation ptr lies in and, for device and shared allocations, its
// device (0 otherwise). A pointer the context does not know is
// MemoryTypeUnknown, with Success.
func (l *Lib) MemGetAllocProperties(c Context, ptr uintptr) (*MemoryAllocationProperties, Device, Result) {
	p := &MemoryAllocationProperties{Stype: StructureTypeMemoryAllocationProperties}
	f := dl.NewFrame()
	f.Args = dl.Args{uintptr(c), ptr, f.Ptr(0, unsafe.Pointer(p)), f.Out(0)}
	r, out := call(f, l.memGetAllocProperties)
	return p, Device(out[0]), r
}

// MemGetAddressRange calls zeMemGetAddressRange: the base address and
// size of the allocation ptr lies in.
func (l *Lib) MemGetAddressRange(c Context, ptr uintptr) (base, size uintptr, r Result) {
	f := dl.NewFrame()
	f.Args = dl.Args{uintptr(c), ptr, f.Out(0), f.Out(1)}
	r, out := call(f, l.memGetAddressRange)
	return uintptr(out[0]), uintptr(out[1]), r
}
