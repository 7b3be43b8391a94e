package cltrace

import (
	"fmt"

	_ "github.com/gour-dev/gour/adapters/opencl" // registers the adapter cltrace wraps
	"github.com/gour-dev/gour/ur/driver"
)

// Name is the backend name the adapter registers under: selectors and
// UR_ADAPTERS_FORCE_LOAD name it (ONEAPI_DEVICE_SELECTOR=cltrace:cpu).
const Name = "cltrace"

// Inner is the registered adapter cltrace wraps. It must be OpenCL:
// prepared launches call clEnqueueNDRangeKernel on its native handles.
const Inner = "opencl"

func init() { driver.Register(Name, Open) }

var (
	cAdapterPlatforms  = newCounter("Adapter.Platforms")
	cAdapterNewContext = newCounter("Adapter.NewContext")
	cPlatformDevices   = newCounter("Platform.Devices")
	cDeviceInfo        = newCounter("Device.Info")
)

// adapter wraps an OpenCL adapter of its own, opened through the registry.
// Its platforms and devices are made once, so that the front end, which
// tells devices apart by identity, sees the same wrapper for the same
// device every time.
type adapter struct {
	inner     driver.Adapter
	platforms []driver.Platform
	devices   map[driver.Device]*device // by the inner device
	enqueue   uintptr                   // clEnqueueNDRangeKernel, for prepared launches
}

type platform struct {
	inner   driver.Platform
	devices []driver.Device
}

type device struct {
	inner driver.Device
}

// Open opens the adapter registered as Inner and wraps it. Like every
// adapter's Open, it reports a missing driver as an error matching
// driver.ErrNotAvailable, never by panicking.
func Open() (driver.Adapter, error) {
	open, ok := driver.Opener(Inner)
	if !ok {
		return nil, driver.NotAvailable("%s: no adapter registered as %q", Name, Inner)
	}
	inner, err := open()
	if err != nil {
		return nil, fmt.Errorf("%s: wrapping %s: %w", Name, Inner, err)
	}
	enqueue, err := loadEnqueueNDRangeKernel()
	if err != nil {
		return nil, driver.NotAvailable("%s: %v", Name, err)
	}
	a := &adapter{inner: inner, devices: map[driver.Device]*device{}, enqueue: enqueue}
	platforms, err := inner.Platforms()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", Name, err)
	}
	for _, ip := range platforms {
		devs, err := ip.Devices()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", Name, err)
		}
		p := &platform{inner: ip}
		for _, id := range devs {
			d := &device{inner: id}
			a.devices[id] = d
			p.devices = append(p.devices, d)
		}
		a.platforms = append(a.platforms, p)
	}
	return a, nil
}

func (a *adapter) Name() string { return Name }

func (a *adapter) Platforms() ([]driver.Platform, error) {
	cAdapterPlatforms.add()
	return a.platforms, nil
}

func (a *adapter) NewContext(devices []driver.Device) (driver.Context, error) {
	cAdapterNewContext.add()
	inner, err := unwrapDevices(devices)
	if err != nil {
		return nil, err
	}
	c, err := a.inner.NewContext(inner)
	if err != nil {
		return nil, err
	}
	return &context{a: a, inner: c}, nil
}

func (p *platform) Info() driver.PlatformInfo { return p.inner.Info() }

func (p *platform) Devices() ([]driver.Device, error) {
	cPlatformDevices.add()
	return p.devices, nil
}

func (d *device) Info() (driver.DeviceInfo, error) {
	cDeviceInfo.add()
	info, err := d.inner.Info()
	// cltrace traces buffers, not unified shared memory: it forwards none
	// of the USM interfaces, so its devices must not claim any.
	info.USM = driver.USMSupport{Missing: "cltrace traces buffers only and forwards no unified shared memory"}
	return info, err
}

// wrapDevices maps the inner adapter's devices to their wrappers.
func (a *adapter) wrapDevices(inner []driver.Device) ([]driver.Device, error) {
	out := make([]driver.Device, len(inner))
	for i, id := range inner {
		d, ok := a.devices[id]
		if !ok {
			return nil, driver.Errorf(driver.ResultInvalidDevice, "%s: the %s adapter returned a device it did not list", Name, Inner)
		}
		out[i] = d
	}
	return out, nil
}

// The unwrap functions give the inner adapter its own objects back. The
// front end passes an adapter only objects it made, so a foreign one is a
// bug, reported as the Unified Runtime's invalid-handle error of its type
// rather than a panic in a type assertion.

func unwrapDevice(d driver.Device) (driver.Device, error) {
	if w, ok := d.(*device); ok {
		return w.inner, nil
	}
	return nil, foreign(driver.ResultInvalidDevice, d)
}

func unwrapDevices(devs []driver.Device) ([]driver.Device, error) {
	out := make([]driver.Device, len(devs))
	for i, d := range devs {
		var err error
		if out[i], err = unwrapDevice(d); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func foreign(code driver.Result, obj any) error {
	return driver.Errorf(code, "%s: %T is not an object of this adapter", Name, obj)
}
