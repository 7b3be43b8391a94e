package cuda

import (
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/gour-dev/gour/adapters/cuda/internal/cu"
	"github.com/gour-dev/gour/ur/driver"
)

type queue struct {
	dev       *device
	cu        *cu.Lib
	stream    cu.Stream
	profiling bool
	base      cu.Event // profiling queues: the reference of device times
	baseNS    uint64   // host time when base completed
	// quick lets prepared launches be quick calls while the stream is
	// short of full (driver.QuickGate); nil where the adapter's are not.
	quick *driver.QuickGate
	// borrowed: the stream is another library's (QueueFromNative without
	// ownership); Release leaves it.
	borrowed bool
	// ooo is set on an out-of-order queue (queue_features.go): its
	// commands go round-robin to several streams, stream being the
	// first. nil on an in-order queue, whose commands all go to stream.
	ooo *streamSet
	// capturing: BeginCapture is under way (cuStreamBeginCapture).
	capturing atomic.Bool
	// combine makes the launches of goroutines that launch on this
	// in-order queue at once one after another from one thread
	// (combine.go).
	combine combiner
}

func (q *queue) Native() uintptr { return uintptr(q.stream) }

// NativeContext is the CUcontext of the queue's device: its primary
// context, or the other library's context of a wrapped stream.
func (q *queue) NativeContext() uintptr { return uintptr(q.dev.ctx) }

func (q *queue) Release() error {
	if err := q.dev.bind(); err != nil {
		return err
	}
	defer unbind()
	if q.base != 0 {
		q.cu.EventDestroy(q.base)
	}
	if q.borrowed {
		return nil
	}
	if q.ooo != nil {
		return q.ooo.release(q.cu)
	}
	// Work already in the stream completes; the driver frees the stream then.
	return check("cuStreamDestroy", q.cu.StreamDestroy(q.stream))
}

func (q *queue) Flush() error { return nil } // streams start work as soon as it is enqueued

func (q *queue) Finish() error {
	if err := q.dev.bind(); err != nil {
		return err
	}
	defer unbind()
	if q.ooo != nil {
		for _, s := range q.ooo.streams {
			if err := check("cuStreamSynchronize", q.cu.StreamSynchronize(s)); err != nil {
				return err
			}
		}
	} else if err := check("cuStreamSynchronize", q.cu.StreamSynchronize(q.stream)); err != nil {
		return err
	}
	q.quick.Refill()
	return nil
}

// begin orders stream s after the wait list and, when an event is
// wanted, creates it and records its start on a profiling queue. The
// caller holds bind.
func (q *queue) begin(s cu.Stream, wait []driver.Event, wantEvent bool) (*event, error) {
	for _, w := range wait {
		if r := q.cu.StreamWaitEvent(s, w.(*event).end, 0); r != cu.Success {
			return nil, cuError("cuStreamWaitEvent", r)
		}
	}
	if !wantEvent {
		return nil, nil
	}
	flags := uint32(cu.EventDisableTiming)
	if q.profiling {
		flags = cu.EventDefault
	}
	end, r := q.cu.EventCreate(flags)
	if r != cu.Success {
		return nil, cuError("cuEventCreate", r)
	}
	e := &event{q: q, end: end}
	if q.profiling {
		e.queuedNS = uint64(time.Now().UnixNano())
		if e.start, r = q.cu.EventCreate(cu.EventDefault); r == cu.Success {
			r = q.cu.EventRecord(e.start, s)
		}
		if r != cu.Success {
			q.discard(e)
			return nil, cuError("cuEventRecord", r)
		}
	}
	return e, nil
}

// finish records the command's end event on s and returns it; on a
// failed command it destroys the event instead.
func (q *queue) finish(s cu.Stream, fn string, e *event, r cu.Result) (driver.Event, error) {
	if r != cu.Success {
		q.discard(e)
		return nil, cuError(fn, r)
	}
	if e == nil {
		return nil, nil
	}
	if r := q.cu.EventRecord(e.end, s); r != cu.Success {
		q.discard(e)
		return nil, cuError("cuEventRecord", r)
	}
	return e, nil
}

func (q *queue) discard(e *event) {
	if e == nil {
		return
	}
	q.cu.EventDestroy(e.end)
	if e.start != 0 {
		q.cu.EventDestroy(e.start)
	}
}

