package cu

// Constants from cuda.h. Every value was checked against the CUDA 12.6
// header (enums CUdevice_attribute_enum, CUfunction_attribute_enum,
// CUjit_option_enum, CUjitInputType_enum, CUctx_flags_enum,
// CUevent_flags_enum, CUstream_flags_enum, ...); the enums only ever grow,
// so the values hold for later drivers.

// DeviceAttribute is a CUdevice_attribute, for DeviceGetAttribute.
type DeviceAttribute int32

// Device attributes (CUdevice_attribute).
const (
	DeviceAttributeMaxThreadsPerBlock                     DeviceAttribute = 1   // CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK
	DeviceAttributeMaxBlockDimX                           DeviceAttribute = 2   // CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X
	DeviceAttributeMaxBlockDimY                           DeviceAttribute = 3   // CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y
	DeviceAttributeMaxBlockDimZ                           DeviceAttribute = 4   // CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z
	DeviceAttributeMaxGridDimX                            DeviceAttribute = 5   // CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X
	DeviceAttributeMaxGridDimY                            DeviceAttribute = 6   // CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y
	DeviceAttributeMaxGridDimZ                            DeviceAttribute = 7   // CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z
	DeviceAttributeMaxSharedMemoryPerBlock                DeviceAttribute = 8   // CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK
	DeviceAttributeTotalConstantMemory                    DeviceAttribute = 9   // CU_DEVICE_ATTRIBUTE_TOTAL_CONSTANT_MEMORY
	DeviceAttributeWarpSize                               DeviceAttribute = 10  // CU_DEVICE_ATTRIBUTE_WARP_SIZE
	DeviceAttributeMaxPitch                               DeviceAttribute = 11  // CU_DEVICE_ATTRIBUTE_MAX_PITCH
	DeviceAttributeMaxRegistersPerBlock                   DeviceAttribute = 12  // CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK
	DeviceAttributeClockRate                              DeviceAttribute = 13  // CU_DEVICE_ATTRIBUTE_CLOCK_RATE (kHz)
	DeviceAttributeTextureAlignment                       DeviceAttribute = 14  // CU_DEVICE_ATTRIBUTE_TEXTURE_ALIGNMENT
	DeviceAttributeGPUOverlap                             DeviceAttribute = 15  // CU_DEVICE_ATTRIBUTE_GPU_OVERLAP (deprecated)
	DeviceAttributeMultiprocessorCount                    DeviceAttribute = 16  // CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT
	DeviceAttributeKernelExecTimeout                      DeviceAttribute = 17  // CU_DEVICE_ATTRIBUTE_KERNEL_EXEC_TIMEOUT
	DeviceAttributeIntegrated                             DeviceAttribute = 18  // CU_DEVICE_ATTRIBUTE_INTEGRATED
	DeviceAttributeCanMapHostMemory                       DeviceAttribute = 19  // CU_DEVICE_ATTRIBUTE_CAN_MAP_HOST_MEMORY
	DeviceAttributeComputeMode                            DeviceAttribute = 20  // CU_DEVICE_ATTRIBUTE_COMPUTE_MODE
	DeviceAttributeSurfaceAlignment                       DeviceAttribute = 30  // CU_DEVICE_ATTRIBUTE_SURFACE_ALIGNMENT
	DeviceAttributeConcurrentKernels                      DeviceAttribute = 31  // CU_DEVICE_ATTRIBUTE_CONCURRENT_KERNELS
	DeviceAttributeECCEnabled                             DeviceAttribute = 32  // CU_DEVICE_ATTRIBUTE_ECC_ENABLED
	DeviceAttributePCIBusID                               DeviceAttribute = 33  // CU_DEVICE_ATTRIBUTE_PCI_BUS_ID
	DeviceAttributePCIDeviceID                            DeviceAttribute = 34  // CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID
	DeviceAttributeTCCDriver                              DeviceAttribute = 35  // CU_DEVICE_ATTRIBUTE_TCC_DRIVER
	DeviceAttributeMemoryClockRate                        DeviceAttribute = 36  // CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE (kHz)
	DeviceAttributeGlobalMemoryBusWidth                   DeviceAttribute = 37  // CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH (bits)
	DeviceAttributeL2CacheSize                            DeviceAttribute = 38  // CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE
	DeviceAttributeMaxThreadsPerMultiprocessor            DeviceAttribute = 39  // CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR
	DeviceAttributeAsyncEngineCount                       DeviceAttribute = 40  // CU_DEVICE_ATTRIBUTE_ASYNC_ENGINE_COUNT
	DeviceAttributeUnifiedAddressing                      DeviceAttribute = 41  // CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING
	DeviceAttributePCIDomainID                            DeviceAttribute = 50  // CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID
	DeviceAttributeComputeCapabilityMajor                 DeviceAttribute = 75  // CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR
	DeviceAttributeComputeCapabilityMinor                 DeviceAttribute = 76  // CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR
	DeviceAttributeStreamPrioritiesSupported              DeviceAttribute = 78  // CU_DEVICE_ATTRIBUTE_STREAM_PRIORITIES_SUPPORTED
	DeviceAttributeGlobalL1CacheSupported                 DeviceAttribute = 79  // CU_DEVICE_ATTRIBUTE_GLOBAL_L1_CACHE_SUPPORTED
	DeviceAttributeLocalL1CacheSupported                  DeviceAttribute = 80  // CU_DEVICE_ATTRIBUTE_LOCAL_L1_CACHE_SUPPORTED
	DeviceAttributeMaxSharedMemoryPerMultiprocessor       DeviceAttribute = 81  // CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR
	DeviceAttributeMaxRegistersPerMultiprocessor          DeviceAttribute = 82  // CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR
	DeviceAttributeManagedMemory                          DeviceAttribute = 83  // CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY
	DeviceAttributeMultiGPUBoard                          DeviceAttribute = 84  // CU_DEVICE_ATTRIBUTE_MULTI_GPU_BOARD
	DeviceAttributeMultiGPUBoardGroupID                   DeviceAttribute = 85  // CU_DEVICE_ATTRIBUTE_MULTI_GPU_BOARD_GROUP_ID
	DeviceAttributeSingleToDoublePrecisionPerfRatio       DeviceAttribute = 87  // CU_DEVICE_ATTRIBUTE_SINGLE_TO_DOUBLE_PRECISION_PERF_RATIO
	DeviceAttributePageableMemoryAccess                   DeviceAttribute = 88  // CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS
	DeviceAttributeConcurrentManagedAccess                DeviceAttribute = 89  // CU_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS
	DeviceAttributeComputePreemptionSupported             DeviceAttribute = 90  // CU_DEVICE_ATTRIBUTE_COMPUTE_PREEMPTION_SUPPORTED
	DeviceAttributeCanUseHostPointerForRegisteredMem      DeviceAttribute = 91  // CU_DEVICE_ATTRIBUTE_CAN_USE_HOST_POINTER_FOR_REGISTERED_MEM
	DeviceAttributeCooperativeLaunch                      DeviceAttribute = 95  // CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH
	DeviceAttributeMaxSharedMemoryPerBlockOptin           DeviceAttribute = 97  // CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN
	DeviceAttributeCanFlushRemoteWrites                   DeviceAttribute = 98  // CU_DEVICE_ATTRIBUTE_CAN_FLUSH_REMOTE_WRITES
	DeviceAttributeHostRegisterSupported                  DeviceAttribute = 99  // CU_DEVICE_ATTRIBUTE_HOST_REGISTER_SUPPORTED
	DeviceAttributePageableMemoryAccessUsesHostPageTables DeviceAttribute = 100 // CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS_USES_HOST_PAGE_TABLES
	DeviceAttributeDirectManagedMemAccessFromHost         DeviceAttribute = 101 // CU_DEVICE_ATTRIBUTE_DIRECT_MANAGED_MEM_ACCESS_FROM_HOST
	DeviceAttributeVirtualMemoryManagementSupported       DeviceAttribute = 102 // CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED
	DeviceAttributeMaxBlocksPerMultiprocessor             DeviceAttribute = 106 // CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR
	DeviceAttributeGenericCompressionSupported            DeviceAttribute = 107 // CU_DEVICE_ATTRIBUTE_GENERIC_COMPRESSION_SUPPORTED
	DeviceAttributeMaxPersistingL2CacheSize               DeviceAttribute = 108 // CU_DEVICE_ATTRIBUTE_MAX_PERSISTING_L2_CACHE_SIZE
	DeviceAttributeMaxAccessPolicyWindowSize              DeviceAttribute = 109 // CU_DEVICE_ATTRIBUTE_MAX_ACCESS_POLICY_WINDOW_SIZE
	DeviceAttributeReservedSharedMemoryPerBlock           DeviceAttribute = 111 // CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK
	DeviceAttributeMemoryPoolsSupported                   DeviceAttribute = 115 // CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED
	DeviceAttributeClusterLaunch                          DeviceAttribute = 120 // CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH
	DeviceAttributeDMABufSupported                        DeviceAttribute = 124 // CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED
	DeviceAttributeIPCEventSupported                      DeviceAttribute = 125 // CU_DEVICE_ATTRIBUTE_IPC_EVENT_SUPPORTED
	DeviceAttributeMemSyncDomainCount                     DeviceAttribute = 126 // CU_DEVICE_ATTRIBUTE_MEM_SYNC_DOMAIN_COUNT
	DeviceAttributeTensorMapAccessSupported               DeviceAttribute = 127 // CU_DEVICE_ATTRIBUTE_TENSOR_MAP_ACCESS_SUPPORTED
	DeviceAttributeUnifiedFunctionPointers                DeviceAttribute = 129 // CU_DEVICE_ATTRIBUTE_UNIFIED_FUNCTION_POINTERS
	DeviceAttributeNUMAConfig                             DeviceAttribute = 130 // CU_DEVICE_ATTRIBUTE_NUMA_CONFIG
	DeviceAttributeNUMAID                                 DeviceAttribute = 131 // CU_DEVICE_ATTRIBUTE_NUMA_ID
	DeviceAttributeMulticastSupported                     DeviceAttribute = 132 // CU_DEVICE_ATTRIBUTE_MULTICAST_SUPPORTED
	DeviceAttributeMPSEnabled                             DeviceAttribute = 133 // CU_DEVICE_ATTRIBUTE_MPS_ENABLED
	DeviceAttributeHostNUMAID                             DeviceAttribute = 134 // CU_DEVICE_ATTRIBUTE_HOST_NUMA_ID
)

