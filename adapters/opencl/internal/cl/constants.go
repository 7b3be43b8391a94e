package cl

// Boolean values (cl_bool).
const (
	True  = 1 // CL_TRUE
	False = 0 // CL_FALSE
)

// Platform info (cl_platform_info).
const (
	PlatformProfile    = 0x0900 // CL_PLATFORM_PROFILE
	PlatformVersion    = 0x0901 // CL_PLATFORM_VERSION
	PlatformName       = 0x0902 // CL_PLATFORM_NAME
	PlatformVendor     = 0x0903 // CL_PLATFORM_VENDOR
	PlatformExtensions = 0x0904 // CL_PLATFORM_EXTENSIONS
)

// Device types (cl_device_type bitfield).
const (
	DeviceTypeDefault     = 1 << 0     // CL_DEVICE_TYPE_DEFAULT
	DeviceTypeCPU         = 1 << 1     // CL_DEVICE_TYPE_CPU
	DeviceTypeGPU         = 1 << 2     // CL_DEVICE_TYPE_GPU
	DeviceTypeAccelerator = 1 << 3     // CL_DEVICE_TYPE_ACCELERATOR
	DeviceTypeCustom      = 1 << 4     // CL_DEVICE_TYPE_CUSTOM
	DeviceTypeAll         = 0xFFFFFFFF // CL_DEVICE_TYPE_ALL
)

