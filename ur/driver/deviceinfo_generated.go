// Code generated from the Unified Runtime's ur_device_info_t by a one-off script; edit the table, not the numbers.

package driver

// Device queries, named and numbered as the Unified Runtime's ur_device_info_t
// (UR_DEVICE_INFO_<NAME>): DeviceInfo<Name> is UR_DEVICE_INFO_<NAME>.
const (
	DeviceInfoType                               DeviceQuery = 0      // UR_DEVICE_INFO_TYPE
	DeviceInfoVendorID                           DeviceQuery = 1      // UR_DEVICE_INFO_VENDOR_ID
	DeviceInfoDeviceID                           DeviceQuery = 2      // UR_DEVICE_INFO_DEVICE_ID
	DeviceInfoMaxComputeUnits                    DeviceQuery = 3      // UR_DEVICE_INFO_MAX_COMPUTE_UNITS
	DeviceInfoMaxWorkItemDimensions              DeviceQuery = 4      // UR_DEVICE_INFO_MAX_WORK_ITEM_DIMENSIONS
	DeviceInfoMaxWorkItemSizes                   DeviceQuery = 5      // UR_DEVICE_INFO_MAX_WORK_ITEM_SIZES
	DeviceInfoMaxWorkGroupSize                   DeviceQuery = 6      // UR_DEVICE_INFO_MAX_WORK_GROUP_SIZE
	DeviceInfoSingleFPConfig                     DeviceQuery = 7      // UR_DEVICE_INFO_SINGLE_FP_CONFIG
	DeviceInfoHalfFPConfig                       DeviceQuery = 8      // UR_DEVICE_INFO_HALF_FP_CONFIG
	DeviceInfoDoubleFPConfig                     DeviceQuery = 9      // UR_DEVICE_INFO_DOUBLE_FP_CONFIG
	DeviceInfoQueueProperties                    DeviceQuery = 10     // UR_DEVICE_INFO_QUEUE_PROPERTIES
	DeviceInfoPreferredVectorWidthChar           DeviceQuery = 11     // UR_DEVICE_INFO_PREFERRED_VECTOR_WIDTH_CHAR
	DeviceInfoPreferredVectorWidthShort          DeviceQuery = 12     // UR_DEVICE_INFO_PREFERRED_VECTOR_WIDTH_SHORT
	DeviceInfoPreferredVectorWidthInt            DeviceQuery = 13     // UR_DEVICE_INFO_PREFERRED_VECTOR_WIDTH_INT
	DeviceInfoPreferredVectorWidthLong           DeviceQuery = 14     // UR_DEVICE_INFO_PREFERRED_VECTOR_WIDTH_LONG
	DeviceInfoPreferredVectorWidthFloat          DeviceQuery = 15     // UR_DEVICE_INFO_PREFERRED_VECTOR_WIDTH_FLOAT
	DeviceInfoPreferredVectorWidthDouble         DeviceQuery = 16     // UR_DEVICE_INFO_PREFERRED_VECTOR_WIDTH_DOUBLE
	DeviceInfoPreferredVectorWidthHalf           DeviceQuery = 17     // UR_DEVICE_INFO_PREFERRED_VECTOR_WIDTH_HALF
	DeviceInfoNativeVectorWidthChar              DeviceQuery = 18     // UR_DEVICE_INFO_NATIVE_VECTOR_WIDTH_CHAR
	DeviceInfoNativeVectorWidthShort             DeviceQuery = 19     // UR_DEVICE_INFO_NATIVE_VECTOR_WIDTH_SHORT
	DeviceInfoNativeVectorWidthInt               DeviceQuery = 20     // UR_DEVICE_INFO_NATIVE_VECTOR_WIDTH_INT
	DeviceInfoNativeVectorWidthLong              DeviceQuery = 21     // UR_DEVICE_INFO_NATIVE_VECTOR_WIDTH_LONG
	DeviceInfoNativeVectorWidthFloat             DeviceQuery = 22     // UR_DEVICE_INFO_NATIVE_VECTOR_WIDTH_FLOAT
	DeviceInfoNativeVectorWidthDouble            DeviceQuery = 23     // UR_DEVICE_INFO_NATIVE_VECTOR_WIDTH_DOUBLE
	DeviceInfoNativeVectorWidthHalf              DeviceQuery = 24     // UR_DEVICE_INFO_NATIVE_VECTOR_WIDTH_HALF
	DeviceInfoMaxClockFrequency                  DeviceQuery = 25     // UR_DEVICE_INFO_MAX_CLOCK_FREQUENCY
	DeviceInfoMemoryClockRate                    DeviceQuery = 26     // UR_DEVICE_INFO_MEMORY_CLOCK_RATE
	DeviceInfoAddressBits                        DeviceQuery = 27     // UR_DEVICE_INFO_ADDRESS_BITS
	DeviceInfoMaxMemAllocSize                    DeviceQuery = 28     // UR_DEVICE_INFO_MAX_MEM_ALLOC_SIZE
	DeviceInfoImageSupported                     DeviceQuery = 29     // UR_DEVICE_INFO_IMAGE_SUPPORTED
	DeviceInfoMaxReadImageArgs                   DeviceQuery = 30     // UR_DEVICE_INFO_MAX_READ_IMAGE_ARGS
	DeviceInfoMaxWriteImageArgs                  DeviceQuery = 31     // UR_DEVICE_INFO_MAX_WRITE_IMAGE_ARGS
	DeviceInfoMaxReadWriteImageArgs              DeviceQuery = 32     // UR_DEVICE_INFO_MAX_READ_WRITE_IMAGE_ARGS
	DeviceInfoImage2DMaxWidth                    DeviceQuery = 33     // UR_DEVICE_INFO_IMAGE2D_MAX_WIDTH
	DeviceInfoImage2DMaxHeight                   DeviceQuery = 34     // UR_DEVICE_INFO_IMAGE2D_MAX_HEIGHT
	DeviceInfoImage3DMaxWidth                    DeviceQuery = 35     // UR_DEVICE_INFO_IMAGE3D_MAX_WIDTH
	DeviceInfoImage3DMaxHeight                   DeviceQuery = 36     // UR_DEVICE_INFO_IMAGE3D_MAX_HEIGHT
	DeviceInfoImage3DMaxDepth                    DeviceQuery = 37     // UR_DEVICE_INFO_IMAGE3D_MAX_DEPTH
	DeviceInfoImageMaxBufferSize                 DeviceQuery = 38     // UR_DEVICE_INFO_IMAGE_MAX_BUFFER_SIZE
	DeviceInfoImageMaxArraySize                  DeviceQuery = 39     // UR_DEVICE_INFO_IMAGE_MAX_ARRAY_SIZE
	DeviceInfoMaxSamplers                        DeviceQuery = 40     // UR_DEVICE_INFO_MAX_SAMPLERS
	DeviceInfoMaxParameterSize                   DeviceQuery = 41     // UR_DEVICE_INFO_MAX_PARAMETER_SIZE
	DeviceInfoMemBaseAddrAlign                   DeviceQuery = 42     // UR_DEVICE_INFO_MEM_BASE_ADDR_ALIGN
	DeviceInfoGlobalMemCacheType                 DeviceQuery = 43     // UR_DEVICE_INFO_GLOBAL_MEM_CACHE_TYPE
	DeviceInfoGlobalMemCachelineSize             DeviceQuery = 44     // UR_DEVICE_INFO_GLOBAL_MEM_CACHELINE_SIZE
	DeviceInfoGlobalMemCacheSize                 DeviceQuery = 45     // UR_DEVICE_INFO_GLOBAL_MEM_CACHE_SIZE
	DeviceInfoGlobalMemSize                      DeviceQuery = 46     // UR_DEVICE_INFO_GLOBAL_MEM_SIZE
	DeviceInfoGlobalMemFree                      DeviceQuery = 47     // UR_DEVICE_INFO_GLOBAL_MEM_FREE
	DeviceInfoMaxConstantBufferSize              DeviceQuery = 48     // UR_DEVICE_INFO_MAX_CONSTANT_BUFFER_SIZE
	DeviceInfoMaxConstantArgs                    DeviceQuery = 49     // UR_DEVICE_INFO_MAX_CONSTANT_ARGS
	DeviceInfoLocalMemType                       DeviceQuery = 50     // UR_DEVICE_INFO_LOCAL_MEM_TYPE
	DeviceInfoLocalMemSize                       DeviceQuery = 51     // UR_DEVICE_INFO_LOCAL_MEM_SIZE
	DeviceInfoErrorCorrectionSupport             DeviceQuery = 52     // UR_DEVICE_INFO_ERROR_CORRECTION_SUPPORT
	DeviceInfoHostUnifiedMemory                  DeviceQuery = 53     // UR_DEVICE_INFO_HOST_UNIFIED_MEMORY
	DeviceInfoProfilingTimerResolution           DeviceQuery = 54     // UR_DEVICE_INFO_PROFILING_TIMER_RESOLUTION
	DeviceInfoEndianLittle                       DeviceQuery = 55     // UR_DEVICE_INFO_ENDIAN_LITTLE
	DeviceInfoAvailable                          DeviceQuery = 56     // UR_DEVICE_INFO_AVAILABLE
	DeviceInfoCompilerAvailable                  DeviceQuery = 57     // UR_DEVICE_INFO_COMPILER_AVAILABLE
	DeviceInfoLinkerAvailable                    DeviceQuery = 58     // UR_DEVICE_INFO_LINKER_AVAILABLE
	DeviceInfoExecutionCapabilities              DeviceQuery = 59     // UR_DEVICE_INFO_EXECUTION_CAPABILITIES
	DeviceInfoQueueOnDeviceProperties            DeviceQuery = 60     // UR_DEVICE_INFO_QUEUE_ON_DEVICE_PROPERTIES
	DeviceInfoQueueOnHostProperties              DeviceQuery = 61     // UR_DEVICE_INFO_QUEUE_ON_HOST_PROPERTIES
	DeviceInfoBuiltInKernels                     DeviceQuery = 62     // UR_DEVICE_INFO_BUILT_IN_KERNELS
	DeviceInfoPlatform                           DeviceQuery = 63     // UR_DEVICE_INFO_PLATFORM
	DeviceInfoReferenceCount                     DeviceQuery = 64     // UR_DEVICE_INFO_REFERENCE_COUNT
	DeviceInfoILVersion                          DeviceQuery = 65     // UR_DEVICE_INFO_IL_VERSION
	DeviceInfoName                               DeviceQuery = 66     // UR_DEVICE_INFO_NAME
	DeviceInfoVendor                             DeviceQuery = 67     // UR_DEVICE_INFO_VENDOR
	DeviceInfoDriverVersion                      DeviceQuery = 68     // UR_DEVICE_INFO_DRIVER_VERSION
	DeviceInfoProfile                            DeviceQuery = 69     // UR_DEVICE_INFO_PROFILE
	DeviceInfoVersion                            DeviceQuery = 70     // UR_DEVICE_INFO_VERSION
	DeviceInfoBackendRuntimeVersion              DeviceQuery = 71     // UR_DEVICE_INFO_BACKEND_RUNTIME_VERSION
	DeviceInfoExtensions                         DeviceQuery = 72     // UR_DEVICE_INFO_EXTENSIONS
	DeviceInfoPrintfBufferSize                   DeviceQuery = 73     // UR_DEVICE_INFO_PRINTF_BUFFER_SIZE
	DeviceInfoPreferredInteropUserSync           DeviceQuery = 74     // UR_DEVICE_INFO_PREFERRED_INTEROP_USER_SYNC
	DeviceInfoParentDevice                       DeviceQuery = 75     // UR_DEVICE_INFO_PARENT_DEVICE
	DeviceInfoSupportedPartitions                DeviceQuery = 76     // UR_DEVICE_INFO_SUPPORTED_PARTITIONS
	DeviceInfoPartitionMaxSubDevices             DeviceQuery = 77     // UR_DEVICE_INFO_PARTITION_MAX_SUB_DEVICES
	DeviceInfoPartitionAffinityDomain            DeviceQuery = 78     // UR_DEVICE_INFO_PARTITION_AFFINITY_DOMAIN
	DeviceInfoPartitionType                      DeviceQuery = 79     // UR_DEVICE_INFO_PARTITION_TYPE
	DeviceInfoMaxNumSubGroups                    DeviceQuery = 80     // UR_DEVICE_INFO_MAX_NUM_SUB_GROUPS
	DeviceInfoSubGroupIndependentForwardProgress DeviceQuery = 81     // UR_DEVICE_INFO_SUB_GROUP_INDEPENDENT_FORWARD_PROGRESS
	DeviceInfoSubGroupSizesIntel                 DeviceQuery = 82     // UR_DEVICE_INFO_SUB_GROUP_SIZES_INTEL
	DeviceInfoUSMHostSupport                     DeviceQuery = 83     // UR_DEVICE_INFO_USM_HOST_SUPPORT
	DeviceInfoUSMDeviceSupport                   DeviceQuery = 84     // UR_DEVICE_INFO_USM_DEVICE_SUPPORT
	DeviceInfoUSMSingleSharedSupport             DeviceQuery = 85     // UR_DEVICE_INFO_USM_SINGLE_SHARED_SUPPORT
	DeviceInfoUSMCrossSharedSupport              DeviceQuery = 86     // UR_DEVICE_INFO_USM_CROSS_SHARED_SUPPORT
	DeviceInfoUSMSystemSharedSupport             DeviceQuery = 87     // UR_DEVICE_INFO_USM_SYSTEM_SHARED_SUPPORT
	DeviceInfoUUID                               DeviceQuery = 88     // UR_DEVICE_INFO_UUID
	DeviceInfoPCIAddress                         DeviceQuery = 89     // UR_DEVICE_INFO_PCI_ADDRESS
	DeviceInfoGPUEUCount                         DeviceQuery = 90     // UR_DEVICE_INFO_GPU_EU_COUNT
	DeviceInfoGPUEUSIMDWidth                     DeviceQuery = 91     // UR_DEVICE_INFO_GPU_EU_SIMD_WIDTH
	DeviceInfoGPUEUSlices                        DeviceQuery = 92     // UR_DEVICE_INFO_GPU_EU_SLICES
	DeviceInfoGPUEUCountPerSubslice              DeviceQuery = 93     // UR_DEVICE_INFO_GPU_EU_COUNT_PER_SUBSLICE
	DeviceInfoGPUSubslicesPerSlice               DeviceQuery = 94     // UR_DEVICE_INFO_GPU_SUBSLICES_PER_SLICE
	DeviceInfoGPUHWThreadsPerEU                  DeviceQuery = 95     // UR_DEVICE_INFO_GPU_HW_THREADS_PER_EU
	DeviceInfoMaxMemoryBandwidth                 DeviceQuery = 96     // UR_DEVICE_INFO_MAX_MEMORY_BANDWIDTH
	DeviceInfoImageSRGB                          DeviceQuery = 97     // UR_DEVICE_INFO_IMAGE_SRGB
	DeviceInfoBuildOnSubdevice                   DeviceQuery = 98     // UR_DEVICE_INFO_BUILD_ON_SUBDEVICE
	DeviceInfoAtomic64                           DeviceQuery = 99     // UR_DEVICE_INFO_ATOMIC_64
	DeviceInfoAtomicMemoryOrderCapabilities      DeviceQuery = 100    // UR_DEVICE_INFO_ATOMIC_MEMORY_ORDER_CAPABILITIES
	DeviceInfoAtomicMemoryScopeCapabilities      DeviceQuery = 101    // UR_DEVICE_INFO_ATOMIC_MEMORY_SCOPE_CAPABILITIES
	DeviceInfoAtomicFenceOrderCapabilities       DeviceQuery = 102    // UR_DEVICE_INFO_ATOMIC_FENCE_ORDER_CAPABILITIES
	DeviceInfoAtomicFenceScopeCapabilities       DeviceQuery = 103    // UR_DEVICE_INFO_ATOMIC_FENCE_SCOPE_CAPABILITIES
	DeviceInfoBFloat16                           DeviceQuery = 104    // UR_DEVICE_INFO_BFLOAT16
	DeviceInfoMaxComputeQueueIndices             DeviceQuery = 105    // UR_DEVICE_INFO_MAX_COMPUTE_QUEUE_INDICES
	DeviceInfoKernelSetSpecializationConstants   DeviceQuery = 106    // UR_DEVICE_INFO_KERNEL_SET_SPECIALIZATION_CONSTANTS
	DeviceInfoMemoryBusWidth                     DeviceQuery = 107    // UR_DEVICE_INFO_MEMORY_BUS_WIDTH
	DeviceInfoMaxWorkGroups3D                    DeviceQuery = 108    // UR_DEVICE_INFO_MAX_WORK_GROUPS_3D
	DeviceInfoAsyncBarrier                       DeviceQuery = 109    // UR_DEVICE_INFO_ASYNC_BARRIER
	DeviceInfoMemChannelSupport                  DeviceQuery = 110    // UR_DEVICE_INFO_MEM_CHANNEL_SUPPORT
	DeviceInfoHostPipeReadWriteSupported         DeviceQuery = 111    // UR_DEVICE_INFO_HOST_PIPE_READ_WRITE_SUPPORTED
	DeviceInfoMaxRegistersPerWorkGroup           DeviceQuery = 112    // UR_DEVICE_INFO_MAX_REGISTERS_PER_WORK_GROUP
	DeviceInfoIPVersion                          DeviceQuery = 113    // UR_DEVICE_INFO_IP_VERSION
	DeviceInfoVirtualMemorySupport               DeviceQuery = 114    // UR_DEVICE_INFO_VIRTUAL_MEMORY_SUPPORT
	DeviceInfoESIMDSupport                       DeviceQuery = 115    // UR_DEVICE_INFO_ESIMD_SUPPORT
	DeviceInfoComponentDevices                   DeviceQuery = 116    // UR_DEVICE_INFO_COMPONENT_DEVICES
	DeviceInfoCompositeDevice                    DeviceQuery = 117    // UR_DEVICE_INFO_COMPOSITE_DEVICE
	DeviceInfoGlobalVariableSupport              DeviceQuery = 118    // UR_DEVICE_INFO_GLOBAL_VARIABLE_SUPPORT
	DeviceInfoUSMPoolSupport                     DeviceQuery = 119    // UR_DEVICE_INFO_USM_POOL_SUPPORT
	DeviceInfoNumComputeUnits                    DeviceQuery = 120    // UR_DEVICE_INFO_NUM_COMPUTE_UNITS
	DeviceInfoProgramSetSpecializationConstants  DeviceQuery = 121    // UR_DEVICE_INFO_PROGRAM_SET_SPECIALIZATION_CONSTANTS
	DeviceInfoCommandBufferSupportExp            DeviceQuery = 0x1000 // UR_DEVICE_INFO_COMMAND_BUFFER_SUPPORT_EXP
	DeviceInfoCommandBufferUpdateCapabilitiesExp DeviceQuery = 0x1001 // UR_DEVICE_INFO_COMMAND_BUFFER_UPDATE_CAPABILITIES_EXP
	DeviceInfoCommandBufferEventSupportExp       DeviceQuery = 0x1002 // UR_DEVICE_INFO_COMMAND_BUFFER_EVENT_SUPPORT_EXP
	DeviceInfoClusterLaunchExp                   DeviceQuery = 0x1111 // UR_DEVICE_INFO_CLUSTER_LAUNCH_EXP
	DeviceInfoBindlessImagesSupportExp           DeviceQuery = 0x2000 // UR_DEVICE_INFO_BINDLESS_IMAGES_SUPPORT_EXP
	DeviceInfoImagePitchAlignExp                 DeviceQuery = 0x2004 // UR_DEVICE_INFO_IMAGE_PITCH_ALIGN_EXP
	DeviceInfoMaxImageLinearWidthExp             DeviceQuery = 0x2005 // UR_DEVICE_INFO_MAX_IMAGE_LINEAR_WIDTH_EXP
	DeviceInfoMaxImageLinearHeightExp            DeviceQuery = 0x2006 // UR_DEVICE_INFO_MAX_IMAGE_LINEAR_HEIGHT_EXP
	DeviceInfoMaxImageLinearPitchExp             DeviceQuery = 0x2007 // UR_DEVICE_INFO_MAX_IMAGE_LINEAR_PITCH_EXP
	DeviceInfoMipmapSupportExp                   DeviceQuery = 0x2008 // UR_DEVICE_INFO_MIPMAP_SUPPORT_EXP
	DeviceInfoExternalMemoryImportSupportExp     DeviceQuery = 0x200c // UR_DEVICE_INFO_EXTERNAL_MEMORY_IMPORT_SUPPORT_EXP
	DeviceInfoExternalSemaphoreImportSupportExp  DeviceQuery = 0x200e // UR_DEVICE_INFO_EXTERNAL_SEMAPHORE_IMPORT_SUPPORT_EXP
	DeviceInfoTimestampRecordingSupportExp       DeviceQuery = 0x2018 // UR_DEVICE_INFO_TIMESTAMP_RECORDING_SUPPORT_EXP
	DeviceInfoImageArraySupportExp               DeviceQuery = 0x2019 // UR_DEVICE_INFO_IMAGE_ARRAY_SUPPORT_EXP
	DeviceInfoEnqueueNativeCommandSupportExp     DeviceQuery = 0x2020 // UR_DEVICE_INFO_ENQUEUE_NATIVE_COMMAND_SUPPORT_EXP
	DeviceInfoLowPowerEventsExp                  DeviceQuery = 0x2021 // UR_DEVICE_INFO_LOW_POWER_EVENTS_EXP
	DeviceInfoAsyncUSMAllocationsExp             DeviceQuery = 0x2050 // UR_DEVICE_INFO_ASYNC_USM_ALLOCATIONS_EXP
)

