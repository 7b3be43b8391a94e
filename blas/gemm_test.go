package blas_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/gour-dev/gour/blas"
)

// refGemm is C = alpha*op(A)*op(B) + beta*C in float64 on the host,
// row-major, and the scale of each element's terms for the tolerance.
func refGemm(a blas.GemmArgs, A, B, C []float64) (out, scale []float64) {
	out = append([]float64(nil), C...)
	scale = make([]float64, len(C))
	at := func(m []float64, tr blas.Transpose, ld, i, j int) float64 {
		if tr == blas.Trans {
			return m[j*ld+i]
		}
		return m[i*ld+j]
	}
	for i := range a.M {
		for j := range a.N {
			var s, abs float64
			for k := range a.K {
				p := at(A, a.TransA, a.LDA, i, k) * at(B, a.TransB, a.LDB, k, j)
				s += p
				abs += math.Abs(p)
			}
			c := 0.0
			if a.Beta != 0 {
				c = a.Beta * C[i*a.LDC+j]
			}
			out[i*a.LDC+j] = a.Alpha*s + c
			scale[i*a.LDC+j] = math.Abs(a.Alpha)*abs + math.Abs(c) + 1
		}
	}
	return out, scale
}

type gemmShape struct{ m, n, k, pad int }

// gemmShapes cover one element, edges of every tiling (not multiples of
// 4, 32, 64 or 128), K of 0, and leading dimensions above the columns.
var gemmShapes = []gemmShape{
	{1, 1, 1, 0}, {7, 5, 3, 2}, {33, 17, 70, 0}, {64, 64, 64, 0}, {130, 67, 9, 3}, {8, 12, 0, 1}, {132, 136, 20, 4},
}

// TestGemm compares every transpose combination, a few alpha and beta
// pairs and shapes, on USM and buffers, with the host's product.
func TestGemm(t *testing.T) {
	for _, e := range envs(t) {
		for _, ty := range types {
			t.Run(e.name+"/"+ty.String(), func(t *testing.T) {
				e.skipType(t, ty)
				i, before := 0, e.h.Fallbacks()
				for _, sh := range gemmShapes {
					for _, ta := range []blas.Transpose{blas.NoTrans, blas.Trans} {
						for _, tb := range []blas.Transpose{blas.NoTrans, blas.Trans} {
							ab := [][2]float64{{1, 0}, {1.5, -0.5}, {-2, 1}, {0, 0.25}}[i%4]
							a := blas.GemmArgs{Type: ty, TransA: ta, TransB: tb, M: sh.m, N: sh.n, K: sh.k, Alpha: ab[0], Beta: ab[1]}
							checkGemm(t, e, a, sh.pad, kinds[i%len(kinds)], uint64(i))
							i++
						}
					}
				}
				e.checkServed(t, ty, i, before)
			})
		}
	}
}

// checkGemm runs one GEMM with leading dimensions pad above the stored
// columns, its operands of the kinds in k, and compares it with refGemm.
func checkGemm(t *testing.T, e *env, a blas.GemmArgs, pad int, k operandKinds, seed uint64) {
	t.Helper()
	ra, ca := a.M, a.K
	if a.TransA == blas.Trans {
		ra, ca = ca, ra
	}
	rb, cb := a.K, a.N
	if a.TransB == blas.Trans {
		rb, cb = cb, rb
	}
	a.LDA, a.LDB, a.LDC = max(1, ca+pad), max(1, cb+pad), a.N+pad
	A, B, C := values(ra*a.LDA, seed), values(rb*a.LDB, seed+1), values(a.M*a.LDC, seed+2)
	if a.Beta == 0 {
		for i := range C {
			C[i] = math.NaN() // not read with beta 0
		}
	}
	// Operands at odd offsets, and every third call at 16-byte aligned
	// ones (the float32 kernels' four-at-a-time path).
	offA, offC := 1, 3
	if seed%3 == 0 {
		offA, offC = 4, 8
	}
	da, db, dc := e.upload(t, a.Type, A, offA, 0, k[0]), e.upload(t, a.Type, B, 0, 0, k[1]), e.upload(t, a.Type, C, offC, 0, k[2])
	a.A, a.B, a.C = da.operand(), db.operand(), dc.operand()
	if err := e.h.Gemm(a); err != nil {
		t.Fatalf("%+v: %v", a, err)
	}
	got := dc.read(t)
	want, scale := refGemm(a, A, B, C)
	for i := range a.M {
		for j := range a.N {
			x := i*a.LDC + j
			if w := round(a.Type, want[x]); !near(a.Type, got[x], w, scale[x]) {
				t.Fatalf("%s %v%v M=%d N=%d K=%d lda=%d ldb=%d ldc=%d alpha=%v beta=%v on USM %v: C[%d,%d] = %v, want %v",
					a.Type, a.TransA, a.TransB, a.M, a.N, a.K, a.LDA, a.LDB, a.LDC, a.Alpha, a.Beta, k, i, j, got[x], w)
			}
		}
		for j := a.N; j < a.LDC; j++ { // the padding between rows is untouched
			if x := i*a.LDC + j; got[x] != round(a.Type, C[x]) && !math.IsNaN(C[x]) {
				t.Fatalf("padding C[%d,%d] = %v, was %v", i, j, got[x], C[x])
			}
		}
	}
}

