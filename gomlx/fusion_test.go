package gomlx

import (
	"math"
	"testing"

	gc "github.com/gomlx/compute"
	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/compute/shapes"
)

func newTestBackend(t *testing.T) *Backend {
	t.Helper()
	b, err := New("")
	if err != nil {
		t.Fatalf("gour backend: %v", err)
	}
	t.Cleanup(b.Finalize)
	return b.(*Backend)
}

// mustOf returns a function failing t on an error of an operation.
func mustOf(t *testing.T) func(gc.Value, error) gc.Value {
	return func(v gc.Value, err error) gc.Value {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
}

// TestFusedChain checks that a chain of element-wise operations, a
// broadcast scalar included, is one step (one compute/expr kernel), and
// computes what the operations compute one by one.
func TestFusedChain(t *testing.T) {
	b := newTestBackend(t)
	must := mustOf(t)
	bl := b.Builder("chain")
	f := bl.Main()
	s := shapes.Make(dtypes.Float32, 2, 3)
	x := must(f.Parameter("x", s, nil))
	y := must(f.Parameter("y", s, nil))
	two := must(f.Constant([]float32{2}))
	// out = tanh(x*2 + y) - exp(-y), where y is read twice.
	v := must(f.Mul(x, two))
	v = must(f.Add(v, y))
	v = must(f.Tanh(v))
	w := must(f.Neg(y))
	w = must(f.Exp(w))
	v = must(f.Sub(v, w))
	if err := f.Return([]gc.Value{v}, nil); err != nil {
		t.Fatal(err)
	}
	ex, err := bl.Compile()
	if err != nil {
		t.Fatal(err)
	}
	defer ex.Finalize()
	e := ex.(*Executable)
	if len(e.steps) != 1 || e.steps[0].ew == nil || len(e.steps[0].ins) != 3 {
		t.Fatalf("want one fused step over 3 leaves (x, y, the constant), got %d steps", len(e.steps))
	}

	xs := []float32{-1, -0.5, 0, 0.25, 1, 2}
	ys := []float32{0.5, 1, -1, 2, 0, -0.75}
	xb, err := b.BufferFromFlatData(0, xs, s)
	if err != nil {
		t.Fatal(err)
	}
	yb, err := b.BufferFromFlatData(0, ys, s)
	if err != nil {
		t.Fatal(err)
	}
	outs, err := ex.Execute([]gc.Buffer{xb, yb}, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	got := make([]float32, 6)
	if err := outs[0].ToFlatData(got); err != nil {
		t.Fatal(err)
	}
	for i := range got {
		want := math.Tanh(float64(xs[i])*2+float64(ys[i])) - math.Exp(-float64(ys[i]))
		if math.Abs(float64(got[i])-want) > 1e-5 {
			t.Errorf("element %d: got %v, want %v", i, got[i], want)
		}
	}
}

// TestSharedNotFused checks that a value read twice is computed once, as
// a step of its own, and that an output read by another step is kept.
func TestSharedNotFused(t *testing.T) {
	b := newTestBackend(t)
	must := mustOf(t)
	bl := b.Builder("shared")
	f := bl.Main()
	s := shapes.Make(dtypes.Int32, 4)
	x := must(f.Parameter("x", s, nil))
	sq := must(f.Mul(x, x))
	a := must(f.Add(sq, sq)) // sq read twice: not inlined
	if err := f.Return([]gc.Value{a, sq}, nil); err != nil {
		t.Fatal(err)
	}
	ex, err := bl.Compile()
	if err != nil {
		t.Fatal(err)
	}
	defer ex.Finalize()
	if n := len(ex.(*Executable).steps); n != 2 {
		t.Fatalf("want 2 steps, got %d", n)
	}
	xb, err := b.BufferFromFlatData(0, []int32{1, -2, 3, 40000}, s)
	if err != nil {
		t.Fatal(err)
	}
	outs, err := ex.Execute([]gc.Buffer{xb}, []bool{true}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := xb.ToFlatData(make([]int32, 4)); err == nil {
		t.Errorf("a donated buffer still reads")
	}
	got0, got1 := make([]int32, 4), make([]int32, 4)
	if err := outs[0].ToFlatData(got0); err != nil {
		t.Fatal(err)
	}
	if err := outs[1].ToFlatData(got1); err != nil {
		t.Fatal(err)
	}
	sq40k := int32(40000) * int32(40000) // wraps, as int32 arithmetic does
	want0, want1 := []int32{2, 8, 18, 2 * sq40k}, []int32{1, 4, 9, sq40k}
	for i := range 4 {
		if got0[i] != want0[i] || got1[i] != want1[i] {
			t.Errorf("element %d: got %d, %d, want %d, %d", i, got0[i], got1[i], want0[i], want1[i])
		}
	}
}

// TestOutputOfParameter checks that an output that is a parameter not
// donated is a copy: the input stays readable and independent.
func TestOutputOfParameter(t *testing.T) {
	b := newTestBackend(t)
	must := mustOf(t)
	bl := b.Builder("identity")
	f := bl.Main()
	s := shapes.Make(dtypes.Uint8, 3)
	x := must(f.Parameter("x", s, nil))
	r := must(f.Reshape(x, 3, 1))
	if err := f.Return([]gc.Value{x, r}, nil); err != nil {
		t.Fatal(err)
	}
	ex, err := bl.Compile()
	if err != nil {
		t.Fatal(err)
	}
	defer ex.Finalize()
	xb, err := b.BufferFromFlatData(0, []uint8{7, 200, 255}, s)
	if err != nil {
		t.Fatal(err)
	}
	outs, err := ex.Execute([]gc.Buffer{xb}, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	for i, buf := range append(outs, xb) {
		got := make([]uint8, 3)
		if err := buf.ToFlatData(got); err != nil {
			t.Fatalf("buffer %d: %v", i, err)
		}
		if got[0] != 7 || got[1] != 200 || got[2] != 255 {
			t.Errorf("buffer %d: got %v", i, got)
		}
	}
	if err := outs[0].Finalize(); err != nil {
		t.Fatal(err)
	}
	got := make([]uint8, 3)
	if err := outs[1].ToFlatData(got); err != nil || got[1] != 200 {
		t.Errorf("the second output after the first's Finalize: %v, %v", got, err)
	}
}
