package blas

import (
	"fmt"

	"github.com/gour-dev/gour/blas/internal/clblast"
	"github.com/gour-dev/gour/dtype"
	"github.com/gour-dev/gour/ur"
)

// clblastEngine calls CLBlast on the Handle's OpenCL queue. CLBlast works
// on buffers, so every call on a USM operand goes to the own kernels, as
// do bfloat16 (which CLBlast lacks), negative increments (its increments
// are unsigned), K = 0 and other empty products (its routines refuse zero
// dimensions), Iamax (its index type differs), Nrm2 (it squares without
// scaling, so large and tiny elements overflow or underflow), Trsm with
// alpha 0, pointer batches whose matrices are not in one buffer each,
// and beta = 0 on a C whose rows have gaps (see gemm).
type clblastEngine struct {
	lib *clblast.Lib
	h   *Handle
}

func openCLBlast(h *Handle) (engine, error) {
	lib, err := clblast.Load()
	if err != nil {
		return nil, &LibraryError{Backend: BackendCLBlast, Library: clblast.Names[0], Reason: err.Error()}
	}
	return &clblastEngine{lib: lib, h: h}, nil
}

func clblastStatus(*ur.Device) LibraryStatus {
	lib, err := clblast.Load()
	if err != nil {
		return LibraryStatus{Library: clblast.Names[0], Reason: err.Error()}
	}
	return LibraryStatus{Library: lib.Name, Loaded: true}
}

func (e *clblastEngine) close() error { return nil }

// buffers reports whether every operand is a buffer, and so CLBlast's.
func buffers(os ...Operand) bool {
	for _, o := range os {
		if o.mem == nil {
			return false
		}
	}
	return true
}

// mem is a buffer operand's cl_mem and element offset.
func mem(o Operand, t dtype.Type) (uintptr, uint64) { return o.mem.Native(), o.off / uint64(t.Size()) }

func trans(t Transpose) int32 {
	if t == Trans {
		return clblast.Trans
	}
	return clblast.NoTrans
}

// call shapes CLBlast's status for the routine.
func (e *clblastEngine) call(op string, st clblast.Status) error {
	if st == clblast.Success {
		return nil
	}
	return fmt.Errorf("blas.%s [clblast]: %w", op, st)
}

// half is a float16 scalar's bits, as CLBlast's H routines take it.
func half(v float64) uint16 { return dtype.Float16Bits(float32(v)) }

// gemm serves buffers of float32, float64 and float16. CLBlast reads C
// even when beta is 0, so a NaN there would survive; where C is one
// contiguous run (LDC = N, and the batch's matrices adjacent) it is
// zeroed first, otherwise the call goes to the own kernels.
func (e *clblastEngine) gemm(a GemmArgs) error {
	if a.Type == dtype.BFloat16 || a.K == 0 || !buffers(a.A, a.B, a.C) {
		return errFallback
	}
	if a.Beta == 0 {
		if a.LDC != a.N || a.Batch > 1 && a.StrideC != a.M*a.N {
			return errFallback
		}
		if err := e.zero(a.C, a.Type, a.M*a.N*a.Batch); err != nil {
			return err
		}
	}
	q := e.h.q.Native()
	ca, offA := mem(a.A, a.Type)
	cb, offB := mem(a.B, a.Type)
	cc, offC := mem(a.C, a.Type)
	m, n, k, lda, ldb, ldc := uint64(a.M), uint64(a.N), uint64(a.K), uint64(a.LDA), uint64(a.LDB), uint64(a.LDC)
	ta, tb := trans(a.TransA), trans(a.TransB)
	if a.Batch == 1 {
		var st clblast.Status
		switch a.Type {
		case dtype.Float32:
			st = e.lib.S.Gemm(clblast.RowMajor, ta, tb, m, n, k, float32(a.Alpha), ca, offA, lda, cb, offB, ldb, float32(a.Beta), cc, offC, ldc, &q, nil)
		case dtype.Float64:
			st = e.lib.D.Gemm(clblast.RowMajor, ta, tb, m, n, k, a.Alpha, ca, offA, lda, cb, offB, ldb, a.Beta, cc, offC, ldc, &q, nil)
		case dtype.Float16:
			st = e.lib.H.Gemm(clblast.RowMajor, ta, tb, m, n, k, half(a.Alpha), ca, offA, lda, cb, offB, ldb, half(a.Beta), cc, offC, ldc, &q, nil)
		}
		return e.call("Gemm", st)
	}
	sa, sb, sc, batch := uint64(a.StrideA), uint64(a.StrideB), uint64(a.StrideC), uint64(a.Batch)
	var st clblast.Status
	switch a.Type {
	case dtype.Float32:
		st = e.lib.S.GemmStridedBatched(clblast.RowMajor, ta, tb, m, n, k, float32(a.Alpha), ca, offA, lda, sa, cb, offB, ldb, sb, float32(a.Beta), cc, offC, ldc, sc, batch, &q, nil)
	case dtype.Float64:
		st = e.lib.D.GemmStridedBatched(clblast.RowMajor, ta, tb, m, n, k, a.Alpha, ca, offA, lda, sa, cb, offB, ldb, sb, a.Beta, cc, offC, ldc, sc, batch, &q, nil)
	case dtype.Float16:
		st = e.lib.H.GemmStridedBatched(clblast.RowMajor, ta, tb, m, n, k, half(a.Alpha), ca, offA, lda, sa, cb, offB, ldb, sb, half(a.Beta), cc, offC, ldc, sc, batch, &q, nil)
	}
	return e.call("Gemm", st)
}

