package ze

import "fmt"

// Result is ze_result_t.
type Result uint32

// Result codes, as in ze_api.h (1.8 loader, spec 1.4), plus
// ZE_RESULT_ERROR_INVALID_KERNEL_HANDLE of later specs.
const (
	Success                          Result = 0
	NotReady                         Result = 1
	ErrorDeviceLost                  Result = 0x70000001
	ErrorOutOfHostMemory             Result = 0x70000002
	ErrorOutOfDeviceMemory           Result = 0x70000003
	ErrorModuleBuildFailure          Result = 0x70000004
	ErrorModuleLinkFailure           Result = 0x70000005
	ErrorDeviceRequiresReset         Result = 0x70000006
	ErrorDeviceInLowPowerState       Result = 0x70000007
	ExpErrorDeviceIsNotVertex        Result = 0x7ff00001
	ExpErrorVertexIsNotDevice        Result = 0x7ff00002
	ExpErrorRemoteDevice             Result = 0x7ff00003
	ErrorInsufficientPermissions     Result = 0x70010000
	ErrorNotAvailable                Result = 0x70010001
	ErrorDependencyUnavailable       Result = 0x70020000
	WarningDroppedData               Result = 0x70020001
	ErrorUninitialized               Result = 0x78000001
	ErrorUnsupportedVersion          Result = 0x78000002
	ErrorUnsupportedFeature          Result = 0x78000003
	ErrorInvalidArgument             Result = 0x78000004
	ErrorInvalidNullHandle           Result = 0x78000005
	ErrorHandleObjectInUse           Result = 0x78000006
	ErrorInvalidNullPointer          Result = 0x78000007
	ErrorInvalidSize                 Result = 0x78000008
	ErrorUnsupportedSize             Result = 0x78000009
	ErrorUnsupportedAlignment        Result = 0x7800000a
	ErrorInvalidSynchronizationObj   Result = 0x7800000b
	ErrorInvalidEnumeration          Result = 0x7800000c
	ErrorUnsupportedEnumeration      Result = 0x7800000d
	ErrorUnsupportedImageFormat      Result = 0x7800000e
	ErrorInvalidNativeBinary         Result = 0x7800000f
	ErrorInvalidGlobalName           Result = 0x78000010
	ErrorInvalidKernelName           Result = 0x78000011
	ErrorInvalidFunctionName         Result = 0x78000012
	ErrorInvalidGroupSizeDimension   Result = 0x78000013
	ErrorInvalidGlobalWidthDimension Result = 0x78000014
	ErrorInvalidKernelArgumentIndex  Result = 0x78000015
	ErrorInvalidKernelArgumentSize   Result = 0x78000016
	ErrorInvalidKernelAttributeValue Result = 0x78000017
	ErrorInvalidModuleUnlinked       Result = 0x78000018
	ErrorInvalidCommandListType      Result = 0x78000019
	ErrorOverlappingRegions          Result = 0x7800001a
	WarningActionRequired            Result = 0x7800001b
	ErrorInvalidKernelHandle         Result = 0x7800001c // spec 1.10+
	ErrorUnknown                     Result = 0x7ffffffe

	// NotSupported is ErrorUnsupportedFeature, returned without a C call
	// for an optional entry point the loader does not export.
	NotSupported = ErrorUnsupportedFeature
)

