package cuda_test

import (
	"testing"
	"unsafe"

	"github.com/gour-dev/gour/ur"
)

// TestUSMThroughUR runs add1 over USM through package ur: device memory
// filled and read back, shared memory, and memory from a pool allocated
// and freed in the queue's order.
func TestUSMThroughUR(t *testing.T) {
	f := newFixture(t)
	q, k := f.queueAndKernel(t, "add1")
	const n = 4096
	check := func(what string, p ur.Ptr, want float32) {
		t.Helper()
		out := make([]float32, n)
		if err := q.CopyFromPtr(unsafe.Slice((*byte)(unsafe.Pointer(&out[0])), n*4), p); err != nil {
			t.Fatalf("%s: CopyFromPtr: %v", what, err)
		}
		for i, v := range out {
			if v != want {
				t.Fatalf("%s: y[%d] = %v, want %v", what, i, v, want)
			}
		}
	}
	run := func(what string, p ur.Ptr, launches int) {
		t.Helper()
		ev, err := q.EnqueueMemFill(p, []byte{0, 0, 0, 0}, n*4)
		if err != nil {
			t.Fatalf("%s: EnqueueMemFill: %v", what, err)
		}
		ev.Release()
		if err := k.SetArgPtr(0, p); err != nil {
			t.Fatalf("%s: SetArgPtr: %v", what, err)
		}
		for range launches {
			if err := q.Launch(k, ur.Range1D(n)); err != nil {
				t.Fatalf("%s: Launch: %v", what, err)
			}
		}
		check(what, p, float32(launches))
	}

	dev, err := f.ctx.AllocDevice(f.dev, n*4)
	if err != nil {
		t.Fatal(err)
	}
	defer dev.Free()
	run("device memory", dev.Ptr(), 3)

	if shared, err := f.ctx.AllocShared(f.dev, n*4); err != nil {
		t.Logf("AllocShared: %v", err)
	} else {
		run("shared memory", shared.Ptr(), 2)
		shared.Free()
	}

	pool, err := f.ctx.NewPool(f.dev, ur.PoolOptions{ReleaseThreshold: 16 << 20})
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Release()
	for i := range 3 {
		u, err := q.AllocAsync(pool, n*4)
		if err != nil {
			t.Fatal(err)
		}
		run("pool memory", u.Ptr(), i+1)
		if err := q.FreeAsync(u); err != nil {
			t.Fatal(err)
		}
	}
	if err := q.Finish(); err != nil {
		t.Fatal(err)
	}
}