// gemmBatched serves batches whose A matrices lie in one buffer, and
// likewise B and C: CLBlast's batched GEMM takes one buffer each and an
// offset a matrix. Beta 0 goes to the own kernels (see gemm).
func (e *clblastEngine) gemmBatched(a *GemmArgs, as, bs, cs []Operand) error {
	if a.Type == dtype.BFloat16 || a.K == 0 || a.Beta == 0 {
		return errFallback
	}
	offs := make([]uint64, 3*len(as))
	offA, offB, offC := offs[:len(as)], offs[len(as):2*len(as)], offs[2*len(as):]
	for i := range as {
		if !buffers(as[i], bs[i], cs[i]) || as[i].mem != as[0].mem || bs[i].mem != bs[0].mem || cs[i].mem != cs[0].mem {
			return errFallback
		}
		_, offA[i] = mem(as[i], a.Type)
		_, offB[i] = mem(bs[i], a.Type)
		_, offC[i] = mem(cs[i], a.Type)
	}
	q := e.h.q.Native()
	ca, cb, cc := as[0].mem.Native(), bs[0].mem.Native(), cs[0].mem.Native()
	m, n, k, lda, ldb, ldc, batch := uint64(a.M), uint64(a.N), uint64(a.K), uint64(a.LDA), uint64(a.LDB), uint64(a.LDC), uint64(len(as))
	ta, tb := trans(a.TransA), trans(a.TransB)
	var st clblast.Status
	switch a.Type {
	case dtype.Float32:
		alphas, betas := repeat(float32(a.Alpha), len(as)), repeat(float32(a.Beta), len(as))
		st = e.lib.S.GemmBatched(clblast.RowMajor, ta, tb, m, n, k, &alphas[0], ca, &offA[0], lda, cb, &offB[0], ldb, &betas[0], cc, &offC[0], ldc, batch, &q, nil)
	case dtype.Float64:
		alphas, betas := repeat(a.Alpha, len(as)), repeat(a.Beta, len(as))
		st = e.lib.D.GemmBatched(clblast.RowMajor, ta, tb, m, n, k, &alphas[0], ca, &offA[0], lda, cb, &offB[0], ldb, &betas[0], cc, &offC[0], ldc, batch, &q, nil)
	case dtype.Float16:
		alphas, betas := repeat(half(a.Alpha), len(as)), repeat(half(a.Beta), len(as))
		st = e.lib.H.GemmBatched(clblast.RowMajor, ta, tb, m, n, k, &alphas[0], ca, &offA[0], lda, cb, &offB[0], ldb, &betas[0], cc, &offC[0], ldc, batch, &q, nil)
	}
	return e.call("GemmBatched", st)
}

// zero enqueues the zeroing of n elements of t from a buffer operand.
func (e *clblastEngine) zero(o Operand, t dtype.Type, n int) error {
	size := uint64(t.Size())
	ev, err := e.h.q.EnqueueFill(o.mem, make([]byte, size), o.off, uint64(n)*size)
	if ev != nil {
		ev.Release() // the queue's order is the wait
	}
	return err
}

func repeat[T any](v T, n int) []T {
	s := make([]T, n)
	for i := range s {
		s[i] = v
	}
	return s
}

