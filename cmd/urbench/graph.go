package main

import (
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"sync"
	"time"
	"unsafe"

	"github.com/gour-dev/gour/cmd/internal/cli"
	"github.com/gour-dev/gour/internal/dl"
	"github.com/gour-dev/gour/ur"
)

// graphCommand is `urbench graph`.
func graphCommand() (*cli.Command, func(io.Writer) error) {
	c := cli.New("urbench graph", "[-device SELECTOR] [-backend cuda|opencl] [-c-lib LIB] [-kernels N] [-cmdbuf MODES] [-rounds N] [-iters N] [-launch-rounds N] [-launch-iters N] [-cpuprofile FILE]", `
Time gour's launch model on the first device of the backend that the
selector lets through, each figure the median of the rounds (min–max).
The kernel is axpb(y, a, b, n): y[i] = a*i + b over one work-group of 128
items, small enough that the launch path dominates:

  launch.args   Queue.Launch with its 4 arguments, a and b new each
                launch, per launch (host-bound: -launch-iters launches,
                then Finish, in each of -launch-rounds rounds); with -c-lib
                (cuda) beside C calling cuLaunchKernel with its
                kernelParams on gour's stream and kernel, the three
                alternating round by round
  launch.args.prep
                the same launches prepared once (Queue.PrepareLaunchArgs):
                SetArg of a and b, then ArgLaunch.Launch
  graph.*       a CommandBuffer of -kernels launches (node i: a = i,
                b = kernels - i) replayed, per kernel, against the same
                launches made one by one with Launch and arguments; with -c-lib
                beside C launching them one by one and C replaying the same
                CUDA graph (scripts/bench/c/cuda_graph.c); -cmdbuf names
                the command buffers to time (auto, native, emulated, or a
                comma-separated list of them: all replayed in each round,
                beside the launches one by one), graph.replay being the
                first and graph.replay.MODE each of the others
  parallel.*    64 goroutines launching one kernel with Launch and arguments at once:
                their aggregate launch rate against one goroutine's

Every measurement's result is read back and checked.`)
	backend := c.Flags.String("backend", "cuda", "the device's backend: cuda or opencl")
	cLib := c.Flags.String("c-lib", "", "with -backend cuda: the C baselines, built from scripts/bench/c/cuda_graph.c")
	kernels := c.Flags.Int("kernels", 1000, "launches in the command buffer")
	cmdbuf := c.Flags.String("cmdbuf", "auto", "the command buffers to time: auto, native, emulated, or a comma-separated list")
	rounds := c.Flags.Int("rounds", 10, "rounds of each measurement")
	launchRounds := c.Flags.Int("launch-rounds", 1000, "rounds of the launch.args measurements, short so that C and gour alternate often")
	launchIters := c.Flags.Int("launch-iters", 200, "launches per launch.args round")
	iters := c.Flags.Int("iters", 20000, "launches per round (launch.args, parallel) and kernels per round (graph: iters/kernels replays, at least 1)")
	cpuProfile := c.Flags.String("cpuprofile", "", "write a CPU profile of the run to `FILE`")
	c.DeviceFlag()
	return c, func(w io.Writer) error {
		if *backend != "cuda" && *backend != "opencl" {
			return cli.Usagef(c.Name, "-backend %q: want cuda or opencl", *backend)
		}
		if *cLib != "" && *backend != "cuda" {
			return cli.Usagef(c.Name, "-c-lib needs -backend cuda")
		}
		if *rounds < 1 || *iters < 1 || *kernels < 1 || *launchRounds < 1 || *launchIters < 1 {
			return cli.Usagef(c.Name, "-rounds, -iters, -kernels, -launch-rounds and -launch-iters must be at least 1")
		}
		modes, err := parseCmdbufModes(*cmdbuf)
		if err != nil {
			return cli.Usagef(c.Name, "-cmdbuf: %v", err)
		}
		dev, ctx, err := firstContext(c, *backend)
		if err != nil {
			return err
		}
		defer ctx.Release()
		stop, err := startCPUProfile(*cpuProfile)
		if err != nil {
			return err
		}
		defer stop()
		b := &graphBench{w: w, dev: dev, ctx: ctx, kernels: *kernels, rounds: *rounds, iters: *iters, launchRounds: *launchRounds, launchIters: *launchIters, modes: modes}
		if *cLib != "" {
			if b.c, err = openCGraph(*cLib); err != nil {
				return err
			}
		}
		return b.run()
	}
}

