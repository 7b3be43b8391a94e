package cuda

import (
	"fmt"

	"github.com/gour-dev/gour/adapters/cuda/internal/cu"
	"github.com/gour-dev/gour/ur/driver"
)

// This file answers the Unified Runtime's device queries
// (driver.DeviceQuerier) with cuDeviceGetAttribute, and with what every
// NVIDIA GPU has where CUDA has no attribute (as the Unified Runtime's
// CUDA adapter answers them).

var _ driver.DeviceQuerier = (*device)(nil)

// CUdevice_attribute values the adapter reads only here.
const (
	attrTexture1DWidth         cu.DeviceAttribute = 21
	attrTexture2DWidth         cu.DeviceAttribute = 22
	attrTexture2DHeight        cu.DeviceAttribute = 23
	attrTexture3DWidth         cu.DeviceAttribute = 24
	attrTexture3DHeight        cu.DeviceAttribute = 25
	attrTexture3DDepth         cu.DeviceAttribute = 26
	attrTexture2DLayeredLayers cu.DeviceAttribute = 29
	attrTexturePitchAlignment  cu.DeviceAttribute = 51
	attrTexture2DLinearWidth   cu.DeviceAttribute = 70
	attrTexture2DLinearHeight  cu.DeviceAttribute = 71
	attrTexture2DLinearPitch   cu.DeviceAttribute = 72
	attrClusterLaunch          cu.DeviceAttribute = 120
	attrIPCEventSupported      cu.DeviceAttribute = 125
)

