package compute

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/gour-dev/gour/trace"
	"github.com/gour-dev/gour/ur"
)

// GOUR_COMPUTE_ALWAYS_PREPARE=1 runs the package's tests with every
// Device keeping prepared launches (make test runs them so once), so that
// every kind of element-wise operation goes through them on adapters that
// do not prepare launches too.
func init() { alwaysPrepare = os.Getenv("GOUR_COMPUTE_ALWAYS_PREPARE") == "1" }

// preparedCount is how many of d's kernels hold a prepared launch.
func preparedCount(d *Device) int {
	d.prepMu.Lock()
	defer d.prepMu.Unlock()
	return len(d.prepared)
}

// Element-wise operations launch through their kernel's prepared launch
// from its second launch on, with the arguments of each call: new
// parameter values, other arrays of the same length, arrays freed while a
// prepared launch points into them (parked, then the launch used again),
// another length (prepared again), and goroutines launching one kernel
// at once. The adapters here (PoCL, the Level Zero test driver) do not
// prepare launches, so alwaysPrepare makes the Device keep them anyway;
// on CUDA they are the default.
func TestPreparedLaunches(t *testing.T) {
	defer func(was bool) { alwaysPrepare = was }(alwaysPrepare)
	alwaysPrepare = true
	forDevicesBothStorages(t, func(t *testing.T, d *Device) {
		const n = 1000 // not a multiple of 4: the one-a-work-item tail too
		axpy := func(a float32) *ExprFunc[float32] {
			return must[*ExprFunc[float32]](t)(Expr[float32]("y = a*x + y", map[string]float32{"a": a}))
		}
		xs := make([]float32, n)
		for i := range xs {
			xs[i] = float32(i % 8)
		}
		check := func(what string, y *Array[float32], want func(i int) float32) {
			t.Helper()
			got := must[[]float32](t)(y.ToSlice())
			for i, v := range got {
				if w := want(i); v != w {
					t.Fatalf("%s: y[%d] = %v, want %v", what, i, v, w)
				}
			}
		}
		x := must[*Array[float32]](t)(FromSlice(d, xs))
		defer x.Release()
		y := must[*Array[float32]](t)(Zeros[float32](d, n))
		defer y.Release()

		// The same arrays, a new parameter value each call
		// (one kernel: the parameters are arguments).
		sum := float32(0)
		for k := 1; k <= 4; k++ {
			if err := Transform(d, axpy(float32(k)), y, x, y); err != nil {
				t.Fatal(err)
			}
			sum += float32(k)
		}
		check("four calls", y, func(i int) float32 { return sum * xs[i] })
		if c := preparedCount(d); c != 1 {
			t.Fatalf("%d prepared launches after four calls of one kernel, want 1", c)
		}

		// Other arrays of the same length.
		x2 := must[*Array[float32]](t)(FromSlice(d, xs))
		y2 := must[*Array[float32]](t)(Zeros[float32](d, n))
		if err := Transform(d, axpy(3), y2, x2, y2); err != nil {
			t.Fatal(err)
		}
		check("other arrays", y2, func(i int) float32 { return 3 * xs[i] })

		// Freed while the prepared launch points into them: the
		// arguments are parked, the launch kept.
		if y2.c.dev.preps.Load() == 0 {
			t.Fatal("the prepared launch does not count the storage it points into")
		}
		if err := x2.Release(); err != nil {
			t.Fatal(err)
		}
		if err := y2.Release(); err != nil {
			t.Fatal(err)
		}
		if c := preparedCount(d); c != 1 {
			t.Fatalf("%d prepared launches after freeing its arrays, want 1 (parked)", c)
		}
		if err := Transform(d, axpy(1), y, x, y); err != nil {
			t.Fatal(err)
		}
		check("after parking", y, func(i int) float32 { return (sum + 1) * xs[i] })

		// Another length: prepared again for the new range.
		const m = 4096 + 3
		twos := make([]float32, m)
		for i := range twos {
			twos[i] = 2
		}
		xm := must[*Array[float32]](t)(FromSlice(d, twos))
		defer xm.Release()
		ym := must[*Array[float32]](t)(Zeros[float32](d, m))
		defer ym.Release()
		for range 2 {
			if err := Transform(d, axpy(5), ym, xm, ym); err != nil {
				t.Fatal(err)
			}
		}
		check("another length", ym, func(int) float32 { return 20 })

		// Goroutines launching the kernel at once, each on its own
		// arrays: one takes the prepared launch, the others
		// launch without it.
		var wg sync.WaitGroup
		errs := make([]error, 8)
		ys := make([]*Array[float32], len(errs))
		for g := range ys {
			ys[g] = must[*Array[float32]](t)(Zeros[float32](d, n))
			defer ys[g].Release()
		}
		for g := range errs {
			wg.Go(func() {
				f := axpy(float32(g + 1))
				for range 20 {
					if err := Transform(d, f, ys[g], x, ys[g]); err != nil {
						errs[g] = err
						return
					}
				}
			})
		}
		wg.Wait()
		for g, err := range errs {
			if err != nil {
				t.Fatalf("goroutine %d: %v", g, err)
			}
			check(fmt.Sprintf("goroutine %d", g), ys[g], func(i int) float32 { return float32(20*(g+1)) * xs[i] })
		}
	})
}

