package main

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"slices"
	"time"
	"unsafe"

	"github.com/gour-dev/gour/cache"
	"github.com/gour-dev/gour/cmd/internal/cli"
	"github.com/gour-dev/gour/internal/dl"
	"github.com/gour-dev/gour/ur"
)

// memoryCommand is `urbench memory`.
func memoryCommand() (*cli.Command, func(io.Writer) error) {
	c := cli.New("urbench memory", "[-device SELECTOR] [-backend cuda|opencl] [-c-lib LIB] [-bytes N] [-rounds N] [-iters N]", `
Time gour's memory model on the first device of the backend that the
selector lets through, each figure the median of the rounds (min–max):

  alloc     1 MiB Queue.AllocAsync + Queue.FreeAsync through a Pool, per
            pair, the queue finished at the end of each round; with -c-lib
            (cuda), beside C doing cuMemAlloc + cuMemFree and C doing
            cuMemAllocFromPoolAsync + cuMemFreeAsync on gour's stream
            (scripts/bench/c/cuda_mem.c), rounds alternated in this process
  pinned    host to device and back between a USMHost allocation and device
            memory (EnqueueCopyToPtr / EnqueueCopyFromPtr, then Finish);
            with -c-lib beside C's cuMemcpyHtoDAsync / cuMemcpyDtoHAsync on
            cuMemHostAlloc memory; pageable Go memory beside them
  overlap   a host-to-device copy from pinned memory on one queue and a
            kernel calibrated to take as long on another: the wall time of
            both at once over the sum of each alone
  launch    an axpy launch on USM pointers vs the same kernel on buffers,
            per launch, host-bound (Queue.Launch in a loop, then Finish)

Every copy's data and the kernels' results are checked.`)
	backend := c.Flags.String("backend", "cuda", "the device's backend: cuda or opencl")
	cLib := c.Flags.String("c-lib", "", "with -backend cuda: the C baselines, built from scripts/bench/c/cuda_mem.c")
	size := c.Flags.String("bytes", "256M", "bytes per copy (K, M, G: powers of 1024)")
	rounds := c.Flags.Int("rounds", 10, "rounds of each measurement")
	iters := c.Flags.Int("iters", 2000, "allocations and launches per round")
	c.DeviceFlag()
	return c, func(w io.Writer) error {
		if *backend != "cuda" && *backend != "opencl" {
			return cli.Usagef(c.Name, "-backend %q: want cuda or opencl", *backend)
		}
		if *cLib != "" && *backend != "cuda" {
			return cli.Usagef(c.Name, "-c-lib needs -backend cuda")
		}
		n, err := cache.ParseSize(*size)
		if err != nil || n < 4096 {
			return cli.Usagef(c.Name, "-bytes %q: want a size of at least 4K, such as 256M", *size)
		}
		if *rounds < 1 || *iters < 1 {
			return cli.Usagef(c.Name, "-rounds and -iters must be at least 1")
		}
		dev, ctx, err := firstContext(c, *backend)
		if err != nil {
			return err
		}
		defer ctx.Release()
		b := &memoryBench{w: w, dev: dev, ctx: ctx, size: uint64(n) &^ 4095, rounds: *rounds, iters: *iters}
		if *cLib != "" {
			if b.c, err = openCMem(*cLib); err != nil {
				return err
			}
		}
		return b.run()
	}
}

type memoryBench struct {
	w             io.Writer
	dev           *ur.Device
	ctx           *ur.Context
	q, q2         *ur.Queue
	size          uint64
	rounds, iters int
	c             *cMem // nil without -c-lib
	prog          *ur.Program
	progErr       error
}

// cMem holds the entry points of scripts/bench/c/cuda_mem.c.
type cMem struct {
	allocFree, poolAllocFree, pinnedCopy uintptr
}

func openCMem(path string) (*cMem, error) {
	c := &cMem{}
	return c, openC(path, []dl.Symbol{{Name: "gour_bench_alloc_free", Addr: &c.allocFree},
		{Name: "gour_bench_pool_alloc_free", Addr: &c.poolAllocFree}, {Name: "gour_bench_pinned_copy", Addr: &c.pinnedCopy}})
}

