package nvjitlink

import "strconv"

// Handle is an nvJitLinkHandle, an opaque linker instance.
type Handle uintptr

// Result is an nvJitLinkResult: Success or an error code.
type Result int32

// Name returns the C name of the code, such as "NVJITLINK_ERROR_PTX_COMPILE",
// or "NVJITLINK_ERROR(n)" for a code this package does not know.
func (r Result) Name() string {
	if n, ok := resultNames[r]; ok {
		return n
	}
	return "NVJITLINK_ERROR(" + strconv.Itoa(int(r)) + ")"
}

// String returns Name, so that %v prints the C name.
func (r Result) String() string { return r.Name() }

// Result codes (nvJitLinkResult in nvJitLink.h). 0-9 checked against the
// CUDA 12.6 header, whose NEW_ERROR_CODES block lists 10-15 in this order;
// 10-18 as numbered in later headers (CUDA 12.8+).
const (
	Success             Result = 0  // NVJITLINK_SUCCESS
	UnrecognizedOption  Result = 1  // NVJITLINK_ERROR_UNRECOGNIZED_OPTION
	MissingArch         Result = 2  // NVJITLINK_ERROR_MISSING_ARCH (no -arch=sm_NN)
	InvalidInput        Result = 3  // NVJITLINK_ERROR_INVALID_INPUT
	PTXCompile          Result = 4  // NVJITLINK_ERROR_PTX_COMPILE
	NVVMCompile         Result = 5  // NVJITLINK_ERROR_NVVM_COMPILE
	Internal            Result = 6  // NVJITLINK_ERROR_INTERNAL
	Threadpool          Result = 7  // NVJITLINK_ERROR_THREADPOOL
	UnrecognizedInput   Result = 8  // NVJITLINK_ERROR_UNRECOGNIZED_INPUT
	Finalize            Result = 9  // NVJITLINK_ERROR_FINALIZE
	NullInput           Result = 10 // NVJITLINK_ERROR_NULL_INPUT
	IncompatibleOptions Result = 11 // NVJITLINK_ERROR_INCOMPATIBLE_OPTIONS
	IncorrectInputType  Result = 12 // NVJITLINK_ERROR_INCORRECT_INPUT_TYPE
	ArchMismatch        Result = 13 // NVJITLINK_ERROR_ARCH_MISMATCH
	OutdatedLibrary     Result = 14 // NVJITLINK_ERROR_OUTDATED_LIBRARY
	MissingFatbin       Result = 15 // NVJITLINK_ERROR_MISSING_FATBIN
	UnrecognizedArch    Result = 16 // NVJITLINK_ERROR_UNRECOGNIZED_ARCH
	UnsupportedArch     Result = 17 // NVJITLINK_ERROR_UNSUPPORTED_ARCH
	LTONotEnabled       Result = 18 // NVJITLINK_ERROR_LTO_NOT_ENABLED
	EntryPointMissing   Result = -1 // not an nvJitLink code: the library lacks an optional entry point
)

var resultNames = map[Result]string{
	Success:             "NVJITLINK_SUCCESS",
	UnrecognizedOption:  "NVJITLINK_ERROR_UNRECOGNIZED_OPTION",
	MissingArch:         "NVJITLINK_ERROR_MISSING_ARCH",
	InvalidInput:        "NVJITLINK_ERROR_INVALID_INPUT",
	PTXCompile:          "NVJITLINK_ERROR_PTX_COMPILE",
	NVVMCompile:         "NVJITLINK_ERROR_NVVM_COMPILE",
	Internal:            "NVJITLINK_ERROR_INTERNAL",
	Threadpool:          "NVJITLINK_ERROR_THREADPOOL",
	UnrecognizedInput:   "NVJITLINK_ERROR_UNRECOGNIZED_INPUT",
	Finalize:            "NVJITLINK_ERROR_FINALIZE",
	NullInput:           "NVJITLINK_ERROR_NULL_INPUT",
	IncompatibleOptions: "NVJITLINK_ERROR_INCOMPATIBLE_OPTIONS",
	IncorrectInputType:  "NVJITLINK_ERROR_INCORRECT_INPUT_TYPE",
	ArchMismatch:        "NVJITLINK_ERROR_ARCH_MISMATCH",
	OutdatedLibrary:     "NVJITLINK_ERROR_OUTDATED_LIBRARY",
	MissingFatbin:       "NVJITLINK_ERROR_MISSING_FATBIN",
	UnrecognizedArch:    "NVJITLINK_ERROR_UNRECOGNIZED_ARCH",
	UnsupportedArch:     "NVJITLINK_ERROR_UNSUPPORTED_ARCH",
	LTONotEnabled:       "NVJITLINK_ERROR_LTO_NOT_ENABLED",
	EntryPointMissing:   "NVJITLINK_ENTRY_POINT_MISSING",
}

// InputType is an nvJitLinkInputType, the kind of an input to AddData.
type InputType int32

// Input types (nvJitLinkInputType), checked against the CUDA 12.6 header.
const (
	InputNone    InputType = 0  // NVJITLINK_INPUT_NONE (an error)
	InputCUBIN   InputType = 1  // NVJITLINK_INPUT_CUBIN
	InputPTX     InputType = 2  // NVJITLINK_INPUT_PTX
	InputLTOIR   InputType = 3  // NVJITLINK_INPUT_LTOIR
	InputFatbin  InputType = 4  // NVJITLINK_INPUT_FATBIN
	InputObject  InputType = 5  // NVJITLINK_INPUT_OBJECT
	InputLibrary InputType = 6  // NVJITLINK_INPUT_LIBRARY
	InputIndex   InputType = 7  // NVJITLINK_INPUT_INDEX
	InputAny     InputType = 10 // NVJITLINK_INPUT_ANY (type found from the data)
)

// Error is a failed nvJitLink call of LinkPTX, with the linker's log.
type Error struct {
	Op     string // the C function that failed, such as "nvJitLinkComplete"
	Result Result
	Log    string // the error log, when there is one
}

func (e *Error) Error() string {
	s := "nvjitlink: " + e.Op + ": " + e.Result.Name()
	if e.Log != "" {
		s += "\n" + e.Log
	}
	return s
}
