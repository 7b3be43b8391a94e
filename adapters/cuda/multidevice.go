package cuda

import (
	"strings"

	"github.com/gour-dev/gour/adapters/cuda/internal/cu"
	"github.com/gour-dev/gour/ur/driver"
)

// A context of several devices, as the Unified Runtime's CUDA adapter
// makes one: a CUDA context belongs to one device, so the ur context holds
// the primary context of each of its devices (context.devs) and every
// object is made in the context of the device it is for. Queues, pools,
// command buffers and USM device and shared allocations are made on the
// device asked for; host allocations are portable (pinned for every
// context). A program loads a module on each device, from one cubin where
// the devices share an architecture, compiled again for each other
// architecture; a kernel holds a CUfunction per device and a launch takes
// the one of its queue's device. Events of one device's queue order
// another device's stream through cuStreamWaitEvent, which takes events
// of any context.
//
// Buffers are one allocation the devices share, so that a kernel argument
// is one address whatever the device: managed memory where every device
// runs kernels on managed memory concurrently with the host
// (CONCURRENT_MANAGED_ACCESS, Linux on Pascal and later), which the driver
// migrates to the device that touches it; elsewhere device memory of the
// first device, which the others' kernels reach once peer access is
// enabled (Device.EnablePeerAccess) and copies reach always.

var (
	_ driver.PeerDevice    = (*device)(nil)
	_ driver.PeerCopyQueue = (*queue)(nil)
)

// own is the context's device for dev: the device itself in a context of
// several, c.dev (which may be a view of another library's context) in a
// context of one, and for nil.
func (c *context) own(dev driver.Device) *device {
	if dev == nil || len(c.devs) == 0 {
		return c.dev
	}
	for _, d := range c.devs {
		if driver.Device(d) == dev {
			return d
		}
	}
	return c.dev
}

// ownerOf is the context's device whose context allocated ptr, for the
// calls that must run there (cuMemFree); c.dev where the driver does not
// say or the device is not the context's.
func (c *context) ownerOf(ptr uintptr) *device {
	if len(c.devs) == 0 || c.dev.bind() != nil {
		return c.dev
	}
	v, r := c.dev.a.cu.PointerGetAttributes(ordinalAttr, cu.DevicePtr(ptr))
	unbind()
	if r != cu.Success {
		return c.dev
	}
	for _, d := range c.devs {
		if int32(d.ordinal) == int32(uint32(v[0])) {
			return d
		}
	}
	return c.dev
}

var ordinalAttr = []cu.PointerAttribute{cu.PointerAttributeDeviceOrdinal}

// devModule is a program's binary and module on one of its other devices.
type devModule struct {
	dev    *device
	binary []byte
	module cu.Module
}

// target makes devs (of c) the program's devices: the first is p.dev, the
// others get a module each when the program is built. The caller holds
// p.mu or owns p.
func (p *program) target(c *context, devs []driver.Device) {
	p.dev = c.own(devs[0])
	p.others = p.others[:0]
	for _, dd := range devs[1:] {
		p.others = append(p.others, devModule{dev: c.own(dd)})
	}
}

// deviceOf is the program's device for dev: p.dev or one of the others.
func (p *program) deviceOf(dev driver.Device) *device {
	for _, o := range p.others {
		if driver.Device(o.dev) == dev {
			return o.dev
		}
	}
	return p.dev
}

// buildOthers gives each other device its binary (binaryFor, unless one
// was given) and loads it there. The caller holds p.mu.
func (p *program) buildOthers(options string) error {
	for i := range p.others {
		o := &p.others[i]
		if o.module != 0 {
			continue
		}
		if o.binary == nil {
			bin, err := p.binaryFor(o.dev, options)
			if err != nil {
				return err
			}
			o.binary = bin
		}
		m, err := loadModule(o.dev, o.binary)
		if err != nil {
			return err
		}
		o.module = m
	}
	return nil
}

// binaryFor is the binary for d, another device of the program: the first
// device's cubin where d has its architecture (two H100s: one compile),
// else CUDA C compiled again for d's architecture, or the PTX JIT-linked
// on d; a cubin or fatbin given as it is, which loads where it holds code
// for d.
func (p *program) binaryFor(d *device, options string) ([]byte, error) {
	switch {
	case d.arch == p.dev.arch:
		return p.binary, nil
	case p.kind == fromCUDAC && !hasArch(strings.Fields(options)):
		ptx, cubin, err := p.compile(d, options, false)
		if err != nil {
			return nil, err
		}
		if cubin != nil {
			return cubin, nil
		}
		saved := p.ptx
		p.ptx = ptx
		defer func() { p.ptx = saved }()
		return p.jitOn(d, options)
	case p.ptx != nil:
		return p.jitOn(d, options)
	}
	return p.binary, nil
}

// unloadOthers unloads the other devices' modules. The caller holds p.mu.
func (p *program) unloadOthers() error {
	var first error
	for i := range p.others {
		o := &p.others[i]
		if o.module == 0 {
			continue
		}
		if err := o.dev.bindBusy(); err != nil {
			return err
		}
		if err := check("cuModuleUnload", o.dev.a.cu.ModuleUnload(o.module)); err != nil && first == nil {
			first = err
		}
		o.dev.unbindBusy()
		o.module = 0
	}
	return first
}

// kernelOn is a kernel's function on another device of its program.
type kernelOn struct {
	dev    *device
	fn     cu.Function
	shared *funcShared
}

