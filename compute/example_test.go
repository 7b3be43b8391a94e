package compute_test

import (
	"context"
	"fmt"
	"log"

	_ "github.com/gour-dev/gour/adapters/all"
	"github.com/gour-dev/gour/compute"
	"github.com/gour-dev/gour/ur"
)

// scale is out = p0 * in0 + p1, by hand in OpenCL C and CUDA C, and in
// Go for the CPU context.
func scale() *compute.SourceFunc[float32] {
	f, err := compute.NewFunc("scale", 1,
		func(out []float32, ins [][]float32, p []float32, lo, hi int) {
			for i := lo; i < hi; i++ {
				out[i] = p[0]*ins[0][i] + p[1]
			}
		},
		map[string]string{
			"opencl": `__kernel void scale(__global float* out, __global const float* in0, float p0, float p1, ulong n) {
	size_t i = get_global_id(0);
	if (i < n) out[i] = p0 * in0[i] + p1;
}`,
			"cuda": `extern "C" __global__ void scale(float* out, const float* in0, float p0, float p1, unsigned long long n) {
	unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) out[i] = p0 * in0[i] + p1;
}`,
		})
	if err != nil {
		log.Fatal(err)
	}
	return f
}

// Example runs the same code on the default device, if there is one
// whose backend takes OpenCL C or CUDA C, and on the CPU otherwise: the
// output is the same.
func Example() {
	var ctx compute.Context = compute.NewCPU(0)
	if dev, err := ur.DefaultDevice(); err == nil && (dev.Backend() == "opencl" || dev.Backend() == "cuda") {
		d, err := compute.NewDevice(dev)
		if err != nil {
			log.Fatal(err)
		}
		ctx = d
	}
	defer ctx.Release()

	x, err := compute.FromSlice(ctx, []float32{1, 2, 3, 4, 5, 6}, 2, 3)
	if err != nil {
		log.Fatal(err)
	}
	defer x.Release()
	y, err := compute.Zeros[float32](ctx, 2, 3)
	if err != nil {
		log.Fatal(err)
	}
	defer y.Release()

	// y = 10x + 1, then the sum, the maximum and x·y, all on ctx: x is
	// uploaded once, y never leaves the device until ToSlice.
	if err := compute.Transform(ctx, scale().With(10, 1), y, x); err != nil {
		log.Fatal(err)
	}
	sum, _ := compute.Reduce(ctx, y, compute.Sum[float32]())
	hi, _ := compute.Reduce(ctx, y, compute.Max[float32]())
	dot, _ := compute.Dot(ctx, x, y)
	ys, _ := y.ToSlice()
	fmt.Println(y.Shape(), ys)
	fmt.Println("sum", sum, "max", hi, "dot", dot)

	// A task sequence: three invocations in order, at most two at once.
	seq, err := compute.NewTaskSequence(ctx, func(_ context.Context, c compute.Context, k float32) (float32, error) {
		if err := compute.ForEach(c, scale().With(1, k), y); err != nil { // y += k
			return 0, err
		}
		return compute.Reduce(c, y, compute.Min[float32]())
	}, 2)
	if err != nil {
		log.Fatal(err)
	}
	defer seq.Release(context.Background())
	bg := context.Background()
	for k := range 3 {
		if err := seq.Async(bg, float32(k+1)); err != nil {
			log.Fatal(err)
		}
		if seq.Outstanding() == seq.Capacity() {
			m, _ := seq.Get(bg)
			fmt.Println("min", m)
		}
	}
	m, _ := seq.Get(bg)
	fmt.Println("min", m)
	// Output:
	// [2 3] [11 21 31 41 51 61]
	// sum 216 max 61 dot 931
	// min 12
	// min 14
	// min 17
}

// ExampleExpr writes the function once, as an expression: the CPU
// context evaluates it in Go, a device context runs the kernel generated
// from it.
func ExampleExpr() {
	axpy, err := compute.Expr[float32]("y = a*x + y", map[string]float32{"a": 2})
	if err != nil {
		log.Fatal(err)
	}
	ctx := compute.NewCPU(0)
	x, _ := compute.FromSlice(ctx, []float32{1, 2, 3, 4})
	y, _ := compute.FromSlice(ctx, []float32{10, 20, 30, 40})
	if err := compute.Transform(ctx, axpy, y, x, y); err != nil { // inputs in name order: x, y
		log.Fatal(err)
	}
	got, _ := y.ToSlice()
	fmt.Println(axpy.Arrays(), got)
	// Output: [x y] [12 24 36 48]
}

// ExampleMatMul multiplies two matrices, adds a bias row to every row of
// the product (a broadcasting Transform) and takes the row maxima
// (ReduceAxis), on the CPU context; a Device context runs the same code.
func ExampleMatMul() {
	ctx := compute.NewCPU(0)
	a, _ := compute.FromSlice(ctx, []float32{1, 2, 3, 4, 5, 6}, 2, 3) // 2×3
	b, _ := compute.FromSlice(ctx, []float32{1, 0, 0, 1, 1, 1}, 3, 2) // 3×2
	bias, _ := compute.FromSlice(ctx, []float32{10, 20}, 2)           // a row
	c, _ := compute.Zeros[float32](ctx, 2, 2)
	rowMax, _ := compute.Zeros[float32](ctx, 2, 1)
	add, err := compute.Expr[float32]("out = c + bias", nil)
	if err != nil {
		log.Fatal(err)
	}
	if err := compute.MatMul(ctx, c, a, b); err != nil {
		log.Fatal(err)
	}
	if err := compute.Transform(ctx, add, c, bias, c); err != nil { // bias [2] on every row of c [2, 2]
		log.Fatal(err)
	}
	if err := compute.ReduceAxis(ctx, rowMax, c, 1, compute.Max[float32]()); err != nil {
		log.Fatal(err)
	}
	got, _ := c.ToSlice()
	m, _ := rowMax.ToSlice()
	fmt.Println(got, m)
	err = compute.MatMul(ctx, c, a, a)
	fmt.Println(err)
	// Output:
	// [14 25 20 31] [25 31]
	// compute: shape mismatch: MatMul of [2 3] by [2 3]: inner dimensions 3 and 2 differ
}
