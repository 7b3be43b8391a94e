package opencl

import (
	"fmt"
	"strings"

	"github.com/gour-dev/gour/adapters/opencl/internal/cl"
	"github.com/gour-dev/gour/ur/driver"
)

// This file answers the Unified Runtime's device queries
// (driver.DeviceQuerier) with clGetDeviceInfo.

var _ driver.DeviceQuerier = (*device)(nil)

// clQuery says how one query maps to clGetDeviceInfo: the parameter and
// the C type of its value.
type clQuery struct {
	param uint32
	ctype clType
}

type clType uint8

const (
	clUint   clType = iota + 1 // cl_uint
	clUlong                    // cl_ulong, cl_bitfield
	clSize                     // size_t
	clBool                     // cl_bool
	clString                   // char[]
	clSizes                    // size_t[]
)

// clQueries maps the queries that are a clGetDeviceInfo parameter
// unchanged (same meaning, same bits for the bit-fields and enumerators).
var clQueries = map[driver.DeviceQuery]clQuery{
	driver.DeviceInfoVendorID:                           {0x1001, clUint},
	driver.DeviceInfoMaxComputeUnits:                    {0x1002, clUint},
	driver.DeviceInfoNumComputeUnits:                    {0x1002, clUint},
	driver.DeviceInfoMaxWorkItemDimensions:              {0x1003, clUint},
	driver.DeviceInfoMaxWorkGroupSize:                   {0x1004, clSize},
	driver.DeviceInfoMaxWorkItemSizes:                   {0x1005, clSizes},
	driver.DeviceInfoMaxClockFrequency:                  {0x100C, clUint},
	driver.DeviceInfoAddressBits:                        {0x100D, clUint},
	driver.DeviceInfoMaxReadImageArgs:                   {0x100E, clUint},
	driver.DeviceInfoMaxWriteImageArgs:                  {0x100F, clUint},
	driver.DeviceInfoMaxMemAllocSize:                    {0x1010, clUlong},
	driver.DeviceInfoImage2DMaxWidth:                    {0x1011, clSize},
	driver.DeviceInfoImage2DMaxHeight:                   {0x1012, clSize},
	driver.DeviceInfoImage3DMaxWidth:                    {0x1013, clSize},
	driver.DeviceInfoImage3DMaxHeight:                   {0x1014, clSize},
	driver.DeviceInfoImage3DMaxDepth:                    {0x1015, clSize},
	driver.DeviceInfoImageSupported:                     {0x1016, clBool},
	driver.DeviceInfoMaxParameterSize:                   {0x1017, clSize},
	driver.DeviceInfoMaxSamplers:                        {0x1018, clUint},
	driver.DeviceInfoMemBaseAddrAlign:                   {0x1019, clUint},
	driver.DeviceInfoGlobalMemCacheType:                 {0x101C, clUint},
	driver.DeviceInfoGlobalMemCachelineSize:             {0x101D, clUint},
	driver.DeviceInfoGlobalMemCacheSize:                 {0x101E, clUlong},
	driver.DeviceInfoGlobalMemSize:                      {0x101F, clUlong},
	driver.DeviceInfoMaxConstantBufferSize:              {0x1020, clUlong},
	driver.DeviceInfoMaxConstantArgs:                    {0x1021, clUint},
	driver.DeviceInfoLocalMemType:                       {0x1022, clUint},
	driver.DeviceInfoLocalMemSize:                       {0x1023, clUlong},
	driver.DeviceInfoErrorCorrectionSupport:             {0x1024, clBool},
	driver.DeviceInfoProfilingTimerResolution:           {0x1025, clSize},
	driver.DeviceInfoEndianLittle:                       {0x1026, clBool},
	driver.DeviceInfoAvailable:                          {0x1027, clBool},
	driver.DeviceInfoCompilerAvailable:                  {0x1028, clBool},
	driver.DeviceInfoExecutionCapabilities:              {0x1029, clUlong},
	driver.DeviceInfoQueueProperties:                    {0x102A, clUlong},
	driver.DeviceInfoQueueOnHostProperties:              {0x102A, clUlong},
	driver.DeviceInfoName:                               {0x102B, clString},
	driver.DeviceInfoVendor:                             {0x102C, clString},
	driver.DeviceInfoDriverVersion:                      {0x102D, clString},
	driver.DeviceInfoProfile:                            {0x102E, clString},
	driver.DeviceInfoVersion:                            {0x102F, clString},
	driver.DeviceInfoExtensions:                         {0x1030, clString},
	driver.DeviceInfoHostUnifiedMemory:                  {0x1035, clBool},
	driver.DeviceInfoLinkerAvailable:                    {0x103E, clBool},
	driver.DeviceInfoBuiltInKernels:                     {0x103F, clString},
	driver.DeviceInfoImageMaxBufferSize:                 {0x1040, clSize},
	driver.DeviceInfoImageMaxArraySize:                  {0x1041, clSize},
	driver.DeviceInfoReferenceCount:                     {0x1047, clUint},
	driver.DeviceInfoPreferredInteropUserSync:           {0x1048, clBool},
	driver.DeviceInfoPrintfBufferSize:                   {0x1049, clSize},
	driver.DeviceInfoImagePitchAlignExp:                 {0x104A, clUint},
	driver.DeviceInfoMaxReadWriteImageArgs:              {0x104C, clUint},
	driver.DeviceInfoQueueOnDeviceProperties:            {0x104E, clUlong},
	driver.DeviceInfoILVersion:                          {0x105B, clString},
	driver.DeviceInfoMaxNumSubGroups:                    {0x105C, clUint},
	driver.DeviceInfoSubGroupIndependentForwardProgress: {0x105D, clBool},
	driver.DeviceInfoSubGroupSizesIntel:                 {0x4108, clSizes},
	driver.DeviceInfoUSMHostSupport:                     {0x4190, clUlong}, // cl_intel_unified_shared_memory: same bits as UR
	driver.DeviceInfoUSMDeviceSupport:                   {0x4191, clUlong},
	driver.DeviceInfoUSMSingleSharedSupport:             {0x4192, clUlong},
	driver.DeviceInfoUSMCrossSharedSupport:              {0x4193, clUlong},
	driver.DeviceInfoUSMSystemSharedSupport:             {0x4194, clUlong},
	driver.DeviceInfoIPVersion:                          {0x4250, clUint}, // cl_intel_device_attribute_query
	driver.DeviceInfoDeviceID:                           {0x4251, clUint},
	driver.DeviceInfoGPUEUSlices:                        {0x4252, clUint},
	driver.DeviceInfoGPUSubslicesPerSlice:               {0x4253, clUint},
	driver.DeviceInfoGPUEUCountPerSubslice:              {0x4254, clUint},
	driver.DeviceInfoGPUHWThreadsPerEU:                  {0x4255, clUint},
}

