package opencl

import (
	"cmp"
	"math"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/gour-dev/gour/adapters/opencl/internal/cl"
	"github.com/gour-dev/gour/ur/driver"
)

// Names of the USM mechanisms, as driver.USMSupport.Via reports them.
const (
	viaIntelUSM = "cl_intel_unified_shared_memory"
	viaSVM      = "svm"
)

// svmAllocTries is how many times a NULL from clSVMAlloc is tried again
// before it is reported as out of memory.
const svmAllocTries = 4

// memoryInfo fills the memory model's part of d's info: the base address
// alignment, host-unified memory and USM support. Intel's extension is
// preferred to SVM: it has device, host and shared kinds with pointer
// queries, where SVM has one context-wide kind and no query.
func (d *device) memoryInfo() {
	lib := d.p.a.lib
	info := &d.info
	if b, st := lib.DeviceInfo(d.handle, cl.DeviceMemBaseAddrAlign); st == cl.Success {
		info.MemBaseAddrAlign = uint64(cl.Uint32(b)) / 8 // bits, in OpenCL
	}
	if b, st := lib.DeviceInfo(d.handle, cl.DeviceHostUnifiedMemory); st == cl.Success {
		info.HostUnifiedMemory = cl.Uint32(b) != 0
	}
	if b, st := lib.DeviceInfo(d.handle, cl.DeviceSVMCapabilities); st == cl.Success {
		d.svm = cl.Uint64(b) // an OpenCL 1.x device answers CL_INVALID_VALUE: none
	}
	if strings.Contains(" "+info.Extensions+" ", " "+viaIntelUSM+" ") && d.p.intelUSM() != nil {
		caps := func(param uint32) bool {
			b, st := lib.DeviceInfo(d.handle, param)
			return st == cl.Success && cl.Uint64(b) != 0
		}
		info.USM = driver.USMSupport{
			Device: caps(cl.DeviceDeviceMemCapabilitiesINTEL),
			Host:   caps(cl.DeviceHostMemCapabilitiesINTEL),
			Shared: caps(cl.DeviceSingleDeviceSharedMemCapabilitiesINTEL),
			Via:    viaIntelUSM,
		}
		d.intel = true
		return
	}
	switch {
	case d.svm&cl.DeviceSVMCoarseGrainBuffer != 0 && lib.HasSVM():
		// Coarse-grained SVM needs clEnqueueSVMMap before the host touches
		// it, which USM's host and shared kinds do not ask for: they are
		// offered only where fine-grained buffers make the map needless.
		fine := d.svm&cl.DeviceSVMFineGrainBuffer != 0
		info.USM = driver.USMSupport{Device: true, Host: fine, Shared: fine, Via: viaSVM}
		if !fine {
			info.USM.Missing = "host and shared allocations need fine-grained buffer SVM (CL_DEVICE_SVM_FINE_GRAIN_BUFFER)"
		}
	case d.svm&cl.DeviceSVMCoarseGrainBuffer != 0:
		info.USM.Missing = "the OpenCL loader has no clSVMAlloc (an OpenCL 1.2 loader)"
	default:
		info.USM.Missing = "neither cl_intel_unified_shared_memory nor SVM (OpenCL 2.0)"
	}
}

// intelUSM resolves the platform's cl_intel_unified_shared_memory entry
// points once; nil where the platform does not give them all.
func (p *platform) intelUSM() *cl.USMINTEL {
	p.usmOnce.Do(func() { p.usm = p.a.lib.LoadUSMINTEL(p.handle) })
	return p.usm
}

// usmVia is how a context provides USM.
type usmVia uint8

const (
	usmNone  usmVia = iota
	usmIntel        // cl_intel_unified_shared_memory
	usmSVM          // OpenCL 2.0 shared virtual memory
)

