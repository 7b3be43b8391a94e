package cuda

import (
	"testing"

	"github.com/gour-dev/gour/adapters/cuda/internal/cu"
	"github.com/gour-dev/gour/ur/driver"
)

// TestStickyErrorsAreDeviceLost checks that each CUDA error after which
// the context can not be used (a kernel's fault) maps to ErrDeviceLost,
// and that errors a context survives do not.
func TestStickyErrorsAreDeviceLost(t *testing.T) {
	for _, r := range []cu.Result{cu.IllegalAddress, cu.LaunchFailed, cu.LaunchTimeout, cu.Assert,
		cu.HardwareStackError, cu.IllegalInstruction, cu.MisalignedAddress, cu.InvalidAddressSpace,
		cu.InvalidPC, cu.ECCUncorrectable, cu.NVLinkUncorrectable} {
		if got := resultOf(r); got != driver.ResultDeviceLost {
			t.Errorf("resultOf(%v) = %v, want ErrDeviceLost", r, got)
		}
		if err := check("cuStreamSynchronize", r); err == nil || err.(*driver.Error).NativeName != r.Name() {
			t.Errorf("check(%v) = %v, want the driver's name kept", r, err)
		}
	}
	for r, want := range map[cu.Result]driver.Result{
		cu.OutOfMemory:          driver.ResultOutOfDeviceMemory,
		cu.LaunchOutOfResources: driver.ResultOutOfResources,
		cu.InvalidValue:         driver.ResultInvalidValue,
	} {
		if got := resultOf(r); got != want {
			t.Errorf("resultOf(%v) = %v, want %v", r, got, want)
		}
	}
}
