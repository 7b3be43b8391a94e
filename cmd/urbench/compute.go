package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"math/bits"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gour-dev/gour/cmd/internal/cli"
	"github.com/gour-dev/gour/compute"
	"github.com/gour-dev/gour/ur"
)

// The child process of compute's transform.first: one first Transform in
// a fresh process, as an application restarting would make it.
const envComputeChild = "GOUR_URBENCH_COMPUTE_CHILD"

// envComputePhases, when set, makes the children of transform.first print
// where their time went, to standard error.
const envComputePhases = "GOUR_URBENCH_PHASES"

// phases records the time of named steps since a start.
type phases struct {
	last  time.Time
	names []string
	ms    []float64
}

func newPhases(start time.Time) *phases { return &phases{last: start} }

func (p *phases) mark(name string) {
	now := time.Now()
	p.names, p.ms = append(p.names, name), append(p.ms, now.Sub(p.last).Seconds()*1e3)
	p.last = now
}

func (p *phases) String() string {
	var b strings.Builder
	for i, n := range p.names {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s %.3f ms", n, p.ms[i])
	}
	return b.String()
}

// computeCommand is `urbench compute`.
func computeCommand() (*cli.Command, func(io.Writer) error) {
	c := cli.New("urbench compute", "[-device SELECTOR] [-backend cuda|opencl] [-n N] [-reduce-n N] [-cpu-n N] [-calls N] [-rounds N] [-first-runs N] [-mm-n N] [-mm-cpu-n N] [-quick]", `
Time package compute on the first device of the backend that the selector
lets through, each figure the median of the rounds (min–max), against a
baseline measured in the same run. The function is the expression
y = a*x + y (float32, a = 2), compute.Expr:

  transform.axpy  Transform on -n elements resident on the device (no
                  transfer in the timed loop: Array.Transfers is checked),
                  GB/s counting 12 bytes an element, against copy.d2d:
                  compute.Copy of as many, 8 bytes an element
  reduce.sum      Reduce with Sum over -reduce-n ones, GB/s counting 4 bytes
                  an element, against reduce.read: a hand-written kernel
                  reading them as float4 into one partial per work-item;
                  reduce.device: ReduceAxis of the same array into one
                  element left on the device, 8 a round, then one wait
                  (as CuPy's and PyTorch's sums are timed)
  transform.dispatch
                  Transform on 1024 resident elements, µs a call (-calls
                  calls, then Wait), against dispatch.prepared: the same
                  launches of a hand-written axpy kernel, its arguments set
                  and the launch prepared once (Queue.PrepareLaunch, then
                  PreparedLaunch.Launch); dispatch.arglaunch is the same
                  with Queue.PrepareLaunchArgs and ArgLaunch.Launch
  cpu.axpy        the CPU context's Transform on -cpu-n elements against
                  cpu.goroutines: the loop hand-written over GOMAXPROCS
                  goroutines
  transform.first a new process's first Transform, gour's persistent cache
                  warm: this program run as a child, once cold to fill a
                  new cache directory, then -first-runs times warm, each
                  timing NewDevice and its first Transform (and the
                  Transform alone) up to its completion
  taskseq         a TaskSequence of capacity 4, on a Device of its own,
                  whose function runs the Transform on 1024 elements and
                  reads one element back:
                  Async + Get round trips a second, against
                  taskseq.plain, the same work called in a loop
  pipeline        chunks of -chunk float32, -chunks a round, each
                  uploaded, transformed and downloaded by a task
                  sequence whose invocations overlap
                  (NewConcurrentTaskSequence, 4 in flight), GB/s counting
                  8 bytes an element, against pipeline.loop: the same
                  steps one chunk after another
  matmul.sgemm    compute.MatMul of -mm-n × -mm-n float32 matrices on the
                  device (package blas: cuBLAS on CUDA), TFLOP/s, against
                  blas.sgemm: the same product through a blas.Handle
                  called directly; cpu.matmul: the CPU context's MatMul
                  (gonum's Sgemm) at -mm-cpu-n, GFLOP/s

Every result is read back and checked.

With -devices N, it measures instead compute over N devices of the
backend (compute.MultiDevice; where there are fewer, the first device
split into N sub-devices, as PoCL's CPU device) against one
(compute.NewDevice of the first), arrays split along their first axis:

  devices.axpy    Transform y = a*x + y, -n elements per device resident
                  (weak scaling: N·n over N devices against n on one; no
                  transfer in the timed loop), GB/s counting 12 bytes an
                  element; the ratio N devices / one (target ≥ 1.9 on 2)
  devices.reduce  Reduce with Sum over -reduce-n ones per device (weak
                  scaling), 8 Reduces a round, each returning its result
                  (the devices' partials combined), GB/s counting 4 bytes
                  an element; the ratio (target ≥ 1.8 on 2)`)
	backend := c.Flags.String("backend", "cuda", "the device's backend: cuda or opencl")
	n := c.Flags.Int("n", 1<<26, "elements of transform.axpy and copy.d2d")
	reduceN := c.Flags.Int("reduce-n", 1<<28, "elements of reduce.sum and reduce.read")
	cpuN := c.Flags.Int("cpu-n", 1<<24, "elements of cpu.axpy and cpu.goroutines")
	calls := c.Flags.Int("calls", 10000, "calls per round of transform.dispatch and taskseq")
	chunk := c.Flags.Int("chunk", 1<<22, "elements of each chunk of pipeline")
	chunks := c.Flags.Int("chunks", 32, "chunks per round of pipeline")
	perThread := c.Flags.Int("elements-per-thread", 0, "compute.DeviceOptions.ElementsPerThread of the Device: 0 (the device's default), 1 or 4")
	rounds := c.Flags.Int("rounds", 10, "rounds of each measurement")
	firstRuns := c.Flags.Int("first-runs", 5, "warm child processes of transform.first")
	mmN := c.Flags.Int("mm-n", 4096, "rows and columns of matmul.sgemm and blas.sgemm")
	mmCPUN := c.Flags.Int("mm-cpu-n", 1024, "rows and columns of cpu.matmul")
	devices := c.Flags.Int("devices", 0, "measure compute over this many devices against one (devices.axpy, devices.reduce) instead; 0: one device's figures")
	steps := c.Flags.String("steps", "", "comma-separated steps to run of axpy, reduce, dispatch, cpu, first, taskseq, pipeline, matmul (each with its baseline); empty: all")
	cpuProfile := c.Flags.String("cpuprofile", "", "write a CPU profile of the steps to `FILE`")
	quick := c.Flags.Bool("quick", false, "small sizes for a quick check (PoCL, tests): -n, -reduce-n and -cpu-n 65536, -calls 100, -mm-n and -mm-cpu-n 128, unless given")
	c.DeviceFlag()
	return c, func(w io.Writer) error {
		if err := checkBackend(c, *backend); err != nil {
			return err
		}
		if *quick {
			applyQuick(c, []quickSize{{"n", n, 1 << 16}, {"reduce-n", reduceN, 1 << 16}, {"cpu-n", cpuN, 1 << 16}, {"calls", calls, 100}, {"chunk", chunk, 1 << 14}, {"chunks", chunks, 16}, {"mm-n", mmN, 128}, {"mm-cpu-n", mmCPUN, 128}})
		}
		if *n < computeSmall || *reduceN < computeSmall || *cpuN < computeSmall {
			return cli.Usagef(c.Name, "-n, -reduce-n and -cpu-n must be at least %d", computeSmall)
		}
		if *mmN < 1 || *mmCPUN < 1 || *mmN > 1<<14 || *mmCPUN > 1<<14 {
			return cli.Usagef(c.Name, "-mm-n and -mm-cpu-n must be in [1, 16384]")
		}
		if *rounds < 1 || *calls < 1 || *firstRuns < 1 || *chunks < 1 {
			return cli.Usagef(c.Name, "-rounds, -calls, -chunks and -first-runs must be at least 1")
		}
		if *chunk < 2 {
			return cli.Usagef(c.Name, "-chunk must be at least 2")
		}
		if os.Getenv(envComputeChild) != "" {
			return computeChild(w, c, *backend)
		}
		if *devices < 0 || *devices > 64 {
			return cli.Usagef(c.Name, "-devices must be in [0, 64]")
		}
		if *devices > 0 {
			return computeDevices(w, c, *backend, *devices, *n, *reduceN, *rounds)
		}
		dev, err := firstDevice(c, *backend)
		if err != nil {
			return err
		}
		d, release, err := newComputeDevice(dev, compute.DeviceOptions{ElementsPerThread: *perThread})
		if err != nil {
			return err
		}
		defer release()
		stop, err := startCPUProfile(*cpuProfile)
		if err != nil {
			return err
		}
		defer stop()
		b := &computeBench{w: w, c: c, dev: dev, d: d, steps: *steps, n: *n, reduceN: *reduceN, cpuN: *cpuN, calls: *calls, chunk: *chunk, chunks: *chunks, rounds: *rounds, firstRuns: *firstRuns, mmN: *mmN, mmCPUN: *mmCPUN}
		return b.run()
	}
}