// graphItems is the work of one launch: one work-group of 128 items, as
// the C baselines launch it.
const graphItems = 128

type graphBench struct {
	w                      io.Writer
	dev                    *ur.Device
	ctx                    *ur.Context
	q                      *ur.Queue
	k                      *ur.Kernel
	kernels, rounds, iters int
	launchRounds           int // rounds of the launch.args measurements
	launchIters            int // launches per such round
	c                      *cGraph
	modes                  []cmdbufMode // the command buffers graph times
}

// cmdbufMode is a command buffer mode of -cmdbuf.
type cmdbufMode struct {
	name string
	mode ur.CommandBufferMode
}

func parseCmdbufModes(s string) ([]cmdbufMode, error) {
	var out []cmdbufMode
	for name := range strings.SplitSeq(s, ",") {
		m, ok := map[string]ur.CommandBufferMode{"auto": ur.CommandBufferAuto, "native": ur.CommandBufferNative, "emulated": ur.CommandBufferEmulated}[name]
		if !ok {
			return nil, fmt.Errorf("%q: want auto, native or emulated", name)
		}
		out = append(out, cmdbufMode{name, m})
	}
	return out, nil
}

// graphSources hold axpb, the kernel of scripts/bench/c/cuda_graph.c.
var graphSources = map[string]string{
	"opencl": `__kernel void axpb(__global float *y, float a, float b, uint n) {
	uint i = get_global_id(0);
	if (i < n) y[i] = a * (float)i + b;
}`,
	"cuda": `extern "C" __global__ void axpb(float *y, float a, float b, unsigned int n) {
	unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) y[i] = a * (float)i + b;
}`,
}

// cGraph holds the entry points of scripts/bench/c/cuda_graph.c.
type cGraph struct {
	launchArgs, graph, oneByOne uintptr
}

func openCGraph(path string) (*cGraph, error) {
	c := &cGraph{}
	return c, openC(path, []dl.Symbol{{Name: "gour_bench_launch_args", Addr: &c.launchArgs},
		{Name: "gour_bench_graph", Addr: &c.graph}, {Name: "gour_bench_one_by_one", Addr: &c.oneByOne}})
}

// deviceArray is y: device USM where the device has it (the C baselines
// need a device pointer), else a buffer.
type deviceArray struct {
	usm *ur.USM
	mem *ur.Mem
}

func (b *graphBench) newArray(n uint64) (*deviceArray, error) {
	if b.dev.Info().USM.Device {
		u, err := b.ctx.AllocDevice(b.dev, n*4)
		return &deviceArray{usm: u}, err
	}
	if b.c != nil {
		return nil, fmt.Errorf("%s has no device USM, which the C baselines need", b.dev)
	}
	m, err := b.ctx.NewBuffer(ur.MemReadWrite, n*4)
	return &deviceArray{mem: m}, err
}

func (a *deviceArray) arg() ur.Arg {
	if a.usm != nil {
		return ur.ArgPtr(a.usm.Ptr())
	}
	return ur.ArgBuffer(a.mem)
}

func (a *deviceArray) release() {
	if a.usm != nil {
		a.usm.Free()
	} else {
		a.mem.Release()
	}
}

// check reads y back and compares it with a*i + b.
func (b *graphBench) check(what string, y *deviceArray, av, bv float32) error {
	got := make([]float32, graphItems)
	var err error
	if y.usm != nil {
		err = b.q.CopyFromPtr(ur.AsBytes(got), y.usm.Ptr())
	} else {
		err = b.q.ReadBuffer(y.mem, 0, ur.AsBytes(got))
	}
	if err != nil {
		return err
	}
	for i, v := range got {
		if want := av*float32(i) + bv; math.Abs(float64(v-want)) > 1e-3*math.Abs(float64(want))+1e-3 {
			return fmt.Errorf("%s: y[%d] = %v, want %v", what, i, v, want)
		}
	}
	return nil
}

