package compute

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gour-dev/gour/ur"
)

// TaskFunc is the work of one invocation of a task sequence: it runs the
// package's operations on ctx with arg. goctx is cancelled when the
// sequence is released; it also marks the calls made with it as the
// invocation's own, for Release.
type TaskFunc[A, R any] func(goctx context.Context, ctx Context, arg A) (R, error)

// TaskSequence runs invocations of one function asynchronously, one after
// the other, with at most capacity outstanding, as SYCL's task_sequence:
// Async starts an invocation, Get returns the results in the order the
// invocations were started.
//
// Order: NewTaskSequence's invocations run on one goroutine of the
// sequence, in start order, each after the previous has returned; on a
// Device context their commands go to its in-order queue, so an
// invocation's device work also runs after the previous one's, while the
// host goes on to enqueue the next (an invocation's function returns
// once its work is enqueued; Get waits for the device, through a marker
// enqueued after it, or none where the function waited for the device
// itself, reading a result back, on a Device whose queue nobody else
// uses: once Device.UR has handed the queue out, or on NewDeviceFrom's,
// work enqueued there unseen may be the invocation's, so a marker always
// follows). Get polls for a short while (50 µs, with four Ps or more)
// before it parks, so that a small invocation's result is not held up by
// the scheduler's wake-up. NewConcurrentTaskSequence's run up to
// its concurrency at once, each on a lane of its own (see there); Get
// still returns results in start order.
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
// results are dropped, the running ones' goctx is cancelled and Release
// waits for them to return; later calls give ErrReleased. A Get waiting at
// that moment returns ErrReleased, unless it had already taken its
// invocation, whose result it then returns. Called by the running
// invocation's function with its goctx (or a context made from it),
// Release cancels the same way but cannot wait for its own caller: it
// returns at once, and the sequence finishes when the function returns.
// A function must not wait for a Release on another goroutine, which
// waits for it.
type TaskSequence[A, R any] struct {
	ctx   Context
	fn    TaskFunc[A, R]
	lanes []Context // one per invocation running at once; lanes[0] may be ctx
	owned []*Device // the lanes the sequence made, released with it

	// life is done once the sequence is released: the one record of it.
	// The invocations' goctx is taskCtx, life marked with the sequence.
	life    context.Context
	release context.CancelFunc
	taskCtx context.Context

	slots    chan struct{} // one token per outstanding invocation
	pending  chan *task[A, R]
	results  chan *task[A, R]
	free     chan *task[A, R] // tasks Get has returned, for the next Async
	done     chan struct{}    // closed when the workers have returned
	running  atomic.Int32     // workers not yet returned; the last one drains
	lanesErr error            // releasing the lanes; read after done

	asyncMu sync.Mutex  // serialises Async: start order; the worker's drain waits for it
	getMu   sync.Mutex  // serialises Get: result order
	head    *task[A, R] // the next result, taken by a Get that gave up; getMu
}

// taskKey is the key of the value that marks an invocation's goctx: the
// sequence running it.
type taskKey struct{}

type task[A, R any] struct {
	arg A
	res R
	err error
	ev  *ur.Event // the device's marker after the invocation's work
	// done holds a token once the invocation has returned (or will never
	// run), which a Get takes, setting returned (a Get may then still
	// give up waiting for ev): a token rather than a close, so that the
	// task is used again for a later invocation.
	done     chan struct{}
	returned bool // the token was taken; getMu
}

// NewTaskSequence returns a sequence running fn on ctx with up to
// capacity invocations outstanding, one running at a time.
func NewTaskSequence[A, R any](ctx Context, fn TaskFunc[A, R], capacity int) (*TaskSequence[A, R], error) {
	return newTaskSequence(ctx, fn, capacity, 1)
}

