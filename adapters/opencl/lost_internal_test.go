package opencl

import (
	"errors"
	"strings"
	"testing"

	"github.com/gour-dev/gour/adapters/opencl/internal/cl"
	"github.com/gour-dev/gour/ur/driver"
)

// TestQueueCheckReadsFaults checks the rules by which a failure of a call
// on a live queue is taken for a lost device (lost.go), with the codes
// NVIDIA's OpenCL gave on an H100 after a kernel wrote through a wild
// pointer, and that the driver's code stays in the error.
func TestQueueCheckReadsFaults(t *testing.T) {
	tests := []struct {
		st      cl.Status
		waited  bool
		kernels bool
		want    driver.Result
	}{
		{cl.InvalidCommandQueue, true, true, driver.ResultDeviceLost},   // clFinish after the fault
		{cl.InvalidCommandQueue, false, false, driver.ResultDeviceLost}, // an enqueue on a dropped queue
		{cl.OutOfResources, true, true, driver.ResultDeviceLost},        // a blocking read after the fault
		{nvidiaFault, true, true, driver.ResultDeviceLost},              // NVIDIA's own code at a wait
		{cl.OutOfResources, false, true, driver.ResultOutOfResources},   // a launch too big for a work-group
		{cl.OutOfResources, true, false, driver.ResultOutOfResources},   // no kernel ever made: not a fault
		{nvidiaFault, false, true, driver.ResultUnknown},                // not at a wait
		{cl.InvalidValue, true, true, driver.ResultInvalidValue},
		{cl.MemObjectAllocationFailure, true, true, driver.ResultOutOfDeviceMemory},
	}
	for _, tt := range tests {
		q := &queue{ctx: &context{}}
		q.ctx.madeKernels.Store(tt.kernels)
		err := q.check("clFinish", tt.st, tt.waited)
		var e *driver.Error
		if !errors.As(err, &e) {
			t.Errorf("check(%v, waited %v, kernels %v) = %v, want a *driver.Error", tt.st, tt.waited, tt.kernels, err)
			continue
		}
		if e.Result != tt.want || e.Native != int64(tt.st) || !strings.Contains(e.Error(), tt.st.Name()) {
			t.Errorf("check(%v, waited %v, kernels %v) = %v, want %v keeping the driver's code", tt.st, tt.waited, tt.kernels, err, tt.want)
		}
	}
	if err := (&queue{ctx: &context{}}).check("clFinish", cl.Success, true); err != nil {
		t.Errorf("check(CL_SUCCESS) = %v, want nil", err)
	}
}

// TestEventWaitErrorUsesItsQueue checks that a wait for an event of a
// queue reads a fault by the queue's rules, and one for an event gour did
// not enqueue (no queue) maps the code plainly.
func TestEventWaitErrorUsesItsQueue(t *testing.T) {
	q := &queue{ctx: &context{}}
	q.ctx.madeKernels.Store(true)
	if err := (&event{q: q}).waitError("clWaitForEvents", nvidiaFault); !errors.Is(err, driver.ResultDeviceLost) {
		t.Errorf("wait for a queue's event after a fault = %v, want ErrDeviceLost", err)
	}
	if err := (&event{}).waitError("clWaitForEvents", cl.OutOfResources); !errors.Is(err, driver.ResultOutOfResources) {
		t.Errorf("wait for a foreign event = %v, want ErrOutOfResources", err)
	}
}
