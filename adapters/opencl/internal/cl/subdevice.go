package cl

import (
	"unsafe"

	"github.com/gour-dev/gour/internal/dl"
)

// Device partition queries and properties (OpenCL 1.2).
const (
	DeviceParentDevice            = 0x1042 // CL_DEVICE_PARENT_DEVICE
	DevicePartitionMaxSubDevices  = 0x1043 // CL_DEVICE_PARTITION_MAX_SUB_DEVICES
	DevicePartitionProperties     = 0x1044 // CL_DEVICE_PARTITION_PROPERTIES
	DevicePartitionAffinityDomain = 0x1045 // CL_DEVICE_PARTITION_AFFINITY_DOMAIN
	DevicePartitionType           = 0x1046 // CL_DEVICE_PARTITION_TYPE

	DevicePartitionEqually          = 0x1086 // CL_DEVICE_PARTITION_EQUALLY
	DevicePartitionByCounts         = 0x1087 // CL_DEVICE_PARTITION_BY_COUNTS
	DevicePartitionByCountsListEnd  = 0x0    // CL_DEVICE_PARTITION_BY_COUNTS_LIST_END
	DevicePartitionByAffinityDomain = 0x1088 // CL_DEVICE_PARTITION_BY_AFFINITY_DOMAIN

	// cl_device_affinity_domain bits.
	DeviceAffinityDomainNUMA              = 1 << 0
	DeviceAffinityDomainL4Cache           = 1 << 1
	DeviceAffinityDomainL3Cache           = 1 << 2
	DeviceAffinityDomainL2Cache           = 1 << 3
	DeviceAffinityDomainL1Cache           = 1 << 4
	DeviceAffinityDomainNextPartitionable = 1 << 5
)

// HasCreateSubDevices reports whether the loader has clCreateSubDevices.
func (l *Lib) HasCreateSubDevices() bool { return l.createSubDevices != 0 }

// CreateSubDevices calls clCreateSubDevices with properties (a list ending
// in 0), counting the sub-devices first.
func (l *Lib) CreateSubDevices(d Device, properties []uintptr) ([]Device, Status) {
	var n uint32
	f := dl.NewFrame()
	f.Args = dl.Args{uintptr(d), f.Ptr(0, dl.First(properties)), 0, 0, f.Ptr(1, unsafe.Pointer(&n))}
	r, _, _ := f.Call(l.createSubDevices)
	if s := status(r); s != Success {
		return nil, s
	}
	if n == 0 {
		return nil, DevicePartitionFailed
	}
	out := make([]Device, n)
	f = dl.NewFrame()
	f.Args = dl.Args{uintptr(d), f.Ptr(0, dl.First(properties)), uintptr(n), f.Ptr(1, dl.First(out)), 0}
	r, _, _ = f.Call(l.createSubDevices)
	if s := status(r); s != Success {
		return nil, s
	}
	return out, Success
}
