package ur

import (
	"sort"
	"sync"

	"github.com/gour-dev/gour/trace"
	"github.com/gour-dev/gour/ur/driver"
)

// This file holds virtual memory, as the Unified Runtime's urVirtualMem*
// and urPhysicalMem* entry points: a range of device addresses reserved
// without memory (VirtualMem), memory made apart (PhysicalMem), mapped
// into the range and given access. An array can then grow in place:
// reserve more addresses than needed, map memory at the end as it grows,
// and the data already there never moves (examples/growarray).
//
// CUDA (cuMemAddressReserve, cuMemCreate, cuMemMap, cuMemSetAccess) and
// Level Zero (zeVirtualMemReserve, zePhysicalMemCreate, zeVirtualMemMap)
// have it; OpenCL has no such API and gives ErrUnsupportedFeature.

// VirtualAccess is what a mapping allows, as
// ur_virtual_mem_access_flags_t: VirtualAccessReadWrite,
// VirtualAccessReadOnly, or 0 for no access.
type VirtualAccess = driver.VirtualAccess

// Access flags.
const (
	VirtualAccessReadWrite = driver.VirtualAccessReadWrite
	VirtualAccessReadOnly  = driver.VirtualAccessReadOnly
)

func init() {
	frontQueries[DeviceInfoVirtualMemorySupport] = func(d *Device) (any, error) {
		if dq, ok := d.drv.(driver.DeviceQuerier); ok {
			if v, err := dq.Query(DeviceInfoVirtualMemorySupport); err == nil {
				return v, nil
			}
		}
		return false, nil
	}
}

// vmemContext returns the context's virtual memory, or the typed
// unsupported error.
func (c *Context) vmemContext(op string) (driver.VirtualMemContext, error) {
	vc, ok := c.drv.(driver.VirtualMemContext)
	if !ok {
		return nil, newError(ErrUnsupportedFeature, op, c.adapter.name, "the %s adapter has no virtual memory (reserving addresses and mapping memory into them)", c.adapter.name)
	}
	return vc, nil
}

// enterVMem enters the context for op and returns its virtual memory;
// on nil error the caller must leave the context.
func (c *Context) enterVMem(op string) (driver.VirtualMemContext, error) {
	if err := c.enter(op); err != nil {
		return nil, err
	}
	vc, err := c.vmemContext(op)
	if err != nil {
		c.life.leave()
		return nil, err
	}
	return vc, nil
}

// VirtualMemGranularity is the size that reservations, physical memory
// and mappings on dev must be multiples of (urVirtualMemGranularityGetInfo):
// the least one, or with recommended the one the driver recommends for
// speed.
func (c *Context) VirtualMemGranularity(dev *Device, recommended bool) (rv uint64, rerr error) {
	const op = "Context.VirtualMemGranularity"
	if t := trace.Active(); t != nil {
		tc := beginCall(t, op, c, dev)
		defer tc.end(&rerr)
	}

	vc, err := c.enterVMem(op)
	if err != nil {
		return 0, err
	}
	defer c.life.leave()
	return c.deviceGranularity(op, vc, dev, recommended)
}

// deviceGranularity is the granularity of dev, one of the context's
// devices (checkVMDevice).
func (c *Context) deviceGranularity(op string, vc driver.VirtualMemContext, dev *Device, recommended bool) (uint64, error) {
	if err := c.checkVMDevice(op, dev); err != nil {
		return 0, err
	}
	g, err := vc.VirtualMemGranularity(dev.drv, recommended)
	return g, wrapError(err, op, c.adapter.name)
}

// checkVMDevice checks dev is one of the context's devices.
func (c *Context) checkVMDevice(op string, dev *Device) error {
	if dev == nil {
		return nilHandle("Device", op)
	}
	for _, d := range c.devices {
		if d == dev {
			return nil
		}
	}
	return newError(ErrInvalidDevice, op, c.adapter.name, "device %q is not in the context", dev.Name())
}

// granularity is the least granularity over the context's devices.
func (c *Context) granularity(op string, vc driver.VirtualMemContext) (uint64, error) {
	var g uint64
	for _, d := range c.devices {
		dg, err := vc.VirtualMemGranularity(d.drv, false)
		if err != nil {
			return 0, wrapError(err, op, c.adapter.name)
		}
		g = max(g, dg)
	}
	if g == 0 {
		return 0, newError(ErrUnsupportedFeature, op, c.adapter.name, "the driver reports no granularity")
	}
	return g, nil
}

