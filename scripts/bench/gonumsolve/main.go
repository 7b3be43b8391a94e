// Command gonumsolve times gonum/mat's Mul and Solve with gonum's native
// BLAS and with blas/gonumblas on the default device, in one process:
// n×n products and n×n systems with n right-hand sides, host slices in
// and out as a gonum program has them. For each size, operation and
// implementation it prints the first call's time and the fastest of the
// calls after it, the speedup of the fastest, and how far the device's
// results are from gonum's.
//
// Usage:
//
//	gonumsolve [-sizes 64,512,2048,4096] [-runs 3] [-maxtime 20s] [-backend cublas|clblast|gour] [-threshold N] [-wait]
//
// ONEAPI_DEVICE_SELECTOR picks the device (cuda:0 for the first CUDA
// GPU). The Implementation is made when the process starts, as a
// program would make it, so its device set-up runs in the background
// while the native runs go; a call made before the set-up is done runs
// on the host (the summary counts them). -wait waits for the set-up
// before the first call instead, so that every call above the threshold
// goes to the device: on a slow device (PoCL, whose kernels take seconds
// to build), the way to time the device at all.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/blas/gonum"
	"gonum.org/v1/gonum/mat"

	_ "github.com/gour-dev/gour/adapters/all"
	gourblas "github.com/gour-dev/gour/blas"
	"github.com/gour-dev/gour/blas/gonumblas"
	"github.com/gour-dev/gour/ur"
)

func main() {
	sizes := flag.String("sizes", "64,512,2048,4096", "comma-separated matrix orders")
	runs := flag.Int("runs", 3, "timed calls after the first, of which the fastest counts")
	maxTime := flag.Duration("maxtime", 20*time.Second, "stop repeating a call after this much time (at least one call after the first)")
	backend := flag.String("backend", "", "device BLAS backend: cublas, clblast or gour (\"\": the device's vendor library where it loads)")
	threshold := flag.Int("threshold", gonumblas.DefaultLevel3Threshold, "gonumblas's Options.Level3Threshold (0: every call with work on the device)")
	wait := flag.Bool("wait", false, "wait for the device's set-up before the first call")
	flag.Parse()
	ns, err := parseSizes(*sizes)
	if err == nil && *runs < 1 {
		err = errors.New("-runs must be at least 1")
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "gonumsolve: %v\n", err)
		flag.Usage()
		os.Exit(2)
	}
	c := config{sizes: ns, runs: *runs, maxTime: *maxTime, backend: gourblas.Backend(*backend), threshold: *threshold, wait: *wait}
	if err := run(os.Stdout, c); err != nil {
		fmt.Fprintf(os.Stderr, "gonumsolve: %v\n", err)
		os.Exit(1)
	}
}

func parseSizes(s string) ([]int, error) {
	var ns []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n <= 0 {
			return nil, fmt.Errorf("size %q is not a positive number", f)
		}
		ns = append(ns, n)
	}
	return ns, nil
}

// timing is one implementation's times for one operation and size.
type timing struct {
	first, best time.Duration
	result      *mat.Dense
}

// config is the command line.
type config struct {
	sizes     []int
	runs      int
	maxTime   time.Duration
	backend   gourblas.Backend
	threshold int
	wait      bool
}

func run(out io.Writer, c config) error {
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
	opts := gonumblas.DefaultOptions()
	opts.BLAS.Backend = c.backend
	opts.Level3Threshold = c.threshold
	start := time.Now()
	impl, err := gonumblas.New(q, opts)
	if err != nil {
		return err
	}
	defer impl.Close()
	ready := make(chan time.Duration, 1)
	go func() {
		if err := impl.WaitReady(context.Background()); err != nil {
			fmt.Fprintf(os.Stderr, "gonumblas: %v\n", err)
		}
		ready <- time.Since(start)
	}()
	if c.wait {
		if err := impl.WaitReady(context.Background()); err != nil {
			return err
		}
	}

	w := tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(w, "n\top\tnative first\tnative best\tgour first\tgour best\tspeedup\tmax rel diff\t")
	for _, n := range c.sizes {
		rnd := rand.New(rand.NewPCG(uint64(n), 1))
		a, b := random(rnd, n), random(rnd, n)
		ops := []struct {
			name string
			f    func(dst *mat.Dense) error
		}{
			{"Mul", func(dst *mat.Dense) error { dst.Mul(a, b); return nil }},
			{"Solve", func(dst *mat.Dense) error { return dst.Solve(a, b) }},
		}
		for _, op := range ops {
			blas64.Use(gonum.Implementation{})
			nat, err := measure(op.f, c.runs, c.maxTime)
			if err != nil {
				return fmt.Errorf("native %s %d: %w", op.name, n, err)
			}
			blas64.Use(impl)
			dv, err := measure(op.f, c.runs, c.maxTime)
			blas64.Use(gonum.Implementation{})
			if err != nil {
				return fmt.Errorf("gonumblas %s %d: %w", op.name, n, err)
			}
			fmt.Fprintf(w, "%d\t%s\t%s\t%s\t%s\t%s\t%.2fx\t%.1e\t\n", n, op.name, ms(nat.first), ms(nat.best), ms(dv.first), ms(dv.best),
				float64(nat.best)/float64(dv.best), relDiff(dv.result, nat.result))
			// Each row as it is measured: a run cut short by a time
			// limit still shows the sizes it reached.
			w.Flush()
		}
	}
	w.Flush()
	setup := "not done"
	select {
	case d := <-ready:
		setup = "done after " + ms(d) + " ms"
	default:
	}
	s := impl.Stats()
	fmt.Fprintf(out, "device %s, backend %q; set-up %s (in the background from New)\n", dev.Name(), impl.Backend(), setup)
	fmt.Fprintf(out, "gonumblas calls: %d on the device, %d on the host (%d before the device was ready), %d device failures computed on the host\n",
		s.Device, s.Host, s.Unready, s.Fallbacks)
	return nil
}

// measure times f's first call, then calls it up to runs more times
// (fewer when they take more than maxTime in all), keeping the fastest.
func measure(f func(dst *mat.Dense) error, runs int, maxTime time.Duration) (timing, error) {
	var t timing
	var spent time.Duration
	for i := 0; i <= runs; i++ {
		dst := &mat.Dense{}
		t0 := time.Now()
		err := f(dst)
		d := time.Since(t0)
		var cond mat.Condition
		if err != nil && !errors.As(err, &cond) {
			return t, err
		}
		if i == 0 {
			t.first, t.result = d, dst
			continue
		}
		if i == 1 || d < t.best {
			t.best = d
		}
		if spent += d; spent > maxTime {
			break
		}
	}
	return t, nil
}

// random is an n×n matrix of numbers in [-1, 1).
func random(rnd *rand.Rand, n int) *mat.Dense {
	d := make([]float64, n*n)
	for i := range d {
		d[i] = 2*rnd.Float64() - 1
	}
	return mat.NewDense(n, n, d)
}

// relDiff is the largest difference between got's and want's elements
// relative to want's largest magnitude.
func relDiff(got, want *mat.Dense) float64 {
	var diff, scale float64
	r, c := want.Dims()
	for i := range r {
		for j := range c {
			diff = math.Max(diff, math.Abs(got.At(i, j)-want.At(i, j)))
			scale = math.Max(scale, math.Abs(want.At(i, j)))
		}
	}
	return diff / math.Max(scale, math.SmallestNonzeroFloat64)
}

func ms(d time.Duration) string { return fmt.Sprintf("%.2f", float64(d)/1e6) }
