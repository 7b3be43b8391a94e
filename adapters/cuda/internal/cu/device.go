package cu

import (
	"unsafe"

	"github.com/gour-dev/gour/internal/dl"
)

// Init calls cuInit. flags must be 0.
func (l *Lib) Init(flags uint32) Result {
	f := dl.NewFrame()
	f.Args[0] = uintptr(flags)
	r, _, _ := call(f, l.init)
	return r
}

// DriverGetVersion calls cuDriverGetVersion: the latest CUDA version the
// driver supports, as 1000*major + 10*minor (12060 for 12.6). It works
// before Init.
func (l *Lib) DriverGetVersion() (int32, Result) {
	f := dl.NewFrame()
	f.Args[0] = f.Out(0)
	r, out, _ := call(f, l.driverGetVersion)
	return int32At(&out[0]), r
}

// GetErrorName calls cuGetErrorName: the C name of r, such as
// "CUDA_ERROR_INVALID_PTX". It works before Init.
func (l *Lib) GetErrorName(r Result) (string, Result) {
	f := dl.NewFrame()
	f.Args = dl.Args{uintptr(uint32(r)), f.OutPtr()}
	rr, _, p := call(f, l.getErrorName)
	return dl.GoString(p), rr
}

// GetErrorString calls cuGetErrorString: the driver's description of r.
// It answers NotSupported when the driver lacks it (see HasErrorString).
func (l *Lib) GetErrorString(r Result) (string, Result) {
	f := dl.NewFrame()
	f.Args = dl.Args{uintptr(uint32(r)), f.OutPtr()}
	rr, _, p := call(f, l.getErrorString)
	return dl.GoString(p), rr
}

// DeviceGetCount calls cuDeviceGetCount.
func (l *Lib) DeviceGetCount() (int32, Result) {
	f := dl.NewFrame()
	f.Args[0] = f.Out(0)
	r, out, _ := call(f, l.deviceGetCount)
	return int32At(&out[0]), r
}

// DeviceGet calls cuDeviceGet: the device of an ordinal in
// [0, DeviceGetCount).
func (l *Lib) DeviceGet(ordinal int32) (Device, Result) {
	f := dl.NewFrame()
	f.Args = dl.Args{f.Out(0), uintptr(ordinal)}
	r, out, _ := call(f, l.deviceGet)
	return Device(int32At(&out[0])), r
}

// DeviceGetName calls cuDeviceGetName, which writes a NUL-terminated name
// into name. An empty name gives InvalidValue without a call.
func (l *Lib) DeviceGetName(name []byte, d Device) Result {
	if len(name) == 0 {
		return InvalidValue
	}
	f := dl.NewFrame()
	f.Args = dl.Args{f.Ptr(0, unsafe.Pointer(&name[0])), uintptr(int32(min(len(name), 1<<30))), uintptr(d)}
	r, _, _ := call(f, l.deviceGetName)
	return r
}

// DeviceName returns the name of d, such as "NVIDIA H100 80GB HBM3".
func (l *Lib) DeviceName(d Device) (string, Result) {
	buf := make([]byte, 256)
	if r := l.DeviceGetName(buf, d); r != Success {
		return "", r
	}
	return dl.BufString(buf), Success
}

// DeviceGetAttribute calls cuDeviceGetAttribute.
func (l *Lib) DeviceGetAttribute(attr DeviceAttribute, d Device) (int32, Result) {
	f := dl.NewFrame()
	f.Args = dl.Args{f.Out(0), uintptr(attr), uintptr(d)}
	r, out, _ := call(f, l.deviceGetAttribute)
	return int32At(&out[0]), r
}

// Attribute returns one attribute of d; it is DeviceGetAttribute.
func (l *Lib) Attribute(attr DeviceAttribute, d Device) (int32, Result) {
	return l.DeviceGetAttribute(attr, d)
}

// DeviceTotalMem calls cuDeviceTotalMem_v2: the device memory in bytes.
func (l *Lib) DeviceTotalMem(d Device) (uint64, Result) {
	f := dl.NewFrame()
	f.Args = dl.Args{f.Out(0), uintptr(d)}
	r, out, _ := call(f, l.deviceTotalMem)
	return out[0], r
}

// DeviceGetUUID calls cuDeviceGetUuid_v2 (or cuDeviceGetUuid on drivers
// without it): the 16 bytes of the device's CUuuid. It answers NotSupported
// when the driver has neither (see HasDeviceUUID).
func (l *Lib) DeviceGetUUID(d Device) ([16]byte, Result) {
	f := dl.NewFrame()
	f.Out(1)
	f.Args = dl.Args{f.Out(0), uintptr(d)}
	r, out, _ := call(f, l.deviceGetUuid)
	return *(*[16]byte)(unsafe.Pointer(&out)), r
}

// DevicePrimaryCtxRetain calls cuDevicePrimaryCtxRetain: the device's
// primary context, with its reference count raised.
func (l *Lib) DevicePrimaryCtxRetain(d Device) (Context, Result) {
	f := dl.NewFrame()
	f.Args = dl.Args{f.Out(0), uintptr(d)}
	r, out, _ := call(f, l.devicePrimaryCtxRetain)
	return Context(out[0]), r
}

// DevicePrimaryCtxRelease calls cuDevicePrimaryCtxRelease_v2.
func (l *Lib) DevicePrimaryCtxRelease(d Device) Result {
	return call1(l.devicePrimaryCtxRelease, uintptr(d))
}
