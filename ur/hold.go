package ur

import (
	"context"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/gour-dev/gour/ur/driver"
)

// hostHold keeps the Go memory a non-blocking command reads or writes
// reachable, and pinned, until the command completes. Two parties hold
// it: the queue, which drops it once it sees the command complete, and
// the command's Event, dropped by Event.Release. Tying it to the Event
// alone was not enough: an Event released early, or dropped without a
// Release, let the garbage collector take memory the device was still
// copying.
type hostHold struct {
	drv  driver.Event
	host []byte
	pin  runtime.Pinner
	refs atomic.Int32
}

// drop ends one party's hold; the last one releases the driver's event.
func (h *hostHold) drop() error {
	if h.refs.Add(-1) != 0 {
		return nil
	}
	h.pin.Unpin()
	h.host = nil
	return h.drv.Release()
}

// holds is a queue's list of host memory in flight.
type holds struct {
	mu   sync.Mutex
	list []*hostHold
}

// add holds host for the command of drv, first dropping the holds of
// commands that have completed, so that the list stays as short as the
// work in flight.
func (hs *holds) add(drv driver.Event, host []byte) *hostHold {
	h := &hostHold{drv: drv, host: host}
	h.refs.Store(2)
	h.pin.Pin(&host[0])
	hs.mu.Lock()
	defer hs.mu.Unlock()
	hs.list = dropCompleted(hs.list)
	hs.list = append(hs.list, h)
	return h
}

// dropCompleted drops the holds whose commands completed (or
// failed: a failed command no longer touches the memory).
func dropCompleted(list []*hostHold) []*hostHold {
	kept := list[:0]
	for _, h := range list {
		if st, err := h.drv.Status(); err == nil && st != driver.EventComplete {
			kept = append(kept, h)
			continue
		}
		h.drop()
	}
	clear(list[len(kept):])
	return kept
}

// dropAll drops every hold once the queue has finished its work; with
// wait set it first waits for each command (a queue being released).
func (hs *holds) dropAll(wait bool) {
	hs.mu.Lock()
	list := hs.list
	hs.list = nil
	hs.mu.Unlock()
	for _, h := range list {
		if wait {
			h.drv.Wait(context.Background())
		}
		h.drop()
	}
}
