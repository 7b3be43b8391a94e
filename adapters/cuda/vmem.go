package cuda

import (
	"github.com/gour-dev/gour/adapters/cuda/internal/cu"
	"github.com/gour-dev/gour/ur/driver"
)

// This file is virtual memory (driver.VirtualMemContext) with CUDA's
// virtual memory management: cuMemAddressReserve, cuMemCreate, cuMemMap
// and cuMemSetAccess, for the context's devices.

var _ driver.VirtualMemContext = (*context)(nil)

// physicalMem is a CUmemGenericAllocationHandle.
type physicalMem struct {
	dev    *device
	handle uint64
}

func (p *physicalMem) Release() error {
	if err := p.dev.bind(); err != nil {
		return err
	}
	defer unbind()
	return check("cuMemRelease", p.dev.a.cu.MemRelease(p.handle))
}

func (p *physicalMem) Native() uintptr { return uintptr(p.handle) }

func (c *context) devices() []*device {
	if len(c.devs) > 0 {
		return c.devs
	}
	return []*device{c.dev}
}

func (c *context) VirtualMemGranularity(dev driver.Device, recommended bool) (uint64, error) {
	d := dev.(*device)
	if err := d.bind(); err != nil {
		return 0, err
	}
	defer unbind()
	prop := cu.DeviceAllocationProp(d.ordinal)
	opt := uint32(cu.MemAllocGranularityMinimum)
	if recommended {
		opt = cu.MemAllocGranularityRecommended
	}
	g, r := d.a.cu.MemGetAllocationGranularity(&prop, opt)
	if r == cu.NotSupported {
		return 0, driver.Errorf(driver.ResultUnsupportedFeature, "the CUDA driver has no virtual memory management (CUDA 10.2)")
	}
	return g, check("cuMemGetAllocationGranularity", r)
}

func (c *context) VirtualMemReserve(hint uintptr, size uint64) (uintptr, error) {
	if err := c.dev.bind(); err != nil {
		return 0, err
	}
	defer unbind()
	p, r := c.dev.a.cu.MemAddressReserve(size, 0, cu.DevicePtr(hint))
	return uintptr(p), check("cuMemAddressReserve", r)
}

func (c *context) VirtualMemFree(ptr uintptr, size uint64) error {
	if err := c.dev.bind(); err != nil {
		return err
	}
	defer unbind()
	return check("cuMemAddressFree", c.dev.a.cu.MemAddressFree(cu.DevicePtr(ptr), size))
}

func (c *context) NewPhysicalMem(dev driver.Device, size uint64) (driver.PhysicalMem, error) {
	d := dev.(*device)
	if err := d.bind(); err != nil {
		return nil, err
	}
	defer unbind()
	prop := cu.DeviceAllocationProp(d.ordinal)
	h, r := d.a.cu.MemCreate(size, &prop)
	if err := check("cuMemCreate", r); err != nil {
		return nil, err
	}
	return &physicalMem{dev: d, handle: h}, nil
}

func (c *context) VirtualMemMap(ptr uintptr, size uint64, pm driver.PhysicalMem, offset uint64, access driver.VirtualAccess) error {
	if err := c.dev.bind(); err != nil {
		return err
	}
	defer unbind()
	l := c.dev.a.cu
	if err := check("cuMemMap", l.MemMap(cu.DevicePtr(ptr), size, offset, pm.(*physicalMem).handle)); err != nil {
		return err
	}
	if err := c.setAccess(ptr, size, access); err != nil {
		l.MemUnmap(cu.DevicePtr(ptr), size)
		return err
	}
	return nil
}

// setAccess gives every device of the context the access; the context
// is bound.
func (c *context) setAccess(ptr uintptr, size uint64, access driver.VirtualAccess) error {
	flags := uint32(cu.MemAccessFlagsProtNone)
	switch access {
	case driver.VirtualAccessReadWrite:
		flags = cu.MemAccessFlagsProtReadWrite
	case driver.VirtualAccessReadOnly:
		flags = cu.MemAccessFlagsProtRead
	}
	for _, d := range c.devices() {
		desc := cu.MemAccessDesc{LocationType: uint32(cu.MemLocationTypeDevice), LocationID: int32(d.ordinal), Flags: flags}
		if err := check("cuMemSetAccess", c.dev.a.cu.MemSetAccess(cu.DevicePtr(ptr), size, &desc)); err != nil {
			return err
		}
	}
	return nil
}

func (c *context) VirtualMemUnmap(ptr uintptr, size uint64) error {
	if err := c.dev.bind(); err != nil {
		return err
	}
	defer unbind()
	return check("cuMemUnmap", c.dev.a.cu.MemUnmap(cu.DevicePtr(ptr), size))
}

func (c *context) VirtualMemSetAccess(ptr uintptr, size uint64, access driver.VirtualAccess) error {
	if err := c.dev.bind(); err != nil {
		return err
	}
	defer unbind()
	return c.setAccess(ptr, size, access)
}