// Device info (cl_device_info).
const (
	DeviceType                       = 0x1000 // CL_DEVICE_TYPE
	DeviceVendorID                   = 0x1001 // CL_DEVICE_VENDOR_ID
	DeviceMaxComputeUnits            = 0x1002 // CL_DEVICE_MAX_COMPUTE_UNITS
	DeviceMaxWorkItemDimensions      = 0x1003 // CL_DEVICE_MAX_WORK_ITEM_DIMENSIONS
	DeviceMaxWorkGroupSize           = 0x1004 // CL_DEVICE_MAX_WORK_GROUP_SIZE
	DeviceMaxWorkItemSizes           = 0x1005 // CL_DEVICE_MAX_WORK_ITEM_SIZES
	DevicePreferredVectorWidthChar   = 0x1006 // CL_DEVICE_PREFERRED_VECTOR_WIDTH_CHAR
	DevicePreferredVectorWidthShort  = 0x1007 // CL_DEVICE_PREFERRED_VECTOR_WIDTH_SHORT
	DevicePreferredVectorWidthInt    = 0x1008 // CL_DEVICE_PREFERRED_VECTOR_WIDTH_INT
	DevicePreferredVectorWidthLong   = 0x1009 // CL_DEVICE_PREFERRED_VECTOR_WIDTH_LONG
	DevicePreferredVectorWidthFloat  = 0x100A // CL_DEVICE_PREFERRED_VECTOR_WIDTH_FLOAT
	DevicePreferredVectorWidthDouble = 0x100B // CL_DEVICE_PREFERRED_VECTOR_WIDTH_DOUBLE
	DevicePreferredVectorWidthHalf   = 0x1034 // CL_DEVICE_PREFERRED_VECTOR_WIDTH_HALF
	DeviceNativeVectorWidthChar      = 0x1036 // CL_DEVICE_NATIVE_VECTOR_WIDTH_CHAR
	DeviceNativeVectorWidthShort     = 0x1037 // CL_DEVICE_NATIVE_VECTOR_WIDTH_SHORT
	DeviceNativeVectorWidthInt       = 0x1038 // CL_DEVICE_NATIVE_VECTOR_WIDTH_INT
	DeviceNativeVectorWidthLong      = 0x1039 // CL_DEVICE_NATIVE_VECTOR_WIDTH_LONG
	DeviceNativeVectorWidthFloat     = 0x103A // CL_DEVICE_NATIVE_VECTOR_WIDTH_FLOAT
	DeviceNativeVectorWidthDouble    = 0x103B // CL_DEVICE_NATIVE_VECTOR_WIDTH_DOUBLE
	DeviceNativeVectorWidthHalf      = 0x103C // CL_DEVICE_NATIVE_VECTOR_WIDTH_HALF
	DeviceMaxClockFrequency          = 0x100C // CL_DEVICE_MAX_CLOCK_FREQUENCY
	DeviceAddressBits                = 0x100D // CL_DEVICE_ADDRESS_BITS
	DeviceMaxMemAllocSize            = 0x1010 // CL_DEVICE_MAX_MEM_ALLOC_SIZE
	DeviceMaxParameterSize           = 0x1017 // CL_DEVICE_MAX_PARAMETER_SIZE
	DeviceMemBaseAddrAlign           = 0x1019 // CL_DEVICE_MEM_BASE_ADDR_ALIGN
	DeviceSingleFPConfig             = 0x101B // CL_DEVICE_SINGLE_FP_CONFIG
	DeviceGlobalMemSize              = 0x101F // CL_DEVICE_GLOBAL_MEM_SIZE
	DeviceLocalMemSize               = 0x1023 // CL_DEVICE_LOCAL_MEM_SIZE
	DeviceProfilingTimerResolution   = 0x1025 // CL_DEVICE_PROFILING_TIMER_RESOLUTION
	DeviceEndianLittle               = 0x1026 // CL_DEVICE_ENDIAN_LITTLE
	DeviceAvailable                  = 0x1027 // CL_DEVICE_AVAILABLE
	DeviceCompilerAvailable          = 0x1028 // CL_DEVICE_COMPILER_AVAILABLE
	DeviceQueueProperties            = 0x102A // CL_DEVICE_QUEUE_PROPERTIES
	DeviceName                       = 0x102B // CL_DEVICE_NAME
	DeviceVendor                     = 0x102C // CL_DEVICE_VENDOR
	DriverVersion                    = 0x102D // CL_DRIVER_VERSION
	DeviceProfile                    = 0x102E // CL_DEVICE_PROFILE
	DeviceVersion                    = 0x102F // CL_DEVICE_VERSION
	DeviceExtensions                 = 0x1030 // CL_DEVICE_EXTENSIONS
	DevicePlatform                   = 0x1031 // CL_DEVICE_PLATFORM
	DeviceDoubleFPConfig             = 0x1032 // CL_DEVICE_DOUBLE_FP_CONFIG
	DeviceHalfFPConfig               = 0x1033 // CL_DEVICE_HALF_FP_CONFIG
	DeviceOpenCLCVersion             = 0x103D // CL_DEVICE_OPENCL_C_VERSION
	DeviceLinkerAvailable            = 0x103E // CL_DEVICE_LINKER_AVAILABLE
	DeviceReferenceCount             = 0x1047 // CL_DEVICE_REFERENCE_COUNT
	DeviceILVersion                  = 0x105B // CL_DEVICE_IL_VERSION
	DeviceNumericVersion             = 0x105E // CL_DEVICE_NUMERIC_VERSION
	DeviceHostUnifiedMemory          = 0x1035 // CL_DEVICE_HOST_UNIFIED_MEMORY (deprecated in 2.0, still answered)
	DeviceSVMCapabilities            = 0x1053 // CL_DEVICE_SVM_CAPABILITIES (2.0)
)

// SVM capabilities (cl_device_svm_capabilities bitfield, 2.0).
const (
	DeviceSVMCoarseGrainBuffer = 1 << 0 // CL_DEVICE_SVM_COARSE_GRAIN_BUFFER
	DeviceSVMFineGrainBuffer   = 1 << 1 // CL_DEVICE_SVM_FINE_GRAIN_BUFFER
	DeviceSVMFineGrainSystem   = 1 << 2 // CL_DEVICE_SVM_FINE_GRAIN_SYSTEM
	DeviceSVMAtomics           = 1 << 3 // CL_DEVICE_SVM_ATOMICS
)