// sync waits for stream s when a call must block.
func (q *queue) sync(s cu.Stream, blocking bool, ev driver.Event, err error) (driver.Event, error) {
	if err != nil || !blocking {
		return ev, err
	}
	if r := q.cu.StreamSynchronize(s); r != cu.Success {
		if ev != nil {
			q.discard(ev.(*event))
		}
		return nil, cuError("cuStreamSynchronize", r)
	}
	if q.ooo == nil { // the other streams may still hold commands
		q.quick.Refill()
	}
	return ev, nil
}

// enqueue runs one command on one of the queue's streams (pick), after
// the wait list, bracketed by events when one is wanted; blocking
// commands then wait for that stream.
func (q *queue) enqueue(fn string, blocking bool, wait []driver.Event, wantEvent bool, command func(s cu.Stream) cu.Result) (driver.Event, error) {
	if err := q.dev.bind(); err != nil {
		return nil, err
	}
	defer unbind()
	s := q.pick()
	e, err := q.begin(s, wait, wantEvent)
	if err != nil {
		return nil, err
	}
	q.quick.Spend()
	ev, err := q.finish(s, fn, e, command(s))
	return q.sync(s, blocking, ev, err)
}

func (q *queue) WriteBuffer(m driver.Mem, blocking bool, offset uint64, src []byte, wait []driver.Event, wantEvent bool) (driver.Event, error) {
	return q.enqueue("cuMemcpyHtoDAsync", blocking, wait, wantEvent, func(s cu.Stream) cu.Result {
		return q.cu.MemcpyHtoDAsync(m.(*mem).ptr+cu.DevicePtr(offset), unsafe.Pointer(&src[0]), uintptr(len(src)), s)
	})
}

func (q *queue) ReadBuffer(m driver.Mem, blocking bool, offset uint64, dst []byte, wait []driver.Event, wantEvent bool) (driver.Event, error) {
	return q.enqueue("cuMemcpyDtoHAsync", blocking, wait, wantEvent, func(s cu.Stream) cu.Result {
		return q.cu.MemcpyDtoHAsync(unsafe.Pointer(&dst[0]), m.(*mem).ptr+cu.DevicePtr(offset), uintptr(len(dst)), s)
	})
}

func (q *queue) CopyBuffer(src, dst driver.Mem, srcOffset, dstOffset, size uint64, wait []driver.Event, wantEvent bool) (driver.Event, error) {
	return q.enqueue("cuMemcpyDtoDAsync", false, wait, wantEvent, func(s cu.Stream) cu.Result {
		return q.cu.MemcpyDtoDAsync(dst.(*mem).ptr+cu.DevicePtr(dstOffset), src.(*mem).ptr+cu.DevicePtr(srcOffset), uintptr(size), s)
	})
}

// FillBuffer uses the memset of the pattern's width (fill).
func (q *queue) FillBuffer(m driver.Mem, pattern []byte, offset, size uint64, wait []driver.Event, wantEvent bool) (driver.Event, error) {
	return q.fill(m.(*mem).ptr+cu.DevicePtr(offset), pattern, size, wait, wantEvent)
}

// fill repeats pattern over size bytes at ptr with the memset of the
// pattern's width; a pattern of 8 or more bytes becomes one strided 32-bit
// memset per word of the pattern. Buffers and USM pointers share it: under
// unified addressing a host or managed pointer is a device pointer too.
func (q *queue) fill(ptr cu.DevicePtr, pattern []byte, size uint64, wait []driver.Event, wantEvent bool) (driver.Event, error) {
	return q.enqueue("cuMemsetAsync", false, wait, wantEvent, func(s cu.Stream) cu.Result {
		switch n := uint64(len(pattern)); n {
		case 1:
			return q.cu.MemsetD8Async(ptr, pattern[0], uintptr(size), s)
		case 2:
			return q.cu.MemsetD16Async(ptr, uint16(pattern[0])|uint16(pattern[1])<<8, uintptr(size/2), s)
		case 4:
			return q.cu.MemsetD32Async(ptr, word(pattern), uintptr(size/4), s)
		default:
			r := cu.Success
			for w := uint64(0); w < n && r == cu.Success; w += 4 {
				r = q.cu.MemsetD2D32Async(ptr+cu.DevicePtr(w), uintptr(n), word(pattern[w:]), 1, uintptr(size/n), s)
			}
			return r
		}
	})
}

// word reads a little-endian 32-bit value.
func word(b []byte) uint32 {
	return uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16 | uint32(b[3])<<24
}
