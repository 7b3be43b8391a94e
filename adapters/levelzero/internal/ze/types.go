package ze

import "unsafe"

// Opaque Level Zero handles. They are C pointers owned by the driver, kept
// as uintptr so the Go garbage collector never looks at them.
type (
	// Driver is a ze_driver_handle_t.
	Driver uintptr
	// Device is a ze_device_handle_t.
	Device uintptr
	// Context is a ze_context_handle_t.
	Context uintptr
	// CommandList is a ze_command_list_handle_t.
	CommandList uintptr
	// EventPool is a ze_event_pool_handle_t.
	EventPool uintptr
	// Event is a ze_event_handle_t.
	Event uintptr
	// Module is a ze_module_handle_t.
	Module uintptr
	// BuildLog is a ze_module_build_log_handle_t.
	BuildLog uintptr
	// Kernel is a ze_kernel_handle_t.
	Kernel uintptr
	// CommandQueue is a ze_command_queue_handle_t.
	CommandQueue uintptr
	// Fence is a ze_fence_handle_t.
	Fence uintptr
)

// StructureType is ze_structure_type_t, the stype that begins every
// descriptor and property structure.
type StructureType uint32

// Structure types, as in ze_api.h.
const (
	StructureTypeDriverProperties            StructureType = 0x1
	StructureTypeDeviceProperties            StructureType = 0x3
	StructureTypeDeviceComputeProperties     StructureType = 0x4
	StructureTypeDeviceModuleProperties      StructureType = 0x5
	StructureTypeCommandQueueGroupProperties StructureType = 0x6
	StructureTypeDeviceMemoryProperties      StructureType = 0x7
	StructureTypeDeviceMemoryAccessProps     StructureType = 0x8
	StructureTypeContextDesc                 StructureType = 0xd
	StructureTypeCommandQueueDesc            StructureType = 0xe
	StructureTypeCommandListDesc             StructureType = 0xf
	StructureTypeEventPoolDesc               StructureType = 0x10
	StructureTypeEventDesc                   StructureType = 0x11
	StructureTypeFenceDesc                   StructureType = 0x12
	StructureTypeDeviceMemAllocDesc          StructureType = 0x15
	StructureTypeHostMemAllocDesc            StructureType = 0x16
	StructureTypeMemoryAllocationProperties  StructureType = 0x17
	StructureTypeModuleDesc                  StructureType = 0x1b
	StructureTypeKernelDesc                  StructureType = 0x1d
	StructureTypeKernelProperties            StructureType = 0x1e
	StructureTypeModuleProgramExpDesc        StructureType = 0x00020002
	// StructureTypeDeviceProperties12 asks zeDeviceGetProperties (API
	// 1.2+) for TimerResolution in cycles per second instead of ns.
	StructureTypeDeviceProperties12 StructureType = 0x00020006
	// StructureTypeInitDriverTypeDesc is newer than the 1.8 loader's
	// headers (spec 1.10, ze_api.h of the loader 1.18+), so the layout test
	// cannot check it.
	StructureTypeInitDriverTypeDesc StructureType = 0x00020021
)

// APIVersion is ze_api_version_t: major << 16 | minor.
type APIVersion uint32

// MakeVersion is ZE_MAKE_VERSION.
func MakeVersion(major, minor uint32) APIVersion { return APIVersion(major<<16 | minor&0xffff) }

// Major is ZE_MAJOR_VERSION.
func (v APIVersion) Major() uint32 { return uint32(v) >> 16 }

// Minor is ZE_MINOR_VERSION.
func (v APIVersion) Minor() uint32 { return uint32(v) & 0xffff }

// InitFlags is ze_init_flags_t, for zeInit.
type InitFlags uint32

// zeInit flags.
const (
	InitFlagGPUOnly InitFlags = 1 << 0
	InitFlagVPUOnly InitFlags = 1 << 1
)

// InitDriverTypeFlags is ze_init_driver_type_flags_t, for zeInitDrivers.
type InitDriverTypeFlags uint32

// zeInitDrivers driver types.
const (
	InitDriverTypeFlagGPU InitDriverTypeFlags = 1 << 0
	InitDriverTypeFlagNPU InitDriverTypeFlags = 1 << 1
)