// computeSmall is the size of transform.dispatch and taskseq, and the
// least of the others: small enough that the launch dominates.
const computeSmall = 1024

// computeOps is how many operations a bandwidth round enqueues before its
// Wait.
const computeOps = 8

// computeAxpy is the benchmark's function, with its parameter.
const (
	computeAxpy = "y = a*x + y"
	computeA    = 2
)

// computeStep is one figure of urbench compute with its baseline.
type computeStep struct {
	name string
	run  func() error
}

type computeBench struct {
	steps            string // -steps: the steps to run, comma-separated; "" all
	w                io.Writer
	c                *cli.Command
	dev              *ur.Device
	d                *compute.Device
	fn               *compute.ExprFunc[float32]
	prog             *ur.Program
	axpyK, readK     *ur.Kernel
	local            uint64 // work-group size of the hand-written kernels' launches
	n, reduceN, cpuN int
	calls, rounds    int
	chunk, chunks    int // pipeline
	firstRuns        int
	mmN, mmCPUN      int // matmul's sizes
}

// computeSources hold the hand-written baselines: axpy with the signature
// of the generated kernel, and two read kernels summing their share of n
// floats (as float4) into one partial per work-item, strided for a GPU,
// blocked (each item a contiguous range) for a CPU, as compute's own
// kernels are.
var computeSources = map[string]string{
	"opencl": `__kernel void axpy(__global float* out, __global const float* x, __global const float* y, float a, ulong n) {
	size_t i = get_global_id(0);
	if (i < n) out[i] = a * x[i] + y[i];
}

float tail(__global const float* a, ulong n) {
	float t = 0.0f;
	for (ulong i = n / 4 * 4; i < n; i++) t += a[i];
	return t;
}

__kernel void read_strided(__global const float* a, __global float* part, ulong n) {
	size_t g = get_global_id(0), stride = get_global_size(0);
	__global const float4* a4 = (__global const float4*)a;
	ulong n4 = n / 4;
	float4 s = (float4)(0.0f);
	for (ulong i = g; i < n4; i += stride) s += a4[i];
	float t = s.x + s.y + s.z + s.w;
	if (g == 0) t += tail(a, n);
	part[g] = t;
}

__kernel void read_blocked(__global const float* a, __global float* part, ulong n) {
	size_t g = get_global_id(0), items = get_global_size(0);
	__global const float4* a4 = (__global const float4*)a;
	ulong n4 = n / 4, per = (n4 + items - 1) / items, lo = min((ulong)g * per, n4), hi = min(lo + per, n4);
	float4 s = (float4)(0.0f);
	for (ulong i = lo; i < hi; i++) s += a4[i];
	float t = s.x + s.y + s.z + s.w;
	if (g == 0) t += tail(a, n);
	part[g] = t;
}`,
	"cuda": `extern "C" __global__ void axpy(float* out, const float* x, const float* y, float a, unsigned long long n) {
	unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) out[i] = a * x[i] + y[i];
}

extern "C" __global__ void read_strided(const float* a, float* part, unsigned long long n) {
	unsigned long long g = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x, stride = (unsigned long long)gridDim.x * blockDim.x;
	const float4* a4 = (const float4*)a;
	unsigned long long n4 = n / 4;
	float4 s = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
	for (unsigned long long i = g; i < n4; i += stride) {
		float4 v = a4[i];
		s.x += v.x; s.y += v.y; s.z += v.z; s.w += v.w;
	}
	float t = s.x + s.y + s.z + s.w;
	if (g == 0) for (unsigned long long i = n4 * 4; i < n; i++) t += a[i];
	part[g] = t;
}

extern "C" __global__ void read_blocked(const float* a, float* part, unsigned long long n) {
	unsigned long long g = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x, items = (unsigned long long)gridDim.x * blockDim.x;
	const float4* a4 = (const float4*)a;
	unsigned long long n4 = n / 4, per = (n4 + items - 1) / items, lo = min(g * per, n4), hi = min(lo + per, n4);
	float4 s = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
	for (unsigned long long i = lo; i < hi; i++) {
		float4 v = a4[i];
		s.x += v.x; s.y += v.y; s.z += v.z; s.w += v.w;
	}
	float t = s.x + s.y + s.z + s.w;
	if (g == 0) for (unsigned long long i = n4 * 4; i < n; i++) t += a[i];
	part[g] = t;
}`,
}

