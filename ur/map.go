package ur

import (
	"context"
	"sync"

	"github.com/gour-dev/gour/trace"
	"github.com/gour-dev/gour/ur/driver"
)

// This file holds mapped buffers (the Unified Runtime's
// urEnqueueMemBufferMap and urEnqueueMemUnmap) and buffers over host
// memory (UR_MEM_FLAG_USE_HOST_POINTER and UR_MEM_FLAG_ALLOC_HOST_POINTER).
//
// A mapping is host memory holding a region of a buffer between the map
// and the unmap, on every adapter the same way, as the Unified Runtime's
// CUDA and Level Zero adapters do it: the map copies the region to host
// memory (unless the mapping is to be written whole,
// MapWriteInvalidateRegion), the unmap copies it back (when mapped for
// writing). For a buffer over host memory, that memory is the mapping, so
// a map returns the very slice the buffer was made with.

// MapFlags says what a mapping is for, as ur_map_flags_t.
type MapFlags uint32

// Map flags, with the Unified Runtime's bits. MapWriteInvalidateRegion
// excludes the others.
const (
	// MapRead: the host reads the mapping; it holds the buffer's bytes.
	MapRead MapFlags = 1 << iota
	// MapWrite: the host writes the mapping; the unmap stores it.
	MapWrite
	// MapWriteInvalidateRegion: the host writes the whole mapping; its
	// bytes before are undefined (no copy at the map).
	MapWriteInvalidateRegion
)

// Mapping is a region of a buffer mapped into host memory by
// Queue.EnqueueMapBuffer, valid until Queue.EnqueueUnmap.
type Mapping struct {
	mu       sync.Mutex
	m        *Mem
	flags    MapFlags
	offset   uint64
	data     []byte
	unmapped bool
}

// Bytes is the mapped memory: after a blocking map, or once the map's
// event has completed, it holds the buffer's region (for MapRead or
// MapWrite). It is nil after the unmap.
func (mp *Mapping) Bytes() []byte {
	if mp == nil {
		return nil
	}
	mp.mu.Lock()
	defer mp.mu.Unlock()
	if mp.unmapped {
		return nil
	}
	return mp.data
}

// Offset and Flags say where the mapping lies in its buffer and what for.
func (mp *Mapping) Offset() uint64 {
	if mp == nil {
		return 0
	}
	return mp.offset
}

// Flags is what the mapping was made for.
func (mp *Mapping) Flags() MapFlags {
	if mp == nil {
		return 0
	}
	return mp.flags
}

// EnqueueMapBuffer maps size bytes of m at offset into host memory, as
// urEnqueueMemBufferMap. With blocking set the mapping holds the bytes on
// return and the event is nil; otherwise they are there once the event
// completes (a MapWriteInvalidateRegion mapping, which reads nothing, is
// ready on return with no event on a queue without markers). The buffer stays alive until the unmap. Bad input is a typed
// error: no flags, unknown bits or MapWriteInvalidateRegion with another
// flag ErrInvalidValue, a zero size or a region past the buffer's end
// ErrInvalidSize, a buffer of another context ErrInvalidContext.
func (q *Queue) EnqueueMapBuffer(m *Mem, blocking bool, flags MapFlags, offset, size uint64, wait ...*Event) (rmp *Mapping, rev *Event, rerr error) {
	const op = "Queue.EnqueueMapBuffer"
	if t := trace.Active(); t != nil {
		tc := beginCall(t, op, q, m)
		defer tc.endEventOf(q, &rev, &rerr)
	}

	if err := q.enter(op); err != nil {
		return nil, nil, err
	}
	defer q.life.leave()
	if m == nil {
		return nil, nil, nilHandle("Mem", op)
	}
	switch {
	case flags == 0 || flags&^(MapRead|MapWrite|MapWriteInvalidateRegion) != 0:
		return nil, nil, newError(ErrInvalidValue, op, q.adapter.name, "map flags %#x: want MapRead, MapWrite or both, or MapWriteInvalidateRegion", uint32(flags))
	case flags&MapWriteInvalidateRegion != 0 && flags != MapWriteInvalidateRegion:
		return nil, nil, newError(ErrInvalidValue, op, q.adapter.name, "MapWriteInvalidateRegion cannot be combined with MapRead or MapWrite")
	}
	if err := q.useBuffer(op, m); err != nil {
		return nil, nil, err
	}
	if size == 0 || offset > m.size || size > m.size-offset {
		m.life.leave()
		return nil, nil, newError(ErrInvalidSize, op, q.adapter.name, "region [%d, %d+%d) is empty or outside the buffer's %d bytes", offset, offset, size, m.size)
	}
	// m stays entered until the unmap.
	mp := &Mapping{m: m, flags: flags, offset: offset}
	if host := m.host; host != nil {
		mp.data = host[offset : offset+size : offset+size]
	} else {
		mp.data = make([]byte, size)
	}
	var ev *Event
	var err error
	if flags&(MapRead|MapWrite) != 0 {
		ev, err = q.transfer(transfer{op: op, blocking: blocking, m: m, offset: offset, host: mp.data, wait: wait})
	} else {
		ev, err = q.orderAfter(op, blocking, wait)
	}
	if err != nil {
		m.life.leave()
		return nil, nil, err
	}
	return mp, ev, nil
}

