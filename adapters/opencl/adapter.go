package opencl

import (
	"strings"
	"sync"

	"github.com/gour-dev/gour/adapters/opencl/internal/cl"
	"github.com/gour-dev/gour/ur/driver"
)

// Name is the backend name the adapter registers under.
const Name = "opencl"

func init() { driver.Register(Name, Open) }

type adapter struct {
	lib       *cl.Lib
	platforms []driver.Platform
}

type platform struct {
	a       *adapter
	handle  cl.Platform
	info    driver.PlatformInfo
	devices []driver.Device
	// guard: launches of one kernel go to one queue at a time
	// (poclguard.go).
	guard bool

	usmOnce sync.Once
	usm     *cl.USMINTEL // nil where the platform lacks the extension

	extOnce sync.Once // suggest and global (kernelattrs.go)
	suggest uintptr   // clGetKernelSuggestedLocalWorkSizeKHR, or 0
	global  uintptr   // clGetDeviceGlobalVariablePointerINTEL, or 0

	cbOnce sync.Once
	cb     *cl.CommandBufferKHR // cl_khr_command_buffer, or nil (cmdbuf.go)
}

type device struct {
	p      *platform
	handle cl.Device
	info   driver.DeviceInfo
	svm    uint64 // CL_DEVICE_SVM_CAPABILITIES
	intel  bool   // USM through cl_intel_unified_shared_memory
	// parent and partition are set for a sub-device (subdevice.go).
	parent    *device
	partition driver.Partition
	// timer is the private profiling queue of markerTimestamps
	// (timestamp.go), made on first use.
	timer timerQueue
	// defaultCtx: a GPU's cl_context, shared by its ur contexts
	// (defaultctx.go).
	defaultCtx defaultContext
}

// Open loads libOpenCL and enumerates its platforms and devices. It reports
// driver.ErrNotAvailable when the library, a platform or a device is
// missing.
func Open() (driver.Adapter, error) {
	lib, err := cl.Load()
	if err != nil {
		return nil, driver.NotAvailable("%s: %v", Name, err)
	}
	a := &adapter{lib: lib}
	ids, st := lib.PlatformIDs()
	if st != cl.Success || len(ids) == 0 {
		lib.Close()
		if st == cl.Success {
			return nil, driver.NotAvailable("%s: no platform (no ICD registered in /etc/OpenCL/vendors?)", Name)
		}
		return nil, driver.NotAvailable("%s: no platform: clGetPlatformIDs returned %s (%d)", Name, st.Name(), int(st))
	}
	var all []*device
	for _, id := range ids {
		p := &platform{a: a, handle: id}
		p.info = driver.PlatformInfo{
			Name:       a.platformString(id, cl.PlatformName),
			Vendor:     a.platformString(id, cl.PlatformVendor),
			Version:    a.platformString(id, cl.PlatformVersion),
			Profile:    a.platformString(id, cl.PlatformProfile),
			Extensions: a.platformString(id, cl.PlatformExtensions),
		}
		p.guard = p.guardsLaunches()
		devs, st := lib.DeviceIDs(id, cl.DeviceTypeAll)
		if st != cl.Success && st != cl.DeviceNotFound {
			continue // a broken ICD must not hide the others
		}
		for _, h := range devs {
			d := &device{p: p, handle: h}
			d.info = a.deviceInfo(h)
			d.memoryInfo()
			p.devices = append(p.devices, d)
			all = append(all, d)
		}
		a.platforms = append(a.platforms, p)
	}
	if len(all) == 0 {
		lib.Close()
		return nil, driver.NotAvailable("%s: %d platform(s) but no device", Name, len(ids))
	}
	makeDefaultContexts(all)
	return a, nil
}

func (a *adapter) Name() string                          { return Name }
func (a *adapter) Platforms() ([]driver.Platform, error) { return a.platforms, nil }

func (p *platform) Info() driver.PlatformInfo         { return p.info }
func (p *platform) Devices() ([]driver.Device, error) { return p.devices, nil }
func (d *device) Info() (driver.DeviceInfo, error)    { return d.info, nil }
func (a *adapter) platformString(p cl.Platform, param uint32) string {
	b, _ := a.lib.PlatformInfo(p, param)
	return strings.TrimSpace(cl.CString(b))
}

