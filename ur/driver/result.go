package driver

import "strconv"

// Result is a Unified Runtime result code. The names and numbers are those
// of ur_result_t in the Unified Runtime's ur_api.h, so that logs compare
// with the C runtime's.
type Result int32

// Result codes, numbered as in ur_api.h.
const (
	ResultSuccess                      Result = 0
	ResultInvalidOperation             Result = 1
	ResultInvalidQueueProperties       Result = 2
	ResultInvalidQueue                 Result = 3
	ResultInvalidValue                 Result = 4
	ResultInvalidContext               Result = 5
	ResultInvalidPlatform              Result = 6
	ResultInvalidBinary                Result = 7
	ResultInvalidProgram               Result = 8
	ResultInvalidSampler               Result = 9
	ResultInvalidBufferSize            Result = 10
	ResultInvalidMemObject             Result = 11
	ResultInvalidEvent                 Result = 12
	ResultInvalidEventWaitList         Result = 13
	ResultMisalignedSubBufferOffset    Result = 14
	ResultInvalidWorkGroupSize         Result = 15
	ResultCompilerNotAvailable         Result = 16
	ResultProfilingInfoNotAvailable    Result = 17
	ResultDeviceNotFound               Result = 18
	ResultInvalidDevice                Result = 19
	ResultDeviceLost                   Result = 20
	ResultDeviceRequiresReset          Result = 21
	ResultDeviceInLowPowerState        Result = 22
	ResultDevicePartitionFailed        Result = 23
	ResultInvalidDevicePartitionCount  Result = 24
	ResultInvalidWorkItemSize          Result = 25
	ResultInvalidWorkDimension         Result = 26
	ResultInvalidKernelArgs            Result = 27
	ResultInvalidKernel                Result = 28
	ResultInvalidKernelName            Result = 29
	ResultInvalidKernelArgumentIndex   Result = 30
	ResultInvalidKernelArgumentSize    Result = 31
	ResultInvalidKernelAttributeValue  Result = 32
	ResultInvalidImageSize             Result = 33
	ResultInvalidImageFormatDescriptor Result = 34
	ResultMemObjectAllocationFailure   Result = 35
	ResultInvalidProgramExecutable     Result = 36
	ResultUninitialized                Result = 37
	ResultOutOfHostMemory              Result = 38
	ResultOutOfDeviceMemory            Result = 39
	ResultOutOfResources               Result = 40
	ResultProgramBuildFailure          Result = 41
	ResultProgramLinkFailure           Result = 42
	ResultUnsupportedVersion           Result = 43
	ResultUnsupportedFeature           Result = 44
	ResultInvalidArgument              Result = 45
	ResultInvalidNullHandle            Result = 46
	ResultHandleObjectInUse            Result = 47
	ResultInvalidNullPointer           Result = 48
	ResultInvalidSize                  Result = 49
	ResultUnsupportedSize              Result = 50
	ResultUnsupportedAlignment         Result = 51
	ResultInvalidSynchronizationObject Result = 52
	ResultInvalidEnumeration           Result = 53
	ResultUnsupportedEnumeration       Result = 54
	ResultUnsupportedImageFormat       Result = 55
	ResultInvalidNativeBinary          Result = 56
	ResultInvalidGlobalName            Result = 57
	ResultFunctionAddressNotAvailable  Result = 58
	ResultInvalidGroupSizeDimension    Result = 59
	ResultInvalidGlobalWidthDimension  Result = 60
	ResultProgramUnlinked              Result = 61
	ResultOverlappingRegions           Result = 62
	ResultInvalidHostPtr               Result = 63
	ResultInvalidUSMSize               Result = 64
	ResultObjectAllocationFailure      Result = 65
	ResultAdapterSpecific              Result = 66
	ResultLayerNotPresent              Result = 67
	ResultInEventListExecStatus        Result = 68
	ResultDeviceNotAvailable           Result = 69
	ResultInvalidSpecID                Result = 70
	ResultUnknown                      Result = 0x7ffffffe
)

