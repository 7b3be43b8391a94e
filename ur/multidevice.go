package ur

import (
	"slices"

	"github.com/gour-dev/gour/trace"
	"github.com/gour-dev/gour/ur/driver"
)

// Partition says how Device.Partition splits a device, or how a
// sub-device was split from its parent (Device.PartitionType):
//
//	ur.Partition{Kind: ur.PartitionEqually, Units: 2}       // sub-devices of 2 compute units each
//	ur.Partition{Kind: ur.PartitionByCounts, Counts: []uint32{1, 3}}
//	ur.Partition{Kind: ur.PartitionByAffinityDomain, Domain: ur.AffinityNUMA}
type Partition = driver.Partition

// PartitionKind says how a device is split.
type PartitionKind = driver.PartitionKind

// Partition kinds, as the Unified Runtime's ur_device_partition_t.
const (
	PartitionNone             = driver.PartitionNone
	PartitionEqually          = driver.PartitionEqually
	PartitionByCounts         = driver.PartitionByCounts
	PartitionByAffinityDomain = driver.PartitionByAffinityDomain
)

// AffinityDomain is the level of the memory hierarchy a partition by
// affinity domain follows.
type AffinityDomain = driver.AffinityDomain

// Affinity domains, as the Unified Runtime's
// ur_device_affinity_domain_flags_t.
const (
	AffinityNUMA              = driver.AffinityNUMA
	AffinityL4Cache           = driver.AffinityL4Cache
	AffinityL3Cache           = driver.AffinityL3Cache
	AffinityL2Cache           = driver.AffinityL2Cache
	AffinityL1Cache           = driver.AffinityL1Cache
	AffinityNextPartitionable = driver.AffinityNextPartitionable
)

// PartitionInfo says how a device can be split (Device.PartitionInfo).
type PartitionInfo = driver.PartitionInfo

// PeerAccess says what one device can do with another's memory
// (Device.PeerAccess).
type PeerAccess = driver.PeerAccess

// PartitionInfo says how the device can be split: the most sub-devices
// one partition makes, the kinds and the affinity domains it takes. A
// device that does not split (every CUDA device, a Level Zero device
// without tiles) has the zero value.
func (d *Device) PartitionInfo() (rerr PartitionInfo) {
	if t := trace.Active(); t != nil {
		tc := beginCall(t, "Device.PartitionInfo", d)
		defer tc.end(nil)
	}

	if d == nil {
		return PartitionInfo{}
	}
	if pd, ok := d.drv.(driver.PartitionDevice); ok {
		return pd.PartitionInfo()
	}
	return PartitionInfo{}
}

// Partition splits the device into sub-devices, as the Unified Runtime's
// urDevicePartition and OpenCL's clCreateSubDevices: equally (Units
// compute units each), by counts (one sub-device per count) or by
// affinity domain (one per NUMA node or cache, or per tile of a Level
// Zero GPU). A sub-device is a device like any other: contexts, queues,
// programs and memory take it, alone or with its siblings (a context of
// two sub-devices is a context of two devices), and its Parent is d.
// Releasing a sub-device frees it with the driver; contexts made with it
// keep what they need.
//
// The partition is checked against PartitionInfo first: a kind or a
// domain the device does not list gives ErrDevicePartitionFailed, more
// sub-devices than the device makes or more compute units than it has
// ErrInvalidDevicePartitionCount, zero units or no counts
// ErrInvalidValue; an adapter that does not split devices
// ErrUnsupportedFeature.
func (d *Device) Partition(p Partition) (rv []*Device, rerr error) {
	const op = "Device.Partition"
	if t := trace.Active(); t != nil {
		tc := beginCall(t, op, d)
		defer tc.end(&rerr)
	}

	if d == nil {
		return nil, nilHandle("Device", op)
	}
	if err := d.usable(op); err != nil {
		return nil, err
	}
	pd, ok := d.drv.(driver.PartitionDevice)
	if !ok {
		return nil, newError(ErrUnsupportedFeature, op, d.adapter.name, "the %s adapter does not split devices into sub-devices", d.adapter.name)
	}
	info := pd.PartitionInfo()
	if err := d.checkPartition(op, info, p); err != nil {
		return nil, err
	}
	p.Counts = slices.Clone(p.Counts)
	subs, err := pd.Partition(p)
	if err != nil {
		return nil, wrapError(err, op, d.adapter.name)
	}
	out := make([]*Device, len(subs))
	for i, sd := range subs {
		si, err := sd.Info()
		if err != nil {
			for _, s := range subs {
				if r, ok := s.(driver.SubDevice); ok {
					r.Release()
				}
			}
			return nil, wrapError(err, "Device.Info", d.adapter.name)
		}
		sub := &Device{object: object{adapter: d.adapter}, platform: d.platform, drv: sd, info: si, index: d.index, parent: d, partition: p}
		if s, ok := sd.(driver.SubDevice); ok {
			sub.partition = s.PartitionType()
			sub.life.free = s.Release
		}
		out[i] = sub
	}
	return out, nil
}

