package collectives

import (
	"errors"
	"runtime"
	"sync"
	"sync/atomic"
	"syscall"
)

// group gathers the operations issued inside Group by one goroutine.
type group struct {
	depth int
	nccl  bool // ncclGroupStart was called
	// ring holds the ring's operations, per communicator in issue order.
	ring  map[*Communicator][]*call
	order []*Communicator
	// ncclComms are the NCCL communicators used, for their state after
	// a non-blocking ncclGroupEnd.
	ncclComms []*Communicator
}

var (
	openGroups atomic.Int32 // fast path: no group open anywhere
	groups     sync.Map     // OS thread id -> *group
)

// Group runs fn, whose operations on any communicators are issued as one
// (ncclGroupStart/ncclGroupEnd): the ranks of one process driven by one
// goroutine, a Send and a Recv both ways between two ranks, several
// collectives fused. The operations must be issued by fn's goroutine; a
// nested Group joins the outer one. With NCCL the group's operations are
// enqueued when Group returns; with the ring they run then, one
// goroutine per communicator, and Group returns when they are done. An
// error from fn discards the ring's operations (NCCL's group is still
// ended, as NCCL requires) and is returned.
func Group(fn func() error) error {
	// NCCL's group lives in the thread, and so does gour's: while fn's
	// goroutine is locked to it, no other goroutine runs there, so the
	// thread's id names the goroutine's group.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	id := syscall.Gettid()
	if v, ok := groups.Load(id); ok {
		g := v.(*group)
		g.depth++
		defer func() { g.depth-- }()
		return fn()
	}
	g := &group{ring: map[*Communicator][]*call{}}
	if lib, err := ncclLibLoaded(); err == nil && lib != nil {
		if r := lib.GroupStart(); r != 0 {
			return ncclError("Group", -1, lib, 0, "ncclGroupStart", r)
		}
		g.nccl = true
	}
	groups.Store(id, g)
	openGroups.Add(1)
	err := fn()
	groups.Delete(id)
	openGroups.Add(-1)
	if g.nccl {
		if e := endNCCLGroup(g); err == nil {
			err = e
		}
	}
	if err != nil {
		return err
	}
	return runRingGroup(g)
}

// currentGroup is the calling goroutine's open group, or nil. A
// goroutine outside Group may share a thread id with a group only once
// that group has ended (its goroutine holds the thread until then).
func currentGroup() *group {
	if openGroups.Load() == 0 {
		return nil
	}
	if v, ok := groups.Load(syscall.Gettid()); ok {
		return v.(*group)
	}
	return nil
}

// add issues o in the group: NCCL's at once (NCCL holds it until
// ncclGroupEnd), the ring's when the group ends.
func (g *group) add(c *Communicator, o *call) error {
	if c.b.name() == "nccl" {
		if !g.nccl {
			return c.errorf(o, ErrInvalidArgument, "NCCL was loaded after the group started")
		}
		c.mu.Lock()
		err := c.runTraced(o)
		c.mu.Unlock()
		g.ncclComms = append(g.ncclComms, c)
		return err
	}
	if _, ok := g.ring[c]; !ok {
		g.order = append(g.order, c)
	}
	g.ring[c] = append(g.ring[c], o)
	return nil
}

// runRingGroup runs the ring's operations of a group: each
// communicator's in order, the communicators at once.
func runRingGroup(g *group) error {
	if len(g.order) == 0 {
		return nil
	}
	errs := make([]error, len(g.order))
	var wg sync.WaitGroup
	for i, c := range g.order {
		wg.Go(func() {
			c.mu.Lock()
			defer c.mu.Unlock()
			for _, o := range g.ring[c] {
				if err := c.runTraced(o); err != nil {
					errs[i] = err
					return
				}
			}
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}