// EnqueueUnmap ends a mapping, as urEnqueueMemUnmap: a mapping made for
// writing is stored into the buffer, after the wait list; the event
// completes when it is. The mapping's memory must not change until then.
// A mapping unmapped twice, or on a queue of another context, is a typed
// error (ErrInvalidValue, ErrInvalidContext).
func (q *Queue) EnqueueUnmap(mp *Mapping, wait ...*Event) (rh *Event, rerr error) {
	const op = "Queue.EnqueueUnmap"
	if t := trace.Active(); t != nil {
		tc := beginCall(t, op, q)
		defer tc.endEventOf(q, &rh, &rerr)
	}

	if err := q.enter(op); err != nil {
		return nil, err
	}
	defer q.life.leave()
	if mp == nil {
		return nil, newError(ErrInvalidNullPointer, op, q.adapter.name, "nil mapping")
	}
	mp.mu.Lock()
	defer mp.mu.Unlock()
	if mp.unmapped {
		return nil, newError(ErrInvalidValue, op, q.adapter.name, "the mapping was unmapped already")
	}
	if mp.m.ctx != q.ctx {
		return nil, newError(ErrInvalidContext, op, q.adapter.name, "the mapping's buffer belongs to another context")
	}
	var ev *Event
	var err error
	if mp.flags&(MapWrite|MapWriteInvalidateRegion) != 0 {
		// The buffer is entered since the map, and may have been
		// released since: the copy goes to the adapter directly.
		var dw []driver.Event
		if dw, err = q.useWaitList(op, wait); err != nil {
			return nil, err
		}
		dev, derr := q.drv.WriteBuffer(mp.m.drv, false, mp.offset, mp.data, dw, true)
		leaveEvents(wait)
		ev, err = q.finishEnqueue(op, dev, derr, mp.data)
	} else {
		ev, err = q.orderAfter(op, false, wait)
	}
	if err != nil {
		return nil, err
	}
	mp.unmapped = true
	mp.m.life.leave()
	return ev, nil
}

// orderAfter is an event completing after wait (every earlier command
// with none): a marker where the adapter has them; blocking waits for it
// and returns none.
func (q *Queue) orderAfter(op string, blocking bool, wait []*Event) (*Event, error) {
	mq, ok := q.drv.(driver.MarkerQueue)
	if !ok {
		if err := WaitAll(context.Background(), wait...); err != nil {
			return nil, err
		}
		return nil, nil
	}
	dw, err := q.useWaitList(op, wait)
	if err != nil {
		return nil, err
	}
	defer leaveEvents(wait)
	dev, err := mq.Marker(dw, false)
	if err != nil {
		return nil, q.ctx.wrap(err, op)
	}
	if blocking {
		err := dev.Wait(context.Background())
		_ = dev.Release()
		return nil, q.ctx.wrap(err, op)
	}
	return q.finishEnqueue(op, dev, nil, nil)
}

// NewBufferUseHost makes a buffer over host, as UR_MEM_FLAG_USE_HOST_POINTER:
// the buffer starts with host's bytes, and mapping it (EnqueueMapBuffer)
// gives slices of host itself, which hold the buffer's bytes while mapped.
// Between mappings the buffer's bytes live on the device, as with the
// Unified Runtime's GPU adapters; host must stay unchanged by the program
// while unmapped. An empty host is ErrInvalidBufferSize.
func (c *Context) NewBufferUseHost(flags MemFlags, host []byte) (rh *Mem, rerr error) {
	const op = "Context.NewBufferUseHost"
	if t := trace.Active(); t != nil {
		tc := beginCall(t, op, c)
		tc.args.Uint("bytes", uint64(len(host)))
		defer endNewOf(&tc, &rh, &rerr)
	}

	if len(host) == 0 {
		if c == nil {
			return nil, nilHandle("Context", op)
		}
		return nil, newError(ErrInvalidBufferSize, op, c.adapter.name, "empty host memory")
	}
	m, err := c.NewBufferFrom(flags, host)
	if err != nil {
		return nil, err
	}
	m.host = host
	return m, nil
}

// NewBufferAllocHost makes a buffer of size bytes whose mappings are one
// host allocation made with it, as UR_MEM_FLAG_ALLOC_HOST_POINTER: every
// map of the buffer returns slices of it (HostMemory). It is ordinary Go
// memory, not page-locked.
func (c *Context) NewBufferAllocHost(flags MemFlags, size uint64) (rh *Mem, rerr error) {
	if t := trace.Active(); t != nil {
		tc := beginCall(t, "Context.NewBufferAllocHost", c)
		tc.args.Uint("bytes", size)
		defer endNewOf(&tc, &rh, &rerr)
	}

	m, err := c.NewBuffer(flags, size)
	if err != nil {
		return nil, err
	}
	host := make([]byte, size)
	m.host = host
	return m, nil
}

// HostMemory is the host memory of a buffer made by NewBufferUseHost or
// NewBufferAllocHost, nil for another.
func (m *Mem) HostMemory() []byte {
	if m == nil {
		return nil
	}
	return m.host
}