func (b *computeBench) run() error {
	var err error
	if b.fn, err = compute.Expr[float32](computeAxpy, map[string]float32{"a": computeA}); err != nil {
		return err
	}
	_, ctx, _ := b.d.UR()
	if b.prog, err = ctx.NewProgramFromSource(computeSources[b.dev.Backend()]); err != nil {
		return err
	}
	defer b.prog.Release()
	if err := b.prog.Build(""); err != nil {
		return err
	}
	if b.axpyK, err = b.prog.NewKernel("axpy"); err != nil {
		return err
	}
	defer b.axpyK.Release()
	read := "read_strided"
	if b.dev.Type() == ur.DeviceTypeCPU {
		read = "read_blocked"
	}
	if b.readK, err = b.prog.NewKernel(read); err != nil {
		return err
	}
	defer b.readK.Release()
	b.local = 256
	if m := b.dev.Info().MaxWorkGroupSize; m > 0 && b.local > m {
		b.local = 1 << (bits.Len64(m) - 1)
	}
	fmt.Fprintf(b.w, "%s\n%d rounds; %s (a = %d); -n %d, -reduce-n %d, -cpu-n %d, %d calls per round\n",
		b.dev, b.rounds, computeAxpy, computeA, b.n, b.reduceN, b.cpuN, b.calls)
	all := []computeStep{{"axpy", b.axpy}, {"reduce", b.reduce}, {"dispatch", b.dispatch}, {"cpu", b.cpu}, {"first", b.first}, {"taskseq", b.taskseq}, {"pipeline", b.pipeline}, {"matmul", b.matmul}}
	chosen := map[string]bool{}
	if b.steps != "" {
		for _, name := range strings.Split(b.steps, ",") {
			if !slices.ContainsFunc(all, func(s computeStep) bool { return s.name == name }) {
				return cli.Usagef(b.c.Name, "-steps: no step %q", name)
			}
			chosen[name] = true
		}
	}
	for _, step := range all {
		if len(chosen) > 0 && !chosen[step.name] {
			continue
		}
		if err := step.run(); err != nil {
			return err
		}
	}
	return nil
}

// line prints one figure as median (min–max).
func (b *computeBench) line(name, unit string, v []float64, note string) {
	fmt.Fprintf(b.w, "%-20s %10.3f %s (%.3f–%.3f)%s\n", name, median(v), unit, slices.Min(v), slices.Max(v), note)
}

// xPattern is x[i]: small integers, so that y = a*x + y stays exact.
func xPattern(n int) []float32 {
	x := make([]float32, n)
	for i := range x {
		x[i] = float32(i % 8)
	}
	return x
}

// checkAxpy checks that y, once 1, has had k axpy steps: y[i] = 1 + a·k·x[i].
func checkAxpy(what string, y []float32, k int) error {
	for i, v := range y {
		if want := 1 + float32(computeA*k*(i%8)); v != want {
			return fmt.Errorf("%s: y[%d] = %v after %d steps, want %v", what, i, v, k, want)
		}
	}
	return nil
}

