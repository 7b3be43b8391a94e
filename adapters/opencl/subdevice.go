package opencl

import (
	"github.com/gour-dev/gour/adapters/opencl/internal/cl"
	"github.com/gour-dev/gour/ur/driver"
)

var (
	_ driver.PartitionDevice = (*device)(nil)
	_ driver.SubDevice       = (*device)(nil)
	_ driver.PeerDevice      = (*device)(nil)
)

// The affinity domains in OpenCL's bit order.
var affinityBits = []struct {
	bit    uint64
	domain driver.AffinityDomain
}{
	{cl.DeviceAffinityDomainNUMA, driver.AffinityNUMA},
	{cl.DeviceAffinityDomainL4Cache, driver.AffinityL4Cache},
	{cl.DeviceAffinityDomainL3Cache, driver.AffinityL3Cache},
	{cl.DeviceAffinityDomainL2Cache, driver.AffinityL2Cache},
	{cl.DeviceAffinityDomainL1Cache, driver.AffinityL1Cache},
	{cl.DeviceAffinityDomainNextPartitionable, driver.AffinityNextPartitionable},
}

func affinityBit(d driver.AffinityDomain) uint64 {
	for _, a := range affinityBits {
		if a.domain == d {
			return a.bit
		}
	}
	return 0
}

// PartitionInfo reads CL_DEVICE_PARTITION_MAX_SUB_DEVICES,
// CL_DEVICE_PARTITION_PROPERTIES and CL_DEVICE_PARTITION_AFFINITY_DOMAIN.
// A loader without clCreateSubDevices splits nothing.
func (d *device) PartitionInfo() driver.PartitionInfo {
	lib := d.p.a.lib
	if !lib.HasCreateSubDevices() {
		return driver.PartitionInfo{}
	}
	var info driver.PartitionInfo
	if b, st := lib.DeviceInfo(d.handle, cl.DevicePartitionMaxSubDevices); st == cl.Success && len(b) >= 4 {
		info.MaxSubDevices = cl.Uint32(b)
	}
	if b, st := lib.DeviceInfo(d.handle, cl.DevicePartitionProperties); st == cl.Success {
		for _, prop := range cl.Uintptrs(b) {
			switch prop {
			case cl.DevicePartitionEqually:
				info.Kinds = append(info.Kinds, driver.PartitionEqually)
			case cl.DevicePartitionByCounts:
				info.Kinds = append(info.Kinds, driver.PartitionByCounts)
			case cl.DevicePartitionByAffinityDomain:
				info.Kinds = append(info.Kinds, driver.PartitionByAffinityDomain)
			}
		}
	}
	if b, st := lib.DeviceInfo(d.handle, cl.DevicePartitionAffinityDomain); st == cl.Success && len(b) >= 8 {
		bits := cl.Uint64(b)
		for _, a := range affinityBits {
			if bits&a.bit != 0 {
				info.Domains = append(info.Domains, a.domain)
			}
		}
	}
	return info
}

// Partition calls clCreateSubDevices. Each sub-device reads its info as a
// root device does, and is released with clReleaseDevice.
func (d *device) Partition(p driver.Partition) ([]driver.Device, error) {
	var props []uintptr
	switch p.Kind {
	case driver.PartitionEqually:
		props = []uintptr{cl.DevicePartitionEqually, uintptr(p.Units), 0}
	case driver.PartitionByCounts:
		props = []uintptr{cl.DevicePartitionByCounts}
		for _, c := range p.Counts {
			props = append(props, uintptr(c))
		}
		props = append(props, cl.DevicePartitionByCountsListEnd, 0)
	case driver.PartitionByAffinityDomain:
		props = []uintptr{cl.DevicePartitionByAffinityDomain, uintptr(affinityBit(p.Domain)), 0}
	default:
		return nil, driver.Errorf(driver.ResultInvalidEnumeration, "partition kind %v", p.Kind)
	}
	lib := d.p.a.lib
	hs, st := lib.CreateSubDevices(d.handle, props)
	if err := check("clCreateSubDevices", st); err != nil {
		return nil, err
	}
	out := make([]driver.Device, len(hs))
	for i, h := range hs {
		sd := &device{p: d.p, handle: h, parent: d}
		sd.info = d.p.a.deviceInfo(h)
		sd.memoryInfo()
		sd.partition = sd.partitionType(p)
		out[i] = sd
	}
	return out, nil
}

