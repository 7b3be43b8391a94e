package cuda

import (
	"sync"
	"sync/atomic"

	"github.com/gour-dev/gour/adapters/cuda/internal/cu"
	"github.com/gour-dev/gour/ur/driver"
)

// This file is the queue side of the launch and queue model: out-of-order
// queues, priorities, emptiness and capture.

var (
	_ driver.QueueFeatures = (*queue)(nil)
	_ driver.CaptureQueue  = (*queue)(nil)
)

// oooStreams is how many streams an out-of-order queue spreads its
// commands over: enough for independent kernels to overlap on the
// device's hardware queues, few enough that a barrier (a wait on each of
// the others per stream) stays cheap.
const oooStreams = 4

// streamSet is the streams of an out-of-order queue. Each command goes to
// the next stream in turn and waits for its wait list only (and, as CUDA
// streams run in order, for what its stream ran before: more order than
// the queue promises, never less). Markers and barriers join the streams
// with joins, one event per stream, recorded under mu.
type streamSet struct {
	streams []cu.Stream
	next    atomic.Uint32
	mu      sync.Mutex
	joins   []cu.Event
}

// pick is the stream of the next command: the queue's stream on an
// in-order queue, the next in turn on an out-of-order one, and the first
// (the one capturing) while a capture is under way.
func (q *queue) pick() cu.Stream {
	if q.ooo == nil || q.capturing.Load() {
		return q.stream
	}
	ss := q.ooo.streams
	return ss[q.ooo.next.Add(1)%uint32(len(ss))]
}

// streamPriority is CUDA's priority for gour's: gour counts up from 0
// (the default) for higher priorities, CUDA counts down from least (0,
// its default) to greatest; both are clamped to the device's range, so a
// negative gour priority is the default, CUDA having none lower.
func streamPriority(p int, least, greatest int32) int32 {
	c := -int64(p)
	return int32(max(min(c, int64(least)), int64(greatest)))
}

// newStream creates a non-blocking stream of the queue's priority. The
// caller holds bind.
func (d *device) newStream(priority int) (cu.Stream, error) {
	l := d.a.cu
	if priority == 0 {
		s, r := l.StreamCreate(cu.StreamNonBlocking)
		return s, check("cuStreamCreate", r)
	}
	least, greatest, r := l.CtxGetStreamPriorityRange()
	if r == cu.NotSupported {
		return 0, driver.Errorf(driver.ResultUnsupportedFeature, "queue priorities need cuCtxGetStreamPriorityRange and cuStreamCreateWithPriority")
	}
	if err := check("cuCtxGetStreamPriorityRange", r); err != nil {
		return 0, err
	}
	s, r := l.StreamCreateWithPriority(cu.StreamNonBlocking, streamPriority(priority, least, greatest))
	return s, check("cuStreamCreateWithPriority", r)
}

// newStreamSet creates the streams and join events of an out-of-order
// queue. The caller holds bind.
func (d *device) newStreamSet(priority int) (*streamSet, error) {
	ss := &streamSet{}
	for range oooStreams {
		s, err := d.newStream(priority)
		if err != nil {
			ss.release(d.a.cu)
			return nil, err
		}
		ss.streams = append(ss.streams, s)
		e, r := d.a.cu.EventCreate(cu.EventDisableTiming)
		if r != cu.Success {
			ss.release(d.a.cu)
			return nil, cuError("cuEventCreate", r)
		}
		ss.joins = append(ss.joins, e)
	}
	return ss, nil
}

// release destroys the streams (their work completes first, as for one
// stream) and the join events. The caller holds bind.
func (ss *streamSet) release(l *cu.Lib) error {
	var err error
	for _, e := range ss.joins {
		l.EventDestroy(e)
	}
	for _, s := range ss.streams {
		if e := check("cuStreamDestroy", l.StreamDestroy(s)); err == nil {
			err = e
		}
	}
	return err
}

// joinFirst makes the first stream wait for the work enqueued so far on
// the others (an event recorded on each), so that what is enqueued on it
// next follows all of it. The caller holds ss.mu.
func (ss *streamSet) joinFirst(l *cu.Lib) error {
	first := ss.streams[0]
	for i, s := range ss.streams[1:] {
		if r := l.EventRecord(ss.joins[i+1], s); r != cu.Success {
			return cuError("cuEventRecord", r)
		}
		if r := l.StreamWaitEvent(first, ss.joins[i+1], 0); r != cu.Success {
			return cuError("cuStreamWaitEvent", r)
		}
	}
	return nil
}