// DeviceType is ze_device_type_t.
type DeviceType uint32

// Device types.
const (
	DeviceTypeGPU  DeviceType = 1
	DeviceTypeCPU  DeviceType = 2
	DeviceTypeFPGA DeviceType = 3
	DeviceTypeMCA  DeviceType = 4
	DeviceTypeVPU  DeviceType = 5
)

// Device property flags (ze_device_property_flags_t).
const (
	DevicePropertyFlagIntegrated     uint32 = 1 << 0
	DevicePropertyFlagSubdevice      uint32 = 1 << 1
	DevicePropertyFlagECC            uint32 = 1 << 2
	DevicePropertyFlagOnDemandPaging uint32 = 1 << 3
)

// Device module flags (ze_device_module_flags_t).
const (
	DeviceModuleFlagFP16         uint32 = 1 << 0
	DeviceModuleFlagFP64         uint32 = 1 << 1
	DeviceModuleFlagInt64Atomics uint32 = 1 << 2
	DeviceModuleFlagDP4A         uint32 = 1 << 3
)

// Command queue group property flags
// (ze_command_queue_group_property_flags_t).
const (
	CommandQueueGroupPropertyFlagCompute            uint32 = 1 << 0
	CommandQueueGroupPropertyFlagCopy               uint32 = 1 << 1
	CommandQueueGroupPropertyFlagCooperativeKernels uint32 = 1 << 2
	CommandQueueGroupPropertyFlagMetrics            uint32 = 1 << 3
)

// Command queue flags (ze_command_queue_flags_t).
const (
	CommandQueueFlagExplicitOnly uint32 = 1 << 0
	// CommandQueueFlagInOrder asks for in-order execution enforced by the
	// driver. It is newer than the 1.8 loader's headers (spec 1.4), whose
	// validation rejects flags above 0x1: pass it only to drivers whose API
	// version is recent enough.
	CommandQueueFlagInOrder uint32 = 1 << 1
)

// Command list flags (ze_command_list_flags_t).
const (
	CommandListFlagRelaxedOrdering    uint32 = 1 << 0
	CommandListFlagMaximizeThroughput uint32 = 1 << 1
	CommandListFlagExplicitOnly       uint32 = 1 << 2
)

// Fence flags (ze_fence_flags_t).
const FenceFlagSignaled uint32 = 1 << 0

// CommandQueueMode is ze_command_queue_mode_t.
type CommandQueueMode uint32

// Command queue modes.
const (
	CommandQueueModeDefault      CommandQueueMode = 0
	CommandQueueModeSynchronous  CommandQueueMode = 1
	CommandQueueModeAsynchronous CommandQueueMode = 2
)

// CommandQueuePriority is ze_command_queue_priority_t.
type CommandQueuePriority uint32

// Command queue priorities.
const (
	CommandQueuePriorityNormal CommandQueuePriority = 0
	CommandQueuePriorityLow    CommandQueuePriority = 1
	CommandQueuePriorityHigh   CommandQueuePriority = 2
)

// Event pool flags (ze_event_pool_flags_t).
const (
	EventPoolFlagHostVisible     uint32 = 1 << 0
	EventPoolFlagIPC             uint32 = 1 << 1
	EventPoolFlagKernelTimestamp uint32 = 1 << 2
)

// Event scope flags (ze_event_scope_flags_t).
const (
	EventScopeFlagSubdevice uint32 = 1 << 0
	EventScopeFlagDevice    uint32 = 1 << 1
	EventScopeFlagHost      uint32 = 1 << 2
)

// Memory access capability flags (ze_memory_access_cap_flags_t); zero
// means the kind of allocation is not supported.
const (
	MemoryAccessCapFlagRW               uint32 = 1 << 0
	MemoryAccessCapFlagAtomic           uint32 = 1 << 1
	MemoryAccessCapFlagConcurrent       uint32 = 1 << 2
	MemoryAccessCapFlagConcurrentAtomic uint32 = 1 << 3
)

// MemoryType is ze_memory_type_t, the kind of allocation a pointer lies in.
type MemoryType uint32

// Memory types.
const (
	MemoryTypeUnknown MemoryType = 0
	MemoryTypeHost    MemoryType = 1
	MemoryTypeDevice  MemoryType = 2
	MemoryTypeShared  MemoryType = 3
)