// partitionType reads CL_DEVICE_PARTITION_TYPE, which says which affinity
// domain the driver chose for AffinityNextPartitionable; asked is what
// the caller asked for, kept where the driver says less.
func (d *device) partitionType(asked driver.Partition) driver.Partition {
	b, st := d.p.a.lib.DeviceInfo(d.handle, cl.DevicePartitionType)
	if st != cl.Success {
		return asked
	}
	props := cl.Uintptrs(b)
	if len(props) >= 2 && props[0] == cl.DevicePartitionByAffinityDomain {
		for _, a := range affinityBits {
			if uint64(props[1])&a.bit != 0 && a.domain != driver.AffinityNextPartitionable {
				asked.Domain = a.domain
				break
			}
		}
	}
	return asked
}

// Parent is the device a sub-device was split from.
func (d *device) Parent() driver.Device { return d.parent }

// PartitionType is how a sub-device was split; see partitionType.
func (d *device) PartitionType() driver.Partition { return d.partition }

// Release releases a sub-device (clReleaseDevice); contexts, queues and
// programs made with it hold references of their own. On PoCL it keeps
// the sub-device: PoCL 3.1's pthread driver touches a sub-device whose
// last reference is gone while its threads still finish the events of
// the sub-device's queues, and crashes (in POclReleaseEvent, about one
// run in four of the conformance suite's event chain across two
// sub-devices). A sub-device is a few hundred bytes.
func (d *device) Release() error {
	if d.parent == nil || d.p.isPoCL() {
		return nil
	}
	return check("clReleaseDevice", d.p.a.lib.ReleaseDevice(d.handle))
}

// pocl is PoCL's platform name.
const pocl = "Portable Computing Language"

// isPoCL reports whether p is PoCL, whose quirks the adapter works around
// (sub-devices here, command buffers in cmdreplay.go, build directories
// in poclbuilddir.go).
func (p *platform) isPoCL() bool { return p.info.Name == pocl }

// PeerAccess: OpenCL has no peer access between devices. Memory of a
// context is the context's, and the driver moves a buffer to the device
// that uses it; sub-devices of one device share its memory, so their
// kernels reach each other's allocations directly.
func (d *device) PeerAccess(peer driver.Device) (driver.PeerAccess, error) {
	pd := peer.(*device)
	if d.root() == pd.root() {
		return driver.PeerAccess{Supported: true, Atomics: true, Via: "same-device"}, nil
	}
	return driver.PeerAccess{Via: "host"}, nil
}

// EnablePeerAccess does nothing: sub-devices of one device need no
// enabling, and other pairs have no direct path (the front end says so
// before calling).
func (d *device) EnablePeerAccess(driver.Device) error { return nil }

// DisablePeerAccess does nothing, as EnablePeerAccess.
func (d *device) DisablePeerAccess(driver.Device) error { return nil }

// root is the root device d was split from, or d.
func (d *device) root() *device {
	for d.parent != nil {
		d = d.parent
	}
	return d
}

// descendants returns the context's devices split, at any depth, from h:
// what a driver that lists h for a program built for its sub-devices
// means.
func (c *context) descendants(h cl.Device) []driver.Device {
	var out []driver.Device
	for _, d := range c.order {
		for a := d.parent; a != nil; a = a.parent {
			if a.handle == h {
				out = append(out, d)
				break
			}
		}
	}
	return out
}

// spread repeats each v[i] per[i] times, for the answers a driver gives
// once for several sub-devices (program.devices); v is returned as it is
// where per does not match it or repeats nothing.
func spread[T any](v []T, per []int) []T {
	if len(per) != len(v) {
		return v
	}
	same := true
	for _, n := range per {
		same = same && n == 1
	}
	if same {
		return v
	}
	var out []T
	for i, n := range per {
		for range n {
			out = append(out, v[i])
		}
	}
	return out
}
