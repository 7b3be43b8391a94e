package gonumblas

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"sync"
	"sync/atomic"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"

	gourblas "github.com/gour-dev/gour/blas"
	"github.com/gour-dev/gour/dtype"
	"github.com/gour-dev/gour/ur"
)

// DefaultLevel3Threshold is DefaultOptions' Level3Threshold: a Level 3
// call goes to the device from 256×256×256 multiply-adds on. Below about
// that, a device call's fixed cost (its copies and kernel launches, some
// tens of microseconds on a GPU) and its transfers take longer than
// gonum's blocked, multi-core code takes for the whole product;
// BenchmarkDgemm's sizes show where a given machine's device overtakes
// its host.
const DefaultLevel3Threshold = 256 * 256 * 256

// Options configure an Implementation. The zero Options send every call
// with work to the device, as the tests do; DefaultOptions are for
// ordinary use.
type Options struct {
	// Level3Threshold: a Level 3 routine runs on the device when its
	// size — m·n·k for Dgemm, the number of multiply-adds of the
	// general matrix product it becomes for the others — is at least
	// Level3Threshold. 0 sends every call with work to the device (what
	// the tests do); a negative value keeps Level 3 on the host.
	Level3Threshold int
	// Level2Threshold: Dgemv and Sgemv run on the device when the matrix
	// has at least Level2Threshold elements (m·n). 0 sends every call
	// with work to the device; a negative value keeps Level 2 on the
	// host, as DefaultOptions does: a matrix-vector product reads each
	// element once, so copying the matrix to the device costs as much as
	// the host takes to compute the product.
	Level2Threshold int
	// BLAS configures the device BLAS the Implementation calls: the
	// backend (cuBLAS, CLBlast or gour's own kernels) and the program
	// manager for the own kernels.
	BLAS gourblas.Options
	// Logger receives the warning of a device call that failed and was
	// computed on the host instead; nil logs to slog.Default().
	Logger *slog.Logger
}

// DefaultOptions are the options for ordinary use: Level 3 from
// DefaultLevel3Threshold on, Level 2 on the host.
func DefaultOptions() Options {
	return Options{Level3Threshold: DefaultLevel3Threshold, Level2Threshold: -1}
}

// Stats counts an Implementation's calls of the routines it can offload.
type Stats struct {
	Device    int64 // calls computed on the device
	Host      int64 // calls computed by gonum: below the thresholds, without work to offload, of a type the device lacks, or made before the device was ready
	Fallbacks int64 // device calls that failed and were computed by gonum instead
	// Unready counts the calls of Host that would have gone to the
	// device had its set-up been done (or had it not failed).
	Unready int64
}

// Implementation is gonum's blas.Float64 and blas.Float32 (and, through
// the embedded native implementation, blas.Complex64 and
// blas.Complex128) with the Level 3 routines, and optionally Dgemv and
// Sgemv, on a gour device. Every other routine is the embedded
// gonum.Implementation's.
//
// Calls are synchronous, as gonum's interface wants: a call copies its
// operands to the device, computes, and returns once its result is in
// the caller's slices. An Implementation may be used by several
// goroutines at once; their device calls take turns on the queue.
type Implementation struct {
	// Implementation is gonum's native implementation, which computes
	// every call the device does not.
	gonum.Implementation

	q      *ur.Queue
	h      *gourblas.Handle // set by the set-up, before ready
	opts   Options
	log    *slog.Logger
	fp64   bool // the device computes in float64
	usm    bool // device scratch is device USM, else buffers
	pinned bool // host staging is page-locked host USM, else Go memory
	chunk  int  // bytes staged and copied at a time

	// ready is set once the device is set up (see New): until then every
	// call is gonum's. setupDone is closed when the set-up has ended, with
	// setupErr its failure.
	ready     atomic.Bool
	setupDone chan struct{}
	setupErr  error

	mu      sync.Mutex // serialises device calls, and guards the scratch
	dev     [slots]devSlot
	stage   [slots]hostSlot
	closed  bool
	warned  atomic.Bool
	counted [4]atomic.Int64 // Stats, in its order
}