// callC calls a C baseline and turns its CUresult into an error.
func callC(name string, fn uintptr, args dl.Args) error {
	if r := int32(dl.Call(fn, &args)); r != 0 {
		return fmt.Errorf("%s: CUDA error %d", name, r)
	}
	return nil
}

func (b *memoryBench) run() error {
	u := b.dev.Info().USM
	if !u.Device || !u.Host {
		return fmt.Errorf("%s has no device and host USM (%v): nothing to measure", b.dev, u)
	}
	var err error
	if b.q, err = b.ctx.NewQueue(b.dev, ur.QueueProperties{}); err != nil {
		return err
	}
	defer b.q.Release()
	if b.q2, err = b.ctx.NewQueue(b.dev, ur.QueueProperties{}); err != nil {
		return err
	}
	defer b.q2.Release()
	fmt.Fprintf(b.w, "%s\n%d rounds; allocations and launches: %d per round; copies: %d bytes\n", b.dev, b.rounds, b.iters, b.size)
	for _, step := range []func() error{b.alloc, b.pinned, b.overlap, b.launch} {
		if err := step(); err != nil {
			return err
		}
	}
	if b.prog != nil {
		b.prog.Release()
	}
	return nil
}

// line prints one figure as median (min–max).
func (b *memoryBench) line(name, unit string, v []float64, note string) {
	fmt.Fprintf(b.w, "%-22s %10.3f %s (%.3f–%.3f)%s\n", name, median(v), unit, slices.Min(v), slices.Max(v), note)
}

// alloc times 1 MiB pool allocations on the queue, beside C.
func (b *memoryBench) alloc() error {
	const size = 1 << 20
	pool, err := b.ctx.NewPool(b.dev, ur.PoolOptions{ReleaseThreshold: ^uint64(0)})
	if err != nil {
		return err
	}
	defer pool.Release()
	var gour, cPlain, cPool []float64
	for r := -1; r < b.rounds; r++ { // -1: the warm-up
		start := time.Now()
		for range b.iters {
			m, err := b.q.AllocAsync(pool, size)
			if err != nil {
				return err
			}
			if err := b.q.FreeAsync(m); err != nil {
				return err
			}
		}
		if err := b.q.Finish(); err != nil {
			return err
		}
		if r < 0 {
			continue
		}
		gour = append(gour, float64(time.Since(start).Nanoseconds())/float64(b.iters)/1e3)
		if b.c == nil {
			continue
		}
		var ns float64
		// cuMemAlloc synchronizes the device: a tenth of the iterations
		// gives the same mean in a tenth of the time.
		n := max(b.iters/10, 1)
		if err := callC("gour_bench_alloc_free", b.c.allocFree, dl.Args{b.ctx.Native(), size, uintptr(n), uintptr(unsafe.Pointer(&ns))}); err != nil {
			return err
		}
		cPlain = append(cPlain, ns/1e3)
		if err := callC("gour_bench_pool_alloc_free", b.c.poolAllocFree, dl.Args{b.ctx.Native(), b.q.Native(), 0, size, uintptr(b.iters), uintptr(unsafe.Pointer(&ns))}); err != nil {
			return err
		}
		cPool = append(cPool, ns/1e3)
	}
	b.line("alloc.pool (gour)", "µs", gour, "  1 MiB AllocAsync + FreeAsync")
	if b.c != nil {
		b.line("alloc.c.memalloc", "µs", cPlain, fmt.Sprintf("  cuMemAlloc + cuMemFree: gour %.0f× faster (target ≥ 50×)", median(cPlain)/median(gour)))
		b.line("alloc.c.pool", "µs", cPool, fmt.Sprintf("  cuMemAllocFromPoolAsync + cuMemFreeAsync: gour/C %.3f (target ≤ 1.1)", median(gour)/median(cPool)))
	}
	return nil
}