// VirtualMem is a reserved range of device addresses (urVirtualMemReserve).
type VirtualMem struct {
	object
	ctx  *Context
	vc   driver.VirtualMemContext
	base uintptr
	size uint64
	gran uint64

	mu   sync.Mutex
	maps []vmap // sorted by offset
	usm  *USM
}

// vmap is one mapping of physical memory into a range.
type vmap struct {
	offset, size uint64
	pm           *PhysicalMem
	access       VirtualAccess
}

// ReserveVirtualMem reserves size bytes of device addresses, at hint
// where the driver can (0: anywhere), as urVirtualMemReserve. size must
// be a multiple of the granularity (VirtualMemGranularity, the largest
// of the context's devices'): ErrInvalidSize otherwise, or for 0.
func (c *Context) ReserveVirtualMem(hint uintptr, size uint64) (rh *VirtualMem, rerr error) {
	const op = "Context.ReserveVirtualMem"
	if t := trace.Active(); t != nil {
		tc := beginCall(t, op, c)
		tc.args.Uint("bytes", size)
		defer endNewOf(&tc, &rh, &rerr)
	}

	vc, err := c.enterVMem(op)
	if err != nil {
		return nil, err
	}
	defer c.life.leave()
	g, err := c.granularity(op, vc)
	if err != nil {
		return nil, err
	}
	if size == 0 || size%g != 0 {
		return nil, newError(ErrInvalidSize, op, c.adapter.name, "%d bytes is not a positive multiple of the granularity, %d", size, g)
	}
	base, err := vc.VirtualMemReserve(hint, size)
	if err != nil {
		return nil, wrapError(err, op, c.adapter.name)
	}
	v := &VirtualMem{object: object{adapter: c.adapter}, ctx: c, vc: vc, base: base, size: size, gran: g}
	v.created("VirtualMem")
	v.life.free = v.free
	return v, nil
}

func (v *VirtualMem) free() error {
	v.mu.Lock()
	defer v.mu.Unlock()
	var first error
	if v.usm != nil {
		first = v.usm.Free()
		v.usm = nil
	}
	for _, m := range v.maps {
		if err := v.vc.VirtualMemUnmap(v.base+uintptr(m.offset), m.size); err != nil && first == nil {
			first = err
		}
		m.pm.life.leave()
	}
	v.maps = nil
	if err := v.vc.VirtualMemFree(v.base, v.size); err != nil && first == nil {
		first = err
	}
	return first
}

func (v *VirtualMem) enter(op string) error {
	if v == nil {
		return nilHandle("VirtualMem", op)
	}
	return v.object.enter("VirtualMem", ErrInvalidValue, op)
}

// Release unmaps what is still mapped and frees the range
// (urVirtualMemFree). Commands using it must have completed.
func (v *VirtualMem) Release() error {
	if v == nil {
		return nilHandle("VirtualMem", "VirtualMem.Release")
	}
	return v.release("VirtualMem", ErrInvalidValue)
}

// Addr is the range's first address; 0 for a nil or released range.
func (v *VirtualMem) Addr() uintptr {
	if v.enter("VirtualMem.Addr") != nil {
		return 0
	}
	defer v.life.leave()
	return v.base
}

// Size is the range's size in bytes.
func (v *VirtualMem) Size() uint64 {
	if v.enter("VirtualMem.Size") != nil {
		return 0
	}
	defer v.life.leave()
	return v.size
}

// Granularity is what offsets and sizes in the range are multiples of.
func (v *VirtualMem) Granularity() uint64 {
	if v.enter("VirtualMem.Granularity") != nil {
		return 0
	}
	defer v.life.leave()
	return v.gran
}

// Ptr is the range as a device pointer, for kernels (Kernel.SetArgPtr)
// and USM copies and fills: the checks of a Ptr bound it by the range;
// only its mapped parts may be touched. It is nil for a released range.
func (v *VirtualMem) Ptr() Ptr {
	if v.enter("VirtualMem.Ptr") != nil {
		return Ptr{}
	}
	defer v.life.leave()
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.usm == nil {
		var dev *Device
		if len(v.ctx.devices) > 0 {
			dev = v.ctx.devices[0]
		}
		v.usm = v.ctx.newUSM(USMDevice, dev, v.base, v.size, false)
	}
	return v.usm.Ptr()
}

// PhysicalMem is device memory made to be mapped into VirtualMem ranges
// (urPhysicalMemCreate).
type PhysicalMem struct {
	object
	ctx  *Context
	dev  *Device
	drv  driver.PhysicalMem
	size uint64
}