// NewConcurrentTaskSequence returns a sequence running fn with up to
// capacity invocations outstanding and up to concurrency of them (at
// most capacity) running at once, for invocations that do not depend on
// each other: a pipeline's chunks, each uploaded, transformed and
// downloaded. Each running invocation has a lane of its own, the Context
// its function is given. On a Device, a lane is a Device on a queue of
// its own, in the same ur.Context with the same program manager (the
// kernels are built once), so one invocation's transfers overlap
// another's kernels; an invocation's arrays must be made on its lane
// (FromSlice, Zeros), and arrays of ctx used there give ErrWrongContext,
// since no queue order joins a lane's work to ctx's; an array of a lane
// that a result carries out must be released before the sequence, whose
// Release releases the lanes. A CPU or MultiDevice context is its own
// lane: invocations share it.
func NewConcurrentTaskSequence[A, R any](ctx Context, fn TaskFunc[A, R], capacity, concurrency int) (*TaskSequence[A, R], error) {
	if concurrency < 1 {
		return nil, fmt.Errorf("%w: concurrency %d", ErrInvalid, concurrency)
	}
	return newTaskSequence(ctx, fn, capacity, concurrency)
}

func newTaskSequence[A, R any](ctx Context, fn TaskFunc[A, R], capacity, concurrency int) (*TaskSequence[A, R], error) {
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
		free:    make(chan *task[A, R], capacity),
		done:    make(chan struct{}),
	}
	if err := s.makeLanes(min(concurrency, capacity)); err != nil {
		return nil, err
	}
	s.life, s.release = context.WithCancel(context.Background())
	s.taskCtx = context.WithValue(s.life, taskKey{}, s)
	s.running.Store(int32(len(s.lanes)))
	for _, lane := range s.lanes {
		go s.work(lane)
	}
	return s, nil
}

// makeLanes gives the sequence n lanes: ctx itself for one, or where
// ctx is not a Device; else Devices on queues of their own.
func (s *TaskSequence[A, R]) makeLanes(n int) error {
	d, ok := s.ctx.(*Device)
	if n == 1 || !ok {
		s.lanes = make([]Context, n)
		for i := range s.lanes {
			s.lanes[i] = s.ctx
		}
		return nil
	}
	for range n {
		lane, err := d.newLane()
		if err != nil {
			return errors.Join(err, s.releaseLanes())
		}
		s.lanes = append(s.lanes, lane)
		s.owned = append(s.owned, lane)
	}
	return nil
}

