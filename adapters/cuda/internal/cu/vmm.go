package cu

import (
	"unsafe"

	"github.com/gour-dev/gour/internal/dl"
)

// This file binds CUDA's virtual memory management (CUDA 10.2): address
// ranges, physical allocations, mappings and access. The entry points are
// looked up on each call, as they are called per reservation, not per
// launch; a driver without them gives NotSupported.

// MemAllocationProp is CUmemAllocationProp (32 bytes).
type MemAllocationProp struct {
	Type                 uint32 // CUmemAllocationType: MemAllocationTypePinned
	RequestedHandleTypes uint32 // CUmemAllocationHandleType
	LocationType         uint32 // CUmemLocationType: MemLocationTypeDevice
	LocationID           int32  // the device ordinal
	Win32HandleMetaData  uintptr
	CompressionType      uint8
	GPUDirectRDMACapable uint8
	Usage                uint16
	Reserved             [4]uint8
}

// MemAccessDesc is CUmemAccessDesc (12 bytes).
type MemAccessDesc struct {
	LocationType uint32
	LocationID   int32
	Flags        uint32 // CUmemAccess_flags
}

// Constants of the virtual memory API.
const (
	MemHandleTypePosixFD           = 0x1 // CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR
	MemAllocGranularityMinimum     = 0x0 // CU_MEM_ALLOC_GRANULARITY_MINIMUM
	MemAllocGranularityRecommended = 0x1 // CU_MEM_ALLOC_GRANULARITY_RECOMMENDED
	MemAccessFlagsProtNone         = 0x0 // CU_MEM_ACCESS_FLAGS_PROT_NONE
	MemAccessFlagsProtRead         = 0x1 // CU_MEM_ACCESS_FLAGS_PROT_READ
	MemAccessFlagsProtReadWrite    = 0x3 // CU_MEM_ACCESS_FLAGS_PROT_READWRITE
)

// DeviceAllocationProp is the property of pinned device memory on dev.
func DeviceAllocationProp(dev Device) MemAllocationProp {
	return MemAllocationProp{Type: MemAllocationTypePinned, LocationType: uint32(MemLocationTypeDevice), LocationID: int32(dev)}
}

func (l *Lib) vmm(name string) uintptr { return lookupFirst(l.lib, name) }

// MemGetAllocationGranularity calls cuMemGetAllocationGranularity.
func (l *Lib) MemGetAllocationGranularity(prop *MemAllocationProp, option uint32) (uint64, Result) {
	f := dl.NewFrame()
	f.Args = dl.Args{f.Out(0), f.Ptr(0, unsafe.Pointer(prop)), uintptr(option)}
	r, out, _ := call(f, l.vmm("cuMemGetAllocationGranularity"))
	return out[0], r
}

// MemAddressReserve calls cuMemAddressReserve.
func (l *Lib) MemAddressReserve(size, alignment uint64, addr DevicePtr) (DevicePtr, Result) {
	f := dl.NewFrame()
	f.Args = dl.Args{f.Out(0), uintptr(size), uintptr(alignment), uintptr(addr), 0}
	r, out, _ := call(f, l.vmm("cuMemAddressReserve"))
	return DevicePtr(out[0]), r
}

// MemAddressFree calls cuMemAddressFree.
func (l *Lib) MemAddressFree(ptr DevicePtr, size uint64) Result {
	f := dl.NewFrame()
	f.Args = dl.Args{uintptr(ptr), uintptr(size)}
	r, _, _ := call(f, l.vmm("cuMemAddressFree"))
	return r
}

// MemCreate calls cuMemCreate: a physical allocation, as a
// CUmemGenericAllocationHandle.
func (l *Lib) MemCreate(size uint64, prop *MemAllocationProp) (uint64, Result) {
	f := dl.NewFrame()
	f.Args = dl.Args{f.Out(0), uintptr(size), f.Ptr(0, unsafe.Pointer(prop)), 0}
	r, out, _ := call(f, l.vmm("cuMemCreate"))
	return out[0], r
}

// MemRelease calls cuMemRelease.
func (l *Lib) MemRelease(handle uint64) Result {
	f := dl.NewFrame()
	f.Args = dl.Args{uintptr(handle)}
	r, _, _ := call(f, l.vmm("cuMemRelease"))
	return r
}

// MemMap calls cuMemMap.
func (l *Lib) MemMap(ptr DevicePtr, size, offset uint64, handle uint64) Result {
	f := dl.NewFrame()
	f.Args = dl.Args{uintptr(ptr), uintptr(size), uintptr(offset), uintptr(handle), 0}
	r, _, _ := call(f, l.vmm("cuMemMap"))
	return r
}

// MemUnmap calls cuMemUnmap.
func (l *Lib) MemUnmap(ptr DevicePtr, size uint64) Result {
	f := dl.NewFrame()
	f.Args = dl.Args{uintptr(ptr), uintptr(size)}
	r, _, _ := call(f, l.vmm("cuMemUnmap"))
	return r
}

// MemSetAccess calls cuMemSetAccess with one descriptor.
func (l *Lib) MemSetAccess(ptr DevicePtr, size uint64, desc *MemAccessDesc) Result {
	f := dl.NewFrame()
	f.Args = dl.Args{uintptr(ptr), uintptr(size), f.Ptr(0, unsafe.Pointer(desc)), 1}
	r, _, _ := call(f, l.vmm("cuMemSetAccess"))
	return r
}

// MemGetAccess calls cuMemGetAccess for a device location.
func (l *Lib) MemGetAccess(dev Device, ptr DevicePtr) (uint64, Result) {
	loc := [2]uint32{uint32(MemLocationTypeDevice), uint32(dev)}
	f := dl.NewFrame()
	f.Args = dl.Args{f.Out(0), f.Ptr(0, unsafe.Pointer(&loc)), uintptr(ptr)}
	r, out, _ := call(f, l.vmm("cuMemGetAccess"))
	return out[0], r
}
