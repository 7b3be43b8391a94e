package driver

import (
	"fmt"
	"strings"
)

// This file holds what a context of several devices needs beyond the
// Context interface: splitting a device into sub-devices (the Unified
// Runtime's urDevicePartition) and access between devices (its usm_p2p
// experimental feature). Both are optional interfaces a device
// implements; the front end checks the arguments (counts, domains,
// devices of one adapter) before an adapter sees them and answers
// ErrUnsupported for an adapter without them.

// PartitionKind says how a device is split, as the Unified Runtime's
// ur_device_partition_t and OpenCL's cl_device_partition_property.
type PartitionKind uint8

// Partition kinds.
const (
	// PartitionNone: not a sub-device (DeviceInfo.Partition of a root
	// device).
	PartitionNone PartitionKind = iota
	// PartitionEqually: as many sub-devices as fit, each of
	// Partition.Units compute units (CL_DEVICE_PARTITION_EQUALLY).
	PartitionEqually
	// PartitionByCounts: one sub-device per entry of Partition.Counts,
	// of that many compute units (CL_DEVICE_PARTITION_BY_COUNTS).
	PartitionByCounts
	// PartitionByAffinityDomain: one sub-device per cache or NUMA domain
	// (CL_DEVICE_PARTITION_BY_AFFINITY_DOMAIN; Level Zero's sub-devices,
	// the tiles of a GPU).
	PartitionByAffinityDomain
)

// String names the kind: "equally", "by-counts", "by-affinity-domain" or
// "none".
func (k PartitionKind) String() string {
	switch k {
	case PartitionEqually:
		return "equally"
	case PartitionByCounts:
		return "by-counts"
	case PartitionByAffinityDomain:
		return "by-affinity-domain"
	}
	return "none"
}

// AffinityDomain is the level of the memory hierarchy a partition by
// affinity domain follows, as ur_device_affinity_domain_flags_t.
type AffinityDomain uint8

// Affinity domains; a device lists those it splits along in
// PartitionInfo.Domains.
const (
	AffinityNUMA AffinityDomain = 1 + iota
	AffinityL4Cache
	AffinityL3Cache
	AffinityL2Cache
	AffinityL1Cache
	// AffinityNextPartitionable: the first of the levels above, from
	// NUMA down, along which the device splits.
	AffinityNextPartitionable
)

// String names the domain: "numa", "l4", "l3", "l2", "l1",
// "next-partitionable".
func (a AffinityDomain) String() string {
	switch a {
	case AffinityNUMA:
		return "numa"
	case AffinityL4Cache:
		return "l4"
	case AffinityL3Cache:
		return "l3"
	case AffinityL2Cache:
		return "l2"
	case AffinityL1Cache:
		return "l1"
	case AffinityNextPartitionable:
		return "next-partitionable"
	}
	return fmt.Sprintf("AffinityDomain(%d)", uint8(a))
}

// Partition says how to split a device, or how a sub-device was split
// from its parent.
type Partition struct {
	Kind PartitionKind
	// Units is the number of compute units of each sub-device of
	// PartitionEqually.
	Units uint32
	// Counts is the number of compute units of each sub-device of
	// PartitionByCounts, one entry per sub-device.
	Counts []uint32
	// Domain is the level PartitionByAffinityDomain follows. A
	// sub-device made along AffinityNextPartitionable reports the level
	// the driver chose where it says.
	Domain AffinityDomain
}

// String formats the partition as its kind and argument: "equally(2)",
// "by-counts(1,3)", "by-affinity-domain(numa)", "none".
func (p Partition) String() string {
	switch p.Kind {
	case PartitionEqually:
		return fmt.Sprintf("equally(%d)", p.Units)
	case PartitionByCounts:
		counts := make([]string, len(p.Counts))
		for i, c := range p.Counts {
			counts[i] = fmt.Sprint(c)
		}
		return "by-counts(" + strings.Join(counts, ",") + ")"
	case PartitionByAffinityDomain:
		return "by-affinity-domain(" + p.Domain.String() + ")"
	}
	return "none"
}