// FunctionAttribute is a CUfunction_attribute, for FuncGetAttribute and
// FuncSetAttribute.
type FunctionAttribute int32

// Function attributes (CUfunction_attribute).
const (
	FuncAttributeMaxThreadsPerBlock                FunctionAttribute = 0  // CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK
	FuncAttributeSharedSizeBytes                   FunctionAttribute = 1  // CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES
	FuncAttributeConstSizeBytes                    FunctionAttribute = 2  // CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES
	FuncAttributeLocalSizeBytes                    FunctionAttribute = 3  // CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES
	FuncAttributeNumRegs                           FunctionAttribute = 4  // CU_FUNC_ATTRIBUTE_NUM_REGS
	FuncAttributePTXVersion                        FunctionAttribute = 5  // CU_FUNC_ATTRIBUTE_PTX_VERSION (major*10+minor)
	FuncAttributeBinaryVersion                     FunctionAttribute = 6  // CU_FUNC_ATTRIBUTE_BINARY_VERSION (major*10+minor)
	FuncAttributeCacheModeCA                       FunctionAttribute = 7  // CU_FUNC_ATTRIBUTE_CACHE_MODE_CA
	FuncAttributeMaxDynamicSharedSizeBytes         FunctionAttribute = 8  // CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES
	FuncAttributePreferredSharedMemoryCarveout     FunctionAttribute = 9  // CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT
	FuncAttributeClusterSizeMustBeSet              FunctionAttribute = 10 // CU_FUNC_ATTRIBUTE_CLUSTER_SIZE_MUST_BE_SET
	FuncAttributeRequiredClusterWidth              FunctionAttribute = 11 // CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH
	FuncAttributeRequiredClusterHeight             FunctionAttribute = 12 // CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_HEIGHT
	FuncAttributeRequiredClusterDepth              FunctionAttribute = 13 // CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_DEPTH
	FuncAttributeNonPortableClusterSizeAllowed     FunctionAttribute = 14 // CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED
	FuncAttributeClusterSchedulingPolicyPreference FunctionAttribute = 15 // CU_FUNC_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE
)