// TestGemmStridedBatched runs batches of three with strides above the
// matrices' extents, and with one B for the whole batch (stride 0).
func TestGemmStridedBatched(t *testing.T) {
	for _, e := range envs(t) {
		for _, ty := range types {
			t.Run(e.name+"/"+ty.String(), func(t *testing.T) {
				e.skipType(t, ty)
				for i, strideB := range []int{0, -1} {
					const batch, m, n, k = 3, 19, 21, 13
					a := blas.GemmArgs{Type: ty, TransA: blas.NoTrans, TransB: blas.Trans, M: m, N: n, K: k, Alpha: 1.5, Beta: -1,
						LDA: k, LDB: k + 1, LDC: n, Batch: batch, StrideA: m*k + 5, StrideC: m*n + 2}
					a.StrideB = strideB
					if strideB < 0 {
						a.StrideB = n*a.LDB + 1
					}
					A := values(a.StrideA*batch, 1)
					B := values(max(1, a.StrideB*batch)+n*a.LDB, 2)
					C := values(a.StrideC*batch, 3)
					da, db, dc := e.upload(t, ty, A, 0, 0, i == 0), e.upload(t, ty, B, 0, 0, i == 0), e.upload(t, ty, C, 0, 0, i == 1)
					a.A, a.B, a.C = da.operand(), db.operand(), dc.operand()
					if err := e.h.Gemm(a); err != nil {
						t.Fatal(err)
					}
					got := dc.read(t)
					for b := range batch {
						one := a
						one.Batch = 1
						want, scale := refGemm(one, A[b*a.StrideA:], B[b*a.StrideB:], C[b*a.StrideC:b*a.StrideC+m*n])
						for x := range want {
							if w := round(ty, want[x]); !near(ty, got[b*a.StrideC+x], w, scale[x]) {
								t.Fatalf("strideB %d: matrix %d, C[%d] = %v, want %v", a.StrideB, b, x, got[b*a.StrideC+x], w)
							}
						}
						for x := b*a.StrideC + m*n; x < (b+1)*a.StrideC; x++ {
							if got[x] != round(ty, C[x]) {
								t.Fatalf("the gap after matrix %d was written: C[%d] = %v, was %v", b, x, got[x], C[x])
							}
						}
					}
				}
			})
		}
	}
}

