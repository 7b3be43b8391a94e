package cl

import (
	"unsafe"

	"github.com/gour-dev/gour/internal/dl"
)

// GetDeviceIDs calls clGetDeviceIDs for the devices of deviceType (a
// DeviceType* bitfield): it fills devices (may be empty) and stores the
// number available in numDevices (may be nil).
func (l *Lib) GetDeviceIDs(p Platform, deviceType uint64, devices []Device, numDevices *uint32) Status {
	f := dl.NewFrame()
	f.Args = dl.Args{
		uintptr(p),
		uintptr(deviceType),
		uintptr(len(devices)),
		f.Ptr(0, dl.First(devices)),
		f.Ptr(1, unsafe.Pointer(numDevices)),
	}
	r, _, _ := f.Call(l.getDeviceIDs)
	return status(r)
}

// GetDeviceInfo calls clGetDeviceInfo.
func (l *Lib) GetDeviceInfo(d Device, param uint32, size uintptr, value unsafe.Pointer, sizeRet *uintptr) Status {
	return getInfo(l.getDeviceInfo, uintptr(d), param, size, value, sizeRet)
}

// RetainDevice calls clRetainDevice (a no-op for root devices).
func (l *Lib) RetainDevice(d Device) Status { return call1(l.retainDevice, uintptr(d)) }

// ReleaseDevice calls clReleaseDevice (a no-op for root devices).
func (l *Lib) ReleaseDevice(d Device) Status { return call1(l.releaseDevice, uintptr(d)) }

// DeviceIDs returns every device of deviceType on p, counting them first.
// A platform without such devices gives DeviceNotFound.
func (l *Lib) DeviceIDs(p Platform, deviceType uint64) ([]Device, Status) {
	var n uint32
	if s := l.GetDeviceIDs(p, deviceType, nil, &n); s != Success {
		return nil, s
	}
	if n == 0 {
		return nil, DeviceNotFound
	}
	ds := make([]Device, n)
	if s := l.GetDeviceIDs(p, deviceType, ds, &n); s != Success {
		return nil, s
	}
	return ds[:min(int(n), len(ds))], Success
}
