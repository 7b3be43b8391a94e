package gonumblas

import (
	"context"
	"errors"
	"log/slog"
	"math"
	"sync"
	"sync/atomic"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"

	gourblas "github.com/gour-dev/gour/blas"
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
	Host      int64 // calls computed by gonum: below the thresholds, without work to offload, or of a type the device lacks
	Fallbacks int64 // device calls that failed and were computed by gonum instead
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
	h      *gourblas.Handle
	opts   Options
	log    *slog.Logger
	fp64   bool // the device computes in float64
	usm    bool // device scratch is device USM, else buffers
	pinned bool // host staging is page-locked host USM, else Go memory
	chunk  int  // bytes staged and copied at a time

	mu      sync.Mutex // serialises device calls, and guards the scratch
	dev     [slots]devSlot
	stage   [slots]hostSlot
	closed  bool
	warned  atomic.Bool
	counted [3]atomic.Int64 // Stats, in its order
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
func New(q *ur.Queue, opts Options) (*Implementation, error) {
	h, err := gourblas.New(q, opts.BLAS)
	if err != nil {
		return nil, err
	}
	info := q.Device().Info()
	impl := &Implementation{
		q:      q,
		h:      h,
		opts:   opts,
		log:    opts.Logger,
		fp64:   info.FP64,
		usm:    info.USM.Device,
		pinned: info.USM.Host && !info.HostUnifiedMemory,
		chunk:  chunk,
	}
	if impl.log == nil {
		impl.log = slog.Default()
	}
	return impl, nil
}

// Backend is the device BLAS backend the Implementation's device calls
// go through.
func (impl *Implementation) Backend() gourblas.Backend { return impl.h.Backend() }

// Stats returns the counts of the Implementation's calls so far.
func (impl *Implementation) Stats() Stats {
	return Stats{Device: impl.counted[0].Load(), Host: impl.counted[1].Load(), Fallbacks: impl.counted[2].Load()}
}

// Close waits for the Implementation's device work, frees its device and
// host scratch memory and closes its device BLAS handle. Calls after
// Close are computed by gonum on the host.
func (impl *Implementation) Close() error {
	impl.mu.Lock()
	defer impl.mu.Unlock()
	if impl.closed {
		return nil
	}
	impl.closed = true
	err := impl.q.Finish()
	return errors.Join(err, impl.freeScratch(), impl.h.Close())
}

// float is an element type of the real routines.
type float interface{ ~float32 | ~float64 }

func typeOf[T float]() gourblas.Type {
	var z T
	if any(z) == any(float32(0)) {
		return gourblas.Float32
	}
	return gourblas.Float64
}

// offload reports whether a call of the given size goes to the device
// under threshold, counting a call it keeps on the host.
func offload[T float](impl *Implementation, threshold, size int) bool {
	ok := threshold >= 0 && size >= threshold && (typeOf[T]() == gourblas.Float32 || impl.fp64)
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