// OpenCL 3.0's atomic capabilities (CL_DEVICE_ATOMIC_MEMORY_CAPABILITIES,
// CL_DEVICE_ATOMIC_FENCE_CAPABILITIES) hold orders and scopes in one
// bit-field.
const (
	clAtomicMemoryCapabilities = 0x1063
	clAtomicFenceCapabilities  = 0x1064
	clDeviceUUID               = 0x106A // cl_khr_device_uuid
	clDevicePCIBusInfo         = 0x410F // cl_khr_pci_bus_info
)

// Query answers q with clGetDeviceInfo.
func (d *device) Query(q driver.DeviceQuery) (any, error) {
	lib := d.p.a.lib
	get := func(param uint32) ([]byte, error) {
		b, st := lib.DeviceInfo(d.handle, param)
		if st != cl.Success {
			if st == cl.InvalidValue {
				return nil, driver.Unanswered(q, fmt.Sprintf("clGetDeviceInfo(%#x) returned CL_INVALID_VALUE: the driver does not know it", param))
			}
			return nil, check("clGetDeviceInfo", st)
		}
		return b, nil
	}
	if m, ok := clQueries[q]; ok {
		b, err := get(m.param)
		if err != nil {
			return nil, err
		}
		return clValue(q, m.ctype, b)
	}
	ext := d.info.Extensions
	switch q {
	case driver.DeviceInfoType:
		b, err := get(cl.DeviceType)
		if err != nil {
			return nil, err
		}
		t := cl.Uint64(b)
		switch {
		case t&cl.DeviceTypeGPU != 0:
			return uint32(driver.URDeviceTypeGPU), nil
		case t&cl.DeviceTypeCPU != 0:
			return uint32(driver.URDeviceTypeCPU), nil
		case t&cl.DeviceTypeAccelerator != 0:
			return uint32(driver.URDeviceTypeFPGA), nil
		}
		return uint32(driver.URDeviceTypeMCA), nil
	case driver.DeviceInfoSingleFPConfig, driver.DeviceInfoDoubleFPConfig, driver.DeviceInfoHalfFPConfig:
		param := map[driver.DeviceQuery]uint32{driver.DeviceInfoSingleFPConfig: cl.DeviceSingleFPConfig,
			driver.DeviceInfoDoubleFPConfig: cl.DeviceDoubleFPConfig, driver.DeviceInfoHalfFPConfig: cl.DeviceHalfFPConfig}[q]
		b, err := get(param)
		if err != nil {
			return nil, err
		}
		return clFPFlags(cl.Uint64(b)), nil
	case driver.DeviceInfoBackendRuntimeVersion:
		v := d.info.DeviceVersion // "OpenCL 3.0 PoCL ..."
		if f := strings.Fields(v); len(f) >= 2 {
			return f[1], nil
		}
		return nil, driver.Unanswered(q, "CL_DEVICE_VERSION has no version: "+v)
	case driver.DeviceInfoAtomic64:
		return strings.Contains(ext, "cl_khr_int64_base_atomics"), nil
	case driver.DeviceInfoImageSRGB:
		return strings.Contains(ext, "cl_khr_srgb_image_writes"), nil
	case driver.DeviceInfoMemChannelSupport:
		return strings.Contains(ext, "cl_intel_mem_channel_property"), nil
	case driver.DeviceInfoGlobalVariableSupport:
		return strings.Contains(ext, "cl_intel_global_variable_access"), nil
	case driver.DeviceInfoCommandBufferSupportExp:
		return strings.Contains(ext, "cl_khr_command_buffer"), nil
	case driver.DeviceInfoBuildOnSubdevice:
		return false, nil
	case driver.DeviceInfoVirtualMemorySupport:
		return false, nil // OpenCL has no virtual memory API
	case driver.DeviceInfoKernelSetSpecializationConstants, driver.DeviceInfoProgramSetSpecializationConstants:
		return strings.Contains(d.info.DeviceVersion, "OpenCL 3.") || strings.Contains(d.info.DeviceVersion, "OpenCL 2.2"), nil
	case driver.DeviceInfoMaxComputeQueueIndices:
		return uint32(1), nil
	case driver.DeviceInfoAtomicMemoryOrderCapabilities, driver.DeviceInfoAtomicFenceOrderCapabilities,
		driver.DeviceInfoAtomicMemoryScopeCapabilities, driver.DeviceInfoAtomicFenceScopeCapabilities:
		param := uint32(clAtomicMemoryCapabilities)
		if q == driver.DeviceInfoAtomicFenceOrderCapabilities || q == driver.DeviceInfoAtomicFenceScopeCapabilities {
			param = clAtomicFenceCapabilities
		}
		b, err := get(param)
		if err != nil {
			return nil, err
		}
		caps := cl.Uint64(b)
		if q == driver.DeviceInfoAtomicMemoryOrderCapabilities || q == driver.DeviceInfoAtomicFenceOrderCapabilities {
			return atomicOrders(caps), nil
		}
		return atomicScopes(caps), nil
	case driver.DeviceInfoUUID:
		b, err := get(clDeviceUUID)
		if err != nil {
			return nil, err
		}
		return append([]byte(nil), b...), nil
	case driver.DeviceInfoPCIAddress:
		b, err := get(clDevicePCIBusInfo)
		if err != nil {
			return nil, err
		}
		if len(b) < 16 {
			return nil, driver.Unanswered(q, "CL_DEVICE_PCI_BUS_INFO_KHR is short")
		}
		return fmt.Sprintf("%04x:%02x:%02x.%x", cl.Uint32(b), cl.Uint32(b[4:]), cl.Uint32(b[8:]), cl.Uint32(b[12:])), nil
	case driver.DeviceInfoGPUEUCount:
		if !strings.Contains(ext, "cl_intel_device_attribute_query") {
			return nil, driver.Unanswered(q, "the device lacks cl_intel_device_attribute_query")
		}
		return d.info.ComputeUnits, nil
	}
	return nil, driver.Unanswered(q, "OpenCL has no clGetDeviceInfo parameter for it")
}

