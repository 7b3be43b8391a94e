package levelzero

import (
	"sync"
	"time"
	"unsafe"

	"github.com/gour-dev/gour/adapters/levelzero/internal/ze"
	"github.com/gour-dev/gour/ur/driver"
)

// queue is an in-order queue over one asynchronous immediate command list
// (see the package documentation for why).
type queue struct {
	c         *context
	dev       *device
	ze        *ze.Lib
	list      ze.CommandList
	profiling bool
	inOrder   bool // the driver orders the list's commands itself
	// outOfOrder: the user asked for an out-of-order queue; order comes
	// from wait lists, markers and barriers only.
	outOfOrder bool
	borrowed   bool // another library's list: Release does not destroy it

	// mu serialises appends: Level Zero forbids appending to one command
	// list from two threads at once, and the fields below change with it.
	mu      sync.Mutex
	closed  bool // Release destroyed the list
	pending bool // a command was appended since the last barrier or sync
	// syncEvent, when the loader lacks zeCommandListHostSynchronize, is
	// signalled by a barrier and waited on by the host to synchronize.
	syncEvent ze.Event
	syncSlot  eventSlot
	// keep holds host memory that commands without an event read or
	// write after their append, until the next synchronization.
	keep [][]byte
	// appends counts the commands appended, and probes are the events
	// of Empty's barriers without zeCommandListHostSynchronize, each
	// with the count it followed, until they complete.
	appends uint64
	probes  []probe

	// Profiling: a device timestamp (ticks) read together with the host
	// clock, the reference of the event times.
	baseTicks, baseNS uint64
}

func (c *context) NewQueue(dd driver.Device, props driver.QueueProperties) (driver.Queue, error) {
	d := dd.(*device)
	desc := &ze.CommandQueueDesc{Ordinal: d.computeOrdinal, Mode: ze.CommandQueueModeAsynchronous, Priority: queuePriority(props.Priority)}
	inOrder := d.p.inOrderLists && !props.OutOfOrder
	if inOrder {
		desc.Flags = ze.CommandQueueFlagInOrder
	}
	l, r := c.ze.CommandListCreateImmediate(c.handle, d.handle, desc)
	if err := check("zeCommandListCreateImmediate", r); err != nil {
		return nil, err
	}
	q := &queue{c: c, dev: d, ze: c.ze, list: l, profiling: props.Profiling, inOrder: inOrder, outOfOrder: props.OutOfOrder}
	if err := c.addQueue(q); err != nil {
		c.ze.CommandListDestroy(l)
		return nil, err
	}
	return q, nil
}

// queuePriority maps QueueProperties.Priority onto Level Zero's three
// levels: positive is high, negative low.
func queuePriority(p int) ze.CommandQueuePriority {
	switch {
	case p > 0:
		return ze.CommandQueuePriorityHigh
	case p < 0:
		return ze.CommandQueuePriorityLow
	}
	return ze.CommandQueuePriorityNormal
}

// addQueue finishes setting up q over its list and registers it in the
// context.
func (c *context) addQueue(q *queue) error {
	d := q.dev
	if !c.ze.HasCommandListHostSynchronize() {
		e, s, err := c.plain.get()
		if err != nil {
			return err
		}
		q.syncEvent, q.syncSlot = e, s
	}
	if q.profiling {
		q.baseNS = uint64(time.Now().UnixNano())
		if _, ticks, r := c.ze.DeviceGetGlobalTimestamps(d.handle); r == ze.Success {
			q.baseTicks = ticks
		} else {
			// Without a reference the times count from the device's
			// timestamp zero: differences stay right.
			q.baseNS = 0
		}
	}
	c.retain()
	c.mu.Lock()
	c.queues[q] = struct{}{}
	c.mu.Unlock()
	return nil
}

func (q *queue) Native() uintptr { return uintptr(q.list) }

// Release waits for the queue's commands, then destroys its command list.
func (q *queue) Release() error {
	q.c.mu.Lock()
	delete(q.c.queues, q)
	q.c.mu.Unlock()
	q.mu.Lock()
	err := q.sync()
	q.closed = true
	if q.syncEvent != 0 {
		q.c.plain.put(q.syncEvent, q.syncSlot)
		q.syncEvent = 0
	}
	if !q.borrowed {
		if err2 := check("zeCommandListDestroy", q.ze.CommandListDestroy(q.list)); err == nil {
			err = err2
		}
	}
	q.mu.Unlock()
	if err2 := q.c.unref(); err == nil {
		err = err2
	}
	return err
}