func (s *TaskSequence[A, R]) releaseLanes() error {
	var errs []error
	for _, d := range s.owned {
		errs = append(errs, d.Release())
	}
	s.owned = nil
	return errors.Join(errs...)
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

// work runs invocations on lane until the sequence is released; the
// last worker to return then ends the ones never run, drops the results
// no Get collected and releases the lanes: here rather than in Release,
// which does not wait for the workers when a running invocation calls
// it.
func (s *TaskSequence[A, R]) work(lane Context) {
	for {
		// A receive that does not block first: the two-way select is
		// most of a small invocation's cost in the sequence.
		var t *task[A, R]
		select {
		case t = <-s.pending:
		default:
			select {
			case t = <-s.pending:
			case <-s.life.Done():
			}
		}
		if t == nil {
			break
		}
		s.run(lane, t)
		t.done <- struct{}{}
	}
	if s.running.Add(-1) > 0 {
		return
	}
	defer close(s.done)
	// An Async sends under asyncMu after seeing the sequence live: once
	// it is free, pending holds every invocation that will ever start.
	s.asyncMu.Lock()
	for len(s.pending) > 0 {
		t := <-s.pending
		t.err = errNotRun
		t.done <- struct{}{}
	}
	s.asyncMu.Unlock()
	// Wait for a Get in progress, which may still hold its invocation.
	s.getMu.Lock()
	defer s.getMu.Unlock()
	if s.head != nil {
		s.head.dropEvent()
		s.head = nil
	}
	for len(s.results) > 0 {
		(<-s.results).dropEvent()
	}
	s.lanesErr = s.releaseLanes()
}

var errNotRun = fmt.Errorf("%w: task sequence released before the invocation ran", ErrReleased)

func (t *task[A, R]) dropEvent() {
	if t.ev != nil {
		t.ev.Release()
		t.ev = nil
	}
}

func (s *TaskSequence[A, R]) run(lane Context, t *task[A, R]) {
	if s.life.Err() != nil { // released while t waited in pending
		t.err = errNotRun
		return
	}
	defer recovered("task", &t.err)
	t.res, t.err = s.fn(s.taskCtx, lane, t.arg)
	if t.err == nil {
		t.ev, t.err = lane.eng().fence()
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
	if s.life.Err() != nil {
		return errReleasedSequence
	}
	select {
	case s.slots <- struct{}{}: // a slot free: no three-way select
	default:
		select {
		case s.slots <- struct{}{}:
		case <-goctx.Done():
			return goctx.Err()
		case <-s.life.Done():
			return errReleasedSequence
		}
	}
	if s.life.Err() != nil { // both were ready
		<-s.slots
		return errReleasedSequence
	}
	// Neither send blocks: each channel holds at most capacity tasks,
	// and a token is held for each.
	var t *task[A, R]
	select {
	case t = <-s.free:
		t.arg = arg
	default:
		t = &task[A, R]{arg: arg, done: make(chan struct{}, 1)}
	}
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
	if s.life.Err() != nil {
		return zero, errReleasedSequence
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
	if !t.returned && !spinUntilDone(t.done) {
		select {
		case <-t.done:
		default:
			select {
			case <-t.done:
			case <-goctx.Done():
				return zero, goctx.Err()
			}
		}
	}
	t.returned = true
	if t.ev != nil {
		if err := t.ev.Wait(goctx); err != nil {
			if goctx.Err() != nil {
				return zero, goctx.Err()
			}
			t.err = err // the device work failed
		}
		t.dropEvent()
	}
	s.head = nil
	res, err := t.res, t.err
	var zeroTask task[A, R]
	zeroTask.done = t.done
	*t = zeroTask // holds no result or argument while it waits
	select {
	case s.free <- t:
	default:
	}
	<-s.slots
	return res, err
}

// getSpin is how long Get polls for its invocation to return before it
// parks. Waking a parked goroutine costs the Go scheduler several µs (the
// worker that readied it keeps its P, and another P steals the goroutine
// only after a pause), as much as the host side of a small invocation: a
// sequence of small Transforms, each read back, ran well behind the same
// calls in a loop with every Get parked (docs/benchmarks.md, "A task
// sequence's own cost").
const getSpin = 50 * time.Microsecond

// spinUntilDone polls done for up to getSpin and reports whether its
// token came, taking it. With fewer than four Ps, or fewer than four CPUs
// for them, it does not poll: the core it would take is one the
// invocation (and a CPU device's driver threads) need: on two cores with
// four Ps, polling made a round trip many times dearer
// (BenchmarkTaskSequenceOverhead; docs/benchmarks.md, "A task sequence's
// own cost").
func spinUntilDone(done <-chan struct{}) bool {
	if min(runtime.GOMAXPROCS(0), runtime.NumCPU()) < 4 {
		return false
	}
	start := time.Now()
	for i := 1; ; i++ {
		select {
		case <-done:
			return true
		default:
		}
		if i%64 == 0 && time.Since(start) > getSpin {
			return false
		}
	}
}

var (
	errNilSequence      = fmt.Errorf("%w: nil *TaskSequence", ErrInvalid)
	errReleasedSequence = fmt.Errorf("%w: task sequence", ErrReleased)
)

// Release cancels the invocations not yet running, waits for the running
// ones (and for a Get in progress), drops the results not collected and
// releases the lanes, returning the error of that.
// It gives up waiting with ctx's error when ctx ends first: the sequence
// is released all the same, and finishes when the running invocation
// returns. Called by the running invocation's function with its goctx,
// it does not wait (see TaskSequence); with another context it would wait
// for its own caller until that context ends. A second Release only
// waits.
func (s *TaskSequence[A, R]) Release(ctx context.Context) error {
	if s == nil {
		return nil
	}
	s.release()
	if ctx.Value(taskKey{}) == s {
		return nil // the caller is the invocation Release would wait for
	}
	select {
	case <-s.done:
		return s.lanesErr
	case <-ctx.Done():
		return ctx.Err()
	}
}
