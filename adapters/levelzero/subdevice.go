package levelzero

import (
	"github.com/gour-dev/gour/adapters/levelzero/internal/ze"
	"github.com/gour-dev/gour/ur/driver"
)

// Sub-devices are Level Zero's: the tiles of a GPU, which
// zeDeviceGetSubDevices lists and the driver keeps for its life. A device
// splits one way, along the tiles, which the Unified Runtime's Level Zero
// adapter reports as a partition by affinity domain (NUMA, or the next
// partitionable level); releasing a sub-device frees nothing. Contexts,
// queues, programs and memory take sub-devices as they take root devices.

var (
	_ driver.PartitionDevice = (*device)(nil)
	_ driver.SubDevice       = (*device)(nil)
	_ driver.PeerDevice      = (*device)(nil)
)

// subDevices lists the device's sub-devices once, opening each as a root
// device is opened.
func (d *device) subDevices() ([]driver.Device, error) {
	d.subOnce.Do(func() {
		hs, r := d.p.a.ze.DeviceGetSubDevices(d.handle)
		if r == ze.NotSupported || r == ze.ErrorUnsupportedFeature {
			return // a loader or driver without sub-devices: none
		}
		if err := check("zeDeviceGetSubDevices", r); err != nil {
			d.subErr = err
			return
		}
		for _, h := range hs {
			sd, err := d.p.openDevice(h)
			if err != nil {
				d.subErr = err
				d.subs = nil
				return
			}
			sd.parent = d
			d.subs = append(d.subs, sd)
		}
	})
	return d.subs, d.subErr
}

// PartitionInfo: a device with sub-devices splits by affinity domain,
// into all of them.
func (d *device) PartitionInfo() driver.PartitionInfo {
	subs, _ := d.subDevices()
	if len(subs) == 0 {
		return driver.PartitionInfo{}
	}
	return driver.PartitionInfo{
		MaxSubDevices: uint32(len(subs)),
		Kinds:         []driver.PartitionKind{driver.PartitionByAffinityDomain},
		Domains:       []driver.AffinityDomain{driver.AffinityNUMA, driver.AffinityNextPartitionable},
	}
}

// Partition returns the sub-devices; the front end has checked that the
// partition is by one of the domains PartitionInfo lists.
func (d *device) Partition(driver.Partition) ([]driver.Device, error) {
	subs, err := d.subDevices()
	if err != nil {
		return nil, err
	}
	if len(subs) == 0 {
		return nil, driver.Errorf(driver.ResultDevicePartitionFailed, "device %q has no sub-devices", d.info.Name)
	}
	return append([]driver.Device(nil), subs...), nil
}

// Parent is the device a sub-device is a tile of.
func (d *device) Parent() driver.Device {
	if d.parent == nil {
		return nil
	}
	return d.parent
}

// PartitionType: a sub-device is one NUMA domain (a tile) of its parent.
func (d *device) PartitionType() driver.Partition {
	if d.parent == nil {
		return driver.Partition{}
	}
	return driver.Partition{Kind: driver.PartitionByAffinityDomain, Domain: driver.AffinityNUMA}
}

// Release frees nothing: the driver keeps its sub-devices.
func (d *device) Release() error { return nil }

// PeerAccess: tiles of one device reach each other's memory as their
// parent's; other pairs as zeDeviceCanAccessPeer says, with no enabling.
func (d *device) PeerAccess(peer driver.Device) (driver.PeerAccess, error) {
	p := peer.(*device)
	if d.root() == p.root() {
		return driver.PeerAccess{Supported: true, Atomics: true, Via: "same-device"}, nil
	}
	ok, r := d.p.a.ze.DeviceCanAccessPeer(d.handle, p.handle)
	if r == ze.NotSupported || r == ze.ErrorUnsupportedFeature {
		return driver.PeerAccess{Via: "host"}, nil
	}
	if err := check("zeDeviceCanAccessPeer", r); err != nil {
		return driver.PeerAccess{}, err
	}
	if !ok {
		return driver.PeerAccess{Via: "host"}, nil
	}
	return driver.PeerAccess{Supported: true, Via: "p2p"}, nil
}

// EnablePeerAccess does nothing: Level Zero needs no enabling.
func (d *device) EnablePeerAccess(driver.Device) error { return nil }

// DisablePeerAccess does nothing, as EnablePeerAccess.
func (d *device) DisablePeerAccess(driver.Device) error { return nil }

func (d *device) root() *device {
	for d.parent != nil {
		d = d.parent
	}
	return d
}