// markerAll is Marker on an out-of-order queue: with an empty wait list
// the marker completes after every command enqueued before, so the first
// stream waits for a join event recorded on each other; with barrier set
// every other stream then waits for the marker, so later commands on any
// stream follow it.
func (q *queue) markerAll(wait []driver.Event, barrier bool) (driver.Event, error) {
	ss := q.ooo
	if err := q.dev.bind(); err != nil {
		return nil, err
	}
	defer unbind()
	ss.mu.Lock()
	defer ss.mu.Unlock()
	first := ss.streams[0]
	if len(wait) == 0 {
		if err := ss.joinFirst(q.cu); err != nil {
			return nil, err
		}
	}
	e, err := q.begin(first, wait, true)
	if err != nil {
		return nil, err
	}
	q.quick.Spend()
	ev, err := q.finish(first, "cuEventRecord", e, cu.Success)
	if err != nil || !barrier {
		return ev, err
	}
	for _, s := range ss.streams[1:] {
		if r := q.cu.StreamWaitEvent(s, e.end, 0); r != cu.Success {
			q.discard(e)
			return nil, cuError("cuStreamWaitEvent", r)
		}
	}
	return ev, nil
}

// Empty is cuStreamQuery on each of the queue's streams.
func (q *queue) Empty() (bool, error) {
	if err := q.dev.bind(); err != nil {
		return false, err
	}
	defer unbind()
	streams := []cu.Stream{q.stream}
	if q.ooo != nil {
		streams = q.ooo.streams
	}
	for _, s := range streams {
		switch r := q.cu.StreamQuery(s); r {
		case cu.Success:
		case cu.NotReady:
			return false, nil
		default:
			return false, cuError("cuStreamQuery", r)
		}
	}
	return true, nil
}

// BeginCapture starts capturing the queue's stream in relaxed mode. The
// stricter modes forbid "unsafe" calls (cuMemAlloc, synchronizing calls)
// on the capturing thread (THREAD_LOCAL) or any thread (GLOBAL) while the
// capture runs, and want cuStreamEndCapture on the thread that began it.
// Goroutines move between OS threads and gour makes such calls from any
// of them: under THREAD_LOCAL an unrelated goroutine landing on the
// capturing thread would fail and invalidate the capture, GLOBAL would
// fail every allocation in the process, and EndCapture could not be kept
// on the thread. Relaxed mode leaves the ordering of those calls to the
// caller, as every other enqueue does. On an out-of-order queue
// everything enqueued during the capture goes to the first stream, the
// one captured; commands already on the others stay outside the capture.
func (q *queue) BeginCapture() error {
	if !q.cu.HasStreamCapture() {
		return driver.Errorf(driver.ResultUnsupportedFeature, "the CUDA driver has no stream capture")
	}
	if q.borrowed {
		return driver.Errorf(driver.ResultUnsupportedFeature, "a queue wrapping another library's stream does not capture")
	}
	if err := q.dev.bind(); err != nil {
		return err
	}
	defer unbind()
	if !q.capturing.CompareAndSwap(false, true) {
		return driver.Errorf(driver.ResultInvalidOperation, "the queue is capturing already")
	}
	if r := q.cu.StreamBeginCapture(q.stream, cu.StreamCaptureModeRelaxed); r != cu.Success {
		q.capturing.Store(false)
		return cuError("cuStreamBeginCapture", r)
	}
	return nil
}

// EndCapture ends the capture and returns the captured graph as a
// command buffer, instantiated by its Finalize.
func (q *queue) EndCapture() (driver.CommandBuffer, error) {
	if !q.capturing.Load() {
		return nil, driver.Errorf(driver.ResultInvalidOperation, "the queue is not capturing")
	}
	if err := q.dev.bind(); err != nil {
		return nil, err
	}
	defer unbind()
	g, r := q.cu.StreamEndCapture(q.stream)
	q.capturing.Store(false)
	if err := check("cuStreamEndCapture", r); err != nil {
		return nil, err
	}
	return &cmdbuf{dev: q.dev, graph: g, captured: true}, nil
}

// destroyStreams destroys the streams of a queue being made. The caller
// holds bind.
func (q *queue) destroyStreams() {
	if q.ooo != nil {
		q.ooo.release(q.cu)
		return
	}
	q.cu.StreamDestroy(q.stream)
}
