package cuda

import (
	"github.com/gour-dev/gour/adapters/cuda/internal/cu"
	"github.com/gour-dev/gour/ur/driver"
)

// pool is a CUDA memory pool (cuMemPoolCreate) of device memory, which
// queues allocate from and free to in stream order.
type pool struct {
	dev *device
	h   cu.MemPool
}

// NewPool creates a pool of pinned device memory on the context's device,
// without export handles. MaxSize is CUmemPoolProps.maxSize, which drivers
// older than CUDA 12.2 do not know: they refuse a non-zero one as a
// reserved field set.
func (c *context) NewPool(dev driver.Device, props driver.PoolProperties) (driver.Pool, error) {
	d := c.own(dev)
	if !d.pools {
		return nil, driver.Errorf(driver.ResultUnsupportedFeature, "the device or its CUDA driver has no memory pools (CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED, CUDA 11.2)")
	}
	if err := d.bindBusy(); err != nil {
		return nil, err
	}
	defer d.unbindBusy()
	l := d.a.cu
	h, r := l.MemPoolCreate(&cu.MemPoolProps{
		AllocType:   cu.MemAllocationTypePinned,
		HandleTypes: cu.MemHandleTypeNone,
		Location:    cu.MemLocation{Type: cu.MemLocationTypeDevice, ID: int32(d.ordinal)},
		MaxSize:     props.MaxSize,
	})
	if err := check("cuMemPoolCreate", r); err != nil {
		return nil, err
	}
	if props.ReleaseThreshold != 0 { // a new pool's threshold is 0
		if r := l.MemPoolSetAttribute(h, cu.MemPoolAttrReleaseThreshold, props.ReleaseThreshold); r != cu.Success {
			l.MemPoolDestroy(h)
			return nil, cuError("cuMemPoolSetAttribute", r)
		}
	}
	return &pool{dev: d, h: h}, nil
}

func (p *pool) Native() uintptr { return uintptr(p.h) }

// Release destroys the pool. CUDA frees it once the allocations still out
// are freed, so it never waits for them.
func (p *pool) Release() error {
	d := p.dev
	if err := d.bindBusy(); err != nil {
		return err
	}
	defer d.unbindBusy()
	return check("cuMemPoolDestroy", d.a.cu.MemPoolDestroy(p.h))
}

func (p *pool) SetReleaseThreshold(bytes uint64) error {
	d := p.dev
	if err := d.bind(); err != nil {
		return err
	}
	defer unbind()
	return check("cuMemPoolSetAttribute", d.a.cu.MemPoolSetAttribute(p.h, cu.MemPoolAttrReleaseThreshold, bytes))
}

// Trim returns memory to the driver, which unmaps it: busy, like a free.
func (p *pool) Trim(keep uint64) error {
	d := p.dev
	if err := d.bindBusy(); err != nil {
		return err
	}
	defer d.unbindBusy()
	return check("cuMemPoolTrimTo", d.a.cu.MemPoolTrimTo(p.h, uintptr(keep)))
}

func (p *pool) Usage() (reserved, used uint64, err error) {
	d := p.dev
	if err := d.bind(); err != nil {
		return 0, 0, err
	}
	defer unbind()
	l := d.a.cu
	reserved, r := l.MemPoolGetAttribute(p.h, cu.MemPoolAttrReservedMemCurrent)
	if err := check("cuMemPoolGetAttribute", r); err != nil {
		return 0, 0, err
	}
	used, r = l.MemPoolGetAttribute(p.h, cu.MemPoolAttrUsedMemCurrent)
	return reserved, used, check("cuMemPoolGetAttribute", r)
}

// AllocAsync is cuMemAllocFromPoolAsync on the queue's stream: the memory
// is usable by what the stream runs after it. It neither synchronizes nor
// waits, so it takes the plain bind and launches stay quick around it.
func (q *queue) AllocAsync(dp driver.Pool, size uint64, wait []driver.Event, wantEvent bool) (uintptr, driver.Event, error) {
	h := dp.(*pool).h
	var ptr cu.DevicePtr
	ev, err := q.enqueue("cuMemAllocFromPoolAsync", false, wait, wantEvent, func(s cu.Stream) cu.Result {
		p, r := q.cu.MemAllocFromPoolAsync(uintptr(size), h, s)
		ptr = p
		return r
	})
	if err != nil {
		return 0, nil, err
	}
	return uintptr(ptr), ev, nil
}

// FreeAsync is cuMemFreeAsync on the queue's stream: the memory returns to
// its pool when the stream reaches the free.
func (q *queue) FreeAsync(ptr uintptr, wait []driver.Event, wantEvent bool) (driver.Event, error) {
	return q.enqueue("cuMemFreeAsync", false, wait, wantEvent, func(s cu.Stream) cu.Result {
		return q.cu.MemFreeAsync(cu.DevicePtr(ptr), s)
	})
}
