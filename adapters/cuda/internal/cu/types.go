package cu

import "strconv"

// Opaque CUDA handles. They are C pointers owned by the driver, kept as
// uintptr so the Go garbage collector never looks at them.
type (
	// Context is a CUcontext.
	Context uintptr
	// Module is a CUmodule.
	Module uintptr
	// Function is a CUfunction.
	Function uintptr
	// Stream is a CUstream; 0 is the default (NULL) stream.
	Stream uintptr
	// Event is a CUevent.
	Event uintptr
	// LinkState is a CUlinkState.
	LinkState uintptr
)

// Device is a CUdevice: a device ordinal as the driver numbers them.
type Device int32

// DevicePtr is a CUdeviceptr, an address in the unified device address
// space (unsigned long long on 64-bit platforms).
type DevicePtr uint64

// Special stream handles (cuda.h CU_STREAM_LEGACY, CU_STREAM_PER_THREAD).
const (
	StreamLegacy    Stream = 0x1 // CU_STREAM_LEGACY
	StreamPerThread Stream = 0x2 // CU_STREAM_PER_THREAD
)

// Result is a CUresult: Success or an error code.
type Result int32

// Name returns the C name of the code, such as "CUDA_ERROR_INVALID_PTX", or
// "CUDA_ERROR(n)" for a code this package does not know.
func (r Result) Name() string {
	if n, ok := resultNames[r]; ok {
		return n
	}
	return "CUDA_ERROR(" + strconv.Itoa(int(r)) + ")"
}

// String returns Name, so that %v prints the C name.
func (r Result) String() string { return r.Name() }

