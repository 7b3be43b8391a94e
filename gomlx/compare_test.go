package gomlx

import (
	"math"
	"math/rand/v2"
	"reflect"
	"testing"

	gc "github.com/gomlx/compute"
	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/compute/gobackend"
	"github.com/gomlx/compute/shapes"
)

// execOn builds build's graph on backend b for parameters of shapes ss,
// runs it on data and returns its first output's flat data.
func execOn(t *testing.T, b gc.Backend, ss []shapes.Shape, data []any, build func(f gc.Function, ps []gc.Value) (gc.Value, error)) any {
	t.Helper()
	bl := b.Builder("cmp")
	f := bl.Main()
	ps := make([]gc.Value, len(ss))
	for i, s := range ss {
		p, err := f.Parameter("p", s, nil)
		if err != nil {
			t.Fatal(err)
		}
		ps[i] = p
	}
	y, err := build(f, ps)
	if err != nil {
		t.Fatalf("%s: %v", b.Name(), err)
	}
	if err := f.Return([]gc.Value{y}, nil); err != nil {
		t.Fatal(err)
	}
	ex, err := bl.Compile()
	if err != nil {
		t.Fatal(err)
	}
	defer ex.Finalize()
	bufs := make([]gc.Buffer, len(ss))
	for i, s := range ss {
		if bufs[i], err = b.BufferFromFlatData(0, data[i], s); err != nil {
			t.Fatal(err)
		}
	}
	outs, err := ex.Execute(bufs, nil, 0)
	if err != nil {
		t.Fatalf("%s: %v", b.Name(), err)
	}
	for _, buf := range bufs {
		_ = buf.Finalize()
	}
	ys := ex.Outputs()[0]
	got := reflect.MakeSlice(reflect.SliceOf(ys.DType.GoType()), ys.Size(), ys.Size()).Interface()
	if err := outs[0].ToFlatData(got); err != nil {
		t.Fatal(err)
	}
	_ = outs[0].Finalize()
	return got
}

// compareWithGo runs build on the gour backend and on GoMLX's Go backend
// with the same inputs and compares the outputs within tol (relative to
// max(1, |want|)).
func compareWithGo(t *testing.T, b *Backend, ss []shapes.Shape, data []any, tol float64, build func(f gc.Function, ps []gc.Value) (gc.Value, error)) {
	t.Helper()
	ref := gobackend.GetBackend()
	want := reflect.ValueOf(execOn(t, ref, ss, data, build))
	got := reflect.ValueOf(execOn(t, b, ss, data, build))
	if want.Len() != got.Len() {
		t.Fatalf("got %d elements, want %d", got.Len(), want.Len())
	}
	bad := 0
	for i := range want.Len() {
		w, g := toF64(want.Index(i)), toF64(got.Index(i))
		if math.IsNaN(w) && math.IsNaN(g) {
			continue
		}
		if math.Abs(w-g) > tol*max(1, math.Abs(w)) {
			if bad++; bad <= 5 {
				t.Errorf("element %d: got %v, want %v", i, g, w)
			}
		}
	}
	if bad > 5 {
		t.Errorf("... %d elements differ", bad)
	}
}

func toF64(v reflect.Value) float64 {
	switch v.Kind() {
	case reflect.Float32, reflect.Float64:
		return v.Float()
	case reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return float64(v.Int())
	case reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return float64(v.Uint())
	case reflect.Bool:
		if v.Bool() {
			return 1
		}
		return 0
	}
	return math.NaN()
}