// JitOption is a CUjit_option, for ModuleLoadDataWithOptions and the
// cuLink* calls. Its value travels in a void* slot: integers are stored in
// the pointer itself, buffers by address; the driver writes the *_SIZE_BYTES
// options back with the number of bytes it used.
type JitOption int32

// JIT compiler and linker options (CUjit_option).
const (
	JitMaxRegisters                  JitOption = 0  // CU_JIT_MAX_REGISTERS (unsigned int)
	JitThreadsPerBlock               JitOption = 1  // CU_JIT_THREADS_PER_BLOCK (unsigned int, in/out)
	JitWallTime                      JitOption = 2  // CU_JIT_WALL_TIME (out: float ms)
	JitInfoLogBuffer                 JitOption = 3  // CU_JIT_INFO_LOG_BUFFER (char *)
	JitInfoLogBufferSizeBytes        JitOption = 4  // CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES (unsigned int, in/out)
	JitErrorLogBuffer                JitOption = 5  // CU_JIT_ERROR_LOG_BUFFER (char *)
	JitErrorLogBufferSizeBytes       JitOption = 6  // CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES (unsigned int, in/out)
	JitOptimizationLevel             JitOption = 7  // CU_JIT_OPTIMIZATION_LEVEL (0-4, default 4)
	JitTargetFromCUContext           JitOption = 8  // CU_JIT_TARGET_FROM_CUCONTEXT (no value)
	JitTarget                        JitOption = 9  // CU_JIT_TARGET (CUjit_target)
	JitFallbackStrategy              JitOption = 10 // CU_JIT_FALLBACK_STRATEGY (CUjit_fallback)
	JitGenerateDebugInfo             JitOption = 11 // CU_JIT_GENERATE_DEBUG_INFO (int)
	JitLogVerbose                    JitOption = 12 // CU_JIT_LOG_VERBOSE (int)
	JitGenerateLineInfo              JitOption = 13 // CU_JIT_GENERATE_LINE_INFO (int)
	JitCacheMode                     JitOption = 14 // CU_JIT_CACHE_MODE (CUjit_cacheMode)
	JitNewSM3XOpt                    JitOption = 15 // CU_JIT_NEW_SM3X_OPT (deprecated)
	JitFastCompile                   JitOption = 16 // CU_JIT_FAST_COMPILE (internal)
	JitGlobalSymbolNames             JitOption = 17 // CU_JIT_GLOBAL_SYMBOL_NAMES (const char **)
	JitGlobalSymbolAddresses         JitOption = 18 // CU_JIT_GLOBAL_SYMBOL_ADDRESSES (void **)
	JitGlobalSymbolCount             JitOption = 19 // CU_JIT_GLOBAL_SYMBOL_COUNT (unsigned int)
	JitLTO                           JitOption = 20 // CU_JIT_LTO (deprecated)
	JitFTZ                           JitOption = 21 // CU_JIT_FTZ (deprecated)
	JitPrecDiv                       JitOption = 22 // CU_JIT_PREC_DIV (deprecated)
	JitPrecSqrt                      JitOption = 23 // CU_JIT_PREC_SQRT (deprecated)
	JitFMA                           JitOption = 24 // CU_JIT_FMA (deprecated)
	JitReferencedKernelNames         JitOption = 25 // CU_JIT_REFERENCED_KERNEL_NAMES (deprecated)
	JitReferencedKernelCount         JitOption = 26 // CU_JIT_REFERENCED_KERNEL_COUNT (deprecated)
	JitReferencedVariableNames       JitOption = 27 // CU_JIT_REFERENCED_VARIABLE_NAMES (deprecated)
	JitReferencedVariableCount       JitOption = 28 // CU_JIT_REFERENCED_VARIABLE_COUNT (deprecated)
	JitOptimizeUnusedDeviceVariables JitOption = 29 // CU_JIT_OPTIMIZE_UNUSED_DEVICE_VARIABLES (deprecated)
	JitPositionIndependentCode       JitOption = 30 // CU_JIT_POSITION_INDEPENDENT_CODE (int)
	JitMinCTAPerSM                   JitOption = 31 // CU_JIT_MIN_CTA_PER_SM (unsigned int)
	JitMaxThreadsPerBlock            JitOption = 32 // CU_JIT_MAX_THREADS_PER_BLOCK (int)
	JitOverrideDirectiveValues       JitOption = 33 // CU_JIT_OVERRIDE_DIRECTIVE_VALUES (int)
)