// Result codes (CUresult, enum cudaError_enum in cuda.h). Values checked
// against the CUDA 12.6 cuda.h; KeyRotation (12.8), StreamDetached (13.1)
// and GraphRecaptureFailure (13.3) come from later headers.
const (
	Success                      Result = 0   // CUDA_SUCCESS
	InvalidValue                 Result = 1   // CUDA_ERROR_INVALID_VALUE
	OutOfMemory                  Result = 2   // CUDA_ERROR_OUT_OF_MEMORY
	NotInitialized               Result = 3   // CUDA_ERROR_NOT_INITIALIZED
	Deinitialized                Result = 4   // CUDA_ERROR_DEINITIALIZED
	ProfilerDisabled             Result = 5   // CUDA_ERROR_PROFILER_DISABLED
	ProfilerNotInitialized       Result = 6   // CUDA_ERROR_PROFILER_NOT_INITIALIZED
	ProfilerAlreadyStarted       Result = 7   // CUDA_ERROR_PROFILER_ALREADY_STARTED
	ProfilerAlreadyStopped       Result = 8   // CUDA_ERROR_PROFILER_ALREADY_STOPPED
	StubLibrary                  Result = 34  // CUDA_ERROR_STUB_LIBRARY
	DeviceUnavailable            Result = 46  // CUDA_ERROR_DEVICE_UNAVAILABLE
	NoDevice                     Result = 100 // CUDA_ERROR_NO_DEVICE
	InvalidDevice                Result = 101 // CUDA_ERROR_INVALID_DEVICE
	DeviceNotLicensed            Result = 102 // CUDA_ERROR_DEVICE_NOT_LICENSED
	InvalidImage                 Result = 200 // CUDA_ERROR_INVALID_IMAGE
	InvalidContext               Result = 201 // CUDA_ERROR_INVALID_CONTEXT
	ContextAlreadyCurrent        Result = 202 // CUDA_ERROR_CONTEXT_ALREADY_CURRENT
	MapFailed                    Result = 205 // CUDA_ERROR_MAP_FAILED
	UnmapFailed                  Result = 206 // CUDA_ERROR_UNMAP_FAILED
	ArrayIsMapped                Result = 207 // CUDA_ERROR_ARRAY_IS_MAPPED
	AlreadyMapped                Result = 208 // CUDA_ERROR_ALREADY_MAPPED
	NoBinaryForGPU               Result = 209 // CUDA_ERROR_NO_BINARY_FOR_GPU
	AlreadyAcquired              Result = 210 // CUDA_ERROR_ALREADY_ACQUIRED
	NotMapped                    Result = 211 // CUDA_ERROR_NOT_MAPPED
	NotMappedAsArray             Result = 212 // CUDA_ERROR_NOT_MAPPED_AS_ARRAY
	NotMappedAsPointer           Result = 213 // CUDA_ERROR_NOT_MAPPED_AS_POINTER
	ECCUncorrectable             Result = 214 // CUDA_ERROR_ECC_UNCORRECTABLE
	UnsupportedLimit             Result = 215 // CUDA_ERROR_UNSUPPORTED_LIMIT
	ContextAlreadyInUse          Result = 216 // CUDA_ERROR_CONTEXT_ALREADY_IN_USE
	PeerAccessUnsupported        Result = 217 // CUDA_ERROR_PEER_ACCESS_UNSUPPORTED
	InvalidPTX                   Result = 218 // CUDA_ERROR_INVALID_PTX
	InvalidGraphicsContext       Result = 219 // CUDA_ERROR_INVALID_GRAPHICS_CONTEXT
	NVLinkUncorrectable          Result = 220 // CUDA_ERROR_NVLINK_UNCORRECTABLE
	JITCompilerNotFound          Result = 221 // CUDA_ERROR_JIT_COMPILER_NOT_FOUND
	UnsupportedPTXVersion        Result = 222 // CUDA_ERROR_UNSUPPORTED_PTX_VERSION
	JITCompilationDisabled       Result = 223 // CUDA_ERROR_JIT_COMPILATION_DISABLED
	UnsupportedExecAffinity      Result = 224 // CUDA_ERROR_UNSUPPORTED_EXEC_AFFINITY
	UnsupportedDevsideSync       Result = 225 // CUDA_ERROR_UNSUPPORTED_DEVSIDE_SYNC
	InvalidSource                Result = 300 // CUDA_ERROR_INVALID_SOURCE
	FileNotFound                 Result = 301 // CUDA_ERROR_FILE_NOT_FOUND
	SharedObjectSymbolNotFound   Result = 302 // CUDA_ERROR_SHARED_OBJECT_SYMBOL_NOT_FOUND
	SharedObjectInitFailed       Result = 303 // CUDA_ERROR_SHARED_OBJECT_INIT_FAILED
	OperatingSystem              Result = 304 // CUDA_ERROR_OPERATING_SYSTEM
	InvalidHandle                Result = 400 // CUDA_ERROR_INVALID_HANDLE
	IllegalState                 Result = 401 // CUDA_ERROR_ILLEGAL_STATE
	LossyQuery                   Result = 402 // CUDA_ERROR_LOSSY_QUERY
	NotFound                     Result = 500 // CUDA_ERROR_NOT_FOUND
	NotReady                     Result = 600 // CUDA_ERROR_NOT_READY
	IllegalAddress               Result = 700 // CUDA_ERROR_ILLEGAL_ADDRESS
	LaunchOutOfResources         Result = 701 // CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES
	LaunchTimeout                Result = 702 // CUDA_ERROR_LAUNCH_TIMEOUT
	LaunchIncompatibleTexturing  Result = 703 // CUDA_ERROR_LAUNCH_INCOMPATIBLE_TEXTURING
	PeerAccessAlreadyEnabled     Result = 704 // CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED
	PeerAccessNotEnabled         Result = 705 // CUDA_ERROR_PEER_ACCESS_NOT_ENABLED
	PrimaryContextActive         Result = 708 // CUDA_ERROR_PRIMARY_CONTEXT_ACTIVE
	ContextIsDestroyed           Result = 709 // CUDA_ERROR_CONTEXT_IS_DESTROYED
	Assert                       Result = 710 // CUDA_ERROR_ASSERT
	TooManyPeers                 Result = 711 // CUDA_ERROR_TOO_MANY_PEERS
	HostMemoryAlreadyRegistered  Result = 712 // CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED
	HostMemoryNotRegistered      Result = 713 // CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED
	HardwareStackError           Result = 714 // CUDA_ERROR_HARDWARE_STACK_ERROR
	IllegalInstruction           Result = 715 // CUDA_ERROR_ILLEGAL_INSTRUCTION
	MisalignedAddress            Result = 716 // CUDA_ERROR_MISALIGNED_ADDRESS
	InvalidAddressSpace          Result = 717 // CUDA_ERROR_INVALID_ADDRESS_SPACE
	InvalidPC                    Result = 718 // CUDA_ERROR_INVALID_PC
	LaunchFailed                 Result = 719 // CUDA_ERROR_LAUNCH_FAILED
	CooperativeLaunchTooLarge    Result = 720 // CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE
	NotPermitted                 Result = 800 // CUDA_ERROR_NOT_PERMITTED
	NotSupported                 Result = 801 // CUDA_ERROR_NOT_SUPPORTED
	SystemNotReady               Result = 802 // CUDA_ERROR_SYSTEM_NOT_READY
	SystemDriverMismatch         Result = 803 // CUDA_ERROR_SYSTEM_DRIVER_MISMATCH
	CompatNotSupportedOnDevice   Result = 804 // CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE
	MPSConnectionFailed          Result = 805 // CUDA_ERROR_MPS_CONNECTION_FAILED
	MPSRPCFailure                Result = 806 // CUDA_ERROR_MPS_RPC_FAILURE
	MPSServerNotReady            Result = 807 // CUDA_ERROR_MPS_SERVER_NOT_READY
	MPSMaxClientsReached         Result = 808 // CUDA_ERROR_MPS_MAX_CLIENTS_REACHED
	MPSMaxConnectionsReached     Result = 809 // CUDA_ERROR_MPS_MAX_CONNECTIONS_REACHED
	MPSClientTerminated          Result = 810 // CUDA_ERROR_MPS_CLIENT_TERMINATED
	CDPNotSupported              Result = 811 // CUDA_ERROR_CDP_NOT_SUPPORTED
	CDPVersionMismatch           Result = 812 // CUDA_ERROR_CDP_VERSION_MISMATCH
	StreamCaptureUnsupported     Result = 900 // CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED
	StreamCaptureInvalidated     Result = 901 // CUDA_ERROR_STREAM_CAPTURE_INVALIDATED
	StreamCaptureMerge           Result = 902 // CUDA_ERROR_STREAM_CAPTURE_MERGE
	StreamCaptureUnmatched       Result = 903 // CUDA_ERROR_STREAM_CAPTURE_UNMATCHED
	StreamCaptureUnjoined        Result = 904 // CUDA_ERROR_STREAM_CAPTURE_UNJOINED
	StreamCaptureIsolation       Result = 905 // CUDA_ERROR_STREAM_CAPTURE_ISOLATION
	StreamCaptureImplicit        Result = 906 // CUDA_ERROR_STREAM_CAPTURE_IMPLICIT
	CapturedEvent                Result = 907 // CUDA_ERROR_CAPTURED_EVENT
	StreamCaptureWrongThread     Result = 908 // CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD
	Timeout                      Result = 909 // CUDA_ERROR_TIMEOUT
	GraphExecUpdateFailure       Result = 910 // CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE
	ExternalDevice               Result = 911 // CUDA_ERROR_EXTERNAL_DEVICE
	InvalidClusterSize           Result = 912 // CUDA_ERROR_INVALID_CLUSTER_SIZE
	FunctionNotLoaded            Result = 913 // CUDA_ERROR_FUNCTION_NOT_LOADED
	InvalidResourceType          Result = 914 // CUDA_ERROR_INVALID_RESOURCE_TYPE
	InvalidResourceConfiguration Result = 915 // CUDA_ERROR_INVALID_RESOURCE_CONFIGURATION
	KeyRotation                  Result = 916 // CUDA_ERROR_KEY_ROTATION
	StreamDetached               Result = 917 // CUDA_ERROR_STREAM_DETACHED
	GraphRecaptureFailure        Result = 918 // CUDA_ERROR_GRAPH_RECAPTURE_FAILURE
	Unknown                      Result = 999 // CUDA_ERROR_UNKNOWN
)

