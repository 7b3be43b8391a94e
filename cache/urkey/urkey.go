package urkey

import (
	"github.com/gour-dev/gour/cache"
	"github.com/gour-dev/gour/ur"
)

// Device returns the cache key of d: its backend (adapter name), its
// platform's name, and its name, device version and driver version. A
// driver upgrade changes the key, so binaries of the old driver are never
// offered to the new one (they age out, or urcache prune --stale removes
// them).
func Device(d *ur.Device) cache.DeviceKey {
	info := d.Info()
	k := cache.DeviceKey{
		Backend: d.Backend(),
		Name:    info.Name,
		Version: info.DeviceVersion,
		Driver:  info.DriverVersion,
	}
	if p := d.Platform(); p != nil {
		k.Platform = p.Info().Name
	}
	return k
}
