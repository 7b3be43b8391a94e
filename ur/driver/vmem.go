package driver

// This file holds virtual memory (the Unified Runtime's urVirtualMem* and
// urPhysicalMem*): address ranges reserved without memory, physical
// memory made apart, mapped into a range and given access. The front end
// checks alignment to the granularity, ranges inside reservations and
// mappings before an adapter sees them.

// VirtualAccess is the access a mapping gives, as
// ur_virtual_mem_access_flags_t.
type VirtualAccess uint32

// Access flags; none is no access.
const (
	VirtualAccessReadWrite VirtualAccess = 1 << iota
	VirtualAccessReadOnly
)

// VirtualMemContext is implemented by contexts with virtual memory
// (cuMemAddressReserve and cuMemCreate; zeVirtualMemReserve and
// zePhysicalMemCreate).
type VirtualMemContext interface {
	// VirtualMemGranularity is the size reservations, physical memory
	// and mappings on dev are multiples of: the least, or the one
	// recommended for speed.
	VirtualMemGranularity(dev Device, recommended bool) (uint64, error)
	// VirtualMemReserve reserves size bytes of addresses, at hint where
	// the driver can (0: anywhere).
	VirtualMemReserve(hint uintptr, size uint64) (uintptr, error)
	// VirtualMemFree returns a reservation, which has no mapping left.
	VirtualMemFree(ptr uintptr, size uint64) error
	// NewPhysicalMem makes size bytes of memory on dev, not mapped.
	NewPhysicalMem(dev Device, size uint64) (PhysicalMem, error)
	// VirtualMemMap maps size bytes of pm from offset at ptr, with access
	// for the context's devices.
	VirtualMemMap(ptr uintptr, size uint64, pm PhysicalMem, offset uint64, access VirtualAccess) error
	// VirtualMemUnmap unmaps what was mapped at ptr.
	VirtualMemUnmap(ptr uintptr, size uint64) error
	// VirtualMemSetAccess changes the access of mapped memory.
	VirtualMemSetAccess(ptr uintptr, size uint64, access VirtualAccess) error
}

// PhysicalMem is memory made by VirtualMemContext.NewPhysicalMem.
type PhysicalMem interface {
	Release() error
	Native() uintptr
}
