package gomlx_test

import (
	"math"
	"testing"

	gc "github.com/gomlx/compute"
	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/compute/shapes"
)

// TestDynamicSpecialization builds a graph of many operations over a
// dynamic batch axis once, runs it at several batch sizes (twice at one of
// them, which reuses that size's plan) and checks every output against
// the same computation on the host. It is what the suite covers only an
// operation at a time: a whole graph replayed per input shape.
func TestDynamicSpecialization(t *testing.T) {
	b := newBackend(t)
	bl := b.Builder("dynamic_specialization")
	f := bl.Main()
	must := func(v gc.Value, err error) gc.Value {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	x := must(f.Parameter("x", shapes.MakeDynamic(dtypes.Float32, []int{shapes.DynamicDim, 3}, []string{"batch", ""}), nil))
	w := must(f.Constant([]float32{1, 2, 3, 4, 5, 6}, 3, 2))
	// y = softmax(relu(x @ w) reversed along the batch) summed over the
	// batch, next to the batch's cumulative sum of x's rows and its size.
	y := must(f.DotGeneral(x, []int{1}, nil, w, []int{0}, nil, gc.DotGeneralConfig{}))
	y = must(f.FusedActivation(y, gc.ActivationConfig{Type: gc.ActivationRelu}))
	y = must(f.Reverse(y, 0))
	y = must(f.FusedSoftmax(y, 1))
	y = must(f.ReduceSum(y, 0))
	rows := must(f.ReduceSum(x, 1))
	cum := must(f.CumSum(rows, 0, gc.CumSumOptions{}))
	n := must(f.DynamicDimensionSize(x, 0))
	tr := must(f.Transpose(x, 1, 0))
	if err := f.Return([]gc.Value{y, cum, n, tr}, nil); err != nil {
		t.Fatal(err)
	}
	exec, err := bl.Compile()
	if err != nil {
		t.Fatal(err)
	}
	defer exec.Finalize()
	for _, batch := range []int{2, 5, 2, 1} {
		in := make([]float32, batch*3)
		for i := range in {
			in[i] = float32(i%7) - 2
		}
		buf, err := b.BufferFromFlatData(0, in, shapes.Make(dtypes.Float32, batch, 3))
		if err != nil {
			t.Fatal(err)
		}
		outs, err := exec.Execute([]gc.Buffer{buf}, nil, 0)
		_ = buf.Finalize()
		if err != nil {
			t.Fatalf("batch %d: %v", batch, err)
		}
		got := make([][]float32, 4)
		var gotN []int64
		for i, o := range outs {
			s, _ := o.Shape()
			if s.IsDynamic() {
				t.Errorf("batch %d: output %d of dynamic shape %s", batch, i, s)
			}
			if i == 2 {
				gotN = make([]int64, 1)
				err = o.ToFlatData(gotN)
			} else {
				got[i] = make([]float32, s.Size())
				err = o.ToFlatData(got[i])
			}
			_ = o.Finalize()
			if err != nil {
				t.Fatal(err)
			}
		}
		// The host's computation.
		wantY := make([]float32, 2)
		wantCum := make([]float32, batch)
		var acc float32
		for r := range batch {
			var h [2]float64
			for c := range 2 {
				for k := range 3 {
					h[c] += float64(in[r*3+k]) * float64(1+k*2+c)
				}
				h[c] = math.Max(h[c], 0)
			}
			m := math.Max(h[0], h[1])
			e0, e1 := math.Exp(h[0]-m), math.Exp(h[1]-m)
			wantY[0] += float32(e0 / (e0 + e1))
			wantY[1] += float32(e1 / (e0 + e1))
			acc += in[r*3] + in[r*3+1] + in[r*3+2]
			wantCum[r] = acc
		}
		for i, v := range wantY {
			if math.Abs(float64(got[0][i]-v)) > 1e-4 {
				t.Errorf("batch %d: y = %v, want %v", batch, got[0], wantY)
				break
			}
		}
		for i, v := range wantCum {
			if got[1][i] != v {
				t.Errorf("batch %d: cumsum = %v, want %v", batch, got[1], wantCum)
				break
			}
		}
		if gotN[0] != int64(batch) {
			t.Errorf("batch %d: DynamicDimensionSize = %d", batch, gotN[0])
		}
		for r := range batch {
			for c := range 3 {
				if got[3][c*batch+r] != in[r*3+c] {
					t.Fatalf("batch %d: transpose = %v of %v", batch, got[3], in)
				}
			}
		}
	}
	// A mismatching static axis is an error of Execute, not a panic.
	buf, err := b.BufferFromFlatData(0, make([]float32, 8), shapes.Make(dtypes.Float32, 2, 4))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = buf.Finalize() }()
	if _, err := exec.Execute([]gc.Buffer{buf}, nil, 0); err == nil {
		t.Errorf("Execute of a (2, 4) input for a (batch, 3) parameter did not fail")
	}
}