// JitInputType is a CUjitInputType, for LinkAddData.
type JitInputType int32

// JIT linker input types (CUjitInputType).
const (
	JitInputCUBIN     JitInputType = 0 // CU_JIT_INPUT_CUBIN
	JitInputPTX       JitInputType = 1 // CU_JIT_INPUT_PTX
	JitInputFatbinary JitInputType = 2 // CU_JIT_INPUT_FATBINARY
	JitInputObject    JitInputType = 3 // CU_JIT_INPUT_OBJECT
	JitInputLibrary   JitInputType = 4 // CU_JIT_INPUT_LIBRARY
	JitInputNVVM      JitInputType = 5 // CU_JIT_INPUT_NVVM (deprecated)
)

// JIT fallback strategies (CUjit_fallback), values of JitFallbackStrategy.
const (
	JitPreferPTX    = 0 // CU_PREFER_PTX
	JitPreferBinary = 1 // CU_PREFER_BINARY
)

// JIT cache modes (CUjit_cacheMode), values of JitCacheMode.
const (
	JitCacheOptionNone = 0 // CU_JIT_CACHE_OPTION_NONE
	JitCacheOptionCG   = 1 // CU_JIT_CACHE_OPTION_CG (L1 disabled)
	JitCacheOptionCA   = 2 // CU_JIT_CACHE_OPTION_CA (L1 enabled)
)