var resultNames = [...]string{
	"", "INVALID_OPERATION", "INVALID_QUEUE_PROPERTIES", "INVALID_QUEUE", "INVALID_VALUE",
	"INVALID_CONTEXT", "INVALID_PLATFORM", "INVALID_BINARY", "INVALID_PROGRAM", "INVALID_SAMPLER",
	"INVALID_BUFFER_SIZE", "INVALID_MEM_OBJECT", "INVALID_EVENT", "INVALID_EVENT_WAIT_LIST",
	"MISALIGNED_SUB_BUFFER_OFFSET", "INVALID_WORK_GROUP_SIZE", "COMPILER_NOT_AVAILABLE",
	"PROFILING_INFO_NOT_AVAILABLE", "DEVICE_NOT_FOUND", "INVALID_DEVICE", "DEVICE_LOST",
	"DEVICE_REQUIRES_RESET", "DEVICE_IN_LOW_POWER_STATE", "DEVICE_PARTITION_FAILED",
	"INVALID_DEVICE_PARTITION_COUNT", "INVALID_WORK_ITEM_SIZE", "INVALID_WORK_DIMENSION",
	"INVALID_KERNEL_ARGS", "INVALID_KERNEL", "INVALID_KERNEL_NAME", "INVALID_KERNEL_ARGUMENT_INDEX",
	"INVALID_KERNEL_ARGUMENT_SIZE", "INVALID_KERNEL_ATTRIBUTE_VALUE", "INVALID_IMAGE_SIZE",
	"INVALID_IMAGE_FORMAT_DESCRIPTOR", "MEM_OBJECT_ALLOCATION_FAILURE", "INVALID_PROGRAM_EXECUTABLE",
	"UNINITIALIZED", "OUT_OF_HOST_MEMORY", "OUT_OF_DEVICE_MEMORY", "OUT_OF_RESOURCES",
	"PROGRAM_BUILD_FAILURE", "PROGRAM_LINK_FAILURE", "UNSUPPORTED_VERSION", "UNSUPPORTED_FEATURE",
	"INVALID_ARGUMENT", "INVALID_NULL_HANDLE", "HANDLE_OBJECT_IN_USE", "INVALID_NULL_POINTER",
	"INVALID_SIZE", "UNSUPPORTED_SIZE", "UNSUPPORTED_ALIGNMENT", "INVALID_SYNCHRONIZATION_OBJECT",
	"INVALID_ENUMERATION", "UNSUPPORTED_ENUMERATION", "UNSUPPORTED_IMAGE_FORMAT",
	"INVALID_NATIVE_BINARY", "INVALID_GLOBAL_NAME", "FUNCTION_ADDRESS_NOT_AVAILABLE",
	"INVALID_GROUP_SIZE_DIMENSION", "INVALID_GLOBAL_WIDTH_DIMENSION", "PROGRAM_UNLINKED",
	"OVERLAPPING_REGIONS", "INVALID_HOST_PTR", "INVALID_USM_SIZE", "OBJECT_ALLOCATION_FAILURE",
	"ADAPTER_SPECIFIC", "LAYER_NOT_PRESENT", "IN_EVENT_LIST_EXEC_STATUS", "DEVICE_NOT_AVAILABLE",
	"INVALID_SPEC_ID",
}

// String returns the C name, e.g. "UR_RESULT_ERROR_INVALID_KERNEL_NAME".
func (r Result) String() string {
	switch {
	case r == ResultSuccess:
		return "UR_RESULT_SUCCESS"
	case r == ResultUnknown:
		return "UR_RESULT_ERROR_UNKNOWN"
	case r > 0 && int(r) < len(resultNames):
		return "UR_RESULT_ERROR_" + resultNames[r]
	}
	return "UR_RESULT(" + strconv.Itoa(int(r)) + ")"
}

// Error makes a Result usable as a sentinel error: errors.Is(err, code)
// holds for any gour error that carries that code.
func (r Result) Error() string { return r.String() }
