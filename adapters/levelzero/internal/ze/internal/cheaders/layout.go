//go:build cgo && zeheaders

package cheaders

/*
#include <stddef.h>
#include <stdint.h>
#include <level_zero/ze_api.h>

typedef struct {
	const char *type;
	const char *field; // "" for the type itself
	size_t offset;     // of the field; 0 for the type
	size_t size;       // of the field, or of the type
} gour_layout;

#define SIZE(t) {#t, "", 0, sizeof(t)}
#define OFF(t, f) {#t, #f, offsetof(t, f), sizeof(((t *)0)->f)}

// Every structure gour passes to Level Zero, with every field, in the
// order of ze_api.h.
static const gour_layout gour_layouts[] = {
	SIZE(ze_driver_uuid_t),
	OFF(ze_driver_uuid_t, id),

	SIZE(ze_driver_properties_t),
	OFF(ze_driver_properties_t, stype),
	OFF(ze_driver_properties_t, pNext),
	OFF(ze_driver_properties_t, uuid),
	OFF(ze_driver_properties_t, driverVersion),

	SIZE(ze_driver_extension_properties_t),
	OFF(ze_driver_extension_properties_t, name),
	OFF(ze_driver_extension_properties_t, version),

	SIZE(ze_device_uuid_t),
	OFF(ze_device_uuid_t, id),

	SIZE(ze_device_properties_t),
	OFF(ze_device_properties_t, stype),
	OFF(ze_device_properties_t, pNext),
	OFF(ze_device_properties_t, type),
	OFF(ze_device_properties_t, vendorId),
	OFF(ze_device_properties_t, deviceId),
	OFF(ze_device_properties_t, flags),
	OFF(ze_device_properties_t, subdeviceId),
	OFF(ze_device_properties_t, coreClockRate),
	OFF(ze_device_properties_t, maxMemAllocSize),
	OFF(ze_device_properties_t, maxHardwareContexts),
	OFF(ze_device_properties_t, maxCommandQueuePriority),
	OFF(ze_device_properties_t, numThreadsPerEU),
	OFF(ze_device_properties_t, physicalEUSimdWidth),
	OFF(ze_device_properties_t, numEUsPerSubslice),
	OFF(ze_device_properties_t, numSubslicesPerSlice),
	OFF(ze_device_properties_t, numSlices),
	OFF(ze_device_properties_t, timerResolution),
	OFF(ze_device_properties_t, timestampValidBits),
	OFF(ze_device_properties_t, kernelTimestampValidBits),
	OFF(ze_device_properties_t, uuid),
	OFF(ze_device_properties_t, name),

	SIZE(ze_device_compute_properties_t),
	OFF(ze_device_compute_properties_t, stype),
	OFF(ze_device_compute_properties_t, pNext),
	OFF(ze_device_compute_properties_t, maxTotalGroupSize),
	OFF(ze_device_compute_properties_t, maxGroupSizeX),
	OFF(ze_device_compute_properties_t, maxGroupSizeY),
	OFF(ze_device_compute_properties_t, maxGroupSizeZ),
	OFF(ze_device_compute_properties_t, maxGroupCountX),
	OFF(ze_device_compute_properties_t, maxGroupCountY),
	OFF(ze_device_compute_properties_t, maxGroupCountZ),
	OFF(ze_device_compute_properties_t, maxSharedLocalMemory),
	OFF(ze_device_compute_properties_t, numSubGroupSizes),
	OFF(ze_device_compute_properties_t, subGroupSizes),

	SIZE(ze_native_kernel_uuid_t),
	OFF(ze_native_kernel_uuid_t, id),

	SIZE(ze_device_module_properties_t),
	OFF(ze_device_module_properties_t, stype),
	OFF(ze_device_module_properties_t, pNext),
	OFF(ze_device_module_properties_t, spirvVersionSupported),
	OFF(ze_device_module_properties_t, flags),
	OFF(ze_device_module_properties_t, fp16flags),
	OFF(ze_device_module_properties_t, fp32flags),
	OFF(ze_device_module_properties_t, fp64flags),
	OFF(ze_device_module_properties_t, maxArgumentsSize),
	OFF(ze_device_module_properties_t, printfBufferSize),
	OFF(ze_device_module_properties_t, nativeKernelSupported),

	SIZE(ze_command_queue_group_properties_t),
	OFF(ze_command_queue_group_properties_t, stype),
	OFF(ze_command_queue_group_properties_t, pNext),
	OFF(ze_command_queue_group_properties_t, flags),
	OFF(ze_command_queue_group_properties_t, maxMemoryFillPatternSize),
	OFF(ze_command_queue_group_properties_t, numQueues),

	SIZE(ze_device_memory_properties_t),
	OFF(ze_device_memory_properties_t, stype),
	OFF(ze_device_memory_properties_t, pNext),
	OFF(ze_device_memory_properties_t, flags),
	OFF(ze_device_memory_properties_t, maxClockRate),
	OFF(ze_device_memory_properties_t, maxBusWidth),
	OFF(ze_device_memory_properties_t, totalSize),
	OFF(ze_device_memory_properties_t, name),

	SIZE(ze_device_memory_access_properties_t),
	OFF(ze_device_memory_access_properties_t, stype),
	OFF(ze_device_memory_access_properties_t, pNext),
	OFF(ze_device_memory_access_properties_t, hostAllocCapabilities),
	OFF(ze_device_memory_access_properties_t, deviceAllocCapabilities),
	OFF(ze_device_memory_access_properties_t, sharedSingleDeviceAllocCapabilities),
	OFF(ze_device_memory_access_properties_t, sharedCrossDeviceAllocCapabilities),
	OFF(ze_device_memory_access_properties_t, sharedSystemAllocCapabilities),

	SIZE(ze_context_desc_t),
	OFF(ze_context_desc_t, stype),
	OFF(ze_context_desc_t, pNext),
	OFF(ze_context_desc_t, flags),

	SIZE(ze_command_queue_desc_t),
	OFF(ze_command_queue_desc_t, stype),
	OFF(ze_command_queue_desc_t, pNext),
	OFF(ze_command_queue_desc_t, ordinal),
	OFF(ze_command_queue_desc_t, index),
	OFF(ze_command_queue_desc_t, flags),
	OFF(ze_command_queue_desc_t, mode),
	OFF(ze_command_queue_desc_t, priority),

	SIZE(ze_command_list_desc_t),
	OFF(ze_command_list_desc_t, stype),
	OFF(ze_command_list_desc_t, pNext),
	OFF(ze_command_list_desc_t, commandQueueGroupOrdinal),
	OFF(ze_command_list_desc_t, flags),

	SIZE(ze_fence_desc_t),
	OFF(ze_fence_desc_t, stype),
	OFF(ze_fence_desc_t, pNext),
	OFF(ze_fence_desc_t, flags),

	SIZE(ze_event_pool_desc_t),
	OFF(ze_event_pool_desc_t, stype),
	OFF(ze_event_pool_desc_t, pNext),
	OFF(ze_event_pool_desc_t, flags),
	OFF(ze_event_pool_desc_t, count),

	SIZE(ze_event_desc_t),
	OFF(ze_event_desc_t, stype),
	OFF(ze_event_desc_t, pNext),
	OFF(ze_event_desc_t, index),
	OFF(ze_event_desc_t, signal),
	OFF(ze_event_desc_t, wait),

	SIZE(ze_kernel_timestamp_data_t),
	OFF(ze_kernel_timestamp_data_t, kernelStart),
	OFF(ze_kernel_timestamp_data_t, kernelEnd),

	SIZE(ze_kernel_timestamp_result_t),
	OFF(ze_kernel_timestamp_result_t, global),
	OFF(ze_kernel_timestamp_result_t, context),

	SIZE(ze_device_mem_alloc_desc_t),
	OFF(ze_device_mem_alloc_desc_t, stype),
	OFF(ze_device_mem_alloc_desc_t, pNext),
	OFF(ze_device_mem_alloc_desc_t, flags),
	OFF(ze_device_mem_alloc_desc_t, ordinal),

	SIZE(ze_host_mem_alloc_desc_t),
	OFF(ze_host_mem_alloc_desc_t, stype),
	OFF(ze_host_mem_alloc_desc_t, pNext),
	OFF(ze_host_mem_alloc_desc_t, flags),

	SIZE(ze_memory_allocation_properties_t),
	OFF(ze_memory_allocation_properties_t, stype),
	OFF(ze_memory_allocation_properties_t, pNext),
	OFF(ze_memory_allocation_properties_t, type),
	OFF(ze_memory_allocation_properties_t, id),
	OFF(ze_memory_allocation_properties_t, pageSize),

	SIZE(ze_physical_mem_desc_t),
	OFF(ze_physical_mem_desc_t, stype),
	OFF(ze_physical_mem_desc_t, pNext),
	OFF(ze_physical_mem_desc_t, flags),
	OFF(ze_physical_mem_desc_t, size),

	SIZE(ze_copy_region_t),
	OFF(ze_copy_region_t, originX),
	OFF(ze_copy_region_t, originY),
	OFF(ze_copy_region_t, originZ),
	OFF(ze_copy_region_t, width),
	OFF(ze_copy_region_t, height),
	OFF(ze_copy_region_t, depth),

	SIZE(ze_module_constants_t),
	OFF(ze_module_constants_t, numConstants),
	OFF(ze_module_constants_t, pConstantIds),
	OFF(ze_module_constants_t, pConstantValues),

	SIZE(ze_module_desc_t),
	OFF(ze_module_desc_t, stype),
	OFF(ze_module_desc_t, pNext),
	OFF(ze_module_desc_t, format),
	OFF(ze_module_desc_t, inputSize),
	OFF(ze_module_desc_t, pInputModule),
	OFF(ze_module_desc_t, pBuildFlags),
	OFF(ze_module_desc_t, pConstants),

	SIZE(ze_module_program_exp_desc_t),
	OFF(ze_module_program_exp_desc_t, stype),
	OFF(ze_module_program_exp_desc_t, pNext),
	OFF(ze_module_program_exp_desc_t, count),
	OFF(ze_module_program_exp_desc_t, inputSizes),
	OFF(ze_module_program_exp_desc_t, pInputModules),
	OFF(ze_module_program_exp_desc_t, pBuildFlags),
	OFF(ze_module_program_exp_desc_t, pConstants),

	SIZE(ze_kernel_desc_t),
	OFF(ze_kernel_desc_t, stype),
	OFF(ze_kernel_desc_t, pNext),
	OFF(ze_kernel_desc_t, flags),
	OFF(ze_kernel_desc_t, pKernelName),

	SIZE(ze_kernel_uuid_t),
	OFF(ze_kernel_uuid_t, kid),
	OFF(ze_kernel_uuid_t, mid),

	SIZE(ze_kernel_properties_t),
	OFF(ze_kernel_properties_t, stype),
	OFF(ze_kernel_properties_t, pNext),
	OFF(ze_kernel_properties_t, numKernelArgs),
	OFF(ze_kernel_properties_t, requiredGroupSizeX),
	OFF(ze_kernel_properties_t, requiredGroupSizeY),
	OFF(ze_kernel_properties_t, requiredGroupSizeZ),
	OFF(ze_kernel_properties_t, requiredNumSubGroups),
	OFF(ze_kernel_properties_t, requiredSubgroupSize),
	OFF(ze_kernel_properties_t, maxSubgroupSize),
	OFF(ze_kernel_properties_t, maxNumSubgroups),
	OFF(ze_kernel_properties_t, localMemSize),
	OFF(ze_kernel_properties_t, privateMemSize),
	OFF(ze_kernel_properties_t, spillMemSize),
	OFF(ze_kernel_properties_t, uuid),

	SIZE(ze_group_count_t),
	OFF(ze_group_count_t, groupCountX),
	OFF(ze_group_count_t, groupCountY),
	OFF(ze_group_count_t, groupCountZ),

	SIZE(ze_device_image_properties_t),
	OFF(ze_device_image_properties_t, stype),
	OFF(ze_device_image_properties_t, pNext),
	OFF(ze_device_image_properties_t, maxImageDims1D),
	OFF(ze_device_image_properties_t, maxImageDims2D),
	OFF(ze_device_image_properties_t, maxImageDims3D),
	OFF(ze_device_image_properties_t, maxImageBufferSize),
	OFF(ze_device_image_properties_t, maxImageArraySlices),
	OFF(ze_device_image_properties_t, maxSamplers),
	OFF(ze_device_image_properties_t, maxReadImageArgs),
	OFF(ze_device_image_properties_t, maxWriteImageArgs),

	SIZE(ze_image_format_t),
	OFF(ze_image_format_t, layout),
	OFF(ze_image_format_t, type),
	OFF(ze_image_format_t, x),
	OFF(ze_image_format_t, y),
	OFF(ze_image_format_t, z),
	OFF(ze_image_format_t, w),

	SIZE(ze_image_desc_t),
	OFF(ze_image_desc_t, stype),
	OFF(ze_image_desc_t, pNext),
	OFF(ze_image_desc_t, flags),
	OFF(ze_image_desc_t, type),
	OFF(ze_image_desc_t, format),
	OFF(ze_image_desc_t, width),
	OFF(ze_image_desc_t, height),
	OFF(ze_image_desc_t, depth),
	OFF(ze_image_desc_t, arraylevels),
	OFF(ze_image_desc_t, miplevels),

	SIZE(ze_image_properties_t),
	OFF(ze_image_properties_t, stype),
	OFF(ze_image_properties_t, pNext),
	OFF(ze_image_properties_t, samplerFilterFlags),

	SIZE(ze_image_region_t),
	OFF(ze_image_region_t, originX),
	OFF(ze_image_region_t, originY),
	OFF(ze_image_region_t, originZ),
	OFF(ze_image_region_t, width),
	OFF(ze_image_region_t, height),
	OFF(ze_image_region_t, depth),

	SIZE(ze_sampler_desc_t),
	OFF(ze_sampler_desc_t, stype),
	OFF(ze_sampler_desc_t, pNext),
	OFF(ze_sampler_desc_t, addressMode),
	OFF(ze_sampler_desc_t, filterMode),
	OFF(ze_sampler_desc_t, isNormalized),
};

static size_t gour_layout_count(void) { return sizeof gour_layouts / sizeof gour_layouts[0]; }
static const gour_layout *gour_layout_at(size_t i) { return &gour_layouts[i]; }

typedef struct {
	const char *name;
	uint64_t value;
} gour_constant;

#define K(c) {#c, (uint64_t)(c)}

// The header's values of the constants package ze defines.
static const gour_constant gour_constants[] = {
	K(ZE_API_VERSION_CURRENT),

	K(ZE_MAX_DRIVER_UUID_SIZE),
	K(ZE_MAX_DEVICE_UUID_SIZE),
	K(ZE_MAX_DEVICE_NAME),
	K(ZE_MAX_EXTENSION_NAME),
	K(ZE_SUBGROUPSIZE_COUNT),
	K(ZE_MAX_NATIVE_KERNEL_UUID_SIZE),
	K(ZE_MAX_KERNEL_UUID_SIZE),
	K(ZE_MAX_MODULE_UUID_SIZE),

	K(ZE_STRUCTURE_TYPE_DRIVER_PROPERTIES),
	K(ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES),
	K(ZE_STRUCTURE_TYPE_DEVICE_COMPUTE_PROPERTIES),
	K(ZE_STRUCTURE_TYPE_DEVICE_MODULE_PROPERTIES),
	K(ZE_STRUCTURE_TYPE_COMMAND_QUEUE_GROUP_PROPERTIES),
	K(ZE_STRUCTURE_TYPE_DEVICE_MEMORY_PROPERTIES),
	K(ZE_STRUCTURE_TYPE_DEVICE_MEMORY_ACCESS_PROPERTIES),
	K(ZE_STRUCTURE_TYPE_CONTEXT_DESC),
	K(ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC),
	K(ZE_STRUCTURE_TYPE_COMMAND_LIST_DESC),
	K(ZE_STRUCTURE_TYPE_FENCE_DESC),
	K(ZE_STRUCTURE_TYPE_EVENT_POOL_DESC),
	K(ZE_STRUCTURE_TYPE_EVENT_DESC),
	K(ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC),
	K(ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC),
	K(ZE_STRUCTURE_TYPE_MEMORY_ALLOCATION_PROPERTIES),
	K(ZE_STRUCTURE_TYPE_MODULE_DESC),
	K(ZE_STRUCTURE_TYPE_KERNEL_DESC),
	K(ZE_STRUCTURE_TYPE_KERNEL_PROPERTIES),
	K(ZE_STRUCTURE_TYPE_MODULE_PROGRAM_EXP_DESC),
	K(ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES_1_2),

	K(ZE_INIT_FLAG_GPU_ONLY),
	K(ZE_INIT_FLAG_VPU_ONLY),

	K(ZE_DEVICE_TYPE_GPU),
	K(ZE_DEVICE_TYPE_CPU),
	K(ZE_DEVICE_TYPE_FPGA),
	K(ZE_DEVICE_TYPE_MCA),
	K(ZE_DEVICE_TYPE_VPU),

	K(ZE_DEVICE_PROPERTY_FLAG_INTEGRATED),
	K(ZE_DEVICE_PROPERTY_FLAG_SUBDEVICE),
	K(ZE_DEVICE_PROPERTY_FLAG_ECC),
	K(ZE_DEVICE_PROPERTY_FLAG_ONDEMANDPAGING),

	K(ZE_DEVICE_MODULE_FLAG_FP16),
	K(ZE_DEVICE_MODULE_FLAG_FP64),
	K(ZE_DEVICE_MODULE_FLAG_INT64_ATOMICS),
	K(ZE_DEVICE_MODULE_FLAG_DP4A),

	K(ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_COMPUTE),
	K(ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_COPY),
	K(ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_COOPERATIVE_KERNELS),
	K(ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_METRICS),

	K(ZE_COMMAND_QUEUE_FLAG_EXPLICIT_ONLY),
	K(ZE_COMMAND_LIST_FLAG_RELAXED_ORDERING),
	K(ZE_COMMAND_LIST_FLAG_MAXIMIZE_THROUGHPUT),
	K(ZE_COMMAND_LIST_FLAG_EXPLICIT_ONLY),
	K(ZE_FENCE_FLAG_SIGNALED),

	K(ZE_COMMAND_QUEUE_MODE_DEFAULT),
	K(ZE_COMMAND_QUEUE_MODE_SYNCHRONOUS),
	K(ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS),

	K(ZE_COMMAND_QUEUE_PRIORITY_NORMAL),
	K(ZE_COMMAND_QUEUE_PRIORITY_PRIORITY_LOW),
	K(ZE_COMMAND_QUEUE_PRIORITY_PRIORITY_HIGH),

	K(ZE_EVENT_POOL_FLAG_HOST_VISIBLE),
	K(ZE_EVENT_POOL_FLAG_IPC),
	K(ZE_EVENT_POOL_FLAG_KERNEL_TIMESTAMP),

	K(ZE_EVENT_SCOPE_FLAG_SUBDEVICE),
	K(ZE_EVENT_SCOPE_FLAG_DEVICE),
	K(ZE_EVENT_SCOPE_FLAG_HOST),

	K(ZE_MEMORY_ACCESS_CAP_FLAG_RW),
	K(ZE_MEMORY_ACCESS_CAP_FLAG_ATOMIC),
	K(ZE_MEMORY_ACCESS_CAP_FLAG_CONCURRENT),
	K(ZE_MEMORY_ACCESS_CAP_FLAG_CONCURRENT_ATOMIC),

	K(ZE_MEMORY_TYPE_UNKNOWN),
	K(ZE_MEMORY_TYPE_HOST),
	K(ZE_MEMORY_TYPE_DEVICE),
	K(ZE_MEMORY_TYPE_SHARED),

	K(ZE_MEMORY_ADVICE_SET_READ_MOSTLY),
	K(ZE_MEMORY_ADVICE_CLEAR_READ_MOSTLY),
	K(ZE_MEMORY_ADVICE_SET_PREFERRED_LOCATION),
	K(ZE_MEMORY_ADVICE_CLEAR_PREFERRED_LOCATION),
	K(ZE_MEMORY_ADVICE_SET_NON_ATOMIC_MOSTLY),
	K(ZE_MEMORY_ADVICE_CLEAR_NON_ATOMIC_MOSTLY),
	K(ZE_MEMORY_ADVICE_BIAS_CACHED),
	K(ZE_MEMORY_ADVICE_BIAS_UNCACHED),

	K(ZE_STRUCTURE_TYPE_DEVICE_IMAGE_PROPERTIES),
	K(ZE_STRUCTURE_TYPE_IMAGE_DESC),
	K(ZE_STRUCTURE_TYPE_IMAGE_PROPERTIES),
	K(ZE_STRUCTURE_TYPE_SAMPLER_DESC),
	K(ZE_IMAGE_TYPE_1D),
	K(ZE_IMAGE_TYPE_1DARRAY),
	K(ZE_IMAGE_TYPE_2D),
	K(ZE_IMAGE_TYPE_2DARRAY),
	K(ZE_IMAGE_TYPE_3D),
	K(ZE_IMAGE_FLAG_KERNEL_WRITE),
	K(ZE_IMAGE_FLAG_BIAS_UNCACHED),
	K(ZE_IMAGE_FORMAT_LAYOUT_8),
	K(ZE_IMAGE_FORMAT_LAYOUT_16),
	K(ZE_IMAGE_FORMAT_LAYOUT_32),
	K(ZE_IMAGE_FORMAT_LAYOUT_8_8),
	K(ZE_IMAGE_FORMAT_LAYOUT_8_8_8_8),
	K(ZE_IMAGE_FORMAT_LAYOUT_16_16),
	K(ZE_IMAGE_FORMAT_LAYOUT_16_16_16_16),
	K(ZE_IMAGE_FORMAT_LAYOUT_32_32),
	K(ZE_IMAGE_FORMAT_LAYOUT_32_32_32_32),
	K(ZE_IMAGE_FORMAT_LAYOUT_10_10_10_2),
	K(ZE_IMAGE_FORMAT_LAYOUT_11_11_10),
	K(ZE_IMAGE_FORMAT_LAYOUT_5_6_5),
	K(ZE_IMAGE_FORMAT_LAYOUT_5_5_5_1),
	K(ZE_IMAGE_FORMAT_LAYOUT_4_4_4_4),
	K(ZE_IMAGE_FORMAT_TYPE_UINT),
	K(ZE_IMAGE_FORMAT_TYPE_SINT),
	K(ZE_IMAGE_FORMAT_TYPE_UNORM),
	K(ZE_IMAGE_FORMAT_TYPE_SNORM),
	K(ZE_IMAGE_FORMAT_TYPE_FLOAT),
	K(ZE_IMAGE_FORMAT_SWIZZLE_R),
	K(ZE_IMAGE_FORMAT_SWIZZLE_G),
	K(ZE_IMAGE_FORMAT_SWIZZLE_B),
	K(ZE_IMAGE_FORMAT_SWIZZLE_A),
	K(ZE_IMAGE_FORMAT_SWIZZLE_0),
	K(ZE_IMAGE_FORMAT_SWIZZLE_1),
	K(ZE_IMAGE_FORMAT_SWIZZLE_X),
	K(ZE_IMAGE_SAMPLER_FILTER_FLAG_POINT),
	K(ZE_IMAGE_SAMPLER_FILTER_FLAG_LINEAR),
	K(ZE_SAMPLER_ADDRESS_MODE_NONE),
	K(ZE_SAMPLER_ADDRESS_MODE_REPEAT),
	K(ZE_SAMPLER_ADDRESS_MODE_CLAMP),
	K(ZE_SAMPLER_ADDRESS_MODE_CLAMP_TO_BORDER),
	K(ZE_SAMPLER_ADDRESS_MODE_MIRROR),
	K(ZE_SAMPLER_FILTER_MODE_NEAREST),
	K(ZE_SAMPLER_FILTER_MODE_LINEAR),

	K(ZE_MODULE_FORMAT_IL_SPIRV),
	K(ZE_MODULE_FORMAT_NATIVE),

	K(ZE_RESULT_SUCCESS),
	K(ZE_RESULT_NOT_READY),
	K(ZE_RESULT_ERROR_DEVICE_LOST),
	K(ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY),
	K(ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY),
	K(ZE_RESULT_ERROR_MODULE_BUILD_FAILURE),
	K(ZE_RESULT_ERROR_MODULE_LINK_FAILURE),
	K(ZE_RESULT_ERROR_DEVICE_REQUIRES_RESET),
	K(ZE_RESULT_ERROR_DEVICE_IN_LOW_POWER_STATE),
	K(ZE_RESULT_EXP_ERROR_DEVICE_IS_NOT_VERTEX),
	K(ZE_RESULT_EXP_ERROR_VERTEX_IS_NOT_DEVICE),
	K(ZE_RESULT_EXP_ERROR_REMOTE_DEVICE),
	K(ZE_RESULT_ERROR_INSUFFICIENT_PERMISSIONS),
	K(ZE_RESULT_ERROR_NOT_AVAILABLE),
	K(ZE_RESULT_ERROR_DEPENDENCY_UNAVAILABLE),
	K(ZE_RESULT_WARNING_DROPPED_DATA),
	K(ZE_RESULT_ERROR_UNINITIALIZED),
	K(ZE_RESULT_ERROR_UNSUPPORTED_VERSION),
	K(ZE_RESULT_ERROR_UNSUPPORTED_FEATURE),
	K(ZE_RESULT_ERROR_INVALID_ARGUMENT),
	K(ZE_RESULT_ERROR_INVALID_NULL_HANDLE),
	K(ZE_RESULT_ERROR_HANDLE_OBJECT_IN_USE),
	K(ZE_RESULT_ERROR_INVALID_NULL_POINTER),
	K(ZE_RESULT_ERROR_INVALID_SIZE),
	K(ZE_RESULT_ERROR_UNSUPPORTED_SIZE),
	K(ZE_RESULT_ERROR_UNSUPPORTED_ALIGNMENT),
	K(ZE_RESULT_ERROR_INVALID_SYNCHRONIZATION_OBJECT),
	K(ZE_RESULT_ERROR_INVALID_ENUMERATION),
	K(ZE_RESULT_ERROR_UNSUPPORTED_ENUMERATION),
	K(ZE_RESULT_ERROR_UNSUPPORTED_IMAGE_FORMAT),
	K(ZE_RESULT_ERROR_INVALID_NATIVE_BINARY),
	K(ZE_RESULT_ERROR_INVALID_GLOBAL_NAME),
	K(ZE_RESULT_ERROR_INVALID_KERNEL_NAME),
	K(ZE_RESULT_ERROR_INVALID_FUNCTION_NAME),
	K(ZE_RESULT_ERROR_INVALID_GROUP_SIZE_DIMENSION),
	K(ZE_RESULT_ERROR_INVALID_GLOBAL_WIDTH_DIMENSION),
	K(ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_INDEX),
	K(ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_SIZE),
	K(ZE_RESULT_ERROR_INVALID_KERNEL_ATTRIBUTE_VALUE),
	K(ZE_RESULT_ERROR_INVALID_MODULE_UNLINKED),
	K(ZE_RESULT_ERROR_INVALID_COMMAND_LIST_TYPE),
	K(ZE_RESULT_ERROR_OVERLAPPING_REGIONS),
	K(ZE_RESULT_WARNING_ACTION_REQUIRED),
	K(ZE_RESULT_ERROR_UNKNOWN),
};

static size_t gour_constant_count(void) { return sizeof gour_constants / sizeof gour_constants[0]; }
static const gour_constant *gour_constant_at(size_t i) { return &gour_constants[i]; }
*/
import "C"

// Layout is one entry of the header's layout table: the size of a
// structure (Field empty), or the offset and size of one of its fields.
type Layout struct {
	Type, Field  string
	Offset, Size uintptr
}

// Layouts returns the size and every field's offset and size of each structure gour
// passes to Level Zero, as the C compiler lays them out from ze_api.h.
func Layouts() []Layout {
	n := int(C.gour_layout_count())
	out := make([]Layout, n)
	for i := range out {
		e := C.gour_layout_at(C.size_t(i))
		out[i] = Layout{Type: C.GoString(e._type), Field: C.GoString(e.field), Offset: uintptr(e.offset), Size: uintptr(e.size)}
	}
	return out
}

// Constants returns the header's value of each constant package ze
// defines, by C name.
func Constants() map[string]uint64 {
	n := int(C.gour_constant_count())
	out := make(map[string]uint64, n)
	for i := range n {
		e := C.gour_constant_at(C.size_t(i))
		out[C.GoString(e.name)] = uint64(e.value)
	}
	return out
}