// pinned times copies between page-locked host memory and the device,
// beside pageable Go memory and C.
func (b *memoryBench) pinned() error {
	host, err := b.ctx.AllocHost(b.size)
	if err != nil {
		return err
	}
	defer host.Free()
	dev, err := b.ctx.AllocDevice(b.dev, b.size)
	if err != nil {
		return err
	}
	defer dev.Free()
	hs, err := ur.HostSlice[byte](host)
	if err != nil {
		return err
	}
	pageable := make([]byte, b.size)
	gbps := func(d time.Duration, copies int) float64 {
		return float64(b.size) * float64(copies) / d.Seconds() / 1e9
	}
	const copies = 4
	// timeCopies runs copies copies from src to the device (or back into
	// dst), then Finish.
	timeCopies := func(toDevice bool, mem []byte) (float64, error) {
		start := time.Now()
		for range copies {
			var ev *ur.Event
			var err error
			if toDevice {
				ev, err = b.q.EnqueueCopyToPtr(dev.Ptr(), mem)
			} else {
				ev, err = b.q.EnqueueCopyFromPtr(mem, dev.Ptr())
			}
			if err != nil {
				return 0, err
			}
			ev.Release()
		}
		if err := b.q.Finish(); err != nil {
			return 0, err
		}
		return gbps(time.Since(start), copies), nil
	}
	var h2d, d2h, ph2d, pd2h, ch2d, cd2h []float64
	for r := -1; r < b.rounds; r++ {
		fillRound(hs, r)
		v1, err := timeCopies(true, hs)
		if err != nil {
			return err
		}
		clear(hs)
		v2, err := timeCopies(false, hs)
		if err != nil {
			return err
		}
		if !roundFilled(hs, r) {
			return fmt.Errorf("pinned round %d: the data read back differs from the data written", r)
		}
		fillRound(pageable, r+1000)
		v3, err := timeCopies(true, pageable)
		if err != nil {
			return err
		}
		clear(pageable)
		v4, err := timeCopies(false, pageable)
		if err != nil {
			return err
		}
		if !roundFilled(pageable, r+1000) {
			return fmt.Errorf("pageable round %d: the data read back differs from the data written", r)
		}
		if r < 0 {
			continue
		}
		h2d, d2h, ph2d, pd2h = append(h2d, v1), append(d2h, v2), append(ph2d, v3), append(pd2h, v4)
		if b.c != nil {
			var ch, cd float64
			if err := callC("gour_bench_pinned_copy", b.c.pinnedCopy, dl.Args{b.ctx.Native(), b.q.Native(), uintptr(b.size), copies,
				uintptr(unsafe.Pointer(&ch)), uintptr(unsafe.Pointer(&cd))}); err != nil {
				return err
			}
			ch2d, cd2h = append(ch2d, ch), append(cd2h, cd)
		}
	}
	note := func(g, c []float64) string {
		if c == nil {
			return ""
		}
		return fmt.Sprintf("  C %.2f GB/s: gour/C %.3f (target ≥ 0.95)", median(c), median(g)/median(c))
	}
	b.line("copy.pinned.h2d", "GB/s", h2d, note(h2d, ch2d))
	b.line("copy.pinned.d2h", "GB/s", d2h, note(d2h, cd2h))
	b.line("copy.pageable.h2d", "GB/s", ph2d, "")
	b.line("copy.pageable.d2h", "GB/s", pd2h, "")
	return nil
}

// fillRound and roundFilled mark memory with its round, word by word.
func fillRound(b []byte, round int) {
	for i := 0; i+8 <= len(b); i += 4096 {
		binary.LittleEndian.PutUint64(b[i:], uint64(round+2)*0x9e3779b97f4a7c15^uint64(i))
	}
}

func roundFilled(b []byte, round int) bool {
	for i := 0; i+8 <= len(b); i += 4096 {
		if binary.LittleEndian.Uint64(b[i:]) != uint64(round+2)*0x9e3779b97f4a7c15^uint64(i) {
			return false
		}
	}
	return true
}

