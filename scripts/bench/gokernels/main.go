package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log"
	"math"
	"os"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	_ "github.com/gour-dev/gour/adapters/all"
	"github.com/gour-dev/gour/gokernel"
	"github.com/gour-dev/gour/programmgr"
	"github.com/gour-dev/gour/scripts/bench"
	"github.com/gour-dev/gour/ur"
)

// options are the command's flags.
type options struct {
	size         string        // a preset's name, or "auto"
	only         []string      // the kernels to run; none: all
	rounds       int           // timed rounds of each kernel in each language
	roundTime    time.Duration // the launches of a round last about this long
	launchIters  int           // launches per round of the launch cost; 0: skip it
	launchRounds int
	cpu          bool // check the Go kernels on the CPU too (gokernel.RunCPU)
	checkOnly    bool // check, time nothing
}

func main() {
	var o options
	flag.StringVar(&o.size, "size", "auto", "problem sizes: full, small, tiny, or auto (full on a GPU, small elsewhere)")
	only := flag.String("only", "", "comma-separated kernels to run (axpy,sum,transpose,softmax,layernorm,sgemm); empty: all")
	flag.IntVar(&o.rounds, "rounds", 7, "timed rounds of each kernel in each language; the median is reported")
	flag.DurationVar(&o.roundTime, "round", 50*time.Millisecond, "about how long the launches of one round last")
	flag.IntVar(&o.launchIters, "launch-iters", 20000, "launches of a 1,024-element Axpy per round of the launch cost; 0 skips it")
	flag.IntVar(&o.launchRounds, "launch-rounds", 5, "rounds of the launch cost")
	flag.BoolVar(&o.cpu, "cpu", false, "check the Go kernels run on the CPU (gokernel.RunCPU) too: slow but at small sizes")
	flag.BoolVar(&o.checkOnly, "check", false, "check every kernel's results and time nothing")
	first := flag.Bool("first", false, "time this new process's first use of a Go kernel (build or disk-cache load, launch, Finish) and exit")
	whole := flag.Bool("whole", false, "with -first, build the whole module's source for the kernel, as before kernels were built alone (for comparison)")
	flag.Parse()
	if *only != "" {
		o.only = strings.Split(*only, ",")
	}
	var err error
	if *first {
		err = firstUse(os.Stdout, *whole)
	} else {
		var dev *ur.Device
		if dev, err = ur.DefaultDevice(); err == nil {
			err = run(os.Stdout, dev, o)
		}
	}
	if err != nil {
		log.Fatalf("gokernels-bench: %v", err)
	}
}

