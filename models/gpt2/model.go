package gpt2

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/gour-dev/gour/blas"
	"github.com/gour-dev/gour/dtype"
	"github.com/gour-dev/gour/gokernel"
	"github.com/gour-dev/gour/models/gpt2/internal/kernels"
	"github.com/gour-dev/gour/programmgr"
	"github.com/gour-dev/gour/ur"
)

// Options configure a Model.
type Options struct {
	// Programs builds and caches the model's kernels (and blas's own
	// where it falls back to them). nil: the Model makes a manager of its
	// own from the environment, with the process's persistent cache.
	Programs *programmgr.Manager
	// BLAS picks blas's backend; "" takes the device's vendor library
	// where it loads (cuBLAS, CLBlast), gour's own kernels elsewhere.
	BLAS blas.Backend
	// Precision is the matrix products' element type: dtype.Float32
	// (also the zero value), dtype.Float16 or dtype.BFloat16. In half
	// precision the linear layers' weights and the output projection are
	// kept in it, each product's input is rounded to it and its output
	// widened back (the products accumulate in float32); the embeddings,
	// layer norms, attention, GELU, residual stream and caches stay
	// float32.
	Precision dtype.Type
	// CausalBlock is the number of query rows of one block of a
	// prompt's attention: a block's scores are computed against the
	// positions up to its last row only, so that most of the masked
	// half of the scores is never computed, written or read. 0 takes
	// DefaultCausalBlock; a block as long as the prompt computes every
	// score of it.
	CausalBlock int
}

// DefaultCausalBlock is Options.CausalBlock's default.
const DefaultCausalBlock = 512

// Model is a GPT-2 whose weights are in one device's memory, ready to
// run States on one queue. Its methods and its States' must not be
// called from several goroutines at once.
type Model struct {
	cfg    Config
	q      *ur.Queue
	blas   *blas.Handle
	mgr    *programmgr.Manager
	ownMgr bool
	k      kernelSet
	prec   dtype.Type // the products' element type
	block  int        // Options.CausalBlock
	mem    *ur.USM    // every float32 weight, one allocation
	half   *ur.USM    // the half-precision weights; nil in float32
	wte    array
	head   array // the output projection: wte, or its half-precision copy
	wpe    array
	lnfW   array
	lnfB   array
	layers []deviceLayer

	mu     sync.Mutex
	states map[*State]struct{}
	closed bool
}

// deviceLayer is a Layer's weights in device memory.
type deviceLayer struct {
	ln1W, ln1B, attnW, attnB, projW, projB array
	ln2W, ln2B, fcW, fcB, fcProjW, fcProjB array
}

// kernelSet is the model's Go kernels, built for its device.
type kernelSet struct {
	embed, layerNorm, biasGELU, splitQKV, softmax, mergeHeads *gokernel.Kernel
	// toHalf and fromHalf round a product's input to the half precision
	// and widen its output (ToF16/FromF16 or ToBF16/FromBF16); nil in
	// float32.
	toHalf, fromHalf *gokernel.Kernel
	built            []*gokernel.Kernel // every kernel above that was built, for Close
}

// array is n elements in device memory: float32s, or 2-byte halves
// where half is set.
type array struct {
	p    ur.Ptr
	n    int
	half bool
}

func (a array) slice() gokernel.Slice[float32] { return gokernel.PtrSlice[float32](a.p, a.n) }

// size is an element's size in bytes.
func (a array) size() uint64 {
	if a.half {
		return 2
	}
	return 4
}

// op is the blas operand starting at element i.
func (a array) op(i int) blas.Operand { return blas.OnPtr(a.p.Add(a.size() * uint64(i))) }

// New puts w on q's device and readies the kernels, which it builds
// through o.Programs (or a manager of its own).
func New(q *ur.Queue, w *Weights, o Options) (m *Model, err error) {
	if q == nil || w == nil {
		return nil, errors.New("gpt2: New needs a queue and weights")
	}
	if err := w.Config.Check(); err != nil {
		return nil, err
	}
	switch o.Precision {
	case 0:
		o.Precision = dtype.Float32
	case dtype.Float32, dtype.Float16, dtype.BFloat16:
	default:
		return nil, fmt.Errorf("%w: precision %v: want float32, float16 or bfloat16", ErrConfig, o.Precision)
	}
	if o.CausalBlock < 0 {
		return nil, fmt.Errorf("%w: causal block %d < 0", ErrConfig, o.CausalBlock)
	}
	if o.CausalBlock == 0 {
		o.CausalBlock = DefaultCausalBlock
	}
	m = &Model{cfg: w.Config, q: q, mgr: o.Programs, prec: o.Precision, block: o.CausalBlock, states: map[*State]struct{}{}}
	defer func() {
		if err != nil {
			m.Close()
			m = nil
		}
	}()
	if m.mgr == nil {
		if m.mgr, err = programmgr.New(q.Context(), programmgr.Options{}); err != nil {
			return nil, err
		}
		m.ownMgr = true
	}
	if m.blas, err = blas.New(q, blas.Options{Backend: o.BLAS, Programs: m.mgr}); err != nil {
		return nil, err
	}
	if err := m.buildKernels(); err != nil {
		return nil, err
	}
	return m, m.upload(w)
}