// checkPartition checks p against what the device says it takes.
func (d *Device) checkPartition(op string, info PartitionInfo, p Partition) error {
	name := d.adapter.name
	if info.MaxSubDevices == 0 || len(info.Kinds) == 0 {
		return newError(ErrDevicePartitionFailed, op, name, "device %q does not split into sub-devices", d.info.Name)
	}
	if !slices.Contains(info.Kinds, p.Kind) {
		return newError(ErrDevicePartitionFailed, op, name, "device %q does not split %s; it takes %v", d.info.Name, p.Kind, info.Kinds)
	}
	units := uint64(d.info.ComputeUnits)
	switch p.Kind {
	case PartitionEqually:
		if p.Units == 0 {
			return newError(ErrInvalidValue, op, name, "a partition into equal sub-devices of 0 compute units")
		}
		if units != 0 && uint64(p.Units) > units {
			return newError(ErrInvalidDevicePartitionCount, op, name, "sub-devices of %d compute units from device %q, which has %d", p.Units, d.info.Name, units)
		}
	case PartitionByCounts:
		if len(p.Counts) == 0 {
			return newError(ErrInvalidValue, op, name, "a partition by counts without counts")
		}
		if uint64(len(p.Counts)) > uint64(info.MaxSubDevices) {
			return newError(ErrInvalidDevicePartitionCount, op, name, "%d sub-devices; device %q makes %d at most", len(p.Counts), d.info.Name, info.MaxSubDevices)
		}
		var sum uint64
		for i, c := range p.Counts {
			if c == 0 {
				return newError(ErrInvalidDevicePartitionCount, op, name, "count %d is 0", i)
			}
			sum += uint64(c)
		}
		if units != 0 && sum > units {
			return newError(ErrInvalidDevicePartitionCount, op, name, "the counts add up to %d compute units; device %q has %d", sum, d.info.Name, units)
		}
	case PartitionByAffinityDomain:
		if p.Domain == AffinityNextPartitionable && len(info.Domains) > 0 {
			return nil
		}
		if !slices.Contains(info.Domains, p.Domain) {
			return newError(ErrDevicePartitionFailed, op, name, "device %q does not split along the %s domain; it takes %v", d.info.Name, p.Domain, info.Domains)
		}
	default:
		return newError(ErrInvalidEnumeration, op, name, "partition kind %d", p.Kind)
	}
	return nil
}

// Parent is the device a sub-device was split from (Device.Partition);
// nil for a root device.
func (d *Device) Parent() *Device {
	if d == nil {
		return nil
	}
	return d.parent
}

// Root is the root device a sub-device was split from, through every
// level; the device itself for a root device.
func (d *Device) Root() *Device {
	for d != nil && d.parent != nil {
		d = d.parent
	}
	return d
}

// PartitionType is how a sub-device was split from its parent
// (UR_DEVICE_INFO_PARTITION_TYPE); Kind is PartitionNone for a root
// device.
func (d *Device) PartitionType() Partition {
	if d == nil {
		return Partition{}
	}
	p := d.partition
	p.Counts = slices.Clone(p.Counts)
	return p
}

