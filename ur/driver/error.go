package driver

import "fmt"

// Error is what an adapter returns when its vendor call fails: the Unified
// Runtime code it maps to, plus the vendor's own code and name so that a
// user can look the failure up in the vendor's documentation.
type Error struct {
	Result     Result
	Native     int64  // the vendor's code, e.g. -46 for CL_INVALID_KERNEL_NAME
	NativeName string // the vendor's name for it, e.g. "CL_INVALID_KERNEL_NAME"
	Message    string // what failed, in words
	BuildLog   string // compiler output, for build, compile and link failures
}

func (e *Error) Error() string {
	msg := e.Result.String()
	if e.NativeName != "" {
		msg += fmt.Sprintf(" (%s %d)", e.NativeName, e.Native)
	}
	if e.Message != "" {
		msg += ": " + e.Message
	}
	return msg
}

// Is reports whether target is the Result this error carries.
func (e *Error) Is(target error) bool {
	r, ok := target.(Result)
	return ok && r == e.Result
}

// Errorf returns an *Error with no native code, for failures an adapter
// detects itself (an unsupported feature, a missing optional library).
func Errorf(code Result, format string, args ...any) *Error {
	return &Error{Result: code, Message: fmt.Sprintf(format, args...)}
}

// Code is a vendor's result type (cl_int, CUresult, ze_result_t, ...):
// zero is success, and Name gives the C name of a value.
type Code interface {
	~int32 | ~uint32
	Name() string
}

// Check returns nil when the vendor call fn returned success (0), and
// otherwise the *Error for its code, mapped to a Result by toResult. It
// allocates nothing on success, so hot paths may use it.
func Check[C Code](fn string, code C, toResult func(C) Result) error {
	if code == 0 {
		return nil
	}
	return Failure(fn, code, toResult)
}

// Failure is the *Error of the vendor call fn that returned code.
func Failure[C Code](fn string, code C, toResult func(C) Result) *Error {
	return &Error{Result: toResult(code), Native: int64(code), NativeName: code.Name(), Message: fn + " failed"}
}