// MemoryAdvice is ze_memory_advice_t. The 1.4 headers end at
// MemoryAdviceBiasUncached, and their validation layer refuses anything
// above it.
type MemoryAdvice uint32

// Memory advice.
const (
	MemoryAdviceSetReadMostly          MemoryAdvice = 0
	MemoryAdviceClearReadMostly        MemoryAdvice = 1
	MemoryAdviceSetPreferredLocation   MemoryAdvice = 2
	MemoryAdviceClearPreferredLocation MemoryAdvice = 3
	MemoryAdviceSetNonAtomicMostly     MemoryAdvice = 4
	MemoryAdviceClearNonAtomicMostly   MemoryAdvice = 5
	MemoryAdviceBiasCached             MemoryAdvice = 6
	MemoryAdviceBiasUncached           MemoryAdvice = 7
)

// ModuleFormat is ze_module_format_t.
type ModuleFormat uint32

// Module formats.
const (
	ModuleFormatILSPIRV ModuleFormat = 0
	ModuleFormatNative  ModuleFormat = 1
)

// Timeout values for the host synchronize calls, in nanoseconds.
const (
	// TimeoutInfinite (UINT64_MAX) waits until done or the device is lost.
	TimeoutInfinite = ^uint64(0)
)

// Fixed sizes of ze_api.h.
const (
	MaxDriverUUIDSize       = 16  // ZE_MAX_DRIVER_UUID_SIZE
	MaxDeviceUUIDSize       = 16  // ZE_MAX_DEVICE_UUID_SIZE
	MaxDeviceName           = 256 // ZE_MAX_DEVICE_NAME
	MaxExtensionName        = 256 // ZE_MAX_EXTENSION_NAME
	SubgroupSizeCount       = 8   // ZE_SUBGROUPSIZE_COUNT
	MaxNativeKernelUUIDSize = 16  // ZE_MAX_NATIVE_KERNEL_UUID_SIZE
	MaxKernelUUIDSize       = 16  // ZE_MAX_KERNEL_UUID_SIZE
	MaxModuleUUIDSize       = 16  // ZE_MAX_MODULE_UUID_SIZE
)

// The structures below mirror the C structures of ze_api.h field by field,
// with C's natural alignment on 64-bit targets, which Go's matches for
// these field types. The c tag names the C field; layout_cgo_test.go
// checks every size and offset against the header.

// DriverUUID is ze_driver_uuid_t.
type DriverUUID struct {
	ID [MaxDriverUUIDSize]byte `c:"id"`
}

// DriverProperties is ze_driver_properties_t.
type DriverProperties struct {
	Stype         StructureType  `c:"stype"`
	PNext         unsafe.Pointer `c:"pNext"`
	UUID          DriverUUID     `c:"uuid"`
	DriverVersion uint32         `c:"driverVersion"`
}

// DriverExtensionProperties is ze_driver_extension_properties_t.
type DriverExtensionProperties struct {
	Name    [MaxExtensionName]byte `c:"name"`
	Version uint32                 `c:"version"`
}

// InitDriverTypeDesc is ze_init_driver_type_desc_t (spec 1.10), the
// descriptor of zeInitDrivers. The 1.8 loader's headers lack it; its shape
// (stype, pNext, a 32-bit flags word) is that of ContextDesc, which the
// layout test does check.
type InitDriverTypeDesc struct {
	Stype StructureType
	PNext unsafe.Pointer
	Flags InitDriverTypeFlags
}

// DeviceUUID is ze_device_uuid_t.
type DeviceUUID struct {
	ID [MaxDeviceUUIDSize]byte `c:"id"`
}