// Scratch slots: the device (and host staging) memory of a call's first
// and second operand and of its output.
const (
	slotA = iota
	slotB
	slotC
	slots
)

var (
	_ blas.Float64    = (*Implementation)(nil)
	_ blas.Float32    = (*Implementation)(nil)
	_ blas.Complex128 = (*Implementation)(nil)
	_ blas.Complex64  = (*Implementation)(nil)
)

// New returns an Implementation computing on q's device. q must be in
// order (ur's default) and stays the caller's: it must outlive the
// Implementation, and the Implementation's device work is enqueued on it
// between the caller's own. A device without double precision computes
// the float64 routines on the host.
//
// New returns at once and sets the device up in the background: it
// opens the device BLAS (loading cuBLAS or CLBlast), builds or loads
// its kernels and runs a small product and solve of each type, so that
// libraries load their kernels. That takes from tens of milliseconds to
// seconds, longer than gonum takes for any product a program would make
// first; charged to the first offloaded call, it would make that call
// many times slower than gonum's. Until the set-up is done, every call
// is gonum's (Stats.Unready counts them), so no call waits for it.
// WaitReady waits for it, and says why it failed, if it did: the device
// BLAS's error, such as a backend named in Options.BLAS that cannot
// serve the device; the Implementation then computes everything on the
// host, after logging a warning.
func New(q *ur.Queue, opts Options) (*Implementation, error) {
	return newImpl(q, opts, nil)
}

// newImpl is New; the set-up waits for hold to be closed, when it is not
// nil (the tests' way to hold the device unready).
func newImpl(q *ur.Queue, opts Options, hold <-chan struct{}) (*Implementation, error) {
	if q == nil {
		return nil, &gourblas.ArgError{Op: "gonumblas.New", Arg: "q", Problem: "nil queue", Code: ur.ErrInvalidNullHandle}
	}
	info := q.Device().Info()
	impl := &Implementation{
		q:         q,
		opts:      opts,
		log:       opts.Logger,
		fp64:      info.FP64,
		usm:       info.USM.Device,
		pinned:    info.USM.Host && !info.HostUnifiedMemory,
		chunk:     chunk,
		setupDone: make(chan struct{}),
	}
	if impl.log == nil {
		impl.log = slog.Default()
	}
	go impl.setUp(hold)
	return impl, nil
}

// setUp opens the device BLAS and warms it up, then marks the
// Implementation ready; on failure it logs a warning and leaves every
// call to gonum.
func (impl *Implementation) setUp(hold <-chan struct{}) {
	defer close(impl.setupDone)
	if hold != nil {
		<-hold
	}
	h, err := gourblas.New(impl.q, impl.opts.BLAS)
	if err == nil {
		impl.mu.Lock()
		impl.h = h
		err = impl.warmUp()
		impl.mu.Unlock()
	}
	if err != nil {
		impl.setupErr = fmt.Errorf("gonumblas: setting up %s: %w", impl.q.Device().Name(), err)
		impl.log.Warn("gonumblas: the device could not be set up: every call is computed by gonum on the host", "device", impl.q.Device().Name(), "err", err)
		return
	}
	impl.ready.Store(true)
}

// warmUp runs a small product and solve of each type the device
// computes, through the whole path of a call (scratch and staging
// memory, copies, the device BLAS): the device BLAS builds or loads its
// kernels for them now rather than in a caller's call. The caller holds
// mu.
func (impl *Implementation) warmUp() error {
	if err := warmUpType[float32](impl); err != nil {
		return err
	}
	if impl.fp64 {
		return warmUpType[float64](impl)
	}
	return nil
}

