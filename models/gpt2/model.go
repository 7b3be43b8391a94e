package gpt2

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"unsafe"

	"github.com/gour-dev/gour/blas"
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
}

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
	mem    *ur.USM // every weight, one allocation
	wte    array
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
	embed, layerNorm, biasGELU, splitQKV, softmax *gokernel.Kernel
}

// array is n float32s in device memory.
type array struct {
	p ur.Ptr
	n int
}

func (a array) slice() gokernel.Slice[float32] { return gokernel.PtrSlice[float32](a.p, a.n) }

// op is the blas operand starting at element i.
func (a array) op(i int) blas.Operand { return blas.OnPtr(a.p.Add(4 * uint64(i))) }

// New puts w on q's device and readies the kernels, which it builds
// through o.Programs (or a manager of its own).
func New(q *ur.Queue, w *Weights, o Options) (m *Model, err error) {
	if q == nil || w == nil {
		return nil, errors.New("gpt2: New needs a queue and weights")
	}
	if err := w.Config.Check(); err != nil {
		return nil, err
	}
	m = &Model{cfg: w.Config, q: q, mgr: o.Programs, states: map[*State]struct{}{}}
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
	dev := m.q.Device()
	for _, k := range []struct {
		name string
		dst  **gokernel.Kernel
	}{
		{"Embed", &m.k.embed}, {"LayerNorm", &m.k.layerNorm}, {"BiasGELU", &m.k.biasGELU},
		{"SplitQKV", &m.k.splitQKV}, {"Softmax", &m.k.softmax},
	} {
		var err error
		if *k.dst, err = kernels.Module.Kernel(context.Background(), m.mgr, dev, k.name); err != nil {
			return fmt.Errorf("gpt2: kernel %s: %w", k.name, err)
		}
	}
	return nil
}

// upload copies every weight into one device allocation.
func (m *Model) upload(w *Weights) error {
	if len(w.Layers) != w.Config.Layers {
		return fmt.Errorf("%w: %d layers of weights for a configuration of %d", ErrWeights, len(w.Layers), w.Config.Layers)
	}
	ts := w.tensors()
	total := 0
	for _, t := range ts {
		if len(*t.data) != count(t.shape) {
			return fmt.Errorf("%w: %s has %d elements, want %v", ErrWeights, t.name, len(*t.data), t.shape)
		}
		total += len(*t.data)
	}
	var err error
	if m.mem, err = m.q.Context().AllocDevice(m.q.Device(), 4*uint64(total)); err != nil {
		return fmt.Errorf("gpt2: weights: %w", err)
	}
	m.layers = make([]deviceLayer, len(w.Layers))
	off := 0
	for i, a := range m.arrays() {
		t := ts[i]
		*a = array{m.mem.Ptr().Add(4 * uint64(off)), len(*t.data)}
		if err := m.q.CopyToPtr(a.p, bytesOf(*t.data)); err != nil {
			return fmt.Errorf("gpt2: weights: %s: %w", t.name, err)
		}
		off += len(*t.data)
	}
	return nil
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

// bytesOf is s's memory as bytes.
func bytesOf[T int32 | float32](s []T) []byte {
	if len(s) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(&s[0])), len(s)*4)
}

// Config is the model's configuration.
func (m *Model) Config() Config { return m.cfg }

// Queue is the queue the model runs on.
func (m *Model) Queue() *ur.Queue { return m.q }

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
	for _, k := range []*gokernel.Kernel{m.k.embed, m.k.layerNorm, m.k.biasGELU, m.k.splitQKV, m.k.softmax} {
		if k != nil {
			errs = append(errs, k.Release())
		}
	}
	if m.blas != nil {
		errs = append(errs, m.blas.Close())
	}
	if m.mem != nil {
		errs = append(errs, m.mem.Free())
	}
	if m.ownMgr {
		errs = append(errs, m.mgr.Close())
	}
	return errors.Join(errs...)
}
