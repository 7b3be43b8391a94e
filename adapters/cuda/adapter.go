package cuda

import (
	"fmt"
	"os"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/gour-dev/gour/adapters/cuda/internal/cu"
	"github.com/gour-dev/gour/adapters/cuda/internal/nvrtc"
	"github.com/gour-dev/gour/ur/driver"
)

// Name is the backend name the adapter registers under.
const Name = "cuda"

func init() { driver.Register(Name, Open) }

type adapter struct {
	cu       *cu.Lib
	platform *platform
	// quick: prepared launches may be quick calls (driver.QuickGate). It
	// needs cuFuncLoad, to load every kernel before its first launch, and
	// GOUR_CUDA_QUICK_LAUNCH=0 turns it off, for a process whose other
	// CUDA libraries load code lazily behind gour's back.
	quick bool

	nvrtcOnce sync.Once
	nvrtc     *nvrtc.Lib
	nvrtcErr  error
}

type platform struct {
	info    driver.PlatformInfo
	devices []driver.Device
}

type device struct {
	// What a launch reads, first and together.
	ctx cu.Context // the primary context, retained for the process
	// Limits a launch is checked against.
	maxBlock [3]uint32
	maxGrid  [3]uint32

	a       *adapter
	ordinal cu.Device
	info    driver.DeviceInfo
	arch    string // "sm_90"
	// busy counts the calls in flight that can hold the context's lock for
	// long, so that a launch on another thread waits: loading and unloading
	// modules, creating (and loading) kernels, the JIT linker, and the
	// allocations and frees that synchronize (memory.go). While any is, no
	// launch is a quick call (driver.QuickGate).
	busy atomic.Int32
	// base is the adapter's device this one stands for: itself, or for a
	// view on a context another library made (ContextFromNative) the
	// device whose busy count the view shares, since both contexts sit on
	// one GPU.
	base *device
	// managed: the device has managed memory (USM shared allocations);
	// prefetch: it can migrate managed memory while kernels run
	// (CONCURRENT_MANAGED_ACCESS), without which a prefetch is a hint
	// ignored; pools: it has the stream-ordered allocator's pools;
	// concurrent: CONCURRENT_MANAGED_ACCESS itself, which a context of
	// several devices needs for managed buffers.
	managed, prefetch, pools, concurrent bool
	// stamps is the anchor of GlobalTimestamps (timestamp.go), made on
	// first use; a view has its own.
	stamps anchor
	// imageCopy is the module of image copy kernels (imagecopy.go),
	// loaded on first use; a view has its own.
	imageCopy imageCopier
}

// busyCount is the count of calls that suspend quick launches, shared by
// a device and its views.
func (d *device) busyCount() *atomic.Int32 { return &d.busyBase().busy }

// busyBase is the device whose busy count d uses.
func (d *device) busyBase() *device {
	if d.base != nil {
		return d.base
	}
	return d
}

// quickLimit is how many commands a queue may hold, pending, and still
// launch with quick calls: half of the 1021 launches an H100 stream takes
// before cuLaunchKernel waits (docs/benchmarks.md), for streams that share
// the device's hardware queues.
const quickLimit = 512

