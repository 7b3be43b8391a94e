package blas_test

import (
	"errors"
	"fmt"
	"math"
	"sync"
	"testing"

	"github.com/gour-dev/gour/blas"
	"github.com/gour-dev/gour/dtype"
	"github.com/gour-dev/gour/internal/harness/testenv"
	"github.com/gour-dev/gour/ur"
)

// cublasEnv is a Handle on cuBLAS on the first CUDA device. It skips
// without a CUDA device and, unless UR_REQUIRE_ADAPTERS names cuda,
// without cuBLAS, saying why; it fails where cuda is required.
func cublasEnv(t testing.TB) *env {
	t.Helper()
	dev := testenv.MustHaveDevice(t, "cuda")[0]
	ctx, q := testenv.ContextQueue(t, dev)
	h, err := blas.New(q, blas.Options{Backend: blas.BackendCUBLAS})
	if errors.Is(err, blas.ErrLibraryUnavailable) {
		if testenv.IsRequired("cuda") {
			t.Fatalf("cuBLAS on %s, required by %s=cuda: %v", dev.Name(), testenv.EnvRequireAdapters, err)
		}
		t.Skipf("cuBLAS on %s: %v", dev.Name(), err)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := h.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	if h.Backend() != blas.BackendCUBLAS {
		t.Fatalf("Backend = %q, want cublas", h.Backend())
	}
	return &env{name: dev.Name() + "/cublas", dev: dev, ctx: ctx, q: q, h: h}
}

// ownPending skips a call cuBLAS leaves to the own kernels while they
// are not there.
func ownPending(t *testing.T, err error) {
	t.Helper()
	var ae *blas.ArgError
	if errors.As(err, &ae) && ae.Arg == "backend" && errors.Is(err, ur.ErrUnsupportedFeature) {
		t.Skipf("left to the own kernels: %v", err)
	}
}

// TestCUBLASAvailable: on a CUDA device, Available lists cuBLAS with its
// version and a Handle takes it by default; on any other device, asking
// for it is a *LibraryError and Available does not list it.
func TestCUBLASAvailable(t *testing.T) {
	testenv.CheckRequired(t)
	sys := testenv.System(t)
	if len(sys.Devices) == 0 {
		t.Skipf("no device: %s", testenv.Reasons(sys))
	}
	for _, dev := range sys.Devices {
		t.Run(dev.Backend()+"/"+dev.Name(), func(t *testing.T) {
			var st *blas.LibraryStatus
			for _, s := range blas.Available(dev) {
				if s.Backend == blas.BackendCUBLAS {
					st = &s
				}
			}
			_, q := testenv.ContextQueue(t, dev)
			if dev.Backend() != "cuda" {
				if st != nil {
					t.Errorf("Available lists cuBLAS for a %s device: %+v", dev.Backend(), *st)
				}
				h, err := blas.New(q, blas.Options{Backend: blas.BackendCUBLAS})
				var le *blas.LibraryError
				if !errors.As(err, &le) || !errors.Is(err, blas.ErrLibraryUnavailable) || le.Backend != blas.BackendCUBLAS {
					t.Errorf("New(cublas) on %s = %v, %v; want a *LibraryError", dev.Backend(), h, err)
				}
				if h != nil {
					h.Close()
				}
				return
			}
			if st == nil {
				t.Fatal("Available does not list cuBLAS")
			}
			if !st.Loaded {
				if testenv.IsRequired("cuda") {
					t.Fatalf("cuBLAS does not load: %s (%s)", st.Reason, st.Library)
				}
				t.Skipf("cuBLAS does not load: %s (%s)", st.Reason, st.Library)
			}
			if st.Version == "" || st.Library == "" {
				t.Errorf("status %+v: want the library and its version", *st)
			}
			t.Logf("%s %s", st.Library, st.Version)
			h, err := blas.New(q, blas.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer h.Close()
			if h.Backend() != blas.BackendCUBLAS {
				t.Errorf("default backend %q, want cublas", h.Backend())
			}
		})
	}
}

// refGemm is the row-major reference of one product; scale the sum of
// magnitudes of each output's terms.
func cuRefGemm(a *blas.GemmArgs, A, B, C []float64) (want, scale []float64) {
	want = make([]float64, len(C))
	scale = make([]float64, len(C))
	copy(want, C)
	at := func(i, p int) float64 {
		if a.TransA == blas.Trans {
			return A[p*a.LDA+i]
		}
		return A[i*a.LDA+p]
	}
	bt := func(p, j int) float64 {
		if a.TransB == blas.Trans {
			return B[j*a.LDB+p]
		}
		return B[p*a.LDB+j]
	}
	for i := range a.M {
		for j := range a.N {
			var s, m float64
			for p := range a.K {
				s += at(i, p) * bt(p, j)
				m += math.Abs(at(i, p) * bt(p, j))
			}
			c := &want[i*a.LDC+j]
			sc := math.Abs(a.Alpha) * m
			if a.Beta == 0 {
				*c = a.Alpha * s
			} else {
				sc += math.Abs(a.Beta * *c)
				*c = a.Alpha*s + a.Beta**c
			}
			scale[i*a.LDC+j] = sc + 1
		}
	}
	return want, scale
}

// checkMatrix compares C's elements with the reference, and leaves the
// padding between rows as it was.
func cuCheckMatrix(t *testing.T, ty dtype.Type, what string, got, want, scale []float64, m, n, ld int) {
	t.Helper()
	bad := 0
	for i := range m {
		for j := range ld {
			k := i*ld + j
			if k >= len(want) {
				break
			}
			ok := j >= n && (got[k] == want[k] || math.IsNaN(got[k]) && math.IsNaN(want[k])) ||
				j < n && near(ty, got[k], want[k], scale[k])
			if !ok {
				if bad++; bad <= 5 {
					t.Errorf("%s (%d, %d) = %v, want %v", what, i, j, got[k], want[k])
				}
			}
		}
	}
	if bad > 5 {
		t.Errorf("%s: %d wrong elements", what, bad)
	}
}

// TestCUBLASGemm: every type and transposition, padded leading
// dimensions, operands on USM and in buffers at offsets, beta 0 over
// NaNs, strided batches with a broadcast B.
func TestCUBLASGemm(t *testing.T) {
	e := cublasEnv(t)
	const M, N, K = 37, 19, 23
	for _, ty := range types {
		for _, ta := range []blas.Transpose{blas.NoTrans, blas.Trans} {
			for _, tb := range []blas.Transpose{blas.NoTrans, blas.Trans} {
				for _, c := range []struct {
					batch       int
					beta        float64
					usm         bool
					broadcastB  bool
					description string
				}{
					{1, -0.5, true, false, "usm"},
					{1, 0, false, false, "buffer, beta 0 over NaN"},
					{3, 0.25, true, true, "strided batch of 3, one B"},
					{4, 0, false, false, "strided batch of 4 in buffers"},
				} {
					name := fmt.Sprintf("%v/%v%v/%s", ty, ta, tb, c.description)
					t.Run(name, func(t *testing.T) {
						e.skipType(t, ty)
						ra, ca := M, K
						if ta == blas.Trans {
							ra, ca = K, M
						}
						rb, cb := K, N
						if tb == blas.Trans {
							rb, cb = N, K
						}
						a := blas.GemmArgs{Type: ty, TransA: ta, TransB: tb, M: M, N: N, K: K, Alpha: 1.5, Beta: c.beta,
							LDA: ca + 3, LDB: cb + 1, LDC: N + 2, Batch: c.batch}
						a.StrideA, a.StrideB, a.StrideC = ra*a.LDA+5, rb*a.LDB, M*a.LDC+7
						if c.broadcastB {
							a.StrideB = 0
						}
						nb := 1
						if !c.broadcastB {
							nb = c.batch
						}
						As := values(a.StrideA*c.batch, 1)
						Bs := values(a.StrideB*(nb-1)+rb*a.LDB, 2)
						Cs := values(a.StrideC*c.batch, 3)
						if c.beta == 0 {
							for i := range Cs {
								Cs[i] = math.NaN()
							}
						}
						dA := e.upload(t, ty, As, 3, 0, c.usm)
						dB := e.upload(t, ty, Bs, 0, 0, c.usm)
						dC := e.upload(t, ty, Cs, 1, 0, c.usm)
						a.A, a.B, a.C = dA.operand(), dB.operand(), dC.operand()
						if err := e.h.Gemm(a); err != nil {
							t.Fatal(err)
						}
						got := dC.read(t)
						Ar, Br, Cr := decode(ty, encode(ty, As)), decode(ty, encode(ty, Bs)), decode(ty, encode(ty, Cs))
						for b := range c.batch {
							sb := b * a.StrideB
							want, scale := cuRefGemm(&a, Ar[b*a.StrideA:], Br[sb:], Cr[b*a.StrideC:b*a.StrideC+M*a.LDC])
							cuCheckMatrix(t, ty, fmt.Sprintf("C[%d]", b), got[b*a.StrideC:b*a.StrideC+M*a.LDC], want, scale, M, N, a.LDC)
						}
					})
				}
			}
		}
	}
}

// TestCUBLASGemmBatched: the pointer-array batch, matrices in separate
// allocations, USM and buffers mixed.
func TestCUBLASGemmBatched(t *testing.T) {
	e := cublasEnv(t)
	const M, N, K, batch = 21, 33, 17, 5
	for _, ty := range types {
		for _, tr := range [][2]blas.Transpose{{blas.NoTrans, blas.NoTrans}, {blas.Trans, blas.NoTrans}, {blas.NoTrans, blas.Trans}} {
			t.Run(fmt.Sprintf("%v/%v%v", ty, tr[0], tr[1]), func(t *testing.T) {
				e.skipType(t, ty)
				a := blas.GemmArgs{Type: ty, TransA: tr[0], TransB: tr[1], M: M, N: N, K: K, Alpha: -1, Beta: 0.5}
				ra, ca := M, K
				if a.TransA == blas.Trans {
					ra, ca = K, M
				}
				rb, cb := K, N
				if a.TransB == blas.Trans {
					rb, cb = N, K
				}
				a.LDA, a.LDB, a.LDC = ca+1, cb, N+4
				var as, bs, cs []blas.Operand
				var As, Bs, Cs [][]float64
				var dCs []*dmem
				for i := range batch {
					A, B, C := values(ra*a.LDA, uint64(10*i+1)), values(rb*a.LDB, uint64(10*i+2)), values(M*a.LDC, uint64(10*i+3))
					usm := i%2 == 0
					as = append(as, e.upload(t, ty, A, i, 0, usm).operand())
					bs = append(bs, e.upload(t, ty, B, 0, 0, !usm).operand())
					dC := e.upload(t, ty, C, 2, 0, usm)
					cs = append(cs, dC.operand())
					dCs = append(dCs, dC)
					As, Bs, Cs = append(As, decode(ty, encode(ty, A))), append(Bs, decode(ty, encode(ty, B))), append(Cs, decode(ty, encode(ty, C)))
				}
				if err := e.h.GemmBatched(a, as, bs, cs); err != nil {
					t.Fatal(err)
				}
				for i := range batch {
					want, scale := cuRefGemm(&a, As[i], Bs[i], Cs[i])
					cuCheckMatrix(t, ty, fmt.Sprintf("C[%d]", i), dCs[i].read(t), want, scale, M, N, a.LDC)
				}
			})
		}
	}
}

// TestCUBLASGemv: every type and transposition, unit and other
// increments (half precision runs as a one-row GEMM).
func TestCUBLASGemv(t *testing.T) {
	e := cublasEnv(t)
	const M, N = 45, 29
	for _, ty := range types {
		for _, tr := range []blas.Transpose{blas.NoTrans, blas.Trans} {
			for _, inc := range [][2]int{{1, 1}, {2, 3}} {
				t.Run(fmt.Sprintf("%v/%v/inc%d,%d", ty, tr, inc[0], inc[1]), func(t *testing.T) {
					e.skipType(t, ty)
					xl, yl := N, M
					if tr == blas.Trans {
						xl, yl = M, N
					}
					a := blas.GemvArgs{Type: ty, Trans: tr, M: M, N: N, Alpha: 0.75, Beta: -1.5, LDA: N + 3, IncX: inc[0], IncY: inc[1]}
					A, x, y := values(M*a.LDA, 4), values((xl-1)*inc[0]+1, 5), values((yl-1)*inc[1]+1, 6)
					dA, dx, dy := e.upload(t, ty, A, 0, 0, true), e.upload(t, ty, x, 1, 0, false), e.upload(t, ty, y, 0, 0, true)
					a.A, a.X, a.Y = dA.operand(), dx.operand(), dy.operand()
					if err := e.h.Gemv(a); err != nil {
						t.Fatal(err)
					}
					got := dy.read(t)
					Ar, xr, yr := decode(ty, encode(ty, A)), decode(ty, encode(ty, x)), decode(ty, encode(ty, y))
					for i := range yl {
						var s, m float64
						for j := range xl {
							aij := Ar[i*a.LDA+j]
							if tr == blas.Trans {
								aij = Ar[j*a.LDA+i]
							}
							s += aij * xr[j*inc[0]]
							m += math.Abs(aij * xr[j*inc[0]])
						}
						yi := yr[i*inc[1]]
						want := a.Alpha*s + a.Beta*yi
						if g := got[i*inc[1]]; !near(ty, g, want, math.Abs(a.Alpha)*m+math.Abs(a.Beta*yi)+1) {
							t.Errorf("y[%d] = %v, want %v", i, g, want)
						}
					}
				})
			}
		}
	}
}

// TestCUBLASLevel1: the routines cuBLAS serves, results written to
// device memory.
func TestCUBLASLevel1(t *testing.T) {
	e := cublasEnv(t)
	const n = 1000
	for _, ty := range types {
		half := ty == dtype.Float16 || ty == dtype.BFloat16
		for _, inc := range [][2]int{{1, 1}, {2, 3}} {
			t.Run(fmt.Sprintf("%v/inc%d,%d", ty, inc[0], inc[1]), func(t *testing.T) {
				e.skipType(t, ty)
				x0, y0 := values((n-1)*inc[0]+1, 7), values((n-1)*inc[1]+1, 8)
				xr, yr := decode(ty, encode(ty, x0)), decode(ty, encode(ty, y0))
				fresh := func() (*dmem, *dmem) {
					return e.upload(t, ty, x0, 0, 0, true), e.upload(t, ty, y0, 2, 0, false)
				}
				var dot, dotScale, nrm, asum float64
				for i := range n {
					xi, yi := xr[i*inc[0]], yr[i*inc[1]]
					dot += xi * yi
					dotScale += math.Abs(xi * yi)
					nrm += xi * xi
					asum += math.Abs(xi)
				}
				result := func(name string, call func(r blas.Operand) error, want, scale float64) {
					r := e.upload(t, ty, []float64{math.NaN()}, 0, 0, true)
					if err := call(r.operand()); err != nil {
						t.Fatalf("%s: %v", name, err)
					}
					if got := r.read(t)[0]; !near(ty, got, want, scale) {
						t.Errorf("%s = %v, want %v", name, got, want)
					}
				}
				result("Dot", func(r blas.Operand) error {
					dx, dy := fresh()
					return e.h.Dot(ty, n, dx.operand(), inc[0], dy.operand(), inc[1], r)
				}, dot, dotScale+1)
				result("Nrm2", func(r blas.Operand) error {
					dx, _ := fresh()
					return e.h.Nrm2(ty, n, dx.operand(), inc[0], r)
				}, math.Sqrt(nrm), math.Sqrt(nrm)+1)
				if !half {
					result("Asum", func(r blas.Operand) error {
						dx, _ := fresh()
						return e.h.Asum(ty, n, dx.operand(), inc[0], r)
					}, asum, asum+1)
				}

				dx, dy := fresh()
				if err := e.h.Axpy(ty, n, -1.25, dx.operand(), inc[0], dy.operand(), inc[1]); err != nil {
					t.Fatal(err)
				}
				got := dy.read(t)
				for i := range n {
					want := yr[i*inc[1]] - 1.25*xr[i*inc[0]]
					if !near(ty, got[i*inc[1]], want, math.Abs(want)+2) {
						t.Fatalf("Axpy: y[%d] = %v, want %v", i, got[i*inc[1]], want)
					}
				}
				dx, _ = fresh()
				if err := e.h.Scal(ty, n, 0.5, dx.operand(), inc[0]); err != nil {
					t.Fatal(err)
				}
				got = dx.read(t)
				for i := range n {
					if want := 0.5 * xr[i*inc[0]]; got[i*inc[0]] != want {
						t.Fatalf("Scal: x[%d] = %v, want %v", i, got[i*inc[0]], want)
					}
				}
				if half {
					return
				}
				dx, dy = fresh()
				if err := e.h.Copy(ty, n, dx.operand(), inc[0], dy.operand(), inc[1]); err != nil {
					t.Fatal(err)
				}
				got = dy.read(t)
				for i := range n {
					if got[i*inc[1]] != xr[i*inc[0]] {
						t.Fatalf("Copy: y[%d] = %v, want %v", i, got[i*inc[1]], xr[i*inc[0]])
					}
				}
				dx, dy = fresh()
				if err := e.h.Swap(ty, n, dx.operand(), inc[0], dy.operand(), inc[1]); err != nil {
					t.Fatal(err)
				}
				gx, gy := dx.read(t), dy.read(t)
				for i := range n {
					if gx[i*inc[0]] != yr[i*inc[1]] || gy[i*inc[1]] != xr[i*inc[0]] {
						t.Fatalf("Swap: element %d: x %v, y %v; want %v, %v", i, gx[i*inc[0]], gy[i*inc[1]], yr[i*inc[1]], xr[i*inc[0]])
					}
				}
			})
		}
	}
}

// TestCUBLASFallbacks: what cuBLAS leaves to the own kernels still gives
// BLAS's results on a cuBLAS Handle: GEMM with K = 0, GEMV with an empty
// x, negative increments, Iamax, empty reductions.
func TestCUBLASFallbacks(t *testing.T) {
	e := cublasEnv(t)
	ty := dtype.Float32
	t.Run("GemmK0", func(t *testing.T) {
		C := values(4*5, 9)
		dC := e.upload(t, ty, C, 0, 0, true)
		err := e.h.Gemm(blas.GemmArgs{Type: ty, M: 4, N: 5, K: 0, Alpha: 1, Beta: 2, LDA: 1, LDB: 5, LDC: 5, C: dC.operand()})
		ownPending(t, err)
		if err != nil {
			t.Fatal(err)
		}
		for i, g := range dC.read(t) {
			if g != 2*C[i] {
				t.Fatalf("C[%d] = %v, want %v", i, g, 2*C[i])
			}
		}
	})
	t.Run("Iamax", func(t *testing.T) {
		x := []float64{1, -3, 2, 3, -0.5}
		dx := e.upload(t, ty, x, 0, 0, true)
		r, err := e.ctx.AllocDevice(e.dev, 4)
		if err != nil {
			t.Fatal(err)
		}
		defer r.Free()
		err = e.h.Iamax(ty, len(x), dx.operand(), 1, blas.OnPtr(r.Ptr()))
		ownPending(t, err)
		if err != nil {
			t.Fatal(err)
		}
		b := make([]byte, 4)
		if err := e.q.CopyFromPtr(b, r.Ptr()); err != nil {
			t.Fatal(err)
		}
		if got := int32(uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16 | uint32(b[3])<<24); got != 1 {
			t.Errorf("Iamax = %d, want 1 (0-based)", got)
		}
	})
	t.Run("AxpyNegativeIncrement", func(t *testing.T) {
		x, y := []float64{1, 2, 3}, []float64{10, 20, 30}
		dx, dy := e.upload(t, ty, x, 0, 0, true), e.upload(t, ty, y, 0, 0, true)
		err := e.h.Axpy(ty, 3, 1, dx.operand(), -1, dy.operand(), 1)
		ownPending(t, err)
		if err != nil {
			t.Fatal(err)
		}
		if got := dy.read(t); got[0] != 13 || got[1] != 22 || got[2] != 31 {
			t.Errorf("y = %v, want [13 22 31]", got)
		}
	})
}

// TestCUBLASConcurrent: goroutines sharing one Handle, each on its own
// output, as the Handle allows; the handle's scalars and pointer mode are
// per call.
func TestCUBLASConcurrent(t *testing.T) {
	e := cublasEnv(t)
	const M, goroutines, rounds = 16, 8, 20
	ty := dtype.Float32
	A := values(M*M, 11)
	dA := e.upload(t, ty, A, 0, 0, true)
	outs := make([]*dmem, goroutines)
	res := make([]*dmem, goroutines)
	for g := range outs {
		outs[g] = e.upload(t, ty, make([]float64, M*M), 0, 0, true)
		res[g] = e.upload(t, ty, []float64{0}, 0, 0, true)
	}
	var wg sync.WaitGroup
	errs := make([]error, goroutines)
	for g := range goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range rounds {
				a := blas.GemmArgs{Type: ty, M: M, N: M, K: M, Alpha: float64(g + 1), LDA: M, LDB: M, LDC: M, A: dA.operand(), B: dA.operand(), C: outs[g].operand()}
				if err := e.h.Gemm(a); err != nil {
					errs[g] = err
					return
				}
				if err := e.h.Asum(ty, M*M, outs[g].operand(), 1, res[g].operand()); err != nil {
					errs[g] = err
					return
				}
			}
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	Ar := decode(ty, encode(ty, A))
	want, scale := cuRefGemm(&blas.GemmArgs{M: M, N: M, K: M, Alpha: 1, LDA: M, LDB: M, LDC: M}, Ar, Ar, make([]float64, M*M))
	var asum float64
	for _, w := range want {
		asum += math.Abs(w)
	}
	for g := range goroutines {
		got := outs[g].read(t)
		for i := range want {
			if !near(ty, got[i], float64(g+1)*want[i], float64(g+1)*scale[i]) {
				t.Fatalf("goroutine %d: C[%d] = %v, want %v", g, i, got[i], float64(g+1)*want[i])
			}
		}
		if r := res[g].read(t)[0]; !near(ty, r, float64(g+1)*asum, float64(g+1)*asum) {
			t.Errorf("goroutine %d: Asum = %v, want %v", g, r, float64(g+1)*asum)
		}
	}
}
