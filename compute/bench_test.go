package compute

import (
	"runtime"
	"sync"
	"testing"

	"github.com/gour-dev/gour/ur"
)

// BenchmarkAxpyCPU compares y = a*x + y over 2^24 float32 through
// Transform on the CPU context with the same loop hand-written over
// goroutines: the cost of the abstraction.
//
//	go test -run '^$' -bench AxpyCPU -count 5 ./compute/
func BenchmarkAxpyCPU(b *testing.B) {
	const n = 1 << 24
	xs, ys := make([]float32, n), make([]float32, n)
	for i := range xs {
		xs[i], ys[i] = float32(i&1023), 1
	}
	b.Run("Transform", func(b *testing.B) {
		c := NewCPU(0)
		x := must[*Array[float32]](b)(FromSlice(c, xs))
		y := must[*Array[float32]](b)(FromSlice(c, ys))
		fn := newAxpy(b, 0.5)
		b.SetBytes(3 * 4 * n)
		b.ResetTimer()
		for b.Loop() {
			if err := Transform(c, fn, y, x, y); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("goroutines", func(b *testing.B) {
		x, y := append([]float32(nil), xs...), append([]float32(nil), ys...)
		w := runtime.GOMAXPROCS(0)
		b.SetBytes(3 * 4 * n)
		b.ResetTimer()
		for b.Loop() {
			var wg sync.WaitGroup
			for k := range w {
				wg.Add(1)
				go func() {
					defer wg.Done()
					lo, hi := k*n/w, (k+1)*n/w
					xs, ys := x[lo:hi], y[lo:hi]
					for i := range ys {
						ys[i] = 0.5*xs[i] + ys[i]
					}
				}()
			}
			wg.Wait()
		}
	})
}

// BenchmarkDispatch compares the host cost of a small Transform (1024
// elements, so the launch dominates) on each device with a
// PreparedLaunch and an ArgLaunch of the same hand-written kernel on the
// same arrays. The queue is drained once per b.N launches.
//
//	UR_REQUIRE_ADAPTERS=opencl go test -run '^$' -bench Dispatch -count 5 ./compute/
func BenchmarkDispatch(b *testing.B) {
	const n = 1024
	for _, d := range deviceContexts(b) {
		xs, ys := make([]float32, n), make([]float32, n)
		x := must[*Array[float32]](b)(FromSlice(d, xs))
		y := must[*Array[float32]](b)(FromSlice(d, ys))
		fn := newAxpy(b, 0)
		if err := Transform(d, fn, y, x, y); err != nil { // builds, uploads
			b.Fatal(err)
		}
		b.Run(d.Backend()+"/Transform", func(b *testing.B) {
			for b.Loop() {
				if err := Transform(d, fn, y, x, y); err != nil {
					b.Fatal(err)
				}
			}
			if err := d.Wait(); err != nil {
				b.Fatal(err)
			}
		})
		_, ctx, q := d.UR()
		prog := must[*ur.Program](b)(ctx.NewProgramFromSource(axpySources[d.Backend()]))
		if err := prog.Build(""); err != nil {
			b.Fatal(err)
		}
		k := must[*ur.Kernel](b)(prog.NewKernel("axpy"))
		r := ur.Range1D(roundUp(n, d.local)).WithLocal(d.local)
		args := []ur.Arg{y.c.dev.arg(), x.c.dev.arg(), y.c.dev.arg(), ur.ArgOf(float32(0)), ur.ArgOf(uint64(n))}
		set := func(i int, m *devMem) error {
			if m.usm != nil {
				return k.SetArgPtr(i, m.usm.Ptr())
			}
			return k.SetArgMem(i, m.mem)
		}
		if err := set(0, y.c.dev); err != nil {
			b.Fatal(err)
		}
		set(1, x.c.dev)
		set(2, y.c.dev)
		k.SetArgFloat32(3, 0)
		k.SetArgUint64(4, n)
		b.Run(d.Backend()+"/PreparedLaunch", func(b *testing.B) {
			step := must[*ur.PreparedLaunch](b)(q.PrepareLaunch(k, r))
			defer step.Release()
			for b.Loop() {
				if err := step.Launch(); err != nil {
					b.Fatal(err)
				}
			}
			if err := q.Finish(); err != nil {
				b.Fatal(err)
			}
		})
		b.Run(d.Backend()+"/ArgLaunch", func(b *testing.B) {
			step := must[*ur.ArgLaunch](b)(q.PrepareLaunchArgs(k, r, ur.LaunchProperties{}, args...))
			defer step.Release()
			for b.Loop() {
				if err := step.Launch(); err != nil {
					b.Fatal(err)
				}
			}
			if err := q.Finish(); err != nil {
				b.Fatal(err)
			}
		})
		k.Release()
		prog.Release()
		x.Release()
		y.Release()
	}
}