func warmUpType[T float](impl *Implementation) error {
	const n = 4
	a, b := make([]T, n*n), make([]T, n*n)
	for i := range n {
		a[i*n+i] = 1 // an identity to solve with
	}
	j := &job[T]{
		out: output[T]{data: b, rows: n, cols: n, ld: n},
		steps: []step{
			{tA: blas.NoTrans, tB: blas.NoTrans, m: n, n: n, k: n, alpha: 1, beta: 1, a: slotA, b: slotB},
			{solve: true, side: blas.Left, uplo: blas.Lower, diag: blas.NonUnit, tA: blas.NoTrans, m: n, n: n, alpha: 1, a: slotA},
		},
	}
	j.in[slotA] = matrix(a, n, n, n)
	j.in[slotB] = matrix(b, n, n, n)
	j.in[slotC] = matrix(b, n, n, n)
	return execute(impl, j)
}

// WaitReady waits until the device is set up (see New) or ctx is done,
// and returns the set-up's error, if it failed, or ctx's.
func (impl *Implementation) WaitReady(ctx context.Context) error {
	select {
	case <-impl.setupDone:
		return impl.setupErr
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Ready reports whether the device is set up: calls from now on may go
// to it.
func (impl *Implementation) Ready() bool { return impl.ready.Load() }

// Backend is the device BLAS backend the Implementation's device calls
// go through; "" until the device is ready.
func (impl *Implementation) Backend() gourblas.Backend {
	if !impl.ready.Load() {
		return ""
	}
	return impl.h.Backend()
}

// Stats returns the counts of the Implementation's calls so far.
func (impl *Implementation) Stats() Stats {
	return Stats{Device: impl.counted[0].Load(), Host: impl.counted[1].Load(), Fallbacks: impl.counted[2].Load(), Unready: impl.counted[3].Load()}
}

// Close waits for the device's set-up to end, then for the
// Implementation's device work, frees its device and host scratch memory
// and closes its device BLAS handle. Calls after Close are computed by
// gonum on the host.
func (impl *Implementation) Close() error {
	<-impl.setupDone
	impl.mu.Lock()
	defer impl.mu.Unlock()
	if impl.closed {
		return nil
	}
	impl.closed = true
	if impl.h == nil {
		return nil // the set-up failed before the device was used
	}
	err := impl.q.Finish()
	return errors.Join(err, impl.freeScratch(), impl.h.Close())
}

// float is an element type of the real routines.
type float interface{ ~float32 | ~float64 }

func typeOf[T float]() dtype.Type {
	var z T
	if any(z) == any(float32(0)) {
		return dtype.Float32
	}
	return dtype.Float64
}

// offload reports whether a call of the given size goes to the device
// under threshold, counting a call it keeps on the host.
func offload[T float](impl *Implementation, threshold, size int) bool {
	ok := threshold >= 0 && size >= threshold && (typeOf[T]() == dtype.Float32 || impl.fp64)
	if ok && !impl.ready.Load() {
		impl.counted[3].Add(1)
		ok = false
	}
	if !ok {
		impl.counted[1].Add(1)
	}
	return ok
}

// onHost counts a call computed on the host after all.
func (impl *Implementation) onHost() { impl.counted[1].Add(1) }

// tooLarge reports whether a dimension exceeds what the device
// libraries take (32-bit ints): such a call stays on the host.
func tooLarge(dims ...int) bool {
	for _, d := range dims {
		if d > math.MaxInt32 {
			return true
		}
	}
	return false
}

// failed records a device call that returned err: the caller computes it
// on the host. The first failure of an Implementation is logged as a
// warning, later ones at debug level; Stats counts them all.
func (impl *Implementation) failed(routine string, err error) {
	impl.counted[2].Add(1)
	level := slog.LevelDebug
	if impl.warned.CompareAndSwap(false, true) {
		level = slog.LevelWarn
	}
	impl.log.Log(context.Background(), level, "gonumblas: device call failed, computed by gonum on the host instead (later failures are logged at debug level)",
		"routine", routine, "device", impl.q.Device().Name(), "backend", string(impl.h.Backend()), "err", err)
}
