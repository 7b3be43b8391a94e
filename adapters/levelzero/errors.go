package levelzero

import (
	"github.com/gour-dev/gour/adapters/levelzero/internal/ze"
	"github.com/gour-dev/gour/ur/driver"
)

// resultOf maps a ze_result_t to the Unified Runtime code.
func resultOf(r ze.Result) driver.Result {
	switch r {
	case ze.Success:
		return driver.ResultSuccess
	case ze.ErrorDeviceLost:
		return driver.ResultDeviceLost
	case ze.ErrorOutOfHostMemory:
		return driver.ResultOutOfHostMemory
	case ze.ErrorOutOfDeviceMemory:
		return driver.ResultOutOfDeviceMemory
	case ze.ErrorModuleBuildFailure:
		return driver.ResultProgramBuildFailure
	case ze.ErrorModuleLinkFailure:
		return driver.ResultProgramLinkFailure
	case ze.ErrorDeviceRequiresReset:
		return driver.ResultDeviceRequiresReset
	case ze.ErrorDeviceInLowPowerState:
		return driver.ResultDeviceInLowPowerState
	case ze.ErrorInsufficientPermissions:
		return driver.ResultInvalidOperation
	case ze.ErrorNotAvailable, ze.ErrorDependencyUnavailable:
		return driver.ResultDeviceNotAvailable
	case ze.ErrorUninitialized:
		return driver.ResultUninitialized
	case ze.ErrorUnsupportedVersion:
		return driver.ResultUnsupportedVersion
	case ze.ErrorUnsupportedFeature:
		return driver.ResultUnsupportedFeature
	case ze.ErrorInvalidArgument:
		return driver.ResultInvalidArgument
	case ze.ErrorInvalidNullHandle, ze.ErrorInvalidKernelHandle:
		return driver.ResultInvalidNullHandle
	case ze.ErrorHandleObjectInUse:
		return driver.ResultHandleObjectInUse
	case ze.ErrorInvalidNullPointer:
		return driver.ResultInvalidNullPointer
	case ze.ErrorInvalidSize:
		return driver.ResultInvalidSize
	case ze.ErrorUnsupportedSize:
		return driver.ResultUnsupportedSize
	case ze.ErrorUnsupportedAlignment:
		return driver.ResultUnsupportedAlignment
	case ze.ErrorInvalidSynchronizationObj:
		return driver.ResultInvalidSynchronizationObject
	case ze.ErrorInvalidEnumeration:
		return driver.ResultInvalidEnumeration
	case ze.ErrorUnsupportedEnumeration:
		return driver.ResultUnsupportedEnumeration
	case ze.ErrorUnsupportedImageFormat:
		return driver.ResultUnsupportedImageFormat
	case ze.ErrorInvalidNativeBinary:
		return driver.ResultInvalidBinary
	case ze.ErrorInvalidGlobalName:
		return driver.ResultInvalidGlobalName
	case ze.ErrorInvalidKernelName:
		return driver.ResultInvalidKernelName
	case ze.ErrorInvalidFunctionName:
		return driver.ResultFunctionAddressNotAvailable
	case ze.ErrorInvalidGroupSizeDimension:
		return driver.ResultInvalidWorkGroupSize
	case ze.ErrorInvalidGlobalWidthDimension:
		return driver.ResultInvalidGlobalWidthDimension
	case ze.ErrorInvalidKernelArgumentIndex:
		return driver.ResultInvalidKernelArgumentIndex
	case ze.ErrorInvalidKernelArgumentSize:
		return driver.ResultInvalidKernelArgumentSize
	case ze.ErrorInvalidKernelAttributeValue:
		return driver.ResultInvalidKernelAttributeValue
	case ze.ErrorInvalidModuleUnlinked:
		return driver.ResultProgramUnlinked
	case ze.ErrorInvalidCommandListType:
		return driver.ResultInvalidQueue
	case ze.ErrorOverlappingRegions:
		return driver.ResultOverlappingRegions
	}
	return driver.ResultUnknown
}

// check turns a failing code of the call fn into a driver error; it
// allocates nothing on success.
func check(fn string, r ze.Result) error { return driver.Check(fn, r, resultOf) }

func zeError(fn string, r ze.Result) *driver.Error { return driver.Failure(fn, r, resultOf) }