// Context flags (CUctx_flags), for cuDevicePrimaryCtxSetFlags and context
// creation.
const (
	CtxSchedAuto          = 0x00 // CU_CTX_SCHED_AUTO
	CtxSchedSpin          = 0x01 // CU_CTX_SCHED_SPIN
	CtxSchedYield         = 0x02 // CU_CTX_SCHED_YIELD
	CtxSchedBlockingSync  = 0x04 // CU_CTX_SCHED_BLOCKING_SYNC
	CtxSchedMask          = 0x07 // CU_CTX_SCHED_MASK
	CtxMapHost            = 0x08 // CU_CTX_MAP_HOST (deprecated, no effect)
	CtxLmemResizeToMax    = 0x10 // CU_CTX_LMEM_RESIZE_TO_MAX
	CtxCoredumpEnable     = 0x20 // CU_CTX_COREDUMP_ENABLE
	CtxUserCoredumpEnable = 0x40 // CU_CTX_USER_COREDUMP_ENABLE
	CtxSyncMemops         = 0x80 // CU_CTX_SYNC_MEMOPS
	CtxFlagsMask          = 0xFF // CU_CTX_FLAGS_MASK
)

// Stream creation flags (CUstream_flags), for StreamCreate.
const (
	StreamDefault     = 0x0 // CU_STREAM_DEFAULT
	StreamNonBlocking = 0x1 // CU_STREAM_NON_BLOCKING
)

