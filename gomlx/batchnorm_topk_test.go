package gomlx

import (
	"math"
	"math/rand/v2"
	"sort"
	"testing"

	gc "github.com/gomlx/compute"
	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/compute/shapes"
)

// TestBatchNorm checks the three batch normalizations over a feature axis
// between others (so that the statistics reduce axes on both sides)
// against the formulas computed on the host in float64.
func TestBatchNorm(t *testing.T) {
	b := newTestBackend(t)
	const d0, nf, d2 = 3, 4, 5
	const eps = 1e-3
	r := rand.New(rand.NewPCG(1, 2))
	vec := func(n int, lo float64) []float32 {
		v := make([]float32, n)
		for i := range v {
			v[i] = float32(lo + r.Float64())
		}
		return v
	}
	x, dy := vec(d0*nf*d2, -0.5), vec(d0*nf*d2, -0.5)
	scale, offset, mean, variance := vec(nf, 0.5), vec(nf, -0.5), vec(nf, -0.5), vec(nf, 0.1)
	at := func(i, c, k int) int { return (i*nf+c)*d2 + k }
	xs, vs := shapes.Make(dtypes.Float32, d0, nf, d2), shapes.Make(dtypes.Float32, nf)
	near := func(what string, got []float32, want []float64) {
		t.Helper()
		for i := range want {
			if math.Abs(float64(got[i])-want[i]) > 1e-4*(1+math.Abs(want[i])) {
				t.Fatalf("%s[%d] = %v, want %v", what, i, got[i], want[i])
			}
		}
	}

	// Inference.
	got := runN(t, b, []shapes.Shape{xs, vs, vs, vs, vs}, []any{x, scale, offset, mean, variance},
		func(f gc.Function, ps []gc.Value) (gc.Value, error) {
			return f.BatchNormForInference(ps[0], ps[1], ps[2], ps[3], ps[4], eps, 1)
		})
	want := make([]float64, len(x))
	for i := range d0 {
		for c := range nf {
			for k := range d2 {
				p := at(i, c, k)
				want[p] = (float64(x[p])-float64(mean[c]))/math.Sqrt(float64(variance[c])+eps)*float64(scale[c]) + float64(offset[c])
			}
		}
	}
	near("inference", got, want)

	// The batch's statistics, and the gradients at them.
	n := float64(d0 * d2)
	bm, bv := make([]float64, nf), make([]float64, nf)
	for c := range nf {
		for i := range d0 {
			for k := range d2 {
				bm[c] += float64(x[at(i, c, k)]) / n
			}
		}
		for i := range d0 {
			for k := range d2 {
				d := float64(x[at(i, c, k)]) - bm[c]
				bv[c] += d * d / n
			}
		}
	}
	for out := range 3 {
		got := runN(t, b, []shapes.Shape{xs, vs, vs}, []any{x, scale, offset},
			func(f gc.Function, ps []gc.Value) (gc.Value, error) {
				outs := make([]gc.Value, 3)
				var err error
				outs[0], outs[1], outs[2], err = f.BatchNormForTraining(ps[0], ps[1], ps[2], eps, -2)
				return outs[out], err
			})
		switch out {
		case 0:
			for i := range d0 {
				for c := range nf {
					for k := range d2 {
						p := at(i, c, k)
						want[p] = (float64(x[p])-bm[c])/math.Sqrt(bv[c]+eps)*float64(scale[c]) + float64(offset[c])
					}
				}
			}
			near("training output", got, want)
		case 1:
			near("training mean", got, bm)
		case 2:
			near("training variance", got, bv)
		}
	}
	bmf, bvf := make([]float32, nf), make([]float32, nf)
	for c := range nf {
		bmf[c], bvf[c] = float32(bm[c]), float32(bv[c])
	}
	gOffset, gScale := make([]float64, nf), make([]float64, nf)
	xhat := func(p, c int) float64 { return (float64(x[p]) - bm[c]) / math.Sqrt(bv[c]+eps) }
	for c := range nf {
		for i := range d0 {
			for k := range d2 {
				p := at(i, c, k)
				gOffset[c] += float64(dy[p])
				gScale[c] += float64(dy[p]) * xhat(p, c)
			}
		}
	}
	for i := range d0 {
		for c := range nf {
			for k := range d2 {
				p := at(i, c, k)
				want[p] = float64(scale[c]) / math.Sqrt(bv[c]+eps) * (float64(dy[p]) - gOffset[c]/n - xhat(p, c)*gScale[c]/n)
			}
		}
	}
	for out, w := range [][]float64{want, gScale, gOffset} {
		got := runN(t, b, []shapes.Shape{xs, vs, vs, vs, xs}, []any{x, scale, bmf, bvf, dy},
			func(f gc.Function, ps []gc.Value) (gc.Value, error) {
				outs := make([]gc.Value, 3)
				var err error
				outs[0], outs[1], outs[2], err = f.BatchNormGradient(ps[0], ps[1], ps[2], ps[3], ps[4], eps, 1)
				return outs[out], err
			})
		near([]string{"gradOperand", "gradScale", "gradOffset"}[out], got, w)
	}
}