// loadOthers finds the kernel's function in each other module of its
// program. The caller holds p.mu.
func (k *kernel) loadOthers() error {
	p := k.p
	l := p.dev.a.cu
	for _, o := range p.others {
		if o.module == 0 {
			continue
		}
		if err := o.dev.bindBusy(); err != nil {
			return err
		}
		fn, r := l.ModuleGetFunction(o.module, k.name)
		if r == cu.Success && p.dev.a.quick {
			r = l.FuncLoad(fn)
		}
		if r != cu.Success {
			o.dev.unbindBusy()
			e := cuError("cuModuleGetFunction", r)
			e.Message += " for kernel " + k.name + " on " + o.dev.info.Name
			return e
		}
		if threads, r := l.FuncGetAttribute(cu.FuncAttributeMaxThreadsPerBlock, fn); r == cu.Success && uint32(threads) < k.maxThreads {
			k.maxThreads = uint32(threads) // a launch is checked once, for any device
		}
		k.on = append(k.on, kernelOn{dev: o.dev, fn: fn, shared: p.sharedOf(fn)})
		o.dev.unbindBusy()
	}
	return nil
}

// fnOn is the kernel's function on d: k.fn on the program's first device
// (every device of a context of one).
func (k *kernel) fnOn(d *device) cu.Function {
	if d == k.p.dev || len(k.on) == 0 {
		return k.fn
	}
	for i := range k.on {
		if k.on[i].dev == d {
			return k.on[i].fn
		}
	}
	return k.fn
}

// sharedOn is the dynamic shared memory limit of the kernel's function on d.
func (k *kernel) sharedOn(d *device) *funcShared {
	if d == k.p.dev || len(k.on) == 0 {
		return k.shared
	}
	for i := range k.on {
		if k.on[i].dev == d {
			return k.on[i].shared
		}
	}
	return k.shared
}

// PeerAccess is cuDeviceCanAccessPeer, with native atomics from
// cuDeviceGetP2PAttribute. CUDA does not say whether the path is NVLink
// or PCIe: Via is "p2p".
func (d *device) PeerAccess(peer driver.Device) (driver.PeerAccess, error) {
	p := peer.(*device)
	l := d.a.cu
	if !l.HasPeerAccess() {
		return driver.PeerAccess{Via: "host"}, nil
	}
	ok, r := l.DeviceCanAccessPeer(d.ordinal, p.ordinal)
	if err := check("cuDeviceCanAccessPeer", r); err != nil {
		return driver.PeerAccess{}, err
	}
	if !ok {
		return driver.PeerAccess{Via: "host"}, nil
	}
	atomics, r := l.DeviceGetP2PAttribute(cu.P2PAttributeNativeAtomicSupported, d.ordinal, p.ordinal)
	return driver.PeerAccess{Supported: true, Atomics: r == cu.Success && atomics != 0, NeedsEnable: true, Via: "p2p"}, nil
}

// EnablePeerAccess maps peer's primary context into d's
// (cuCtxEnablePeerAccess); enabling it twice is no error.
func (d *device) EnablePeerAccess(peer driver.Device) error {
	if err := d.bind(); err != nil {
		return err
	}
	defer unbind()
	r := d.a.cu.CtxEnablePeerAccess(peer.(*device).ctx)
	if r == cu.PeerAccessAlreadyEnabled {
		return nil
	}
	return check("cuCtxEnablePeerAccess", r)
}

// DisablePeerAccess is cuCtxDisablePeerAccess; disabling access never
// enabled is no error.
func (d *device) DisablePeerAccess(peer driver.Device) error {
	if err := d.bind(); err != nil {
		return err
	}
	defer unbind()
	r := d.a.cu.CtxDisablePeerAccess(peer.(*device).ctx)
	if r == cu.PeerAccessNotEnabled {
		return nil
	}
	return check("cuCtxDisablePeerAccess", r)
}

// CopyPeer is cuMemcpyPeerAsync between the two devices' contexts: over
// NVLink or PCIe where peer access is enabled, staged by the driver where
// not. Without it (a driver of the stub kind) cuMemcpyAsync, which unified
// addressing lets copy between any two devices too.
func (q *queue) CopyPeer(dst uintptr, dstCtx driver.Context, dstDev driver.Device, src uintptr, srcCtx driver.Context, srcDev driver.Device, size uint64, wait []driver.Event, wantEvent bool) (driver.Event, error) {
	dd, sd := dstCtx.(*context).own(dstDev), srcCtx.(*context).own(srcDev)
	if !q.cu.HasMemcpyPeer() {
		return q.enqueue("cuMemcpyAsync", false, wait, wantEvent, func(s cu.Stream) cu.Result {
			return q.cu.MemcpyAsync(cu.DevicePtr(dst), cu.DevicePtr(src), uintptr(size), s)
		})
	}
	return q.enqueue("cuMemcpyPeerAsync", false, wait, wantEvent, func(s cu.Stream) cu.Result {
		return q.cu.MemcpyPeerAsync(cu.DevicePtr(dst), dd.ctx, cu.DevicePtr(src), sd.ctx, uintptr(size), s)
	})
}

// CopyPeerBuffer is CopyPeer for two buffers, each on the first device of
// its context.
func (q *queue) CopyPeerBuffer(dst driver.Mem, dstOffset uint64, dstCtx driver.Context, src driver.Mem, srcOffset uint64, srcCtx driver.Context, size uint64, wait []driver.Event, wantEvent bool) (driver.Event, error) {
	dm, sm := dst.(*mem), src.(*mem)
	return q.CopyPeer(uintptr(dm.ptr)+uintptr(dstOffset), dstCtx, dm.dev, uintptr(sm.ptr)+uintptr(srcOffset), srcCtx, sm.dev, size, wait, wantEvent)
}