// Flush has nothing to do: an immediate command list submits each command
// as it is appended.
func (q *queue) Flush() error { return nil }

// Finish waits for the queue; a released queue (which a context's quiesce
// may still reach) has nothing to wait for.
func (q *queue) Finish() error {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.closed {
		return nil
	}
	return q.sync()
}

// sync waits on the host until every command appended so far is complete.
// The caller holds q.mu.
func (q *queue) sync() error {
	if q.syncEvent == 0 {
		if err := check("zeCommandListHostSynchronize", q.ze.CommandListHostSynchronize(q.list, ze.TimeoutInfinite)); err != nil {
			return err
		}
	} else {
		// A barrier signals the event once everything before it is done.
		if err := check("zeCommandListAppendBarrier", q.ze.CommandListAppendBarrier(q.list, q.syncEvent, nil)); err != nil {
			return err
		}
		r := q.ze.EventHostSynchronize(q.syncEvent, ze.TimeoutInfinite)
		if r == ze.Success {
			r = q.ze.EventHostReset(q.syncEvent)
		}
		if err := check("zeEventHostSynchronize", r); err != nil {
			return err
		}
	}
	q.pending = false
	q.keep = nil
	q.freeProbes()
	return nil
}

// command is one enqueue in progress: the events it waits for and the
// event it signals.
type command struct {
	wait   []ze.Event
	signal ze.Event
	ev     *event
}

// begin prepares a command: it orders it after the previous one on a
// list the driver does not order, converts the wait list and, when an
// event is wanted, takes one (with timestamps on a profiling queue). The
// caller holds q.mu.
func (q *queue) begin(wait []driver.Event, wantEvent bool) (command, error) {
	var cmd command
	if err := q.order(); err != nil {
		return cmd, err
	}
	if len(wait) > 0 {
		cmd.wait = make([]ze.Event, len(wait))
		for i, w := range wait {
			cmd.wait[i] = w.(*event).handle
		}
	}
	if !wantEvent {
		return cmd, nil
	}
	alloc := &q.c.plain
	if q.profiling {
		alloc = &q.c.timed
	}
	h, s, err := alloc.get()
	if err != nil {
		return cmd, err
	}
	cmd.signal = h
	q.c.retain()
	cmd.ev = &event{q: q, alloc: alloc, handle: h, slot: s, timestamps: q.profiling}
	if q.profiling {
		cmd.ev.queuedNS = uint64(time.Now().UnixNano())
	}
	return cmd, nil
}

// order appends a barrier when the list is not in order and a command
// came before: the next command then starts after it completes. An
// out-of-order queue gets none. The caller holds q.mu.
func (q *queue) order() error {
	if q.outOfOrder {
		return nil
	}
	return q.chain()
}

// chain is order for the steps of one command (the copies of a long
// fill), which run in order on any queue. The caller holds q.mu.
func (q *queue) chain() error {
	if q.inOrder || !q.pending {
		return nil
	}
	if err := check("zeCommandListAppendBarrier", q.ze.CommandListAppendBarrier(q.list, 0, nil)); err != nil {
		return err
	}
	q.pending = false
	return nil
}

// end finishes a command whose append returned r: on success it returns
// the event (nil when none was wanted), keeping host in it, or in the
// queue when there is no event, until the command is done; on failure it
// frees the event.
func (q *queue) end(fn string, cmd command, r ze.Result, host []byte) (driver.Event, error) {
	if r != ze.Success {
		if cmd.ev != nil {
			cmd.ev.free()
		}
		return nil, zeError(fn, r)
	}
	q.pending = true
	q.appends++
	if cmd.ev == nil {
		if host != nil {
			q.keep = append(q.keep, host)
		}
		return nil, nil
	}
	cmd.ev.keep = host
	return cmd.ev, nil
}

// blocking waits for the queue after a blocking command.
func (q *queue) blocking(blocking bool, ev driver.Event, err error) (driver.Event, error) {
	if err != nil || !blocking {
		return ev, err
	}
	if err := q.sync(); err != nil {
		return nil, err
	}
	return ev, nil
}

