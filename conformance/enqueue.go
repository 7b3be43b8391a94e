package conformance

import (
	"fmt"
	"sync"
	"testing"

	"github.com/gour-dev/gour/ur"
)

// launchIndex runs kernel name (index2d or index3d) over r and returns
// the output buffer, one uint32 per work-item.
func launchIndex(t *testing.T, f *Fixture, name string, r ur.NDRange) []uint32 {
	t.Helper()
	n := r.Global[0] * r.Global[1] * r.Global[2]
	q := f.Queue(t)
	k := f.Kernel(t, name)
	m := f.BufferFrom(t, ur.MemReadWrite, ur.AsBytes(make([]uint32, n)))
	must(t, "SetArgMem", k.SetArgMem(0, m))
	must(t, "Launch", q.Launch(k, r))
	return readUint32s(t, q, m, int(n))
}

// packed is the value index2d and index3d write for a work-item.
func packed(x, y, z uint64) uint32 { return uint32(x | y<<10 | z<<20) }

func TestEnqueueLaunch1D(t *testing.T) {
	forEachDevice(t, func(t *testing.T, f *Fixture) {
		for _, n := range []int{1, 7, 1000, 65537} {
			f.Run(t, fmt.Sprint(n), func(t *testing.T) {
				k := f.Kernel(t, "iota")
				got := runKernelU32(t, f.Queue(t), f.Context(t), k, make([]uint32, n))
				checkUint32s(t, "iota", got, func(i int) uint32 { return uint32(i) })
			})
		}
	})
}

func TestEnqueueLaunch1DLocalSize(t *testing.T) {
	forEachDevice(t, func(t *testing.T, f *Fixture) {
		const n, local = 512, 32
		q := f.Queue(t)
		k := f.Kernel(t, "local_ids")
		out := f.Buffer(t, ur.MemReadWrite, 4*n)
		sizes := f.Buffer(t, ur.MemReadWrite, 4)
		must(t, "SetArgMem(0)", k.SetArgMem(0, out))
		must(t, "SetArgMem(1)", k.SetArgMem(1, sizes))
		r := ur.Range1D(n)
		r.Local = [3]uint64{local, 1, 1}
		must(t, "Launch", q.Launch(k, r))
		checkUint32s(t, "group<<16|local id", readUint32s(t, q, out, n), func(i int) uint32 {
			return uint32(i/local)<<16 | uint32(i%local)
		})
		if got := readUint32s(t, q, sizes, 1)[0]; got != local {
			t.Errorf("get_local_size(0) = %d, want %d", got, local)
		}
	})
}

func TestEnqueueLaunch2D(t *testing.T) {
	forEachDevice(t, func(t *testing.T, f *Fixture) {
		const w, h = 37, 19
		got := launchIndex(t, f, "index2d", ur.Range2D(w, h))
		checkUint32s(t, "index2d", got, func(i int) uint32 { return packed(uint64(i%w), uint64(i/w), 0) })
	})
}

func TestEnqueueLaunch2DLocalSize(t *testing.T) {
	forEachDevice(t, func(t *testing.T, f *Fixture) {
		const w, h = 32, 16
		r := ur.Range2D(w, h)
		r.Local = [3]uint64{8, 4, 1}
		got := launchIndex(t, f, "index2d", r)
		checkUint32s(t, "index2d", got, func(i int) uint32 { return packed(uint64(i%w), uint64(i/w), 0) })
	})
}

func TestEnqueueLaunch3D(t *testing.T) {
	forEachDevice(t, func(t *testing.T, f *Fixture) {
		const w, h, d = 13, 7, 5
		got := launchIndex(t, f, "index3d", ur.Range3D(w, h, d))
		checkUint32s(t, "index3d", got, func(i int) uint32 {
			return packed(uint64(i%w), uint64(i/w%h), uint64(i/(w*h)))
		})
	})
}