// deviceInfo reads every property gour reports. A property the driver does
// not know (an older OpenCL version) is left at its zero value.
func (a *adapter) deviceInfo(d cl.Device) driver.DeviceInfo {
	str := func(param uint32) string {
		b, _ := a.lib.DeviceInfo(d, param)
		return strings.TrimSpace(cl.CString(b))
	}
	u32 := func(param uint32) uint32 {
		b, st := a.lib.DeviceInfo(d, param)
		if st != cl.Success || len(b) < 4 {
			return 0
		}
		return cl.Uint32(b)
	}
	u64 := func(param uint32) uint64 {
		b, st := a.lib.DeviceInfo(d, param)
		if st != cl.Success || len(b) < 8 {
			return 0
		}
		return cl.Uint64(b)
	}
	info := driver.DeviceInfo{
		Name:                  str(cl.DeviceName),
		Vendor:                str(cl.DeviceVendor),
		VendorID:              u32(cl.DeviceVendorID),
		DeviceVersion:         str(cl.DeviceVersion),
		DriverVersion:         str(cl.DriverVersion),
		LanguageVersion:       str(cl.DeviceOpenCLCVersion),
		ComputeUnits:          u32(cl.DeviceMaxComputeUnits),
		MaxClockMHz:           u32(cl.DeviceMaxClockFrequency),
		GlobalMemSize:         u64(cl.DeviceGlobalMemSize),
		LocalMemSize:          u64(cl.DeviceLocalMemSize),
		MaxMemAllocSize:       u64(cl.DeviceMaxMemAllocSize),
		AddressBits:           u32(cl.DeviceAddressBits),
		FP64:                  u64(cl.DeviceDoubleFPConfig) != 0,
		ILVersions:            str(cl.DeviceILVersion),
		Extensions:            str(cl.DeviceExtensions),
		ProfilingResolutionNS: u64(cl.DeviceProfilingTimerResolution),
		Native:                uintptr(d),
	}
	if b, st := a.lib.DeviceInfo(d, cl.DeviceMaxWorkGroupSize); st == cl.Success {
		info.MaxWorkGroupSize = uint64(cl.Uintptr(b))
	}
	if b, st := a.lib.DeviceInfo(d, cl.DeviceMaxWorkItemSizes); st == cl.Success {
		for i, s := range cl.Uintptrs(b) {
			if i < 3 {
				info.MaxWorkItemSizes[i] = uint64(s)
			}
		}
	}
	info.FP16 = strings.Contains(info.Extensions, "cl_khr_fp16")
	switch t := u64(cl.DeviceType); {
	case t&cl.DeviceTypeGPU != 0:
		info.Type = driver.DeviceTypeGPU
	case t&cl.DeviceTypeCPU != 0:
		info.Type = driver.DeviceTypeCPU
	case t&cl.DeviceTypeAccelerator != 0:
		info.Type = driver.DeviceTypeAccelerator
	}
	preferred := []uint32{cl.DevicePreferredVectorWidthChar, cl.DevicePreferredVectorWidthShort,
		cl.DevicePreferredVectorWidthInt, cl.DevicePreferredVectorWidthLong, cl.DevicePreferredVectorWidthFloat,
		cl.DevicePreferredVectorWidthDouble, cl.DevicePreferredVectorWidthHalf}
	native := []uint32{cl.DeviceNativeVectorWidthChar, cl.DeviceNativeVectorWidthShort,
		cl.DeviceNativeVectorWidthInt, cl.DeviceNativeVectorWidthLong, cl.DeviceNativeVectorWidthFloat,
		cl.DeviceNativeVectorWidthDouble, cl.DeviceNativeVectorWidthHalf}
	for i := range preferred {
		info.PreferredVectorWidths[i] = u32(preferred[i])
		info.NativeVectorWidths[i] = u32(native[i])
	}
	return info
}

// handles maps gour devices to OpenCL device ids.
func handles(devs []driver.Device) []cl.Device {
	out := make([]cl.Device, len(devs))
	for i, d := range devs {
		out[i] = d.(*device).handle
	}
	return out
}

// NewContext creates a cl_context over devices of one platform, or takes
// a reference to the device's default context (defaultctx.go).
func (a *adapter) NewContext(devs []driver.Device) (driver.Context, error) {
	if len(devs) == 0 {
		return nil, driver.Errorf(driver.ResultInvalidValue, "no devices")
	}
	var h cl.Context
	var err error
	if len(devs) == 1 {
		h, err = devs[0].(*device).contextRef()
	} else {
		h, err = devs[0].(*device).p.createContext(handles(devs))
	}
	if err != nil {
		return nil, err
	}
	return a.newContext(h, devs).driverContext(), nil
}
