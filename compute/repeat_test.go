package compute

import (
	"fmt"
	"sync"
	"testing"
)

// Element-wise operations repeated on one kernel, which ur launches
// through a prepared table from the second repeat on where the adapter
// prepares launches with arguments (CUDA), compute with the arguments of
// each call: new parameter values, other arrays of the same length, those
// arrays freed and the first ones used again, another length, and
// goroutines launching one kernel at once.
func TestRepeatedTransforms(t *testing.T) {
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

		// Other arrays of the same length.
		x2 := must[*Array[float32]](t)(FromSlice(d, xs))
		y2 := must[*Array[float32]](t)(Zeros[float32](d, n))
		if err := Transform(d, axpy(3), y2, x2, y2); err != nil {
			t.Fatal(err)
		}
		check("other arrays", y2, func(i int) float32 { return 3 * xs[i] })

		// Freed, and the first arrays used again.
		if err := x2.Release(); err != nil {
			t.Fatal(err)
		}
		if err := y2.Release(); err != nil {
			t.Fatal(err)
		}
		if err := Transform(d, axpy(1), y, x, y); err != nil {
			t.Fatal(err)
		}
		check("after freeing the others", y, func(i int) float32 { return (sum + 1) * xs[i] })

		// Another length: another range.
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
		// arrays.
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