func TestEnqueueLaunch3DLocalSize(t *testing.T) {
	forEachDevice(t, func(t *testing.T, f *Fixture) {
		const w, h, d = 16, 8, 4
		r := ur.Range3D(w, h, d)
		r.Local = [3]uint64{4, 2, 2}
		got := launchIndex(t, f, "index3d", r)
		checkUint32s(t, "index3d", got, func(i int) uint32 {
			return packed(uint64(i%w), uint64(i/w%h), uint64(i/(w*h)))
		})
	})
}

func TestEnqueueGlobalOffset(t *testing.T) {
	forEachDevice(t, func(t *testing.T, f *Fixture) {
		f.Run(t, "1D", func(t *testing.T) {
			const off, n = 16, 48
			q := f.Queue(t)
			k := f.Kernel(t, "iota")
			sentinel := make([]uint32, off+n)
			for i := range sentinel {
				sentinel[i] = 0xDEAD
			}
			m := f.BufferFrom(t, ur.MemReadWrite, ur.AsBytes(sentinel))
			must(t, "SetArgMem", k.SetArgMem(0, m))
			r := ur.Range1D(n)
			r.Offset[0] = off
			must(t, "Launch", q.Launch(k, r))
			checkUint32s(t, "iota with offset 16", readUint32s(t, q, m, off+n), func(i int) uint32 {
				if i < off {
					return 0xDEAD
				}
				return uint32(i)
			})
		})
		f.Run(t, "2D", func(t *testing.T) {
			const w, h, ox, oy = 8, 4, 3, 5
			r := ur.Range2D(w, h)
			r.Offset = [3]uint64{ox, oy, 0}
			got := launchIndex(t, f, "index2d", r)
			checkUint32s(t, "index2d with offset (3,5)", got, func(i int) uint32 {
				return packed(uint64(i%w+ox), uint64(i/w+oy), 0)
			})
		})
		f.Run(t, "3D", func(t *testing.T) {
			const w, h, d, ox, oy, oz = 4, 3, 2, 1, 2, 3
			r := ur.Range3D(w, h, d)
			r.Offset = [3]uint64{ox, oy, oz}
			got := launchIndex(t, f, "index3d", r)
			checkUint32s(t, "index3d with offset (1,2,3)", got, func(i int) uint32 {
				return packed(uint64(i%w+ox), uint64(i/w%h+oy), uint64(i/(w*h)+oz))
			})
		})
	})
}

func TestEnqueueBadRange(t *testing.T) {
	forEachDevice(t, func(t *testing.T, f *Fixture) {
		q := f.Queue(t)
		k := f.Kernel(t, "iota")
		info := f.Device.Info()
		maxWG := info.MaxWorkGroupSize
		// A work-group one row too big: each dimension within the
		// device's work-item sizes, the product over its work-group size.
		tooBig := ur.NDRange{Dims: 2, Global: [3]uint64{min(maxWG, info.MaxWorkItemSizes[0]), 2, 1}}
		tooBig.Local = tooBig.Global
		if tooBig.Global[0]*2 <= maxWG {
			tooBig.Global[1] = maxWG/tooBig.Global[0] + 1
			tooBig.Local[1] = tooBig.Global[1]
		}
		// iota writes one uint32 per index of dimension 0.
		must(t, "SetArgMem", k.SetArgMem(0, f.Buffer(t, ur.MemReadWrite, 4*max(1024, tooBig.Global[0]))))
		for _, tt := range []struct {
			name string
			r    ur.NDRange
			want ur.Result
		}{
			{"global not multiple of local", ur.NDRange{Dims: 1, Global: [3]uint64{100, 1, 1}, Local: [3]uint64{32, 1, 1}}, ur.ErrInvalidWorkGroupSize},
			{"local in some dimensions only", ur.NDRange{Dims: 2, Global: [3]uint64{16, 16, 1}, Local: [3]uint64{4, 0, 1}}, ur.ErrInvalidWorkGroupSize},
			{"dims 0", ur.NDRange{Dims: 0, Global: [3]uint64{16, 1, 1}}, ur.ErrInvalidWorkDimension},
			{"dims 4", ur.NDRange{Dims: 4, Global: [3]uint64{16, 1, 1}}, ur.ErrInvalidWorkDimension},
			{"global 0", ur.NDRange{Dims: 1, Global: [3]uint64{0, 1, 1}}, ur.ErrInvalidGlobalWidthDimension},
			{"work-group over the device limit", tooBig, ur.ErrInvalidWorkGroupSize},
		} {
			f.Run(t, tt.name, func(t *testing.T) {
				err := q.Launch(k, tt.r)
				wantErr(t, fmt.Sprintf("Launch(%+v)", tt.r), err, tt.want)
			})
		}
		must(t, "Finish", q.Finish())
	})
}