// Unified shared memory device info (cl_intel_unified_shared_memory); each
// answers a cl_device_unified_shared_memory_capabilities_intel bitfield,
// zero where the kind is not supported.
const (
	DeviceHostMemCapabilitiesINTEL               = 0x4190 // CL_DEVICE_HOST_MEM_CAPABILITIES_INTEL
	DeviceDeviceMemCapabilitiesINTEL             = 0x4191 // CL_DEVICE_DEVICE_MEM_CAPABILITIES_INTEL
	DeviceSingleDeviceSharedMemCapabilitiesINTEL = 0x4192 // CL_DEVICE_SINGLE_DEVICE_SHARED_MEM_CAPABILITIES_INTEL
)

// Unified shared memory allocation info (cl_mem_info_intel).
const (
	MemAllocTypeINTEL    = 0x419A // CL_MEM_ALLOC_TYPE_INTEL
	MemAllocBasePtrINTEL = 0x419B // CL_MEM_ALLOC_BASE_PTR_INTEL
	MemAllocSizeINTEL    = 0x419C // CL_MEM_ALLOC_SIZE_INTEL
	MemAllocDeviceINTEL  = 0x419D // CL_MEM_ALLOC_DEVICE_INTEL
)

// Unified shared memory types (cl_unified_shared_memory_type_intel).
const (
	MemTypeUnknownINTEL = 0x4196 // CL_MEM_TYPE_UNKNOWN_INTEL
	MemTypeHostINTEL    = 0x4197 // CL_MEM_TYPE_HOST_INTEL
	MemTypeDeviceINTEL  = 0x4198 // CL_MEM_TYPE_DEVICE_INTEL
	MemTypeSharedINTEL  = 0x4199 // CL_MEM_TYPE_SHARED_INTEL
)

// Floating-point capabilities (cl_device_fp_config bitfield).
const (
	FPDenorm                     = 1 << 0 // CL_FP_DENORM
	FPInfNaN                     = 1 << 1 // CL_FP_INF_NAN
	FPRoundToNearest             = 1 << 2 // CL_FP_ROUND_TO_NEAREST
	FPRoundToZero                = 1 << 3 // CL_FP_ROUND_TO_ZERO
	FPRoundToInf                 = 1 << 4 // CL_FP_ROUND_TO_INF
	FPFMA                        = 1 << 5 // CL_FP_FMA
	FPSoftFloat                  = 1 << 6 // CL_FP_SOFT_FLOAT
	FPCorrectlyRoundedDivideSqrt = 1 << 7 // CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT
)

// Context info (cl_context_info).
const (
	ContextReferenceCount = 0x1080 // CL_CONTEXT_REFERENCE_COUNT
	ContextDevices        = 0x1081 // CL_CONTEXT_DEVICES
	ContextProperties     = 0x1082 // CL_CONTEXT_PROPERTIES
	ContextNumDevices     = 0x1083 // CL_CONTEXT_NUM_DEVICES
)

// Context properties (cl_context_properties keys).
const (
	ContextPlatform = 0x1084 // CL_CONTEXT_PLATFORM
)

// Command-queue properties (cl_command_queue_properties bitfield).
const (
	QueueOutOfOrderExecModeEnable = 1 << 0 // CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE
	QueueProfilingEnable          = 1 << 1 // CL_QUEUE_PROFILING_ENABLE
)

// Command-queue info (cl_command_queue_info); QueueProperties is also the
// property key of CreateCommandQueueWithProperties.
const (
	QueueContext        = 0x1090 // CL_QUEUE_CONTEXT
	QueueDevice         = 0x1091 // CL_QUEUE_DEVICE
	QueueReferenceCount = 0x1092 // CL_QUEUE_REFERENCE_COUNT
	QueueProperties     = 0x1093 // CL_QUEUE_PROPERTIES
)