func (b *graphBench) run() error {
	var err error
	if b.q, err = b.ctx.NewQueue(b.dev, ur.QueueProperties{}); err != nil {
		return err
	}
	defer b.q.Release()
	prog, err := b.ctx.NewProgramFromSource(graphSources[b.dev.Backend()])
	if err != nil {
		return err
	}
	defer prog.Release()
	if err := prog.Build(""); err != nil {
		return err
	}
	if b.k, err = prog.NewKernel("axpb"); err != nil {
		return err
	}
	defer b.k.Release()
	fmt.Fprintf(b.w, "%s\n%d rounds; %d launches per round; %d kernels in the command buffer\n", b.dev, b.rounds, b.iters, b.kernels)
	for _, step := range []func() error{b.launchArgs, b.graph, b.parallel} {
		if err := step(); err != nil {
			return err
		}
	}
	return nil
}

func (b *graphBench) line(name, unit string, v []float64, note string) {
	fmt.Fprintf(b.w, "%-16s %10.3f %s (%.3f–%.3f)%s\n", name, median(v), unit, slices.Min(v), slices.Max(v), note)
}

// one is the range of every launch: one work-group of graphItems.
func one() ur.NDRange {
	r := ur.Range1D(graphItems)
	r.Local[0] = graphItems
	return r
}

// cArgs are the arguments every C baseline begins with: gour's context,
// kernel, stream and y.
func (b *graphBench) cArgs(y *deviceArray) [5]uintptr {
	return [5]uintptr{b.ctx.Native(), b.k.Native(), b.q.Native(), y.usm.Addr(), graphItems}
}

// launchArgs times Launch with arguments, with a and b changing every launch.
func (b *graphBench) launchArgs() error {
	y, err := b.newArray(graphItems)
	if err != nil {
		return err
	}
	defer y.release()
	prep, err := b.q.PrepareLaunchArgs(b.k, one(), ur.LaunchProperties{}, y.arg(), ur.ArgOf(float32(0)), ur.ArgOf(float32(0)), ur.ArgOf(uint32(graphItems)))
	if err != nil {
		return err
	}
	defer prep.Release()
	n := b.launchIters
	// Three ways to make the same n launches; each round runs them in a
	// rotating order, so that none always follows another.
	ways := []struct {
		name string
		run  func() (float64, error)
		ns   []float64
	}{
		{"ArgLaunch", func() (float64, error) {
			start := time.Now()
			for i := range n {
				if err := errors.Join(prep.SetArg(1, ur.ArgOf(float32(i))), prep.SetArg(2, ur.ArgOf(float32(n-i))), prep.Launch()); err != nil {
					return 0, err
				}
			}
			err := b.q.Finish()
			return float64(time.Since(start).Nanoseconds()) / float64(n), err
		}, nil},
		{"LaunchArgs", func() (float64, error) {
			start := time.Now()
			for i := range n {
				if err := b.q.Launch(b.k, one(), y.arg(), ur.ArgOf(float32(i)), ur.ArgOf(float32(n-i)), ur.ArgOf(uint32(graphItems))); err != nil {
					return 0, err
				}
			}
			err := b.q.Finish()
			return float64(time.Since(start).Nanoseconds()) / float64(n), err
		}, nil},
	}
	if b.c != nil {
		ways = append(ways, struct {
			name string
			run  func() (float64, error)
			ns   []float64
		}{"C cuLaunchKernel", func() (float64, error) {
			var submit, total float64
			a := b.cArgs(y)
			err := callC("gour_bench_launch_args", b.c.launchArgs, dl.Args{a[0], a[1], a[2], a[3], a[4], uintptr(n),
				uintptr(unsafe.Pointer(&submit)), uintptr(unsafe.Pointer(&total))})
			return total, err
		}, nil})
	}
	for r := -1; r < b.launchRounds; r++ {
		for j := range ways {
			w := &ways[(j+max(r, 0))%len(ways)]
			ns, err := w.run()
			if err != nil {
				return err
			}
			if err := b.check(w.name, y, float32(n-1), 1); err != nil {
				return err
			}
			if r >= 0 {
				w.ns = append(w.ns, ns)
			}
		}
	}
	prepared, gour := ways[0].ns, ways[1].ns
	var cside []float64
	if b.c != nil {
		cside = ways[2].ns
	}
	fmt.Fprintf(b.w, "launches with arguments: %d rounds of %d launches\n", b.launchRounds, n)
	note := "  4 arguments, a and b new each launch"
	if cside != nil {
		note += fmt.Sprintf("; gour/C %.3f (target ≤ 1.05)", median(gour)/median(cside))
	}
	b.line("launch.args", "ns", gour, note)
	note = "  ArgLaunch: SetArg of a and b, then Launch"
	if cside != nil {
		note += fmt.Sprintf("; gour/C %.3f (target ≤ 1.05)", median(prepared)/median(cside))
	}
	b.line("launch.args.prep", "ns", prepared, note)
	if cside != nil {
		b.line("launch.args.c", "ns", cside, "  C: cuLaunchKernel with kernelParams")
	}
	return nil
}