// memorySources are the benchmark's kernels: spin (a compute loop that
// takes as long as its iteration count says) and axpy.
var memorySources = map[string]string{
	"opencl": `__kernel void spin(__global float *out, uint iters) {
	float x = (float)get_global_id(0);
	for (uint i = 0; i < iters; i++) x = x * 0.999f + 0.5f;
	out[get_global_id(0)] = x;
}
__kernel void axpy(float a, __global const float *x, __global float *y) {
	size_t i = get_global_id(0);
	y[i] = a * x[i] + y[i];
}`,
	"cuda": `extern "C" __global__ void spin(float *out, unsigned int iters) {
	unsigned int g = blockIdx.x * blockDim.x + threadIdx.x;
	float x = (float)g;
	for (unsigned int i = 0; i < iters; i++) x = x * 0.999f + 0.5f;
	out[g] = x;
}
extern "C" __global__ void axpy(float a, const float *x, float *y) {
	unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
	y[i] = a * x[i] + y[i];
}`,
}

// kernel builds the benchmark's program once and makes one of its kernels.
func (b *memoryBench) kernel(name string) (*ur.Kernel, error) {
	if b.prog == nil && b.progErr == nil {
		b.prog, b.progErr = b.ctx.NewProgramFromSource(memorySources[b.dev.Backend()])
		if b.progErr == nil {
			b.progErr = b.prog.Build("")
		}
	}
	if b.progErr != nil {
		return nil, b.progErr
	}
	return b.prog.NewKernel(name)
}

// overlap runs a pinned copy on q and a spin kernel of about the same
// duration on q2, alone and together.
func (b *memoryBench) overlap() error {
	host, err := b.ctx.AllocHost(b.size)
	if err != nil {
		return err
	}
	defer host.Free()
	dev, err := b.ctx.AllocDevice(b.dev, b.size)
	if err != nil {
		return err
	}
	defer dev.Free()
	hs, err := ur.HostSlice[byte](host)
	if err != nil {
		return err
	}
	spin, err := b.kernel("spin")
	if err != nil {
		return err
	}
	defer spin.Release()
	const items = 1 << 16
	out, err := b.ctx.AllocDevice(b.dev, 4*items)
	if err != nil {
		return err
	}
	defer out.Free()
	if err := spin.SetArgPtr(0, out.Ptr()); err != nil {
		return err
	}
	copyOnce := func() error {
		ev, err := b.q.EnqueueCopyToPtr(dev.Ptr(), hs)
		if err == nil {
			ev.Release()
		}
		return err
	}
	spinOnce := func(iters uint32) error {
		if err := spin.SetArgUint32(1, iters); err != nil {
			return err
		}
		return b.q2.Launch(spin, ur.Range1D(items))
	}
	finish := func() error { return errors.Join(b.q.Finish(), b.q2.Finish()) }
	timed := func(f func() error) (time.Duration, error) {
		start := time.Now()
		if err := f(); err != nil {
			return 0, err
		}
		err := finish()
		return time.Since(start), err
	}
	// Calibrate: double the iterations until the kernel takes as long as
	// the copy, then scale.
	if _, err := timed(copyOnce); err != nil { // the first copy warms up
		return err
	}
	copyTime, err := timed(copyOnce)
	if err != nil {
		return err
	}
	iters := uint32(1024)
	var spinTime time.Duration
	for {
		if spinTime, err = timed(func() error { return spinOnce(iters) }); err != nil {
			return err
		}
		if spinTime*4 >= copyTime || iters >= 1<<30 {
			break
		}
		iters *= 2
	}
	iters = uint32(min(float64(iters)*float64(copyTime)/float64(spinTime), 1<<31))
	var ratios, copies, spins []float64
	for r := -1; r < b.rounds; r++ {
		c, err := timed(copyOnce)
		if err != nil {
			return err
		}
		s, err := timed(func() error { return spinOnce(iters) })
		if err != nil {
			return err
		}
		both, err := timed(func() error { return errors.Join(copyOnce(), spinOnce(iters)) })
		if err != nil {
			return err
		}
		if r >= 0 {
			ratios = append(ratios, both.Seconds()/(c+s).Seconds())
			copies, spins = append(copies, c.Seconds()*1e3), append(spins, s.Seconds()*1e3)
		}
	}
	check := make([]byte, 8)
	if err := b.q.CopyFromPtr(check, out.Ptr()); err != nil {
		return err
	}
	b.line("overlap.copy", "ms", copies, "  pinned host to device, alone")
	b.line("overlap.kernel", "ms", spins, fmt.Sprintf("  spin kernel (%d iterations), alone", iters))
	b.line("overlap.both/sum", "", ratios, "  both at once on two queues over the sum alone (target ≤ 0.6)")
	return nil
}