// Memory flags (cl_mem_flags bitfield).
const (
	MemReadWrite     = 1 << 0 // CL_MEM_READ_WRITE
	MemWriteOnly     = 1 << 1 // CL_MEM_WRITE_ONLY
	MemReadOnly      = 1 << 2 // CL_MEM_READ_ONLY
	MemUseHostPtr    = 1 << 3 // CL_MEM_USE_HOST_PTR
	MemAllocHostPtr  = 1 << 4 // CL_MEM_ALLOC_HOST_PTR
	MemCopyHostPtr   = 1 << 5 // CL_MEM_COPY_HOST_PTR
	MemHostWriteOnly = 1 << 7 // CL_MEM_HOST_WRITE_ONLY
	MemHostReadOnly  = 1 << 8 // CL_MEM_HOST_READ_ONLY
	MemHostNoAccess  = 1 << 9 // CL_MEM_HOST_NO_ACCESS

	// SVM allocation flags (cl_svm_mem_flags, 2.0), with an access flag.
	MemSVMFineGrainBuffer = 1 << 10 // CL_MEM_SVM_FINE_GRAIN_BUFFER
	MemSVMAtomics         = 1 << 11 // CL_MEM_SVM_ATOMICS
)

// Buffer creation types (cl_buffer_create_type) of clCreateSubBuffer.
const (
	BufferCreateTypeRegion = 0x1220 // CL_BUFFER_CREATE_TYPE_REGION
)

// Migration flags (cl_mem_migration_flags bitfield).
const (
	MigrateMemObjectHost             = 1 << 0 // CL_MIGRATE_MEM_OBJECT_HOST
	MigrateMemObjectContentUndefined = 1 << 1 // CL_MIGRATE_MEM_OBJECT_CONTENT_UNDEFINED
)

// Memory object info (cl_mem_info).
const (
	MemType           = 0x1100 // CL_MEM_TYPE
	MemFlags          = 0x1101 // CL_MEM_FLAGS
	MemSize           = 0x1102 // CL_MEM_SIZE
	MemHostPtr        = 0x1103 // CL_MEM_HOST_PTR
	MemMapCount       = 0x1104 // CL_MEM_MAP_COUNT
	MemReferenceCount = 0x1105 // CL_MEM_REFERENCE_COUNT
	MemContext        = 0x1106 // CL_MEM_CONTEXT
)

// Program info (cl_program_info).
const (
	ProgramReferenceCount = 0x1160 // CL_PROGRAM_REFERENCE_COUNT
	ProgramContext        = 0x1161 // CL_PROGRAM_CONTEXT
	ProgramNumDevices     = 0x1162 // CL_PROGRAM_NUM_DEVICES
	ProgramDevices        = 0x1163 // CL_PROGRAM_DEVICES
	ProgramSource         = 0x1164 // CL_PROGRAM_SOURCE
	ProgramBinarySizes    = 0x1165 // CL_PROGRAM_BINARY_SIZES
	ProgramBinaries       = 0x1166 // CL_PROGRAM_BINARIES
	ProgramNumKernels     = 0x1167 // CL_PROGRAM_NUM_KERNELS
	ProgramKernelNames    = 0x1168 // CL_PROGRAM_KERNEL_NAMES
	ProgramIL             = 0x1169 // CL_PROGRAM_IL
)

// Program build info (cl_program_build_info).
const (
	ProgramBuildStatus  = 0x1181 // CL_PROGRAM_BUILD_STATUS
	ProgramBuildOptions = 0x1182 // CL_PROGRAM_BUILD_OPTIONS
	ProgramBuildLog     = 0x1183 // CL_PROGRAM_BUILD_LOG
	ProgramBinaryType   = 0x1184 // CL_PROGRAM_BINARY_TYPE
)

// Program binary types (cl_program_binary_type).
const (
	ProgramBinaryTypeNone           = 0x0 // CL_PROGRAM_BINARY_TYPE_NONE
	ProgramBinaryTypeCompiledObject = 0x1 // CL_PROGRAM_BINARY_TYPE_COMPILED_OBJECT
	ProgramBinaryTypeLibrary        = 0x2 // CL_PROGRAM_BINARY_TYPE_LIBRARY
	ProgramBinaryTypeExecutable     = 0x4 // CL_PROGRAM_BINARY_TYPE_EXECUTABLE
)

// Build statuses (cl_build_status, a cl_int).
const (
	BuildSuccess    = 0  // CL_BUILD_SUCCESS
	BuildNone       = -1 // CL_BUILD_NONE
	BuildError      = -2 // CL_BUILD_ERROR
	BuildInProgress = -3 // CL_BUILD_IN_PROGRESS
)

