package main

import (
	"fmt"
	"io"
	"os"
	"runtime"
	"slices"
	"time"
	"unsafe"

	"github.com/gour-dev/gour/cmd/internal/cli"
	"github.com/gour-dev/gour/internal/dl"
	"github.com/gour-dev/gour/ur"
)

// launchBench is the state of `urbench launch`: the kernel "empty" with its
// one argument set, and the queue it is launched on.
type launchBench struct {
	ctx  *ur.Context
	q    *ur.Queue
	prog *ur.Program
	k    *ur.Kernel
}

// round times one round: launch n times (through launchN), then Finish. It
// returns nanoseconds per launch until the queue finished (total) and
// until the last launch returned (enqueue: what the host spends).
func (b *launchBench) round(n int, launchN func(int) error) (total, enqueue float64, err error) {
	start := time.Now()
	if err := launchN(n); err != nil {
		return 0, 0, err
	}
	enqueued := time.Since(start)
	if err := b.q.Finish(); err != nil {
		return 0, 0, err
	}
	return float64(time.Since(start).Nanoseconds()) / float64(n), float64(enqueued.Nanoseconds()) / float64(n), nil
}

// gourLaunches launches the kernel n times through gour, one Queue.Launch
// each.
func (b *launchBench) gourLaunches(n int) error {
	r := ur.Range1D(32)
	for range n {
		if err := b.q.Launch(b.k, r); err != nil {
			return err
		}
	}
	return nil
}

// preparedLaunches returns a launcher that launches the kernel n times
// through one ur.PreparedLaunch, and the function that releases it.
func (b *launchBench) preparedLaunches() (launchN func(int) error, release func(), err error) {
	p, err := b.q.PrepareLaunch(b.k, ur.Range1D(32))
	if err != nil {
		return nil, nil, err
	}
	launchN = func(n int) error {
		for range n {
			if err := p.Launch(); err != nil {
				return err
			}
		}
		return nil
	}
	return launchN, func() { p.Release() }, nil
}

// side is one way of launching that compare times.
type side struct {
	name             string
	launchN          func(int) error
	totals, enqueues []float64
}

// cSides returns the C launchers: n launches in one call of
// gour_bench_launch_loop (scripts/bench/c/cuda_loop.c) from the library at
// path, with the same context, kernel and stream as gour's launches; the
// second also makes the context current before each launch.
func (b *launchBench) cSides(path string) (c, cSetCtx side, err error) {
	lib, err := dl.Open(path)
	if err != nil {
		return c, cSetCtx, err
	}
	loop, err := lib.Lookup("gour_bench_launch_loop")
	if err != nil {
		return c, cSetCtx, err
	}
	ctx, fn, stream := b.ctx.Native(), b.k.Native(), b.q.Native()
	launcher := func(setCtx uintptr) func(int) error {
		return func(n int) error {
			args := dl.Args{ctx, fn, stream, uintptr(n), setCtx}
			if r := int32(dl.Call(loop, &args)); r != 0 {
				return fmt.Errorf("gour_bench_launch_loop: CUDA error %d", r)
			}
			return nil
		}
	}
	return side{name: "c", launchN: launcher(0)}, side{name: "c-setctx", launchN: launcher(1)}, nil
}