// NewPhysicalMem makes size bytes of memory on dev, a multiple of its
// granularity (ErrInvalidSize otherwise), as urPhysicalMemCreate.
func (c *Context) NewPhysicalMem(dev *Device, size uint64) (rh *PhysicalMem, rerr error) {
	const op = "Context.NewPhysicalMem"
	if t := trace.Active(); t != nil {
		tc := beginCall(t, op, c, dev)
		tc.args.Uint("bytes", size)
		defer endNewOf(&tc, &rh, &rerr)
	}

	vc, err := c.enterVMem(op)
	if err != nil {
		return nil, err
	}
	defer c.life.leave()
	g, err := c.deviceGranularity(op, vc, dev, false)
	if err != nil {
		return nil, err
	}
	if size == 0 || g == 0 || size%g != 0 {
		return nil, newError(ErrInvalidSize, op, c.adapter.name, "%d bytes is not a positive multiple of the granularity, %d", size, g)
	}
	pm, err := vc.NewPhysicalMem(dev.drv, size)
	if err != nil {
		return nil, wrapError(err, op, c.adapter.name)
	}
	p := &PhysicalMem{object: object{adapter: c.adapter}, ctx: c, dev: dev, drv: pm, size: size}
	p.created("PhysicalMem")
	p.life.free = pm.Release
	return p, nil
}

func (p *PhysicalMem) enter(op string) error {
	if p == nil {
		return nilHandle("PhysicalMem", op)
	}
	return p.object.enter("PhysicalMem", ErrInvalidValue, op)
}

// Release frees the memory once no range maps it any more.
func (p *PhysicalMem) Release() error {
	if p == nil {
		return nilHandle("PhysicalMem", "PhysicalMem.Release")
	}
	return p.release("PhysicalMem", ErrInvalidValue)
}

// Size is the memory's size in bytes.
func (p *PhysicalMem) Size() uint64 {
	if p.enter("PhysicalMem.Size") != nil {
		return 0
	}
	defer p.life.leave()
	return p.size
}

// Device is the device the memory is on.
func (p *PhysicalMem) Device() *Device {
	if p.enter("PhysicalMem.Device") != nil {
		return nil
	}
	defer p.life.leave()
	return p.dev
}

// Native is the driver's handle (CUmemGenericAllocationHandle,
// ze_physical_mem_handle_t).
func (p *PhysicalMem) Native() uintptr {
	if p.enter("PhysicalMem.Native") != nil {
		return 0
	}
	defer p.life.leave()
	return p.drv.Native()
}

// checkRegion checks offset and size are multiples of the granularity
// and lie in the range.
func (v *VirtualMem) checkRegion(op string, offset, size uint64) error {
	if size == 0 || offset%v.gran != 0 || size%v.gran != 0 {
		return newError(ErrInvalidValue, op, v.adapter.name, "offset %d and size %d must be multiples of the granularity, %d, size not 0", offset, size, v.gran)
	}
	if offset > v.size || size > v.size-offset {
		return newError(ErrInvalidSize, op, v.adapter.name, "[%d, %d+%d) is outside the range's %d bytes", offset, offset, size, v.size)
	}
	return nil
}

func checkAccess(op, adapter string, access VirtualAccess) error {
	if access&^(VirtualAccessReadWrite|VirtualAccessReadOnly) != 0 || access == VirtualAccessReadWrite|VirtualAccessReadOnly {
		return newError(ErrInvalidEnumeration, op, adapter, "access %#x: want VirtualAccessReadWrite, VirtualAccessReadOnly or 0", uint32(access))
	}
	return nil
}