// Query answers q for the device.
func (d *device) Query(q driver.DeviceQuery) (any, error) {
	l := d.a.cu
	var attrErr error
	attr := func(a cu.DeviceAttribute) int32 {
		v, r := l.DeviceGetAttribute(a, d.ordinal)
		if err := check("cuDeviceGetAttribute", r); err != nil && attrErr == nil {
			attrErr = err
		}
		return v
	}
	u32 := func(a cu.DeviceAttribute) (any, error) {
		v := attr(a)
		if attrErr != nil {
			return nil, driver.Unanswered(q, fmt.Sprintf("cuDeviceGetAttribute(%d): %v", a, attrErr))
		}
		return uint32(max(v, 0)), nil
	}
	u64 := func(a cu.DeviceAttribute) (any, error) {
		v := attr(a)
		if attrErr != nil {
			return nil, driver.Unanswered(q, fmt.Sprintf("cuDeviceGetAttribute(%d): %v", a, attrErr))
		}
		return uint64(max(v, 0)), nil
	}
	minU64 := func(a, b cu.DeviceAttribute) (any, error) {
		v := min(attr(a), attr(b))
		if attrErr != nil {
			return nil, driver.Unanswered(q, fmt.Sprintf("cuDeviceGetAttribute(%d, %d): %v", a, b, attrErr))
		}
		return uint64(max(v, 0)), nil
	}
	flag := func(a cu.DeviceAttribute) (any, error) {
		v := attr(a)
		if attrErr != nil {
			return nil, driver.Unanswered(q, fmt.Sprintf("cuDeviceGetAttribute(%d): %v", a, attrErr))
		}
		return v != 0, nil
	}
	cc := func() int32 {
		return attr(cu.DeviceAttributeComputeCapabilityMajor)*10 + attr(cu.DeviceAttributeComputeCapabilityMinor)
	}
	const fpFull = driver.FPRoundToNearest | driver.FPRoundToZero | driver.FPRoundToInf | driver.FPInfNaN | driver.FPDenorm | driver.FPFMA
	switch q {
	case driver.DeviceInfoType:
		return uint32(driver.URDeviceTypeGPU), nil
	case driver.DeviceInfoDeviceID:
		return u32(cu.DeviceAttributePCIDeviceID)
	case driver.DeviceInfoMaxWorkItemDimensions:
		return uint32(3), nil
	case driver.DeviceInfoMaxWorkGroups3D:
		return []uint64{uint64(d.maxGrid[0]), uint64(d.maxGrid[1]), uint64(d.maxGrid[2])}, nil
	case driver.DeviceInfoSingleFPConfig:
		return uint64(fpFull | driver.FPCorrectlyRoundedDivideSqrt), nil
	case driver.DeviceInfoDoubleFPConfig:
		return uint64(fpFull), nil
	case driver.DeviceInfoHalfFPConfig:
		if cc() < 53 {
			return uint64(0), nil
		}
		return uint64(fpFull), nil
	case driver.DeviceInfoQueueProperties, driver.DeviceInfoQueueOnHostProperties:
		return uint64(driver.QueueFlagOutOfOrder | driver.QueueFlagProfiling), nil
	case driver.DeviceInfoQueueOnDeviceProperties:
		return uint64(0), nil
	case driver.DeviceInfoMemoryClockRate:
		v := attr(cu.DeviceAttributeMemoryClockRate) // kHz
		if attrErr != nil {
			return nil, driver.Unanswered(q, attrErr.Error())
		}
		return uint32(max(v, 0) / 1000), nil
	case driver.DeviceInfoMemoryBusWidth:
		return u32(cu.DeviceAttributeGlobalMemoryBusWidth)
	case driver.DeviceInfoMaxMemoryBandwidth:
		khz, bits := attr(cu.DeviceAttributeMemoryClockRate), attr(cu.DeviceAttributeGlobalMemoryBusWidth)
		if attrErr != nil || khz <= 0 || bits <= 0 {
			return nil, driver.Unanswered(q, "the memory clock or bus width is unknown")
		}
		// Double data rate: two transfers a clock.
		return uint64(khz) * 1000 * 2 * uint64(bits) / 8, nil
	case driver.DeviceInfoImageSupported:
		return true, nil // CUDA arrays with surface objects (image.go)
	case driver.DeviceInfoMaxReadImageArgs, driver.DeviceInfoMaxWriteImageArgs, driver.DeviceInfoMaxReadWriteImageArgs:
		return uint32(128), nil // the texture and surface objects a kernel may take (UR's CUDA adapter says the same)
	// An image is an array that textures and surfaces both reach
	// (image.go): its limits are the smaller of the two.
	case driver.DeviceInfoImage2DMaxWidth:
		return minU64(attrTexture2DWidth, attrSurface2DWidth)
	case driver.DeviceInfoImage2DMaxHeight:
		return minU64(attrTexture2DHeight, attrSurface2DHeight)
	case driver.DeviceInfoImage3DMaxWidth:
		return minU64(attrTexture3DWidth, attrSurface3DWidth)
	case driver.DeviceInfoImage3DMaxHeight:
		return minU64(attrTexture3DHeight, attrSurface3DHeight)
	case driver.DeviceInfoImage3DMaxDepth:
		return minU64(attrTexture3DDepth, attrSurface3DDepth)
	case driver.DeviceInfoImageMaxBufferSize:
		return u64(attrTexture1DWidth)
	case driver.DeviceInfoImageMaxArraySize:
		return minU64(attrTexture2DLayeredLayers, attrSurface2DLayeredLayers)
	case driver.DeviceInfoImagePitchAlignExp:
		return u32(attrTexturePitchAlignment)
	case driver.DeviceInfoMaxImageLinearWidthExp:
		return u64(attrTexture2DLinearWidth)
	case driver.DeviceInfoMaxImageLinearHeightExp:
		return u64(attrTexture2DLinearHeight)
	case driver.DeviceInfoMaxImageLinearPitchExp:
		return u64(attrTexture2DLinearPitch)
	case driver.DeviceInfoMaxSamplers:
		return uint32(16), nil
	case driver.DeviceInfoMaxParameterSize:
		return uint64(4000), nil // the kernel parameter limit of every CUDA version gour supports
	case driver.DeviceInfoMemBaseAddrAlign:
		return uint32(usmAlign * 8), nil // bits, as OpenCL's
	case driver.DeviceInfoGlobalMemCacheType:
		return uint32(driver.CacheReadWrite), nil
	case driver.DeviceInfoGlobalMemCachelineSize:
		return uint32(128), nil
	case driver.DeviceInfoGlobalMemCacheSize:
		return u64(cu.DeviceAttributeL2CacheSize)
	case driver.DeviceInfoMaxConstantBufferSize:
		return u64(cu.DeviceAttributeTotalConstantMemory)
	case driver.DeviceInfoMaxConstantArgs:
		return uint32(9), nil
	case driver.DeviceInfoLocalMemType:
		return uint32(driver.LocalMemLocal), nil
	case driver.DeviceInfoErrorCorrectionSupport:
		return flag(cu.DeviceAttributeECCEnabled)
	case driver.DeviceInfoEndianLittle, driver.DeviceInfoAvailable, driver.DeviceInfoCompilerAvailable,
		driver.DeviceInfoLinkerAvailable, driver.DeviceInfoAtomic64, driver.DeviceInfoPreferredInteropUserSync,
		driver.DeviceInfoKernelSetSpecializationConstants, driver.DeviceInfoGlobalVariableSupport:
		return true, nil
	case driver.DeviceInfoProgramSetSpecializationConstants, driver.DeviceInfoBuildOnSubdevice,
		driver.DeviceInfoImageSRGB, driver.DeviceInfoMemChannelSupport, driver.DeviceInfoHostPipeReadWriteSupported,
		driver.DeviceInfoESIMDSupport, driver.DeviceInfoBindlessImagesSupportExp:
		return false, nil
	case driver.DeviceInfoExecutionCapabilities:
		return uint64(driver.ExecKernel), nil
	case driver.DeviceInfoBuiltInKernels:
		return "", nil
	case driver.DeviceInfoProfile:
		return "CUDA", nil
	case driver.DeviceInfoBackendRuntimeVersion:
		return d.info.DeviceVersion, nil // the compute capability, as UR's CUDA adapter answers
	case driver.DeviceInfoPrintfBufferSize:
		return uint64(1 << 20), nil // CU_LIMIT_PRINTF_FIFO_SIZE's default
	case driver.DeviceInfoMaxNumSubGroups:
		warp := max(attr(cu.DeviceAttributeWarpSize), 1)
		return uint32(attr(cu.DeviceAttributeMaxThreadsPerBlock) / warp), nil
	case driver.DeviceInfoSubGroupSizesIntel:
		return []uint32{uint32(max(attr(cu.DeviceAttributeWarpSize), 1))}, nil
	case driver.DeviceInfoSubGroupIndependentForwardProgress:
		return cc() >= 70, nil
	case driver.DeviceInfoUUID:
		if d.info.UUID == "" {
			return nil, driver.Unanswered(q, "the driver has no cuDeviceGetUuid")
		}
		u, r := l.DeviceGetUUID(d.ordinal)
		if err := check("cuDeviceGetUuid", r); err != nil {
			return nil, err
		}
		return u[:], nil
	case driver.DeviceInfoPCIAddress:
		dom, bus, dev := attr(cu.DeviceAttributePCIDomainID), attr(cu.DeviceAttributePCIBusID), attr(cu.DeviceAttributePCIDeviceID)
		if attrErr != nil {
			return nil, driver.Unanswered(q, attrErr.Error())
		}
		return fmt.Sprintf("%04x:%02x:%02x.0", dom, bus, dev), nil
	case driver.DeviceInfoAtomicMemoryOrderCapabilities, driver.DeviceInfoAtomicFenceOrderCapabilities:
		f := uint64(driver.MemoryOrderRelaxed)
		if cc() >= 70 {
			f |= driver.MemoryOrderAcquire | driver.MemoryOrderRelease | driver.MemoryOrderAcqRel | driver.MemoryOrderSeqCst
		}
		return f, nil
	case driver.DeviceInfoAtomicMemoryScopeCapabilities, driver.DeviceInfoAtomicFenceScopeCapabilities:
		f := uint64(driver.MemoryScopeWorkItem | driver.MemoryScopeSubGroup | driver.MemoryScopeWorkGroup | driver.MemoryScopeDevice)
		if cc() >= 60 {
			f |= driver.MemoryScopeSystem
		}
		return f, nil
	case driver.DeviceInfoBFloat16:
		return cc() >= 80, nil
	case driver.DeviceInfoAsyncBarrier:
		return cc() >= 80, nil
	case driver.DeviceInfoMaxComputeQueueIndices:
		return uint32(1), nil
	case driver.DeviceInfoMaxRegistersPerWorkGroup:
		return u32(cu.DeviceAttributeMaxRegistersPerBlock)
	case driver.DeviceInfoIPVersion:
		return uint32(cc()), nil // the compute capability as major*10+minor: 90 for sm_90
	case driver.DeviceInfoVirtualMemorySupport:
		return flag(cu.DeviceAttributeVirtualMemoryManagementSupported)
	case driver.DeviceInfoClusterLaunchExp:
		return flag(attrClusterLaunch)
	case driver.DeviceInfoCommandBufferSupportExp, driver.DeviceInfoCommandBufferEventSupportExp:
		return true, nil // CUDA graphs
	case driver.DeviceInfoUSMHostSupport, driver.DeviceInfoUSMDeviceSupport:
		return uint64(driver.USMAccess | driver.USMAtomicAccess | driver.USMConcurrentAccess | driver.USMAtomicConcurrentAccess), nil
	case driver.DeviceInfoUSMSingleSharedSupport, driver.DeviceInfoUSMCrossSharedSupport:
		if !d.managed {
			return uint64(0), nil
		}
		f := uint64(driver.USMAccess | driver.USMAtomicAccess)
		if d.concurrent {
			f |= driver.USMConcurrentAccess | driver.USMAtomicConcurrentAccess
		}
		return f, nil
	case driver.DeviceInfoUSMSystemSharedSupport:
		v := attr(cu.DeviceAttributePageableMemoryAccess)
		if attrErr != nil || v == 0 {
			return uint64(0), nil
		}
		return uint64(driver.USMAccess | driver.USMAtomicAccess | driver.USMConcurrentAccess | driver.USMAtomicConcurrentAccess), nil
	case driver.DeviceInfoAsyncUSMAllocationsExp:
		return d.pools, nil
	case driver.DeviceInfoTimestampRecordingSupportExp, driver.DeviceInfoEnqueueNativeCommandSupportExp, driver.DeviceInfoLowPowerEventsExp:
		return nil, driver.Unanswered(q, "the front end answers it")
	}
	return nil, driver.Unanswered(q, "CUDA has no attribute for it")
}