// graph times a command buffer of b.kernels launches replayed, against
// the launches made one by one.
func (b *graphBench) graph() error {
	y, err := b.newArray(graphItems)
	if err != nil {
		return err
	}
	defer y.release()
	type timed struct {
		mode  cmdbufMode
		cb    *ur.CommandBuffer
		built time.Duration
		ns    []float64
	}
	var cbs []*timed
	for _, m := range b.modes {
		start := time.Now()
		cb, err := b.ctx.NewCommandBuffer(b.dev, ur.CommandBufferOptions{Mode: m.mode})
		if errors.Is(err, ur.ErrUnsupportedFeature) && len(b.modes) > 1 {
			fmt.Fprintf(b.w, "graph: -cmdbuf %s skipped: %v\n", m.name, err)
			continue
		}
		if err != nil {
			return fmt.Errorf("-cmdbuf %s: %w", m.name, err)
		}
		defer cb.Release()
		for i := range b.kernels {
			if _, err := cb.AppendLaunch(b.k, one(), ur.LaunchProperties{}, y.arg(), ur.ArgOf(float32(i)), ur.ArgOf(float32(b.kernels-i)), ur.ArgOf(uint32(graphItems))); err != nil {
				return err
			}
		}
		if err := cb.Finalize(); err != nil {
			return err
		}
		cbs = append(cbs, &timed{mode: m, cb: cb, built: time.Since(start)})
	}
	if len(cbs) == 0 {
		return fmt.Errorf("-cmdbuf: none of the command buffers could be made")
	}
	replays := max(b.iters/b.kernels, 1)
	perKernel := func(d time.Duration) float64 { return float64(d.Nanoseconds()) / float64(replays*b.kernels) }
	lastA, lastB := float32(b.kernels-1), float32(1)
	var single, cSingle, cGraph []float64
	for r := -1; r < b.rounds; r++ {
		// The command buffers in an order rotating round by round, then
		// the launches one by one.
		for j := range cbs {
			t := cbs[(j+max(r, 0))%len(cbs)]
			start := time.Now()
			for range replays {
				ev, err := b.q.EnqueueCommandBuffer(t.cb)
				if err != nil {
					return err
				}
				ev.Release()
			}
			if err := b.q.Finish(); err != nil {
				return err
			}
			rep := perKernel(time.Since(start))
			if err := b.check("the "+t.mode.name+" command buffer", y, lastA, lastB); err != nil {
				return err
			}
			if r >= 0 {
				t.ns = append(t.ns, rep)
			}
		}
		start := time.Now()
		for range replays {
			for i := range b.kernels {
				if err := b.q.Launch(b.k, one(), y.arg(), ur.ArgOf(float32(i)), ur.ArgOf(float32(b.kernels-i)), ur.ArgOf(uint32(graphItems))); err != nil {
					return err
				}
			}
		}
		if err := b.q.Finish(); err != nil {
			return err
		}
		sgl := perKernel(time.Since(start))
		if err := b.check("one by one", y, lastA, lastB); err != nil {
			return err
		}
		var cs, cg float64
		if b.c != nil {
			var build, submit float64
			a := b.cArgs(y)
			if err := callC("gour_bench_one_by_one", b.c.oneByOne, dl.Args{a[0], a[1], a[2], a[3], a[4], uintptr(b.kernels), uintptr(replays),
				uintptr(unsafe.Pointer(&submit)), uintptr(unsafe.Pointer(&cs))}); err != nil {
				return err
			}
			if err := callC("gour_bench_graph", b.c.graph, dl.Args{a[0], a[1], a[2], a[3], a[4], uintptr(b.kernels), uintptr(replays),
				uintptr(unsafe.Pointer(&build)), uintptr(unsafe.Pointer(&submit)), uintptr(unsafe.Pointer(&cg))}); err != nil {
				return err
			}
			if err := b.check("the C graph", y, lastA, lastB); err != nil {
				return err
			}
		}
		if r >= 0 {
			single = append(single, sgl)
			if b.c != nil {
				cSingle, cGraph = append(cSingle, cs), append(cGraph, cg)
			}
		}
	}
	for j, t := range cbs {
		kind := "native"
		if t.cb.Emulated() {
			kind = "emulated"
		}
		fmt.Fprintf(b.w, "graph: a %s command buffer of %d launches (-cmdbuf %s), recorded and finalized in %.0f µs, replayed %d times a round\n", kind, b.kernels, t.mode.name, float64(t.built.Microseconds()), replays)
		name := "graph.replay"
		if j > 0 {
			name += "." + t.mode.name
		}
		b.line(name, "ns/kernel", t.ns, fmt.Sprintf("  %.3f× one by one", median(t.ns)/median(single)))
	}
	replayed := cbs[0].ns
	b.line("graph.single", "ns/kernel", single, "  the same launches one by one (Launch with arguments)")
	if b.c != nil {
		b.line("graph.c.single", "ns/kernel", cSingle, fmt.Sprintf("  C cuLaunchKernel one by one: gour replay/C %.3f (target ≤ 0.4)", median(replayed)/median(cSingle)))
		b.line("graph.c.graph", "ns/kernel", cGraph, fmt.Sprintf("  C cuGraphLaunch of the same graph: gour/C %.3f (target ≤ 1.05)", median(replayed)/median(cGraph)))
	}
	return nil
}