// clValue turns clGetDeviceInfo's bytes into the query's Go value.
func clValue(q driver.DeviceQuery, t clType, b []byte) (any, error) {
	short := func(n int) error {
		return driver.Unanswered(q, fmt.Sprintf("clGetDeviceInfo gave %d bytes, want %d", len(b), n))
	}
	switch t {
	case clUint:
		if len(b) < 4 {
			return nil, short(4)
		}
		v := cl.Uint32(b)
		if q.Kind() == driver.QueryUint64 || q.Kind() == driver.QueryFlags {
			return uint64(v), nil
		}
		return v, nil
	case clBool:
		if len(b) < 4 {
			return nil, short(4)
		}
		return cl.Uint32(b) != 0, nil
	case clUlong:
		if len(b) < 8 {
			return nil, short(8)
		}
		return cl.Uint64(b), nil
	case clSize:
		if len(b) < 8 {
			return nil, short(8)
		}
		return uint64(cl.Uintptr(b)), nil
	case clString:
		return strings.TrimSpace(cl.CString(b)), nil
	case clSizes:
		ps := cl.Uintptrs(b)
		if q.Kind() == driver.QueryUint32s {
			out := make([]uint32, len(ps))
			for i, p := range ps {
				out[i] = uint32(p)
			}
			return out, nil
		}
		out := make([]uint64, len(ps))
		for i, p := range ps {
			out[i] = uint64(p)
		}
		return out, nil
	}
	return nil, driver.Unanswered(q, "unknown C type")
}