// gemv serves buffers with positive increments; beta 0 on a y that
// is not contiguous goes to the own kernels (see gemm).
func (e *clblastEngine) gemv(a GemvArgs) error {
	if a.Type == dtype.BFloat16 || a.M == 0 || a.N == 0 || a.IncX < 0 || a.IncY < 0 || !buffers(a.A, a.X, a.Y) {
		return errFallback
	}
	ny := a.M
	if a.Trans == Trans {
		ny = a.N
	}
	if a.Beta == 0 {
		if a.IncY != 1 {
			return errFallback
		}
		if err := e.zero(a.Y, a.Type, ny); err != nil {
			return err
		}
	}
	q := e.h.q.Native()
	ca, offA := mem(a.A, a.Type)
	cx, offX := mem(a.X, a.Type)
	cy, offY := mem(a.Y, a.Type)
	m, n, lda, incX, incY, ta := uint64(a.M), uint64(a.N), uint64(a.LDA), uint64(a.IncX), uint64(a.IncY), trans(a.Trans)
	var st clblast.Status
	switch a.Type {
	case dtype.Float32:
		st = e.lib.S.Gemv(clblast.RowMajor, ta, m, n, float32(a.Alpha), ca, offA, lda, cx, offX, incX, float32(a.Beta), cy, offY, incY, &q, nil)
	case dtype.Float64:
		st = e.lib.D.Gemv(clblast.RowMajor, ta, m, n, a.Alpha, ca, offA, lda, cx, offX, incX, a.Beta, cy, offY, incY, &q, nil)
	case dtype.Float16:
		st = e.lib.H.Gemv(clblast.RowMajor, ta, m, n, half(a.Alpha), ca, offA, lda, cx, offX, incX, half(a.Beta), cy, offY, incY, &q, nil)
	}
	return e.call("Gemv", st)
}

// vector serves the Level 1 routines but Iamax and Nrm2 on buffers with
// positive increments and at least one element.
func (e *clblastEngine) vector(a *vecArgs) error {
	if a.Type == dtype.BFloat16 || a.Op == opIamax || a.Op == opNrm2 || a.N == 0 || a.IncX < 0 || a.IncY < 0 {
		return errFallback
	}
	if !buffers(a.X) || a.Op.hasY() && !buffers(a.Y) || a.Op.hasResult() && !buffers(a.Result) {
		return errFallback
	}
	switch a.Type {
	case dtype.Float32:
		return e.call(a.Op.String(), level1(&e.lib.S, a, float32(a.Alpha), e.h.q.Native()))
	case dtype.Float64:
		return e.call(a.Op.String(), level1(&e.lib.D, a, a.Alpha, e.h.q.Native()))
	}
	return e.call(a.Op.String(), level1(&e.lib.H, a, half(a.Alpha), e.h.q.Native()))
}

func level1[F float32 | float64 | uint16](r *clblast.Routines[F], a *vecArgs, alpha F, q uintptr) clblast.Status {
	n, incX, incY := uint64(a.N), uint64(a.IncX), uint64(a.IncY)
	cx, offX := mem(a.X, a.Type)
	var cy, offY, cr, offR = uintptr(0), uint64(0), uintptr(0), uint64(0)
	if a.Op.hasY() {
		cy, offY = mem(a.Y, a.Type)
	}
	if a.Op.hasResult() {
		cr, offR = mem(a.Result, a.Type)
	}
	switch a.Op {
	case opAxpy:
		return r.Axpy(n, alpha, cx, offX, incX, cy, offY, incY, &q, nil)
	case opDot:
		return r.Dot(n, cr, offR, cx, offX, incX, cy, offY, incY, &q, nil)
	case opAsum:
		return r.Asum(n, cr, offR, cx, offX, incX, &q, nil)
	case opScal:
		return r.Scal(n, alpha, cx, offX, incX, &q, nil)
	case opCopy:
		return r.Copy(n, cx, offX, incX, cy, offY, incY, &q, nil)
	case opSwap:
		return r.Swap(n, cx, offX, incX, cy, offY, incY, &q, nil)
	}
	return clblast.Status(-1024) // not reached: Iamax and Nrm2 are left to the own kernels
}

// trsm serves float32 and float64 buffers; alpha 0 (B = 0, which BLAS
// defines and CLBlast's solve need not honour for NaNs in B) goes to the
// own kernels.
func (e *clblastEngine) trsm(a TrsmArgs) error {
	if a.Alpha == 0 || (a.Type != dtype.Float32 && a.Type != dtype.Float64) || !buffers(a.A, a.B) {
		return errFallback
	}
	q := e.h.q.Native()
	ca, offA := mem(a.A, a.Type)
	cb, offB := mem(a.B, a.Type)
	side, uplo, diag := clblast.Left, clblast.Upper, clblast.NonUnit
	if a.Side == Right {
		side = clblast.Right
	}
	if a.Uplo == Lower {
		uplo = clblast.Lower
	}
	if a.Diag == Unit {
		diag = clblast.Unit
	}
	m, n, lda, ldb := uint64(a.M), uint64(a.N), uint64(a.LDA), uint64(a.LDB)
	var st clblast.Status
	if a.Type == dtype.Float32 {
		st = e.lib.S.Trsm(clblast.RowMajor, side, uplo, trans(a.Trans), diag, m, n, float32(a.Alpha), ca, offA, lda, cb, offB, ldb, &q, nil)
	} else {
		st = e.lib.D.Trsm(clblast.RowMajor, side, uplo, trans(a.Trans), diag, m, n, a.Alpha, ca, offA, lda, cb, offB, ldb, &q, nil)
	}
	return e.call("Trsm", st)
}
