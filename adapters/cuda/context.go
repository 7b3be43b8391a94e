package cuda

import (
	"time"
	"unsafe"

	"github.com/gour-dev/gour/adapters/cuda/internal/cu"
	"github.com/gour-dev/gour/ur/driver"
)

// context is a ur context on one device's primary context, which the
// adapter retains for the life of the process: releasing it frees nothing.
// A context wrapped from another library's CUcontext (native.go) has dev
// a view of the device bound to that context instead.
type context struct {
	dev *device
	// devs is every device of a context of several, dev first; nil for
	// a context of one device (multidevice.go).
	devs []*device
	// managedBuffers: a context of several devices allocates its buffers
	// as managed memory, which each device's kernels reach and the
	// driver migrates to the device that touches it.
	managedBuffers bool
	// ownedPrimary: the context wraps the primary context with a
	// reference its maker handed over (ContextFromNative with owned set),
	// released with the context.
	ownedPrimary bool
}

func (c *context) Native() uintptr { return uintptr(c.dev.ctx) }

func (c *context) Release() error {
	if !c.ownedPrimary {
		return nil
	}
	// The adapter's own reference keeps the primary context alive for the
	// queues and buffers made from this one.
	return check("cuDevicePrimaryCtxRelease", c.dev.a.cu.DevicePrimaryCtxRelease(c.dev.ordinal))
}

type mem struct {
	dev  *device
	ptr  cu.DevicePtr // kept in the struct: SetArgMem copies it from here
	size uint64
	// borrowed: the memory is another's, a sub-buffer's parent or a
	// device pointer wrapped without ownership; Release frees nothing.
	borrowed bool
	// img is set on an image (image.go), whose ptr is 0.
	img *image
}

func (c *context) NewBuffer(_ driver.MemFlags, size uint64, host []byte) (driver.Mem, error) {
	d := c.dev
	if err := d.bindBusy(); err != nil {
		return nil, err
	}
	defer d.unbindBusy()
	var ptr cu.DevicePtr
	var r cu.Result
	if c.managedBuffers {
		ptr, r = d.a.cu.MemAllocManaged(uintptr(size), cu.MemAttachGlobal)
		if err := check("cuMemAllocManaged", r); err != nil {
			return nil, err
		}
	} else {
		ptr, r = d.a.cu.MemAlloc(uintptr(size))
		if err := check("cuMemAlloc", r); err != nil {
			return nil, err
		}
	}
	if len(host) > 0 {
		// From pageable memory cuMemcpyHtoD may return before the data
		// reaches the device, on the legacy stream, which our non-blocking
		// queues do not wait for: wait for it here.
		r := d.a.cu.MemcpyHtoD(ptr, unsafe.Pointer(&host[0]), uintptr(len(host)))
		if r == cu.Success {
			r = d.a.cu.StreamSynchronize(0)
		}
		if r != cu.Success {
			d.a.cu.MemFree(ptr)
			return nil, cuError("cuMemcpyHtoD", r)
		}
	}
	return &mem{dev: d, ptr: ptr, size: size}, nil
}

// Release frees the memory. cuMemFree waits for work that uses it.
func (m *mem) Release() error {
	if m.borrowed {
		return nil
	}
	if err := m.dev.bindBusy(); err != nil {
		return err
	}
	defer m.dev.unbindBusy()
	if m.img != nil {
		return m.img.release(m.dev.a.cu)
	}
	return check("cuMemFree", m.dev.a.cu.MemFree(m.ptr))
}

func (m *mem) Size() uint64 { return m.size }

// Native is a buffer's device address, an image's CUarray.
func (m *mem) Native() uintptr {
	if m.img != nil {
		return uintptr(m.img.array)
	}
	return uintptr(m.ptr)
}

func (c *context) NewQueue(dev driver.Device, props driver.QueueProperties) (driver.Queue, error) {
	d := c.own(dev)
	if err := d.bind(); err != nil {
		return nil, err
	}
	defer unbind()
	q := &queue{dev: d, cu: d.a.cu, profiling: props.Profiling}
	if props.OutOfOrder {
		ss, err := d.newStreamSet(props.Priority)
		if err != nil {
			return nil, err
		}
		q.ooo, q.stream = ss, ss.streams[0]
	} else {
		s, err := d.newStream(props.Priority)
		if err != nil {
			return nil, err
		}
		q.stream = s
	}
	s := q.stream
	var r cu.Result
	if d.a.quick {
		q.quick = driver.NewQuickGate(d.busyCount(), quickLimit)
		q.quick.Refill()
	}
	if props.Profiling {
		// Device timestamps are elapsed times from this event, which is
		// recorded once and paired with the host clock.
		if q.base, r = d.a.cu.EventCreate(cu.EventDefault); r != cu.Success {
			q.destroyStreams()
			return nil, cuError("cuEventCreate", r)
		}
		r = d.a.cu.EventRecord(q.base, s)
		if r == cu.Success {
			r = d.a.cu.EventSynchronize(q.base)
		}
		if r != cu.Success {
			d.a.cu.EventDestroy(q.base)
			q.destroyStreams()
			return nil, cuError("cuEventRecord", r)
		}
		q.baseNS = uint64(time.Now().UnixNano())
	}
	return q, nil
}
