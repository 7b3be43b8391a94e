package compute

import (
	"context"
	"fmt"
	"math/bits"
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

// BenchmarkDispatchCPU is the CPU context's cost of a small Transform
// (1024 elements: one chunk, on the caller's goroutine), of a
// hand-written Func and of an Expr, with the allocations of each.
//
//	go test -run '^$' -bench DispatchCPU ./compute/
func BenchmarkDispatchCPU(b *testing.B) {
	const n = 1024
	c := NewCPU(0)
	x := must[*Array[float32]](b)(FromSlice(c, make([]float32, n)))
	y := must[*Array[float32]](b)(FromSlice(c, make([]float32, n)))
	ef := must[*ExprFunc[float32]](b)(Expr[float32]("y = a*x + y", map[string]float32{"a": 0}))
	for _, fn := range []Func[float32]{newAxpy(b, 0), ef} {
		b.Run(fmt.Sprintf("%T", fn), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if err := Transform(c, fn, y, x, y); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
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
		b.Run(devName(d)+"/Transform", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if err := Transform(d, fn, y, x, y); err != nil {
					b.Fatal(err)
				}
			}
			if err := d.Wait(); err != nil {
				b.Fatal(err)
			}
		})
		ef := must[*ExprFunc[float32]](b)(Expr[float32]("y = a*x + y", map[string]float32{"a": 0}))
		if err := Transform(d, ef, y, x, y); err != nil { // builds
			b.Fatal(err)
		}
		b.Run(devName(d)+"/TransformExpr", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if err := Transform(d, ef, y, x, y); err != nil {
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
		b.Run(devName(d)+"/PreparedLaunch", func(b *testing.B) {
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
		b.Run(devName(d)+"/LaunchArgs", func(b *testing.B) {
			for b.Loop() {
				if err := q.Launch(k, r, args...); err != nil {
					b.Fatal(err)
				}
			}
			if err := q.Finish(); err != nil {
				b.Fatal(err)
			}
		})
		b.Run(devName(d)+"/ArgLaunch", func(b *testing.B) {
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

// BenchmarkReduce measures the device reductions' bandwidth: Sum over
// n float32 (4n bytes read), Dot (8n) and, as the reference a kernel
// can reach, Copy (8n: read and written). n is 2^28 on a GPU and 2^24
// elsewhere. The groups=K variants run Sum with K work-groups per
// compute unit instead of the default 16.
//
//	UR_REQUIRE_ADAPTERS=cuda go test -run '^$' -bench Reduce ./compute/
func BenchmarkReduce(b *testing.B) {
	for _, d := range deviceContexts(b) {
		n := 1 << 24
		if d.dev.Type() == ur.DeviceTypeGPU {
			n = 1 << 28
		}
		a := must[*Array[float32]](b)(Zeros[float32](d, n))
		c := must[*Array[float32]](b)(Zeros[float32](d, n))
		if err := Fill(d, a, 1); err != nil {
			b.Fatal(err)
		}
		name := fmt.Sprintf("%s/n=2^%d", devName(d), bits.Len(uint(n))-1)
		b.Run(name+"/Sum", func(b *testing.B) {
			b.SetBytes(int64(4 * n))
			for b.Loop() {
				s, err := Reduce(d, a, Sum[float32]())
				if err != nil || s != float32(n) && n <= 1<<24 {
					b.Fatal(s, err)
				}
			}
		})
		b.Run(name+"/Dot", func(b *testing.B) {
			b.SetBytes(int64(8 * n))
			for b.Loop() {
				if _, err := Dot(d, a, c); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(name+"/Copy", func(b *testing.B) {
			b.SetBytes(int64(8 * n))
			for b.Loop() {
				if err := Copy(d, c, a); err != nil {
					b.Fatal(err)
				}
				if err := d.Wait(); err != nil {
					b.Fatal(err)
				}
			}
		})
		def := d.groups
		for _, k := range []uint64{4, 8, 32} {
			b.Run(fmt.Sprintf("%s/Sum/groups=%d", name, k), func(b *testing.B) {
				d.groups = k * def / 16
				defer func() { d.groups = def }()
				b.SetBytes(int64(4 * n))
				for b.Loop() {
					if _, err := Reduce(d, a, Sum[float32]()); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
		a.Release()
		c.Release()
	}
}

// devName names a device in benchmark names: backend:index.
func devName(d *Device) string { return fmt.Sprintf("%s:%d", d.Backend(), d.dev.Index()) }

// BenchmarkTaskSequence times an invocation of a TaskSequence of capacity
// 4 whose function is a Transform of 1024 elements and a read-back, the
// caller keeping 4 outstanding, against the same function called in a
// loop (Plain): what a sequence costs over the loop it replaces.
//
//	UR_REQUIRE_ADAPTERS=opencl go test -run '^$' -bench TaskSequence -count 5 ./compute/
func BenchmarkTaskSequence(b *testing.B) {
	const n, capacity = 1024, 4
	for _, d := range deviceContexts(b) {
		x := must[*Array[float32]](b)(FromSlice(d, make([]float32, n)))
		y := must[*Array[float32]](b)(FromSlice(d, make([]float32, n)))
		fn := must[*ExprFunc[float32]](b)(Expr[float32]("y = a*x + y", map[string]float32{"a": 1}))
		step := func(_ context.Context, ctx Context, _ int) (float32, error) {
			if err := Transform(ctx, fn, y, x, y); err != nil {
				return 0, err
			}
			got, err := y.ToSlice()
			if err != nil {
				return 0, err
			}
			return got[n-1], nil
		}
		bg := context.Background()
		b.Run(devName(d)+"/Plain", func(b *testing.B) {
			for b.Loop() {
				if _, err := step(bg, d, 0); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(devName(d)+"/Sequence", func(b *testing.B) {
			seq := must[*TaskSequence[int, float32]](b)(NewTaskSequence(d, step, capacity))
			defer seq.Release(bg)
			for b.Loop() {
				if seq.Outstanding() == capacity {
					if _, err := seq.Get(bg); err != nil {
						b.Fatal(err)
					}
				}
				if err := seq.Async(bg, 0); err != nil {
					b.Fatal(err)
				}
			}
			for seq.Outstanding() > 0 {
				if _, err := seq.Get(bg); err != nil {
					b.Fatal(err)
				}
			}
		})
		x.Release()
		y.Release()
	}
}

// BenchmarkTaskSequenceOverhead is a sequence's own cost an invocation:
// Async and Get round trips of a function that does nothing, on the CPU
// context, the caller keeping 4 outstanding. With fewer than four Ps (or
// CPUs) Get parks at once; with more it polls first (spinUntilDone).
//
//	go test -run '^$' -bench TaskSequenceOverhead -cpu 2,8 ./compute/
func BenchmarkTaskSequenceOverhead(b *testing.B) {
	const capacity = 4
	c := NewCPU(1)
	defer c.Release()
	bg := context.Background()
	seq := must[*TaskSequence[int, int]](b)(NewTaskSequence(c, func(_ context.Context, _ Context, i int) (int, error) { return i, nil }, capacity))
	defer seq.Release(bg)
	b.ReportAllocs()
	sent, got := 0, 0
	get := func() {
		v, err := seq.Get(bg)
		if err != nil || v != got {
			b.Fatalf("Get: %v, %v; want %d", v, err, got)
		}
		got++
	}
	for b.Loop() {
		if seq.Outstanding() == capacity {
			get()
		}
		if err := seq.Async(bg, sent); err != nil {
			b.Fatal(err)
		}
		sent++
	}
	for got < sent {
		get()
	}
}