var resultNames = map[Result]string{
	Success:                      "CUDA_SUCCESS",
	InvalidValue:                 "CUDA_ERROR_INVALID_VALUE",
	OutOfMemory:                  "CUDA_ERROR_OUT_OF_MEMORY",
	NotInitialized:               "CUDA_ERROR_NOT_INITIALIZED",
	Deinitialized:                "CUDA_ERROR_DEINITIALIZED",
	ProfilerDisabled:             "CUDA_ERROR_PROFILER_DISABLED",
	ProfilerNotInitialized:       "CUDA_ERROR_PROFILER_NOT_INITIALIZED",
	ProfilerAlreadyStarted:       "CUDA_ERROR_PROFILER_ALREADY_STARTED",
	ProfilerAlreadyStopped:       "CUDA_ERROR_PROFILER_ALREADY_STOPPED",
	StubLibrary:                  "CUDA_ERROR_STUB_LIBRARY",
	DeviceUnavailable:            "CUDA_ERROR_DEVICE_UNAVAILABLE",
	NoDevice:                     "CUDA_ERROR_NO_DEVICE",
	InvalidDevice:                "CUDA_ERROR_INVALID_DEVICE",
	DeviceNotLicensed:            "CUDA_ERROR_DEVICE_NOT_LICENSED",
	InvalidImage:                 "CUDA_ERROR_INVALID_IMAGE",
	InvalidContext:               "CUDA_ERROR_INVALID_CONTEXT",
	ContextAlreadyCurrent:        "CUDA_ERROR_CONTEXT_ALREADY_CURRENT",
	MapFailed:                    "CUDA_ERROR_MAP_FAILED",
	UnmapFailed:                  "CUDA_ERROR_UNMAP_FAILED",
	ArrayIsMapped:                "CUDA_ERROR_ARRAY_IS_MAPPED",
	AlreadyMapped:                "CUDA_ERROR_ALREADY_MAPPED",
	NoBinaryForGPU:               "CUDA_ERROR_NO_BINARY_FOR_GPU",
	AlreadyAcquired:              "CUDA_ERROR_ALREADY_ACQUIRED",
	NotMapped:                    "CUDA_ERROR_NOT_MAPPED",
	NotMappedAsArray:             "CUDA_ERROR_NOT_MAPPED_AS_ARRAY",
	NotMappedAsPointer:           "CUDA_ERROR_NOT_MAPPED_AS_POINTER",
	ECCUncorrectable:             "CUDA_ERROR_ECC_UNCORRECTABLE",
	UnsupportedLimit:             "CUDA_ERROR_UNSUPPORTED_LIMIT",
	ContextAlreadyInUse:          "CUDA_ERROR_CONTEXT_ALREADY_IN_USE",
	PeerAccessUnsupported:        "CUDA_ERROR_PEER_ACCESS_UNSUPPORTED",
	InvalidPTX:                   "CUDA_ERROR_INVALID_PTX",
	InvalidGraphicsContext:       "CUDA_ERROR_INVALID_GRAPHICS_CONTEXT",
	NVLinkUncorrectable:          "CUDA_ERROR_NVLINK_UNCORRECTABLE",
	JITCompilerNotFound:          "CUDA_ERROR_JIT_COMPILER_NOT_FOUND",
	UnsupportedPTXVersion:        "CUDA_ERROR_UNSUPPORTED_PTX_VERSION",
	JITCompilationDisabled:       "CUDA_ERROR_JIT_COMPILATION_DISABLED",
	UnsupportedExecAffinity:      "CUDA_ERROR_UNSUPPORTED_EXEC_AFFINITY",
	UnsupportedDevsideSync:       "CUDA_ERROR_UNSUPPORTED_DEVSIDE_SYNC",
	InvalidSource:                "CUDA_ERROR_INVALID_SOURCE",
	FileNotFound:                 "CUDA_ERROR_FILE_NOT_FOUND",
	SharedObjectSymbolNotFound:   "CUDA_ERROR_SHARED_OBJECT_SYMBOL_NOT_FOUND",
	SharedObjectInitFailed:       "CUDA_ERROR_SHARED_OBJECT_INIT_FAILED",
	OperatingSystem:              "CUDA_ERROR_OPERATING_SYSTEM",
	InvalidHandle:                "CUDA_ERROR_INVALID_HANDLE",
	IllegalState:                 "CUDA_ERROR_ILLEGAL_STATE",
	LossyQuery:                   "CUDA_ERROR_LOSSY_QUERY",
	NotFound:                     "CUDA_ERROR_NOT_FOUND",
	NotReady:                     "CUDA_ERROR_NOT_READY",
	IllegalAddress:               "CUDA_ERROR_ILLEGAL_ADDRESS",
	LaunchOutOfResources:         "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES",
	LaunchTimeout:                "CUDA_ERROR_LAUNCH_TIMEOUT",
	LaunchIncompatibleTexturing:  "CUDA_ERROR_LAUNCH_INCOMPATIBLE_TEXTURING",
	PeerAccessAlreadyEnabled:     "CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED",
	PeerAccessNotEnabled:         "CUDA_ERROR_PEER_ACCESS_NOT_ENABLED",
	PrimaryContextActive:         "CUDA_ERROR_PRIMARY_CONTEXT_ACTIVE",
	ContextIsDestroyed:           "CUDA_ERROR_CONTEXT_IS_DESTROYED",
	Assert:                       "CUDA_ERROR_ASSERT",
	TooManyPeers:                 "CUDA_ERROR_TOO_MANY_PEERS",
	HostMemoryAlreadyRegistered:  "CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED",
	HostMemoryNotRegistered:      "CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED",
	HardwareStackError:           "CUDA_ERROR_HARDWARE_STACK_ERROR",
	IllegalInstruction:           "CUDA_ERROR_ILLEGAL_INSTRUCTION",
	MisalignedAddress:            "CUDA_ERROR_MISALIGNED_ADDRESS",
	InvalidAddressSpace:          "CUDA_ERROR_INVALID_ADDRESS_SPACE",
	InvalidPC:                    "CUDA_ERROR_INVALID_PC",
	LaunchFailed:                 "CUDA_ERROR_LAUNCH_FAILED",
	CooperativeLaunchTooLarge:    "CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE",
	NotPermitted:                 "CUDA_ERROR_NOT_PERMITTED",
	NotSupported:                 "CUDA_ERROR_NOT_SUPPORTED",
	SystemNotReady:               "CUDA_ERROR_SYSTEM_NOT_READY",
	SystemDriverMismatch:         "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH",
	CompatNotSupportedOnDevice:   "CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE",
	MPSConnectionFailed:          "CUDA_ERROR_MPS_CONNECTION_FAILED",
	MPSRPCFailure:                "CUDA_ERROR_MPS_RPC_FAILURE",
	MPSServerNotReady:            "CUDA_ERROR_MPS_SERVER_NOT_READY",
	MPSMaxClientsReached:         "CUDA_ERROR_MPS_MAX_CLIENTS_REACHED",
	MPSMaxConnectionsReached:     "CUDA_ERROR_MPS_MAX_CONNECTIONS_REACHED",
	MPSClientTerminated:          "CUDA_ERROR_MPS_CLIENT_TERMINATED",
	CDPNotSupported:              "CUDA_ERROR_CDP_NOT_SUPPORTED",
	CDPVersionMismatch:           "CUDA_ERROR_CDP_VERSION_MISMATCH",
	StreamCaptureUnsupported:     "CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED",
	StreamCaptureInvalidated:     "CUDA_ERROR_STREAM_CAPTURE_INVALIDATED",
	StreamCaptureMerge:           "CUDA_ERROR_STREAM_CAPTURE_MERGE",
	StreamCaptureUnmatched:       "CUDA_ERROR_STREAM_CAPTURE_UNMATCHED",
	StreamCaptureUnjoined:        "CUDA_ERROR_STREAM_CAPTURE_UNJOINED",
	StreamCaptureIsolation:       "CUDA_ERROR_STREAM_CAPTURE_ISOLATION",
	StreamCaptureImplicit:        "CUDA_ERROR_STREAM_CAPTURE_IMPLICIT",
	CapturedEvent:                "CUDA_ERROR_CAPTURED_EVENT",
	StreamCaptureWrongThread:     "CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD",
	Timeout:                      "CUDA_ERROR_TIMEOUT",
	GraphExecUpdateFailure:       "CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE",
	ExternalDevice:               "CUDA_ERROR_EXTERNAL_DEVICE",
	InvalidClusterSize:           "CUDA_ERROR_INVALID_CLUSTER_SIZE",
	FunctionNotLoaded:            "CUDA_ERROR_FUNCTION_NOT_LOADED",
	InvalidResourceType:          "CUDA_ERROR_INVALID_RESOURCE_TYPE",
	InvalidResourceConfiguration: "CUDA_ERROR_INVALID_RESOURCE_CONFIGURATION",
	KeyRotation:                  "CUDA_ERROR_KEY_ROTATION",
	StreamDetached:               "CUDA_ERROR_STREAM_DETACHED",
	GraphRecaptureFailure:        "CUDA_ERROR_GRAPH_RECAPTURE_FAILURE",
	Unknown:                      "CUDA_ERROR_UNKNOWN",
}