// DeviceProperties is ze_device_properties_t. With the plain
// StructureTypeDeviceProperties, TimerResolution is in nanoseconds per
// cycle.
type DeviceProperties struct {
	Stype                    StructureType       `c:"stype"`
	PNext                    unsafe.Pointer      `c:"pNext"`
	Type                     DeviceType          `c:"type"`
	VendorID                 uint32              `c:"vendorId"`
	DeviceID                 uint32              `c:"deviceId"`
	Flags                    uint32              `c:"flags"`
	SubdeviceID              uint32              `c:"subdeviceId"`
	CoreClockRate            uint32              `c:"coreClockRate"`
	MaxMemAllocSize          uint64              `c:"maxMemAllocSize"`
	MaxHardwareContexts      uint32              `c:"maxHardwareContexts"`
	MaxCommandQueuePriority  uint32              `c:"maxCommandQueuePriority"`
	NumThreadsPerEU          uint32              `c:"numThreadsPerEU"`
	PhysicalEUSimdWidth      uint32              `c:"physicalEUSimdWidth"`
	NumEUsPerSubslice        uint32              `c:"numEUsPerSubslice"`
	NumSubslicesPerSlice     uint32              `c:"numSubslicesPerSlice"`
	NumSlices                uint32              `c:"numSlices"`
	TimerResolution          uint64              `c:"timerResolution"`
	TimestampValidBits       uint32              `c:"timestampValidBits"`
	KernelTimestampValidBits uint32              `c:"kernelTimestampValidBits"`
	UUID                     DeviceUUID          `c:"uuid"`
	Name                     [MaxDeviceName]byte `c:"name"`
}

// DeviceComputeProperties is ze_device_compute_properties_t.
type DeviceComputeProperties struct {
	Stype                StructureType             `c:"stype"`
	PNext                unsafe.Pointer            `c:"pNext"`
	MaxTotalGroupSize    uint32                    `c:"maxTotalGroupSize"`
	MaxGroupSizeX        uint32                    `c:"maxGroupSizeX"`
	MaxGroupSizeY        uint32                    `c:"maxGroupSizeY"`
	MaxGroupSizeZ        uint32                    `c:"maxGroupSizeZ"`
	MaxGroupCountX       uint32                    `c:"maxGroupCountX"`
	MaxGroupCountY       uint32                    `c:"maxGroupCountY"`
	MaxGroupCountZ       uint32                    `c:"maxGroupCountZ"`
	MaxSharedLocalMemory uint32                    `c:"maxSharedLocalMemory"`
	NumSubGroupSizes     uint32                    `c:"numSubGroupSizes"`
	SubGroupSizes        [SubgroupSizeCount]uint32 `c:"subGroupSizes"`
}

// NativeKernelUUID is ze_native_kernel_uuid_t.
type NativeKernelUUID struct {
	ID [MaxNativeKernelUUIDSize]byte `c:"id"`
}

// DeviceModuleProperties is ze_device_module_properties_t.
// SpirvVersionSupported is a ZE_MAKE_VERSION value; the fp flags are
// ze_device_fp_flags_t, zero when the device lacks the type.
type DeviceModuleProperties struct {
	Stype                 StructureType    `c:"stype"`
	PNext                 unsafe.Pointer   `c:"pNext"`
	SpirvVersionSupported APIVersion       `c:"spirvVersionSupported"`
	Flags                 uint32           `c:"flags"`
	FP16Flags             uint32           `c:"fp16flags"`
	FP32Flags             uint32           `c:"fp32flags"`
	FP64Flags             uint32           `c:"fp64flags"`
	MaxArgumentsSize      uint32           `c:"maxArgumentsSize"`
	PrintfBufferSize      uint32           `c:"printfBufferSize"`
	NativeKernelSupported NativeKernelUUID `c:"nativeKernelSupported"`
}

// CommandQueueGroupProperties is ze_command_queue_group_properties_t.
type CommandQueueGroupProperties struct {
	Stype                    StructureType  `c:"stype"`
	PNext                    unsafe.Pointer `c:"pNext"`
	Flags                    uint32         `c:"flags"`
	MaxMemoryFillPatternSize uintptr        `c:"maxMemoryFillPatternSize"` // size_t
	NumQueues                uint32         `c:"numQueues"`
}

// DeviceMemoryProperties is ze_device_memory_properties_t.
type DeviceMemoryProperties struct {
	Stype        StructureType       `c:"stype"`
	PNext        unsafe.Pointer      `c:"pNext"`
	Flags        uint32              `c:"flags"`
	MaxClockRate uint32              `c:"maxClockRate"`
	MaxBusWidth  uint32              `c:"maxBusWidth"`
	TotalSize    uint64              `c:"totalSize"`
	Name         [MaxDeviceName]byte `c:"name"`
}

