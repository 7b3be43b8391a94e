package cl

import "strconv"

// Opaque OpenCL handles. They are C pointers owned by the driver, kept as
// uintptr so the Go garbage collector never looks at them.
type (
	// Platform is a cl_platform_id.
	Platform uintptr
	// Device is a cl_device_id.
	Device uintptr
	// Context is a cl_context.
	Context uintptr
	// Queue is a cl_command_queue.
	Queue uintptr
	// Mem is a cl_mem.
	Mem uintptr
	// Program is a cl_program.
	Program uintptr
	// Kernel is a cl_kernel.
	Kernel uintptr
	// Event is a cl_event.
	Event uintptr
)

// Status is a cl_int result code: Success or a negative error code.
type Status int32

// Name returns the C name of the code, such as "CL_INVALID_KERNEL_NAME", or
// "CL_ERROR(n)" for a code this package does not know.
func (s Status) Name() string {
	if n, ok := statusNames[s]; ok {
		return n
	}
	return "CL_ERROR(" + strconv.Itoa(int(s)) + ")"
}

// String returns Name, so that %v prints the C name.
func (s Status) String() string { return s.Name() }

// Status codes (cl_int results and errcode_ret values) from CL/cl.h and the
// extension headers.
const (
	Success                               Status = 0     // CL_SUCCESS
	DeviceNotFound                        Status = -1    // CL_DEVICE_NOT_FOUND
	DeviceNotAvailable                    Status = -2    // CL_DEVICE_NOT_AVAILABLE
	CompilerNotAvailable                  Status = -3    // CL_COMPILER_NOT_AVAILABLE
	MemObjectAllocationFailure            Status = -4    // CL_MEM_OBJECT_ALLOCATION_FAILURE
	OutOfResources                        Status = -5    // CL_OUT_OF_RESOURCES
	OutOfHostMemory                       Status = -6    // CL_OUT_OF_HOST_MEMORY
	ProfilingInfoNotAvailable             Status = -7    // CL_PROFILING_INFO_NOT_AVAILABLE
	MemCopyOverlap                        Status = -8    // CL_MEM_COPY_OVERLAP
	ImageFormatMismatch                   Status = -9    // CL_IMAGE_FORMAT_MISMATCH
	ImageFormatNotSupported               Status = -10   // CL_IMAGE_FORMAT_NOT_SUPPORTED
	BuildProgramFailure                   Status = -11   // CL_BUILD_PROGRAM_FAILURE
	MapFailure                            Status = -12   // CL_MAP_FAILURE
	MisalignedSubBufferOffset             Status = -13   // CL_MISALIGNED_SUB_BUFFER_OFFSET
	ExecStatusErrorForEventsInWaitList    Status = -14   // CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST
	CompileProgramFailure                 Status = -15   // CL_COMPILE_PROGRAM_FAILURE
	LinkerNotAvailable                    Status = -16   // CL_LINKER_NOT_AVAILABLE
	LinkProgramFailure                    Status = -17   // CL_LINK_PROGRAM_FAILURE
	DevicePartitionFailed                 Status = -18   // CL_DEVICE_PARTITION_FAILED
	KernelArgInfoNotAvailable             Status = -19   // CL_KERNEL_ARG_INFO_NOT_AVAILABLE
	InvalidValue                          Status = -30   // CL_INVALID_VALUE
	InvalidDeviceType                     Status = -31   // CL_INVALID_DEVICE_TYPE
	InvalidPlatform                       Status = -32   // CL_INVALID_PLATFORM
	InvalidDevice                         Status = -33   // CL_INVALID_DEVICE
	InvalidContext                        Status = -34   // CL_INVALID_CONTEXT
	InvalidQueueProperties                Status = -35   // CL_INVALID_QUEUE_PROPERTIES
	InvalidCommandQueue                   Status = -36   // CL_INVALID_COMMAND_QUEUE
	InvalidHostPtr                        Status = -37   // CL_INVALID_HOST_PTR
	InvalidMemObject                      Status = -38   // CL_INVALID_MEM_OBJECT
	InvalidImageFormatDescriptor          Status = -39   // CL_INVALID_IMAGE_FORMAT_DESCRIPTOR
	InvalidImageSize                      Status = -40   // CL_INVALID_IMAGE_SIZE
	InvalidSampler                        Status = -41   // CL_INVALID_SAMPLER
	InvalidBinary                         Status = -42   // CL_INVALID_BINARY
	InvalidBuildOptions                   Status = -43   // CL_INVALID_BUILD_OPTIONS
	InvalidProgram                        Status = -44   // CL_INVALID_PROGRAM
	InvalidProgramExecutable              Status = -45   // CL_INVALID_PROGRAM_EXECUTABLE
	InvalidKernelName                     Status = -46   // CL_INVALID_KERNEL_NAME
	InvalidKernelDefinition               Status = -47   // CL_INVALID_KERNEL_DEFINITION
	InvalidKernel                         Status = -48   // CL_INVALID_KERNEL
	InvalidArgIndex                       Status = -49   // CL_INVALID_ARG_INDEX
	InvalidArgValue                       Status = -50   // CL_INVALID_ARG_VALUE
	InvalidArgSize                        Status = -51   // CL_INVALID_ARG_SIZE
	InvalidKernelArgs                     Status = -52   // CL_INVALID_KERNEL_ARGS
	InvalidWorkDimension                  Status = -53   // CL_INVALID_WORK_DIMENSION
	InvalidWorkGroupSize                  Status = -54   // CL_INVALID_WORK_GROUP_SIZE
	InvalidWorkItemSize                   Status = -55   // CL_INVALID_WORK_ITEM_SIZE
	InvalidGlobalOffset                   Status = -56   // CL_INVALID_GLOBAL_OFFSET
	InvalidEventWaitList                  Status = -57   // CL_INVALID_EVENT_WAIT_LIST
	InvalidEvent                          Status = -58   // CL_INVALID_EVENT
	InvalidOperation                      Status = -59   // CL_INVALID_OPERATION
	InvalidGLObject                       Status = -60   // CL_INVALID_GL_OBJECT
	InvalidBufferSize                     Status = -61   // CL_INVALID_BUFFER_SIZE
	InvalidMipLevel                       Status = -62   // CL_INVALID_MIP_LEVEL
	InvalidGlobalWorkSize                 Status = -63   // CL_INVALID_GLOBAL_WORK_SIZE
	InvalidProperty                       Status = -64   // CL_INVALID_PROPERTY
	InvalidImageDescriptor                Status = -65   // CL_INVALID_IMAGE_DESCRIPTOR
	InvalidCompilerOptions                Status = -66   // CL_INVALID_COMPILER_OPTIONS
	InvalidLinkerOptions                  Status = -67   // CL_INVALID_LINKER_OPTIONS
	InvalidDevicePartitionCount           Status = -68   // CL_INVALID_DEVICE_PARTITION_COUNT
	InvalidPipeSize                       Status = -69   // CL_INVALID_PIPE_SIZE
	InvalidDeviceQueue                    Status = -70   // CL_INVALID_DEVICE_QUEUE
	InvalidSpecID                         Status = -71   // CL_INVALID_SPEC_ID
	MaxSizeRestrictionExceeded            Status = -72   // CL_MAX_SIZE_RESTRICTION_EXCEEDED
	InvalidGLSharegroupReferenceKHR       Status = -1000 // CL_INVALID_GL_SHAREGROUP_REFERENCE_KHR
	PlatformNotFoundKHR                   Status = -1001 // CL_PLATFORM_NOT_FOUND_KHR
	InvalidD3D10DeviceKHR                 Status = -1002 // CL_INVALID_D3D10_DEVICE_KHR
	InvalidD3D10ResourceKHR               Status = -1003 // CL_INVALID_D3D10_RESOURCE_KHR
	D3D10ResourceAlreadyAcquiredKHR       Status = -1004 // CL_D3D10_RESOURCE_ALREADY_ACQUIRED_KHR
	D3D10ResourceNotAcquiredKHR           Status = -1005 // CL_D3D10_RESOURCE_NOT_ACQUIRED_KHR
	InvalidD3D11DeviceKHR                 Status = -1006 // CL_INVALID_D3D11_DEVICE_KHR
	InvalidD3D11ResourceKHR               Status = -1007 // CL_INVALID_D3D11_RESOURCE_KHR
	D3D11ResourceAlreadyAcquiredKHR       Status = -1008 // CL_D3D11_RESOURCE_ALREADY_ACQUIRED_KHR
	D3D11ResourceNotAcquiredKHR           Status = -1009 // CL_D3D11_RESOURCE_NOT_ACQUIRED_KHR
	InvalidDX9MediaAdapterKHR             Status = -1010 // CL_INVALID_DX9_MEDIA_ADAPTER_KHR
	InvalidDX9MediaSurfaceKHR             Status = -1011 // CL_INVALID_DX9_MEDIA_SURFACE_KHR
	DX9MediaSurfaceAlreadyAcquiredKHR     Status = -1012 // CL_DX9_MEDIA_SURFACE_ALREADY_ACQUIRED_KHR
	DX9MediaSurfaceNotAcquiredKHR         Status = -1013 // CL_DX9_MEDIA_SURFACE_NOT_ACQUIRED_KHR
	DevicePartitionFailedEXT              Status = -1057 // CL_DEVICE_PARTITION_FAILED_EXT
	InvalidPartitionCountEXT              Status = -1058 // CL_INVALID_PARTITION_COUNT_EXT
	InvalidPartitionNameEXT               Status = -1059 // CL_INVALID_PARTITION_NAME_EXT
	EGLResourceNotAcquiredKHR             Status = -1092 // CL_EGL_RESOURCE_NOT_ACQUIRED_KHR
	InvalidEGLObjectKHR                   Status = -1093 // CL_INVALID_EGL_OBJECT_KHR
	InvalidAcceleratorINTEL               Status = -1094 // CL_INVALID_ACCELERATOR_INTEL
	InvalidAcceleratorTypeINTEL           Status = -1095 // CL_INVALID_ACCELERATOR_TYPE_INTEL
	InvalidAcceleratorDescriptorINTEL     Status = -1096 // CL_INVALID_ACCELERATOR_DESCRIPTOR_INTEL
	AcceleratorTypeNotSupportedINTEL      Status = -1097 // CL_ACCELERATOR_TYPE_NOT_SUPPORTED_INTEL
	InvalidVAAPIMediaAdapterINTEL         Status = -1098 // CL_INVALID_VA_API_MEDIA_ADAPTER_INTEL
	InvalidVAAPIMediaSurfaceINTEL         Status = -1099 // CL_INVALID_VA_API_MEDIA_SURFACE_INTEL
	VAAPIMediaSurfaceAlreadyAcquiredINTEL Status = -1100 // CL_VA_API_MEDIA_SURFACE_ALREADY_ACQUIRED_INTEL
	VAAPIMediaSurfaceNotAcquiredINTEL     Status = -1101 // CL_VA_API_MEDIA_SURFACE_NOT_ACQUIRED_INTEL
	CommandTerminatedItselfWithFailureARM Status = -1108 // CL_COMMAND_TERMINATED_ITSELF_WITH_FAILURE_ARM
	ContextTerminatedKHR                  Status = -1121 // CL_CONTEXT_TERMINATED_KHR
	InvalidCommandBufferKHR               Status = -1138 // CL_INVALID_COMMAND_BUFFER_KHR
	InvalidSyncPointWaitListKHR           Status = -1139 // CL_INVALID_SYNC_POINT_WAIT_LIST_KHR
	IncompatibleCommandQueueKHR           Status = -1140 // CL_INCOMPATIBLE_COMMAND_QUEUE_KHR
	InvalidMutableCommandKHR              Status = -1141 // CL_INVALID_MUTABLE_COMMAND_KHR
	InvalidSemaphoreKHR                   Status = -1142 // CL_INVALID_SEMAPHORE_KHR
)