// Event creation flags (CUevent_flags), for EventCreate.
const (
	EventDefault       = 0x0 // CU_EVENT_DEFAULT
	EventBlockingSync  = 0x1 // CU_EVENT_BLOCKING_SYNC
	EventDisableTiming = 0x2 // CU_EVENT_DISABLE_TIMING
	EventInterprocess  = 0x4 // CU_EVENT_INTERPROCESS (needs EventDisableTiming)
)

// Event wait flags (CUevent_wait_flags), for StreamWaitEvent.
const (
	EventWaitDefault  = 0x0 // CU_EVENT_WAIT_DEFAULT
	EventWaitExternal = 0x1 // CU_EVENT_WAIT_EXTERNAL
)

// Shared memory carveout values (CUshared_carveout), for
// FuncAttributePreferredSharedMemoryCarveout (any percentage 0-100 works).
const (
	SharedmemCarveoutDefault   = -1  // CU_SHAREDMEM_CARVEOUT_DEFAULT
	SharedmemCarveoutMaxShared = 100 // CU_SHAREDMEM_CARVEOUT_MAX_SHARED
	SharedmemCarveoutMaxL1     = 0   // CU_SHAREDMEM_CARVEOUT_MAX_L1
)

// The memory model's constants below were checked against cuda.h of CUDA
// 12.x and 13.0 (CUmemorytype_enum, CUpointer_attribute_enum,
// CUmem_advise_enum, CUmemLocationType_enum, CUmemAllocationType_enum,
// CUmemAllocationHandleType_enum, CUmemPool_attribute_enum and the
// CU_MEMHOSTALLOC_*, CU_MEMHOSTREGISTER_*, CU_MEM_ATTACH_* macros), as
// quoted by the bindings of NVIDIA/cuda-python and cudarc.

// MemoryType is a CUmemorytype.
type MemoryType uint32

// Memory types (CUmemorytype).
const (
	MemoryTypeHost    MemoryType = 1 // CU_MEMORYTYPE_HOST
	MemoryTypeDevice  MemoryType = 2 // CU_MEMORYTYPE_DEVICE
	MemoryTypeArray   MemoryType = 3 // CU_MEMORYTYPE_ARRAY
	MemoryTypeUnified MemoryType = 4 // CU_MEMORYTYPE_UNIFIED
)

// PointerAttribute is a CUpointer_attribute, for PointerGetAttribute(s).
type PointerAttribute int32

// Pointer attributes (CUpointer_attribute).
const (
	PointerAttributeContext        PointerAttribute = 1  // CU_POINTER_ATTRIBUTE_CONTEXT (CUcontext)
	PointerAttributeMemoryType     PointerAttribute = 2  // CU_POINTER_ATTRIBUTE_MEMORY_TYPE (CUmemorytype)
	PointerAttributeDevicePointer  PointerAttribute = 3  // CU_POINTER_ATTRIBUTE_DEVICE_POINTER (CUdeviceptr)
	PointerAttributeHostPointer    PointerAttribute = 4  // CU_POINTER_ATTRIBUTE_HOST_POINTER (void *)
	PointerAttributeIsManaged      PointerAttribute = 8  // CU_POINTER_ATTRIBUTE_IS_MANAGED (bool)
	PointerAttributeDeviceOrdinal  PointerAttribute = 9  // CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL (int)
	PointerAttributeRangeStartAddr PointerAttribute = 11 // CU_POINTER_ATTRIBUTE_RANGE_START_ADDR (CUdeviceptr)
	PointerAttributeRangeSize      PointerAttribute = 12 // CU_POINTER_ATTRIBUTE_RANGE_SIZE (size_t)
	PointerAttributeMapped         PointerAttribute = 13 // CU_POINTER_ATTRIBUTE_MAPPED (bool)
	PointerAttributeMempoolHandle  PointerAttribute = 17 // CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE (CUmemoryPool)
)

// Host allocation flags (CU_MEMHOSTALLOC_*), for MemHostAlloc.
const (
	MemHostAllocPortable      = 0x1 // CU_MEMHOSTALLOC_PORTABLE: pinned for every context
	MemHostAllocDeviceMap     = 0x2 // CU_MEMHOSTALLOC_DEVICEMAP: mapped into the device's address space
	MemHostAllocWriteCombined = 0x4 // CU_MEMHOSTALLOC_WRITECOMBINED
)