// TestCompareWithGo checks operations the conformance suite covers
// thinly against GoMLX's Go backend: scatters with windows and batch
// axes, windows in 2-D with padding, convolutions with groups, attention
// with every option, layer norms and dense layers of several axes, every
// activation's VJP.
func TestCompareWithGo(t *testing.T) {
	b := newTestBackend(t)
	r := rand.New(rand.NewPCG(5, 6))
	f32 := func(d ...int) shapes.Shape { return shapes.Make(dtypes.Float32, d...) }
	rnd := func(s shapes.Shape) []float32 { return randF32(r, s.Size()) }

	t.Run("Scatter", func(t *testing.T) {
		// operand [5, 4, 3], indices [2, 3, 2] (vector on axis 2) into
		// axes (0, 2), updates [2, 3, 4] windows along operand axis 1.
		op, ix, up := f32(5, 4, 3), shapes.Make(dtypes.Int32, 2, 3, 2), f32(2, 3, 4)
		idx := []int32{0, 0, 4, 2, 0, 0, 1, 1, 2, 2, 4, 2}
		for _, which := range []string{"sum", "max", "min"} {
			t.Run(which, func(t *testing.T) {
				compareWithGo(t, b, []shapes.Shape{op, ix, up}, []any{rnd(op), idx, rnd(up)}, 1e-5, func(f gc.Function, ps []gc.Value) (gc.Value, error) {
					sc := f.ScatterSum
					switch which {
					case "max":
						sc = f.ScatterMax
					case "min":
						sc = f.ScatterMin
					}
					return sc(ps[0], ps[1], ps[2], 2, []int{2}, []int{0, 2}, []int{0, 2}, false, false)
				})
			})
		}
	})
	t.Run("ReduceWindow", func(t *testing.T) {
		x := f32(2, 7, 6)
		for _, op := range []gc.ReduceOpType{gc.ReduceOpSum, gc.ReduceOpMax, gc.ReduceOpMin, gc.ReduceOpProduct} {
			compareWithGo(t, b, []shapes.Shape{x}, []any{rnd(x)}, 1e-5, func(f gc.Function, ps []gc.Value) (gc.Value, error) {
				return f.ReduceWindow(ps[0], op, []int{1, 3, 2}, []int{1, 2, 1}, []int{1, 1, 2}, []int{1, 2, 1},
					[][2]int{{0, 0}, {1, 2}, {1, 0}})
			})
		}
	})
	t.Run("SelectAndScatter", func(t *testing.T) {
		x, src := f32(2, 7, 6), f32(2, 4, 3)
		compareWithGo(t, b, []shapes.Shape{x, src}, []any{rnd(x), rnd(src)}, 1e-5, func(f gc.Function, ps []gc.Value) (gc.Value, error) {
			return f.SelectAndScatterMax(ps[0], ps[1], []int{1, 3, 2}, []int{1, 2, 2}, [][2]int{{0, 0}, {1, 1}, {0, 0}})
		})
	})
	t.Run("ConvGeneral", func(t *testing.T) {
		in, ker := f32(2, 7, 6, 4), f32(3, 2, 2, 6) // NHWC, HWIO with 2 channel groups
		axes := gc.ConvolveAxesConfig{InputBatch: 0, InputChannels: 3, InputSpatial: []int{1, 2},
			KernelInputChannels: 2, KernelOutputChannels: 3, KernelSpatial: []int{0, 1},
			OutputBatch: 0, OutputChannels: 3, OutputSpatial: []int{1, 2}}
		compareWithGo(t, b, []shapes.Shape{in, ker}, []any{rnd(in), rnd(ker)}, 1e-5, func(f gc.Function, ps []gc.Value) (gc.Value, error) {
			return f.ConvGeneral(ps[0], ps[1], axes, []int{2, 1}, [][2]int{{1, 1}, {0, 1}}, []int{1, 2}, []int{2, 1}, 2, 1)
		})
	})
	t.Run("Attention", func(t *testing.T) {
		q, kv := f32(2, 3, 4, 8), f32(2, 5, 2, 8)
		bias := f32(2, 3, 1, 5)
		mask := shapes.Make(dtypes.Bool, 3, 5)
		mdata := []bool{true, false, true, true, true, true, true, false, true, true, false, true, true, true, true}
		for _, layout := range []gc.AttentionAxesLayout{gc.AttentionAxesLayoutBSHD, gc.AttentionAxesLayoutBHSD} {
			qs, kvs, bs := q, kv, bias
			if layout == gc.AttentionAxesLayoutBHSD {
				qs, kvs, bs = f32(2, 4, 3, 8), f32(2, 2, 5, 8), f32(2, 1, 3, 5)
			}
			compareWithGo(t, b, []shapes.Shape{qs, kvs, kvs, mask, bs}, []any{rnd(qs), rnd(kvs), rnd(kvs), mdata, rnd(bs)}, 1e-5,
				func(f gc.Function, ps []gc.Value) (gc.Value, error) {
					o, _, err := f.FusedScaledDotProductAttention(ps[0], ps[1], ps[2], layout,
						&gc.ScaledDotProductAttentionConfig{Causal: true, Mask: ps[3], Bias: ps[4]})
					return o, err
				})
		}
	})
	t.Run("LayerNormDense", func(t *testing.T) {
		x, g := f32(2, 3, 5), f32(3, 5)
		compareWithGo(t, b, []shapes.Shape{x, g, g}, []any{rnd(x), rnd(g), rnd(g)}, 1e-5, func(f gc.Function, ps []gc.Value) (gc.Value, error) {
			return f.FusedLayerNorm(ps[0], []int{1, 2}, 1e-5, ps[1], ps[2])
		})
		w, bias := f32(4, 2, 5), f32(4, 2)
		compareWithGo(t, b, []shapes.Shape{x, w, bias}, []any{rnd(x), rnd(w), rnd(bias)}, 1e-5, func(f gc.Function, ps []gc.Value) (gc.Value, error) {
			return f.FusedDense(ps[0], ps[1], ps[2], gc.DenseConfig{Activation: gc.ActivationConfig{Type: gc.ActivationGelu},
				WeightLayout: gc.DenseLayoutOutputsInput})
		})
	})
	t.Run("LayerNormVJP", func(t *testing.T) {
		x, g := f32(3, 4, 5), f32(4)
		data := []any{rnd(x), rnd(x), rnd(g), rnd(g)}
		for out := range 3 {
			compareWithGo(t, b, []shapes.Shape{x, x, g, g}, data, 1e-4, func(f gc.Function, ps []gc.Value) (gc.Value, error) {
				dx, dg, db, err := f.FusedLayerNormVJP(ps[0], ps[1], []int{1}, 1e-5, ps[2], ps[3])
				return []gc.Value{dx, dg, db}[out], err
			})
		}
	})
	t.Run("QuantizedDense", func(t *testing.T) {
		x, w, sc := f32(3, 8), shapes.Make(dtypes.Int8, 4, 8), f32(2, 8) // OutputsInput [N, K], blocks of 2 along N
		ws := make([]int8, w.Size())
		for i := range ws {
			ws[i] = int8(r.IntN(256) - 128)
		}
		zp := shapes.Make(dtypes.Int8, 2, 8)
		zs := make([]int8, zp.Size())
		for i := range zs {
			zs[i] = int8(r.IntN(16) - 8)
		}
		for _, scheme := range []gc.QuantizationScheme{gc.QuantLinear, gc.QuantNF4} {
			compareWithGo(t, b, []shapes.Shape{x, w, sc, zp}, []any{rnd(x), ws, rnd(sc), zs}, 1e-4, func(f gc.Function, ps []gc.Value) (gc.Value, error) {
				q := &gc.Quantization{Scheme: scheme, Scale: ps[2], BlockAxis: 0, BlockSize: 2}
				if scheme == gc.QuantLinear {
					q.ZeroPoint = ps[3]
				}
				return f.FusedQuantizedDense(ps[0], ps[1], nil, gc.FusedQuantizedDenseConfig{WeightQuantization: q,
					WeightLayout: gc.DenseLayoutOutputsInput, Activation: gc.ActivationConfig{Type: gc.ActivationSilu}})
			})
		}
	})
	t.Run("Sort", func(t *testing.T) {
		k, v := f32(5, 3), shapes.Make(dtypes.Int64, 5, 3)
		ks, vs := make([]float32, k.Size()), make([]int64, v.Size())
		for i := range ks {
			ks[i] = float32(r.IntN(3)) // ties, to check stability
			vs[i] = int64(i)
		}
		for out := range 2 {
			compareWithGo(t, b, []shapes.Shape{k, v}, []any{ks, vs}, 0, func(f gc.Function, ps []gc.Value) (gc.Value, error) {
				outs, err := sortByKey(f, ps[0], ps[1])
				if err != nil {
					return nil, err
				}
				return outs[out], nil
			})
		}
	})
	t.Run("IntDot", func(t *testing.T) {
		x, y := shapes.Make(dtypes.Int32, 2, 3, 4), shapes.Make(dtypes.Int32, 2, 4, 5)
		xs, ys := make([]int32, x.Size()), make([]int32, y.Size())
		for i := range xs {
			xs[i] = r.Int32N(200) - 100
		}
		for i := range ys {
			ys[i] = r.Int32N(200) - 100
		}
		compareWithGo(t, b, []shapes.Shape{x, y}, []any{xs, ys}, 0, func(f gc.Function, ps []gc.Value) (gc.Value, error) {
			return f.DotGeneral(ps[0], []int{2}, []int{0}, ps[1], []int{1}, []int{0}, gc.DotGeneralConfig{})
		})
	})
	t.Run("Bitcast", func(t *testing.T) {
		x := f32(3, 2)
		xs := rnd(x)
		for _, c := range []struct {
			from, to dtypes.DType
		}{{dtypes.Float32, dtypes.Int16}, {dtypes.Float32, dtypes.Uint8}, {dtypes.Float32, dtypes.Int64}} {
			compareWithGo(t, b, []shapes.Shape{x}, []any{xs}, 0, func(f gc.Function, ps []gc.Value) (gc.Value, error) {
				v, err := f.Bitcast(ps[0], c.to)
				if err != nil || c.to != dtypes.Int64 {
					return v, err
				}
				return f.Bitcast(v, dtypes.Int8) // int64 back down to bytes
			})
		}
	})
	t.Run("ActivationVJP", func(t *testing.T) {
		x := f32(16)
		xs := rnd(x)
		for i := range xs {
			xs[i] *= 5
		}
		for _, a := range gc.ActivationTypeValues() {
			if a == gc.ActivationSwiGLU {
				continue
			}
			compareWithGo(t, b, []shapes.Shape{x, x}, []any{xs, rnd(x)}, 1e-4, func(f gc.Function, ps []gc.Value) (gc.Value, error) {
				y, err := f.FusedActivation(ps[0], gc.ActivationConfig{Type: a})
				if err != nil {
					return nil, err
				}
				return f.FusedActivationVJP(y, ps[0], ps[1], gc.ActivationConfig{Type: a})
			})
		}
	})
}

// sortByKey sorts keys and values along axis 0, descending by key, with a
// comparator of both parameters' pairs (the keys' compared, the values'
// unused but declared).
func sortByKey(f gc.Function, keys, values gc.Value) ([]gc.Value, error) {
	comp, err := f.Closure()
	if err != nil {
		return nil, err
	}
	ks, err := f.Shape(keys)
	if err != nil {
		return nil, err
	}
	vs, err := f.Shape(values)
	if err != nil {
		return nil, err
	}
	kl, _ := comp.Parameter("kl", shapes.Make(ks.DType), nil)
	kr, _ := comp.Parameter("kr", shapes.Make(ks.DType), nil)
	_, _ = comp.Parameter("vl", shapes.Make(vs.DType), nil)
	_, _ = comp.Parameter("vr", shapes.Make(vs.DType), nil)
	gt, err := comp.GreaterThan(kl, kr)
	if err != nil {
		return nil, err
	}
	if err := comp.Return([]gc.Value{gt}, nil); err != nil {
		return nil, err
	}
	return f.Sort(comp, 0, true, keys, values)
}