// transfers returns the transfers the arrays have made so far.
func transfers(as ...*compute.Array[float32]) []compute.Transfers {
	t := make([]compute.Transfers, len(as))
	for i, a := range as {
		t[i] = a.Transfers()
	}
	return t
}

// newComputeDevice returns a Device on dev with opts, in a context and on
// a queue of its own, and what releases the three.
func newComputeDevice(dev *ur.Device, opts compute.DeviceOptions) (*compute.Device, func() error, error) {
	if opts == (compute.DeviceOptions{}) {
		d, err := compute.NewDevice(dev)
		if err != nil {
			return nil, nil, err
		}
		return d, d.Release, nil
	}
	ctx, err := ur.NewContext(dev)
	if err != nil {
		return nil, nil, err
	}
	q, err := ctx.NewQueue(dev, ur.QueueProperties{})
	if err != nil {
		return nil, nil, errors.Join(err, ctx.Release())
	}
	d, err := compute.NewDeviceFrom(q, opts)
	if err != nil {
		return nil, nil, errors.Join(err, q.Release(), ctx.Release())
	}
	return d, func() error { return errors.Join(d.Release(), q.Release(), ctx.Release()) }, nil
}

// axpy times Transform on resident arrays against compute.Copy.
func (b *computeBench) axpy() error {
	x, err := compute.FromSlice(b.d, xPattern(b.n))
	if err != nil {
		return err
	}
	defer x.Release()
	y, err := compute.Zeros[float32](b.d, b.n)
	if err != nil {
		return err
	}
	defer y.Release()
	z, err := compute.Zeros[float32](b.d, b.n)
	if err != nil {
		return err
	}
	defer z.Release()
	if err := compute.Fill(b.d, y, 1); err != nil {
		return err
	}
	gbps := func(bytes int, d time.Duration) float64 { return float64(bytes) * computeOps / d.Seconds() / 1e9 }
	var tr, cp []float64
	steps := 0
	var before []compute.Transfers
	for r := -1; r < b.rounds; r++ { // -1: the warm-up, which uploads x and builds
		if r == 0 {
			before = transfers(x, y, z)
		}
		start := time.Now()
		for range computeOps {
			if err := compute.Transform(b.d, b.fn, y, x, y); err != nil {
				return err
			}
		}
		if err := b.d.Wait(); err != nil {
			return err
		}
		t := gbps(12*b.n, time.Since(start))
		steps += computeOps
		start = time.Now()
		for range computeOps {
			if err := compute.Copy(b.d, z, y); err != nil {
				return err
			}
		}
		if err := b.d.Wait(); err != nil {
			return err
		}
		if r >= 0 {
			tr, cp = append(tr, t), append(cp, gbps(8*b.n, time.Since(start)))
		}
	}
	if after := transfers(x, y, z); !slices.Equal(before, after) {
		return fmt.Errorf("transform.axpy: the arrays made transfers in the timed loop: %v, then %v", before, after)
	}
	for _, a := range []struct {
		what string
		a    *compute.Array[float32]
	}{{"transform.axpy", y}, {"copy.d2d", z}} {
		got, err := a.a.ToSlice()
		if err != nil {
			return err
		}
		if err := checkAxpy(a.what, got, steps); err != nil {
			return err
		}
	}
	b.line("transform.axpy", "GB/s", tr, fmt.Sprintf("  %d elements resident, 12 bytes each, no transfer; /copy.d2d %.3f (target ≥ 0.9)", b.n, median(tr)/median(cp)))
	b.line("copy.d2d", "GB/s", cp, "  compute.Copy of as many, 8 bytes each")
	return nil
}

// reduce times Reduce Sum against a hand-written read kernel.
func (b *computeBench) reduce() error {
	a, err := compute.Zeros[float32](b.d, b.reduceN)
	if err != nil {
		return err
	}
	defer a.Release()
	if err := compute.Fill(b.d, a, 1); err != nil {
		return err
	}
	info := b.dev.Info()
	n4 := uint64(b.reduceN / 4)
	items := min(uint64(max(1, info.ComputeUnits))*16*b.local, roundUpTo(max(n4, 1), b.local))
	part, err := compute.Zeros[float32](b.d, int(items))
	if err != nil {
		return err
	}
	defer part.Release()
	aArg, err := a.Arg(compute.In)
	if err != nil {
		return err
	}
	pArg, err := part.Arg(compute.Out)
	if err != nil {
		return err
	}
	_, _, q := b.d.UR()
	r := ur.Range1D(items).WithLocal(b.local)
	want := float64(b.reduceN)
	// Sums of more than 2^24 ones round in float32: allow a few ulps.
	tol := 0.0
	if b.reduceN > 1<<24 {
		tol = 1e-5 * want
	}
	gbps := func(d time.Duration) float64 { return float64(4*b.reduceN) / d.Seconds() / 1e9 }
	var sum, read []float64
	for r0 := -1; r0 < b.rounds; r0++ {
		start := time.Now()
		s, err := compute.Reduce(b.d, a, compute.Sum[float32]())
		if err != nil {
			return err
		}
		t := gbps(time.Since(start))
		if math.Abs(float64(s)-want) > tol {
			return fmt.Errorf("reduce.sum: the sum of %d ones is %v", b.reduceN, s)
		}
		start = time.Now()
		if err := q.Launch(b.readK, r, aArg, pArg, ur.ArgOf(uint64(b.reduceN))); err != nil {
			return err
		}
		if err := b.d.Wait(); err != nil {
			return err
		}
		rd := gbps(time.Since(start))
		ps, err := part.ToSlice()
		if err != nil {
			return err
		}
		total := 0.0
		for _, p := range ps {
			total += float64(p)
		}
		if total != want {
			return fmt.Errorf("reduce.read: the partials of %d ones add up to %v", b.reduceN, total)
		}
		if r0 >= 0 {
			sum, read = append(sum, t), append(read, rd)
		}
	}
	axis, err := b.reduceAxis(a, want, tol)
	if err != nil {
		return err
	}
	b.line("reduce.sum", "GB/s", sum, fmt.Sprintf("  %d float32 resident, 4 bytes each, sum checked; /reduce.read %.3f (target ≥ 0.8)", b.reduceN, median(sum)/median(read)))
	b.line("reduce.read", "GB/s", read, fmt.Sprintf("  a hand-written %s kernel, %d work-items reading float4", b.readK.Name(), items))
	b.line("reduce.device", "GB/s", axis, fmt.Sprintf("  ReduceAxis of the whole array, the sum left on the device, %d a round then one wait; /reduce.read %.3f", reduceAxisCalls, median(axis)/median(read)))
	return nil
}

