package nvrtc

import "strconv"

// Program is an nvrtcProgram, an opaque handle owned by NVRTC.
type Program uintptr

// Result is an nvrtcResult: Success or an error code.
type Result int32

// Name returns the C name of the code, such as "NVRTC_ERROR_COMPILATION",
// or "NVRTC_ERROR(n)" for a code this package does not know.
func (r Result) Name() string {
	if n, ok := resultNames[r]; ok {
		return n
	}
	return "NVRTC_ERROR(" + strconv.Itoa(int(r)) + ")"
}

// String returns Name, so that %v prints the C name.
func (r Result) String() string { return r.Name() }

// Result codes (nvrtcResult in nvrtc.h). Values 0-12 checked against the
// CUDA 12.6 nvrtc.h; 13-16 (precompiled headers, cancellation) come from
// the CUDA 12.8 header.
const (
	Success                           Result = 0  // NVRTC_SUCCESS
	OutOfMemory                       Result = 1  // NVRTC_ERROR_OUT_OF_MEMORY
	ProgramCreationFailure            Result = 2  // NVRTC_ERROR_PROGRAM_CREATION_FAILURE
	InvalidInput                      Result = 3  // NVRTC_ERROR_INVALID_INPUT
	InvalidProgram                    Result = 4  // NVRTC_ERROR_INVALID_PROGRAM
	InvalidOption                     Result = 5  // NVRTC_ERROR_INVALID_OPTION
	Compilation                       Result = 6  // NVRTC_ERROR_COMPILATION
	BuiltinOperationFailure           Result = 7  // NVRTC_ERROR_BUILTIN_OPERATION_FAILURE
	NoNameExpressionsAfterCompilation Result = 8  // NVRTC_ERROR_NO_NAME_EXPRESSIONS_AFTER_COMPILATION
	NoLoweredNamesBeforeCompilation   Result = 9  // NVRTC_ERROR_NO_LOWERED_NAMES_BEFORE_COMPILATION
	NameExpressionNotValid            Result = 10 // NVRTC_ERROR_NAME_EXPRESSION_NOT_VALID
	InternalError                     Result = 11 // NVRTC_ERROR_INTERNAL_ERROR
	TimeFileWriteFailed               Result = 12 // NVRTC_ERROR_TIME_FILE_WRITE_FAILED
	NoPCHCreateAttempted              Result = 13 // NVRTC_ERROR_NO_PCH_CREATE_ATTEMPTED
	PCHCreateHeapExhausted            Result = 14 // NVRTC_ERROR_PCH_CREATE_HEAP_EXHAUSTED
	PCHCreate                         Result = 15 // NVRTC_ERROR_PCH_CREATE
	Cancelled                         Result = 16 // NVRTC_ERROR_CANCELLED
	EntryPointMissing                 Result = -1 // not an NVRTC code: the library lacks an optional entry point
)

var resultNames = map[Result]string{
	Success:                           "NVRTC_SUCCESS",
	OutOfMemory:                       "NVRTC_ERROR_OUT_OF_MEMORY",
	ProgramCreationFailure:            "NVRTC_ERROR_PROGRAM_CREATION_FAILURE",
	InvalidInput:                      "NVRTC_ERROR_INVALID_INPUT",
	InvalidProgram:                    "NVRTC_ERROR_INVALID_PROGRAM",
	InvalidOption:                     "NVRTC_ERROR_INVALID_OPTION",
	Compilation:                       "NVRTC_ERROR_COMPILATION",
	BuiltinOperationFailure:           "NVRTC_ERROR_BUILTIN_OPERATION_FAILURE",
	NoNameExpressionsAfterCompilation: "NVRTC_ERROR_NO_NAME_EXPRESSIONS_AFTER_COMPILATION",
	NoLoweredNamesBeforeCompilation:   "NVRTC_ERROR_NO_LOWERED_NAMES_BEFORE_COMPILATION",
	NameExpressionNotValid:            "NVRTC_ERROR_NAME_EXPRESSION_NOT_VALID",
	InternalError:                     "NVRTC_ERROR_INTERNAL_ERROR",
	TimeFileWriteFailed:               "NVRTC_ERROR_TIME_FILE_WRITE_FAILED",
	NoPCHCreateAttempted:              "NVRTC_ERROR_NO_PCH_CREATE_ATTEMPTED",
	PCHCreateHeapExhausted:            "NVRTC_ERROR_PCH_CREATE_HEAP_EXHAUSTED",
	PCHCreate:                         "NVRTC_ERROR_PCH_CREATE",
	Cancelled:                         "NVRTC_ERROR_CANCELLED",
	EntryPointMissing:                 "NVRTC_ENTRY_POINT_MISSING",
}

// Error is a failed NVRTC call of Compile, with the compiler's log.
type Error struct {
	Op     string // the C function that failed, such as "nvrtcCompileProgram"
	Result Result
	Log    string // the program log, when there is one
}

func (e *Error) Error() string {
	s := "nvrtc: " + e.Op + ": " + e.Result.Name()
	if e.Log != "" {
		s += "\n" + e.Log
	}
	return s
}
