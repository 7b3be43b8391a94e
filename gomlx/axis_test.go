package gomlx

import (
	"math"
	"slices"
	"testing"

	gc "github.com/gomlx/compute"
	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/compute/shapes"
)

// run1 builds out = build(f, x) for x of shape s, runs it on data and
// returns the output's flat data, into a slice like want.
func run1[T any](t *testing.T, b *Backend, s shapes.Shape, data any, build func(f gc.Function, x gc.Value) (gc.Value, error)) []T {
	t.Helper()
	bl := b.Builder("one")
	f := bl.Main()
	x, err := f.Parameter("x", s, nil)
	if err != nil {
		t.Fatal(err)
	}
	y, err := build(f, x)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Return([]gc.Value{y}, nil); err != nil {
		t.Fatal(err)
	}
	ex, err := bl.Compile()
	if err != nil {
		t.Fatal(err)
	}
	defer ex.Finalize()
	xb, err := b.BufferFromFlatData(0, data, s)
	if err != nil {
		t.Fatal(err)
	}
	outs, err := ex.Execute([]gc.Buffer{xb}, []bool{true}, 0)
	if err != nil {
		t.Fatal(err)
	}
	ys, err := f.Shape(y)
	if err != nil {
		t.Fatal(err)
	}
	got := make([]T, ys.Size())
	if err := outs[0].ToFlatData(got); err != nil {
		t.Fatal(err)
	}
	_ = outs[0].Finalize()
	return got
}

// TestAxisOps checks ArgMinMax, CumSum, CumMax and the bitwise
// reductions along a middle axis (inner extent > 1), with NaNs, narrow
// integers that wrap, and reduced axes that are not consecutive.
func TestAxisOps(t *testing.T) {
	b := newTestBackend(t)
	nan := float32(math.NaN())
	// [2, 3, 2]: along axis 1.
	xs := []float32{
		1, 5, 3, nan, 0, 7,
		2, 2, 2, -1, 9, -1,
	}
	s := shapes.Make(dtypes.Float32, 2, 3, 2)
	got := run1[int64](t, b, s, xs, func(f gc.Function, x gc.Value) (gc.Value, error) {
		return f.ArgMinMax(x, 1, dtypes.Int64, true)
	})
	if want := []int64{2, 1, 0, 1}; !slices.Equal(got, want) {
		t.Errorf("ArgMin: got %v, want %v", got, want)
	}
	got8 := run1[int8](t, b, s, xs, func(f gc.Function, x gc.Value) (gc.Value, error) {
		return f.ArgMinMax(x, 1, dtypes.Int8, false)
	})
	if want := []int8{1, 1, 2, 0}; !slices.Equal(got8, want) {
		t.Errorf("ArgMax: got %v, want %v", got8, want)
	}
	gotF := run1[float32](t, b, s, xs, func(f gc.Function, x gc.Value) (gc.Value, error) {
		return f.CumMax(x, 1, gc.CumSumOptions{Exclusive: true, Reverse: true})
	})
	inf := float32(math.Inf(-1))
	wantF := []float32{3, nan, 0, 7, inf, inf, 9, -1, 9, -1, inf, inf}
	for i := range wantF {
		if gotF[i] != wantF[i] && !(gotF[i] != gotF[i] && wantF[i] != wantF[i]) {
			t.Errorf("CumMax: got %v, want %v", gotF, wantF)
			break
		}
	}

	// int8 sums wrap.
	is := []int8{100, 100, 100, -128}
	gotI := run1[int8](t, b, shapes.Make(dtypes.Int8, 4), is, func(f gc.Function, x gc.Value) (gc.Value, error) {
		return f.CumSum(x, 0, gc.CumSumOptions{})
	})
	var acc int8
	for i, v := range is {
		acc += v
		if gotI[i] != acc {
			t.Errorf("CumSum int8: got %v at %d, want %v", gotI[i], i, acc)
		}
	}

	// Bitwise reductions over axes 0 and 2 of [2, 2, 2] (not consecutive).
	us := []uint8{1, 2, 4, 8, 16, 32, 64, 128}
	s8 := shapes.Make(dtypes.Uint8, 2, 2, 2)
	gotU := run1[uint8](t, b, s8, us, func(f gc.Function, x gc.Value) (gc.Value, error) {
		return f.ReduceBitwiseOr(x, 0, 2)
	})
	if want := []uint8{1 | 2 | 16 | 32, 4 | 8 | 64 | 128}; !slices.Equal(gotU, want) {
		t.Errorf("ReduceBitwiseOr: got %v, want %v", gotU, want)
	}
	gotU = run1[uint8](t, b, s8, us, func(f gc.Function, x gc.Value) (gc.Value, error) {
		return f.ReduceBitwiseAnd(x, 1, 2)
	})
	if want := []uint8{0, 0}; !slices.Equal(gotU, want) {
		t.Errorf("ReduceBitwiseAnd: got %v, want %v", gotU, want)
	}
	gotU = run1[uint8](t, b, shapes.Make(dtypes.Uint8, 2, 0), []uint8{}, func(f gc.Function, x gc.Value) (gc.Value, error) {
		return f.ReduceBitwiseAnd(x, 1)
	})
	if want := []uint8{255, 255}; !slices.Equal(gotU, want) {
		t.Errorf("ReduceBitwiseAnd of nothing: got %v, want %v", gotU, want)
	}
}
