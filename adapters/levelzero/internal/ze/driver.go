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
	f := newFrame()
	f.args = dl.Args{f.outPtr(0), 0, f.ptr(0, unsafe.Pointer(desc))}
	r, out := f.call(l.initDrivers)
	if r != Success || out[0] == 0 {
		return nil, r
	}
	drivers := make([]Driver, uint32(out[0]))
	f = newFrame()
	f.args = dl.Args{f.outPtrValue(0, uint64(len(drivers))), f.ptr(1, first(drivers)), f.ptr(0, unsafe.Pointer(desc))}
	r, out = f.call(l.initDrivers)
	return drivers[:min(uint32(out[0]), uint32(len(drivers)))], r
}

// DriverGet calls zeDriverGet for the count, then for the handles.
func (l *Lib) DriverGet() ([]Driver, Result) {
	f := newFrame()
	f.args = dl.Args{f.outPtr(0), 0}
	r, out := f.call(l.driverGet)
	if r != Success || out[0] == 0 {
		return nil, r
	}
	drivers := make([]Driver, uint32(out[0]))
	f = newFrame()
	f.args = dl.Args{f.outPtrValue(0, uint64(len(drivers))), f.ptr(0, first(drivers))}
	r, out = f.call(l.driverGet)
	return drivers[:min(uint32(out[0]), uint32(len(drivers)))], r
}

// DriverGetAPIVersion calls zeDriverGetApiVersion.
func (l *Lib) DriverGetAPIVersion(d Driver) (APIVersion, Result) {
	f := newFrame()
	f.args = dl.Args{uintptr(d), f.outPtr(0)}
	r, out := f.call(l.driverGetAPIVersion)
	return APIVersion(uint32(out[0])), r
}

// DriverGetProperties calls zeDriverGetProperties.
func (l *Lib) DriverGetProperties(d Driver) (*DriverProperties, Result) {
	p := &DriverProperties{Stype: StructureTypeDriverProperties}
	f := newFrame()
	f.args = dl.Args{uintptr(d), f.ptr(0, unsafe.Pointer(p))}
	r, _ := f.call(l.driverGetProperties)
	return p, r
}

// DriverGetExtensionProperties calls zeDriverGetExtensionProperties for
// the count, then for the extensions.
func (l *Lib) DriverGetExtensionProperties(d Driver) ([]DriverExtensionProperties, Result) {
	f := newFrame()
	f.args = dl.Args{uintptr(d), f.outPtr(0), 0}
	r, out := f.call(l.driverGetExtensionProp)
	if r != Success || out[0] == 0 {
		return nil, r
	}
	exts := make([]DriverExtensionProperties, uint32(out[0]))
	f = newFrame()
	f.args = dl.Args{uintptr(d), f.outPtrValue(0, uint64(len(exts))), f.ptr(0, first(exts))}
	r, out = f.call(l.driverGetExtensionProp)
	return exts[:min(uint32(out[0]), uint32(len(exts)))], r
}

// DeviceGet calls zeDeviceGet for the count, then for the root devices of
// the driver.
func (l *Lib) DeviceGet(d Driver) ([]Device, Result) {
	f := newFrame()
	f.args = dl.Args{uintptr(d), f.outPtr(0), 0}
	r, out := f.call(l.deviceGet)
	if r != Success || out[0] == 0 {
		return nil, r
	}
	devices := make([]Device, uint32(out[0]))
	f = newFrame()
	f.args = dl.Args{uintptr(d), f.outPtrValue(0, uint64(len(devices))), f.ptr(0, first(devices))}
	r, out = f.call(l.deviceGet)
	return devices[:min(uint32(out[0]), uint32(len(devices)))], r
}

// DeviceGetProperties calls zeDeviceGetProperties with the 1.0 structure
// type, so TimerResolution is in nanoseconds.
func (l *Lib) DeviceGetProperties(dev Device) (*DeviceProperties, Result) {
	p := &DeviceProperties{Stype: StructureTypeDeviceProperties}
	f := newFrame()
	f.args = dl.Args{uintptr(dev), f.ptr(0, unsafe.Pointer(p))}
	r, _ := f.call(l.deviceGetProperties)
	return p, r
}

