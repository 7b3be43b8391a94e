package collectives_test

import (
	"testing"

	"github.com/gour-dev/gour/blas"
	"github.com/gour-dev/gour/collectives"
	"github.com/gour-dev/gour/internal/nvlib"
	"github.com/gour-dev/gour/ur"
)

// TestDriverOpenedOnce: a process that uses the CUDA adapter, cuBLAS and
// NCCL opens the CUDA driver once, however many bindings ask for it (on
// a machine without the driver, once tried).
func TestDriverOpenedOnce(t *testing.T) {
	sys, err := ur.Discover(ur.Config{ForceLoad: []string{"cuda"}, Selector: "cuda:*"})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range sys.Devices {
		ctx, err := ur.NewContext(d)
		if err != nil {
			t.Fatal(err)
		}
		q, err := ctx.NewQueue(d, ur.QueueProperties{})
		if err != nil {
			ctx.Release()
			t.Fatal(err)
		}
		h, err := blas.New(q, blas.Options{Backend: blas.BackendCUBLAS})
		if err != nil {
			t.Logf("cuBLAS on %s: %v", d.Name(), err)
		} else {
			h.Close()
		}
		q.Release()
		ctx.Release()
	}
	if err := collectives.NCCLAvailable(false); err != nil {
		t.Logf("NCCL: %v", err)
	}
	if n := nvlib.DriverOpens(); n != 1 {
		t.Errorf("the CUDA driver was opened %d times, want once", n)
	}
}
