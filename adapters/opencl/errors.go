package opencl

import (
	"github.com/gour-dev/gour/adapters/opencl/internal/cl"
	"github.com/gour-dev/gour/ur/driver"
)

// resultOf maps an OpenCL status to the Unified Runtime code the UR's own
// OpenCL adapter reports for it.
func resultOf(s cl.Status) driver.Result {
	switch s {
	case cl.Success:
		return driver.ResultSuccess
	case cl.DeviceNotFound, cl.PlatformNotFoundKHR:
		return driver.ResultDeviceNotFound
	case cl.DeviceNotAvailable:
		return driver.ResultDeviceNotAvailable
	case cl.CompilerNotAvailable, cl.LinkerNotAvailable:
		return driver.ResultCompilerNotAvailable
	case cl.MemObjectAllocationFailure:
		return driver.ResultOutOfDeviceMemory
	case cl.OutOfResources:
		return driver.ResultOutOfResources
	case cl.OutOfHostMemory:
		return driver.ResultOutOfHostMemory
	case cl.ProfilingInfoNotAvailable:
		return driver.ResultProfilingInfoNotAvailable
	case cl.BuildProgramFailure, cl.CompileProgramFailure, cl.InvalidBuildOptions, cl.InvalidCompilerOptions:
		return driver.ResultProgramBuildFailure
	case cl.LinkProgramFailure, cl.InvalidLinkerOptions:
		return driver.ResultProgramLinkFailure
	case cl.ExecStatusErrorForEventsInWaitList:
		return driver.ResultInEventListExecStatus
	case cl.MisalignedSubBufferOffset:
		return driver.ResultMisalignedSubBufferOffset
	case cl.InvalidValue, cl.InvalidDeviceType, cl.InvalidArgValue, cl.InvalidGlobalOffset, cl.InvalidProperty:
		return driver.ResultInvalidValue
	case cl.InvalidPlatform:
		return driver.ResultInvalidPlatform
	case cl.InvalidDevice:
		return driver.ResultInvalidDevice
	case cl.InvalidContext:
		return driver.ResultInvalidContext
	case cl.InvalidQueueProperties:
		return driver.ResultInvalidQueueProperties
	case cl.InvalidCommandQueue:
		return driver.ResultInvalidQueue
	case cl.InvalidHostPtr:
		return driver.ResultInvalidHostPtr
	case cl.InvalidMemObject:
		return driver.ResultInvalidMemObject
	case cl.InvalidBinary:
		return driver.ResultInvalidBinary
	case cl.InvalidProgram:
		return driver.ResultInvalidProgram
	case cl.InvalidProgramExecutable:
		return driver.ResultInvalidProgramExecutable
	case cl.InvalidKernelName:
		return driver.ResultInvalidKernelName
	case cl.InvalidKernelDefinition, cl.InvalidKernel:
		return driver.ResultInvalidKernel
	case cl.InvalidArgIndex:
		return driver.ResultInvalidKernelArgumentIndex
	case cl.InvalidArgSize:
		return driver.ResultInvalidKernelArgumentSize
	case cl.InvalidKernelArgs:
		return driver.ResultInvalidKernelArgs
	case cl.InvalidWorkDimension:
		return driver.ResultInvalidWorkDimension
	case cl.InvalidWorkGroupSize:
		return driver.ResultInvalidWorkGroupSize
	case cl.InvalidWorkItemSize:
		return driver.ResultInvalidWorkItemSize
	case cl.InvalidEventWaitList:
		return driver.ResultInvalidEventWaitList
	case cl.InvalidEvent:
		return driver.ResultInvalidEvent
	case cl.InvalidOperation:
		return driver.ResultInvalidOperation
	case cl.InvalidBufferSize:
		return driver.ResultInvalidBufferSize
	case cl.InvalidGlobalWorkSize:
		return driver.ResultInvalidGlobalWidthDimension
	case cl.InvalidSpecID:
		return driver.ResultInvalidSpecID
	}
	return driver.ResultUnknown
}

// check turns a failing code of the call fn into a driver error; it
// allocates nothing on success.
func check(fn string, s cl.Status) error { return driver.Check(fn, s, resultOf) }

func statusError(fn string, s cl.Status) *driver.Error { return driver.Failure(fn, s, resultOf) }
