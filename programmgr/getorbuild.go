package programmgr

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"

	"github.com/gour-dev/gour/ur"
)

// cellState is where a cache entry's build stands.
type cellState uint8

const (
	cellEmpty    cellState = iota // not built: the next caller builds
	cellBuilding                  // a caller is building; others wait on the flight
	cellDone                      // built: val is cached and holds the cache's reference
	cellFailed                    // the build failed with a driver error, remembered in err
)

// counted is what a cell holds: a reference-counted Program or Kernel.
type counted interface {
	*Program | *Kernel
}

// cell is one cache entry. Its fields are guarded by Manager.mu.
type cell[T counted] struct {
	state cellState
	fl    *flight[T] // the build in progress
	val   T          // cellDone
	err   error      // cellFailed
	// wave is the round of attempts in progress: set from the first
	// build until a build succeeds or fails for good, or until every
	// caller taking part has returned.
	wave *wave
}

// wave is one round of attempts at building a cell. The callers taking
// part share its budget of maxAttempts builds, so that when builds fail
// with non-driver errors (a panic, a cancelled context) one waiter retries
// and the others wait for that retry instead of each starting its own.
type wave struct {
	attempts int   // builds started
	members  int   // callers taking part and not yet returned
	lastErr  error // the error of the last failed build
}

// outcome classifies how a build ended.
type outcome uint8

const (
	outOK     outcome = iota // built
	outCached                // a driver error: remembered; everyone asking gets it
	outFinal                 // an error for this round's callers only (out of memory after the retries)
	outRetry                 // not a driver error (a panic, a cancelled context): a waiter builds again
)

// flight is one build of a cell: the builder fills it in and closes done;
// waiters read it after done is closed.
type flight[T counted] struct {
	done    chan struct{}
	waiters int // guarded by Manager.mu; each gets a reference on success
	val     T
	err     error
	out     outcome
}

// maxAttempts bounds the builds of one wave.
const maxAttempts = 2

// buildOps are the parts of getOrBuild that depend on the kind of entry.
// lookup, accept, insert, fetch and forgetEmpty run with Manager.mu held;
// build runs without it.
type buildOps[T counted] struct {
	// lookup finds or creates the entry's cell.
	lookup func() (*cell[T], error)
	// build builds the object. Its references are set by getOrBuild.
	build func(context.Context) (T, error)
	// accept reports whether a built object may be cached (its entry is
	// still in the cache and the manager is open).
	accept func() bool
	// insert runs after a built object was cached.
	insert func(T)
	// fetch runs when a caller finds the object built.
	fetch func(T)
	// setRefs sets a new object's reference count.
	setRefs func(T, int64)
	// addRef takes one more reference to a cached object.
	addRef func(T)
	// release gives one reference back.
	release func(T) error
	// forgetEmpty removes an entry left empty by failed builds once
	// nobody waits for it, so that failing keys do not pile up.
	forgetEmpty func(*cell[T])
}

