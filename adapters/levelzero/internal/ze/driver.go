package ze

import (
	"unsafe"

	"github.com/gour-dev/gour/internal/dl"
)

// Init calls zeInit. With the loader installed but no driver it returns
// ErrorUninitialized (the 1.8 loader) rather than zero drivers.
func (l *Lib) Init(flags InitFlags) Result { return call1(l.init, uintptr(flags)) }

// InitDrivers calls zeInitDrivers (spec 1.10) twice, for the count and the
// handles of the drivers of the given types. NotSupported when the loader
// lacks it (see HasInitDrivers).
func (l *Lib) InitDrivers(types InitDriverTypeFlags) ([]Driver, Result) {
	desc := &InitDriverTypeDesc{Stype: StructureTypeInitDriverTypeDesc, Flags: types}
	f := dl.NewFrame()
	f.Args = dl.Args{f.Out(0), 0, f.Ptr(0, unsafe.Pointer(desc))}
	r, out := call(f, l.initDrivers)
	if r != Success || out[0] == 0 {
		return nil, r
	}
	drivers := make([]Driver, uint32(out[0]))
	f = dl.NewFrame()
	f.Args = dl.Args{f.InOut(0, uint64(len(drivers))), f.Ptr(1, dl.First(drivers)), f.Ptr(0, unsafe.Pointer(desc))}
	r, out = call(f, l.initDrivers)
	return drivers[:min(uint32(out[0]), uint32(len(drivers)))], r
}

// DriverGet calls zeDriverGet for the count, then for the handles.
func (l *Lib) DriverGet() ([]Driver, Result) {
	f := dl.NewFrame()
	f.Args = dl.Args{f.Out(0), 0}
	r, out := call(f, l.driverGet)
	if r != Success || out[0] == 0 {
		return nil, r
	}
	drivers := make([]Driver, uint32(out[0]))
	f = dl.NewFrame()
	f.Args = dl.Args{f.InOut(0, uint64(len(drivers))), f.Ptr(0, dl.First(drivers))}
	r, out = call(f, l.driverGet)
	return drivers[:min(uint32(out[0]), uint32(len(drivers)))], r
}

// DriverGetAPIVersion calls zeDriverGetApiVersion.
func (l *Lib) DriverGetAPIVersion(d Driver) (APIVersion, Result) {
	f := dl.NewFrame()
	f.Args = dl.Args{uintptr(d), f.Out(0)}
	r, out := call(f, l.driverGetAPIVersion)
	return APIVersion(uint32(out[0])), r
}

// DriverGetProperties calls zeDriverGetProperties.
func (l *Lib) DriverGetProperties(d Driver) (*DriverProperties, Result) {
	p := &DriverProperties{Stype: StructureTypeDriverProperties}
	f := dl.NewFrame()
	f.Args = dl.Args{uintptr(d), f.Ptr(0, unsafe.Pointer(p))}
	r, _ := call(f, l.driverGetProperties)
	return p, r
}

// DriverGetExtensionProperties calls zeDriverGetExtensionProperties for
// the count, then for the extensions.
func (l *Lib) DriverGetExtensionProperties(d Driver) ([]DriverExtensionProperties, Result) {
	f := dl.NewFrame()
	f.Args = dl.Args{uintptr(d), f.Out(0), 0}
	r, out := call(f, l.driverGetExtensionProp)
	if r != Success || out[0] == 0 {
		return nil, r
	}
	exts := make([]DriverExtensionProperties, uint32(out[0]))
	f = dl.NewFrame()
	f.Args = dl.Args{uintptr(d), f.InOut(0, uint64(len(exts))), f.Ptr(0, dl.First(exts))}
	r, out = call(f, l.driverGetExtensionProp)
	return exts[:min(uint32(out[0]), uint32(len(exts)))], r
}

// DeviceGet calls zeDeviceGet for the count, then for the root devices of
// the driver.
func (l *Lib) DeviceGet(d Driver) ([]Device, Result) {
	f := dl.NewFrame()
	f.Args = dl.Args{uintptr(d), f.Out(0), 0}
	r, out := call(f, l.deviceGet)
	if r != Success || out[0] == 0 {
		return nil, r
	}
	devices := make([]Device, uint32(out[0]))
	f = dl.NewFrame()
	f.Args = dl.Args{uintptr(d), f.InOut(0, uint64(len(devices))), f.Ptr(0, dl.First(devices))}
	r, out = call(f, l.deviceGet)
	return devices[:min(uint32(out[0]), uint32(len(devices)))], r
}

// DeviceGetProperties calls zeDeviceGetProperties with the 1.0 structure
// type, so TimerResolution is in nanoseconds.
func (l *Lib) DeviceGetProperties(dev Device) (*DeviceProperties, Result) {
	p := &DeviceProperties{Stype: StructureTypeDeviceProperties}
	f := dl.NewFrame()
	f.Args = dl.Args{uintptr(dev), f.Ptr(0, unsafe.Pointer(p))}
	r, _ := call(f, l.deviceGetProperties)
	return p, r
}

