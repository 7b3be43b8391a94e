package levelzero

import (
	"github.com/gour-dev/gour/adapters/levelzero/internal/ze"
	"github.com/gour-dev/gour/ur/driver"
)

// This file is virtual memory (driver.VirtualMemContext) with Level
// Zero's zeVirtualMemReserve, zePhysicalMemCreate, zeVirtualMemMap and
// zeVirtualMemSetAccessAttribute.

var _ driver.VirtualMemContext = (*context)(nil)

// physicalMem is a ze_physical_mem_handle_t of a context.
type physicalMem struct {
	c      *context
	handle ze.PhysicalMem
}

func (p *physicalMem) Release() error {
	return check("zePhysicalMemDestroy", p.c.ze.PhysicalMemDestroy(p.c.handle, p.handle))
}

func (p *physicalMem) Native() uintptr { return uintptr(p.handle) }

func vmCheck(fn string, r ze.Result) error {
	if r == ze.NotSupported {
		return driver.Errorf(driver.ResultUnsupportedFeature, "the Level Zero loader has no %s", fn)
	}
	return check(fn, r)
}

func zeAccess(a driver.VirtualAccess) uint32 {
	switch a {
	case driver.VirtualAccessReadWrite:
		return ze.MemoryAccessReadWrite
	case driver.VirtualAccessReadOnly:
		return ze.MemoryAccessReadOnly
	}
	return ze.MemoryAccessNone
}

// VirtualMemGranularity is zeVirtualMemQueryPageSize for one page: Level
// Zero has no minimum apart from the recommended page size.
func (c *context) VirtualMemGranularity(dev driver.Device, recommended bool) (uint64, error) {
	g, r := c.ze.VirtualMemQueryPageSize(c.handle, dev.(*device).handle, 1)
	return g, vmCheck("zeVirtualMemQueryPageSize", r)
}

func (c *context) VirtualMemReserve(hint uintptr, size uint64) (uintptr, error) {
	p, r := c.ze.VirtualMemReserve(c.handle, hint, size)
	return p, vmCheck("zeVirtualMemReserve", r)
}

func (c *context) VirtualMemFree(ptr uintptr, size uint64) error {
	return vmCheck("zeVirtualMemFree", c.ze.VirtualMemFree(c.handle, ptr, size))
}

func (c *context) NewPhysicalMem(dev driver.Device, size uint64) (driver.PhysicalMem, error) {
	h, r := c.ze.PhysicalMemCreate(c.handle, dev.(*device).handle, size)
	if err := vmCheck("zePhysicalMemCreate", r); err != nil {
		return nil, err
	}
	return &physicalMem{c: c, handle: h}, nil
}

func (c *context) VirtualMemMap(ptr uintptr, size uint64, pm driver.PhysicalMem, offset uint64, access driver.VirtualAccess) error {
	return vmCheck("zeVirtualMemMap", c.ze.VirtualMemMap(c.handle, ptr, size, pm.(*physicalMem).handle, offset, zeAccess(access)))
}

func (c *context) VirtualMemUnmap(ptr uintptr, size uint64) error {
	return vmCheck("zeVirtualMemUnmap", c.ze.VirtualMemUnmap(c.handle, ptr, size))
}

func (c *context) VirtualMemSetAccess(ptr uintptr, size uint64, access driver.VirtualAccess) error {
	return vmCheck("zeVirtualMemSetAccessAttribute", c.ze.VirtualMemSetAccessAttribute(c.handle, ptr, size, zeAccess(access)))
}
