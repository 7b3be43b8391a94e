package cu

import (
	"unsafe"

	"github.com/gour-dev/gour/internal/dl"
)

// Init calls cuInit. flags must be 0.
func (l *Lib) Init(flags uint32) Result {
	f := newFrame()
	f.args[0] = uintptr(flags)
	r, _, _ := f.call(l.init, 1)
	return r
}

// DriverGetVersion calls cuDriverGetVersion: the latest CUDA version the
// driver supports, as 1000*major + 10*minor (12060 for 12.6). It works
// before Init.
func (l *Lib) DriverGetVersion() (int32, Result) {
	f := newFrame()
	f.args[0] = f.outPtr(0)
	r, out, _ := f.call(l.driverGetVersion, 1)
	return int32At(&out[0]), r
}

// GetErrorName calls cuGetErrorName: the C name of r, such as
// "CUDA_ERROR_INVALID_PTX". It works before Init.
func (l *Lib) GetErrorName(r Result) (string, Result) {
	f := newFrame()
	f.args = dl.Args{uintptr(uint32(r)), f.outpPtr()}
	rr, _, p := f.call(l.getErrorName, 2)
	return goString(p), rr
}

// GetErrorString calls cuGetErrorString: the driver's description of r.
// It answers NotSupported when the driver lacks it (see HasErrorString).
func (l *Lib) GetErrorString(r Result) (string, Result) {
	f := newFrame()
	f.args = dl.Args{uintptr(uint32(r)), f.outpPtr()}
	rr, _, p := f.call(l.getErrorString, 2)
	return goString(p), rr
}

// DeviceGetCount calls cuDeviceGetCount.
func (l *Lib) DeviceGetCount() (int32, Result) {
	f := newFrame()
	f.args[0] = f.outPtr(0)
	r, out, _ := f.call(l.deviceGetCount, 1)
	return int32At(&out[0]), r
}

// DeviceGet calls cuDeviceGet: the device of an ordinal in
// [0, DeviceGetCount).
func (l *Lib) DeviceGet(ordinal int32) (Device, Result) {
	f := newFrame()
	f.args = dl.Args{f.outPtr(0), uintptr(ordinal)}
	r, out, _ := f.call(l.deviceGet, 2)
	return Device(int32At(&out[0])), r
}

// DeviceGetName calls cuDeviceGetName, which writes a NUL-terminated name
// into name. An empty name gives InvalidValue without a call.
func (l *Lib) DeviceGetName(name []byte, d Device) Result {
	if len(name) == 0 {
		return InvalidValue
	}
	f := newFrame()
	f.args = dl.Args{f.ptr(0, unsafe.Pointer(&name[0])), uintptr(int32(min(len(name), 1<<30))), uintptr(d)}
	r, _, _ := f.call(l.deviceGetName, 3)
	return r
}

// DeviceName returns the name of d, such as "NVIDIA H100 80GB HBM3".
func (l *Lib) DeviceName(d Device) (string, Result) {
	buf := make([]byte, 256)
	if r := l.DeviceGetName(buf, d); r != Success {
		return "", r
	}
	return bufString(buf), Success
}

// DeviceGetAttribute calls cuDeviceGetAttribute.
func (l *Lib) DeviceGetAttribute(attr DeviceAttribute, d Device) (int32, Result) {
	f := newFrame()
	f.args = dl.Args{f.outPtr(0), uintptr(attr), uintptr(d)}
	r, out, _ := f.call(l.deviceGetAttribute, 3)
	return int32At(&out[0]), r
}

// Attribute returns one attribute of d; it is DeviceGetAttribute.
func (l *Lib) Attribute(attr DeviceAttribute, d Device) (int32, Result) {
	return l.DeviceGetAttribute(attr, d)
}

// DeviceTotalMem calls cuDeviceTotalMem_v2: the device memory in bytes.
func (l *Lib) DeviceTotalMem(d Device) (uint64, Result) {
	f := newFrame()
	f.args = dl.Args{f.outPtr(0), uintptr(d)}
	r, out, _ := f.call(l.deviceTotalMem, 2)
	return out[0], r
}

// DeviceGetUUID calls cuDeviceGetUuid_v2 (or cuDeviceGetUuid on drivers
// without it): the 16 bytes of the device's CUuuid. It answers NotSupported
// when the driver has neither (see HasDeviceUUID).
func (l *Lib) DeviceGetUUID(d Device) ([16]byte, Result) {
	f := newFrame()
	f.outPtr(1)
	f.args = dl.Args{f.outPtr(0), uintptr(d)}
	r, out, _ := f.call(l.deviceGetUuid, 2)
	return *(*[16]byte)(unsafe.Pointer(&out)), r
}

// DevicePrimaryCtxRetain calls cuDevicePrimaryCtxRetain: the device's
// primary context, with its reference count raised.
func (l *Lib) DevicePrimaryCtxRetain(d Device) (Context, Result) {
	f := newFrame()
	f.args = dl.Args{f.outPtr(0), uintptr(d)}
	r, out, _ := f.call(l.devicePrimaryCtxRetain, 2)
	return Context(out[0]), r
}

// DevicePrimaryCtxRelease calls cuDevicePrimaryCtxRelease_v2.
func (l *Lib) DevicePrimaryCtxRelease(d Device) Result {
	return call1(l.devicePrimaryCtxRelease, uintptr(d))
}