// DeviceMemoryAccessProperties is ze_device_memory_access_properties_t:
// for each kind of allocation, its MemoryAccessCapFlag bits (0: the
// device has none of that kind).
type DeviceMemoryAccessProperties struct {
	Stype                               StructureType  `c:"stype"`
	PNext                               unsafe.Pointer `c:"pNext"`
	HostAllocCapabilities               uint32         `c:"hostAllocCapabilities"`
	DeviceAllocCapabilities             uint32         `c:"deviceAllocCapabilities"`
	SharedSingleDeviceAllocCapabilities uint32         `c:"sharedSingleDeviceAllocCapabilities"`
	SharedCrossDeviceAllocCapabilities  uint32         `c:"sharedCrossDeviceAllocCapabilities"`
	SharedSystemAllocCapabilities       uint32         `c:"sharedSystemAllocCapabilities"`
}

// ContextDesc is ze_context_desc_t.
type ContextDesc struct {
	Stype StructureType  `c:"stype"`
	PNext unsafe.Pointer `c:"pNext"`
	Flags uint32         `c:"flags"`
}

// CommandQueueDesc is ze_command_queue_desc_t, also the descriptor of an
// immediate command list.
type CommandQueueDesc struct {
	Stype    StructureType        `c:"stype"`
	PNext    unsafe.Pointer       `c:"pNext"`
	Ordinal  uint32               `c:"ordinal"`
	Index    uint32               `c:"index"`
	Flags    uint32               `c:"flags"`
	Mode     CommandQueueMode     `c:"mode"`
	Priority CommandQueuePriority `c:"priority"`
}

// CommandListDesc is ze_command_list_desc_t, the descriptor of a regular
// command list.
type CommandListDesc struct {
	Stype                    StructureType  `c:"stype"`
	PNext                    unsafe.Pointer `c:"pNext"`
	CommandQueueGroupOrdinal uint32         `c:"commandQueueGroupOrdinal"`
	Flags                    uint32         `c:"flags"`
}

// FenceDesc is ze_fence_desc_t.
type FenceDesc struct {
	Stype StructureType  `c:"stype"`
	PNext unsafe.Pointer `c:"pNext"`
	Flags uint32         `c:"flags"`
}

// EventPoolDesc is ze_event_pool_desc_t.
type EventPoolDesc struct {
	Stype StructureType  `c:"stype"`
	PNext unsafe.Pointer `c:"pNext"`
	Flags uint32         `c:"flags"`
	Count uint32         `c:"count"`
}

// EventDesc is ze_event_desc_t.
type EventDesc struct {
	Stype  StructureType  `c:"stype"`
	PNext  unsafe.Pointer `c:"pNext"`
	Index  uint32         `c:"index"`
	Signal uint32         `c:"signal"`
	Wait   uint32         `c:"wait"`
}

// KernelTimestampData is ze_kernel_timestamp_data_t: device ticks.
type KernelTimestampData struct {
	KernelStart uint64 `c:"kernelStart"`
	KernelEnd   uint64 `c:"kernelEnd"`
}

// KernelTimestampResult is ze_kernel_timestamp_result_t.
type KernelTimestampResult struct {
	Global  KernelTimestampData `c:"global"`
	Context KernelTimestampData `c:"context"`
}

// DeviceMemAllocDesc is ze_device_mem_alloc_desc_t.
type DeviceMemAllocDesc struct {
	Stype   StructureType  `c:"stype"`
	PNext   unsafe.Pointer `c:"pNext"`
	Flags   uint32         `c:"flags"`
	Ordinal uint32         `c:"ordinal"`
}

// HostMemAllocDesc is ze_host_mem_alloc_desc_t.
type HostMemAllocDesc struct {
	Stype StructureType  `c:"stype"`
	PNext unsafe.Pointer `c:"pNext"`
	Flags uint32         `c:"flags"`
}

// MemoryAllocationProperties is ze_memory_allocation_properties_t, what
// zeMemGetAllocProperties says of a pointer.
type MemoryAllocationProperties struct {
	Stype    StructureType  `c:"stype"`
	PNext    unsafe.Pointer `c:"pNext"`
	Type     MemoryType     `c:"type"`
	ID       uint64         `c:"id"`
	PageSize uint64         `c:"pageSize"`
}