// deviceQueries is every query gour knows, in ur_device_info_t order, with its
// name and the type of its value.
var deviceQueries = []DeviceQueryInfo{
	{DeviceInfoType, "TYPE", QueryEnum},
	{DeviceInfoVendorID, "VENDOR_ID", QueryUint32},
	{DeviceInfoDeviceID, "DEVICE_ID", QueryUint32},
	{DeviceInfoMaxComputeUnits, "MAX_COMPUTE_UNITS", QueryUint32},
	{DeviceInfoMaxWorkItemDimensions, "MAX_WORK_ITEM_DIMENSIONS", QueryUint32},
	{DeviceInfoMaxWorkItemSizes, "MAX_WORK_ITEM_SIZES", QueryUint64s},
	{DeviceInfoMaxWorkGroupSize, "MAX_WORK_GROUP_SIZE", QueryUint64},
	{DeviceInfoSingleFPConfig, "SINGLE_FP_CONFIG", QueryFlags},
	{DeviceInfoHalfFPConfig, "HALF_FP_CONFIG", QueryFlags},
	{DeviceInfoDoubleFPConfig, "DOUBLE_FP_CONFIG", QueryFlags},
	{DeviceInfoQueueProperties, "QUEUE_PROPERTIES", QueryFlags},
	{DeviceInfoPreferredVectorWidthChar, "PREFERRED_VECTOR_WIDTH_CHAR", QueryUint32},
	{DeviceInfoPreferredVectorWidthShort, "PREFERRED_VECTOR_WIDTH_SHORT", QueryUint32},
	{DeviceInfoPreferredVectorWidthInt, "PREFERRED_VECTOR_WIDTH_INT", QueryUint32},
	{DeviceInfoPreferredVectorWidthLong, "PREFERRED_VECTOR_WIDTH_LONG", QueryUint32},
	{DeviceInfoPreferredVectorWidthFloat, "PREFERRED_VECTOR_WIDTH_FLOAT", QueryUint32},
	{DeviceInfoPreferredVectorWidthDouble, "PREFERRED_VECTOR_WIDTH_DOUBLE", QueryUint32},
	{DeviceInfoPreferredVectorWidthHalf, "PREFERRED_VECTOR_WIDTH_HALF", QueryUint32},
	{DeviceInfoNativeVectorWidthChar, "NATIVE_VECTOR_WIDTH_CHAR", QueryUint32},
	{DeviceInfoNativeVectorWidthShort, "NATIVE_VECTOR_WIDTH_SHORT", QueryUint32},
	{DeviceInfoNativeVectorWidthInt, "NATIVE_VECTOR_WIDTH_INT", QueryUint32},
	{DeviceInfoNativeVectorWidthLong, "NATIVE_VECTOR_WIDTH_LONG", QueryUint32},
	{DeviceInfoNativeVectorWidthFloat, "NATIVE_VECTOR_WIDTH_FLOAT", QueryUint32},
	{DeviceInfoNativeVectorWidthDouble, "NATIVE_VECTOR_WIDTH_DOUBLE", QueryUint32},
	{DeviceInfoNativeVectorWidthHalf, "NATIVE_VECTOR_WIDTH_HALF", QueryUint32},
	{DeviceInfoMaxClockFrequency, "MAX_CLOCK_FREQUENCY", QueryUint32},
	{DeviceInfoMemoryClockRate, "MEMORY_CLOCK_RATE", QueryUint32},
	{DeviceInfoAddressBits, "ADDRESS_BITS", QueryUint32},
	{DeviceInfoMaxMemAllocSize, "MAX_MEM_ALLOC_SIZE", QueryUint64},
	{DeviceInfoImageSupported, "IMAGE_SUPPORTED", QueryBool},
	{DeviceInfoMaxReadImageArgs, "MAX_READ_IMAGE_ARGS", QueryUint32},
	{DeviceInfoMaxWriteImageArgs, "MAX_WRITE_IMAGE_ARGS", QueryUint32},
	{DeviceInfoMaxReadWriteImageArgs, "MAX_READ_WRITE_IMAGE_ARGS", QueryUint32},
	{DeviceInfoImage2DMaxWidth, "IMAGE2D_MAX_WIDTH", QueryUint64},
	{DeviceInfoImage2DMaxHeight, "IMAGE2D_MAX_HEIGHT", QueryUint64},
	{DeviceInfoImage3DMaxWidth, "IMAGE3D_MAX_WIDTH", QueryUint64},
	{DeviceInfoImage3DMaxHeight, "IMAGE3D_MAX_HEIGHT", QueryUint64},
	{DeviceInfoImage3DMaxDepth, "IMAGE3D_MAX_DEPTH", QueryUint64},
	{DeviceInfoImageMaxBufferSize, "IMAGE_MAX_BUFFER_SIZE", QueryUint64},
	{DeviceInfoImageMaxArraySize, "IMAGE_MAX_ARRAY_SIZE", QueryUint64},
	{DeviceInfoMaxSamplers, "MAX_SAMPLERS", QueryUint32},
	{DeviceInfoMaxParameterSize, "MAX_PARAMETER_SIZE", QueryUint64},
	{DeviceInfoMemBaseAddrAlign, "MEM_BASE_ADDR_ALIGN", QueryUint32},
	{DeviceInfoGlobalMemCacheType, "GLOBAL_MEM_CACHE_TYPE", QueryEnum},
	{DeviceInfoGlobalMemCachelineSize, "GLOBAL_MEM_CACHELINE_SIZE", QueryUint32},
	{DeviceInfoGlobalMemCacheSize, "GLOBAL_MEM_CACHE_SIZE", QueryUint64},
	{DeviceInfoGlobalMemSize, "GLOBAL_MEM_SIZE", QueryUint64},
	{DeviceInfoGlobalMemFree, "GLOBAL_MEM_FREE", QueryUint64},
	{DeviceInfoMaxConstantBufferSize, "MAX_CONSTANT_BUFFER_SIZE", QueryUint64},
	{DeviceInfoMaxConstantArgs, "MAX_CONSTANT_ARGS", QueryUint32},
	{DeviceInfoLocalMemType, "LOCAL_MEM_TYPE", QueryEnum},
	{DeviceInfoLocalMemSize, "LOCAL_MEM_SIZE", QueryUint64},
	{DeviceInfoErrorCorrectionSupport, "ERROR_CORRECTION_SUPPORT", QueryBool},
	{DeviceInfoHostUnifiedMemory, "HOST_UNIFIED_MEMORY", QueryBool},
	{DeviceInfoProfilingTimerResolution, "PROFILING_TIMER_RESOLUTION", QueryUint64},
	{DeviceInfoEndianLittle, "ENDIAN_LITTLE", QueryBool},
	{DeviceInfoAvailable, "AVAILABLE", QueryBool},
	{DeviceInfoCompilerAvailable, "COMPILER_AVAILABLE", QueryBool},
	{DeviceInfoLinkerAvailable, "LINKER_AVAILABLE", QueryBool},
	{DeviceInfoExecutionCapabilities, "EXECUTION_CAPABILITIES", QueryFlags},
	{DeviceInfoQueueOnDeviceProperties, "QUEUE_ON_DEVICE_PROPERTIES", QueryFlags},
	{DeviceInfoQueueOnHostProperties, "QUEUE_ON_HOST_PROPERTIES", QueryFlags},
	{DeviceInfoBuiltInKernels, "BUILT_IN_KERNELS", QueryString},
	{DeviceInfoPlatform, "PLATFORM", QueryHandle},
	{DeviceInfoReferenceCount, "REFERENCE_COUNT", QueryUint32},
	{DeviceInfoILVersion, "IL_VERSION", QueryString},
	{DeviceInfoName, "NAME", QueryString},
	{DeviceInfoVendor, "VENDOR", QueryString},
	{DeviceInfoDriverVersion, "DRIVER_VERSION", QueryString},
	{DeviceInfoProfile, "PROFILE", QueryString},
	{DeviceInfoVersion, "VERSION", QueryString},
	{DeviceInfoBackendRuntimeVersion, "BACKEND_RUNTIME_VERSION", QueryString},
	{DeviceInfoExtensions, "EXTENSIONS", QueryString},
	{DeviceInfoPrintfBufferSize, "PRINTF_BUFFER_SIZE", QueryUint64},
	{DeviceInfoPreferredInteropUserSync, "PREFERRED_INTEROP_USER_SYNC", QueryBool},
	{DeviceInfoParentDevice, "PARENT_DEVICE", QueryHandle},
	{DeviceInfoSupportedPartitions, "SUPPORTED_PARTITIONS", QueryUint32s},
	{DeviceInfoPartitionMaxSubDevices, "PARTITION_MAX_SUB_DEVICES", QueryUint32},
	{DeviceInfoPartitionAffinityDomain, "PARTITION_AFFINITY_DOMAIN", QueryFlags},
	{DeviceInfoPartitionType, "PARTITION_TYPE", QueryUint32s},
	{DeviceInfoMaxNumSubGroups, "MAX_NUM_SUB_GROUPS", QueryUint32},
	{DeviceInfoSubGroupIndependentForwardProgress, "SUB_GROUP_INDEPENDENT_FORWARD_PROGRESS", QueryBool},
	{DeviceInfoSubGroupSizesIntel, "SUB_GROUP_SIZES_INTEL", QueryUint32s},
	{DeviceInfoUSMHostSupport, "USM_HOST_SUPPORT", QueryFlags},
	{DeviceInfoUSMDeviceSupport, "USM_DEVICE_SUPPORT", QueryFlags},
	{DeviceInfoUSMSingleSharedSupport, "USM_SINGLE_SHARED_SUPPORT", QueryFlags},
	{DeviceInfoUSMCrossSharedSupport, "USM_CROSS_SHARED_SUPPORT", QueryFlags},
	{DeviceInfoUSMSystemSharedSupport, "USM_SYSTEM_SHARED_SUPPORT", QueryFlags},
	{DeviceInfoUUID, "UUID", QueryBytes},
	{DeviceInfoPCIAddress, "PCI_ADDRESS", QueryString},
	{DeviceInfoGPUEUCount, "GPU_EU_COUNT", QueryUint32},
	{DeviceInfoGPUEUSIMDWidth, "GPU_EU_SIMD_WIDTH", QueryUint32},
	{DeviceInfoGPUEUSlices, "GPU_EU_SLICES", QueryUint32},
	{DeviceInfoGPUEUCountPerSubslice, "GPU_EU_COUNT_PER_SUBSLICE", QueryUint32},
	{DeviceInfoGPUSubslicesPerSlice, "GPU_SUBSLICES_PER_SLICE", QueryUint32},
	{DeviceInfoGPUHWThreadsPerEU, "GPU_HW_THREADS_PER_EU", QueryUint32},
	{DeviceInfoMaxMemoryBandwidth, "MAX_MEMORY_BANDWIDTH", QueryUint64},
	{DeviceInfoImageSRGB, "IMAGE_SRGB", QueryBool},
	{DeviceInfoBuildOnSubdevice, "BUILD_ON_SUBDEVICE", QueryBool},
	{DeviceInfoAtomic64, "ATOMIC_64", QueryBool},
	{DeviceInfoAtomicMemoryOrderCapabilities, "ATOMIC_MEMORY_ORDER_CAPABILITIES", QueryFlags},
	{DeviceInfoAtomicMemoryScopeCapabilities, "ATOMIC_MEMORY_SCOPE_CAPABILITIES", QueryFlags},
	{DeviceInfoAtomicFenceOrderCapabilities, "ATOMIC_FENCE_ORDER_CAPABILITIES", QueryFlags},
	{DeviceInfoAtomicFenceScopeCapabilities, "ATOMIC_FENCE_SCOPE_CAPABILITIES", QueryFlags},
	{DeviceInfoBFloat16, "BFLOAT16", QueryBool},
	{DeviceInfoMaxComputeQueueIndices, "MAX_COMPUTE_QUEUE_INDICES", QueryUint32},
	{DeviceInfoKernelSetSpecializationConstants, "KERNEL_SET_SPECIALIZATION_CONSTANTS", QueryBool},
	{DeviceInfoMemoryBusWidth, "MEMORY_BUS_WIDTH", QueryUint32},
	{DeviceInfoMaxWorkGroups3D, "MAX_WORK_GROUPS_3D", QueryUint64s},
	{DeviceInfoAsyncBarrier, "ASYNC_BARRIER", QueryBool},
	{DeviceInfoMemChannelSupport, "MEM_CHANNEL_SUPPORT", QueryBool},
	{DeviceInfoHostPipeReadWriteSupported, "HOST_PIPE_READ_WRITE_SUPPORTED", QueryBool},
	{DeviceInfoMaxRegistersPerWorkGroup, "MAX_REGISTERS_PER_WORK_GROUP", QueryUint32},
	{DeviceInfoIPVersion, "IP_VERSION", QueryUint32},
	{DeviceInfoVirtualMemorySupport, "VIRTUAL_MEMORY_SUPPORT", QueryBool},
	{DeviceInfoESIMDSupport, "ESIMD_SUPPORT", QueryBool},
	{DeviceInfoComponentDevices, "COMPONENT_DEVICES", QueryHandles},
	{DeviceInfoCompositeDevice, "COMPOSITE_DEVICE", QueryHandle},
	{DeviceInfoGlobalVariableSupport, "GLOBAL_VARIABLE_SUPPORT", QueryBool},
	{DeviceInfoUSMPoolSupport, "USM_POOL_SUPPORT", QueryBool},
	{DeviceInfoNumComputeUnits, "NUM_COMPUTE_UNITS", QueryUint32},
	{DeviceInfoProgramSetSpecializationConstants, "PROGRAM_SET_SPECIALIZATION_CONSTANTS", QueryBool},
	{DeviceInfoCommandBufferSupportExp, "COMMAND_BUFFER_SUPPORT_EXP", QueryBool},
	{DeviceInfoCommandBufferUpdateCapabilitiesExp, "COMMAND_BUFFER_UPDATE_CAPABILITIES_EXP", QueryFlags},
	{DeviceInfoCommandBufferEventSupportExp, "COMMAND_BUFFER_EVENT_SUPPORT_EXP", QueryBool},
	{DeviceInfoClusterLaunchExp, "CLUSTER_LAUNCH_EXP", QueryBool},
	{DeviceInfoBindlessImagesSupportExp, "BINDLESS_IMAGES_SUPPORT_EXP", QueryBool},
	{DeviceInfoImagePitchAlignExp, "IMAGE_PITCH_ALIGN_EXP", QueryUint32},
	{DeviceInfoMaxImageLinearWidthExp, "MAX_IMAGE_LINEAR_WIDTH_EXP", QueryUint64},
	{DeviceInfoMaxImageLinearHeightExp, "MAX_IMAGE_LINEAR_HEIGHT_EXP", QueryUint64},
	{DeviceInfoMaxImageLinearPitchExp, "MAX_IMAGE_LINEAR_PITCH_EXP", QueryUint64},
	{DeviceInfoMipmapSupportExp, "MIPMAP_SUPPORT_EXP", QueryBool},
	{DeviceInfoExternalMemoryImportSupportExp, "EXTERNAL_MEMORY_IMPORT_SUPPORT_EXP", QueryBool},
	{DeviceInfoExternalSemaphoreImportSupportExp, "EXTERNAL_SEMAPHORE_IMPORT_SUPPORT_EXP", QueryBool},
	{DeviceInfoTimestampRecordingSupportExp, "TIMESTAMP_RECORDING_SUPPORT_EXP", QueryBool},
	{DeviceInfoImageArraySupportExp, "IMAGE_ARRAY_SUPPORT_EXP", QueryBool},
	{DeviceInfoEnqueueNativeCommandSupportExp, "ENQUEUE_NATIVE_COMMAND_SUPPORT_EXP", QueryBool},
	{DeviceInfoLowPowerEventsExp, "LOW_POWER_EVENTS_EXP", QueryBool},
	{DeviceInfoAsyncUSMAllocationsExp, "ASYNC_USM_ALLOCATIONS_EXP", QueryBool},
}