// buildKernels gets every kernel of the model for its device.
func (m *Model) buildKernels() error {
	type kernelRef struct {
		name string
		dst  **gokernel.Kernel
	}
	ks := []kernelRef{
		{"Embed", &m.k.embed}, {"LayerNorm", &m.k.layerNorm}, {"BiasGELU", &m.k.biasGELU},
		{"SplitQKV", &m.k.splitQKV}, {"Softmax", &m.k.softmax}, {"MergeHeads", &m.k.mergeHeads},
	}
	switch m.prec {
	case dtype.Float16:
		ks = append(ks, kernelRef{"ToF16", &m.k.toHalf}, kernelRef{"FromF16", &m.k.fromHalf})
	case dtype.BFloat16:
		ks = append(ks, kernelRef{"ToBF16", &m.k.toHalf}, kernelRef{"FromBF16", &m.k.fromHalf})
	}
	// Each kernel is its own program: built at once, a cold start waits
	// for the slowest compile rather than for all of them in turn.
	errs := make([]error, len(ks))
	var wg sync.WaitGroup
	for i, k := range ks {
		wg.Go(func() {
			if *k.dst, errs[i] = kernels.Module.Kernel(context.Background(), m.mgr, m.q.Device(), k.name); errs[i] != nil {
				errs[i] = fmt.Errorf("gpt2: kernel %s: %w", k.name, errs[i])
			}
		})
	}
	wg.Wait()
	for _, k := range ks {
		if *k.dst != nil {
			m.k.built = append(m.k.built, *k.dst)
		}
	}
	return errors.Join(errs...)
}

// upload copies the weights into device memory: the float32 ones into
// one allocation, and in half precision the linear layers' weights and
// a copy of the token embedding (the output projection), rounded on the
// host, into another.
func (m *Model) upload(w *Weights) error {
	if len(w.Layers) != w.Config.Layers {
		return fmt.Errorf("%w: %d layers of weights for a configuration of %d", ErrWeights, len(w.Layers), w.Config.Layers)
	}
	ts := w.tensors()
	m.layers = make([]deviceLayer, len(w.Layers))
	as := m.arrays()
	halves := map[*array]bool{}
	if m.prec != dtype.Float32 {
		for i := range m.layers {
			d := &m.layers[i]
			for _, a := range []*array{&d.attnW, &d.projW, &d.fcW, &d.fcProjW} {
				halves[a] = true
			}
		}
	}
	var n32, n16 int
	for i, t := range ts {
		if len(*t.data) != count(t.shape) {
			return fmt.Errorf("%w: %s has %d elements, want %v", ErrWeights, t.name, len(*t.data), t.shape)
		}
		if halves[as[i]] {
			n16 += len(*t.data)
		} else {
			n32 += len(*t.data)
		}
	}
	var err error
	if m.mem, err = m.q.Context().AllocDevice(m.q.Device(), 4*uint64(n32)); err != nil {
		return fmt.Errorf("gpt2: weights: %w", err)
	}
	if m.prec != dtype.Float32 {
		n16 += len(w.WTE)
		if m.half, err = m.q.Context().AllocDevice(m.q.Device(), 2*uint64(n16)); err != nil {
			return fmt.Errorf("gpt2: weights: %w", err)
		}
	}
	var off32, off16 uint64
	put := func(a *array, data []float32, half bool) error {
		if !half {
			*a = array{p: m.mem.Ptr().Add(off32), n: len(data)}
			off32 += 4 * uint64(len(data))
			return m.q.CopyToPtr(a.p, ur.AsBytes(data))
		}
		*a = array{p: m.half.Ptr().Add(off16), n: len(data), half: true}
		off16 += 2 * uint64(len(data))
		return m.q.CopyToPtr(a.p, halfBytes(data, m.prec))
	}
	for i, a := range as {
		if err := put(a, *ts[i].data, halves[a]); err != nil {
			return fmt.Errorf("gpt2: weights: %s: %w", ts[i].name, err)
		}
	}
	if m.prec == dtype.Float32 {
		m.head = m.wte
		return nil
	}
	return put(&m.head, w.WTE, true)
}

// halfBytes is data rounded to t (float16 or bfloat16).
func halfBytes(data []float32, t dtype.Type) []byte {
	round := dtype.Float16Bits
	if t == dtype.BFloat16 {
		round = dtype.BFloat16Bits
	}
	h := make([]uint16, len(data))
	for i, v := range data {
		h[i] = round(v)
	}
	return ur.AsBytes(h)
}

// arrays lists the model's device arrays in the order of
// Weights.tensors.
func (m *Model) arrays() []*array {
	as := []*array{&m.wte, &m.wpe}
	for i := range m.layers {
		d := &m.layers[i]
		as = append(as, &d.ln1W, &d.ln1B, &d.attnW, &d.attnB, &d.projW, &d.projB,
			&d.ln2W, &d.ln2B, &d.fcW, &d.fcB, &d.fcProjW, &d.fcProjB)
	}
	return append(as, &m.lnfW, &m.lnfB)
}

// Config is the model's configuration.
func (m *Model) Config() Config { return m.cfg }

// Queue is the queue the model runs on.
func (m *Model) Queue() *ur.Queue { return m.q }

// Precision is the element type of the model's matrix products.
func (m *Model) Precision() dtype.Type { return m.prec }

// BLAS is the blas backend the model's matrix products run on.
func (m *Model) BLAS() blas.Backend { return m.blas.Backend() }

// Close releases the model's States, its weights, kernels and blas
// handle (and the program manager it made). It waits for the queue.
func (m *Model) Close() error {
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return nil
	}
	m.closed = true
	states := m.states
	m.states = nil
	m.mu.Unlock()
	errs := []error{m.q.Finish()}
	for s := range states {
		errs = append(errs, s.free())
	}
	for _, k := range m.k.built {
		errs = append(errs, k.Release())
	}
	if m.blas != nil {
		errs = append(errs, m.blas.Close())
	}
	for _, u := range []*ur.USM{m.mem, m.half} {
		if u != nil {
			errs = append(errs, u.Free())
		}
	}
	if m.ownMgr {
		errs = append(errs, m.mgr.Close())
	}
	return errors.Join(errs...)
}
