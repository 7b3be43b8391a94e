package cuda

import (
	"github.com/gour-dev/gour/adapters/cuda/internal/cu"
	"github.com/gour-dev/gour/ur/driver"
)

// This file is the adapter's side of the memory model beyond whole
// buffers (ur/driver/memory.go): USM allocations, registered host memory,
// sub-buffers, free memory and the native handles of other libraries.
//
// Which calls suspend quick launches (bindBusy) is decided by what the
// driver does in them. cuMemAlloc, cuMemAllocManaged and cuMemFree
// synchronize the device or take the context's allocation lock for long.
// cuMemHostAlloc, cuMemFreeHost, cuMemHostRegister and cuMemHostUnregister
// pin or unpin pages, which takes as long as the range is large, and
// page-locked allocation and release are among the operations CUDA lists
// as implicitly synchronizing: they are busy too. The stream-ordered
// cuMemAllocFromPoolAsync and cuMemFreeAsync neither synchronize nor wait,
// so they take the plain bind (pool.go).

// The optional interfaces of the memory model the adapter implements.
var (
	_ driver.USMContext          = (*context)(nil)
	_ driver.HostRegisterContext = (*context)(nil)
	_ driver.PoolContext         = (*context)(nil)
	_ driver.NativeContext       = (*context)(nil)
	_ driver.USMQueue            = (*queue)(nil)
	_ driver.PoolQueue           = (*queue)(nil)
	_ driver.MarkerQueue         = (*queue)(nil)
	_ driver.RectQueue           = (*queue)(nil)
	_ driver.PointerKernel       = (*kernel)(nil)
	_ driver.Pool                = (*pool)(nil)
	_ driver.SubBufferMem        = (*mem)(nil)
	_ driver.MemoryReporter      = (*device)(nil)
	_ driver.NativeWrapper       = (*adapter)(nil)
)

// usmAlign is the alignment every CUDA allocator guarantees: 256 bytes.
// Larger ones happen (big allocations start on 2 MiB pages) but are not
// promised, so a request above it is refused rather than met by chance.
const usmAlign = 256

func (c *context) USMAlloc(kind driver.USMKind, dev driver.Device, size, alignment uint64) (uintptr, error) {
	d := c.own(dev)
	if alignment > usmAlign {
		return 0, driver.Errorf(driver.ResultUnsupportedAlignment, "CUDA aligns allocations to %d bytes, not %d", usmAlign, alignment)
	}
	if kind == driver.USMShared && !d.managed {
		return 0, driver.Errorf(driver.ResultUnsupportedFeature, "%s", d.info.USM.Missing)
	}
	if err := d.bindBusy(); err != nil {
		return 0, err
	}
	defer d.unbindBusy()
	l := d.a.cu
	switch kind {
	case driver.USMDevice:
		p, r := l.MemAlloc(uintptr(size))
		return uintptr(p), check("cuMemAlloc", r)
	case driver.USMHost:
		// Portable: pinned for every context, as a USM host allocation is
		// usable from any device; mapped, so kernels reach it by the same
		// address.
		p, r := l.MemHostAlloc(uintptr(size), cu.MemHostAllocPortable|cu.MemHostAllocDeviceMap)
		return p, check("cuMemHostAlloc", r)
	case driver.USMShared:
		p, r := l.MemAllocManaged(uintptr(size), cu.MemAttachGlobal)
		return uintptr(p), check("cuMemAllocManaged", r)
	}
	return 0, driver.Errorf(driver.ResultInvalidValue, "no USM kind %d", kind)
}

// USMFree asks the driver what ptr is (cuPointerGetAttributes), rather
// than keeping a table of its own: host allocations go to cuMemFreeHost,
// device and managed ones to cuMemFree. Both wait for the work using the memory, as cuMemFree does.
func (c *context) USMFree(ptr uintptr) error {
	d := c.ownerOf(ptr)
	if err := d.bindBusy(); err != nil {
		return err
	}
	defer d.unbindBusy()
	l := d.a.cu
	v, r := l.PointerGetAttributes(freeAttrs, cu.DevicePtr(ptr))
	if err := check("cuPointerGetAttributes", r); err != nil {
		return err
	}
	// Managed memory is cuMemFree's, wherever it lies now.
	if v[1] == 0 && cu.MemoryType(v[0]) == cu.MemoryTypeHost {
		return check("cuMemFreeHost", l.MemFreeHost(ptr))
	}
	return check("cuMemFree", l.MemFree(cu.DevicePtr(ptr)))
}

