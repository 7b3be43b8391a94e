package blas

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/gour-dev/gour/dtype"
	"github.com/gour-dev/gour/programmgr"
	"github.com/gour-dev/gour/trace"
	"github.com/gour-dev/gour/ur"
)

// Options configure a Handle.
type Options struct {
	// Backend picks the implementation. "" takes the vendor library of
	// the queue's device where it loads (cuBLAS on CUDA, CLBlast on
	// OpenCL) and the own kernels elsewhere; a name asks for that backend
	// and fails with a *LibraryError where it cannot serve the device.
	Backend Backend
	// Programs builds and caches the own kernels. nil: the Handle makes
	// a manager of its own from the environment (with the process's
	// persistent cache) when it first needs a kernel, and closes it with
	// the Handle.
	Programs *programmgr.Manager
}

// Handle runs the routines on one queue. Every call enqueues in the
// queue's order and returns without waiting for the device: the caller
// waits with Queue.Finish, an event or a marker, or simply enqueues what
// comes next on the same queue. The queue must be in order (ur's default).
// A call refused with an error has enqueued nothing and written nothing.
//
// A Handle may be used by several goroutines at once; their calls reach
// the queue in the order they enqueue.
type Handle struct {
	q       *ur.Queue
	ctx     *ur.Context
	dev     *ur.Device
	adapter string // the device's ur backend: "opencl", "cuda", "level_zero"
	fp64    bool
	fp16    bool
	backend Backend
	eng     engine

	// own runs the calls eng leaves to the own kernels (errFallback),
	// and everything when the backend is BackendGour; made on first use.
	ownOnce sync.Once
	own     *ownEngine
	ownErr  error

	mgrMu  sync.Mutex
	mgr    *programmgr.Manager
	ownMgr bool

	fallbacks atomic.Int64
	closed    atomic.Bool
}

// New returns a Handle on q; q stays the caller's and must outlive it.
func New(q *ur.Queue, o Options) (*Handle, error) {
	const op = "blas.New"
	if q == nil {
		return nil, argError(op, "q", ur.ErrInvalidNullHandle, "nil queue")
	}
	// Flush is the lightest call that enters the queue, so it refuses a
	// released one (a native handle of 0 is CUDA's NULL stream, a valid
	// queue).
	if err := q.Flush(); err != nil {
		e := argError(op, "q", ur.ResultOf(err), "%v", err)
		e.Err = err
		return nil, e
	}
	dev, ctx := q.Device(), q.Context()
	if o.Programs != nil && o.Programs.Context() != ctx {
		return nil, argError(op, "Options.Programs", ur.ErrInvalidContext, "the manager serves another context than the queue's")
	}
	info := dev.Info()
	h := &Handle{q: q, ctx: ctx, dev: dev, adapter: dev.Backend(), fp64: info.FP64, fp16: info.FP16, mgr: o.Programs}
	name, b, err := h.pick(o.Backend)
	if err != nil {
		return nil, err
	}
	if name == BackendGour {
		h.backend = BackendGour
		return h, nil
	}
	eng, err := b.open(h)
	if err != nil {
		if o.Backend == "" && errors.Is(err, ErrLibraryUnavailable) {
			h.backend = BackendGour // the vendor library is missing: own kernels
			return h, nil
		}
		return nil, err
	}
	h.backend, h.eng = name, eng
	return h, nil
}

// pick resolves the backend asked for.
func (h *Handle) pick(want Backend) (Backend, backendInfo, error) {
	const op = "blas.New"
	switch want {
	case "":
		if name, b, ok := vendorBackend(h.adapter); ok {
			return name, b, nil
		}
		return BackendGour, backendInfo{}, nil
	case BackendGour:
		return BackendGour, backendInfo{}, nil
	}
	b, ok := lookupBackend(want)
	if !ok {
		return "", backendInfo{}, argError(op, "Options.Backend", ur.ErrInvalidValue, "unknown backend %q: want %q, %q or %q", want, BackendCUBLAS, BackendCLBlast, BackendGour)
	}
	if b.adapter != h.adapter {
		return "", backendInfo{}, &LibraryError{Backend: want, Reason: fmt.Sprintf("it serves %s devices, and %s is a %s device", b.adapter, h.dev.Name(), h.adapter)}
	}
	return want, b, nil
}

