package expr_test

import (
	"testing"

	"github.com/gour-dev/gour/compute/expr"
)

const benchN = 1 << 24

func axpyData() (x, y, out []float32) {
	x, y, out = make([]float32, benchN), make([]float32, benchN), make([]float32, benchN)
	for i := range x {
		x[i], y[i] = float32(i%1000), float32(i%7)
	}
	return
}

// BenchmarkAxpyEvaluator and BenchmarkAxpyHandLoop compute out = a*x + y
// over 2^24 float32 elements on one goroutine: the evaluator must stay
// within 0.8x of the loop a person would write.
func BenchmarkAxpyEvaluator(b *testing.B) {
	c, err := expr.Compile("out = a*x + y", expr.Signature{Out: expr.Float32,
		Arrays: map[string]expr.Type{"x": expr.Float32, "y": expr.Float32},
		Params: map[string]expr.Type{"a": expr.Float32}})
	if err != nil {
		b.Fatal(err)
	}
	ev, err := c.Evaluator()
	if err != nil {
		b.Fatal(err)
	}
	x, y, out := axpyData()
	arrays, params := []any{x, y}, []any{float32(2)}
	b.SetBytes(3 * 4 * benchN)
	for b.Loop() {
		if err := ev.Run(out, arrays, params, 0, benchN); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkAxpyHandLoop(b *testing.B) {
	x, y, out := axpyData()
	a := float32(2)
	b.SetBytes(3 * 4 * benchN)
	for b.Loop() {
		axpyLoop(out, x, y, a, 0, benchN)
	}
}

//go:noinline
func axpyLoop(out, x, y []float32, a float32, lo, hi int) {
	for i := lo; i < hi; i++ {
		out[i] = a*x[i] + y[i]
	}
}

// BenchmarkTernaryEvaluator is a function of several operations, chunked:
// r = x > 0 ? x : 0.1*x.
func BenchmarkTernaryEvaluator(b *testing.B) {
	c, err := expr.Compile("r = x > 0 ? x : 0.1*x", expr.Signature{Out: expr.Float32,
		Arrays: map[string]expr.Type{"x": expr.Float32}})
	if err != nil {
		b.Fatal(err)
	}
	ev, _ := c.Evaluator()
	x, _, out := axpyData()
	b.SetBytes(2 * 4 * benchN)
	for b.Loop() {
		if err := ev.Run(out, []any{x}, nil, 0, benchN); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkTernaryHandLoop(b *testing.B) {
	x, _, out := axpyData()
	b.SetBytes(2 * 4 * benchN)
	for b.Loop() {
		leaky(out, x)
	}
}

//go:noinline
func leaky(out, x []float32) {
	for i := range out {
		if v := x[i]; v > 0 {
			out[i] = v
		} else {
			out[i] = 0.1 * v
		}
	}
}