// freeAttrs are what USMFree asks cuPointerGetAttributes.
var freeAttrs = []cu.PointerAttribute{cu.PointerAttributeMemoryType, cu.PointerAttributeIsManaged}

// pointerAttrs are what USMPointerInfo asks cuPointerGetAttributes, in
// order; rangeAttrs its fallback for the extent.
var (
	pointerAttrs = []cu.PointerAttribute{cu.PointerAttributeMemoryType, cu.PointerAttributeIsManaged, cu.PointerAttributeDeviceOrdinal}
	rangeAttrs   = []cu.PointerAttribute{cu.PointerAttributeRangeStartAddr, cu.PointerAttributeRangeSize}
)

// USMPointerInfo uses cuPointerGetAttributes, which answers zeros rather
// than an error for an address CUDA does not know (ordinary host memory):
// that is USMUnknown. Host memory registered with cuMemHostRegister is
// page-locked host memory the device reaches, and CUDA reports it as host
// memory: it is USMHost here too.
func (c *context) USMPointerInfo(ptr uintptr) (driver.USMPointerInfo, error) {
	d := c.dev
	if err := d.bind(); err != nil {
		return driver.USMPointerInfo{}, err
	}
	defer unbind()
	l := d.a.cu
	v, r := l.PointerGetAttributes(pointerAttrs, cu.DevicePtr(ptr))
	if r == cu.InvalidValue {
		return driver.USMPointerInfo{}, nil
	}
	if err := check("cuPointerGetAttributes", r); err != nil {
		return driver.USMPointerInfo{}, err
	}
	var info driver.USMPointerInfo
	switch {
	case v[1] != 0:
		info.Kind = driver.USMShared
	case cu.MemoryType(v[0]) == cu.MemoryTypeHost:
		info.Kind = driver.USMHost
	case cu.MemoryType(v[0]) == cu.MemoryTypeDevice:
		info.Kind = driver.USMDevice
	default:
		return driver.USMPointerInfo{}, nil
	}
	if info.Kind != driver.USMHost {
		info.Device = d.a.deviceOf(int32(uint32(v[2])))
	}
	// cuMemGetAddressRange knows device and managed allocations; the range
	// attributes (CUDA 11) know host ones too.
	base, size, r := l.MemGetAddressRange(cu.DevicePtr(ptr))
	if r != cu.Success {
		rv, r2 := l.PointerGetAttributes(rangeAttrs, cu.DevicePtr(ptr))
		if r2 != cu.Success || rv[1] == 0 {
			return driver.USMPointerInfo{}, cuError("cuMemGetAddressRange", r)
		}
		base, size = cu.DevicePtr(rv[0]), rv[1]
	}
	info.Base, info.Size = uintptr(base), size
	return info, nil
}

// deviceOf is the adapter's device of a CUDA ordinal, nil for one it does
// not have; devices are opened in ordinal order.
func (a *adapter) deviceOf(ordinal int32) driver.Device {
	if ordinal < 0 || int(ordinal) >= len(a.platform.devices) {
		return nil
	}
	return a.platform.devices[ordinal]
}

// HostRegister page-locks host memory for every context (PORTABLE). Under
// unified addressing the registered range is mapped at its own address,
// so copies and kernels take the host pointer as it is.
func (c *context) HostRegister(ptr uintptr, size uint64) error {
	d := c.dev
	if err := d.bindBusy(); err != nil {
		return err
	}
	defer d.unbindBusy()
	return check("cuMemHostRegister", d.a.cu.MemHostRegister(ptr, uintptr(size), cu.MemHostRegisterPortable))
}

func (c *context) HostUnregister(ptr uintptr) error {
	d := c.dev
	if err := d.bindBusy(); err != nil {
		return err
	}
	defer d.unbindBusy()
	return check("cuMemHostUnregister", d.a.cu.MemHostUnregister(ptr))
}

// NewSubBuffer is pointer arithmetic: CUDA has no sub-buffer object. The
// view frees nothing; the front end keeps its parent alive.
func (m *mem) NewSubBuffer(_ driver.MemFlags, offset, size uint64) (driver.Mem, error) {
	return &mem{dev: m.dev, ptr: m.ptr + cu.DevicePtr(offset), size: size, borrowed: true}, nil
}

// FreeMemory is cuMemGetInfo in the device's context.
func (d *device) FreeMemory() (free, total uint64, err error) {
	if err := d.bind(); err != nil {
		return 0, 0, err
	}
	defer unbind()
	free, total, r := d.a.cu.MemGetInfo()
	return free, total, check("cuMemGetInfo", r)
}
