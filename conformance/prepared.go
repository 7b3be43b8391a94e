package conformance

import (
	"errors"
	"sync"
	"testing"

	"github.com/gour-dev/gour/ur"
)

// prepare prepares a launch of k over r on q, released when the test ends.
func prepare(t *testing.T, q *ur.Queue, k *ur.Kernel, r ur.NDRange) *ur.PreparedLaunch {
	t.Helper()
	p, err := q.PrepareLaunch(k, r)
	must(t, "PrepareLaunch", err)
	t.Cleanup(func() { p.Release() })
	return p
}

// Each launch takes the kernel's arguments as they are at that launch.
func TestPreparedLaunchTakesCurrentArguments(t *testing.T) {
	forEachDevice(t, func(t *testing.T, f *Fixture) {
		const n = 1000
		q := f.Queue(t)
		k := f.Kernel(t, "fill_u32")
		a := f.Buffer(t, ur.MemReadWrite, 4*n)
		b := f.Buffer(t, ur.MemReadWrite, 4*n)
		must(t, "SetArgMem", k.SetArgMem(0, a))
		must(t, "SetArgUint32", k.SetArgUint32(1, 7))
		p := prepare(t, q, k, ur.Range1D(n))
		must(t, "Launch", p.Launch())
		checkUint32s(t, "a after the first launch", readUint32s(t, q, a, n), func(int) uint32 { return 7 })
		must(t, "SetArgUint32", k.SetArgUint32(1, 9))
		must(t, "SetArgMem", k.SetArgMem(0, b))
		must(t, "Launch", p.Launch())
		checkUint32s(t, "b after new arguments", readUint32s(t, q, b, n), func(int) uint32 { return 9 })
		checkUint32s(t, "a, no longer an argument", readUint32s(t, q, a, n), func(int) uint32 { return 7 })
	})
}

// Launches run in order with the queue's other commands.
func TestPreparedLaunchInOrder(t *testing.T) {
	forEachDevice(t, func(t *testing.T, f *Fixture) {
		const n, launches = 256, 100
		q := f.Queue(t)
		k := f.Kernel(t, "add_one")
		m := f.BufferFrom(t, ur.MemReadWrite, ur.AsBytes(make([]uint32, n)))
		must(t, "SetArgMem", k.SetArgMem(0, m))
		p := prepare(t, q, k, ur.Range1D(n))
		for i := range launches {
			if err := p.Launch(); err != nil {
				t.Fatalf("launch %d: %v", i, err)
			}
			if i == launches/2 {
				must(t, "Queue.Launch", q.Launch(k, ur.Range1D(n)))
			}
		}
		checkUint32s(t, "after 101 add_one launches", readUint32s(t, q, m, n), func(int) uint32 { return launches + 1 })
	})
}

// Goroutines may share one prepared launch: every launch runs once, in
// the queue's order.
func TestPreparedLaunchFromGoroutines(t *testing.T) {
	forEachDevice(t, func(t *testing.T, f *Fixture) {
		const n, workers, each = 256, 4, 50
		q := f.Queue(t)
		k := f.Kernel(t, "add_one")
		m := f.BufferFrom(t, ur.MemReadWrite, ur.AsBytes(make([]uint32, n)))
		must(t, "SetArgMem", k.SetArgMem(0, m))
		p := prepare(t, q, k, ur.Range1D(n))
		errs := make(chan error, workers)
		var wg sync.WaitGroup
		for range workers {
			wg.Go(func() {
				for range each {
					if err := p.Launch(); err != nil {
						errs <- err
						return
					}
				}
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatal(err)
		}
		checkUint32s(t, "after 4 × 50 launches", readUint32s(t, q, m, n), func(int) uint32 { return workers * each })
	})
}

// A local-memory argument resized after preparing (on CUDA, a new amount
// of dynamic shared memory) is taken by the next launch.
func TestPreparedLaunchLocalMemoryResized(t *testing.T) {
	forEachDevice(t, func(t *testing.T, f *Fixture) {
		g := newGroupSum(t, f, 8*groupSumLocal)
		q := f.Queue(t)
		p := prepare(t, q, g.k, g.r)
		must(t, "Launch", p.Launch())
		g.check(t, q, "group sums")
		ev, err := q.EnqueueFill(g.dst, []byte{0}, 0, g.dst.Size())
		must(t, "EnqueueFill", err)
		ev.Release()
		must(t, "SetArgLocal(2)", g.k.SetArgLocal(2, 4*groupSumLocal))
		must(t, "Launch", p.Launch())
		g.check(t, q, "group sums after resizing local memory")
	})
}

func TestPreparedLaunchErrors(t *testing.T) {
	forEachDevice(t, func(t *testing.T, f *Fixture) {
		q := f.Queue(t)
		k := f.Kernel(t, "fill_u32")
		m := f.Buffer(t, ur.MemReadWrite, 64)
		bad := ur.Range1D(16)
		bad.Local[0] = 3
		_, err := q.PrepareLaunch(k, bad)
		wantErr(t, "PrepareLaunch, global 16 over local 3", err, ur.ErrInvalidWorkGroupSize)

		// Argument 1 unset: the adapter says so when preparing or, where the
		// driver checks arguments itself (OpenCL), when launching.
		must(t, "SetArgMem", k.SetArgMem(0, m))
		if p, err := q.PrepareLaunch(k, ur.Range1D(16)); err == nil {
			err = p.Launch()
			p.Release()
			wantErr(t, "Launch with an argument unset", err, ur.ErrInvalidKernelArgs)
		} else {
			wantErr(t, "PrepareLaunch with an argument unset", err, ur.ErrInvalidKernelArgs)
		}
	})
}

// Releasing the queue or the kernel makes the prepared launch fail with
// their errors, and never crashes it.
func TestPreparedLaunchAfterRelease(t *testing.T) {
	forEachDevice(t, func(t *testing.T, f *Fixture) {
		q, err := f.Context(t).NewQueue(f.Device, ur.QueueProperties{})
		must(t, "NewQueue", err)
		k, err := f.Program(t).NewKernel("add_one")
		must(t, "NewKernel", err)
		m := f.Buffer(t, ur.MemReadWrite, 4*16)
		must(t, "SetArgMem", k.SetArgMem(0, m))
		p, err := q.PrepareLaunch(k, ur.Range1D(16))
		must(t, "PrepareLaunch", err)
		must(t, "Launch", p.Launch())
		must(t, "Kernel.Release", k.Release())
		wantErr(t, "Launch after Kernel.Release", p.Launch(), ur.ErrInvalidKernel)
		must(t, "Finish", q.Finish())
		must(t, "Queue.Release", q.Release())
		wantErr(t, "Launch after Queue.Release", p.Launch(), ur.ErrInvalidQueue)
		must(t, "PreparedLaunch.Release", p.Release())
		if err := p.Launch(); err == nil || errors.Is(err, ur.ErrInvalidQueue) {
			t.Errorf("Launch after PreparedLaunch.Release = %v, want the prepared launch's own error", err)
		}
	})
}