// A Device on an adapter that does not prepare launches (any but CUDA)
// keeps none, and stops trying after its first ArgLaunch.
func TestPreparedLaunchesOnlyWherePrepared(t *testing.T) {
	if alwaysPrepare {
		t.Skip("GOUR_COMPUTE_ALWAYS_PREPARE=1: every Device prepares")
	}
	for _, d := range deviceContexts(t) {
		if d.Backend() == "cuda" {
			continue
		}
		ones := make([]float32, 256)
		for i := range ones {
			ones[i] = 1
		}
		x := must[*Array[float32]](t)(FromSlice(d, ones))
		defer x.Release()
		for range 3 {
			if err := Transform(d, must[*ExprFunc[float32]](t)(Expr[float32]("y = x + y", nil)), x, x, x); err != nil {
				t.Fatal(err)
			}
		}
		if c, p := preparedCount(d), d.prepares.Load(); c != 0 || p != prepareNo {
			t.Errorf("%s: %d prepared launches, prepares %d; want none and prepareNo", devName(d), c, p)
		}
		check := must[[]float32](t)(x.ToSlice())
		if check[0] != 8 {
			t.Errorf("%s: x[0] = %v after three doublings, want 8", devName(d), check[0])
		}
	}
}

// While a trace is recorded no launch is prepared: a prepared launch has
// a host span only, and the trace's queue tracks would lose the kernels.
func TestPreparedLaunchesNotWhileTracing(t *testing.T) {
	if trace.Active() != nil {
		t.Skip("a trace is being recorded (GOUR_TRACE)")
	}
	defer func(was bool) { alwaysPrepare = was }(alwaysPrepare)
	alwaysPrepare = true
	for _, d := range deviceContexts(t) {
		x := must[*Array[float32]](t)(FromSlice(d, make([]float32, 256)))
		defer x.Release()
		if err := ur.StartTrace(filepath.Join(t.TempDir(), "trace.json")); err != nil {
			t.Fatal(err)
		}
		for range 3 {
			if err := Transform(d, must[*ExprFunc[float32]](t)(Expr[float32]("y = x + 1", nil)), x, x); err != nil {
				t.Fatal(err)
			}
		}
		if err := ur.StopTrace(); err != nil {
			t.Fatal(err)
		}
		if c := preparedCount(d); c != 0 {
			t.Errorf("%s: %d prepared launches made while tracing, want 0", devName(d), c)
		}
		if got := must[[]float32](t)(x.ToSlice()); got[255] != 3 {
			t.Errorf("%s: x[255] = %v after three increments, want 3", devName(d), got[255])
		}
	}
}