// TestDynamicBuild builds operations of every kind over a dynamic batch
// axis: each must build with no error and no panic (a node of a dynamic
// shape is planned only in a replay, so building must not compute from
// its dimensions).
func TestDynamicBuild(t *testing.T) {
	b := newBackend(t)
	try := func(name string, fn func(f gc.Function, x, xi gc.Value) (any, error)) {
		defer func() {
			if r := recover(); r != nil {
				t.Errorf("%s: panic %v", name, r)
			}
		}()
		bl := b.Builder(name)
		f := bl.Main()
		x, _ := f.Parameter("x", shapes.MakeDynamic(dtypes.Float32, []int{shapes.DynamicDim, 4, 6}, []string{"b", "", ""}), nil)
		xi, _ := f.Parameter("xi", shapes.MakeDynamic(dtypes.Int32, []int{shapes.DynamicDim, 4, 6}, []string{"b", "", ""}), nil)
		if _, err := fn(f, x, xi); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	try("transpose", func(f gc.Function, x, xi gc.Value) (any, error) { return f.Transpose(x, 2, 0, 1) })
	try("reducemax", func(f gc.Function, x, xi gc.Value) (any, error) { return f.ReduceMax(x, 0, 2) })
	try("reduceprod", func(f gc.Function, x, xi gc.Value) (any, error) { return f.ReduceProduct(x, 1) })
	try("argmin", func(f gc.Function, x, xi gc.Value) (any, error) { return f.ArgMinMax(x, 0, dtypes.Int32, true) })
	try("cummax", func(f gc.Function, x, xi gc.Value) (any, error) { return f.CumMax(x, 0, gc.CumSumOptions{}) })
	try("rbitand", func(f gc.Function, x, xi gc.Value) (any, error) { return f.ReduceBitwiseAnd(xi, 0, 2) })
	try("bitand", func(f gc.Function, x, xi gc.Value) (any, error) { return f.BitwiseAnd(xi, xi) })
	try("shl", func(f gc.Function, x, xi gc.Value) (any, error) { return f.ShiftLeft(xi, xi) })
	try("atan2", func(f gc.Function, x, xi gc.Value) (any, error) { return f.Atan2(x, x) })
	try("concat", func(f gc.Function, x, xi gc.Value) (any, error) { return f.Concatenate(0, x, x) })
	try("concat1", func(f gc.Function, x, xi gc.Value) (any, error) { return f.Concatenate(1, x, x) })
	try("slice", func(f gc.Function, x, xi gc.Value) (any, error) {
		return f.Slice(x, []int{0, 1, 0}, []int{-1, 3, 6}, []int{1, 1, 2})
	})
	try("reverse", func(f gc.Function, x, xi gc.Value) (any, error) { return f.Reverse(x, 0, 1) })
	try("softmax0", func(f gc.Function, x, xi gc.Value) (any, error) { return f.FusedSoftmax(x, 0) })
	try("layernorm", func(f gc.Function, x, xi gc.Value) (any, error) { return f.FusedLayerNorm(x, []int{2}, 1e-5, nil, nil) })
	try("layernorm0", func(f gc.Function, x, xi gc.Value) (any, error) {
		return f.FusedLayerNorm(x, []int{0, 1}, 1e-5, nil, nil)
	})
	try("dot", func(f gc.Function, x, xi gc.Value) (any, error) {
		return f.DotGeneral(x, []int{2}, []int{0}, x, []int{2}, []int{0}, gc.DotGeneralConfig{})
	})
	try("doti", func(f gc.Function, x, xi gc.Value) (any, error) {
		return f.DotGeneral(xi, []int{2}, []int{0}, xi, []int{2}, []int{0}, gc.DotGeneralConfig{})
	})
	try("bcast", func(f gc.Function, x, xi gc.Value) (any, error) {
		return f.BroadcastInDim(x, shapes.MakeDynamic(dtypes.Float32, []int{2, shapes.DynamicDim, 4, 6}, []string{"", "b", "", ""}), []int{1, 2, 3})
	})
	try("topk", func(f gc.Function, x, xi gc.Value) (any, error) {
		a, _, err := f.FusedTopK(x, 2, gc.FusedTopKConfig{Axis: 0})
		return a, err
	})
	try("bitcast", func(f gc.Function, x, xi gc.Value) (any, error) { return f.Bitcast(x, dtypes.Int32) })
	try("convert", func(f gc.Function, x, xi gc.Value) (any, error) { return f.ConvertDType(x, dtypes.Int64) })
	try("where", func(f gc.Function, x, xi gc.Value) (any, error) {
		c, _ := f.GreaterThan(x, x)
		return f.Where(c, x, x)
	})
	try("batchnorm", func(f gc.Function, x, xi gc.Value) (any, error) {
		s, _ := f.Constant([]float32{1, 1, 1, 1, 1, 1}, 6)
		return f.BatchNormForInference(x, s, s, s, s, 1e-3, 2)
	})
	try("bntrain", func(f gc.Function, x, xi gc.Value) (any, error) {
		s, _ := f.Constant([]float32{1, 1, 1, 1, 1, 1}, 6)
		a, _, _, err := f.BatchNormForTraining(x, s, s, 1e-3, 2)
		return a, err
	})
	try("reducewindow", func(f gc.Function, x, xi gc.Value) (any, error) {
		return f.ReduceWindow(x, gc.ReduceOpMax, []int{1, 2, 2}, []int{1, 1, 1}, nil, nil, nil)
	})
	try("iota", func(f gc.Function, x, xi gc.Value) (any, error) {
		return f.Iota(shapes.MakeDynamic(dtypes.Float32, []int{shapes.DynamicDim, 4}, []string{"b", ""}), 0)
	})
	try("bngrad", func(f gc.Function, x, xi gc.Value) (any, error) {
		s, _ := f.Constant([]float32{1, 1, 1, 1, 1, 1}, 6)
		a, _, _, err := f.BatchNormGradient(x, s, s, s, x, 1e-3, 2)
		return a, err
	})
	try("lnvjp", func(f gc.Function, x, xi gc.Value) (any, error) {
		s, _ := f.Constant([]float32{1, 1, 1, 1, 1, 1}, 6)
		a, _, _, err := f.FusedLayerNormVJP(x, x, []int{2}, 1e-3, s, s)
		return a, err
	})
	try("attn4", func(f gc.Function, x, xi gc.Value) (any, error) {
		q, _ := f.Parameter("q", shapes.MakeDynamic(dtypes.Float32, []int{shapes.DynamicDim, 2, 3, 4}, []string{"b", "", "", ""}), nil)
		a, _, err := f.FusedScaledDotProductAttention(q, q, q, gc.AttentionAxesLayout(0), &gc.ScaledDotProductAttentionConfig{Causal: true})
		return a, err
	})
	try("dense", func(f gc.Function, x, xi gc.Value) (any, error) {
		w, _ := f.Constant(make([]float32, 12), 6, 2)
		return f.FusedDense(x, w, nil, gc.DenseConfig{})
	})
	try("sort", func(f gc.Function, x, xi gc.Value) (any, error) {
		c, _ := f.Closure()
		a, _ := c.Parameter("a", shapes.Make(dtypes.Float32), nil)
		b2, _ := c.Parameter("b", shapes.Make(dtypes.Float32), nil)
		l, _ := c.LessThan(a, b2)
		_ = c.Return([]gc.Value{l}, nil)
		return f.Sort(c, 0, true, x)
	})
	try("dynslice", func(f gc.Function, x, xi gc.Value) (any, error) {
		z, _ := f.Constant([]int32{0})
		z, _ = f.Reshape(z)
		return f.DynamicSlice(x, []gc.Value{z, z, z}, []int{1, 2, 2})
	})
	try("rng", func(f gc.Function, x, xi gc.Value) (any, error) {
		st, _ := f.Constant([]uint64{1, 2, 3}, 3)
		a, _, err := f.RNGBitGenerator(st, shapes.MakeDynamic(dtypes.Uint32, []int{shapes.DynamicDim, 4}, []string{"b", ""}), gc.RNGPhilox)
		return a, err
	})
}