// CopyRegion is ze_copy_region_t: X and width in bytes, Y and height in
// rows, Z and depth in slices.
type CopyRegion struct {
	OriginX uint32 `c:"originX"`
	OriginY uint32 `c:"originY"`
	OriginZ uint32 `c:"originZ"`
	Width   uint32 `c:"width"`
	Height  uint32 `c:"height"`
	Depth   uint32 `c:"depth"`
}

// ModuleConstants is ze_module_constants_t: numConstants ids and as many
// pointers to values (const void**).
type ModuleConstants struct {
	NumConstants    uint32         `c:"numConstants"`
	PConstantIDs    unsafe.Pointer `c:"pConstantIds"`    // const uint32_t*
	PConstantValues unsafe.Pointer `c:"pConstantValues"` // const void**
}

// ModuleDesc is ze_module_desc_t.
type ModuleDesc struct {
	Stype        StructureType  `c:"stype"`
	PNext        unsafe.Pointer `c:"pNext"`
	Format       ModuleFormat   `c:"format"`
	InputSize    uintptr        `c:"inputSize"`    // size_t
	PInputModule unsafe.Pointer `c:"pInputModule"` // const uint8_t*
	PBuildFlags  unsafe.Pointer `c:"pBuildFlags"`  // const char*
	PConstants   unsafe.Pointer `c:"pConstants"`   // const ze_module_constants_t*
}

// ModuleProgramExpDesc is ze_module_program_exp_desc_t
// (ZE_experimental_module_program): several IL modules linked into one
// module by zeModuleCreate, chained from ModuleDesc.PNext.
type ModuleProgramExpDesc struct {
	Stype         StructureType  `c:"stype"`
	PNext         unsafe.Pointer `c:"pNext"`
	Count         uint32         `c:"count"`
	InputSizes    unsafe.Pointer `c:"inputSizes"`    // const size_t*
	PInputModules unsafe.Pointer `c:"pInputModules"` // const uint8_t**
	PBuildFlags   unsafe.Pointer `c:"pBuildFlags"`   // const char**
	PConstants    unsafe.Pointer `c:"pConstants"`    // const ze_module_constants_t**
}

// KernelDesc is ze_kernel_desc_t.
type KernelDesc struct {
	Stype       StructureType  `c:"stype"`
	PNext       unsafe.Pointer `c:"pNext"`
	Flags       uint32         `c:"flags"`
	PKernelName unsafe.Pointer `c:"pKernelName"` // const char*
}

// KernelUUID is ze_kernel_uuid_t.
type KernelUUID struct {
	KID [MaxKernelUUIDSize]byte `c:"kid"`
	MID [MaxModuleUUIDSize]byte `c:"mid"`
}

// KernelProperties is ze_kernel_properties_t.
type KernelProperties struct {
	Stype                StructureType  `c:"stype"`
	PNext                unsafe.Pointer `c:"pNext"`
	NumKernelArgs        uint32         `c:"numKernelArgs"`
	RequiredGroupSizeX   uint32         `c:"requiredGroupSizeX"`
	RequiredGroupSizeY   uint32         `c:"requiredGroupSizeY"`
	RequiredGroupSizeZ   uint32         `c:"requiredGroupSizeZ"`
	RequiredNumSubGroups uint32         `c:"requiredNumSubGroups"`
	RequiredSubgroupSize uint32         `c:"requiredSubgroupSize"`
	MaxSubgroupSize      uint32         `c:"maxSubgroupSize"`
	MaxNumSubgroups      uint32         `c:"maxNumSubgroups"`
	LocalMemSize         uint32         `c:"localMemSize"`
	PrivateMemSize       uint32         `c:"privateMemSize"`
	SpillMemSize         uint32         `c:"spillMemSize"`
	UUID                 KernelUUID     `c:"uuid"`
}

// GroupCount is ze_group_count_t: the number of work-groups of a launch.
type GroupCount struct {
	GroupCountX uint32 `c:"groupCountX"`
	GroupCountY uint32 `c:"groupCountY"`
	GroupCountZ uint32 `c:"groupCountZ"`
}
