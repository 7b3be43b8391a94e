package driver

import (
	"errors"
	"testing"
)

type testCode int32

func (c testCode) Name() string { return "TEST_CODE" }

func TestCheckAndFailure(t *testing.T) {
	toResult := func(c testCode) Result {
		if c == -5 {
			return ResultOutOfResources
		}
		return ResultUnknown
	}
	if err := Check("testCall", testCode(0), toResult); err != nil {
		t.Fatalf("Check(success) = %v", err)
	}
	err := Check("testCall", testCode(-5), toResult)
	var e *Error
	if !errors.As(err, &e) || !errors.Is(err, ResultOutOfResources) {
		t.Fatalf("Check(-5) = %v, want an *Error with OUT_OF_RESOURCES", err)
	}
	if e.Native != -5 || e.NativeName != "TEST_CODE" || e.Message != "testCall failed" {
		t.Errorf("error fields = %+v", e)
	}
	if n := testing.AllocsPerRun(100, func() { _ = Check("testCall", testCode(0), toResult) }); n != 0 {
		t.Errorf("Check(success) allocates %v times", n)
	}
}