// PartitionInfo says how a device can be split.
type PartitionInfo struct {
	// MaxSubDevices is the most sub-devices one partition makes
	// (CL_DEVICE_PARTITION_MAX_SUB_DEVICES); 0 where the device does not
	// split.
	MaxSubDevices uint32
	// Kinds lists the partition kinds the device takes.
	Kinds []PartitionKind
	// Domains lists the affinity domains the device splits along, for
	// PartitionByAffinityDomain.
	Domains []AffinityDomain
}

// PartitionDevice is implemented by devices that can be split into
// sub-devices. The front end checks the partition against PartitionInfo
// (a kind the device lists, counts within the device's compute units, a
// domain it lists) before Partition sees it.
type PartitionDevice interface {
	PartitionInfo() PartitionInfo
	// Partition splits the device. The sub-devices describe themselves
	// through Info, as root devices do, and are usable in contexts with
	// their parent's other devices and sub-devices.
	Partition(p Partition) ([]Device, error)
}

// SubDevice is implemented by the devices Partition returns.
type SubDevice interface {
	// Parent is the device the sub-device was split from.
	Parent() Device
	// PartitionType is how it was split.
	PartitionType() Partition
	// Release frees the sub-device (clReleaseDevice); contexts made with
	// it keep what they need, as OpenCL's retain it. Adapters whose
	// sub-devices live as long as the driver free nothing.
	Release() error
}

// PeerDevice is implemented by devices that can read and write the memory
// of other devices of their adapter directly (CUDA's peer access, Level
// Zero's zeDeviceCanAccessPeer, sub-devices of one OpenCL device). The
// front end passes only peers of the same adapter, never the device
// itself.
type PeerDevice interface {
	// PeerAccess says whether the device's kernels and copies can reach
	// peer's memory directly (Supported), with atomics (Atomics), and
	// whether EnablePeerAccess is needed first (NeedsEnable).
	PeerAccess(peer Device) (PeerAccess, error)
	// EnablePeerAccess maps peer's memory into the device's address
	// space (cuCtxEnablePeerAccess); adapters whose peers reach each
	// other without it do nothing.
	EnablePeerAccess(peer Device) error
	// DisablePeerAccess undoes EnablePeerAccess.
	DisablePeerAccess(peer Device) error
}

// PeerAccess describes what one device can do with another's memory.
type PeerAccess struct {
	// Supported: kernels and copies on the device reach the peer's
	// memory directly (over NVLink or PCIe, or the same memory).
	Supported bool
	// Atomics: atomic operations on the peer's memory are atomic.
	Atomics bool
	// NeedsEnable: the access must be enabled (EnablePeerAccess) before
	// kernels use it; copies work without (through the driver).
	NeedsEnable bool
	// Via names the path: "p2p" (peer-to-peer over NVLink or PCIe; CUDA
	// and Level Zero do not say which), "same-device" (sub-devices of one
	// device), "host" (no direct path: copies go through host memory).
	Via string
}

// PeerCopyQueue is implemented by queues that copy between memory of
// devices of different contexts of their adapter in one command
// (cuMemcpyPeerAsync). The front end stages the copy through host memory
// for queues without it, and calls these only with memory of two
// contexts, one of them the queue's.
type PeerCopyQueue interface {
	// CopyPeer copies size bytes from src, USM memory of srcCtx (of its
	// device srcDev; nil for host memory), to dst, USM memory of dstCtx
	// (dstDev), ordered on this queue.
	CopyPeer(dst uintptr, dstCtx Context, dstDev Device, src uintptr, srcCtx Context, srcDev Device, size uint64, wait []Event, wantEvent bool) (Event, error)
	// CopyPeerBuffer copies size bytes from src at srcOffset, a buffer of
	// srcCtx, to dst at dstOffset, a buffer of dstCtx, ordered on this
	// queue.
	CopyPeerBuffer(dst Mem, dstOffset uint64, dstCtx Context, src Mem, srcOffset uint64, srcCtx Context, size uint64, wait []Event, wantEvent bool) (Event, error)
}
