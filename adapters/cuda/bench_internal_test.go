package cuda

import (
	"runtime"
	"testing"

	"github.com/gour-dev/gour/adapters/cuda/internal/cu"
	"github.com/gour-dev/gour/ur/driver"
)

// The benchmarks below split the launch path into its parts, to see what
// gour adds to a bare cuLaunchKernel: bind (thread lock + cuCtxSetCurrent),
// the raw driver call, the adapter's Launch and its prepared launch (the
// call behind ur.PreparedLaunch and a repeated Queue.Launch).

func openForBench(b *testing.B) (*device, *queue, *kernel) {
	b.Helper()
	da, err := Open()
	if err != nil {
		b.Skipf("CUDA not available: %v", err)
	}
	a := da.(*adapter)
	d := a.platform.devices[0].(*device)
	c := &context{dev: d}
	dq, err := c.NewQueue(d, driver.QueueProperties{})
	if err != nil {
		b.Fatal(err)
	}
	dp, err := c.NewProgramFromIL([]byte(".version 7.0\n.target sm_52\n.address_size 64\n.visible .entry empty(.param .u64 p) { ret; }\n"))
	if err != nil {
		b.Fatal(err)
	}
	if err := dp.Build(nil, ""); err != nil {
		b.Fatal(err)
	}
	dk, err := dp.NewKernel("empty")
	if err != nil {
		b.Fatal(err)
	}
	if err := dk.SetArgValue(0, make([]byte, 8)); err != nil {
		b.Fatal(err)
	}
	return d, dq.(*queue), dk.(*kernel)
}

func BenchmarkBind(b *testing.B) {
	d, q, _ := openForBench(b)
	for b.Loop() {
		d.bind()
		unbind()
	}
	q.Finish()
}

func BenchmarkCtxGetCurrent(b *testing.B) {
	d, _, _ := openForBench(b)
	d.bind()
	defer unbind()
	for b.Loop() {
		d.a.cu.CtxGetCurrent()
	}
}

func BenchmarkRawLaunch(b *testing.B) {
	d, q, k := openForBench(b)
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	d.a.cu.CtxSetCurrent(d.ctx)
	for b.Loop() {
		if r := d.a.cu.LaunchKernel(k.fn, 1, 1, 1, 32, 1, 1, 0, q.stream, &k.ptrs[0], nil); r != cu.Success {
			b.Fatal(r)
		}
	}
	q.Finish()
}

func BenchmarkAdapterLaunch(b *testing.B) {
	_, q, k := openForBench(b)
	r := driver.NDRange{Dims: 1, Global: [3]uint64{32, 1, 1}}
	for b.Loop() {
		if _, err := q.Launch(k, r, nil, false); err != nil {
			b.Fatal(err)
		}
	}
	q.Finish()
}

// prepareForBench prepares the launch of k over 32 work-items on q.
func prepareForBench(b *testing.B, q *queue, k *kernel) driver.PreparedLaunch {
	b.Helper()
	p, err := q.PrepareLaunch(k, driver.NDRange{Dims: 1, Global: [3]uint64{32, 1, 1}})
	if err != nil {
		b.Fatal(err)
	}
	return p
}

// BenchmarkPreparedLaunch fills the stream: its launches soon stop being
// quick calls (the gate's budget), and wait for room.
func BenchmarkPreparedLaunch(b *testing.B) {
	_, q, k := openForBench(b)
	p := prepareForBench(b, q, k)
	for b.Loop() {
		if st := p.Launch(); st != driver.Launched {
			b.Fatal(st)
		}
	}
	q.Finish()
}

// The host-bound variants launch in batches of 200 and wait for the
// stream after each, so the stream never fills and a launch costs what the
// host spends on it (as scripts/bench/cuda.sh's host-bound regime).

const hostBoundBatch = 200

func benchHostBound(b *testing.B, q *queue, launch func() cu.Result) {
	for b.Loop() {
		for range hostBoundBatch {
			if r := launch(); r != cu.Success {
				b.Fatal(r)
			}
		}
		q.cu.StreamSynchronize(q.stream)
		q.quick.Refill() // drained, as Queue.Finish would say: prepared launches are quick again
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*hostBoundBatch), "ns/launch")
}

func BenchmarkHostBoundRawLaunch(b *testing.B) {
	d, q, k := openForBench(b)
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	d.a.cu.CtxSetCurrent(d.ctx)
	benchHostBound(b, q, func() cu.Result {
		return d.a.cu.LaunchKernel(k.fn, 1, 1, 1, 32, 1, 1, 0, q.stream, &k.ptrs[0], nil)
	})
}

func BenchmarkHostBoundRawLaunchIn(b *testing.B) {
	d, q, k := openForBench(b)
	benchHostBound(b, q, func() cu.Result {
		return d.a.cu.LaunchKernelIn(d.ctx, k.fn, 1, 1, 1, 32, 1, 1, 0, q.stream, &k.ptrs[0], nil)
	})
}

func BenchmarkHostBoundAdapterLaunch(b *testing.B) {
	_, q, k := openForBench(b)
	r := driver.NDRange{Dims: 1, Global: [3]uint64{32, 1, 1}}
	benchHostBound(b, q, func() cu.Result {
		if _, err := q.Launch(k, r, nil, false); err != nil {
			return cu.Unknown
		}
		return cu.Success
	})
}

func BenchmarkHostBoundPreparedLaunch(b *testing.B) {
	_, q, k := openForBench(b)
	p := prepareForBench(b, q, k)
	benchHostBound(b, q, func() cu.Result {
		if p.Launch() != driver.Launched {
			return cu.Unknown
		}
		return cu.Success
	})
}