// TestFusedTopK checks the values and indices of the k largest and
// smallest along a middle axis, with ties and a NaN, against a stable sort
// on the host.
func TestFusedTopK(t *testing.T) {
	b := newTestBackend(t)
	const d0, l, d2, k = 3, 9, 2, 4
	r := rand.New(rand.NewPCG(3, 4))
	x := make([]float32, d0*l*d2)
	for i := range x {
		x[i] = float32(r.IntN(5))
	}
	x[5] = float32(math.NaN())
	s := shapes.Make(dtypes.Float32, d0, l, d2)
	for _, smallest := range []bool{false, true} {
		for out := range 2 {
			got := runN(t, b, []shapes.Shape{s}, []any{x}, func(f gc.Function, ps []gc.Value) (gc.Value, error) {
				v, i, err := f.FusedTopK(ps[0], k, gc.FusedTopKConfig{Axis: 1, Smallest: smallest})
				if err != nil || out == 0 {
					return v, err
				}
				return f.ConvertDType(i, dtypes.Float32)
			})
			for o := range d0 {
				for in := range d2 {
					idx := make([]int, l)
					for c := range idx {
						idx[c] = c
					}
					val := func(c int) float32 { return x[(o*l+c)*d2+in] }
					above := func(a, b float32) bool { // a NaN above every number
						if smallest {
							return a < b || (b != b && a == a)
						}
						return a > b || (a != a && b == b)
					}
					sort.SliceStable(idx, func(i, j int) bool { return above(val(idx[i]), val(idx[j])) })
					for j := range k {
						g := got[(o*k+j)*d2+in]
						want := float32(idx[j])
						if out == 0 {
							want = val(idx[j])
						}
						if g != want && !(g != g && want != want) {
							t.Fatalf("smallest=%v output %d at [%d, %d, %d] = %v, want %v", smallest, out, o, j, in, g, want)
						}
					}
				}
			}
		}
	}
}

// TestAtan2 checks Atan2, broadcasting its second operand, against Go's
// math.Atan2 in every quadrant.
func TestAtan2(t *testing.T) {
	b := newTestBackend(t)
	y := []float32{1, -1, 1, -1, 0, 0}
	x := []float32{2, -3}
	got := runN(t, b, []shapes.Shape{shapes.Make(dtypes.Float32, 3, 2), shapes.Make(dtypes.Float32, 1, 2)}, []any{y, x},
		func(f gc.Function, ps []gc.Value) (gc.Value, error) { return f.Atan2(ps[0], ps[1]) })
	for i, g := range got {
		want := math.Atan2(float64(y[i]), float64(x[i%2]))
		if math.Abs(float64(g)-want) > 1e-6 {
			t.Errorf("Atan2(%v, %v) = %v, want %v", y[i], x[i%2], g, want)
		}
	}
}
