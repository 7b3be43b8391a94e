package gpt2

import (
	"fmt"
	"math"

	"github.com/gour-dev/gour/blas"
	"github.com/gour-dev/gour/dtype"
	"github.com/gour-dev/gour/gokernel"
	"github.com/gour-dev/gour/gokernel/kern"
	"github.com/gour-dev/gour/models/gpt2/internal/kernels"
	"github.com/gour-dev/gour/ur"
)

// StateOptions configure a State.
type StateOptions struct {
	// AllLogits keeps the logits of every position a Forward brings
	// (batch×tokens rows) instead of each sequence's last (batch rows),
	// at the cost of Vocab floats a position of device memory.
	AllLogits bool
}

// State is a batch of sequences being run: their key and value caches
// and the forward pass's working memory, in one device allocation. Each
// Forward appends tokens to every sequence of the batch.
type State struct {
	m         *Model
	batch     int
	room      int // positions each sequence has room for
	allLogits bool
	pos       int // positions each sequence holds
	rows      int // rows of logits the last Forward wrote
	mem       *ur.USM
	ids       ur.Ptr // batch×room token ids
	kc, vc    []array
	x, ln, y  array // batch×room×Width
	tmp, qkv  array // tmp: batch×room×Width; qkv: 3× that
	q, yh     array // the queries and the heads' outputs, [seq][head][token][hd]
	h         array // batch×room×4·Width
	att       array // batch×Heads×room×room
	logits    array // batch×Vocab, or batch×room×Vocab with AllLogits
	// hx and hy are a product's input and output in half precision
	// (Model.Precision); unused in float32.
	hx, hy   array
	released bool
}

// NewState makes room for batch sequences of up to room positions each
// (at most the model's Context).
func (m *Model) NewState(batch, room int, o StateOptions) (*State, error) {
	c := m.cfg
	if batch < 1 || room < 1 || room > c.Context {
		return nil, fmt.Errorf("%w: a batch of %d with room for %d positions: want at least 1 of each, room at most the context of %d", ErrTokens, batch, room, c.Context)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return nil, ErrClosed
	}
	s := &State{m: m, batch: batch, room: room, allLogits: o.AllLogits}
	C, rows := c.Width, batch*room
	logitRows := batch
	if o.AllLogits {
		logitRows = rows
	}
	var ids array
	halfIn, halfOut := 0, 0
	if m.prec != dtype.Float32 {
		halfIn, halfOut = rows*4*C, max(rows*4*C, logitRows*c.Vocab)
	}
	// Every array of the state, in one allocation: its elements, or for
	// the half-precision scratch its halves, two to a float32.
	type slot struct {
		a *array
		n int
	}
	layout := []slot{
		{&ids, rows}, {&s.x, rows * C}, {&s.ln, rows * C}, {&s.y, rows * C}, {&s.tmp, rows * C},
		{&s.q, rows * C}, {&s.yh, rows * C},
		{&s.qkv, 3 * rows * C}, {&s.h, 4 * rows * C}, {&s.att, batch * c.Heads * room * room},
		{&s.logits, logitRows * c.Vocab}, {&s.hx, (halfIn + 1) / 2}, {&s.hy, (halfOut + 1) / 2},
	}
	s.kc, s.vc = make([]array, c.Layers), make([]array, c.Layers)
	cache := batch * c.Heads * room * c.HeadDim()
	for i := range c.Layers {
		layout = append(layout, slot{&s.kc[i], cache}, slot{&s.vc[i], cache})
	}
	total := 0
	for _, l := range layout {
		total += l.n
	}
	var err error
	if s.mem, err = m.q.Context().AllocDevice(m.q.Device(), 4*uint64(total)); err != nil {
		return nil, fmt.Errorf("gpt2: state of %d×%d positions: %w", batch, room, err)
	}
	off := uint64(0)
	for _, l := range layout {
		*l.a = array{p: s.mem.Ptr().Add(off), n: l.n}
		off += 4 * uint64(l.n)
	}
	s.ids = ids.p
	s.hx, s.hy = array{p: s.hx.p, n: halfIn, half: true}, array{p: s.hy.p, n: halfOut, half: true}
	m.states[s] = struct{}{}
	return s, nil
}

// Batch is the number of sequences.
func (s *State) Batch() int { return s.batch }

// Pos is the number of positions each sequence holds.
func (s *State) Pos() int { return s.pos }

// Reset empties the sequences, keeping the memory.
func (s *State) Reset() { s.pos, s.rows = 0, 0 }

// Release frees the state's device memory.
func (s *State) Release() error {
	s.m.mu.Lock()
	if s.m.states != nil {
		delete(s.m.states, s)
	}
	s.m.mu.Unlock()
	return s.free()
}

