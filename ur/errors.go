package ur

import (
	"errors"
	"fmt"

	"github.com/gour-dev/gour/ur/driver"
)

//go:generate go run ./internal/gensentinels driver/result.go sentinels.go

// Result is a Unified Runtime result code (ur_result_t): the same names and
// numbers as the C runtime, e.g. ErrOutOfDeviceMemory is 39.
type Result = driver.Result

// ErrAdapterNotAvailable matches the error of an adapter whose vendor
// library or devices are missing; the error text says why.
var ErrAdapterNotAvailable = driver.ErrNotAvailable

// Error is the error every failing gour call returns.
type Error struct {
	Result     Result // the Unified Runtime code
	Op         string // the gour call, e.g. "Program.Build"
	Adapter    string // "opencl", "cuda", "level_zero"
	Native     int64  // the vendor's code, 0 when the front end caught the problem
	NativeName string // the vendor's name for Native
	Message    string
	BuildLog   string // compiler output for build, compile and link failures
	Err        error  // the underlying error, when it is not a driver error
}

func (e *Error) Error() string {
	msg := "ur: " + e.Op
	if e.Adapter != "" {
		msg += " [" + e.Adapter + "]"
	}
	msg += ": " + e.Result.String()
	if e.NativeName != "" {
		msg += fmt.Sprintf(" (%s %d)", e.NativeName, e.Native)
	}
	if e.Message != "" {
		msg += ": " + e.Message
	}
	if e.BuildLog != "" {
		msg += "\nbuild log:\n" + e.BuildLog
	}
	return msg
}

// Is makes errors.Is(err, ErrX) true for the code this error carries.
func (e *Error) Is(target error) bool {
	r, ok := target.(Result)
	return ok && r == e.Result
}

func (e *Error) Unwrap() error { return e.Err }

// ResultOf returns the result code carried by err: ResultSuccess for nil,
// ErrUnknown for errors that carry none.
func ResultOf(err error) Result {
	if err == nil {
		return driver.ResultSuccess
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Result
	}
	var d *driver.Error
	if errors.As(err, &d) {
		return d.Result
	}
	var r Result
	if errors.As(err, &r) {
		return r
	}
	return ErrUnknown
}

// BuildLogOf returns the build log an error carries, or "".
func BuildLogOf(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.BuildLog
	}
	return ""
}

// newError is a failure the front end detects before calling the adapter.
func newError(code Result, op, adapter, format string, args ...any) *Error {
	return &Error{Result: code, Op: op, Adapter: adapter, Message: fmt.Sprintf(format, args...)}
}

// wrapError shapes an adapter's error into an *Error naming the call.
func wrapError(err error, op, adapter string) error {
	if err == nil {
		return nil
	}
	var d *driver.Error
	if errors.As(err, &d) {
		return &Error{Result: d.Result, Op: op, Adapter: adapter, Native: d.Native,
			NativeName: d.NativeName, Message: d.Message, BuildLog: d.BuildLog}
	}
	var e *Error
	if errors.As(err, &e) {
		return err
	}
	return &Error{Result: ErrUnknown, Op: op, Adapter: adapter, Message: err.Error(), Err: err}
}