// directSides returns launchers that call cuLaunchKernel from Go through
// internal/dl, one C call per launch, without gour's layers: the first on
// a locked thread with the context made current once, the second making
// it current in the same C call each time (dl.CallAfter), as Go code that
// does not lock its thread must where the driver wants the context
// current, the third as the first but with quick calls (dl.CallQuick).
// They split gour's cost into the Go-to-C call and the rest.
func (b *launchBench) directSides() (direct, directSetCtx, directQuick side, err error) {
	lib, err := dl.Open("libcuda.so.1")
	if err != nil {
		return direct, directSetCtx, directQuick, err
	}
	var launchKernel, setCurrent uintptr
	if err := lib.Resolve([]dl.Symbol{{Name: "cuLaunchKernel", Addr: &launchKernel}, {Name: "cuCtxSetCurrent", Addr: &setCurrent}}); err != nil {
		return direct, directSetCtx, directQuick, err
	}
	ctx, fn, stream := b.ctx.Native(), b.k.Native(), b.q.Native()
	params := &struct {
		ptrs  [1]unsafe.Pointer
		value uint64
	}{}
	params.ptrs[0] = unsafe.Pointer(&params.value)
	args := &dl.Args{fn, 1, 1, 1, 32, 1, 1, 0, stream, uintptr(unsafe.Pointer(&params.ptrs[0]))}
	fail := func(fn string, r uintptr) error { return fmt.Errorf("%s: CUDA error %d", fn, int32(r)) }
	// onThread launches on a locked thread with the context made current
	// once, each launch one C call, quick (dl.CallQuick) or not.
	onThread := func(name string, quick bool) side {
		return side{name: name, launchN: func(n int) error {
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			setArgs := dl.Args{ctx}
			if r := int32(dl.Call(setCurrent, &setArgs)); r != 0 {
				return fail("cuCtxSetCurrent", uintptr(r))
			}
			for range n {
				if r := dl.CallQuickIf(quick, launchKernel, args); int32(r) != 0 {
					return fail("cuLaunchKernel", r)
				}
			}
			runtime.KeepAlive(params)
			return nil
		}}
	}
	direct, directQuick = onThread("go-direct", false), onThread("go-direct-quick", true)
	directSetCtx = side{name: "go-direct-setctx", launchN: func(n int) error {
		for range n {
			if r, ok := dl.CallAfter(setCurrent, ctx, launchKernel, args); int32(r) != 0 {
				if !ok {
					return fail("cuCtxSetCurrent", r)
				}
				return fail("cuLaunchKernel", r)
			}
		}
		runtime.KeepAlive(params)
		return nil
	}}
	return direct, directSetCtx, directQuick, nil
}

// newLaunchBench makes the queue and the kernel "empty" on the first
// device of backend that c's selector lets through: from the PTX in ptxFile on CUDA, from OpenCL C
// otherwise.
func newLaunchBench(c *cli.Command, backend, ptxFile string) (*launchBench, error) {
	dev, ctx, err := firstContext(c, backend)
	if err != nil {
		return nil, err
	}
	b := &launchBench{ctx: ctx}
	if b.q, err = b.ctx.NewQueue(dev, ur.QueueProperties{}); err != nil {
		b.close()
		return nil, err
	}
	if backend == "cuda" {
		var ptx []byte
		if ptx, err = os.ReadFile(ptxFile); err == nil {
			b.prog, err = b.ctx.NewProgramFromIL(ptx)
		}
	} else {
		b.prog, err = b.ctx.NewProgramFromSource("__kernel void empty(ulong p) {}")
	}
	if err != nil {
		b.close()
		return nil, err
	}
	if err := b.prog.Build(""); err != nil {
		b.close()
		return nil, err
	}
	if b.k, err = b.prog.NewKernel("empty"); err != nil {
		b.close()
		return nil, err
	}
	if err := b.k.SetArgUint64(0, 0); err != nil {
		b.close()
		return nil, err
	}
	return b, nil
}

// close releases what newLaunchBench made.
func (b *launchBench) close() {
	if b.k != nil {
		b.k.Release()
	}
	if b.prog != nil {
		b.prog.Release()
	}
	if b.q != nil {
		b.q.Release()
	}
	b.ctx.Release()
}

// launchCommand is `urbench launch`.
func launchCommand() (*cli.Command, func(io.Writer) error) {
	c := cli.New("urbench launch", "[-backend cuda|opencl] [-device SELECTOR] [-ptx FILE] [-iters N] [-rounds R]\n"+
		"       [-prepared | -c-loop LIB [-breakdown]] [-cpuprofile FILE]", `
Time R rounds of N launches of the kernel "empty" through gour, with no
event, then one Finish, and print a line in the format of the C programs in
scripts/bench/c. With -c-loop, alternate those rounds with rounds of C
launches in this process, on the same context, stream and kernel.
It runs on the first device of -backend that the selector lets through.`)
	var o launchOptions
	fs := c.Flags
	fs.StringVar(&o.backend, "backend", "cuda", "adapter to launch on: cuda or opencl")
	fs.StringVar(&o.ptxFile, "ptx", "scripts/bench/empty.ptx", "the PTX `FILE` holding the kernel empty(u64) (cuda)")
	fs.IntVar(&o.iters, "iters", 20000, "launches per round")
	fs.IntVar(&o.rounds, "rounds", 10, "rounds")
	fs.StringVar(&o.cLoopLib, "c-loop", "", "load the C launch loop from `LIB` (built from scripts/bench/c/cuda_loop.c) and alternate its rounds with gour's in this process (cuda)")
	fs.BoolVar(&o.breakdown, "breakdown", false, "with -c-loop: also time C making the context current before each launch, and Go calling cuLaunchKernel without gour's layers")
	fs.StringVar(&o.cpuProfile, "cpuprofile", "", "write a CPU profile of the timed rounds to `FILE`")
	fs.BoolVar(&o.prepared, "prepared", false, "without -c-loop: launch through a ur.PreparedLaunch instead of Queue.Launch (with -c-loop both are timed)")
	c.DeviceFlag()
	return c, func(w io.Writer) error {
		if err := checkBackend(c, o.backend); err != nil {
			return err
		}
		if o.cLoopLib != "" && o.backend != "cuda" {
			return cli.Usagef(c.Name, "-c-loop needs -backend cuda")
		}
		if o.iters < 1 || o.rounds < 1 {
			return cli.Usagef(c.Name, "-iters and -rounds must be at least 1")
		}
		return launch(w, c, o)
	}
}

