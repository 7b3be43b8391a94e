package compute

import (
	"bytes"
	"context"
	"fmt"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/gour-dev/gour/ur"
)

// TaskFunc is the work of one invocation of a task sequence: it runs the
// package's operations on ctx with arg. goctx is cancelled when the
// sequence is released.
type TaskFunc[A, R any] func(goctx context.Context, ctx Context, arg A) (R, error)

// TaskSequence runs invocations of one function asynchronously, one after
// the other, with at most capacity outstanding, as SYCL's task_sequence:
// Async starts an invocation, Get returns the results in the order the
// invocations were started.
//
// Order: invocations run on one goroutine of the sequence, in start
// order, each after the previous has returned; on a Device context their
// commands go to its in-order queue, so an invocation's device work also
// runs after the previous one's, while the host goes on to enqueue the
// next (an invocation's function returns once its work is enqueued; Get
// waits for the device, through a marker enqueued after it).
//
// Capacity: an invocation is outstanding from the Async that starts it
// to the Get that returns it; Async waits while capacity are.
//
// Errors: an error returned by an invocation's function (or a panic in
// it, recovered), or by its device work, is returned by that
// invocation's Get; later invocations still run.
//
// Concurrency: Async may be called from several goroutines; calls
// serialise and the start order is the order in which they return. Get
// may be called from several goroutines too; each returns the oldest
// result not yet returned. Async and Get may run at once (a producer and
// a consumer). Release may be called at any time, from any goroutine,
// the invocation's function included.
//
// Release cancels: invocations not yet running do not run and their
// results are dropped, the running one's goctx is cancelled and Release
// waits for it to return; later calls give ErrReleased. A Get waiting at
// that moment returns ErrReleased, unless it had already taken its
// invocation, whose result it then returns. Called by the running
// invocation's function (on the sequence's goroutine, which runs it),
// Release cancels the same way but cannot wait for its own caller: it
// returns at once, and the sequence finishes when the function returns.
// A function must not wait for a Release on another goroutine, which
// waits for it.
type TaskSequence[A, R any] struct {
	ctx Context
	fn  TaskFunc[A, R]

	slots   chan struct{} // one token per outstanding invocation
	pending chan *task[A, R]
	results chan *task[A, R]
	quit    chan struct{}
	done    chan struct{} // closed when the worker has returned
	worker  atomic.Uint64 // the worker's goroutine id; 0 until it runs
	runCtx  context.Context
	cancel  context.CancelFunc

	asyncMu  sync.Mutex // serialises Async: start order
	getMu    sync.Mutex // serialises Get: result order
	mu       sync.Mutex // guards released and the channels' closing
	released bool
	once     sync.Once
	head     *task[A, R] // the next result, taken by a Get that gave up; getMu
}

type task[A, R any] struct {
	arg  A
	res  R
	err  error
	ev   *ur.Event // the device's marker after the invocation's work
	done chan struct{}
}

// NewTaskSequence returns a sequence running fn on ctx with up to
// capacity invocations outstanding.
func NewTaskSequence[A, R any](ctx Context, fn TaskFunc[A, R], capacity int) (*TaskSequence[A, R], error) {
	if err := checkCtx(ctx); err != nil {
		return nil, err
	}
	if err := ctx.eng().checkOpen(); err != nil {
		return nil, err
	}
	if fn == nil {
		return nil, fmt.Errorf("%w: nil TaskFunc", ErrInvalid)
	}
	if capacity < 1 {
		return nil, fmt.Errorf("%w: capacity %d", ErrInvalid, capacity)
	}
	s := &TaskSequence[A, R]{
		ctx: ctx, fn: fn,
		slots:   make(chan struct{}, capacity),
		pending: make(chan *task[A, R], capacity),
		results: make(chan *task[A, R], capacity),
		quit:    make(chan struct{}),
		done:    make(chan struct{}),
	}
	s.runCtx, s.cancel = context.WithCancel(context.Background())
	go s.work()
	return s, nil
}

// Capacity returns the most invocations outstanding at once.
func (s *TaskSequence[A, R]) Capacity() int {
	if s == nil {
		return 0
	}
	return cap(s.slots)
}

// Outstanding returns the invocations started and not yet returned by Get.
func (s *TaskSequence[A, R]) Outstanding() int {
	if s == nil {
		return 0
	}
	return len(s.slots)
}