// newContext wraps a cl_context over devs (of one platform) and picks its
// USM mechanism: Intel's where every device has it, else SVM where every
// device has coarse-grained SVM (fine-grained on all of them for the host
// and shared kinds).
func (a *adapter) newContext(h cl.Context, devs []driver.Device) *context {
	c := &context{a: a, handle: h, devices: make(map[cl.Device]*device, len(devs))}
	intel, svm, fine, migrate := true, true, true, a.lib.HasSVMMigrate()
	for _, dd := range devs {
		d := dd.(*device)
		c.devices[d.handle] = d
		c.order = append(c.order, d)
		c.subDevices = c.subDevices || d.parent != nil
		intel = intel && d.intel
		svm = svm && d.info.USM.Via == viaSVM
		fine = fine && d.info.USM.Shared
		// clEnqueueSVMMigrateMem is 2.1: a 2.0 driver's dispatch table
		// may lack it even where the loader exports it.
		migrate = migrate && !strings.HasPrefix(d.info.DeviceVersion, "OpenCL 2.0")
	}
	switch {
	case intel && len(devs) > 0:
		c.via, c.intel = usmIntel, devs[0].(*device).p.intelUSM()
	case svm && len(devs) > 0:
		c.via, c.svmFine, c.svmMigrate = usmSVM, fine, migrate
	}
	return c
}

// svmAlloc is one SVM allocation the context made. SVM has no pointer
// query, so the context remembers what USMPointerInfo answers.
type svmAlloc struct {
	base uintptr
	real uintptr // what clSVMAlloc returned: base, unless base was aligned up inside it
	size uint64
	kind driver.USMKind
	dev  driver.Device
}

// svmTable holds a context's SVM allocations sorted by base address, so
// that a pointer into the middle of one is found by binary search.
type svmTable struct {
	mu     sync.Mutex
	allocs []svmAlloc
}

func (t *svmTable) add(a svmAlloc) {
	t.mu.Lock()
	defer t.mu.Unlock()
	i, _ := slices.BinarySearchFunc(t.allocs, a.base, func(e svmAlloc, b uintptr) int { return cmp.Compare(e.base, b) })
	t.allocs = slices.Insert(t.allocs, i, a)
}

// remove forgets the allocation at base and returns it.
func (t *svmTable) remove(base uintptr) (svmAlloc, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	i, ok := slices.BinarySearchFunc(t.allocs, base, func(e svmAlloc, b uintptr) int { return cmp.Compare(e.base, b) })
	if !ok {
		return svmAlloc{}, false
	}
	a := t.allocs[i]
	t.allocs = slices.Delete(t.allocs, i, i+1)
	return a, true
}

// find returns the allocation ptr lies in.
func (t *svmTable) find(ptr uintptr) (svmAlloc, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	// The last allocation starting at or before ptr.
	i, ok := slices.BinarySearchFunc(t.allocs, ptr, func(e svmAlloc, p uintptr) int { return cmp.Compare(e.base, p) })
	if !ok {
		i--
	}
	if i < 0 {
		return svmAlloc{}, false
	}
	a := t.allocs[i]
	return a, uint64(ptr-a.base) < a.size
}

func (c *context) noUSM() error {
	return driver.Errorf(driver.ResultUnsupportedFeature,
		"the context's devices share neither cl_intel_unified_shared_memory nor SVM (OpenCL 2.0)")
}