// MemPool is a CUmemoryPool.
type MemPool uintptr

// MemLocation is a CUmemLocation: {CUmemLocationType type; int id;}, 8
// bytes. Passed by value (cuMemPrefetchAsync_v2, cuMemAdvise_v2) it is one
// integer register under the System V ABI: see word.
type MemLocation struct {
	Type MemLocationType
	ID   int32
}

// word is the location as the C ABI passes a struct of two ints by value:
// one eightbyte, type in the low half, id in the high half.
func (m MemLocation) word() uintptr {
	return uintptr(uint32(m.Type)) | uintptr(uint32(m.ID))<<32
}

// MemPoolProps is CUmemPoolProps (CUmemPoolProps_v1), 88 bytes:
//
//	CUmemAllocationType allocType;          // 0
//	CUmemAllocationHandleType handleTypes;  // 4
//	CUmemLocation location;                 // 8
//	void *win32SecurityAttributes;          // 16
//	size_t maxSize;                         // 24 (CUDA 12.2; reserved before)
//	unsigned short usage;                   // 32 (CUDA 12.3; reserved before)
//	unsigned char reserved[54];             // 34
//
// CUDA 11.2 to 12.1 declare reserved[64] after win32SecurityAttributes:
// the same 88 bytes, so older drivers read zeros where maxSize and usage
// are.
type MemPoolProps struct {
	AllocType               int32
	HandleTypes             int32
	Location                MemLocation
	Win32SecurityAttributes uintptr
	MaxSize                 uint64
	Usage                   uint16
	Reserved                [54]byte
}

// Memcpy3D is CUDA_MEMCPY3D (CUDA_MEMCPY3D_v2), 200 bytes: the source and
// destination each as {XInBytes, Y, Z, LOD, memoryType, host, device,
// array, reserved, pitch, height}, then the extent. Where a memory type
// is MemoryTypeUnified or MemoryTypeDevice, Device is the address and
// Host is ignored; Height is the rows per slice (slice pitch / pitch).
type Memcpy3D struct {
	SrcXInBytes, SrcY, SrcZ, SrcLOD uint64
	SrcMemoryType                   MemoryType
	_                               uint32
	SrcHost                         uintptr
	SrcDevice                       DevicePtr
	SrcArray                        uintptr
	Reserved0                       uintptr
	SrcPitch, SrcHeight             uint64

	DstXInBytes, DstY, DstZ, DstLOD uint64
	DstMemoryType                   MemoryType
	_                               uint32
	DstHost                         uintptr
	DstDevice                       DevicePtr
	DstArray                        uintptr
	Reserved1                       uintptr
	DstPitch, DstHeight             uint64

	WidthInBytes, Height, Depth uint64
}
