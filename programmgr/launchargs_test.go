package programmgr

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/gour-dev/gour/internal/harness/testenv"
	"github.com/gour-dev/gour/ur"
)

// 64 goroutines get one cached kernel and launch it at once with their
// own arguments, with no lock (ur.Queue.Launch): every result is
// right. Run under -race.
func TestCachedKernelLaunchedConcurrently(t *testing.T) {
	const goroutines, launches, n = 64, 10, 256
	for _, dev := range testenv.MustHaveDevice(t, "opencl") {
		t.Run(dev.Name(), func(t *testing.T) {
			ctx, err := ur.NewContext(dev)
			if err != nil {
				t.Fatal(err)
			}
			defer ctx.Release()
			m, err := newManager(ctx, Options{InMemCache: ptr(true), DiskCache: noDisk(t)}, noEnv)
			if err != nil {
				t.Fatal(err)
			}
			defer m.Close()
			img, err := NewImage(ImageDesc{
				Format:      FormatOpenCLC,
				Bytes:       []byte("__kernel void put(__global int* out, int v) { out[get_global_id(0)] = v; }"),
				KernelNames: []string{"put"},
			})
			if err != nil {
				t.Fatal(err)
			}
			q, err := ctx.NewQueue(dev, ur.QueueProperties{})
			if err != nil {
				t.Fatal(err)
			}
			defer q.Release()
			outs := make([]*ur.Mem, goroutines)
			for g := range outs {
				if outs[g], err = ctx.NewBuffer(ur.MemReadWrite, 4*n); err != nil {
					t.Fatal(err)
				}
				defer outs[g].Release()
			}
			var wg sync.WaitGroup
			for g := range goroutines {
				wg.Go(func() {
					for i := range launches {
						k, err := m.GetKernel(context.Background(), img, "put", dev, SpecValues{}, "")
						if err != nil {
							t.Error(err)
							return
						}
						err = q.Launch(k.UR(), ur.Range1D(n), ur.ArgBuffer(outs[g]), ur.ArgOf(int32(g*100+i)))
						k.Release()
						if err != nil {
							t.Error(err)
							return
						}
					}
				})
			}
			wg.Wait()
			got := make([]int32, n)
			for g, out := range outs {
				if err := q.ReadBuffer(out, 0, ur.AsBytes(got)); err != nil {
					t.Fatal(err)
				}
				want := int32(g*100 + launches - 1)
				for i, v := range got {
					if v != want {
						t.Fatalf("goroutine %d's buffer[%d] = %d, want %d", g, i, v, want)
					}
				}
			}
			if s := m.Stats(); s.Builds != 1 {
				t.Errorf("%d builds, want 1: %v", s.Builds, fmt.Sprint(s))
			}
		})
	}
}
