package ur_test

import (
	"testing"

	"github.com/gour-dev/gour/internal/harness/testenv"
	"github.com/gour-dev/gour/ur"
)

// TestQueueNativeContext: a queue's native context is its context's
// native handle in a context of one device (CUDA: the device's primary
// context; OpenCL: the cl_context), not 0, and 0 once the queue is
// released.
func TestQueueNativeContext(t *testing.T) {
	for _, d := range testenv.Devices(t) {
		t.Run(d.Backend()+"/"+d.Name(), func(t *testing.T) {
			ctx, err := ur.NewContext(d)
			if err != nil {
				t.Fatal(err)
			}
			defer ctx.Release()
			q, err := ctx.NewQueue(d, ur.QueueProperties{})
			if err != nil {
				t.Fatal(err)
			}
			if got := q.NativeContext(); got == 0 || got != ctx.Native() {
				t.Errorf("NativeContext = %#x, want the context's %#x", got, ctx.Native())
			}
			if err := q.Release(); err != nil {
				t.Fatal(err)
			}
			if got := q.NativeContext(); got != 0 {
				t.Errorf("NativeContext of a released queue = %#x, want 0", got)
			}
		})
	}
}
