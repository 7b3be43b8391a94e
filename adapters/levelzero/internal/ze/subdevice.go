package ze

import "github.com/gour-dev/gour/internal/dl"

// DeviceGetSubDevices calls zeDeviceGetSubDevices for the count, then for
// the sub-devices of dev (the tiles of a GPU); none for a device without.
func (l *Lib) DeviceGetSubDevices(dev Device) ([]Device, Result) {
	f := dl.NewFrame()
	f.Args = dl.Args{uintptr(dev), f.Out(0), 0}
	r, out := call(f, l.deviceGetSubDevices)
	if r != Success || uint32(out[0]) == 0 {
		return nil, r
	}
	subs := make([]Device, uint32(out[0]))
	f = dl.NewFrame()
	f.Args = dl.Args{uintptr(dev), f.InOut(0, uint64(len(subs))), f.Ptr(0, dl.First(subs))}
	r, out = call(f, l.deviceGetSubDevices)
	return subs[:min(uint32(out[0]), uint32(len(subs)))], r
}

// DeviceCanAccessPeer calls zeDeviceCanAccessPeer: whether dev reaches
// peer's memory directly.
func (l *Lib) DeviceCanAccessPeer(dev, peer Device) (bool, Result) {
	f := dl.NewFrame()
	f.Args = dl.Args{uintptr(dev), uintptr(peer), f.Out(0)}
	r, out := call(f, l.deviceCanAccessPeer)
	return uint8(out[0]) != 0, r
}
