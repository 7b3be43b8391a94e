package compute

import (
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/gour-dev/gour/internal/harness/testenv"
)

// TestDevicesMadeAndReleasedConcurrently makes Devices on one device from
// four goroutines, runs an expression, reductions and a dot product on
// each and releases it, three times over. Each Device builds the same
// kernels in a context of its own, from the process's cache after the
// first; on PoCL with its kernel cache off (make test) a Device's release
// once removed the build directory the others' programs were compiling
// in, and the process aborted inside PoCL.
func TestDevicesMadeAndReleasedConcurrently(t *testing.T) {
	testenv.CheckRequired(t)
	for _, dev := range testenv.System(t).Devices {
		if dev.Backend() != "opencl" && dev.Backend() != "cuda" {
			continue
		}
		t.Run(dev.String(), func(t *testing.T) {
			var wg sync.WaitGroup
			errs := make(chan error, 4)
			for g := range 4 {
				wg.Go(func() {
					for round := range 3 {
						d, err := NewDevice(dev)
						if err != nil {
							errs <- err
							return
						}
						err = errors.Join(useBriefly(d, g*10+round), d.Release())
						if err != nil {
							errs <- fmt.Errorf("goroutine %d, round %d: %w", g, round, err)
							return
						}
					}
				})
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				t.Error(err)
			}
		})
	}
}

// useBriefly runs y = 2*x + c, the sum, minimum and maximum of y and x·x
// on d, and checks them.
func useBriefly(d *Device, c int) error {
	const n = 3000
	xs := make([]float32, n)
	for i := range xs {
		xs[i] = float32(i%17 - 8)
	}
	x, err := FromSlice(d, xs)
	if err != nil {
		return err
	}
	defer x.Release()
	y, err := Zeros[float32](d, n)
	if err != nil {
		return err
	}
	defer y.Release()
	f, err := Expr("y = 2*x + c", map[string]float32{"c": float32(c)})
	if err != nil {
		return err
	}
	if err := Transform(d, f, y, x); err != nil {
		return err
	}
	var sum, minY, maxY, dot float32
	minY, maxY = 2*xs[0]+float32(c), 2*xs[0]+float32(c)
	for _, v := range xs {
		yv := 2*v + float32(c)
		sum += yv
		minY, maxY = min(minY, yv), max(maxY, yv)
		dot += v * v
	}
	for _, tc := range []struct {
		what string
		op   ReduceOp[float32]
		want float32
	}{{"sum", Sum[float32](), sum}, {"min", Min[float32](), minY}, {"max", Max[float32](), maxY}} {
		got, err := Reduce(d, y, tc.op)
		if err != nil {
			return fmt.Errorf("%s: %w", tc.what, err)
		}
		if got != tc.want {
			return fmt.Errorf("%s of y = %v, want %v", tc.what, got, tc.want)
		}
	}
	got, err := Dot(d, x, x)
	if err != nil {
		return err
	}
	if got != dot {
		return fmt.Errorf("x·x = %v, want %v", got, dot)
	}
	return nil
}