// work runs the invocations until Release closes pending, then drops the
// results no Get collected: here rather than in Release, which does not
// wait for the worker when the running invocation calls it.
func (s *TaskSequence[A, R]) work() {
	defer close(s.done)
	s.worker.Store(goroutineID())
	for t := range s.pending {
		if s.runCtx.Err() != nil {
			t.err = fmt.Errorf("%w: task sequence released before the invocation ran", ErrReleased)
		} else {
			s.run(t)
		}
		close(t.done)
	}
	// Wait for a Get in progress, which may still hold its invocation.
	s.getMu.Lock()
	defer s.getMu.Unlock()
	drop := func(t *task[A, R]) {
		if t.ev != nil {
			t.ev.Release()
		}
	}
	if s.head != nil {
		drop(s.head)
		s.head = nil
	}
	for {
		select {
		case t := <-s.results:
			drop(t)
		default:
			return
		}
	}
}

func (s *TaskSequence[A, R]) run(t *task[A, R]) {
	defer recovered("task", &t.err)
	t.res, t.err = s.fn(s.runCtx, s.ctx, t.arg)
	if t.err == nil {
		t.ev, t.err = s.ctx.eng().fence()
	}
}

// Async starts an invocation with arg, after waiting, while capacity
// invocations are outstanding, for a Get to return one; it gives up with
// goctx's error when goctx ends first, starting nothing.
func (s *TaskSequence[A, R]) Async(goctx context.Context, arg A) error {
	if s == nil {
		return errNilSequence
	}
	s.asyncMu.Lock()
	defer s.asyncMu.Unlock()
	select {
	case <-s.quit:
		return fmt.Errorf("%w: task sequence", ErrReleased)
	default:
	}
	select {
	case s.slots <- struct{}{}:
	case <-goctx.Done():
		return goctx.Err()
	case <-s.quit:
		return fmt.Errorf("%w: task sequence", ErrReleased)
	}
	t := &task[A, R]{arg: arg, done: make(chan struct{})}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.released {
		<-s.slots
		return fmt.Errorf("%w: task sequence", ErrReleased)
	}
	// Neither send blocks: each channel holds at most capacity tasks,
	// and a token is held for each.
	s.results <- t
	s.pending <- t
	return nil
}

// Get returns the result of the oldest invocation not yet returned,
// waiting for it (and, on a device, for its device work) to complete.
// It gives up with goctx's error when goctx ends first; the invocation
// is then still the next one Get returns. With no invocation
// outstanding (none whose Async has returned) it returns an error
// wrapping ErrInvalid at once.
func (s *TaskSequence[A, R]) Get(goctx context.Context) (R, error) {
	var zero R
	if s == nil {
		return zero, errNilSequence
	}
	s.getMu.Lock()
	defer s.getMu.Unlock()
	if s.isReleased() {
		return zero, fmt.Errorf("%w: task sequence", ErrReleased)
	}
	t := s.head
	if t == nil {
		select {
		case t = <-s.results:
		default:
			return zero, fmt.Errorf("%w: Get with no invocation outstanding", ErrInvalid)
		}
		// A channel has no front to put t back at when giving up:
		// head holds it until it is returned.
		s.head = t
	}
	select {
	case <-t.done:
	case <-goctx.Done():
		return zero, goctx.Err()
	}
	if t.ev != nil {
		if err := t.ev.Wait(goctx); err != nil {
			if goctx.Err() != nil {
				return zero, goctx.Err()
			}
			t.err = err // the device work failed
		}
		t.ev.Release()
		t.ev = nil
	}
	s.head = nil
	<-s.slots
	return t.res, t.err
}

var errNilSequence = fmt.Errorf("%w: nil *TaskSequence", ErrInvalid)

func (s *TaskSequence[A, R]) isReleased() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.released
}

// Release cancels the invocations not yet running, waits for the running
// one (and for a Get in progress) and drops the results not collected;
// called by the running invocation's function, it does not wait (see
// TaskSequence). A second Release is a no-op.
func (s *TaskSequence[A, R]) Release() error {
	if s == nil {
		return nil
	}
	s.once.Do(func() {
		close(s.quit)
		s.mu.Lock()
		s.released = true
		s.cancel()
		close(s.pending)
		s.mu.Unlock()
	})
	select {
	case <-s.done: // the worker has returned: no stack to parse
		return nil
	default:
	}
	if id := goroutineID(); id != 0 && s.worker.Load() == id {
		return nil // the caller is the invocation Release would wait for
	}
	<-s.done
	return nil
}

// goroutineID returns the calling goroutine's id, which Go exposes only
// in a stack trace's header, "goroutine 42 [running]:"; 0 should that
// format change (a TaskFunc's Release would then wait for itself, and
// TestTaskSequenceReleaseFromTask fails).
func goroutineID() uint64 {
	var buf [64]byte
	b := bytes.TrimPrefix(buf[:runtime.Stack(buf[:], false)], []byte("goroutine "))
	if i := bytes.IndexByte(b, ' '); i > 0 {
		if id, err := strconv.ParseUint(string(b[:i]), 10, 64); err == nil {
			return id
		}
	}
	return 0
}