// launchOptions are the flags of `urbench launch`.
type launchOptions struct {
	backend, ptxFile, cLoopLib, cpuProfile string
	iters, rounds                          int
	breakdown, prepared                    bool
}

// launch runs `urbench launch` on the first device of o.backend that
// cmd's selector lets through.
func launch(w io.Writer, cmd *cli.Command, o launchOptions) error {
	b, err := newLaunchBench(cmd, o.backend, o.ptxFile)
	if err != nil {
		return err
	}
	defer b.close()
	stop, err := startCPUProfile(o.cpuProfile)
	if err != nil {
		return err
	}
	defer stop()
	preparedN, release, err := b.preparedLaunches()
	if err != nil {
		return err
	}
	defer release()
	if o.cLoopLib == "" {
		if o.prepared {
			return b.report(w, side{name: "gour", launchN: preparedN}, o.iters, o.rounds)
		}
		return b.report(w, side{name: "gour", launchN: b.gourLaunches}, o.iters, o.rounds)
	}
	c, cSetCtx, err := b.cSides(o.cLoopLib)
	if err != nil {
		return err
	}
	sides := []side{c, {name: "gour", launchN: b.gourLaunches}, {name: "gour-prepared", launchN: preparedN}}
	if o.breakdown {
		direct, directSetCtx, directQuick, err := b.directSides()
		if err != nil {
			return err
		}
		sides = append(sides, cSetCtx, direct, directSetCtx, directQuick)
	}
	return b.compare(w, sides, o.iters, o.rounds)
}

// timeRounds warms each side up, then times rounds of iters launches of
// each side in turn, rotating which goes first every round so none always
// follows another, and records each round's times in its side.
func (b *launchBench) timeRounds(sides []side, iters, rounds int) error {
	for i := range sides {
		if _, _, err := b.round(1000, sides[i].launchN); err != nil { // warm up
			return err
		}
	}
	for r := range rounds {
		for j := range sides {
			s := &sides[(j+r)%len(sides)]
			t, e, err := b.round(iters, s.launchN)
			if err != nil {
				return err
			}
			s.totals = append(s.totals, t)
			s.enqueues = append(s.enqueues, e)
		}
	}
	return nil
}

// line formats a side's medians in the format of the C programs in
// scripts/bench/c, which scripts/bench parses.
func (s *side) line(iters, rounds int) string {
	return fmt.Sprintf("ns/launch %.1f enqueue %.1f (median of %d rounds x %d launches; min %.1f max %.1f)",
		median(s.totals), median(s.enqueues), rounds, iters, slices.Min(s.totals), slices.Max(s.totals))
}

// report times one side and prints its line.
func (b *launchBench) report(w io.Writer, s side, iters, rounds int) error {
	sides := []side{s}
	if err := b.timeRounds(sides, iters, rounds); err != nil {
		return err
	}
	_, err := fmt.Fprintf(w, "%-4s %s\n", s.name, sides[0].line(iters, rounds))
	return err
}

// compare times the sides against each other and prints each one's line
// and its ratio to the first side's. The sides share the process, the
// context, the stream and the machine's state at that moment, so the
// ratios are their costs over C's and little else.
func (b *launchBench) compare(w io.Writer, sides []side, iters, rounds int) error {
	if err := b.timeRounds(sides, iters, rounds); err != nil {
		return err
	}
	base := &sides[0]
	for i := range sides {
		fmt.Fprintf(w, "in-process %-16s %s\n", sides[i].name, sides[i].line(iters, rounds))
	}
	for _, s := range sides[1:] {
		fmt.Fprintf(w, "in-process ratio %s/%s: enqueue %.3f total %.3f\n", s.name, base.name,
			median(s.enqueues)/median(base.enqueues), median(s.totals)/median(base.totals))
	}
	return nil
}