// run checks and times the kernels on dev and prints the table, then the
// launch cost.
func run(w io.Writer, dev *ur.Device, o options) error {
	size := o.size
	if size == "auto" {
		size = "small"
		if dev.Type() == ur.DeviceTypeGPU {
			size = "full"
		}
	}
	s, ok := presets[size]
	if !ok {
		return fmt.Errorf("-size %q: want full, small, tiny or auto", o.size)
	}
	for _, name := range o.only {
		if !knownCase(name) {
			return fmt.Errorf("-only: no kernel %q", name)
		}
	}
	if !o.checkOnly && (o.rounds < 1 || o.launchIters > 0 && o.launchRounds < 1) {
		return fmt.Errorf("-rounds and -launch-rounds must be at least 1")
	}
	d, err := newDevice(dev)
	if err != nil {
		return err
	}
	defer d.close()
	lang := cLang(dev.Backend())
	fmt.Fprintf(w, "device: %s; %s sizes\n", d, size)
	if d.cErr != nil {
		fmt.Fprintf(w, "the %s kernels do not build here, so their column is empty (the CUDA C column needs a CUDA device): %v\n", lang, d.cErr)
	}
	if !o.checkOnly {
		fmt.Fprintf(w, "timing: %s; the median of %d rounds, Go and %s interleaved\n\n", d.timer(), o.rounds, lang)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	if !o.checkOnly {
		fmt.Fprintf(tw, "kernel\tsize\tGo µs\t%s µs\tGo speed (C/Go)\tGo rate\t%s rate\t\n", lang, lang)
	}
	var results []string
	for _, kc := range cases {
		if len(o.only) > 0 && !slices.Contains(o.only, kc.name) {
			continue
		}
		c, err := kc.make(d, s)
		if err != nil {
			return fmt.Errorf("%s: %w", kc.name, err)
		}
		diff, err := d.check(c, o.cpu)
		if err != nil {
			return err
		}
		if o.checkOnly {
			fmt.Fprintf(w, "%s %s: %s\n", c.name, c.size, agreement(c, lang, o.cpu, diff))
			continue
		}
		goUS, cUS, n, err := d.measure(c, o.rounds, o.roundTime)
		if err != nil {
			return fmt.Errorf("%s: %w", c.name, err)
		}
		ratio := cUS / goUS
		fmt.Fprintf(tw, "%s\t%s\t%.2f\t%s\t%s\t%s\t%s\t\n", c.name, c.size, goUS, orNA(cUS, "%.2f"), orNA(ratio, "%.3f"), rate(c, goUS), rate(c, cUS))
		results = append(results, fmt.Sprintf("RESULT name=%s size=%s go_us=%.3f c_us=%.3f ratio=%.4f go_rate=%.1f c_rate=%.1f unit=%s launches=%d rounds=%d go_c_maxdiff=%.3g c_lang=%s backend=%s",
			c.name, c.size, goUS, cUS, ratio, perSecond(c, goUS), perSecond(c, cUS), unit(c), n, o.rounds, diff, strings.ReplaceAll(lang, " ", ""), dev.Backend()))
	}
	if o.checkOnly {
		return nil
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(w, "\n(Go speed = %s time / Go time: 1 is as fast as %s, more is faster.)\n\n", lang, lang)
	if o.launchIters > 0 {
		line, err := d.launchCost(w, o.launchIters, o.launchRounds)
		if err != nil {
			return fmt.Errorf("launch cost: %w", err)
		}
		results = append(results, line)
	}
	fmt.Fprintln(w)
	for _, r := range results {
		fmt.Fprintln(w, r)
	}
	return nil
}

// agreement says what a check compared.
func agreement(c *kcase, lang string, cpu bool, diff float64) string {
	s := "Go on the device agrees with the CPU reference"
	if c.cRun != nil {
		s = fmt.Sprintf("Go and %s on the device agree with the CPU reference (max |Go-C| %.3g)", lang, diff)
	}
	if cpu {
		s += "; so does the Go kernel run on the CPU"
	}
	return s
}

// orNA formats v, or "n/a" when it is not a number of µs or a ratio
// (no C kernels).
func orNA(v float64, format string) string {
	if v == 0 || math.IsNaN(v) || math.IsInf(v, 0) {
		return "n/a"
	}
	return fmt.Sprintf(format, v)
}

// unit is the unit of c's rate.
func unit(c *kcase) string {
	if c.flops {
		return "GFLOP/s"
	}
	return "GB/s"
}

// perSecond is c's work per second, in unit(c), at us µs a launch (0 for
// no time).
func perSecond(c *kcase, us float64) float64 {
	if us == 0 {
		return 0
	}
	return c.work / us / 1e3
}

// rate is perSecond with its unit.
func rate(c *kcase, us float64) string {
	if us == 0 {
		return "n/a"
	}
	return fmt.Sprintf("%.1f %s", perSecond(c, us), unit(c))
}

// check launches c's Go and C kernels once each and compares their
// output with the CPU's answer, and with cpu the Go kernel run on the
// CPU too. It returns the largest difference between the Go and the C
// output.
func (d *device) check(c *kcase, cpu bool) (float64, error) {
	var outs [][]float32
	for _, side := range []struct {
		lang string
		run  func(*ur.Queue) error
	}{{"Go", c.goRun}, {cLang(d.dev.Backend()), c.cRun}} {
		if side.run == nil {
			continue
		}
		// NaNs in the output, then the inputs (an in-place kernel's
		// output is one).
		if err := d.poison(c.out, len(c.want)); err != nil {
			return 0, err
		}
		if c.reset != nil {
			if err := c.reset(); err != nil {
				return 0, err
			}
		}
		if err := side.run(d.q); err != nil {
			return 0, fmt.Errorf("%s in %s: %w", c.name, side.lang, err)
		}
		got, err := d.read(c.out, len(c.want))
		if err != nil {
			return 0, err
		}
		if err := compare(got, c.want, c.atol, c.rtol); err != nil {
			return 0, fmt.Errorf("%s in %s on %s: %w", c.name, side.lang, d, err)
		}
		outs = append(outs, got)
	}
	if c.reset != nil {
		if err := c.reset(); err != nil {
			return 0, err
		}
	}
	if cpu {
		got, err := c.cpu()
		if err != nil {
			return 0, fmt.Errorf("%s in Go on the CPU: %w", c.name, err)
		}
		if err := compare(got, c.want, c.atol, c.rtol); err != nil {
			return 0, fmt.Errorf("%s in Go on the CPU: %w", c.name, err)
		}
	}
	var diff float64
	if len(outs) == 2 {
		for i := range outs[0] {
			diff = max(diff, math.Abs(float64(outs[0][i])-float64(outs[1][i])))
		}
	}
	return diff, nil
}

// compare reports the first element of got that is not want's to within
// atol + rtol*|want| (a NaN never is).
func compare(got, want []float32, atol, rtol float64) error {
	for i := range want {
		g, w := float64(got[i]), float64(want[i])
		if !(math.Abs(g-w) <= atol+rtol*math.Abs(w)) {
			return fmt.Errorf("element %d is %v, want %v", i, got[i], want[i])
		}
	}
	return nil
}

// maxLaunches bounds the launches of a round.
const maxLaunches = 20000

// measure times c's Go and C kernels in rounds rounds each, Go and C
// alternating, each round launches enough to last about roundTime
// (after a warm-up, the same number for both), and returns the medians
// of the rounds' µs per launch (C's 0 without C kernels) and the
// launches per round.
func (d *device) measure(c *kcase, rounds int, roundTime time.Duration) (goUS, cUS float64, n int, err error) {
	runs := []func(*ur.Queue) error{c.goRun}
	if c.cRun != nil {
		runs = append(runs, c.cRun)
	}
	var est float64
	for _, run := range runs {
		if _, err := d.timeRound(3, run); err != nil { // warm-up
			return 0, 0, 0, err
		}
		t, err := d.timeRound(1, run)
		if err != nil {
			return 0, 0, 0, err
		}
		est = max(est, t)
	}
	n = int(min(maxLaunches, max(1, float64(roundTime.Microseconds())/est)))
	times := make([][]float64, len(runs))
	for range rounds {
		for i, run := range runs {
			t, err := d.timeRound(n, run)
			if err != nil {
				return 0, 0, 0, err
			}
			times[i] = append(times[i], t)
		}
	}
	goUS = bench.Median(times[0])
	if len(times) > 1 {
		cUS = bench.Median(times[1])
	}
	return goUS, cUS, n, nil
}

// launchN is the work-items of the launch-cost Axpy.
const launchN = 1024

// launchCost times launching a 1,024-element Axpy, Go's through the
// generated LaunchAxpy and C's through ur's Queue.Launch, on a plain
// queue: rounds of iters launches and a Finish, Go and C alternating,
// after 1,000 of each. It prints the medians of the µs per launch of the
// whole round and of its launches alone (what the host spends
// enqueueing), checks that every launch ran, and returns a RESULT line.
func (d *device) launchCost(w io.Writer, iters, rounds int) (string, error) {
	const warmup = 1000
	k, err := d.goKernel("Axpy")
	if err != nil {
		return "", err
	}
	ones := make([]float32, launchN)
	for i := range ones {
		ones[i] = 1
	}
	x, yGo, yC := d.upload(ones), d.alloc(launchN), d.alloc(launchN)
	if d.err != nil {
		return "", d.err
	}
	for _, y := range []ur.Ptr{yGo, yC} {
		if err := d.q.CopyToPtr(y, make([]byte, 4*launchN)); err != nil {
			return "", err
		}
	}
	r := ur.Range1D(launchN).WithLocal(group)
	runs := []func(*ur.Queue) error{func(q *ur.Queue) error {
		return LaunchAxpy(k, q, r, 1, slice(x, launchN), slice(yGo, launchN))
	}}
	if cRun, err := d.cLaunch("axpy", r, ur.ArgOf(float32(1)), ur.ArgPtr(x), ur.ArgPtr(yC), ur.ArgOf(int32(launchN))); err == nil {
		runs = append(runs, cRun)
	}
	// round returns the µs per launch of n launches of run and a Finish,
	// and of the launches alone.
	round := func(n int, run func(*ur.Queue) error) (total, enqueue float64, err error) {
		start := time.Now()
		for range n {
			if err := run(d.lq); err != nil {
				return 0, 0, err
			}
		}
		enq := time.Since(start)
		err = d.lq.Finish()
		return float64(time.Since(start).Nanoseconds()) / 1e3 / float64(n), float64(enq.Nanoseconds()) / 1e3 / float64(n), err
	}
	for _, run := range runs {
		if _, _, err := round(warmup, run); err != nil {
			return "", err
		}
	}
	total, enq := make([][]float64, len(runs)), make([][]float64, len(runs))
	for range rounds {
		for i, run := range runs {
			t, e, err := round(iters, run)
			if err != nil {
				return "", err
			}
			total[i], enq[i] = append(total[i], t), append(enq[i], e)
		}
	}
	// Every launch added 1 to every element (counted exactly in float32
	// up to 2^24).
	for _, y := range []ur.Ptr{yGo, yC}[:len(runs)] {
		if warmup+iters*rounds > 1<<24 {
			break
		}
		got, err := d.read(y, launchN)
		if err != nil {
			return "", err
		}
		if want := float32(warmup + iters*rounds); got[0] != want || got[launchN-1] != want {
			return "", fmt.Errorf("after %v launches y is %v…%v", want, got[0], got[launchN-1])
		}
	}
	goT, goE := bench.Median(total[0]), bench.Median(enq[0])
	var cT, cE float64
	if len(runs) > 1 {
		cT, cE = bench.Median(total[1]), bench.Median(enq[1])
	}
	lang := cLang(d.dev.Backend())
	fmt.Fprintf(w, "launch of a %d-element Axpy, median of %d rounds of %d launches and a Finish:\n", launchN, rounds, iters)
	fmt.Fprintf(w, "  Go (generated LaunchAxpy):   %.3f µs a launch (enqueue alone %.3f µs)\n", goT, goE)
	if len(runs) > 1 {
		fmt.Fprintf(w, "  %s (ur Queue.Launch): %.3f µs a launch (enqueue alone %.3f µs); Go speed %.3f\n", lang, cT, cE, cT/goT)
	}
	return fmt.Sprintf("RESULT name=launch_axpy_%d go_us=%.3f c_us=%.3f ratio=%.4f go_enqueue_us=%.3f c_enqueue_us=%.3f iters=%d rounds=%d backend=%s",
		launchN, goT, cT, cT/goT, goE, cE, iters, rounds, d.dev.Backend()), nil
}

// firstUse times what a new process pays to use its first Go kernel: from
// nothing (the device found, a context and a queue made, a program
// manager made: reported apart) to the first launch of Axpy finished,
// the kernel's build — or its load from gour's persistent cache — its
// launch and a Finish. The cache is the one the environment names
// (SYCL_CACHE_DIR; SYCL_CACHE_PERSISTENT=0 turns it off), so run.sh runs
// this in new processes with an empty cache (cold) and then again
// (warm). It prints a RESULT line, with the size of the source built:
// the kernel's own translation unit, or with whole the module's whole
// source (every kernel), as Module.Kernel built before kernels were
// built alone.
func firstUse(w io.Writer, whole bool) error {
	mod, build := kernels, "kernel"
	if whole {
		// The module as generated before spans: Kernel builds its whole
		// source.
		mod, build = &gokernel.Module{OpenCL: kernels.OpenCL, CUDA: kernels.CUDA, FP64: kernels.FP64, Int64Atomics: kernels.Int64Atomics,
			DebugOpenCL: kernels.DebugOpenCL, DebugCUDA: kernels.DebugCUDA, DebugSites: kernels.DebugSites}, "module"
		for _, k := range kernels.Kernels {
			mod.Kernels = append(mod.Kernels, gokernel.KernelInfo{Name: k.Name, Params: k.Params, Needs: k.Needs})
		}
	}
	t0 := time.Now()
	dev, err := ur.DefaultDevice()
	if err != nil {
		return err
	}
	ctx, err := ur.NewContext(dev)
	if err != nil {
		return err
	}
	defer ctx.Release()
	q, err := ctx.NewQueue(dev, ur.QueueProperties{})
	if err != nil {
		return err
	}
	defer q.Release()
	setup := time.Since(t0)
	t1 := time.Now()
	mgr, err := programmgr.New(ctx, programmgr.Options{})
	if err != nil {
		return err
	}
	defer mgr.Close()
	mgrTime := time.Since(t1)

	ones := make([]float32, launchN)
	for i := range ones {
		ones[i] = 1
	}
	var ptrs [2]ur.Ptr
	for i := range ptrs {
		u, err := ctx.AllocDevice(dev, 4*launchN)
		if err != nil {
			return err
		}
		defer u.Free()
		ptrs[i] = u.Ptr()
		if err := q.CopyToPtr(ptrs[i], ur.AsBytes(ones)); err != nil {
			return err
		}
	}

	t2 := time.Now()
	k, err := mod.Kernel(context.Background(), mgr, dev, "Axpy")
	if err != nil {
		return err
	}
	defer k.Release()
	got := time.Since(t2)
	src, err := mod.KernelSource("Axpy", dev.Backend(), false)
	if err != nil {
		return err
	}
	if err := LaunchAxpy(k, q, ur.Range1D(launchN).WithLocal(group), 2, slice(ptrs[0], launchN), slice(ptrs[1], launchN)); err != nil {
		return err
	}
	if err := q.Finish(); err != nil {
		return err
	}
	total := time.Since(t2)

	y := make([]float32, launchN)
	if err := q.CopyFromPtr(ur.AsBytes(y), ptrs[1]); err != nil {
		return err
	}
	if y[0] != 3 || y[launchN-1] != 3 {
		return fmt.Errorf("the first Axpy left y = %v…%v, want 3", y[0], y[launchN-1])
	}
	st := mgr.Stats()
	// A second kernel of the module, after the first: what a build costs
	// once the device compiler is loaded and warm in the process (the
	// first build pays its start too). The module's whole source has
	// nothing more to build.
	t3 := time.Now()
	k2, err := mod.Kernel(context.Background(), mgr, dev, "Transpose")
	if err != nil {
		return err
	}
	second := time.Since(t3)
	if err := k2.Release(); err != nil {
		return err
	}
	ms := func(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e6 }
	fmt.Fprintf(w, "first use of a Go kernel on %s (%s): %.3f ms (the kernel %.3f, its launch and Finish %.3f); before it: device and context %.3f ms, program manager %.3f ms; builds %d, from gour's disk cache %d; built from the %s's source, %d bytes\n",
		dev.Name(), dev.Backend(), ms(total), ms(got), ms(total-got), ms(setup), ms(mgrTime), st.Builds, st.DiskHits, build, len(src))
	fmt.Fprintf(w, "then a second kernel (Transpose): %.3f ms\n", ms(second))
	fmt.Fprintf(w, "RESULT name=first_use total_ms=%.3f kernel_ms=%.3f launch_ms=%.3f setup_ms=%.3f manager_ms=%.3f builds=%d disk_hits=%d kernels_in_module=%d build=%s source_bytes=%d second_kernel_ms=%.3f backend=%s\n",
		ms(total), ms(got), ms(total-got), ms(setup), ms(mgrTime), st.Builds, st.DiskHits, len(kernels.Kernels), build, len(src), ms(second), dev.Backend())
	return nil
}