// reduceAxisCalls is how many reductions a round of reduce.device times:
// as many as scripts/bench/peers.py's rounds of cupy.sum and torch.sum.
const reduceAxisCalls = 8

// reduceAxis times reductions of a whose sums stay on the device
// (ReduceAxis into a one-element array), reduceAxisCalls a round, then
// one wait, and checks the last sum against want.
func (b *computeBench) reduceAxis(a *compute.Array[float32], want, tol float64) ([]float64, error) {
	out, err := compute.Zeros[float32](b.d, 1)
	if err != nil {
		return nil, err
	}
	defer out.Release()
	var gbps []float64
	for r := -1; r < b.rounds; r++ {
		start := time.Now()
		for range reduceAxisCalls {
			if err := compute.ReduceAxis(b.d, out, a, 0, compute.Sum[float32]()); err != nil {
				return nil, err
			}
		}
		if err := b.d.Wait(); err != nil {
			return nil, err
		}
		t := time.Since(start)
		s, err := out.ToSlice()
		if err != nil {
			return nil, err
		}
		if math.Abs(float64(s[0])-want) > tol {
			return nil, fmt.Errorf("reduce.device: the sum of %d ones is %v", b.reduceN, s[0])
		}
		if r >= 0 {
			gbps = append(gbps, float64(reduceAxisCalls*4*b.reduceN)/t.Seconds()/1e9)
		}
	}
	return gbps, nil
}

func roundUpTo(n, m uint64) uint64 { return (n + m - 1) / m * m }

// dispatch times small Transforms against ArgLaunch of a hand-written
// kernel on the same arrays.
func (b *computeBench) dispatch() error {
	x, err := compute.FromSlice(b.d, xPattern(computeSmall))
	if err != nil {
		return err
	}
	defer x.Release()
	y, err := compute.Zeros[float32](b.d, computeSmall)
	if err != nil {
		return err
	}
	defer y.Release()
	xArg, err := x.Arg(compute.In)
	if err != nil {
		return err
	}
	yArg, err := y.Arg(compute.InOut)
	if err != nil {
		return err
	}
	_, _, q := b.d.UR()
	r := ur.Range1D(roundUpTo(computeSmall, b.local)).WithLocal(b.local)
	prep, err := q.PrepareLaunchArgs(b.axpyK, r, ur.LaunchProperties{}, yArg, xArg, yArg, ur.ArgOf(float32(computeA)), ur.ArgOf(uint64(computeSmall)))
	if err != nil {
		return err
	}
	defer prep.Release()
	// The baseline: a PreparedLaunch, which launches with the kernel's
	// own arguments.
	for i, a := range []ur.Arg{yArg, xArg, yArg, ur.ArgOf(float32(computeA)), ur.ArgOf(uint64(computeSmall))} {
		if err := b.axpyK.SetArg(i, a); err != nil {
			return err
		}
	}
	pl, err := q.PrepareLaunch(b.axpyK, r)
	if err != nil {
		return err
	}
	defer pl.Release()
	// timed runs calls of launch from y = 1, then checks y.
	timed := func(what string, launch func() error) (float64, error) {
		if err := compute.Fill(b.d, y, 1); err != nil {
			return 0, err
		}
		if err := b.d.Wait(); err != nil {
			return 0, err
		}
		start := time.Now()
		for range b.calls {
			if err := launch(); err != nil {
				return 0, err
			}
		}
		if err := b.d.Wait(); err != nil {
			return 0, err
		}
		us := float64(time.Since(start).Nanoseconds()) / float64(b.calls) / 1e3
		got, err := y.ToSlice()
		if err != nil {
			return 0, err
		}
		return us, checkAxpy(what, got, b.calls)
	}
	var tr, pr, al []float64
	for r := -1; r < b.rounds; r++ {
		t, err := timed("transform.dispatch", func() error { return compute.Transform(b.d, b.fn, y, x, y) })
		if err != nil {
			return err
		}
		p, err := timed("dispatch.prepared", pl.Launch)
		if err != nil {
			return err
		}
		a, err := timed("dispatch.arglaunch", prep.Launch)
		if err != nil {
			return err
		}
		if r >= 0 {
			tr, pr, al = append(tr, t), append(pr, p), append(al, a)
		}
	}
	b.line("transform.dispatch", "µs", tr, fmt.Sprintf("  a Transform of %d elements, per call; /dispatch.prepared %.3f (target ≤ 2)", computeSmall, median(tr)/median(pr)))
	b.line("dispatch.prepared", "µs", pr, "  the hand-written axpy kernel: its arguments set once, PrepareLaunch once, then PreparedLaunch.Launch")
	b.line("dispatch.arglaunch", "µs", al, "  the same with PrepareLaunchArgs once, then ArgLaunch.Launch")
	return nil
}