var statusNames = map[Status]string{
	Success:                               "CL_SUCCESS",
	DeviceNotFound:                        "CL_DEVICE_NOT_FOUND",
	DeviceNotAvailable:                    "CL_DEVICE_NOT_AVAILABLE",
	CompilerNotAvailable:                  "CL_COMPILER_NOT_AVAILABLE",
	MemObjectAllocationFailure:            "CL_MEM_OBJECT_ALLOCATION_FAILURE",
	OutOfResources:                        "CL_OUT_OF_RESOURCES",
	OutOfHostMemory:                       "CL_OUT_OF_HOST_MEMORY",
	ProfilingInfoNotAvailable:             "CL_PROFILING_INFO_NOT_AVAILABLE",
	MemCopyOverlap:                        "CL_MEM_COPY_OVERLAP",
	ImageFormatMismatch:                   "CL_IMAGE_FORMAT_MISMATCH",
	ImageFormatNotSupported:               "CL_IMAGE_FORMAT_NOT_SUPPORTED",
	BuildProgramFailure:                   "CL_BUILD_PROGRAM_FAILURE",
	MapFailure:                            "CL_MAP_FAILURE",
	MisalignedSubBufferOffset:             "CL_MISALIGNED_SUB_BUFFER_OFFSET",
	ExecStatusErrorForEventsInWaitList:    "CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST",
	CompileProgramFailure:                 "CL_COMPILE_PROGRAM_FAILURE",
	LinkerNotAvailable:                    "CL_LINKER_NOT_AVAILABLE",
	LinkProgramFailure:                    "CL_LINK_PROGRAM_FAILURE",
	DevicePartitionFailed:                 "CL_DEVICE_PARTITION_FAILED",
	KernelArgInfoNotAvailable:             "CL_KERNEL_ARG_INFO_NOT_AVAILABLE",
	InvalidValue:                          "CL_INVALID_VALUE",
	InvalidDeviceType:                     "CL_INVALID_DEVICE_TYPE",
	InvalidPlatform:                       "CL_INVALID_PLATFORM",
	InvalidDevice:                         "CL_INVALID_DEVICE",
	InvalidContext:                        "CL_INVALID_CONTEXT",
	InvalidQueueProperties:                "CL_INVALID_QUEUE_PROPERTIES",
	InvalidCommandQueue:                   "CL_INVALID_COMMAND_QUEUE",
	InvalidHostPtr:                        "CL_INVALID_HOST_PTR",
	InvalidMemObject:                      "CL_INVALID_MEM_OBJECT",
	InvalidImageFormatDescriptor:          "CL_INVALID_IMAGE_FORMAT_DESCRIPTOR",
	InvalidImageSize:                      "CL_INVALID_IMAGE_SIZE",
	InvalidSampler:                        "CL_INVALID_SAMPLER",
	InvalidBinary:                         "CL_INVALID_BINARY",
	InvalidBuildOptions:                   "CL_INVALID_BUILD_OPTIONS",
	InvalidProgram:                        "CL_INVALID_PROGRAM",
	InvalidProgramExecutable:              "CL_INVALID_PROGRAM_EXECUTABLE",
	InvalidKernelName:                     "CL_INVALID_KERNEL_NAME",
	InvalidKernelDefinition:               "CL_INVALID_KERNEL_DEFINITION",
	InvalidKernel:                         "CL_INVALID_KERNEL",
	InvalidArgIndex:                       "CL_INVALID_ARG_INDEX",
	InvalidArgValue:                       "CL_INVALID_ARG_VALUE",
	InvalidArgSize:                        "CL_INVALID_ARG_SIZE",
	InvalidKernelArgs:                     "CL_INVALID_KERNEL_ARGS",
	InvalidWorkDimension:                  "CL_INVALID_WORK_DIMENSION",
	InvalidWorkGroupSize:                  "CL_INVALID_WORK_GROUP_SIZE",
	InvalidWorkItemSize:                   "CL_INVALID_WORK_ITEM_SIZE",
	InvalidGlobalOffset:                   "CL_INVALID_GLOBAL_OFFSET",
	InvalidEventWaitList:                  "CL_INVALID_EVENT_WAIT_LIST",
	InvalidEvent:                          "CL_INVALID_EVENT",
	InvalidOperation:                      "CL_INVALID_OPERATION",
	InvalidGLObject:                       "CL_INVALID_GL_OBJECT",
	InvalidBufferSize:                     "CL_INVALID_BUFFER_SIZE",
	InvalidMipLevel:                       "CL_INVALID_MIP_LEVEL",
	InvalidGlobalWorkSize:                 "CL_INVALID_GLOBAL_WORK_SIZE",
	InvalidProperty:                       "CL_INVALID_PROPERTY",
	InvalidImageDescriptor:                "CL_INVALID_IMAGE_DESCRIPTOR",
	InvalidCompilerOptions:                "CL_INVALID_COMPILER_OPTIONS",
	InvalidLinkerOptions:                  "CL_INVALID_LINKER_OPTIONS",
	InvalidDevicePartitionCount:           "CL_INVALID_DEVICE_PARTITION_COUNT",
	InvalidPipeSize:                       "CL_INVALID_PIPE_SIZE",
	InvalidDeviceQueue:                    "CL_INVALID_DEVICE_QUEUE",
	InvalidSpecID:                         "CL_INVALID_SPEC_ID",
	MaxSizeRestrictionExceeded:            "CL_MAX_SIZE_RESTRICTION_EXCEEDED",
	InvalidGLSharegroupReferenceKHR:       "CL_INVALID_GL_SHAREGROUP_REFERENCE_KHR",
	PlatformNotFoundKHR:                   "CL_PLATFORM_NOT_FOUND_KHR",
	InvalidD3D10DeviceKHR:                 "CL_INVALID_D3D10_DEVICE_KHR",
	InvalidD3D10ResourceKHR:               "CL_INVALID_D3D10_RESOURCE_KHR",
	D3D10ResourceAlreadyAcquiredKHR:       "CL_D3D10_RESOURCE_ALREADY_ACQUIRED_KHR",
	D3D10ResourceNotAcquiredKHR:           "CL_D3D10_RESOURCE_NOT_ACQUIRED_KHR",
	InvalidD3D11DeviceKHR:                 "CL_INVALID_D3D11_DEVICE_KHR",
	InvalidD3D11ResourceKHR:               "CL_INVALID_D3D11_RESOURCE_KHR",
	D3D11ResourceAlreadyAcquiredKHR:       "CL_D3D11_RESOURCE_ALREADY_ACQUIRED_KHR",
	D3D11ResourceNotAcquiredKHR:           "CL_D3D11_RESOURCE_NOT_ACQUIRED_KHR",
	InvalidDX9MediaAdapterKHR:             "CL_INVALID_DX9_MEDIA_ADAPTER_KHR",
	InvalidDX9MediaSurfaceKHR:             "CL_INVALID_DX9_MEDIA_SURFACE_KHR",
	DX9MediaSurfaceAlreadyAcquiredKHR:     "CL_DX9_MEDIA_SURFACE_ALREADY_ACQUIRED_KHR",
	DX9MediaSurfaceNotAcquiredKHR:         "CL_DX9_MEDIA_SURFACE_NOT_ACQUIRED_KHR",
	DevicePartitionFailedEXT:              "CL_DEVICE_PARTITION_FAILED_EXT",
	InvalidPartitionCountEXT:              "CL_INVALID_PARTITION_COUNT_EXT",
	InvalidPartitionNameEXT:               "CL_INVALID_PARTITION_NAME_EXT",
	EGLResourceNotAcquiredKHR:             "CL_EGL_RESOURCE_NOT_ACQUIRED_KHR",
	InvalidEGLObjectKHR:                   "CL_INVALID_EGL_OBJECT_KHR",
	InvalidAcceleratorINTEL:               "CL_INVALID_ACCELERATOR_INTEL",
	InvalidAcceleratorTypeINTEL:           "CL_INVALID_ACCELERATOR_TYPE_INTEL",
	InvalidAcceleratorDescriptorINTEL:     "CL_INVALID_ACCELERATOR_DESCRIPTOR_INTEL",
	AcceleratorTypeNotSupportedINTEL:      "CL_ACCELERATOR_TYPE_NOT_SUPPORTED_INTEL",
	InvalidVAAPIMediaAdapterINTEL:         "CL_INVALID_VA_API_MEDIA_ADAPTER_INTEL",
	InvalidVAAPIMediaSurfaceINTEL:         "CL_INVALID_VA_API_MEDIA_SURFACE_INTEL",
	VAAPIMediaSurfaceAlreadyAcquiredINTEL: "CL_VA_API_MEDIA_SURFACE_ALREADY_ACQUIRED_INTEL",
	VAAPIMediaSurfaceNotAcquiredINTEL:     "CL_VA_API_MEDIA_SURFACE_NOT_ACQUIRED_INTEL",
	CommandTerminatedItselfWithFailureARM: "CL_COMMAND_TERMINATED_ITSELF_WITH_FAILURE_ARM",
	ContextTerminatedKHR:                  "CL_CONTEXT_TERMINATED_KHR",
	InvalidCommandBufferKHR:               "CL_INVALID_COMMAND_BUFFER_KHR",
	InvalidSyncPointWaitListKHR:           "CL_INVALID_SYNC_POINT_WAIT_LIST_KHR",
	IncompatibleCommandQueueKHR:           "CL_INCOMPATIBLE_COMMAND_QUEUE_KHR",
	InvalidMutableCommandKHR:              "CL_INVALID_MUTABLE_COMMAND_KHR",
	InvalidSemaphoreKHR:                   "CL_INVALID_SEMAPHORE_KHR",
}