func (s *State) free() error {
	if s.released {
		return nil
	}
	s.released = true
	return s.mem.Free()
}

// Forward runs tokens through the network: ids holds the batch's next
// tokens, the same number for each sequence, one sequence after the
// other. The keys and values of the new positions join the caches, so
// a prompt is one Forward (prefill) and each generated token one more
// (decode). It enqueues the work and returns; ReadLogits waits for it.
func (s *State) Forward(ids []int32) error {
	if s.released {
		return ErrClosed
	}
	m, c := s.m, s.m.cfg
	t, err := checkIDs(c, ids, s.batch, s.pos, s.room)
	if err != nil {
		return err
	}
	q, k := m.q, &m.k
	C, H, D, L, pos0 := c.Width, c.Heads, c.HeadDim(), s.pos+t, s.pos
	rows, blk := s.batch*t, min(m.block, t)
	if err := q.CopyToPtr(s.ids, ur.AsBytes(ids)); err != nil {
		return err
	}
	x, ln := s.x.slice(), s.ln.slice()
	idsArg := gokernel.PtrSlice[int32](s.ids, len(ids))
	if err := kernels.LaunchEmbed(k.embed, q, ur.Range1D(uint64(rows*C)), idsArg, m.wte.slice(), m.wpe.slice(), x, C, t, pos0); err != nil {
		return err
	}
	rowsRange := ur.Range1D(uint64(rows * kernels.Group)).WithLocal(kernels.Group)
	layerNorm := func(d, bias, w, b array, add bool) error {
		return kernels.LaunchLayerNorm(k.layerNorm, q, rowsRange, x, d.slice(), bias.slice(), w.slice(), b.slice(), ln, C, add, c.Eps)
	}
	l0 := &m.layers[0]
	if err := layerNorm(s.x, l0.ln1B, l0.ln1W, l0.ln1B, false); err != nil {
		return err
	}
	for i := range m.layers {
		l := &m.layers[i]
		// Attention: the input projection, the keys and values into the
		// caches, every head's scores against the cached positions, the
		// causal softmax, and the weighted values, which land in y in
		// [token][head][hd] order, the output projection's input.
		if err := s.linear(s.ln, l.attnW, s.qkv, rows, 3*C, C); err != nil {
			return err
		}
		if err := kernels.LaunchSplitQKV(k.splitQKV, q, ur.Range1D(uint64(rows*C)), s.qkv.slice(), l.attnB.slice(), s.q.slice(), s.kc[i].slice(), s.vc[i].slice(), C, t, H, s.room, pos0); err != nil {
			return err
		}
		// Every head of every sequence is one matrix of each product's
		// batch. One sequence's heads lie d apart in the rows of qkv
		// and y, where the products read the queries and write the
		// outputs side by side; several sequences' lie no single stride
		// apart there, so the queries are read from q and the outputs
		// written to yh ([seq][head][t][d]) and moved into y after. A
		// block of query rows needs the scores of the positions up to
		// its last row only: the masked ones beyond are neither computed
		// nor read.
		qs, qLD, qStride := s.qkv, 3*C, D
		ys, yLD, yStride := s.y, C, D
		if s.batch > 1 {
			qs, qLD, qStride = s.q, D, t*D
			ys, yLD, yStride = s.yh, D, t*D
		}
		for r0 := 0; r0 < t; r0 += blk {
			n, seen := min(blk, t-r0), pos0+min(t, r0+blk)
			if err := m.blas.Gemm(blas.GemmArgs{
				Type: dtype.Float32, TransB: blas.Trans, M: n, N: seen, K: D,
				Alpha: 1 / math.Sqrt(float64(D)),
				A:     qs.op(r0 * qLD), LDA: qLD, StrideA: qStride,
				B: s.kc[i].op(0), LDB: D, StrideB: s.room * D,
				C: s.att.op(r0 * L), LDC: L, StrideC: t * L,
				Batch: s.batch * H,
			}); err != nil {
				return err
			}
		}
		if err := kernels.LaunchSoftmax(k.softmax, q, ur.Range1D(uint64(s.batch*H*t*kernels.Group)).WithLocal(kernels.Group), gokernel.PtrSlice[float32](s.att.p, s.batch*H*t*L), t, L, blk); err != nil {
			return err
		}
		for r0 := 0; r0 < t; r0 += blk {
			n, seen := min(blk, t-r0), pos0+min(t, r0+blk)
			if err := m.blas.Gemm(blas.GemmArgs{
				Type: dtype.Float32, M: n, N: D, K: seen, Alpha: 1,
				A: s.att.op(r0 * L), LDA: L, StrideA: t * L,
				B: s.vc[i].op(0), LDB: D, StrideB: s.room * D,
				C: ys.op(r0 * yLD), LDC: yLD, StrideC: yStride,
				Batch: s.batch * H,
			}); err != nil {
				return err
			}
		}
		if s.batch > 1 {
			if err := kernels.LaunchMergeHeads(k.mergeHeads, q, ur.Range1D(uint64(rows*C)), s.yh.slice(), s.y.slice(), C, t, H); err != nil {
				return err
			}
		}
		if err := s.linear(s.y, l.projW, s.tmp, rows, C, C); err != nil {
			return err
		}
		if err := layerNorm(s.tmp, l.projB, l.ln2W, l.ln2B, true); err != nil {
			return err
		}
		// The MLP.
		if err := s.linear(s.ln, l.fcW, s.h, rows, 4*C, C); err != nil {
			return err
		}
		if err := kernels.LaunchBiasGELU(k.biasGELU, q, ur.Range1D(uint64(rows*4*C)), gokernel.PtrSlice[float32](s.h.p, rows*4*C), l.fcB.slice(), 4*C); err != nil {
			return err
		}
		if err := s.linear(s.h, l.fcProjW, s.tmp, rows, C, 4*C); err != nil {
			return err
		}
		nextW, nextB := m.lnfW, m.lnfB
		if i+1 < len(m.layers) {
			nextW, nextB = m.layers[i+1].ln1W, m.layers[i+1].ln1B
		}
		if err := layerNorm(s.tmp, l.fcProjB, nextW, nextB, true); err != nil {
			return err
		}
	}
	// The logits: the final layer norm's rows times the token embedding,
	// for every position or each sequence's last.
	a := blas.GemmArgs{
		TransB: blas.Trans, M: rows, N: c.Vocab, K: C, Alpha: 1,
		B: m.head.op(0), LDB: C, C: s.logits.op(0), LDC: c.Vocab,
	}
	first, lda := 0, C
	if !s.allLogits {
		a.M, first, lda = s.batch, (t-1)*C, t*C
	}
	if err := s.product(a, s.ln, first, lda); err != nil {
		return err
	}
	s.pos, s.rows = L, a.M
	return nil
}