// Host registration flags (CU_MEMHOSTREGISTER_*), for MemHostRegister.
const (
	MemHostRegisterPortable  = 0x1 // CU_MEMHOSTREGISTER_PORTABLE
	MemHostRegisterDeviceMap = 0x2 // CU_MEMHOSTREGISTER_DEVICEMAP
	MemHostRegisterIOMemory  = 0x4 // CU_MEMHOSTREGISTER_IOMEMORY
	MemHostRegisterReadOnly  = 0x8 // CU_MEMHOSTREGISTER_READ_ONLY
)

// Managed memory attach flags (CUmemAttach_flags), for MemAllocManaged.
const (
	MemAttachGlobal = 0x1 // CU_MEM_ATTACH_GLOBAL: any stream of any device may access it
	MemAttachHost   = 0x2 // CU_MEM_ATTACH_HOST
	MemAttachSingle = 0x4 // CU_MEM_ATTACH_SINGLE
)

// DeviceCPU is CU_DEVICE_CPU, the device of the host for the CUDA 8
// cuMemPrefetchAsync and cuMemAdvise.
const DeviceCPU Device = -1

// MemAdvise is a CUmem_advise, for MemAdvise.
type MemAdvise int32

// Memory advice (CUmem_advise).
const (
	AdviseSetReadMostly          MemAdvise = 1 // CU_MEM_ADVISE_SET_READ_MOSTLY
	AdviseUnsetReadMostly        MemAdvise = 2 // CU_MEM_ADVISE_UNSET_READ_MOSTLY
	AdviseSetPreferredLocation   MemAdvise = 3 // CU_MEM_ADVISE_SET_PREFERRED_LOCATION
	AdviseUnsetPreferredLocation MemAdvise = 4 // CU_MEM_ADVISE_UNSET_PREFERRED_LOCATION
	AdviseSetAccessedBy          MemAdvise = 5 // CU_MEM_ADVISE_SET_ACCESSED_BY
	AdviseUnsetAccessedBy        MemAdvise = 6 // CU_MEM_ADVISE_UNSET_ACCESSED_BY
)

// MemLocationType is a CUmemLocationType.
type MemLocationType int32

// Memory location types (CUmemLocationType).
const (
	MemLocationTypeInvalid MemLocationType = 0 // CU_MEM_LOCATION_TYPE_INVALID
	MemLocationTypeDevice  MemLocationType = 1 // CU_MEM_LOCATION_TYPE_DEVICE: id is a device ordinal
	MemLocationTypeHost    MemLocationType = 2 // CU_MEM_LOCATION_TYPE_HOST: id is ignored
)

// Memory allocation types (CUmemAllocationType) and handle types
// (CUmemAllocationHandleType), for MemPoolProps.
const (
	MemAllocationTypePinned = 1 // CU_MEM_ALLOCATION_TYPE_PINNED
	MemHandleTypeNone       = 0 // CU_MEM_HANDLE_TYPE_NONE
)

// MemPoolAttribute is a CUmemPool_attribute.
type MemPoolAttribute int32

// Memory pool attributes (CUmemPool_attribute). The ones below take a
// cuuint64_t; the REUSE_* ones (1 to 3) take an int and are not bound.
const (
	MemPoolAttrReleaseThreshold   MemPoolAttribute = 4 // CU_MEMPOOL_ATTR_RELEASE_THRESHOLD
	MemPoolAttrReservedMemCurrent MemPoolAttribute = 5 // CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT
	MemPoolAttrReservedMemHigh    MemPoolAttribute = 6 // CU_MEMPOOL_ATTR_RESERVED_MEM_HIGH
	MemPoolAttrUsedMemCurrent     MemPoolAttribute = 7 // CU_MEMPOOL_ATTR_USED_MEM_CURRENT
	MemPoolAttrUsedMemHigh        MemPoolAttribute = 8 // CU_MEMPOOL_ATTR_USED_MEM_HIGH
)