// cpu times the CPU context's Transform against goroutines by hand.
func (b *computeBench) cpu() error {
	c := compute.NewCPU(0)
	defer c.Release()
	xs := xPattern(b.cpuN)
	x, err := compute.FromSlice(c, xs)
	if err != nil {
		return err
	}
	defer x.Release()
	y, err := compute.Zeros[float32](c, b.cpuN)
	if err != nil {
		return err
	}
	defer y.Release()
	if err := compute.Fill(c, y, 1); err != nil {
		return err
	}
	hy := make([]float32, b.cpuN)
	for i := range hy {
		hy[i] = 1
	}
	w := runtime.GOMAXPROCS(0)
	byHand := func() {
		var wg sync.WaitGroup
		for k := range w {
			wg.Go(func() {
				lo, hi := k*b.cpuN/w, (k+1)*b.cpuN/w
				xs, ys := xs[lo:hi], hy[lo:hi]
				for i := range ys {
					ys[i] = computeA*xs[i] + ys[i]
				}
			})
		}
		wg.Wait()
	}
	gbps := func(d time.Duration) float64 { return float64(12*b.cpuN) * computeOps / d.Seconds() / 1e9 }
	var tr, hand []float64
	steps := 0
	for r := -1; r < b.rounds; r++ {
		start := time.Now()
		for range computeOps {
			if err := compute.Transform(c, b.fn, y, x, y); err != nil {
				return err
			}
		}
		t := gbps(time.Since(start))
		start = time.Now()
		for range computeOps {
			byHand()
		}
		h := gbps(time.Since(start))
		steps += computeOps
		if r >= 0 {
			tr, hand = append(tr, t), append(hand, h)
		}
	}
	got, err := y.ToSlice()
	if err != nil {
		return err
	}
	if err := checkAxpy("cpu.axpy", got, steps); err != nil {
		return err
	}
	if err := checkAxpy("cpu.goroutines", hy, steps); err != nil {
		return err
	}
	b.line("cpu.axpy", "GB/s", tr, fmt.Sprintf("  %s, %d elements, 12 bytes each; /cpu.goroutines %.3f (target ≥ 0.8)", c, b.cpuN, median(tr)/median(hand)))
	b.line("cpu.goroutines", "GB/s", hand, fmt.Sprintf("  the loop by hand over %d goroutines", w))
	return nil
}