func TestEnqueueMissingArgs(t *testing.T) {
	forEachDevice(t, func(t *testing.T, f *Fixture) {
		k := f.Kernel(t, "fill_u32")
		must(t, "SetArgMem", k.SetArgMem(0, f.Buffer(t, ur.MemReadWrite, 64)))
		// Argument 1 is never set.
		wantErr(t, "Launch with an argument unset", f.Queue(t).Launch(k, ur.Range1D(16)), ur.ErrInvalidKernelArgs)
	})
}

func TestEnqueueManyLaunchesInOrder(t *testing.T) {
	forEachDevice(t, func(t *testing.T, f *Fixture) {
		const n, launches = 256, 200
		q := f.Queue(t)
		k := f.Kernel(t, "add_one")
		m := f.BufferFrom(t, ur.MemReadWrite, ur.AsBytes(make([]uint32, n)))
		must(t, "SetArgMem", k.SetArgMem(0, m))
		for i := range launches {
			if err := q.Launch(k, ur.Range1D(n)); err != nil {
				t.Fatalf("launch %d: %v", i, err)
			}
		}
		checkUint32s(t, "after 200 add_one launches", readUint32s(t, q, m, n), func(int) uint32 { return launches })
	})
}

func TestEnqueueWaitLists(t *testing.T) {
	forEachDevice(t, func(t *testing.T, f *Fixture) {
		const n = 4096
		q := f.Queue(t)
		xs, ys := make([]float32, n), make([]float32, n)
		for i := range xs {
			xs[i], ys[i] = float32(i), 1
		}
		x := f.Buffer(t, ur.MemReadOnly, 4*n)
		y := f.Buffer(t, ur.MemReadWrite, 4*n)
		wx, err := q.EnqueueWrite(x, 0, ur.AsBytes(xs))
		must(t, "EnqueueWrite(x)", err)
		cleanup(t, wx)
		wy, err := q.EnqueueWrite(y, 0, ur.AsBytes(ys))
		must(t, "EnqueueWrite(y)", err)
		cleanup(t, wy)
		k := f.Kernel(t, "axpy")
		must(t, "SetArgFloat32", k.SetArgFloat32(0, 2))
		must(t, "SetArgMem(x)", k.SetArgMem(1, x))
		must(t, "SetArgMem(y)", k.SetArgMem(2, y))
		kev, err := q.EnqueueLaunch(k, ur.Range1D(n), ur.LaunchOptions{Wait: []*ur.Event{wx, wy}})
		must(t, "EnqueueLaunch", err)
		cleanup(t, kev)
		got := make([]float32, n)
		rev, err := q.EnqueueRead(y, 0, ur.AsBytes(got), kev)
		must(t, "EnqueueRead", err)
		cleanup(t, rev)
		must(t, "Wait", rev.Wait(t.Context()))
		for i := range got {
			if want := 2*xs[i] + 1; got[i] != want {
				t.Fatalf("y[%d] = %v, want %v", i, got[i], want)
			}
		}
	})
}