// launch times axpy launches on USM pointers and on buffers.
func (b *memoryBench) launch() error {
	const n = 1 << 10
	ptrK, err := b.kernel("axpy")
	if err != nil {
		return err
	}
	defer ptrK.Release()
	bufK, err := b.kernel("axpy")
	if err != nil {
		return err
	}
	defer bufK.Release()
	x, err := b.ctx.AllocDevice(b.dev, 4*n)
	if err != nil {
		return err
	}
	defer x.Free()
	y, err := b.ctx.AllocDevice(b.dev, 4*n)
	if err != nil {
		return err
	}
	defer y.Free()
	xb, err := b.ctx.NewBuffer(ur.MemReadWrite, 4*n)
	if err != nil {
		return err
	}
	defer xb.Release()
	yb, err := b.ctx.NewBuffer(ur.MemReadWrite, 4*n)
	if err != nil {
		return err
	}
	defer yb.Release()
	ones := make([]float32, n)
	for i := range ones {
		ones[i] = 1
	}
	err = errors.Join(b.q.CopyToPtr(x.Ptr(), ur.AsBytes(ones)), b.q.CopyToPtr(y.Ptr(), make([]byte, 4*n)),
		b.q.WriteBuffer(xb, 0, ur.AsBytes(ones)), b.q.WriteBuffer(yb, 0, make([]byte, 4*n)),
		ptrK.SetArgFloat32(0, 1), ptrK.SetArgPtr(1, x.Ptr()), ptrK.SetArgPtr(2, y.Ptr()),
		bufK.SetArgFloat32(0, 1), bufK.SetArgMem(1, xb), bufK.SetArgMem(2, yb))
	if err != nil {
		return err
	}
	timeLaunches := func(k *ur.Kernel) (float64, error) {
		start := time.Now()
		for range b.iters {
			if err := b.q.Launch(k, ur.Range1D(n)); err != nil {
				return 0, err
			}
		}
		err := b.q.Finish()
		return float64(time.Since(start).Nanoseconds()) / float64(b.iters) / 1e3, err
	}
	var ptrs, bufs []float64
	for r := -1; r < b.rounds; r++ {
		p, err := timeLaunches(ptrK)
		if err != nil {
			return err
		}
		bb, err := timeLaunches(bufK)
		if err != nil {
			return err
		}
		if r >= 0 {
			ptrs, bufs = append(ptrs, p), append(bufs, bb)
		}
	}
	launches := float32((b.rounds + 1) * b.iters)
	got := make([]float32, n)
	if err := b.q.CopyFromPtr(ur.AsBytes(got), y.Ptr()); err != nil {
		return err
	}
	gotb := make([]float32, n)
	if err := b.q.ReadBuffer(yb, 0, ur.AsBytes(gotb)); err != nil {
		return err
	}
	if got[n-1] != launches || gotb[n-1] != launches {
		return fmt.Errorf("after %v axpy launches y holds %v on pointers and %v on buffers", launches, got[n-1], gotb[n-1])
	}
	b.line("launch.axpy.ptr", "µs", ptrs, "  per launch, USM pointer arguments")
	b.line("launch.axpy.buffer", "µs", bufs, fmt.Sprintf("  per launch, buffer arguments: pointer/buffer %.3f", median(ptrs)/median(bufs)))
	return nil
}