// Backend is the backend serving the Handle's calls. Calls the vendor
// library cannot serve (see the backends' notes in the package
// documentation) run on the own kernels.
func (h *Handle) Backend() Backend {
	if h == nil {
		return ""
	}
	return h.backend
}

// Fallbacks is how many calls the vendor library left to the own
// kernels (see the backends in the package documentation).
func (h *Handle) Fallbacks() int64 {
	if h == nil {
		return 0
	}
	return h.fallbacks.Load()
}

// Queue is the queue the Handle enqueues on.
func (h *Handle) Queue() *ur.Queue {
	if h == nil {
		return nil
	}
	return h.q
}

// Close releases the Handle's library state, kernels and, if it made
// one, its program manager. Work already enqueued still runs; on cuBLAS,
// Close waits for the queue's work, then keeps the cuBLAS handle for the
// next Handle in the same CUDA context (destroying one would wait for
// the whole device). A second Close gives ErrClosed.
func (h *Handle) Close() error {
	if h == nil || !h.closed.CompareAndSwap(false, true) {
		return ErrClosed
	}
	var errs []error
	if h.eng != nil {
		errs = append(errs, h.eng.close())
	}
	h.ownOnce.Do(func() {}) // no own engine after Close
	if h.own != nil {
		errs = append(errs, h.own.close())
	}
	h.mgrMu.Lock()
	if h.ownMgr && h.mgr != nil {
		errs = append(errs, h.mgr.Close())
	}
	h.mgr = nil
	h.mgrMu.Unlock()
	return errors.Join(errs...)
}

// Programs returns the program manager the own kernels are built with,
// making the Handle's own on first use.
func (h *Handle) programs() (*programmgr.Manager, error) {
	h.mgrMu.Lock()
	defer h.mgrMu.Unlock()
	if h.closed.Load() {
		return nil, ErrClosed
	}
	if h.mgr == nil {
		m, err := programmgr.New(h.ctx, programmgr.Options{})
		if err != nil {
			return nil, err
		}
		h.mgr, h.ownMgr = m, true
	}
	return h.mgr, nil
}

// ownEngine returns the own kernels' engine, made on first use.
func (h *Handle) ownEngine() (*ownEngine, error) {
	h.ownOnce.Do(func() {
		h.own, h.ownErr = newOwnEngine(h)
	})
	if h.own == nil && h.ownErr == nil {
		return nil, ErrClosed
	}
	return h.own, h.ownErr
}

// callShape is what a trace records of a call: its type and sizes (0
// where the call has none).
type callShape struct {
	t              dtype.Type
	m, n, k, batch int
}

// run makes call on the vendor library's engine, and on the own kernels
// where the library leaves it to them (errFallback). While a trace
// records (trace.Active), the call is a span of category "blas" named op,
// with the backend that served it and shape.
func (h *Handle) run(op string, shape callShape, call func(engine) error) error {
	if h.closed.Load() {
		return ErrClosed
	}
	r := trace.Active()
	if r == nil {
		_, err := h.dispatch(call)
		return err
	}
	start := r.Now()
	served, err := h.dispatch(call)
	var a trace.Args
	a.Str("backend", string(served))
	a.Str("type", shape.t.String())
	for _, d := range []struct {
		k string
		v int
	}{{"m", shape.m}, {"n", shape.n}, {"k", shape.k}, {"batch", shape.batch}} {
		if d.v != 0 {
			a.Uint(d.k, uint64(d.v))
		}
	}
	if err != nil {
		a.Str("error", err.Error())
	}
	r.Complete("blas", op, start, r.Now(), &a)
	return err
}

// dispatch makes call and says which backend served it.
func (h *Handle) dispatch(call func(engine) error) (Backend, error) {
	if h.eng != nil {
		if err := call(h.eng); !errors.Is(err, errFallback) {
			return h.backend, err
		}
		h.fallbacks.Add(1)
	}
	own, err := h.ownEngine()
	if err != nil {
		return BackendGour, err
	}
	return BackendGour, call(own)
}
