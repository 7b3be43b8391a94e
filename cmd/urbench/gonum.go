package main

import (
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"time"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"

	gourblas "github.com/gour-dev/gour/blas"
	"github.com/gour-dev/gour/blas/gonumblas"
	"github.com/gour-dev/gour/cmd/internal/cli"
	"github.com/gour-dev/gour/ur"
)

// gonumCommand is `urbench gonum`.
func gonumCommand() (*cli.Command, func(io.Writer) error) {
	c := cli.New("urbench gonum", "[-device SELECTOR] [-backend cuda|opencl] [-blas cublas|clblast|gour] [-type float64|float32] [-n N] [-rounds N]", `
Time gonum's Dgemm (Sgemm with -type float32), C = A*B + C with n×n
matrices, through gonum's BLAS interface: gonumblas on the first device
of the backend that the selector lets through, host slices in and out
(each call copies A, B and C to the device and C back, and those copies
are in the time), against gonum's native implementation on this
machine's cores (GOMAXPROCS of them). Each is the median of the rounds,
after one call outside the timing that builds the kernels and allocates
the device's memory; the first timed round of each starts from the same
C, and their results are compared.`)
	backend := c.Flags.String("backend", "cuda", "the device's backend: cuda or opencl")
	lib := c.Flags.String("blas", "", "the device BLAS backend: cublas, clblast or gour; empty: the vendor library where it loads")
	typ := c.Flags.String("type", "float64", "the element type: float64 (Dgemm) or float32 (Sgemm)")
	n := c.Flags.Int("n", 4096, "the matrices' order")
	rounds := c.Flags.Int("rounds", 3, "timed calls of each implementation")
	c.DeviceFlag()
	return c, func(w io.Writer) error {
		if err := checkBackend(c, *backend); err != nil {
			return err
		}
		if *n < 1 || *rounds < 1 {
			return cli.Usagef(c.Name, "-n and -rounds must be at least 1")
		}
		opts := gonumblas.Options{Level3Threshold: 0, Level2Threshold: -1, BLAS: gourblas.Options{Backend: gourblas.Backend(*lib)}}
		switch *typ {
		case "float64":
			return gonumBench[float64](w, c, *backend, opts, *n, *rounds)
		case "float32":
			return gonumBench[float32](w, c, *backend, opts, *n, *rounds)
		}
		return cli.Usagef(c.Name, "-type %q: want float64 or float32", *typ)
	}
}

// gemmer is a gonum BLAS's general product in one precision.
type gemmer[T float32 | float64] func(tA, tB blas.Transpose, m, n, k int, alpha T, a []T, lda int, b []T, ldb int, beta T, c []T, ldc int)

func gemmOf[T float32 | float64](impl interface {
	blas.Float64
	blas.Float32
}) gemmer[T] {
	var f any = impl.Dgemm
	if _, ok := any(T(0)).(float32); ok {
		f = impl.Sgemm
	}
	return f.(func(blas.Transpose, blas.Transpose, int, int, int, T, []T, int, []T, int, T, []T, int))
}

func gonumBench[T float32 | float64](w io.Writer, c *cli.Command, backend string, opts gonumblas.Options, n, rounds int) error {
	dev, ctx, err := firstContext(c, backend)
	if err != nil {
		return err
	}
	defer ctx.Release()
	q, err := ctx.NewQueue(dev, ur.QueueProperties{})
	if err != nil {
		return err
	}
	defer q.Release()
	impl, err := gonumblas.New(q, opts)
	if err != nil {
		return err
	}
	defer impl.Close()

	rnd := rand.New(rand.NewPCG(1, 2))
	random := func() []T {
		s := make([]T, n*n)
		for i := range s {
			s[i] = T(rnd.Float64())
		}
		return s
	}
	a, b, c0 := random(), random(), random()
	type result struct {
		name  string
		gemm  gemmer[T]
		c     []T // the last round's C
		times []float64
	}
	results := []*result{
		{name: "gonum.native", gemm: gemmOf[T](gonum.Implementation{})},
		{name: "gonum.gour", gemm: gemmOf[T](impl)},
	}
	for _, r := range results {
		r.gemm(blas.NoTrans, blas.NoTrans, n, n, n, 1, a, n, b, n, 0, make([]T, n*n), n)
		for range rounds {
			r.c = slices.Clone(c0)
			start := time.Now()
			r.gemm(blas.NoTrans, blas.NoTrans, n, n, n, 1, a, n, b, n, 1, r.c, n)
			r.times = append(r.times, time.Since(start).Seconds())
		}
	}
	if s := impl.Stats(); s.Fallbacks != 0 || s.Device != int64(rounds+1) {
		return fmt.Errorf("gonumblas made %d of its %d calls on the device (%d fell back to gonum): the device path was not measured", s.Device, rounds+1, s.Fallbacks)
	}
	diff := 0.0
	for i, want := range results[0].c {
		got := results[1].c[i]
		diff = max(diff, math.Abs(float64(got-want))/math.Max(1, math.Abs(float64(want))))
	}
	tol := 1e-10
	if _, ok := any(T(0)).(float32); ok {
		tol = 1e-3
	}
	if diff > tol || math.IsNaN(diff) {
		return fmt.Errorf("the device's C differs from gonum's by %.3g relative (tolerance %.0g): wrong results", diff, tol)
	}
	fmt.Fprintf(w, "%s, device BLAS %s, %T, n=%d: C = A*B + C from host slices, copies in the time, %d rounds; native on %d cores (GOMAXPROCS)\n",
		dev, impl.Backend(), T(0), n, rounds, runtime.GOMAXPROCS(0))
	flop := 2 * float64(n) * float64(n) * float64(n)
	for _, r := range results {
		m := median(r.times)
		fmt.Fprintf(w, "%-13s s/call %9.4f  GFLOP/s %9.1f (min %.4f s, max %.4f s)\n", r.name, m, flop/m/1e9, slices.Min(r.times), slices.Max(r.times))
	}
	fmt.Fprintf(w, "gonum.speedup %.1fx (native over gour, medians); results agree to %.2g relative\n",
		median(results[0].times)/median(results[1].times), diff)
	return nil
}
