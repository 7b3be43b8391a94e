package levelzero

import (
	"github.com/gour-dev/gour/adapters/levelzero/internal/ze"
	"github.com/gour-dev/gour/ur/driver"
)

var _ driver.TimestampDevice = (*device)(nil)

// GlobalTimestamps reads zeDeviceGetGlobalTimestamps: the host clock in
// nanoseconds and the device's ticks, converted with the timer's
// frequency (API 1.2) or resolution.
func (d *device) GlobalTimestamps() (device, host uint64, err error) {
	h, ticks, r := d.p.a.ze.DeviceGetGlobalTimestamps(d.handle)
	if r == ze.ErrorUnsupportedFeature || r == ze.ErrorUninitialized {
		return 0, 0, driver.Errorf(driver.ResultUnsupportedFeature, "zeDeviceGetGlobalTimestamps is missing")
	}
	if err := check("zeDeviceGetGlobalTimestamps", r); err != nil {
		return 0, 0, err
	}
	return d.ticksToNS(ticks), h, nil
}
