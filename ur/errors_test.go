package ur

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/gour-dev/gour/ur/driver"
)

func TestResultNamesAndNumbers(t *testing.T) {
	for code, want := range map[Result]string{
		driver.ResultSuccess:   "UR_RESULT_SUCCESS",
		ErrInvalidValue:        "UR_RESULT_ERROR_INVALID_VALUE",
		ErrInvalidBinary:       "UR_RESULT_ERROR_INVALID_BINARY",
		ErrInvalidKernelName:   "UR_RESULT_ERROR_INVALID_KERNEL_NAME",
		ErrOutOfHostMemory:     "UR_RESULT_ERROR_OUT_OF_HOST_MEMORY",
		ErrOutOfDeviceMemory:   "UR_RESULT_ERROR_OUT_OF_DEVICE_MEMORY",
		ErrOutOfResources:      "UR_RESULT_ERROR_OUT_OF_RESOURCES",
		ErrProgramBuildFailure: "UR_RESULT_ERROR_PROGRAM_BUILD_FAILURE",
		ErrProgramLinkFailure:  "UR_RESULT_ERROR_PROGRAM_LINK_FAILURE",
		ErrInvalidSpecID:       "UR_RESULT_ERROR_INVALID_SPEC_ID",
		ErrUnknown:             "UR_RESULT_ERROR_UNKNOWN",
		Result(4000):           "UR_RESULT(4000)",
	} {
		if got := code.String(); got != want {
			t.Errorf("Result(%d).String() = %q, want %q", int32(code), got, want)
		}
	}
	// The numbers of ur_api.h, which logs are compared against.
	for code, want := range map[Result]int32{
		ErrInvalidValue: 4, ErrInvalidBinary: 7, ErrInvalidKernelName: 29, ErrOutOfHostMemory: 38,
		ErrOutOfDeviceMemory: 39, ErrOutOfResources: 40, ErrProgramBuildFailure: 41, ErrProgramLinkFailure: 42,
		ErrUnsupportedFeature: 44, ErrInvalidNullHandle: 46, ErrInvalidSpecID: 70,
	} {
		if int32(code) != want {
			t.Errorf("%v = %d, want %d", code, int32(code), want)
		}
	}
}

func TestErrorCarriesEverything(t *testing.T) {
	drv := &driver.Error{Result: ErrProgramBuildFailure, Native: -11, NativeName: "CL_BUILD_PROGRAM_FAILURE",
		Message: "clBuildProgram failed", BuildLog: "1:1: error: expected ';'"}
	err := fmt.Errorf("building: %w", wrapError(drv, "Program.Build", "opencl"))
	if !errors.Is(err, ErrProgramBuildFailure) {
		t.Error("errors.Is(err, ErrProgramBuildFailure) = false")
	}
	if errors.Is(err, ErrOutOfDeviceMemory) {
		t.Error("errors.Is(err, ErrOutOfDeviceMemory) = true for a build failure")
	}
	var e *Error
	if !errors.As(err, &e) {
		t.Fatal("errors.As(*Error) failed")
	}
	if e.Op != "Program.Build" || e.Adapter != "opencl" || e.Native != -11 || e.NativeName != "CL_BUILD_PROGRAM_FAILURE" {
		t.Errorf("error fields = %+v", e)
	}
	if ResultOf(err) != ErrProgramBuildFailure || BuildLogOf(err) != drv.BuildLog {
		t.Errorf("ResultOf = %v, BuildLogOf = %q", ResultOf(err), BuildLogOf(err))
	}
	for _, want := range []string{"Program.Build", "[opencl]", "UR_RESULT_ERROR_PROGRAM_BUILD_FAILURE", "CL_BUILD_PROGRAM_FAILURE -11", "expected ';'"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error text %q lacks %q", err.Error(), want)
		}
	}
}

func TestWrapErrorOfPlainError(t *testing.T) {
	cause := errors.New("library vanished")
	err := wrapError(cause, "Queue.Finish", "cuda")
	if ResultOf(err) != ErrUnknown || !errors.Is(err, cause) {
		t.Errorf("wrapError(plain) = %v: want ErrUnknown wrapping the cause", err)
	}
	if wrapError(nil, "x", "y") != nil {
		t.Error("wrapError(nil) != nil")
	}
	if ResultOf(nil) != driver.ResultSuccess {
		t.Error("ResultOf(nil) is not success")
	}
	if ResultOf(ErrInvalidValue) != ErrInvalidValue {
		t.Error("ResultOf(sentinel) is not the sentinel")
	}
}