var resultNames = map[Result]string{
	Success:                          "ZE_RESULT_SUCCESS",
	NotReady:                         "ZE_RESULT_NOT_READY",
	ErrorDeviceLost:                  "ZE_RESULT_ERROR_DEVICE_LOST",
	ErrorOutOfHostMemory:             "ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY",
	ErrorOutOfDeviceMemory:           "ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY",
	ErrorModuleBuildFailure:          "ZE_RESULT_ERROR_MODULE_BUILD_FAILURE",
	ErrorModuleLinkFailure:           "ZE_RESULT_ERROR_MODULE_LINK_FAILURE",
	ErrorDeviceRequiresReset:         "ZE_RESULT_ERROR_DEVICE_REQUIRES_RESET",
	ErrorDeviceInLowPowerState:       "ZE_RESULT_ERROR_DEVICE_IN_LOW_POWER_STATE",
	ExpErrorDeviceIsNotVertex:        "ZE_RESULT_EXP_ERROR_DEVICE_IS_NOT_VERTEX",
	ExpErrorVertexIsNotDevice:        "ZE_RESULT_EXP_ERROR_VERTEX_IS_NOT_DEVICE",
	ExpErrorRemoteDevice:             "ZE_RESULT_EXP_ERROR_REMOTE_DEVICE",
	ErrorInsufficientPermissions:     "ZE_RESULT_ERROR_INSUFFICIENT_PERMISSIONS",
	ErrorNotAvailable:                "ZE_RESULT_ERROR_NOT_AVAILABLE",
	ErrorDependencyUnavailable:       "ZE_RESULT_ERROR_DEPENDENCY_UNAVAILABLE",
	WarningDroppedData:               "ZE_RESULT_WARNING_DROPPED_DATA",
	ErrorUninitialized:               "ZE_RESULT_ERROR_UNINITIALIZED",
	ErrorUnsupportedVersion:          "ZE_RESULT_ERROR_UNSUPPORTED_VERSION",
	ErrorUnsupportedFeature:          "ZE_RESULT_ERROR_UNSUPPORTED_FEATURE",
	ErrorInvalidArgument:             "ZE_RESULT_ERROR_INVALID_ARGUMENT",
	ErrorInvalidNullHandle:           "ZE_RESULT_ERROR_INVALID_NULL_HANDLE",
	ErrorHandleObjectInUse:           "ZE_RESULT_ERROR_HANDLE_OBJECT_IN_USE",
	ErrorInvalidNullPointer:          "ZE_RESULT_ERROR_INVALID_NULL_POINTER",
	ErrorInvalidSize:                 "ZE_RESULT_ERROR_INVALID_SIZE",
	ErrorUnsupportedSize:             "ZE_RESULT_ERROR_UNSUPPORTED_SIZE",
	ErrorUnsupportedAlignment:        "ZE_RESULT_ERROR_UNSUPPORTED_ALIGNMENT",
	ErrorInvalidSynchronizationObj:   "ZE_RESULT_ERROR_INVALID_SYNCHRONIZATION_OBJECT",
	ErrorInvalidEnumeration:          "ZE_RESULT_ERROR_INVALID_ENUMERATION",
	ErrorUnsupportedEnumeration:      "ZE_RESULT_ERROR_UNSUPPORTED_ENUMERATION",
	ErrorUnsupportedImageFormat:      "ZE_RESULT_ERROR_UNSUPPORTED_IMAGE_FORMAT",
	ErrorInvalidNativeBinary:         "ZE_RESULT_ERROR_INVALID_NATIVE_BINARY",
	ErrorInvalidGlobalName:           "ZE_RESULT_ERROR_INVALID_GLOBAL_NAME",
	ErrorInvalidKernelName:           "ZE_RESULT_ERROR_INVALID_KERNEL_NAME",
	ErrorInvalidFunctionName:         "ZE_RESULT_ERROR_INVALID_FUNCTION_NAME",
	ErrorInvalidGroupSizeDimension:   "ZE_RESULT_ERROR_INVALID_GROUP_SIZE_DIMENSION",
	ErrorInvalidGlobalWidthDimension: "ZE_RESULT_ERROR_INVALID_GLOBAL_WIDTH_DIMENSION",
	ErrorInvalidKernelArgumentIndex:  "ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_INDEX",
	ErrorInvalidKernelArgumentSize:   "ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_SIZE",
	ErrorInvalidKernelAttributeValue: "ZE_RESULT_ERROR_INVALID_KERNEL_ATTRIBUTE_VALUE",
	ErrorInvalidModuleUnlinked:       "ZE_RESULT_ERROR_INVALID_MODULE_UNLINKED",
	ErrorInvalidCommandListType:      "ZE_RESULT_ERROR_INVALID_COMMAND_LIST_TYPE",
	ErrorOverlappingRegions:          "ZE_RESULT_ERROR_OVERLAPPING_REGIONS",
	WarningActionRequired:            "ZE_RESULT_WARNING_ACTION_REQUIRED",
	ErrorInvalidKernelHandle:         "ZE_RESULT_ERROR_INVALID_KERNEL_HANDLE",
	ErrorUnknown:                     "ZE_RESULT_ERROR_UNKNOWN",
}

// Name returns the C name, e.g. "ZE_RESULT_ERROR_UNINITIALIZED", or
// "ze_result_t(0x...)" for a code ze_api.h does not define.
func (r Result) Name() string {
	if n, ok := resultNames[r]; ok {
		return n
	}
	return fmt.Sprintf("ze_result_t(%#x)", uint32(r))
}

// String is Name followed by the code in hexadecimal, as the Level Zero
// documentation writes codes.
func (r Result) String() string { return fmt.Sprintf("%s (%#x)", r.Name(), uint32(r)) }