// Map maps size bytes of pm, from pmOffset, at offset in the range, with
// access for the context's devices (urVirtualMemMap). Offsets and size
// are multiples of the granularity; the region must lie in both and
// overlap no mapping of the range (ErrInvalidValue, ErrInvalidSize); pm
// must be of the range's context (ErrInvalidContext). pm stays alive
// while mapped.
func (v *VirtualMem) Map(offset, size uint64, pm *PhysicalMem, pmOffset uint64, access VirtualAccess) (rerr error) {
	const op = "VirtualMem.Map"
	if t := trace.Active(); t != nil {
		tc := beginCall(t, op, v, pm)
		tc.args.Uint("bytes", size)
		defer tc.end(&rerr)
	}

	if err := v.enter(op); err != nil {
		return err
	}
	defer v.life.leave()
	if err := v.checkRegion(op, offset, size); err != nil {
		return err
	}
	if err := checkAccess(op, v.adapter.name, access); err != nil {
		return err
	}
	if err := pm.enter(op); err != nil {
		return err
	}
	keep := false
	defer func() {
		if !keep {
			pm.life.leave()
		}
	}()
	if pm.ctx != v.ctx {
		return newError(ErrInvalidContext, op, v.adapter.name, "the physical memory belongs to another context")
	}
	if pmOffset%v.gran != 0 || pmOffset > pm.size || size > pm.size-pmOffset {
		return newError(ErrInvalidSize, op, v.adapter.name, "[%d, %d+%d) is not granular or outside the physical memory's %d bytes", pmOffset, pmOffset, size, pm.size)
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	for _, m := range v.maps {
		if offset < m.offset+m.size && m.offset < offset+size {
			return newError(ErrInvalidValue, op, v.adapter.name, "[%d, %d+%d) overlaps the mapping at [%d, %d+%d)", offset, offset, size, m.offset, m.offset, m.size)
		}
	}
	if err := v.vc.VirtualMemMap(v.base+uintptr(offset), size, pm.drv, pmOffset, access); err != nil {
		return wrapError(err, op, v.adapter.name)
	}
	keep = true
	v.maps = append(v.maps, vmap{offset: offset, size: size, pm: pm, access: access})
	sort.Slice(v.maps, func(i, j int) bool { return v.maps[i].offset < v.maps[j].offset })
	return nil
}

// find returns the index of the mapping at exactly [offset, offset+size),
// or ErrInvalidValue for op; v.mu must be held.
func (v *VirtualMem) find(op string, offset, size uint64) (int, error) {
	for i, m := range v.maps {
		if m.offset == offset && m.size == size {
			return i, nil
		}
	}
	return -1, newError(ErrInvalidValue, op, v.adapter.name, "no mapping at [%d, %d+%d)", offset, offset, size)
}

// Unmap unmaps the mapping made at offset of size bytes (urVirtualMemUnmap);
// another region is ErrInvalidValue. Commands using it must have
// completed.
func (v *VirtualMem) Unmap(offset, size uint64) (rerr error) {
	const op = "VirtualMem.Unmap"
	if t := trace.Active(); t != nil {
		tc := beginCall(t, op, v)
		defer tc.end(&rerr)
	}

	if err := v.enter(op); err != nil {
		return err
	}
	defer v.life.leave()
	if err := v.checkRegion(op, offset, size); err != nil {
		return err
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	i, err := v.find(op, offset, size)
	if err != nil {
		return err
	}
	if err := v.vc.VirtualMemUnmap(v.base+uintptr(offset), size); err != nil {
		return wrapError(err, op, v.adapter.name)
	}
	v.maps[i].pm.life.leave()
	v.maps = append(v.maps[:i], v.maps[i+1:]...)
	return nil
}

// SetAccess changes the access of the mapping at offset of size bytes
// (urVirtualMemSetAccess).
func (v *VirtualMem) SetAccess(offset, size uint64, access VirtualAccess) (rerr error) {
	const op = "VirtualMem.SetAccess"
	if t := trace.Active(); t != nil {
		tc := beginCall(t, op, v)
		defer tc.end(&rerr)
	}

	if err := v.enter(op); err != nil {
		return err
	}
	defer v.life.leave()
	if err := v.checkRegion(op, offset, size); err != nil {
		return err
	}
	if err := checkAccess(op, v.adapter.name, access); err != nil {
		return err
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	i, err := v.find(op, offset, size)
	if err != nil {
		return err
	}
	if err := v.vc.VirtualMemSetAccess(v.base+uintptr(offset), size, access); err != nil {
		return wrapError(err, op, v.adapter.name)
	}
	v.maps[i].access = access
	return nil
}

// Access is the access of the mapping holding offset
// (urVirtualMemGetInfo's UR_VIRTUAL_MEM_INFO_ACCESS_MODE); an offset not
// mapped is ErrInvalidValue.
func (v *VirtualMem) Access(offset uint64) (rv VirtualAccess, rerr error) {
	const op = "VirtualMem.Access"
	if t := trace.Active(); t != nil {
		tc := beginCall(t, op, v)
		defer tc.end(&rerr)
	}

	if err := v.enter(op); err != nil {
		return 0, err
	}
	defer v.life.leave()
	v.mu.Lock()
	defer v.mu.Unlock()
	for _, m := range v.maps {
		if offset >= m.offset && offset < m.offset+m.size {
			return m.access, nil
		}
	}
	return 0, newError(ErrInvalidValue, op, v.adapter.name, "offset %d is not mapped", offset)
}

// Mapped is the number of bytes mapped in the range.
func (v *VirtualMem) Mapped() uint64 {
	if v.enter("VirtualMem.Mapped") != nil {
		return 0
	}
	defer v.life.leave()
	v.mu.Lock()
	defer v.mu.Unlock()
	var n uint64
	for _, m := range v.maps {
		n += m.size
	}
	return n
}