// A wait list may hold events of another queue of the context.
func TestEnqueueWaitAcrossQueues(t *testing.T) {
	forEachDevice(t, func(t *testing.T, f *Fixture) {
		const n = 1 << 14
		q1, q2 := f.Queue(t), f.Queue(t)
		m := f.Buffer(t, ur.MemReadWrite, 4*n)
		fill, err := q1.EnqueueFill(m, ur.AsBytes([]uint32{41}), 0, 4*n)
		must(t, "EnqueueFill on queue 1", err)
		cleanup(t, fill)
		must(t, "Flush queue 1", q1.Flush())
		k := f.Kernel(t, "add_one")
		must(t, "SetArgMem", k.SetArgMem(0, m))
		kev, err := q2.EnqueueLaunch(k, ur.Range1D(n), ur.LaunchOptions{Wait: []*ur.Event{fill}})
		must(t, "EnqueueLaunch on queue 2", err)
		cleanup(t, kev)
		must(t, "Wait", kev.Wait(t.Context()))
		checkUint32s(t, "fill on queue 1 then add_one on queue 2", readUint32s(t, q2, m, n), func(int) uint32 { return 42 })
	})
}

func TestEnqueueReleasedEventInWaitList(t *testing.T) {
	forEachDevice(t, func(t *testing.T, f *Fixture) {
		q := f.Queue(t)
		m := f.Buffer(t, ur.MemReadWrite, 64)
		ev, err := q.EnqueueFill(m, []byte{1}, 0, 64)
		must(t, "EnqueueFill", err)
		must(t, "Wait", ev.Wait(t.Context()))
		must(t, "Release", ev.Release())
		_, err = q.EnqueueFill(m, []byte{2}, 0, 64, ev)
		wantErr(t, "EnqueueFill waiting on a released event", err, ur.ErrInvalidEventWaitList)
	})
}

func TestEnqueueKernelOfOtherContext(t *testing.T) {
	forEachDevice(t, func(t *testing.T, f *Fixture) {
		// A kernel of the shared context, launched on a queue of another.
		k := f.Kernel(t, "iota")
		must(t, "SetArgMem", k.SetArgMem(0, f.Buffer(t, ur.MemReadWrite, 64)))
		q := f.QueueIn(t, f.NewContext(t), ur.QueueProperties{})
		err := q.Launch(k, ur.Range1D(16))
		if err == nil {
			t.Fatal("launching a kernel of another context succeeded")
		}
		wantErr(t, "Launch of a kernel of another context", err, ur.ErrInvalidContext)
	})
}

// Goroutines launching their own kernels on one shared queue.
func TestEnqueueConcurrentLaunches(t *testing.T) {
	forEachDevice(t, func(t *testing.T, f *Fixture) {
		const workers, n, rounds = 4, 1024, 10
		q := f.Queue(t)
		p := f.Program(t)
		var wg sync.WaitGroup
		errs := make([]error, workers)
		bufs := make([]*ur.Mem, workers)
		for w := range workers {
			bufs[w] = f.BufferFrom(t, ur.MemReadWrite, ur.AsBytes(make([]uint32, n)))
			k := f.KernelOf(t, p, "add_one")
			wg.Add(1)
			go func() {
				defer wg.Done()
				if err := k.SetArgMem(0, bufs[w]); err != nil {
					errs[w] = err
					return
				}
				for range rounds * (w + 1) {
					if err := q.Launch(k, ur.Range1D(n)); err != nil {
						errs[w] = err
						return
					}
				}
			}()
		}
		wg.Wait()
		for w, err := range errs {
			if err != nil {
				t.Fatalf("worker %d: %v", w, err)
			}
		}
		for w := range workers {
			checkUint32s(t, fmt.Sprintf("worker %d", w), readUint32s(t, q, bufs[w], n),
				func(int) uint32 { return uint32(rounds * (w + 1)) })
		}
	})
}