// DeviceTimerFrequency calls zeDeviceGetProperties with the 1.2 structure
// type (drivers of API 1.2 and later), whose TimerResolution is the
// timestamp frequency in cycles per second.
func (l *Lib) DeviceTimerFrequency(dev Device) (uint64, Result) {
	p := &DeviceProperties{Stype: StructureTypeDeviceProperties12}
	f := newFrame()
	f.args = dl.Args{uintptr(dev), f.ptr(0, unsafe.Pointer(p))}
	r, _ := f.call(l.deviceGetProperties)
	return p.TimerResolution, r
}

// DeviceGetComputeProperties calls zeDeviceGetComputeProperties.
func (l *Lib) DeviceGetComputeProperties(dev Device) (*DeviceComputeProperties, Result) {
	p := &DeviceComputeProperties{Stype: StructureTypeDeviceComputeProperties}
	f := newFrame()
	f.args = dl.Args{uintptr(dev), f.ptr(0, unsafe.Pointer(p))}
	r, _ := f.call(l.deviceGetComputeProperties)
	return p, r
}

// DeviceGetModuleProperties calls zeDeviceGetModuleProperties.
func (l *Lib) DeviceGetModuleProperties(dev Device) (*DeviceModuleProperties, Result) {
	p := &DeviceModuleProperties{Stype: StructureTypeDeviceModuleProperties}
	f := newFrame()
	f.args = dl.Args{uintptr(dev), f.ptr(0, unsafe.Pointer(p))}
	r, _ := f.call(l.deviceGetModuleProperties)
	return p, r
}

// DeviceGetCommandQueueGroupProperties calls
// zeDeviceGetCommandQueueGroupProperties for the count, then for every
// group; a group's index in the result is its ordinal.
func (l *Lib) DeviceGetCommandQueueGroupProperties(dev Device) ([]CommandQueueGroupProperties, Result) {
	f := newFrame()
	f.args = dl.Args{uintptr(dev), f.outPtr(0), 0}
	r, out := f.call(l.deviceGetCommandQueueGroupProps)
	if r != Success || out[0] == 0 {
		return nil, r
	}
	groups := make([]CommandQueueGroupProperties, uint32(out[0]))
	for i := range groups {
		groups[i].Stype = StructureTypeCommandQueueGroupProperties
	}
	f = newFrame()
	f.args = dl.Args{uintptr(dev), f.outPtrValue(0, uint64(len(groups))), f.ptr(0, first(groups))}
	r, out = f.call(l.deviceGetCommandQueueGroupProps)
	return groups[:min(uint32(out[0]), uint32(len(groups)))], r
}

// DeviceGetMemoryProperties calls zeDeviceGetMemoryProperties for the
// count, then for every memory of the device.
func (l *Lib) DeviceGetMemoryProperties(dev Device) ([]DeviceMemoryProperties, Result) {
	f := newFrame()
	f.args = dl.Args{uintptr(dev), f.outPtr(0), 0}
	r, out := f.call(l.deviceGetMemoryProperties)
	if r != Success || out[0] == 0 {
		return nil, r
	}
	mems := make([]DeviceMemoryProperties, uint32(out[0]))
	for i := range mems {
		mems[i].Stype = StructureTypeDeviceMemoryProperties
	}
	f = newFrame()
	f.args = dl.Args{uintptr(dev), f.outPtrValue(0, uint64(len(mems))), f.ptr(0, first(mems))}
	r, out = f.call(l.deviceGetMemoryProperties)
	return mems[:min(uint32(out[0]), uint32(len(mems)))], r
}

// DeviceGetGlobalTimestamps calls zeDeviceGetGlobalTimestamps: the host
// clock (ns) and the device's global timestamp (ticks) read together.
// NotSupported when missing (see HasGlobalTimestamps).
func (l *Lib) DeviceGetGlobalTimestamps(dev Device) (host, device uint64, r Result) {
	f := newFrame()
	f.args = dl.Args{uintptr(dev), f.outPtr(0), f.outPtr(1)}
	r, out := f.call(l.deviceGetGlobalTimestamps)
	return out[0], out[1], r
}
