package ze

import (
	"reflect"
	"testing"
)

// checkedStructs lists every structure of types.go that layout_cgo_test.go
// compares with ze_api.h, by C type name: all that gour passes to Level
// Zero except InitDriverTypeDesc, which the 1.8 headers lack.
var checkedStructs = map[string]any{
	"ze_driver_uuid_t":                     DriverUUID{},
	"ze_driver_properties_t":               DriverProperties{},
	"ze_driver_extension_properties_t":     DriverExtensionProperties{},
	"ze_device_uuid_t":                     DeviceUUID{},
	"ze_device_properties_t":               DeviceProperties{},
	"ze_device_compute_properties_t":       DeviceComputeProperties{},
	"ze_native_kernel_uuid_t":              NativeKernelUUID{},
	"ze_device_module_properties_t":        DeviceModuleProperties{},
	"ze_command_queue_group_properties_t":  CommandQueueGroupProperties{},
	"ze_device_memory_properties_t":        DeviceMemoryProperties{},
	"ze_device_memory_access_properties_t": DeviceMemoryAccessProperties{},
	"ze_context_desc_t":                    ContextDesc{},
	"ze_command_queue_desc_t":              CommandQueueDesc{},
	"ze_command_list_desc_t":               CommandListDesc{},
	"ze_fence_desc_t":                      FenceDesc{},
	"ze_event_pool_desc_t":                 EventPoolDesc{},
	"ze_event_desc_t":                      EventDesc{},
	"ze_kernel_timestamp_data_t":           KernelTimestampData{},
	"ze_kernel_timestamp_result_t":         KernelTimestampResult{},
	"ze_device_mem_alloc_desc_t":           DeviceMemAllocDesc{},
	"ze_host_mem_alloc_desc_t":             HostMemAllocDesc{},
	"ze_memory_allocation_properties_t":    MemoryAllocationProperties{},
	"ze_copy_region_t":                     CopyRegion{},
	"ze_physical_mem_desc_t":               PhysicalMemDesc{},
	"ze_module_constants_t":                ModuleConstants{},
	"ze_module_desc_t":                     ModuleDesc{},
	"ze_module_program_exp_desc_t":         ModuleProgramExpDesc{},
	"ze_kernel_desc_t":                     KernelDesc{},
	"ze_kernel_uuid_t":                     KernelUUID{},
	"ze_kernel_properties_t":               KernelProperties{},
	"ze_group_count_t":                     GroupCount{},
	"ze_device_image_properties_t":         DeviceImageProperties{},
	"ze_image_format_t":                    ImageFormat{},
	"ze_image_desc_t":                      ImageDesc{},
	"ze_image_properties_t":                ImageProperties{},
	"ze_image_region_t":                    ImageRegion{},
	"ze_sampler_desc_t":                    SamplerDesc{},
}

