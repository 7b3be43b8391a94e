package blas

import (
	"errors"
	"sync"

	"github.com/gour-dev/gour/dtype"
	"github.com/gour-dev/gour/ur"
)

// The own triangular solve is blocked so that, for many right-hand
// sides, nearly all its arithmetic is general matrix products: a
// substitution, row after row, would leave the device idle. Let T =
// op(A), split into nb×nb diagonal blocks (nb is the GEMM tiling's BM,
// the last block possibly smaller). One kernel inverts every diagonal
// block at once (trsm_inv; a few nb³ operations); then, block by block
// in the order the triangle dictates (down for T lower and side Left,
// ...), the solve is right-looking, with three launches a block:
//
//	W   = B_i                         (mcopy: the product below is not in place)
//	B_i = s * inv(T_ii) * W           (GEMM: X_i)
//	B_r = s * B_r - T_r,i * B_i       (GEMM over every block r still to solve)
//
// where s is alpha for the first block (its trailing update covers every
// other block, so that alpha is applied to each row exactly once) and 1
// afterwards. Side Right is the same on columns: X_i = s * W * inv(T_ii),
// B_r = s * B_r - B_i * T_i,r. The trailing update is one large product
// with K = nb, which keeps the whole device busy where a left-looking
// solve's products would be nb rows tall. Explicit inversion of the
// diagonal blocks is what cuBLAS and MAGMA do too; it is as accurate as
// substitution for the well-conditioned triangles of LU and Cholesky
// factors.

// trsmScratch is the own solve's device memory: the inverted diagonal
// blocks and the copy W. Calls take turns on it (mu), in the queue's
// order, so a call reuses it only after the previous one's kernels.
type trsmScratch struct {
	mu      sync.Mutex
	d, w    *ur.Mem
	dSize   uint64
	wSize   uint64
	retired []*ur.Mem // outgrown buffers, which earlier calls' kernels may still use: released at close
}

// buffer returns a buffer of at least size bytes in *m, replacing a
// smaller one (kept in retired until close) by one at least twice its
// size, so that a run of growing calls allocates a few times only.
func (s *trsmScratch) buffer(ctx *ur.Context, m **ur.Mem, have *uint64, size uint64) (*ur.Mem, error) {
	if *m != nil && *have >= size {
		return *m, nil
	}
	n := max(size, 2**have)
	b, err := ctx.NewBuffer(ur.MemReadWrite, n)
	if err != nil {
		return nil, err
	}
	if *m != nil {
		s.retired = append(s.retired, *m)
	}
	*m, *have = b, n
	return b, nil
}

func (s *trsmScratch) close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	var errs []error
	for _, m := range append(s.retired, s.d, s.w) {
		if m != nil {
			errs = append(errs, m.Release())
		}
	}
	s.d, s.w, s.retired, s.dSize, s.wSize = nil, nil, nil, 0, 0
	return errors.Join(errs...)
}