// Open loads libcuda, initialises the driver and retains each device's
// primary context. A machine without the library or a GPU gets
// driver.ErrNotAvailable with the reason.
func Open() (driver.Adapter, error) {
	lib, err := cu.Load()
	if err != nil {
		return nil, driver.NotAvailable("%s: %v", Name, err)
	}
	if r := lib.Init(0); r != cu.Success {
		lib.Close()
		if r == cu.NoDevice {
			return nil, driver.NotAvailable("%s: no device (cuInit: %s)", Name, r.Name())
		}
		return nil, driver.NotAvailable("%s: cuInit failed: %s (%d)", Name, r.Name(), int(r))
	}
	n, r := lib.DeviceGetCount()
	if r != cu.Success || n == 0 {
		lib.Close()
		return nil, driver.NotAvailable("%s: no device (cuDeviceGetCount: %s, %d devices)", Name, r.Name(), n)
	}
	version, _ := lib.DriverGetVersion()
	a := &adapter{cu: lib, quick: lib.HasFuncLoad() && os.Getenv("GOUR_CUDA_QUICK_LAUNCH") != "0"}
	a.platform = &platform{info: driver.PlatformInfo{
		Name:    "NVIDIA CUDA BACKEND",
		Vendor:  "NVIDIA Corporation",
		Version: fmt.Sprintf("CUDA %d.%d", version/1000, version%1000/10),
		Profile: "FULL_PROFILE",
	}}
	for i := range n {
		d, err := a.openDevice(i, a.platform.info.Version)
		if err != nil {
			return nil, driver.NotAvailable("%s: device %d: %v", Name, i, err)
		}
		a.platform.devices = append(a.platform.devices, d)
	}
	return a, nil
}

func (a *adapter) openDevice(ordinal int32, driverVersion string) (*device, error) {
	l := a.cu
	h, r := l.DeviceGet(ordinal)
	if err := check("cuDeviceGet", r); err != nil {
		return nil, err
	}
	ctx, r := l.DevicePrimaryCtxRetain(h)
	if err := check("cuDevicePrimaryCtxRetain", r); err != nil {
		return nil, err
	}
	d := &device{a: a, ordinal: h, ctx: ctx}
	d.base = d
	attr := func(at cu.DeviceAttribute) uint32 {
		v, _ := l.DeviceGetAttribute(at, h)
		return uint32(v)
	}
	name, _ := l.DeviceName(h)
	mem, _ := l.DeviceTotalMem(h)
	major, minor := attr(cu.DeviceAttributeComputeCapabilityMajor), attr(cu.DeviceAttributeComputeCapabilityMinor)
	d.arch = fmt.Sprintf("sm_%d%d", major, minor)
	d.maxBlock = [3]uint32{attr(cu.DeviceAttributeMaxBlockDimX), attr(cu.DeviceAttributeMaxBlockDimY), attr(cu.DeviceAttributeMaxBlockDimZ)}
	d.maxGrid = [3]uint32{attr(cu.DeviceAttributeMaxGridDimX), attr(cu.DeviceAttributeMaxGridDimY), attr(cu.DeviceAttributeMaxGridDimZ)}
	d.info = driver.DeviceInfo{
		Type:                  driver.DeviceTypeGPU,
		Name:                  name,
		Vendor:                "NVIDIA Corporation",
		VendorID:              0x10de,
		DeviceVersion:         fmt.Sprintf("%d.%d", major, minor),
		DriverVersion:         driverVersion,
		LanguageVersion:       d.arch,
		ComputeUnits:          attr(cu.DeviceAttributeMultiprocessorCount),
		MaxClockMHz:           attr(cu.DeviceAttributeClockRate) / 1000,
		GlobalMemSize:         mem,
		LocalMemSize:          uint64(attr(cu.DeviceAttributeMaxSharedMemoryPerBlock)),
		MaxMemAllocSize:       mem,
		MaxWorkGroupSize:      uint64(attr(cu.DeviceAttributeMaxThreadsPerBlock)),
		MaxWorkItemSizes:      [3]uint64{uint64(d.maxBlock[0]), uint64(d.maxBlock[1]), uint64(d.maxBlock[2])},
		AddressBits:           64,
		FP64:                  true,
		FP16:                  major*10+minor >= 53,
		ILVersions:            "PTX",
		ProfilingResolutionNS: 500, // cuEventElapsedTime's resolution is about 0.5 µs
		// cuMemAlloc, cuMemHostAlloc, cuMemAllocManaged and the pools
		// return addresses aligned to at least 256 bytes (the CUDA
		// programming guide's guarantee for device memory, which the other
		// allocators meet too); a sub-buffer whose offset keeps that
		// alignment is as aligned as any buffer kernels were written for.
		MemBaseAddrAlign:  usmAlign,
		HostUnifiedMemory: attr(cu.DeviceAttributeIntegrated) != 0,
		Native:            uintptr(h),
	}
	d.managed = attr(cu.DeviceAttributeManagedMemory) != 0
	d.concurrent = attr(cu.DeviceAttributeConcurrentManagedAccess) != 0
	d.prefetch = d.concurrent && l.HasMemPrefetch()
	d.pools = attr(cu.DeviceAttributeMemoryPoolsSupported) != 0 && l.HasMemPools()
	d.info.USM = driver.USMSupport{Device: true, Host: true, Shared: d.managed, Via: "cuda"}
	if !d.managed {
		d.info.USM.Missing = "shared allocations need managed memory (CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY is 0)"
	}
	for i := range d.info.PreferredVectorWidths {
		d.info.PreferredVectorWidths[i] = 1
		d.info.NativeVectorWidths[i] = 1
	}
	if u, r := l.DeviceGetUUID(h); r == cu.Success {
		d.info.UUID = fmt.Sprintf("GPU-%x-%x-%x-%x-%x", u[0:4], u[4:6], u[6:8], u[8:10], u[10:16])
	}
	return d, nil
}