// checkedConstants maps the C name of each constant package ze defines to
// its Go value; layout_cgo_test.go compares them with the header.
var checkedConstants = map[string]uint64{
	"ZE_API_VERSION_CURRENT": uint64(MakeVersion(1, 4)), // the 1.8 loader's headers are spec 1.4

	"ZE_MAX_DRIVER_UUID_SIZE":        MaxDriverUUIDSize,
	"ZE_MAX_DEVICE_UUID_SIZE":        MaxDeviceUUIDSize,
	"ZE_MAX_DEVICE_NAME":             MaxDeviceName,
	"ZE_MAX_EXTENSION_NAME":          MaxExtensionName,
	"ZE_SUBGROUPSIZE_COUNT":          SubgroupSizeCount,
	"ZE_MAX_NATIVE_KERNEL_UUID_SIZE": MaxNativeKernelUUIDSize,
	"ZE_MAX_KERNEL_UUID_SIZE":        MaxKernelUUIDSize,
	"ZE_MAX_MODULE_UUID_SIZE":        MaxModuleUUIDSize,

	"ZE_STRUCTURE_TYPE_DRIVER_PROPERTIES":               uint64(StructureTypeDriverProperties),
	"ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES":               uint64(StructureTypeDeviceProperties),
	"ZE_STRUCTURE_TYPE_DEVICE_COMPUTE_PROPERTIES":       uint64(StructureTypeDeviceComputeProperties),
	"ZE_STRUCTURE_TYPE_DEVICE_MODULE_PROPERTIES":        uint64(StructureTypeDeviceModuleProperties),
	"ZE_STRUCTURE_TYPE_COMMAND_QUEUE_GROUP_PROPERTIES":  uint64(StructureTypeCommandQueueGroupProperties),
	"ZE_STRUCTURE_TYPE_DEVICE_MEMORY_PROPERTIES":        uint64(StructureTypeDeviceMemoryProperties),
	"ZE_STRUCTURE_TYPE_DEVICE_MEMORY_ACCESS_PROPERTIES": uint64(StructureTypeDeviceMemoryAccessProps),
	"ZE_STRUCTURE_TYPE_CONTEXT_DESC":                    uint64(StructureTypeContextDesc),
	"ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC":              uint64(StructureTypeCommandQueueDesc),
	"ZE_STRUCTURE_TYPE_EVENT_POOL_DESC":                 uint64(StructureTypeEventPoolDesc),
	"ZE_STRUCTURE_TYPE_EVENT_DESC":                      uint64(StructureTypeEventDesc),
	"ZE_STRUCTURE_TYPE_COMMAND_LIST_DESC":               uint64(StructureTypeCommandListDesc),
	"ZE_STRUCTURE_TYPE_FENCE_DESC":                      uint64(StructureTypeFenceDesc),
	"ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC":           uint64(StructureTypeDeviceMemAllocDesc),
	"ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC":             uint64(StructureTypeHostMemAllocDesc),
	"ZE_STRUCTURE_TYPE_MEMORY_ALLOCATION_PROPERTIES":    uint64(StructureTypeMemoryAllocationProperties),
	"ZE_STRUCTURE_TYPE_MODULE_DESC":                     uint64(StructureTypeModuleDesc),
	"ZE_STRUCTURE_TYPE_KERNEL_DESC":                     uint64(StructureTypeKernelDesc),
	"ZE_STRUCTURE_TYPE_KERNEL_PROPERTIES":               uint64(StructureTypeKernelProperties),
	"ZE_STRUCTURE_TYPE_MODULE_PROGRAM_EXP_DESC":         uint64(StructureTypeModuleProgramExpDesc),
	"ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES_1_2":           uint64(StructureTypeDeviceProperties12),

	"ZE_INIT_FLAG_GPU_ONLY": uint64(InitFlagGPUOnly),
	"ZE_INIT_FLAG_VPU_ONLY": uint64(InitFlagVPUOnly),

	"ZE_DEVICE_TYPE_GPU":  uint64(DeviceTypeGPU),
	"ZE_DEVICE_TYPE_CPU":  uint64(DeviceTypeCPU),
	"ZE_DEVICE_TYPE_FPGA": uint64(DeviceTypeFPGA),
	"ZE_DEVICE_TYPE_MCA":  uint64(DeviceTypeMCA),
	"ZE_DEVICE_TYPE_VPU":  uint64(DeviceTypeVPU),

	"ZE_DEVICE_PROPERTY_FLAG_INTEGRATED":     uint64(DevicePropertyFlagIntegrated),
	"ZE_DEVICE_PROPERTY_FLAG_SUBDEVICE":      uint64(DevicePropertyFlagSubdevice),
	"ZE_DEVICE_PROPERTY_FLAG_ECC":            uint64(DevicePropertyFlagECC),
	"ZE_DEVICE_PROPERTY_FLAG_ONDEMANDPAGING": uint64(DevicePropertyFlagOnDemandPaging),

	"ZE_DEVICE_MODULE_FLAG_FP16":          uint64(DeviceModuleFlagFP16),
	"ZE_DEVICE_MODULE_FLAG_FP64":          uint64(DeviceModuleFlagFP64),
	"ZE_DEVICE_MODULE_FLAG_INT64_ATOMICS": uint64(DeviceModuleFlagInt64Atomics),
	"ZE_DEVICE_MODULE_FLAG_DP4A":          uint64(DeviceModuleFlagDP4A),

	"ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_COMPUTE":             uint64(CommandQueueGroupPropertyFlagCompute),
	"ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_COPY":                uint64(CommandQueueGroupPropertyFlagCopy),
	"ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_COOPERATIVE_KERNELS": uint64(CommandQueueGroupPropertyFlagCooperativeKernels),
	"ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_METRICS":             uint64(CommandQueueGroupPropertyFlagMetrics),

	"ZE_COMMAND_QUEUE_FLAG_EXPLICIT_ONLY": uint64(CommandQueueFlagExplicitOnly),

	"ZE_COMMAND_LIST_FLAG_RELAXED_ORDERING":    uint64(CommandListFlagRelaxedOrdering),
	"ZE_COMMAND_LIST_FLAG_MAXIMIZE_THROUGHPUT": uint64(CommandListFlagMaximizeThroughput),
	"ZE_COMMAND_LIST_FLAG_EXPLICIT_ONLY":       uint64(CommandListFlagExplicitOnly),
	"ZE_FENCE_FLAG_SIGNALED":                   uint64(FenceFlagSignaled),

	"ZE_COMMAND_QUEUE_MODE_DEFAULT":      uint64(CommandQueueModeDefault),
	"ZE_COMMAND_QUEUE_MODE_SYNCHRONOUS":  uint64(CommandQueueModeSynchronous),
	"ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS": uint64(CommandQueueModeAsynchronous),

	"ZE_COMMAND_QUEUE_PRIORITY_NORMAL":        uint64(CommandQueuePriorityNormal),
	"ZE_COMMAND_QUEUE_PRIORITY_PRIORITY_LOW":  uint64(CommandQueuePriorityLow),
	"ZE_COMMAND_QUEUE_PRIORITY_PRIORITY_HIGH": uint64(CommandQueuePriorityHigh),

	"ZE_EVENT_POOL_FLAG_HOST_VISIBLE":     uint64(EventPoolFlagHostVisible),
	"ZE_EVENT_POOL_FLAG_IPC":              uint64(EventPoolFlagIPC),
	"ZE_EVENT_POOL_FLAG_KERNEL_TIMESTAMP": uint64(EventPoolFlagKernelTimestamp),

	"ZE_EVENT_SCOPE_FLAG_SUBDEVICE": uint64(EventScopeFlagSubdevice),
	"ZE_EVENT_SCOPE_FLAG_DEVICE":    uint64(EventScopeFlagDevice),
	"ZE_EVENT_SCOPE_FLAG_HOST":      uint64(EventScopeFlagHost),

	"ZE_MEMORY_ACCESS_CAP_FLAG_RW":                uint64(MemoryAccessCapFlagRW),
	"ZE_MEMORY_ACCESS_CAP_FLAG_ATOMIC":            uint64(MemoryAccessCapFlagAtomic),
	"ZE_MEMORY_ACCESS_CAP_FLAG_CONCURRENT":        uint64(MemoryAccessCapFlagConcurrent),
	"ZE_MEMORY_ACCESS_CAP_FLAG_CONCURRENT_ATOMIC": uint64(MemoryAccessCapFlagConcurrentAtomic),

	"ZE_MEMORY_TYPE_UNKNOWN": uint64(MemoryTypeUnknown),
	"ZE_MEMORY_TYPE_HOST":    uint64(MemoryTypeHost),
	"ZE_MEMORY_TYPE_DEVICE":  uint64(MemoryTypeDevice),
	"ZE_MEMORY_TYPE_SHARED":  uint64(MemoryTypeShared),

	"ZE_MEMORY_ADVICE_SET_READ_MOSTLY":          uint64(MemoryAdviceSetReadMostly),
	"ZE_MEMORY_ADVICE_CLEAR_READ_MOSTLY":        uint64(MemoryAdviceClearReadMostly),
	"ZE_MEMORY_ADVICE_SET_PREFERRED_LOCATION":   uint64(MemoryAdviceSetPreferredLocation),
	"ZE_MEMORY_ADVICE_CLEAR_PREFERRED_LOCATION": uint64(MemoryAdviceClearPreferredLocation),
	"ZE_MEMORY_ADVICE_SET_NON_ATOMIC_MOSTLY":    uint64(MemoryAdviceSetNonAtomicMostly),
	"ZE_MEMORY_ADVICE_CLEAR_NON_ATOMIC_MOSTLY":  uint64(MemoryAdviceClearNonAtomicMostly),
	"ZE_MEMORY_ADVICE_BIAS_CACHED":              uint64(MemoryAdviceBiasCached),
	"ZE_MEMORY_ADVICE_BIAS_UNCACHED":            uint64(MemoryAdviceBiasUncached),

	"ZE_STRUCTURE_TYPE_DEVICE_IMAGE_PROPERTIES": uint64(StructureTypeDeviceImageProperties),
	"ZE_STRUCTURE_TYPE_IMAGE_DESC":              uint64(StructureTypeImageDesc),
	"ZE_STRUCTURE_TYPE_IMAGE_PROPERTIES":        uint64(StructureTypeImageProperties),
	"ZE_STRUCTURE_TYPE_SAMPLER_DESC":            uint64(StructureTypeSamplerDesc),

	"ZE_IMAGE_TYPE_1D":      uint64(ImageType1D),
	"ZE_IMAGE_TYPE_1DARRAY": uint64(ImageType1DArray),
	"ZE_IMAGE_TYPE_2D":      uint64(ImageType2D),
	"ZE_IMAGE_TYPE_2DARRAY": uint64(ImageType2DArray),
	"ZE_IMAGE_TYPE_3D":      uint64(ImageType3D),

	"ZE_IMAGE_FLAG_KERNEL_WRITE":  ImageFlagKernelWrite,
	"ZE_IMAGE_FLAG_BIAS_UNCACHED": ImageFlagBiasUncached,

	"ZE_IMAGE_FORMAT_LAYOUT_8":           uint64(ImageFormatLayout8),
	"ZE_IMAGE_FORMAT_LAYOUT_16":          uint64(ImageFormatLayout16),
	"ZE_IMAGE_FORMAT_LAYOUT_32":          uint64(ImageFormatLayout32),
	"ZE_IMAGE_FORMAT_LAYOUT_8_8":         uint64(ImageFormatLayout8_8),
	"ZE_IMAGE_FORMAT_LAYOUT_8_8_8_8":     uint64(ImageFormatLayout8_8_8_8),
	"ZE_IMAGE_FORMAT_LAYOUT_16_16":       uint64(ImageFormatLayout16_16),
	"ZE_IMAGE_FORMAT_LAYOUT_16_16_16_16": uint64(ImageFormatLayout16_16_16_16),
	"ZE_IMAGE_FORMAT_LAYOUT_32_32":       uint64(ImageFormatLayout32_32),
	"ZE_IMAGE_FORMAT_LAYOUT_32_32_32_32": uint64(ImageFormatLayout32_32_32_32),
	"ZE_IMAGE_FORMAT_LAYOUT_10_10_10_2":  uint64(ImageFormatLayout10_10_10_2),
	"ZE_IMAGE_FORMAT_LAYOUT_11_11_10":    uint64(ImageFormatLayout11_11_10),
	"ZE_IMAGE_FORMAT_LAYOUT_5_6_5":       uint64(ImageFormatLayout5_6_5),
	"ZE_IMAGE_FORMAT_LAYOUT_5_5_5_1":     uint64(ImageFormatLayout5_5_5_1),
	"ZE_IMAGE_FORMAT_LAYOUT_4_4_4_4":     uint64(ImageFormatLayout4_4_4_4),

	"ZE_IMAGE_FORMAT_TYPE_UINT":  uint64(ImageFormatTypeUint),
	"ZE_IMAGE_FORMAT_TYPE_SINT":  uint64(ImageFormatTypeSint),
	"ZE_IMAGE_FORMAT_TYPE_UNORM": uint64(ImageFormatTypeUnorm),
	"ZE_IMAGE_FORMAT_TYPE_SNORM": uint64(ImageFormatTypeSnorm),
	"ZE_IMAGE_FORMAT_TYPE_FLOAT": uint64(ImageFormatTypeFloat),

	"ZE_IMAGE_FORMAT_SWIZZLE_R": uint64(SwizzleR),
	"ZE_IMAGE_FORMAT_SWIZZLE_G": uint64(SwizzleG),
	"ZE_IMAGE_FORMAT_SWIZZLE_B": uint64(SwizzleB),
	"ZE_IMAGE_FORMAT_SWIZZLE_A": uint64(SwizzleA),
	"ZE_IMAGE_FORMAT_SWIZZLE_0": uint64(Swizzle0),
	"ZE_IMAGE_FORMAT_SWIZZLE_1": uint64(Swizzle1),
	"ZE_IMAGE_FORMAT_SWIZZLE_X": uint64(SwizzleNone),

	"ZE_IMAGE_SAMPLER_FILTER_FLAG_POINT":  ImageSamplerFilterFlagPoint,
	"ZE_IMAGE_SAMPLER_FILTER_FLAG_LINEAR": ImageSamplerFilterFlagLinear,

	"ZE_SAMPLER_ADDRESS_MODE_NONE":            uint64(SamplerAddressModeNone),
	"ZE_SAMPLER_ADDRESS_MODE_REPEAT":          uint64(SamplerAddressModeRepeat),
	"ZE_SAMPLER_ADDRESS_MODE_CLAMP":           uint64(SamplerAddressModeClamp),
	"ZE_SAMPLER_ADDRESS_MODE_CLAMP_TO_BORDER": uint64(SamplerAddressModeClampToBorder),
	"ZE_SAMPLER_ADDRESS_MODE_MIRROR":          uint64(SamplerAddressModeMirror),
	"ZE_SAMPLER_FILTER_MODE_NEAREST":          uint64(SamplerFilterModeNearest),
	"ZE_SAMPLER_FILTER_MODE_LINEAR":           uint64(SamplerFilterModeLinear),

	"ZE_MODULE_FORMAT_IL_SPIRV": uint64(ModuleFormatILSPIRV),
	"ZE_MODULE_FORMAT_NATIVE":   uint64(ModuleFormatNative),
}

func init() {
	// Every result code with a name is checked, except the one newer than
	// the 1.8 headers.
	for r, name := range resultNames {
		if r != ErrorInvalidKernelHandle {
			checkedConstants[name] = uint64(r)
		}
	}
}

// TestStructsHaveCTags runs without the headers: every field of a checked
// structure names its C field, so that the cgo test can find it.
func TestStructsHaveCTags(t *testing.T) {
	for cname, v := range checkedStructs {
		typ := reflect.TypeOf(v)
		for i := range typ.NumField() {
			if typ.Field(i).Tag.Get("c") == "" {
				t.Errorf("%s (%s): field %s has no c tag", typ.Name(), cname, typ.Field(i).Name)
			}
		}
	}
}
