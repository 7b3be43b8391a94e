package cuda

import (
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
}

func (q *queue) Native() uintptr { return uintptr(q.stream) }

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
	// Work already in the stream completes; the driver frees the stream then.
	return check("cuStreamDestroy", q.cu.StreamDestroy(q.stream))
}

func (q *queue) Flush() error { return nil } // streams start work as soon as it is enqueued

func (q *queue) Finish() error {
	if err := q.dev.bind(); err != nil {
		return err
	}
	defer unbind()
	if err := check("cuStreamSynchronize", q.cu.StreamSynchronize(q.stream)); err != nil {
		return err
	}
	q.quick.Refill()
	return nil
}

// begin orders the stream after the wait list and, when an event is
// wanted, creates it and records its start on a profiling queue. The
// caller holds bind.
func (q *queue) begin(wait []driver.Event, wantEvent bool) (*event, error) {
	for _, w := range wait {
		if r := q.cu.StreamWaitEvent(q.stream, w.(*event).end, 0); r != cu.Success {
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
			r = q.cu.EventRecord(e.start, q.stream)
		}
		if r != cu.Success {
			q.discard(e)
			return nil, cuError("cuEventRecord", r)
		}
	}
	return e, nil
}

// finish records the command's end event and returns it; on a failed
// command it destroys the event instead.
func (q *queue) finish(fn string, e *event, r cu.Result) (driver.Event, error) {
	if r != cu.Success {
		q.discard(e)
		return nil, cuError(fn, r)
	}
	if e == nil {
		return nil, nil
	}
	if r := q.cu.EventRecord(e.end, q.stream); r != cu.Success {
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

// sync waits for the stream when a call must block.
func (q *queue) sync(blocking bool, ev driver.Event, err error) (driver.Event, error) {
	if err != nil || !blocking {
		return ev, err
	}
	if r := q.cu.StreamSynchronize(q.stream); r != cu.Success {
		if ev != nil {
			q.discard(ev.(*event))
		}
		return nil, cuError("cuStreamSynchronize", r)
	}
	q.quick.Refill()
	return ev, nil
}

// enqueue runs one command on the stream, after the wait list, bracketed
// by events when one is wanted; blocking commands then wait for the stream.
func (q *queue) enqueue(fn string, blocking bool, wait []driver.Event, wantEvent bool, command func() cu.Result) (driver.Event, error) {
	if err := q.dev.bind(); err != nil {
		return nil, err
	}
	defer unbind()
	e, err := q.begin(wait, wantEvent)
	if err != nil {
		return nil, err
	}
	q.quick.Spend()
	ev, err := q.finish(fn, e, command())
	return q.sync(blocking, ev, err)
}

func (q *queue) WriteBuffer(m driver.Mem, blocking bool, offset uint64, src []byte, wait []driver.Event, wantEvent bool) (driver.Event, error) {
	return q.enqueue("cuMemcpyHtoDAsync", blocking, wait, wantEvent, func() cu.Result {
		return q.cu.MemcpyHtoDAsync(m.(*mem).ptr+cu.DevicePtr(offset), unsafe.Pointer(&src[0]), uintptr(len(src)), q.stream)
	})
}

func (q *queue) ReadBuffer(m driver.Mem, blocking bool, offset uint64, dst []byte, wait []driver.Event, wantEvent bool) (driver.Event, error) {
	return q.enqueue("cuMemcpyDtoHAsync", blocking, wait, wantEvent, func() cu.Result {
		return q.cu.MemcpyDtoHAsync(unsafe.Pointer(&dst[0]), m.(*mem).ptr+cu.DevicePtr(offset), uintptr(len(dst)), q.stream)
	})
}

func (q *queue) CopyBuffer(src, dst driver.Mem, srcOffset, dstOffset, size uint64, wait []driver.Event, wantEvent bool) (driver.Event, error) {
	return q.enqueue("cuMemcpyDtoDAsync", false, wait, wantEvent, func() cu.Result {
		return q.cu.MemcpyDtoDAsync(dst.(*mem).ptr+cu.DevicePtr(dstOffset), src.(*mem).ptr+cu.DevicePtr(srcOffset), uintptr(size), q.stream)
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
	return q.enqueue("cuMemsetAsync", false, wait, wantEvent, func() cu.Result {
		switch n := uint64(len(pattern)); n {
		case 1:
			return q.cu.MemsetD8Async(ptr, pattern[0], uintptr(size), q.stream)
		case 2:
			return q.cu.MemsetD16Async(ptr, uint16(pattern[0])|uint16(pattern[1])<<8, uintptr(size/2), q.stream)
		case 4:
			return q.cu.MemsetD32Async(ptr, word(pattern), uintptr(size/4), q.stream)
		default:
			r := cu.Success
			for w := uint64(0); w < n && r == cu.Success; w += 4 {
				r = q.cu.MemsetD2D32Async(ptr+cu.DevicePtr(w), uintptr(n), word(pattern[w:]), 1, uintptr(size/n), q.stream)
			}
			return r
		}
	})
}

// word reads a little-endian 32-bit value.
func word(b []byte) uint32 {
	return uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16 | uint32(b[3])<<24
}
