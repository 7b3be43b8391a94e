package blas_test

import (
	"sync"
	"testing"

	"github.com/gour-dev/gour/dtype"
)

// TestConcurrentReductions: goroutines sharing a Handle run reductions of
// different vectors at once. The two passes of each share the Handle's
// partials with the others' on one queue; every result must be its own.
func TestConcurrentReductions(t *testing.T) {
	for _, e := range envs(t) {
		t.Run(e.name, func(t *testing.T) {
			const goroutines, n = 8, 20_000 // several work-groups: two passes
			f := dtype.Float32
			xs := values(n, 1)
			dx := e.upload(t, f, xs, 0, 0, false)
			ys, results := make([]*dmem, goroutines), make([]*dmem, goroutines)
			want := make([]float64, goroutines)
			for g := range goroutines {
				y := make([]float64, n)
				for i := range y {
					y[i] = float64((i + g) % 5) // exact sums in float32
					want[g] += xs[i] * y[i]
				}
				ys[g] = e.upload(t, f, y, 0, 0, g%2 == 0)
				results[g] = e.upload(t, f, []float64{0}, 0, 0, g%2 == 1)
			}
			var wg sync.WaitGroup
			errs := make([]error, goroutines)
			for g := range goroutines {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for range 10 {
						if errs[g] = e.h.Dot(f, n, dx.operand(), 1, ys[g].operand(), 1, results[g].operand()); errs[g] != nil {
							return
						}
					}
				}()
			}
			wg.Wait()
			for g, err := range errs {
				if err != nil {
					t.Fatalf("goroutine %d: %v", g, err)
				}
				if got := results[g].read(t)[0]; got != want[g] {
					t.Errorf("goroutine %d: Dot = %v, want %v", g, got, want[g])
				}
			}
		})
	}
}