// first times a new process's first Transform, gour's persistent cache
// warm: this program as a child, once cold into a new cache directory,
// then b.firstRuns times warm. The children get b.c's flags, so they
// choose the same device.
func (b *computeBench) first() error {
	tmp, err := os.MkdirTemp("", "urbench-compute-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	env := []string{envComputeChild + "=1", "SYCL_CACHE_PERSISTENT=1", "SYCL_CACHE_DIR=" + tmp}
	args := flagsSet(b.c)
	cold, err := runComputeChild(args, env)
	if err != nil {
		return fmt.Errorf("transform.first (cold): %w", err)
	}
	if cold.builds == 0 {
		return fmt.Errorf("transform.first (cold): the first child built nothing: the cache directory %s was not new", tmp)
	}
	var all, alone []float64
	for range b.firstRuns {
		r, err := runComputeChild(args, env)
		if err != nil {
			return fmt.Errorf("transform.first: %w", err)
		}
		if r.builds != 0 || r.diskHits == 0 {
			return fmt.Errorf("transform.first: a warm child built %d programs and loaded %d from gour's persistent cache: the cache did not serve it", r.builds, r.diskHits)
		}
		all, alone = append(all, r.all), append(alone, r.alone)
	}
	b.line("transform.first", "ms", all, fmt.Sprintf("  a new process, gour's cache warm: NewDevice and the first Transform (cold: %.3f ms)", cold.all))
	b.line("transform.first.alone", "ms", alone, fmt.Sprintf("  the first Transform alone (target ≤ 5 ms; cold: %.3f ms)", cold.alone))
	return nil
}

// childFirst is a child's result: milliseconds from before NewDevice and
// from after it to the first Transform's completion, and the programs
// its manager built and loaded from the persistent cache.
type childFirst struct {
	all, alone       float64
	builds, diskHits int64
}

// runComputeChild runs the compute benchmark as a child with env added
// and parses its result line, the one that starts with "ns ".
func runComputeChild(args, env []string) (childFirst, error) {
	line, err := runChild("compute", args, env)
	if err != nil {
		return childFirst{}, err
	}
	bad := fmt.Errorf("child printed a bad line %q", line)
	f := strings.Fields(line)
	if len(f) != 5 {
		return childFirst{}, bad
	}
	var v [4]float64
	for i := range v {
		if v[i], err = strconv.ParseFloat(f[i+1], 64); err != nil {
			return childFirst{}, bad
		}
	}
	return childFirst{all: v[0] / 1e6, alone: v[1] / 1e6, builds: int64(v[2]), diskHits: int64(v[3])}, nil
}

// computeChild times NewDevice and a first Transform on 1024 elements,
// checks the result, and prints "ns ALL ALONE BUILDS DISKHITS".
func computeChild(w io.Writer, c *cli.Command, backend string) error {
	dev, err := firstDevice(c, backend)
	if err != nil {
		return err
	}
	start := time.Now()
	d, err := compute.NewDevice(dev)
	if err != nil {
		return err
	}
	defer d.Release()
	afterDevice := time.Now()
	phases := newPhases(afterDevice)
	fn, err := compute.Expr[float32](computeAxpy, map[string]float32{"a": computeA})
	if err != nil {
		return err
	}
	phases.mark("Expr")
	ys := make([]float32, computeSmall)
	for i := range ys {
		ys[i] = 1
	}
	x, err := compute.FromSlice(d, xPattern(computeSmall))
	if err != nil {
		return err
	}
	defer x.Release()
	y, err := compute.FromSlice(d, ys)
	if err != nil {
		return err
	}
	defer y.Release()
	phases.mark("FromSlice×2")
	if err := compute.Transform(d, fn, y, x, y); err != nil {
		return err
	}
	phases.mark("Transform")
	if err := d.Wait(); err != nil {
		return err
	}
	end := time.Now()
	phases.mark("Wait")
	if os.Getenv(envComputePhases) != "" {
		fmt.Fprintf(os.Stderr, "transform.first phases: NewDevice %.3f ms, %s\n", afterDevice.Sub(start).Seconds()*1e3, phases)
	}
	got, err := y.ToSlice()
	if err != nil {
		return err
	}
	if err := checkAxpy("transform.first", got, 1); err != nil {
		return err
	}
	s := d.Manager().Stats()
	fmt.Fprintf(w, "ns %d %d %d %d\n", end.Sub(start).Nanoseconds(), end.Sub(afterDevice).Nanoseconds(), s.Builds, s.DiskHits)
	return nil
}

// taskseq times Async + Get round trips of a TaskSequence against the
// same work called in a loop.
func (b *computeBench) taskseq() error {
	// A Device of its own, as a user's would be: b.d's queue runs the
	// baselines' kernels too (Device.UR), so a sequence on it would mark
	// the end of every invocation (see compute.TaskSequence).
	d, err := compute.NewDevice(b.dev)
	if err != nil {
		return err
	}
	defer d.Release()
	x, err := compute.FromSlice(d, xPattern(computeSmall))
	if err != nil {
		return err
	}
	defer x.Release()
	y, err := compute.Zeros[float32](d, computeSmall)
	if err != nil {
		return err
	}
	defer y.Release()
	// step is one invocation: a Transform, then y's last element (x = 7
	// there) read back.
	step := func(_ context.Context, ctx compute.Context, _ int) (float32, error) {
		if err := compute.Transform(ctx, b.fn, y, x, y); err != nil {
			return 0, err
		}
		got, err := y.ToSlice()
		if err != nil {
			return 0, err
		}
		return got[computeSmall-1], nil
	}
	const capacity = 4
	seq, err := compute.NewTaskSequence(d, step, capacity)
	if err != nil {
		return err
	}
	defer seq.Release(context.Background())
	goctx := context.Background()
	check := func(what string, k int, v float32) error {
		if want := 1 + float32(computeA*7*k); v != want {
			return fmt.Errorf("%s: call %d read %v, want %v", what, k, v, want)
		}
		return nil
	}
	reset := func() error {
		if err := compute.Fill(d, y, 1); err != nil {
			return err
		}
		return d.Wait()
	}
	var async, plain []float64
	for r := -1; r < b.rounds; r++ {
		if err := reset(); err != nil {
			return err
		}
		got := 0
		get := func() error {
			v, err := seq.Get(goctx)
			if err != nil {
				return err
			}
			got++
			return check("taskseq", got, v)
		}
		start := time.Now()
		for i := range b.calls {
			if seq.Outstanding() == capacity {
				if err := get(); err != nil {
					return err
				}
			}
			if err := seq.Async(goctx, i); err != nil {
				return err
			}
		}
		for got < b.calls {
			if err := get(); err != nil {
				return err
			}
		}
		a := float64(b.calls) / time.Since(start).Seconds() / 1e3
		if err := reset(); err != nil {
			return err
		}
		start = time.Now()
		for i := range b.calls {
			v, err := step(goctx, d, i)
			if err != nil {
				return err
			}
			if err := check("taskseq.plain", i+1, v); err != nil {
				return err
			}
		}
		p := float64(b.calls) / time.Since(start).Seconds() / 1e3
		if r >= 0 {
			async, plain = append(async, a), append(plain, p)
		}
	}
	b.line("taskseq", "k/s", async, fmt.Sprintf("  Async + Get, capacity %d, a Transform of %d elements and one read back each; /taskseq.plain %.3f", capacity, computeSmall, median(async)/median(plain)))
	b.line("taskseq.plain", "k/s", plain, "  the same Transform and read back in a loop")
	return nil
}

// computeDevices is urbench compute -devices k: compute over k devices
// of backend against one, -n (axpy) and -reduce-n (Reduce) elements per
// device.
func computeDevices(w io.Writer, c *cli.Command, backend string, k, n, reduceN, rounds int) error {
	sys, sel, err := c.Discover()
	if err != nil {
		return err
	}
	var devs []*ur.Device
	for _, d := range sys.Devices {
		if d.Backend() == backend {
			devs = append(devs, d)
		}
	}
	if len(devs) == 0 {
		return cli.NoDevice(sys, sel, backend)
	}
	how := fmt.Sprintf("%d %s devices", k, backend)
	if len(devs) < k {
		d0 := devs[0]
		units := d0.Info().ComputeUnits
		var subs []*ur.Device
		if units >= uint32(k) {
			subs, err = d0.Partition(ur.Partition{Kind: ur.PartitionEqually, Units: units / uint32(k)})
		}
		for _, s := range subs {
			defer s.Release()
		}
		if err != nil || len(subs) < k {
			why := fmt.Sprintf("%d compute units", units)
			if err != nil {
				why += ": " + err.Error()
			}
			return fmt.Errorf("urbench compute -devices %d: %d %s device(s), and %s does not split into %d sub-devices (%s)", k, len(devs), backend, d0.Name(), k, why)
		}
		devs, how = subs[:k], fmt.Sprintf("%d sub-devices of %s (fewer %s devices than -devices)", k, d0.Name(), backend)
	} else {
		devs = devs[:k]
	}
	one, err := compute.NewDevice(devs[0])
	if err != nil {
		return err
	}
	defer one.Release()
	m, err := compute.NewMultiDevice(devs, compute.MultiDeviceOptions{})
	if err != nil {
		return err
	}
	defer m.Release()
	fn, err := compute.Expr[float32](computeAxpy, map[string]float32{"a": computeA})
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "%s, one context: %v\n%d rounds; %s (a = %d); -n %d and -reduce-n %d elements per device\n",
		how, m.SharedContext(), rounds, computeAxpy, computeA, n, reduceN)
	for i, d := range devs {
		fmt.Fprintf(w, "device %d: %s\n", i, d.Name())
	}
	line := func(name, unit string, v []float64, note string) {
		fmt.Fprintf(w, "%-20s %10.3f %s (%.3f–%.3f)%s\n", name, median(v), unit, slices.Min(v), slices.Max(v), note)
	}
	type waiter interface{ Wait() error }
	axpy := func(ctx compute.Context, elems int) ([]float64, error) {
		x, err := compute.FromSlice(ctx, xPattern(elems))
		if err != nil {
			return nil, err
		}
		defer x.Release()
		y, err := compute.Zeros[float32](ctx, elems)
		if err != nil {
			return nil, err
		}
		defer y.Release()
		if err := compute.Fill(ctx, y, 1); err != nil {
			return nil, err
		}
		var gbps []float64
		var before []compute.Transfers
		steps := 0
		for r := -1; r < rounds; r++ { // -1: the warm-up, which uploads x and builds
			if r == 0 {
				before = transfers(x, y)
			}
			start := time.Now()
			for range computeOps {
				if err := compute.Transform(ctx, fn, y, x, y); err != nil {
					return nil, err
				}
			}
			if err := ctx.(waiter).Wait(); err != nil {
				return nil, err
			}
			d := time.Since(start)
			steps += computeOps
			if r >= 0 {
				gbps = append(gbps, float64(12*elems)*computeOps/d.Seconds()/1e9)
			}
		}
		if after := transfers(x, y); !slices.Equal(before, after) {
			return nil, fmt.Errorf("devices.axpy on %v: the arrays made transfers in the timed loop: %v, then %v", ctx, before, after)
		}
		got, err := y.ToSlice()
		if err != nil {
			return nil, err
		}
		return gbps, checkAxpy("devices.axpy", got, steps)
	}
	reduce := func(ctx compute.Context, elems int) ([]float64, error) {
		a, err := compute.Zeros[float32](ctx, elems)
		if err != nil {
			return nil, err
		}
		defer a.Release()
		if err := compute.Fill(ctx, a, 1); err != nil {
			return nil, err
		}
		want := float64(elems)
		tol := 0.0
		if elems > 1<<24 { // sums of more than 2^24 ones round in float32
			tol = 1e-5 * want
		}
		if err := ctx.(waiter).Wait(); err != nil { // the Fill, outside the warm-up's time
			return nil, err
		}
		var gbps []float64
		sums := make([]float32, computeOps)
		for r := -1; r < rounds; r++ { // -1: the warm-up, which builds
			// Each Reduce returns its result, the devices' partials
			// combined: the time is the whole of it, as the caller
			// sees it, for one device and for several.
			start := time.Now()
			for i := range sums {
				s, err := compute.Reduce(ctx, a, compute.Sum[float32]())
				if err != nil {
					return nil, err
				}
				sums[i] = s
			}
			d := time.Since(start)
			for _, s := range sums {
				if math.Abs(float64(s)-want) > tol {
					return nil, fmt.Errorf("devices.reduce on %v: the sum of %d ones is %v", ctx, elems, s)
				}
			}
			if r >= 0 {
				gbps = append(gbps, float64(4*elems)*computeOps/d.Seconds()/1e9)
			}
		}
		return gbps, nil
	}
	for _, bench := range []struct {
		name   string
		f      func(compute.Context, int) ([]float64, error)
		per    int
		target string
	}{{"devices.axpy", axpy, n, "1.9"}, {"devices.reduce", reduce, reduceN, "1.8"}} {
		v1, err := bench.f(one, bench.per)
		if err != nil {
			return err
		}
		vk, err := bench.f(m, bench.per*k)
		if err != nil {
			return err
		}
		line(bench.name+".1", "GB/s", v1, fmt.Sprintf("  one device (compute.Device), %d elements", bench.per))
		line(fmt.Sprintf("%s.%d", bench.name, k), "GB/s", vk, fmt.Sprintf("  %d devices (compute.MultiDevice), %d elements; /one %.3f (target on 2 GPUs ≥ %s)",
			k, bench.per*k, median(vk)/median(v1), bench.target))
	}
	return nil
}
