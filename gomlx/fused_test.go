package gomlx

import (
	"math"
	"math/rand/v2"
	"testing"

	gc "github.com/gomlx/compute"
	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/compute/shapes"
)

// runN builds outs = build(f, params) for parameters of shapes ss, runs it
// on data and returns the first output's flat float32 data.
func runN(t *testing.T, b *Backend, ss []shapes.Shape, data []any, build func(f gc.Function, ps []gc.Value) (gc.Value, error)) []float32 {
	t.Helper()
	bl := b.Builder("n")
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
	bufs := make([]gc.Buffer, len(ss))
	for i, s := range ss {
		if bufs[i], err = b.BufferFromFlatData(0, data[i], s); err != nil {
			t.Fatal(err)
		}
	}
	outs, err := ex.Execute(bufs, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, buf := range bufs {
		_ = buf.Finalize()
	}
	ys := ex.Outputs()[0]
	got := make([]float32, ys.Size())
	if err := outs[0].ToFlatData(got); err != nil {
		t.Fatal(err)
	}
	_ = outs[0].Finalize()
	return got
}

func randF32(r *rand.Rand, n int) []float32 {
	v := make([]float32, n)
	for i := range v {
		v[i] = r.Float32()*2 - 1
	}
	return v
}

// TestAttentionGQA checks FusedScaledDotProductAttention in the BSHD
// layout with grouped query heads, a causal mask, a boolean mask, a bias
// and sequence lengths against a direct computation.
func TestAttentionGQA(t *testing.T) {
	b := newTestBackend(t)
	const B, S, KV, H, HKV, D = 2, 3, 5, 4, 2, 3
	r := rand.New(rand.NewPCG(1, 2))
	q, k, v := randF32(r, B*S*H*D), randF32(r, B*KV*HKV*D), randF32(r, B*KV*HKV*D)
	mask := make([]bool, S*KV)
	for i := range mask {
		mask[i] = i%4 != 1
	}
	bias := randF32(r, B*S*KV) // [B, S, 1, KV]
	qlen, kvlen := []int32{3, 2}, []int32{5, 4}
	ss := []shapes.Shape{shapes.Make(dtypes.Float32, B, S, H, D), shapes.Make(dtypes.Float32, B, KV, HKV, D),
		shapes.Make(dtypes.Float32, B, KV, HKV, D), shapes.Make(dtypes.Bool, S, KV), shapes.Make(dtypes.Float32, B, S, 1, KV),
		shapes.Make(dtypes.Int32, B), shapes.Make(dtypes.Int32, B)}
	got := runN(t, b, ss, []any{q, k, v, mask, bias, qlen, kvlen}, func(f gc.Function, ps []gc.Value) (gc.Value, error) {
		o, _, err := f.FusedScaledDotProductAttention(ps[0], ps[1], ps[2], gc.AttentionAxesLayoutBSHD,
			&gc.ScaledDotProductAttentionConfig{Causal: true, Mask: ps[3], Bias: ps[4], QuerySeqLen: ps[5], KeyValueSeqLen: ps[6]})
		return o, err
	})
	scale := 1 / math.Sqrt(D)
	for bi := range B {
		for s := range S {
			for h := range H {
				hk := h / (H / HKV)
				w := make([]float64, KV)
				on := make([]bool, KV)
				m := math.Inf(-1)
				for j := range KV {
					on[j] = j <= s && j < int(kvlen[bi]) && s < int(qlen[bi]) && mask[s*KV+j]
					var dot float64
					for d := range D {
						dot += float64(q[((bi*S+s)*H+h)*D+d]) * float64(k[((bi*KV+j)*HKV+hk)*D+d])
					}
					w[j] = dot*scale + float64(bias[(bi*S+s)*KV+j])
					if on[j] {
						m = max(m, w[j])
					}
				}
				var sum float64
				for j := range KV {
					if on[j] {
						w[j] = math.Exp(w[j] - m)
						sum += w[j]
					} else {
						w[j] = 0
					}
				}
				for d := range D {
					var want float64
					for j := range KV {
						if sum > 0 {
							want += w[j] / sum * float64(v[((bi*KV+j)*HKV+hk)*D+d])
						}
					}
					g := got[((bi*S+s)*H+h)*D+d]
					if math.Abs(float64(g)-want) > 1e-5 {
						t.Errorf("out[%d,%d,%d,%d] = %v, want %v", bi, s, h, d, g, want)
					}
				}
			}
		}
	}
}

// TestRowKernels checks FusedSoftmax along a middle axis of rows longer
// than a work-group, and FusedLayerNorm over two axes with gamma and beta.
func TestRowKernels(t *testing.T) {
	b := newTestBackend(t)
	const A, L, C = 2, 300, 3
	r := rand.New(rand.NewPCG(3, 4))
	x := randF32(r, A*L*C)
	s := shapes.Make(dtypes.Float32, A, L, C)
	got := runN(t, b, []shapes.Shape{s}, []any{x}, func(f gc.Function, ps []gc.Value) (gc.Value, error) {
		return f.FusedSoftmax(ps[0], 1)
	})
	for a := range A {
		for c := range C {
			var sum float64
			for l := range L {
				sum += math.Exp(float64(x[(a*L+l)*C+c]))
			}
			for l := range L {
				i := (a*L+l)*C + c
				if want := math.Exp(float64(x[i])) / sum; math.Abs(float64(got[i])-want) > 1e-6 {
					t.Fatalf("softmax[%d,%d,%d] = %v, want %v", a, l, c, got[i], want)
				}
			}
		}
	}
	gamma, beta := randF32(r, L*C), randF32(r, L*C)
	got = runN(t, b, []shapes.Shape{s, shapes.Make(dtypes.Float32, L, C), shapes.Make(dtypes.Float32, L, C)}, []any{x, gamma, beta},
		func(f gc.Function, ps []gc.Value) (gc.Value, error) {
			return f.FusedLayerNorm(ps[0], []int{1, 2}, 1e-3, ps[1], ps[2])
		})
	for a := range A {
		row := x[a*L*C : (a+1)*L*C]
		var mean, v float64
		for _, e := range row {
			mean += float64(e)
		}
		mean /= L * C
		for _, e := range row {
			v += (float64(e) - mean) * (float64(e) - mean)
		}
		inv := 1 / math.Sqrt(v/(L*C)+1e-3)
		for k, e := range row {
			want := (float64(e)-mean)*inv*float64(gamma[k]) + float64(beta[k])
			if g := got[a*L*C+k]; math.Abs(float64(g)-want) > 1e-4 {
				t.Fatalf("layernorm[%d, %d] = %v, want %v", a, k, g, want)
			}
		}
	}
}

// TestErf64 checks Erf of float64 against Go's math.Erf, across its
// approximation's ranges, infinities and NaN.
func TestErf64(t *testing.T) {
	b := newTestBackend(t)
	if !b.fp64 {
		t.Skip("no double precision")
	}
	xs := []float64{0, 1e-300, -1e-10, 0.3, -0.84, 0.85, 1.1, -1.249, 1.26, 2, -2.8, 2.9, 4.5, -5.99, 6, 30,
		math.Inf(1), math.Inf(-1), math.NaN()}
	s := shapes.Make(dtypes.Float64, len(xs))
	got := run1[float64](t, b, s, xs, func(f gc.Function, x gc.Value) (gc.Value, error) { return f.Erf(x) })
	for i, x := range xs {
		want := math.Erf(x)
		if math.IsNaN(want) != math.IsNaN(got[i]) || (!math.IsNaN(want) && math.Abs(got[i]-want) > 1e-15*max(1, math.Abs(want))) {
			t.Errorf("Erf(%v) = %v, want %v", x, got[i], want)
		}
	}
	xs = xs[:16]
	s = shapes.Make(dtypes.Float64, len(xs))
	got = run1[float64](t, b, s, xs, func(f gc.Function, x gc.Value) (gc.Value, error) {
		return f.FusedActivation(x, gc.ActivationConfig{Type: gc.ActivationGelu})
	})
	for i, x := range xs {
		if want := x * 0.5 * (1 + math.Erf(x/math.Sqrt2)); math.Abs(got[i]-want) > 1e-14*max(1, math.Abs(want)) {
			t.Errorf("Gelu(%v) = %v, want %v", x, got[i], want)
		}
	}
}