func (q *queue) WriteBuffer(m driver.Mem, blocking bool, offset uint64, src []byte, wait []driver.Event, wantEvent bool) (driver.Event, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	cmd, err := q.begin(wait, wantEvent)
	if err != nil {
		return nil, err
	}
	r := q.ze.CommandListAppendCopyFromHost(q.list, m.(*mem).ptr+uintptr(offset), unsafe.Pointer(&src[0]), uintptr(len(src)), cmd.signal, cmd.wait)
	ev, err := q.end("zeCommandListAppendMemoryCopy", cmd, r, src)
	return q.blocking(blocking, ev, err)
}

func (q *queue) ReadBuffer(m driver.Mem, blocking bool, offset uint64, dst []byte, wait []driver.Event, wantEvent bool) (driver.Event, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	cmd, err := q.begin(wait, wantEvent)
	if err != nil {
		return nil, err
	}
	r := q.ze.CommandListAppendCopyToHost(q.list, unsafe.Pointer(&dst[0]), m.(*mem).ptr+uintptr(offset), uintptr(len(dst)), cmd.signal, cmd.wait)
	ev, err := q.end("zeCommandListAppendMemoryCopy", cmd, r, dst)
	return q.blocking(blocking, ev, err)
}

func (q *queue) CopyBuffer(src, dst driver.Mem, srcOffset, dstOffset, size uint64, wait []driver.Event, wantEvent bool) (driver.Event, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	cmd, err := q.begin(wait, wantEvent)
	if err != nil {
		return nil, err
	}
	r := q.ze.CommandListAppendMemoryCopy(q.list, dst.(*mem).ptr+uintptr(dstOffset), src.(*mem).ptr+uintptr(srcOffset), uintptr(size), cmd.signal, cmd.wait)
	return q.end("zeCommandListAppendMemoryCopy", cmd, r, nil)
}

// FillBuffer uses zeCommandListAppendMemoryFill when the compute queue
// group takes a pattern that long. A longer pattern (Intel's compute
// engines take 16 bytes at most) is copied from the host once, then
// doubled by device-to-device copies, each after the previous.
func (q *queue) FillBuffer(m driver.Mem, pattern []byte, offset, size uint64, wait []driver.Event, wantEvent bool) (driver.Event, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.fill(m.(*mem).ptr+uintptr(offset), pattern, size, wait, wantEvent)
}

// fill is FillBuffer at a device address. The caller holds q.mu.
func (q *queue) fill(dst uintptr, pattern []byte, size uint64, wait []driver.Event, wantEvent bool) (driver.Event, error) {
	n := uint64(len(pattern))
	// The driver may read the pattern when the fill executes.
	pat := append([]byte(nil), pattern...)
	if uintptr(n) <= q.dev.maxFillPattern || size <= n {
		cmd, err := q.begin(wait, wantEvent)
		if err != nil {
			return nil, err
		}
		var r ze.Result
		if size <= n {
			r = q.ze.CommandListAppendCopyFromHost(q.list, dst, unsafe.Pointer(&pat[0]), uintptr(size), cmd.signal, cmd.wait)
		} else {
			r = q.ze.CommandListAppendMemoryFill(q.list, dst, pat, uintptr(size), cmd.signal, cmd.wait)
		}
		return q.end("zeCommandListAppendMemoryFill", cmd, r, pat)
	}
	// First the pattern itself, after the wait list; no event yet.
	cmd, err := q.begin(wait, false)
	if err != nil {
		return nil, err
	}
	r := q.ze.CommandListAppendCopyFromHost(q.list, dst, unsafe.Pointer(&pat[0]), uintptr(n), 0, cmd.wait)
	if _, err := q.end("zeCommandListAppendMemoryCopy", cmd, r, pat); err != nil {
		return nil, err
	}
	for filled := n; filled < size; {
		chunk := min(filled, size-filled)
		last := filled+chunk == size
		if err := q.chain(); err != nil {
			return nil, err
		}
		cmd, err := q.begin(nil, last && wantEvent)
		if err != nil {
			return nil, err
		}
		r := q.ze.CommandListAppendMemoryCopy(q.list, dst+uintptr(filled), dst, uintptr(chunk), cmd.signal, nil)
		ev, err := q.end("zeCommandListAppendMemoryCopy", cmd, r, nil)
		if err != nil || last {
			if ev != nil {
				// The pattern is read by the first copy, before this one.
				ev.(*event).keep = pat
			}
			return ev, err
		}
		filled += chunk
	}
	return nil, nil
}
