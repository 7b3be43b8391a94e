package ur

import (
	"fmt"
	"sync"

	"github.com/gour-dev/gour/ur/driver"
)

// DeviceType classifies a device: cpu, gpu, fpga (accelerator) or other.
type DeviceType = driver.DeviceType

// Device types.
const (
	DeviceTypeOther       = driver.DeviceTypeOther
	DeviceTypeCPU         = driver.DeviceTypeCPU
	DeviceTypeGPU         = driver.DeviceTypeGPU
	DeviceTypeAccelerator = driver.DeviceTypeAccelerator
)

// PlatformInfo describes a platform.
type PlatformInfo = driver.PlatformInfo

// DeviceInfo is what gour reports about a device.
type DeviceInfo = driver.DeviceInfo

// Adapter is one loaded vendor API.
type Adapter struct {
	object
	name      string
	drv       driver.Adapter
	platforms []*Platform
	// allocs records every live USM allocation of the adapter's contexts.
	allocs allocTable
	// peers records the ordered pairs of devices whose peer access was
	// enabled (Device.EnablePeerAccess), for Queue.PeerCopyPath.
	peers sync.Map
}

// Platform is one driver installation of an adapter.
type Platform struct {
	object
	adapter *Adapter
	drv     driver.Platform
	info    PlatformInfo
	devices []*Device
}

// Device is one compute device.
//
// The driver objects behind adapters, platforms and devices live as long as
// the process, like the root devices of the Unified Runtime; each Discover
// returns new handles to them. Releasing one of these handles makes it (and
// the handles below it) unusable for creating contexts and queues, and
// frees nothing.
type Device struct {
	object
	platform *Platform
	drv      driver.Device
	info     DeviceInfo
	index    int // position among the adapter's devices, as selectors count
	// parent and partition are set for a sub-device (Device.Partition):
	// the device it was split from and how.
	parent    *Device
	partition Partition
	// lost is the first ErrDeviceLost of a context on the device or one
	// of its sub-devices (lost.go).
	lost lostState
}

func newAdapter(name string, drv driver.Adapter) (*Adapter, error) {
	a := &Adapter{name: name, drv: drv}
	a.object.adapter = a
	plats, err := drv.Platforms()
	if err != nil {
		return nil, wrapError(err, "Adapter.Platforms", name)
	}
	index := 0
	for _, dp := range plats {
		p := &Platform{object: object{adapter: a}, adapter: a, drv: dp, info: dp.Info()}
		devs, err := dp.Devices()
		if err != nil {
			return nil, wrapError(err, "Platform.Devices", name)
		}
		for _, dd := range devs {
			info, err := dd.Info()
			if err != nil {
				return nil, wrapError(err, "Device.Info", name)
			}
			p.devices = append(p.devices, &Device{object: object{adapter: a}, platform: p, drv: dd, info: info, index: index})
			index++
		}
		a.platforms = append(a.platforms, p)
	}
	return a, nil
}

// Name is the backend name the adapter registered under: "opencl",
// "cuda", "level_zero", or an adapter's own from outside this module; ""
// for a nil adapter.
func (a *Adapter) Name() string {
	if a == nil {
		return ""
	}
	return a.name
}

// Platforms returns the adapter's platforms.
func (a *Adapter) Platforms() []*Platform {
	if a == nil {
		return nil
	}
	return a.platforms
}

func (a *Adapter) devices() []*Device {
	var all []*Device
	for _, p := range a.platforms {
		all = append(all, p.devices...)
	}
	return all
}

// The accessors below read what discovery recorded: they answer for a
// released handle as for a live one, and give zero values for a nil one.

// Adapter returns the adapter the platform belongs to.
func (p *Platform) Adapter() *Adapter {
	if p == nil {
		return nil
	}
	return p.adapter
}

// Info describes the platform.
func (p *Platform) Info() PlatformInfo {
	if p == nil {
		return PlatformInfo{}
	}
	return p.info
}

// Devices returns every device of the platform, selected or not.
func (p *Platform) Devices() []*Device {
	if p == nil {
		return nil
	}
	return p.devices
}

// Platform returns the device's platform.
func (d *Device) Platform() *Platform {
	if d == nil {
		return nil
	}
	return d.platform
}

// Backend is the adapter name, as selectors spell it.
func (d *Device) Backend() string {
	if d == nil {
		return ""
	}
	return d.platform.adapter.name
}

// Index is the device's number among its backend's devices, as in
// ONEAPI_DEVICE_SELECTOR=opencl:0; -1 for a nil device.
func (d *Device) Index() int {
	if d == nil {
		return -1
	}
	return d.index
}

// Info returns the device's properties, read once at discovery.
func (d *Device) Info() DeviceInfo {
	if d == nil {
		return DeviceInfo{}
	}
	return d.info
}

// Type is the device type.
func (d *Device) Type() DeviceType { return d.Info().Type }

// Name is the device name.
func (d *Device) Name() string { return d.Info().Name }

// String formats the device as sycl-ls does:
// "[opencl:cpu][opencl:0] Platform, Device Version [Driver]".
func (d *Device) String() string {
	if d == nil {
		return "<nil device>"
	}
	return fmt.Sprintf("[%s:%s][%s:%d] %s, %s %s [%s]", d.Backend(), d.info.Type, d.Backend(), d.index,
		d.platform.info.Name, d.info.Name, d.info.DeviceVersion, d.info.DriverVersion)
}

// devicesOf maps front-end devices to the adapter's.
func devicesOf(devs []*Device) []driver.Device {
	out := make([]driver.Device, len(devs))
	for i, d := range devs {
		out[i] = d.drv
	}
	return out
}

// Release marks the adapter handle released; see Device.
func (a *Adapter) Release() error {
	if a == nil {
		return nilHandle("Adapter", "Adapter.Release")
	}
	return a.release("Adapter", ErrInvalidNullHandle)
}

// Release marks the platform handle released; see Device.
func (p *Platform) Release() error {
	if p == nil {
		return nilHandle("Platform", "Platform.Release")
	}
	return p.release("Platform", ErrInvalidPlatform)
}

// Release marks the device handle released: it can no longer be used to
// create a context or a queue. The device itself stays with the driver.
func (d *Device) Release() error {
	if d == nil {
		return nilHandle("Device", "Device.Release")
	}
	return d.release("Device", ErrInvalidDevice)
}

// usable checks that the device handle, its platform's and its adapter's
// have not been released.
func (d *Device) usable(op string) error {
	switch {
	case d.life.refs.Load()&releasedBit != 0:
		return newError(ErrInvalidDevice, op, d.adapter.name, "device %q was released", d.info.Name)
	case d.platform.life.refs.Load()&releasedBit != 0:
		return newError(ErrInvalidPlatform, op, d.adapter.name, "the platform of device %q was released", d.info.Name)
	case d.platform.adapter.life.refs.Load()&releasedBit != 0:
		return newError(ErrInvalidNullHandle, op, d.adapter.name, "the adapter of device %q was released", d.info.Name)
	}
	return nil
}