func (e *ownEngine) trsm(a TrsmArgs) error {
	p, err := e.program(a.Type)
	if err != nil {
		return err
	}
	size := a.Type.Size()
	if a.Alpha == 0 {
		return e.mcopy(p, a.Type, a.M, a.N, a.B, a.LDB, a.B, a.LDB, true)
	}
	k := a.trsmK()
	nb := p.tiling.BM
	blocks := ceilDiv(k, nb)
	s := &e.solve
	s.mu.Lock()
	defer s.mu.Unlock()
	d, err := s.buffer(e.h.ctx, &s.d, &s.dSize, uint64(blocks*nb*nb*size))
	if err != nil {
		return err
	}
	wElems := nb * a.N // Left: a block of rows of B
	if a.Side == Right {
		wElems = a.M * nb // Right: a block of columns
	}
	w, err := s.buffer(e.h.ctx, &s.w, &s.wSize, uint64(wElems*size))
	if err != nil {
		return err
	}

	// The inverses of the diagonal blocks.
	lower, trans, unit := a.lowerOp(), a.Trans == Trans, a.Diag == Unit
	argA, offA := arg(a.A, size)
	groups := min(blocks, maxGridY)
	r := ur.Range3D(uint64(nb), uint64(groups), 1).WithLocal(uint64(nb), 1, 1)
	err = e.launch(p, "trsm_inv", r, argA, ur.ArgOf(offA), i32(a.LDA), i32(k), i32(nb),
		i32(b2i(lower)), i32(b2i(trans)), i32(b2i(unit)), ur.ArgBuffer(d), i32(groups))
	if err != nil {
		return err
	}

	// tri is the operand of T's block from row r0, column c0, and the
	// transpose to read it with.
	tri := func(r0, c0 int) (Operand, Transpose) {
		if trans {
			return a.A.Add(uint64((c0*a.LDA + r0) * size)), Trans
		}
		return a.A.Add(uint64((r0*a.LDA + c0) * size)), NoTrans
	}
	at := func(i, j int) Operand { return a.B.Add(uint64((i*a.LDB + j) * size)) }
	W, D := OnBuffer(w, 0), OnBuffer(d, 0)
	// Forward (block 0 first) for Left with T lower and Right with T
	// upper: the blocks still to solve then follow the current one.
	forward := lower == (a.Side == Left)
	scale := a.Alpha
	for i := range blocks {
		b := i
		if !forward {
			b = blocks - 1 - i
		}
		b0, bn := b*nb, min(nb, k-b*nb)
		// The blocks still to solve: [t0, t1).
		t0, t1 := b0+bn, k
		if !forward {
			t0, t1 = 0, b0
		}
		Db := D.Add(uint64(b * nb * nb * size))
		g := GemmArgs{Type: a.Type, Batch: 1, Alpha: scale}
		if a.Side == Left {
			if err := e.mcopy(p, a.Type, bn, a.N, at(b0, 0), a.LDB, W, a.N, false); err != nil {
				return err
			}
			g.M, g.N, g.K = bn, a.N, bn
			g.A, g.LDA, g.B, g.LDB, g.C, g.LDC = Db, nb, W, a.N, at(b0, 0), a.LDB
		} else {
			if err := e.mcopy(p, a.Type, a.M, bn, at(0, b0), a.LDB, W, bn, false); err != nil {
				return err
			}
			g.M, g.N, g.K = a.M, bn, bn
			g.A, g.LDA, g.B, g.LDB, g.C, g.LDC = W, bn, Db, nb, at(0, b0), a.LDB
		}
		if err := e.gemm(g); err != nil {
			return err
		}
		if t1 > t0 {
			u := GemmArgs{Type: a.Type, Batch: 1, Alpha: -1, Beta: scale, K: bn, LDC: a.LDB}
			if a.Side == Left {
				u.M, u.N = t1-t0, a.N
				u.A, u.TransA = tri(t0, b0)
				u.LDA, u.B, u.LDB, u.C = a.LDA, at(b0, 0), a.LDB, at(t0, 0)
			} else {
				u.M, u.N = a.M, t1-t0
				u.A, u.LDA = at(0, b0), a.LDB
				u.B, u.TransB = tri(b0, t0)
				u.LDB, u.C = a.LDA, at(0, t0)
			}
			if err := e.gemm(u); err != nil {
				return err
			}
		}
		scale = 1
	}
	return nil
}

// mcopy enqueues Y = X (or Y = 0 with zero) for M×N row-major matrices.
func (e *ownEngine) mcopy(p *ownProgram, t dtype.Type, m, n int, x Operand, ldx int, y Operand, ldy int, zero bool) error {
	size := t.Size()
	argX, offX := arg(x, size)
	argY, offY := arg(y, size)
	l := p.local
	cols := uint64(max(1, min(e.groups, ceilDiv(n, int(l)))))
	rows := min(m, maxGridY)
	r := ur.Range3D(cols*l, uint64(rows), 1).WithLocal(l, 1, 1)
	return e.launch(p, "mcopy", r, i32(m), i32(n), argX, ur.ArgOf(offX), i32(ldx),
		argY, ur.ArgOf(offY), i32(ldy), i32(b2i(zero)), i32(rows))
}

// maxGridY bounds the work-groups of the solve's kernels in the grid's
// second dimension (CUDA's limit); they loop over the rest.
const maxGridY = 65535