// USMAlloc allocates with Intel's extension, or with clSVMAlloc: device
// memory is coarse-grained SVM, host and shared memory fine-grained (SVM
// does not tell them apart: both live in host-visible memory the device
// reaches).
func (c *context) USMAlloc(kind driver.USMKind, dev driver.Device, size, alignment uint64) (uintptr, error) {
	if alignment > math.MaxUint32 {
		return 0, driver.Errorf(driver.ResultUnsupportedAlignment, "alignment %d does not fit OpenCL's cl_uint", alignment)
	}
	var dh cl.Device
	if dev != nil {
		dh = dev.(*device).handle
	}
	switch c.via {
	case usmIntel:
		var (
			p  uintptr
			st cl.Status
			fn string
		)
		switch kind {
		case driver.USMDevice:
			p, st = c.intel.DeviceMemAlloc(c.handle, dh, uintptr(size), uint32(alignment))
			fn = "clDeviceMemAllocINTEL"
		case driver.USMHost:
			p, st = c.intel.HostMemAlloc(c.handle, uintptr(size), uint32(alignment))
			fn = "clHostMemAllocINTEL"
		case driver.USMShared:
			p, st = c.intel.SharedMemAlloc(c.handle, dh, uintptr(size), uint32(alignment))
			fn = "clSharedMemAllocINTEL"
		default:
			return 0, driver.Errorf(driver.ResultInvalidValue, "USM kind %v", kind)
		}
		if err := check(fn, st); err != nil {
			return 0, err
		}
		if p == 0 {
			return 0, driver.Errorf(driver.ResultOutOfDeviceMemory, "%s returned NULL for %d bytes", fn, size)
		}
		if alignment > 1 && p%uintptr(alignment) != 0 {
			// The extension promises alignments up to the largest data
			// type only, and drivers (PoCL 5) ignore larger ones.
			c.intel.MemFree(c.handle, p)
			return 0, driver.Errorf(driver.ResultUnsupportedAlignment,
				"%s gave %#x for an alignment of %d: the driver aligns only to its largest data type", fn, p, alignment)
		}
		if c.subDevices && dev != nil {
			c.usmDevs.Store(p, dev)
		}
		return p, nil
	case usmSVM:
		flags := uint64(cl.MemReadWrite)
		switch kind {
		case driver.USMDevice:
		case driver.USMHost, driver.USMShared:
			if !c.svmFine {
				return 0, driver.Errorf(driver.ResultUnsupportedFeature,
					"%v allocations need fine-grained buffer SVM, which a device of the context lacks", kind)
			}
			flags |= cl.MemSVMFineGrainBuffer
		default:
			return 0, driver.Errorf(driver.ResultInvalidValue, "USM kind %v", kind)
		}
		var p, real uintptr
		for try := range svmAllocTries {
			if try > 0 {
				// NVIDIA's clSVMAlloc (driver 580) now and then returns NULL
				// for a small allocation while other threads make and
				// release contexts, with memory to spare; a moment later
				// the same call succeeds. A real shortage fails every try.
				time.Sleep(time.Duration(try) * time.Millisecond)
			}
			p = c.a.lib.SVMAlloc(c.handle, flags, uintptr(size), uint32(alignment))
			real = p
			if p == 0 && alignment > 1 && size <= math.MaxUint64-alignment {
				// Drivers may refuse alignments past their largest data
				// type's (PoCL does): allocate that much more at the default
				// alignment and align up inside, freeing the real base later.
				real = c.a.lib.SVMAlloc(c.handle, flags, uintptr(size+alignment-1), 0)
				p = (real + uintptr(alignment-1)) &^ uintptr(alignment-1)
			}
			if real != 0 {
				break
			}
		}
		if real == 0 {
			// clSVMAlloc gives no code: too large, a bad alignment or no
			// memory all return NULL.
			return 0, driver.Errorf(driver.ResultOutOfDeviceMemory,
				"clSVMAlloc returned NULL for %d bytes aligned to %d (no memory, or more than the device allows)", size, alignment)
		}
		c.svm.add(svmAlloc{base: p, real: real, size: size, kind: kind, dev: dev})
		return p, nil
	}
	return 0, c.noUSM()
}

// USMFree frees with clMemBlockingFreeINTEL, which waits for the commands
// still using the memory: a free that returned at once would let the
// driver reuse pages a running kernel still writes, and the wait is what
// Intel's own Unified Runtime adapter does. SVM's clSVMFree does not wait
// (clEnqueueSVMFree would, on one queue only), and PoCL's fill of memory
// freed under it corrupted the process's heap: the free first waits for
// every queue of the context (finishAll), as CUDA's cuMemFree waits for
// the device.
func (c *context) USMFree(ptr uintptr) error {
	switch c.via {
	case usmIntel:
		fn := "clMemBlockingFreeINTEL"
		if !c.intel.BlockingFree() {
			fn = "clMemFreeINTEL"
		}
		if err := check(fn, c.intel.MemFree(c.handle, ptr)); err != nil {
			return err
		}
		if c.subDevices {
			c.usmDevs.Delete(ptr)
		}
		return nil
	case usmSVM:
		a, ok := c.svm.remove(ptr)
		if !ok {
			return driver.Errorf(driver.ResultInvalidMemObject, "%#x is not the start of an SVM allocation of this context", ptr)
		}
		c.finishAll()
		c.a.lib.SVMFree(c.handle, a.real)
		return nil
	}
	return c.noUSM()
}

