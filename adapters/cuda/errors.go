package cuda

import (
	"github.com/gour-dev/gour/adapters/cuda/internal/cu"
	"github.com/gour-dev/gour/ur/driver"
)

// resultOf maps a CUresult to the Unified Runtime code the UR's own CUDA
// adapter reports for it.
func resultOf(r cu.Result) driver.Result {
	switch r {
	case cu.Success:
		return driver.ResultSuccess
	case cu.InvalidValue:
		return driver.ResultInvalidValue
	case cu.OutOfMemory:
		return driver.ResultOutOfDeviceMemory
	case cu.NotInitialized, cu.Deinitialized:
		return driver.ResultUninitialized
	case cu.NoDevice:
		return driver.ResultDeviceNotFound
	case cu.InvalidDevice:
		return driver.ResultInvalidDevice
	case cu.InvalidImage, cu.NoBinaryForGPU:
		return driver.ResultInvalidBinary
	case cu.InvalidContext:
		return driver.ResultInvalidContext
	case cu.InvalidPTX, cu.UnsupportedPTXVersion, cu.InvalidSource:
		return driver.ResultProgramBuildFailure
	case cu.InvalidHandle:
		return driver.ResultInvalidValue
	case cu.NotFound:
		return driver.ResultInvalidKernelName
	case cu.LaunchOutOfResources:
		return driver.ResultOutOfResources
	case cu.IllegalAddress, cu.LaunchFailed, cu.LaunchTimeout, cu.Assert, cu.HardwareStackError,
		cu.IllegalInstruction, cu.MisalignedAddress, cu.InvalidAddressSpace, cu.InvalidPC,
		cu.ECCUncorrectable, cu.NVLinkUncorrectable:
		// The sticky errors: CUDA's documentation says of each that the
		// context "cannot be used" after it and every later call returns
		// it; the process must end for the device to be used again.
		return driver.ResultDeviceLost
	case cu.NotSupported:
		return driver.ResultUnsupportedFeature
	}
	return driver.ResultUnknown
}

// check turns a failing code of the call fn into a driver error; it
// allocates nothing on success.
func check(fn string, r cu.Result) error { return driver.Check(fn, r, resultOf) }

func cuError(fn string, r cu.Result) *driver.Error { return driver.Failure(fn, r, resultOf) }