func (a *adapter) Name() string                          { return Name }
func (a *adapter) Platforms() ([]driver.Platform, error) { return []driver.Platform{a.platform}, nil }
func (p *platform) Info() driver.PlatformInfo            { return p.info }
func (p *platform) Devices() ([]driver.Device, error)    { return p.devices, nil }
func (d *device) Info() (driver.DeviceInfo, error)       { return d.info, nil }

// bind locks the goroutine to its OS thread and makes the device's primary
// context current there; every CUDA call that needs a context runs between
// bind and unbind.
func (d *device) bind() error {
	runtime.LockOSThread()
	if r := d.a.cu.CtxSetCurrent(d.ctx); r != cu.Success {
		runtime.UnlockOSThread()
		return cuError("cuCtxSetCurrent", r)
	}
	return nil
}

func unbind() { runtime.UnlockOSThread() }

// lockThread locks the goroutine to its OS thread for calls that push a
// context of their own, until unbind.
func lockThread() { runtime.LockOSThread() }

// bindBusy is bind for a call that can hold the context's lock for long
// (device.busy), until unbindBusy.
func (d *device) bindBusy() error {
	busy := d.busyCount()
	busy.Add(1)
	if err := d.bind(); err != nil {
		busy.Add(-1)
		return err
	}
	return nil
}

func (d *device) unbindBusy() {
	unbind()
	d.busyCount().Add(-1)
}

// compiler returns NVRTC, loading it on first use: a machine without the
// CUDA toolkit can still run PTX and cubins.
func (a *adapter) compiler() (*nvrtc.Lib, error) {
	a.nvrtcOnce.Do(func() { a.nvrtc, a.nvrtcErr = nvrtc.Load() })
	if a.nvrtcErr != nil {
		return nil, driver.Errorf(driver.ResultUnsupportedFeature, "CUDA C needs NVRTC, which is not available: %v", a.nvrtcErr)
	}
	return a.nvrtc, nil
}

// NewContext returns a context on the primary context of each device:
// one CUDA context per device, as the Unified Runtime's CUDA adapter has
// (multidevice.go).
func (a *adapter) NewContext(devs []driver.Device) (driver.Context, error) {
	c := &context{dev: devs[0].(*device)}
	if len(devs) == 1 {
		return c, nil
	}
	c.managedBuffers = true
	for _, dd := range devs {
		d := dd.(*device)
		c.devs = append(c.devs, d)
		c.managedBuffers = c.managedBuffers && d.managed && d.concurrent
	}
	return c, nil
}