// Kernel info (cl_kernel_info).
const (
	KernelFunctionName   = 0x1190 // CL_KERNEL_FUNCTION_NAME
	KernelNumArgs        = 0x1191 // CL_KERNEL_NUM_ARGS
	KernelReferenceCount = 0x1192 // CL_KERNEL_REFERENCE_COUNT
	KernelContext        = 0x1193 // CL_KERNEL_CONTEXT
	KernelProgram        = 0x1194 // CL_KERNEL_PROGRAM
	KernelAttributes     = 0x1195 // CL_KERNEL_ATTRIBUTES
)

// Kernel work-group info (cl_kernel_work_group_info).
const (
	KernelWorkGroupSize                  = 0x11B0 // CL_KERNEL_WORK_GROUP_SIZE
	KernelCompileWorkGroupSize           = 0x11B1 // CL_KERNEL_COMPILE_WORK_GROUP_SIZE
	KernelLocalMemSize                   = 0x11B2 // CL_KERNEL_LOCAL_MEM_SIZE
	KernelPreferredWorkGroupSizeMultiple = 0x11B3 // CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE
	KernelPrivateMemSize                 = 0x11B4 // CL_KERNEL_PRIVATE_MEM_SIZE
)

// Kernel argument info (cl_kernel_arg_info); needs -cl-kernel-arg-info at build.
const (
	KernelArgAddressQualifier = 0x1196 // CL_KERNEL_ARG_ADDRESS_QUALIFIER
	KernelArgAccessQualifier  = 0x1197 // CL_KERNEL_ARG_ACCESS_QUALIFIER
	KernelArgTypeName         = 0x1198 // CL_KERNEL_ARG_TYPE_NAME
	KernelArgTypeQualifier    = 0x1199 // CL_KERNEL_ARG_TYPE_QUALIFIER
	KernelArgName             = 0x119A // CL_KERNEL_ARG_NAME
)

// Kernel argument address qualifiers (cl_kernel_arg_address_qualifier).
const (
	KernelArgAddressGlobal   = 0x119B // CL_KERNEL_ARG_ADDRESS_GLOBAL
	KernelArgAddressLocal    = 0x119C // CL_KERNEL_ARG_ADDRESS_LOCAL
	KernelArgAddressConstant = 0x119D // CL_KERNEL_ARG_ADDRESS_CONSTANT
	KernelArgAddressPrivate  = 0x119E // CL_KERNEL_ARG_ADDRESS_PRIVATE
)

// Event info (cl_event_info).
const (
	EventCommandQueue           = 0x11D0 // CL_EVENT_COMMAND_QUEUE
	EventCommandType            = 0x11D1 // CL_EVENT_COMMAND_TYPE
	EventReferenceCount         = 0x11D2 // CL_EVENT_REFERENCE_COUNT
	EventCommandExecutionStatus = 0x11D3 // CL_EVENT_COMMAND_EXECUTION_STATUS
	EventContext                = 0x11D4 // CL_EVENT_CONTEXT
)

// Command execution statuses (CL_EVENT_COMMAND_EXECUTION_STATUS); negative
// values are error codes.
const (
	Complete  = 0x0 // CL_COMPLETE
	Running   = 0x1 // CL_RUNNING
	Submitted = 0x2 // CL_SUBMITTED
	Queued    = 0x3 // CL_QUEUED
)

// Profiling info (cl_profiling_info); values are device nanoseconds.
const (
	ProfilingCommandQueued   = 0x1280 // CL_PROFILING_COMMAND_QUEUED
	ProfilingCommandSubmit   = 0x1281 // CL_PROFILING_COMMAND_SUBMIT
	ProfilingCommandStart    = 0x1282 // CL_PROFILING_COMMAND_START
	ProfilingCommandEnd      = 0x1283 // CL_PROFILING_COMMAND_END
	ProfilingCommandComplete = 0x1284 // CL_PROFILING_COMMAND_COMPLETE
)