// TestGemmSideBySideOutputs runs a strided batch whose outputs lie side
// by side in the rows of one matrix (StrideC N, LDC the batch's width),
// as attention's heads write one [token][head][dim] matrix.
func TestGemmSideBySideOutputs(t *testing.T) {
	for _, e := range envs(t) {
		for _, ty := range types {
			t.Run(e.name+"/"+ty.String(), func(t *testing.T) {
				e.skipType(t, ty)
				const batch, m, n, k = 3, 5, 4, 6
				a := blas.GemmArgs{Type: ty, M: m, N: n, K: k, Alpha: 1, Beta: 0.5,
					LDA: k, LDB: n, LDC: batch*n + 1, Batch: batch, StrideA: m * k, StrideB: k * n, StrideC: n}
				A, B := values(batch*m*k, 1), values(batch*k*n, 2)
				C := values(m*a.LDC, 3)
				da, db, dc := e.upload(t, ty, A, 0, 0, true), e.upload(t, ty, B, 0, 0, false), e.upload(t, ty, C, 0, 0, true)
				a.A, a.B, a.C = da.operand(), db.operand(), dc.operand()
				if err := e.h.Gemm(a); err != nil {
					t.Fatal(err)
				}
				got := dc.read(t)
				for b := range batch {
					one := a
					one.Batch = 1
					want, scale := refGemm(one, A[b*m*k:], B[b*k*n:], C[b*n:])
					for i := range m {
						for j := range n {
							x := i*a.LDC + j
							if w := round(ty, want[x]); !near(ty, got[b*n+x], w, scale[x]) {
								t.Fatalf("matrix %d: C[%d,%d] = %v, want %v", b, i, j, got[b*n+x], w)
							}
						}
					}
				}
				for i := range m { // the column after the batch is untouched
					if x := i*a.LDC + batch*n; got[x] != round(ty, C[x]) {
						t.Fatalf("C[%d,%d] = %v, was %v", i, batch*n, got[x], C[x])
					}
				}
			})
		}
	}
}

// TestGemmBatched runs a pointer-array batch whose matrices lie in
// allocations of their own (USM and buffers mixed), and one whose
// matrices lie at offsets in one buffer (what CLBlast's batched GEMM
// takes).
func TestGemmBatched(t *testing.T) {
	for _, e := range envs(t) {
		for _, ty := range types {
			t.Run(e.name+"/"+ty.String(), func(t *testing.T) {
				e.skipType(t, ty)
				const batch, m, n, k = 4, 9, 14, 11
				a := blas.GemmArgs{Type: ty, TransA: blas.Trans, TransB: blas.NoTrans, M: m, N: n, K: k, Alpha: -0.5, Beta: 2, LDA: m, LDB: n, LDC: n}
				var A, B, C [][]float64
				before := e.h.Fallbacks()
				for b := range batch {
					A, B, C = append(A, values(k*m, uint64(10*b))), append(B, values(k*n, uint64(10*b+1))), append(C, values(m*n, uint64(10*b+2)))
				}
				for _, layout := range []string{"separate", "one buffer"} {
					var as, bs, cs []blas.Operand
					var results func(b int) []float64 // matrix b's C, after the call
					if layout == "separate" {
						var dcs []*dmem
						for b := range batch {
							da, db, dc := e.upload(t, ty, A[b], 0, 0, b%2 == 0), e.upload(t, ty, B[b], 0, 0, b%2 == 1), e.upload(t, ty, C[b], 0, 0, b%2 == 0)
							as, bs, cs, dcs = append(as, da.operand()), append(bs, db.operand()), append(cs, dc.operand()), append(dcs, dc)
						}
						results = func(b int) []float64 { return dcs[b].read(t) }
					} else {
						// Matrix b's A, B and C one after the other, from
						// element b*per of the buffer.
						const per = k*m + k*n + m*n
						var all []float64
						for b := range batch {
							all = append(append(append(all, A[b]...), B[b]...), C[b]...)
						}
						d := e.upload(t, ty, all, 0, 0, false)
						at := func(elem int) blas.Operand { return d.operand().Add(uint64(elem * ty.Size())) }
						for b := range batch {
							as, bs, cs = append(as, at(b*per)), append(bs, at(b*per+k*m)), append(cs, at(b*per+k*m+k*n))
						}
						results = func(b int) []float64 { return d.read(t)[b*per+k*m+k*n : (b+1)*per] }
					}
					if err := e.h.GemmBatched(a, as, bs, cs); err != nil {
						t.Fatal(err)
					}
					for b := range batch {
						got := results(b)
						want, scale := refGemm(a, A[b], B[b], C[b])
						for x := range want {
							if w := round(ty, want[x]); !near(ty, got[x], w, scale[x]) {
								t.Fatalf("%s: matrix %d, C[%d] = %v, want %v", layout, b, x, got[x], w)
							}
						}
					}
				}
				e.checkServed(t, ty, 2, before)
			})
		}
	}
}

func (s gemmShape) String() string { return fmt.Sprintf("%dx%dx%d+%d", s.m, s.n, s.k, s.pad) }
