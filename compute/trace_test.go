package compute_test

import (
	"path/filepath"
	"testing"

	"github.com/gour-dev/gour/compute"
	"github.com/gour-dev/gour/internal/harness/testenv"
	"github.com/gour-dev/gour/trace"
	"github.com/gour-dev/gour/ur"
)

// TestTrace runs the package example's work traced on a device: the trace
// is what Perfetto opens, with the kernels on their queue's track.
func TestTrace(t *testing.T) {
	if trace.Active() != nil {
		t.Skip("a trace is being recorded (GOUR_TRACE)")
	}
	var dev *ur.Device
	for _, d := range testenv.Devices(t) {
		if d.Backend() == "opencl" {
			dev = d
		}
	}
	if dev == nil {
		t.Skip("no OpenCL device")
	}
	path := filepath.Join(t.TempDir(), "compute.json")
	if err := ur.StartTrace(path); err != nil {
		t.Fatal(err)
	}
	func() {
		ctx, err := compute.NewDevice(dev)
		if err != nil {
			t.Fatal(err)
		}
		defer ctx.Release()
		x, err := compute.FromSlice(ctx, []float32{1, 2, 3, 4, 5, 6}, 2, 3)
		if err != nil {
			t.Fatal(err)
		}
		defer x.Release()
		y, err := compute.Zeros[float32](ctx, 2, 3)
		if err != nil {
			t.Fatal(err)
		}
		defer y.Release()
		if err := compute.Transform(ctx, scale().With(10, 1), y, x); err != nil {
			t.Fatal(err)
		}
		if _, err := compute.Reduce(ctx, y, compute.Sum[float32]()); err != nil {
			t.Fatal(err)
		}
	}()
	if err := ur.StopTrace(); err != nil {
		t.Fatal(err)
	}
	events, err := trace.ValidateFile(path)
	if err != nil {
		t.Fatal(err)
	}
	commands := 0
	for _, cmds := range trace.OnQueue(events) {
		commands += len(cmds)
	}
	if commands == 0 {
		t.Error("no command on a queue's track")
	}
}