// PeerAccess says whether the device's kernels and copies reach peer's
// memory directly, with atomics, and whether EnablePeerAccess is needed
// first, as the Unified Runtime's urUsmP2PPeerAccessGetInfoExp. Where
// there is no direct path (Supported false, Via "host"), Queue.CopyPeer
// stages its copies through pinned host memory. A device reaches its own
// memory ("same-device"); peer must be of the device's adapter
// (ErrInvalidDevice).
func (d *Device) PeerAccess(peer *Device) (rv PeerAccess, rerr error) {
	const op = "Device.PeerAccess"
	if t := trace.Active(); t != nil {
		tc := beginCall(t, op, d, peer)
		defer tc.end(&rerr)
	}

	pd, err := d.peerDevice(op, peer)
	if err != nil || pd == nil {
		if err == nil && d.drv == peer.drv {
			return PeerAccess{Supported: true, Atomics: true, Via: "same-device"}, nil
		}
		if err == nil {
			return PeerAccess{Via: "host"}, nil
		}
		return PeerAccess{}, err
	}
	pa, err := pd.PeerAccess(peer.drv)
	if err != nil {
		return PeerAccess{}, wrapError(err, op, d.adapter.name)
	}
	if !pa.Supported && pa.Via == "" {
		pa.Via = "host"
	}
	return pa, nil
}

// EnablePeerAccess lets the device's kernels use peer's memory, as the
// Unified Runtime's urUsmP2PEnablePeerAccessExp (cuCtxEnablePeerAccess);
// where the access needs no enabling (PeerAccess.NeedsEnable false) it
// does nothing. A pair without a direct path gives ErrUnsupportedFeature,
// saying so: copies between them still work (Queue.CopyPeer, staged).
func (d *Device) EnablePeerAccess(peer *Device) (rerr error) {
	const op = "Device.EnablePeerAccess"
	if t := trace.Active(); t != nil {
		tc := beginCall(t, op, d, peer)
		defer tc.end(&rerr)
	}

	return d.setPeerAccess(op, peer, true)
}

// DisablePeerAccess undoes EnablePeerAccess
// (urUsmP2PDisablePeerAccessExp).
func (d *Device) DisablePeerAccess(peer *Device) (rerr error) {
	const op = "Device.DisablePeerAccess"
	if t := trace.Active(); t != nil {
		tc := beginCall(t, op, d, peer)
		defer tc.end(&rerr)
	}

	return d.setPeerAccess(op, peer, false)
}

func (d *Device) setPeerAccess(op string, peer *Device, enable bool) error {
	pd, err := d.peerDevice(op, peer)
	if err != nil {
		return err
	}
	if d.drv == peer.drv {
		return nil
	}
	if pd == nil {
		return newError(ErrUnsupportedFeature, op, d.adapter.name, "the %s adapter has no peer access; copies between %q and %q are staged through host memory", d.adapter.name, d.info.Name, peer.info.Name)
	}
	pa, err := pd.PeerAccess(peer.drv)
	if err != nil {
		return wrapError(err, op, d.adapter.name)
	}
	if !pa.Supported {
		return newError(ErrUnsupportedFeature, op, d.adapter.name, "%q cannot reach the memory of %q directly; copies between them are staged through host memory", d.info.Name, peer.info.Name)
	}
	key := peerKey{d.drv, peer.drv}
	if enable {
		if err = pd.EnablePeerAccess(peer.drv); err == nil {
			d.adapter.peers.Store(key, struct{}{})
		}
	} else {
		if err = pd.DisablePeerAccess(peer.drv); err == nil {
			d.adapter.peers.Delete(key)
		}
	}
	return wrapError(err, op, d.adapter.name)
}

// peerDevice checks d and peer and returns d's driver device as a
// PeerDevice, or nil where the adapter has none or peer is d.
func (d *Device) peerDevice(op string, peer *Device) (driver.PeerDevice, error) {
	if d == nil {
		return nil, nilHandle("Device", op)
	}
	if peer == nil {
		return nil, nilHandle("peer Device", op)
	}
	if err := d.usable(op); err != nil {
		return nil, err
	}
	if err := peer.usable(op); err != nil {
		return nil, err
	}
	if peer.adapter != d.adapter {
		return nil, newError(ErrInvalidDevice, op, d.adapter.name, "peer %q is a device of the %s adapter", peer.info.Name, peer.adapter.name)
	}
	if peer.drv == d.drv {
		return nil, nil
	}
	pd, _ := d.drv.(driver.PeerDevice)
	return pd, nil
}