// getOrBuild returns the cell's object with one reference for the caller,
// building it if nobody has: the first caller of a key builds, the others
// wait for that build (or for their context) and share its result, the
// object or the very same error. A build that fails with something other
// than a driver error puts the entry back to empty and one waiter builds
// again; the others wait for that build; after maxAttempts builds in all,
// everyone waiting gets the last error. No lock is held while building,
// so builds of different keys run in parallel.
func getOrBuild[T counted](ctx context.Context, m *Manager, r *request, ops *buildOps[T]) (T, error) {
	var (
		zero T
		w    *wave // the wave this caller takes part in
		c    *cell[T]
	)
	// join makes the caller a member of c's wave, starting one if needed.
	join := func() {
		if w != nil && w != c.wave {
			w = nil // that wave ended; this is another one
		}
		if w == nil {
			if c.wave == nil {
				c.wave = &wave{}
			}
			w = c.wave
			w.members++
		}
	}
	// leave ends the caller's part in its wave; the last member out of a
	// wave that left the cell empty forgets the entry.
	leave := func() {
		if w == nil || w != c.wave {
			return
		}
		w.members--
		if w.members == 0 && c.state == cellEmpty {
			c.wave = nil
			ops.forgetEmpty(c)
		}
		w = nil
	}
	m.mu.Lock()
	for {
		var err error
		if c, err = ops.lookup(); err != nil {
			m.unlock()
			return zero, err
		}
		switch c.state {
		case cellDone:
			leave()
			v := c.val
			ops.addRef(v)
			ops.fetch(v)
			m.unlock()
			return v, nil

		case cellFailed:
			leave()
			err := c.err
			m.unlock()
			return zero, err

		case cellBuilding:
			r.missed = true
			join()
			fl := c.fl
			fl.waiters++
			m.unlock()
			select {
			case <-fl.done:
			case <-ctx.Done():
				m.mu.Lock()
				select {
				case <-fl.done:
					// The build ended as we gave up: it counted us in.
					if fl.out == outOK {
						defer ops.release(fl.val)
					}
				default:
					fl.waiters--
				}
				leave()
				m.unlock()
				return zero, fmt.Errorf("programmgr: waiting for a build: %w", context.Cause(ctx))
			}
			if fl.out != outRetry {
				// The build ended the wave; its result is ours.
				return fl.val, fl.err
			}
			m.mu.Lock()

		case cellEmpty:
			r.missed = true
			join()
			if w.attempts >= maxAttempts {
				err := w.lastErr
				leave()
				m.unlock()
				return zero, err
			}
			w.attempts++
			fl := &flight[T]{done: make(chan struct{})}
			c.state, c.fl = cellBuilding, fl
			m.unlock()
			v, out, err := runBuild(ctx, ops.build)
			m.mu.Lock()
			c.fl = nil
			fl.val, fl.err, fl.out = v, err, out
			switch out {
			case outOK:
				c.wave = nil
				refs := int64(1 + fl.waiters)
				if ops.accept() {
					ops.setRefs(v, refs+1)
					c.state, c.val = cellDone, v
					ops.insert(v)
				} else {
					ops.setRefs(v, refs)
					c.state = cellEmpty
					ops.forgetEmpty(c)
				}
			case outCached:
				c.wave = nil
				c.state, c.err = cellFailed, err
			case outFinal:
				// Out of memory after the retries: the error is for this
				// build's callers; the next caller starts afresh.
				c.wave = nil
				c.state = cellEmpty
				ops.forgetEmpty(c)
			case outRetry:
				c.state = cellEmpty
				w.lastErr = err
				leave()
			}
			if out != outOK {
				m.stats.failures.Add(1)
			}
			close(fl.done)
			m.unlock()
			return v, err
		}
	}
}

// runBuild runs build, turning a panic into an error, and classifies the
// result.
func runBuild[T counted](ctx context.Context, build func(context.Context) (T, error)) (v T, out outcome, err error) {
	defer func() {
		if p := recover(); p != nil {
			var zero T
			v, out, err = zero, outRetry, &panicError{value: p, stack: debug.Stack()}
		}
	}()
	v, err = build(ctx)
	if err == nil {
		return v, outOK, nil
	}
	return v, classify(err), err
}

// classify sorts a build error: a driver error is remembered, except out
// of memory (already retried, and memory may come back) and a lost device
// (which says nothing of the program); anything else lets a waiter try
// again.
func classify(err error) outcome {
	var ue *ur.Error
	switch {
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return outRetry
	case isOutOfMemory(err), errors.Is(err, ur.ErrDeviceLost):
		// A lost context is not remembered as a failure of the
		// program either: nothing of it is kept (Manager.usable).
		return outFinal
	case errors.As(err, &ue):
		return outCached
	}
	return outRetry
}

// isOutOfMemory reports whether err carries one of the codes after which
// the manager evicts and retries.
func isOutOfMemory(err error) bool {
	switch ur.ResultOf(err) {
	case ur.ErrOutOfHostMemory, ur.ErrOutOfDeviceMemory, ur.ErrOutOfResources:
		return true
	}
	return false
}

// panicError is a panic of a build, recovered.
type panicError struct {
	value any
	stack []byte
}

func (e *panicError) Error() string {
	return fmt.Sprintf("programmgr: build panicked: %v\n%s", e.value, e.stack)
}