// DeviceTimerFrequency calls zeDeviceGetProperties with the 1.2 structure
// type (drivers of API 1.2 and later), whose TimerResolution is the
// timestamp frequency in cycles per second.
func (l *Lib) DeviceTimerFrequency(dev Device) (uint64, Result) {
	p := &DeviceProperties{Stype: StructureTypeDeviceProperties12}
	f := dl.NewFrame()
	f.Args = dl.Args{uintptr(dev), f.Ptr(0, unsafe.Pointer(p))}
	r, _ := call(f, l.deviceGetProperties)
	return p.TimerResolution, r
}

// DeviceGetComputeProperties calls zeDeviceGetComputeProperties.
func (l *Lib) DeviceGetComputeProperties(dev Device) (*DeviceComputeProperties, Result) {
	p := &DeviceComputeProperties{Stype: StructureTypeDeviceComputeProperties}
	f := dl.NewFrame()
	f.Args = dl.Args{uintptr(dev), f.Ptr(0, unsafe.Pointer(p))}
	r, _ := call(f, l.deviceGetComputeProperties)
	return p, r
}

// DeviceGetModuleProperties calls zeDeviceGetModuleProperties.
func (l *Lib) DeviceGetModuleProperties(dev Device) (*DeviceModuleProperties, Result) {
	p := &DeviceModuleProperties{Stype: StructureTypeDeviceModuleProperties}
	f := dl.NewFrame()
	f.Args = dl.Args{uintptr(dev), f.Ptr(0, unsafe.Pointer(p))}
	r, _ := call(f, l.deviceGetModuleProperties)
	return p, r
}

// DeviceGetCommandQueueGroupProperties calls
// zeDeviceGetCommandQueueGroupProperties for the count, then for every
// group; a group's index in the result is its ordinal.
func (l *Lib) DeviceGetCommandQueueGroupProperties(dev Device) ([]CommandQueueGroupProperties, Result) {
	f := dl.NewFrame()
	f.Args = dl.Args{uintptr(dev), f.Out(0), 0}
	r, out := call(f, l.deviceGetCommandQueueGroupProps)
	if r != Success || out[0] == 0 {
		return nil, r
	}
	groups := make([]CommandQueueGroupProperties, uint32(out[0]))
	for i := range groups {
		groups[i].Stype = StructureTypeCommandQueueGroupProperties
	}
	f = dl.NewFrame()
	f.Args = dl.Args{uintptr(dev), f.InOut(0, uint64(len(groups))), f.Ptr(0, dl.First(groups))}
	r, out = call(f, l.deviceGetCommandQueueGroupProps)
	return groups[:min(uint32(out[0]), uint32(len(groups)))], r
}

// DeviceGetMemoryProperties calls zeDeviceGetMemoryProperties for the
// count, then for every memory of the device.
func (l *Lib) DeviceGetMemoryProperties(dev Device) ([]DeviceMemoryProperties, Result) {
	f := dl.NewFrame()
	f.Args = dl.Args{uintptr(dev), f.Out(0), 0}
	r, out := call(f, l.deviceGetMemoryProperties)
	if r != Success || out[0] == 0 {
		return nil, r
	}
	mems := make([]DeviceMemoryProperties, uint32(out[0]))
	for i := range mems {
		mems[i].Stype = StructureTypeDeviceMemoryProperties
	}
	f = dl.NewFrame()
	f.Args = dl.Args{uintptr(dev), f.InOut(0, uint64(len(mems))), f.Ptr(0, dl.First(mems))}
	r, out = call(f, l.deviceGetMemoryProperties)
	return mems[:min(uint32(out[0]), uint32(len(mems)))], r
}

// DeviceGetMemoryAccessProperties calls zeDeviceGetMemoryAccessProperties:
// which kinds of USM allocation the device supports, and how.
func (l *Lib) DeviceGetMemoryAccessProperties(dev Device) (*DeviceMemoryAccessProperties, Result) {
	p := &DeviceMemoryAccessProperties{Stype: StructureTypeDeviceMemoryAccessProps}
	f := dl.NewFrame()
	f.Args = dl.Args{uintptr(dev), f.Ptr(0, unsafe.Pointer(p))}
	r, _ := call(f, l.deviceGetMemoryAccessProps)
	return p, r
}

// DeviceGetGlobalTimestamps calls zeDeviceGetGlobalTimestamps: the host
// clock (ns) and the device's global timestamp (ticks) read together.
// NotSupported when missing (see HasGlobalTimestamps).
func (l *Lib) DeviceGetGlobalTimestamps(dev Device) (host, device uint64, r Result) {
	f := dl.NewFrame()
	f.Args = dl.Args{uintptr(dev), f.Out(0), f.Out(1)}
	r, out := call(f, l.deviceGetGlobalTimestamps)
	return out[0], out[1], r
}