// USMPointerInfo asks clGetMemAllocInfoINTEL, or the context's record of
// its SVM allocations. Memory the driver (or, for SVM, this context) did
// not allocate is USMUnknown, not an error.
func (c *context) USMPointerInfo(ptr uintptr) (driver.USMPointerInfo, error) {
	switch c.via {
	case usmIntel:
		t, st := c.intel.MemAllocInfo(c.handle, ptr, cl.MemAllocTypeINTEL)
		if err := check("clGetMemAllocInfoINTEL", st); err != nil {
			return driver.USMPointerInfo{}, err
		}
		var info driver.USMPointerInfo
		switch uint32(t) {
		case cl.MemTypeDeviceINTEL:
			info.Kind = driver.USMDevice
		case cl.MemTypeHostINTEL:
			info.Kind = driver.USMHost
		case cl.MemTypeSharedINTEL:
			info.Kind = driver.USMShared
		default:
			return info, nil
		}
		base, st := c.intel.MemAllocInfo(c.handle, ptr, cl.MemAllocBasePtrINTEL)
		if err := check("clGetMemAllocInfoINTEL", st); err != nil {
			return driver.USMPointerInfo{}, err
		}
		size, st := c.intel.MemAllocInfo(c.handle, ptr, cl.MemAllocSizeINTEL)
		if err := check("clGetMemAllocInfoINTEL", st); err != nil {
			return driver.USMPointerInfo{}, err
		}
		info.Base, info.Size = base, uint64(size)
		if dh, st := c.intel.MemAllocInfo(c.handle, ptr, cl.MemAllocDeviceINTEL); st == cl.Success {
			if d, ok := c.devices[cl.Device(dh)]; ok {
				info.Device = d
			}
		}
		if info.Device == nil && c.subDevices {
			// PoCL 5.0 answers CL_MEM_ALLOC_DEVICE_INTEL for a
			// sub-device's allocation with no device of the context
			// (it names sub-devices' programs by their parent too,
			// subdevice.go): the allocation's record says which.
			if d, ok := c.usmDevs.Load(base); ok {
				info.Device = d.(driver.Device)
			}
		}
		return info, nil
	case usmSVM:
		a, ok := c.svm.find(ptr)
		if !ok {
			return driver.USMPointerInfo{}, nil
		}
		return driver.USMPointerInfo{Kind: a.kind, Device: a.dev, Base: a.base, Size: a.size}, nil
	}
	return driver.USMPointerInfo{}, c.noUSM()
}

// hostAccessible reports whether the host may read and write ptr
// directly, as the host-pointer calls (clEnqueueReadBufferRect) need:
// ordinary host memory, and host and shared USM (fine-grained where it is
// SVM).
func (c *context) hostAccessible(ptr uintptr) (bool, error) {
	if c.via == usmNone {
		return true, nil // no USM: only host memory reaches the adapter
	}
	info, err := c.USMPointerInfo(ptr)
	if err != nil {
		return false, err
	}
	return info.Kind != driver.USMDevice, nil
}

// accessFlags maps the front end's access flags to cl_mem_flags.
func accessFlags(flags driver.MemFlags) uint64 {
	switch flags {
	case driver.MemReadOnly:
		return cl.MemReadOnly
	case driver.MemWriteOnly:
		return cl.MemWriteOnly
	}
	return cl.MemReadWrite
}

// NewSubBuffer is clCreateSubBuffer over a region of m. OpenCL keeps the
// parent alive while the view lives; the front end holds it too.
func (m *mem) NewSubBuffer(flags driver.MemFlags, offset, size uint64) (driver.Mem, error) {
	h, st := m.lib.CreateSubBuffer(m.handle, accessFlags(flags), uintptr(offset), uintptr(size))
	if err := check("clCreateSubBuffer", st); err != nil {
		return nil, err
	}
	return &mem{lib: m.lib, handle: h, size: size}, nil
}

// The memory model's interfaces the adapter implements. It has no
// driver.HostRegisterContext (OpenCL cannot page-lock memory it did not
// allocate), driver.PoolContext or driver.MemoryReporter.
var (
	_ driver.USMContext    = (*context)(nil)
	_ driver.NativeContext = (*context)(nil)
	_ driver.NativeWrapper = (*adapter)(nil)
	_ driver.USMQueue      = (*queue)(nil)
	_ driver.MarkerQueue   = (*queue)(nil)
	_ driver.RectQueue     = (*queue)(nil)
	_ driver.PointerKernel = (*kernel)(nil)
	_ driver.SubBufferMem  = (*mem)(nil)
)