// OpenCL 3.0's cl_device_atomic_capabilities bits.
const (
	clAtomicOrderRelaxed   = 1 << 0
	clAtomicOrderAcqRel    = 1 << 1
	clAtomicOrderSeqCst    = 1 << 2
	clAtomicScopeWorkItem  = 1 << 3
	clAtomicScopeWorkGroup = 1 << 4
	clAtomicScopeDevice    = 1 << 5
	clAtomicScopeAll       = 1 << 6
)

func atomicOrders(c uint64) uint64 {
	var f uint64
	if c&clAtomicOrderRelaxed != 0 {
		f |= driver.MemoryOrderRelaxed
	}
	if c&clAtomicOrderAcqRel != 0 {
		f |= driver.MemoryOrderAcquire | driver.MemoryOrderRelease | driver.MemoryOrderAcqRel
	}
	if c&clAtomicOrderSeqCst != 0 {
		f |= driver.MemoryOrderSeqCst
	}
	return f
}

func atomicScopes(c uint64) uint64 {
	var f uint64
	if c&clAtomicScopeWorkItem != 0 {
		f |= driver.MemoryScopeWorkItem
	}
	if c&clAtomicScopeWorkGroup != 0 {
		f |= driver.MemoryScopeWorkGroup | driver.MemoryScopeSubGroup
	}
	if c&clAtomicScopeDevice != 0 {
		f |= driver.MemoryScopeDevice
	}
	if c&clAtomicScopeAll != 0 {
		f |= driver.MemoryScopeSystem
	}
	return f
}

// clFPFlags maps cl_device_fp_config, whose bits are in another order, to
// ur_device_fp_capability_flags_t.
func clFPFlags(c uint64) uint64 {
	var f uint64
	for _, m := range [...]struct{ cl, ur uint64 }{
		{1 << 0, driver.FPDenorm}, {1 << 1, driver.FPInfNaN}, {1 << 2, driver.FPRoundToNearest},
		{1 << 3, driver.FPRoundToZero}, {1 << 4, driver.FPRoundToInf}, {1 << 5, driver.FPFMA},
		{1 << 6, driver.FPSoftFloat}, {1 << 7, driver.FPCorrectlyRoundedDivideSqrt},
	} {
		if c&m.cl != 0 {
			f |= m.ur
		}
	}
	return f
}