// parallelGoroutines is how many goroutines launch one kernel at once.
const parallelGoroutines = 64

// parallel times 64 goroutines launching one kernel at once against one.
func (b *graphBench) parallel() error {
	ys := make([]*deviceArray, parallelGoroutines)
	for g := range ys {
		y, err := b.newArray(graphItems)
		if err != nil {
			return err
		}
		defer y.release()
		ys[g] = y
	}
	each := max(b.iters/parallelGoroutines, 1)
	launchAll := func(n int) (float64, error) {
		var wg sync.WaitGroup
		errs := make([]error, n)
		start := time.Now()
		for g := range n {
			wg.Go(func() {
				for i := range each {
					if err := b.q.Launch(b.k, one(), ys[g].arg(), ur.ArgOf(float32(g)), ur.ArgOf(float32(i)), ur.ArgOf(uint32(graphItems))); err != nil {
						errs[g] = err
						return
					}
				}
			})
		}
		wg.Wait()
		if err := b.q.Finish(); err != nil {
			return 0, err
		}
		rate := float64(n*each) / time.Since(start).Seconds() / 1e6
		for g := range n {
			if err := b.check(fmt.Sprintf("goroutine %d", g), ys[g], float32(g), float32(each-1)); err != nil {
				return 0, err
			}
		}
		return rate, errorsJoin(errs)
	}
	var single, many []float64
	for r := -1; r < b.rounds; r++ {
		s, err := launchAll(1)
		if err != nil {
			return err
		}
		m, err := launchAll(parallelGoroutines)
		if err != nil {
			return err
		}
		if r >= 0 {
			single, many = append(single, s), append(many, m)
		}
	}
	b.line("parallel.1", "M/s", single, "  launches per second, one goroutine")
	b.line("parallel.64", "M/s", many, fmt.Sprintf("  64 goroutines, one kernel and queue, no lock: %.2f× one", median(many)/median(single)))
	return nil
}

// errorsJoin returns the first error of errs, or nil.
func errorsJoin(errs []error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}