// linear is out = x·w for x rows×k and the weights w k×n, row-major.
func (s *State) linear(x, w, out array, rows, n, k int) error {
	return s.product(blas.GemmArgs{M: rows, N: n, K: k, Alpha: 1, B: w.op(0), LDB: n, C: out.op(0), LDC: n}, x, 0, k)
}

// product enqueues a (its B the weights, its C float32 and packed) with
// the rows of x from element first, lda apart, as A: in float32, one
// GEMM; in half precision, A rounded into hx, the GEMM into hy, and hy
// widened into C.
func (s *State) product(a blas.GemmArgs, x array, first, lda int) error {
	m := s.m
	if m.prec == dtype.Float32 {
		a.Type, a.A, a.LDA = dtype.Float32, x.op(first), lda
		return m.blas.Gemm(a)
	}
	src := gokernel.PtrSlice[float32](x.p.Add(4*uint64(first)), x.n-first)
	in, out := a.M*a.K, a.M*a.N
	err := m.k.toHalf.Launch(m.q, ur.Range1D(uint64(in)), src.Arg(), m.halfArg(s.hx, in), gokernel.Value(a.K), gokernel.Value(lda))
	if err != nil {
		return err
	}
	dst := gokernel.PtrSlice[float32](a.C.Ptr(), out)
	a.Type, a.A, a.LDA, a.C = m.prec, s.hx.op(0), a.K, s.hy.op(0)
	if err := m.blas.Gemm(a); err != nil {
		return err
	}
	return m.k.fromHalf.Launch(m.q, ur.Range1D(uint64(out)), m.halfArg(s.hy, out), dst.Arg())
}

// halfArg is the first n halves of a as an argument of the precision's
// conversion kernels.
func (m *Model) halfArg(a array, n int) gokernel.Arg {
	if m.prec == dtype.Float16 {
		return gokernel.Ptr[kern.Float16](a.p, n)
	}
	return gokernel.Ptr[kern.BFloat16](a.p, n)
}

// Rows is the number of rows of logits the last Forward made: the
// batch, or batch×tokens with AllLogits.
func (s *State) Rows() int { return s.rows }

// ReadLogits waits for the last Forward and copies its logits (Rows()
// rows of Vocab, sequence after sequence) into dst, grown as needed.
func (s *State) ReadLogits(dst []float32) ([]float32, error) {
	if s.released {
		return nil, ErrClosed
	}
	n := s.rows * s.m.cfg.Vocab
	if cap(dst) < n {
		dst = make([]float32, n)
	}
	dst = dst[:n]
	if n == 0 {
		return dst, nil
	}
	return dst, s.m.q.CopyFromPtr(ur.AsBytes(dst), s.logits.p)
}
