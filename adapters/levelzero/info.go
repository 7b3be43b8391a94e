package levelzero

import (
	"fmt"

	"github.com/gour-dev/gour/adapters/levelzero/internal/ze"
	"github.com/gour-dev/gour/ur/driver"
)

// This file answers the Unified Runtime's device queries
// (driver.DeviceQuerier) from zeDeviceGetProperties,
// zeDeviceGetComputeProperties, zeDeviceGetModuleProperties,
// zeDeviceGetMemoryProperties, zeDeviceGetMemoryAccessProperties and
// zeDeviceGetImageProperties, read when asked. Cache and P2P properties
// are not read: those queries are unsupported here.

var _ driver.DeviceQuerier = (*device)(nil)

// Query answers q for the device.
func (d *device) Query(q driver.DeviceQuery) (any, error) {
	l := d.p.a.ze
	h := d.handle
	props := func() (*ze.DeviceProperties, error) {
		p, r := l.DeviceGetProperties(h)
		if err := check("zeDeviceGetProperties", r); err != nil {
			return nil, err
		}
		return p, nil
	}
	module := func() (*ze.DeviceModuleProperties, error) {
		p, r := l.DeviceGetModuleProperties(h)
		if err := check("zeDeviceGetModuleProperties", r); err != nil {
			return nil, err
		}
		return p, nil
	}
	switch q {
	case driver.DeviceInfoDeviceID, driver.DeviceInfoGPUEUSIMDWidth, driver.DeviceInfoGPUEUSlices,
		driver.DeviceInfoGPUEUCountPerSubslice, driver.DeviceInfoGPUSubslicesPerSlice, driver.DeviceInfoGPUHWThreadsPerEU,
		driver.DeviceInfoGPUEUCount, driver.DeviceInfoErrorCorrectionSupport, driver.DeviceInfoMaxComputeQueueIndices:
		p, err := props()
		if err != nil {
			return nil, err
		}
		switch q {
		case driver.DeviceInfoDeviceID:
			return p.DeviceID, nil
		case driver.DeviceInfoGPUEUSIMDWidth:
			return p.PhysicalEUSimdWidth, nil
		case driver.DeviceInfoGPUEUSlices:
			return p.NumSlices, nil
		case driver.DeviceInfoGPUEUCountPerSubslice:
			return p.NumEUsPerSubslice, nil
		case driver.DeviceInfoGPUSubslicesPerSlice:
			return p.NumSubslicesPerSlice, nil
		case driver.DeviceInfoGPUHWThreadsPerEU:
			return p.NumThreadsPerEU, nil
		case driver.DeviceInfoGPUEUCount:
			return p.NumEUsPerSubslice * p.NumSubslicesPerSlice * p.NumSlices, nil
		case driver.DeviceInfoErrorCorrectionSupport:
			return p.Flags&ze.DevicePropertyFlagECC != 0, nil
		case driver.DeviceInfoMaxComputeQueueIndices:
			return max(p.MaxHardwareContexts, 1), nil
		}
	case driver.DeviceInfoSingleFPConfig, driver.DeviceInfoDoubleFPConfig, driver.DeviceInfoHalfFPConfig,
		driver.DeviceInfoMaxParameterSize, driver.DeviceInfoPrintfBufferSize, driver.DeviceInfoAtomic64:
		m, err := module()
		if err != nil {
			return nil, err
		}
		switch q {
		case driver.DeviceInfoSingleFPConfig:
			return fpFlags(m.FP32Flags), nil
		case driver.DeviceInfoDoubleFPConfig:
			return fpFlags(m.FP64Flags), nil
		case driver.DeviceInfoHalfFPConfig:
			return fpFlags(m.FP16Flags), nil
		case driver.DeviceInfoMaxParameterSize:
			return uint64(m.MaxArgumentsSize), nil
		case driver.DeviceInfoPrintfBufferSize:
			return uint64(m.PrintfBufferSize), nil
		case driver.DeviceInfoAtomic64:
			return m.Flags&ze.DeviceModuleFlagInt64Atomics != 0, nil
		}
	case driver.DeviceInfoMemoryClockRate, driver.DeviceInfoMemoryBusWidth, driver.DeviceInfoMaxMemoryBandwidth:
		mems, r := l.DeviceGetMemoryProperties(h)
		if err := check("zeDeviceGetMemoryProperties", r); err != nil {
			return nil, err
		}
		if len(mems) == 0 {
			return nil, driver.Unanswered(q, "zeDeviceGetMemoryProperties lists no memory")
		}
		m := mems[0]
		switch q {
		case driver.DeviceInfoMemoryClockRate:
			return m.MaxClockRate, nil
		case driver.DeviceInfoMemoryBusWidth:
			return m.MaxBusWidth, nil
		default:
			if m.MaxClockRate == 0 || m.MaxBusWidth == 0 {
				return nil, driver.Unanswered(q, "the driver reports no memory clock or bus width")
			}
			return uint64(m.MaxClockRate) * 1_000_000 * uint64(m.MaxBusWidth) / 8, nil
		}
	case driver.DeviceInfoUSMHostSupport, driver.DeviceInfoUSMDeviceSupport, driver.DeviceInfoUSMSingleSharedSupport,
		driver.DeviceInfoUSMCrossSharedSupport, driver.DeviceInfoUSMSystemSharedSupport:
		a, r := l.DeviceGetMemoryAccessProperties(h)
		if err := check("zeDeviceGetMemoryAccessProperties", r); err != nil {
			return nil, err
		}
		// ze_memory_access_cap_flags_t has the Unified Runtime's bits.
		return uint64(map[driver.DeviceQuery]uint32{
			driver.DeviceInfoUSMHostSupport:         a.HostAllocCapabilities,
			driver.DeviceInfoUSMDeviceSupport:       a.DeviceAllocCapabilities,
			driver.DeviceInfoUSMSingleSharedSupport: a.SharedSingleDeviceAllocCapabilities,
			driver.DeviceInfoUSMCrossSharedSupport:  a.SharedCrossDeviceAllocCapabilities,
			driver.DeviceInfoUSMSystemSharedSupport: a.SharedSystemAllocCapabilities,
		}[q]), nil
	case driver.DeviceInfoMaxWorkGroups3D:
		return []uint64{uint64(d.maxGroupCount[0]), uint64(d.maxGroupCount[1]), uint64(d.maxGroupCount[2])}, nil
	case driver.DeviceInfoSubGroupSizesIntel:
		return append([]uint32(nil), d.subGroupSizes...), nil
	case driver.DeviceInfoMaxNumSubGroups:
		if len(d.subGroupSizes) == 0 {
			return nil, driver.Unanswered(q, "the driver lists no sub-group size")
		}
		return d.maxTotalGroup / d.subGroupSizes[0], nil
	case driver.DeviceInfoUUID:
		p, err := props()
		if err != nil {
			return nil, err
		}
		return append([]byte(nil), p.UUID.ID[:]...), nil
	case driver.DeviceInfoQueueProperties, driver.DeviceInfoQueueOnHostProperties:
		return uint64(driver.QueueFlagOutOfOrder | driver.QueueFlagProfiling), nil
	case driver.DeviceInfoQueueOnDeviceProperties:
		return uint64(0), nil
	case driver.DeviceInfoLocalMemType:
		return uint32(driver.LocalMemLocal), nil
	case driver.DeviceInfoExecutionCapabilities:
		return uint64(driver.ExecKernel), nil
	case driver.DeviceInfoEndianLittle, driver.DeviceInfoCompilerAvailable, driver.DeviceInfoLinkerAvailable,
		driver.DeviceInfoKernelSetSpecializationConstants, driver.DeviceInfoCommandBufferSupportExp:
		return true, nil
	case driver.DeviceInfoVirtualMemorySupport:
		return true, nil // zeVirtualMem*, in every Level Zero 1.0 driver
	case driver.DeviceInfoProgramSetSpecializationConstants:
		return false, nil // not yet through gour on this adapter
	case driver.DeviceInfoImageSupported, driver.DeviceInfoImage2DMaxWidth, driver.DeviceInfoImage2DMaxHeight,
		driver.DeviceInfoImage3DMaxWidth, driver.DeviceInfoImage3DMaxHeight, driver.DeviceInfoImage3DMaxDepth,
		driver.DeviceInfoImageMaxArraySize, driver.DeviceInfoImageMaxBufferSize, driver.DeviceInfoMaxSamplers,
		driver.DeviceInfoMaxReadImageArgs, driver.DeviceInfoMaxWriteImageArgs, driver.DeviceInfoMaxReadWriteImageArgs:
		return d.imageQuery(q)
	case driver.DeviceInfoProfile:
		return "FULL_PROFILE", nil
	case driver.DeviceInfoBuiltInKernels:
		return "", nil
	case driver.DeviceInfoBackendRuntimeVersion:
		return fmt.Sprintf("%d.%d", d.p.api.Major(), d.p.api.Minor()), nil
	case driver.DeviceInfoMaxWorkItemDimensions:
		return uint32(3), nil
	}
	return nil, driver.Unanswered(q, "gour does not read it from Level Zero")
}

// fpFlags maps ze_device_fp_flags_t to ur_device_fp_capability_flags_t.
func fpFlags(f uint32) uint64 {
	var out uint64
	for _, m := range [...]struct {
		ze uint32
		ur uint64
	}{
		{1 << 0, driver.FPDenorm}, {1 << 1, driver.FPInfNaN}, {1 << 2, driver.FPRoundToNearest},
		{1 << 3, driver.FPRoundToZero}, {1 << 4, driver.FPRoundToInf}, {1 << 5, driver.FPFMA},
		{1 << 6, driver.FPCorrectlyRoundedDivideSqrt}, {1 << 7, driver.FPSoftFloat},
	} {
		if f&m.ze != 0 {
			out |= m.ur
		}
	}
	return out
}
