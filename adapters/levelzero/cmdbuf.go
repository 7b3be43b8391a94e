package levelzero

import (
	"sync"
	"time"
	"unsafe"

	"github.com/gour-dev/gour/adapters/levelzero/internal/ze"
	"github.com/gour-dev/gour/ur/driver"
)

var _ driver.CommandBufferContext = (*context)(nil)

// cmdBuffer is a command buffer: a regular command list (zeCommandListCreate)
// that records the commands, closed at Finalize, and executed on a
// command queue of its own by each Enqueue.
//
// A closed list takes no wait events, and a queue is an immediate list
// the regular list cannot join, so an Enqueue executes three lists
// together: a prefix, re-recorded each time, that waits on an event the
// queue's immediate list signals after its earlier commands and the wait
// list (a barrier); the recorded list; and a suffix, re-recorded each
// time, whose barrier signals the replay's event. The queue's list then
// waits on that event, so its later commands follow the replay. Nothing
// waits on the host, except for the buffer's previous replay (its fence),
// before the prefix and suffix are reset: Level Zero forbids resetting a
// list the device may still execute. The three lists rely on one
// command queue running what it is given in order, as Level Zero
// submits it.
type cmdBuffer struct {
	c         *context
	dev       *device
	ze        *ze.Lib
	updatable bool

	mu             sync.Mutex
	cq             ze.CommandQueue
	fence          ze.Fence
	main           ze.CommandList
	prefix, suffix ze.CommandList
	cmds           []*cbCommand
	finalized      bool
	inFlight       bool // the fence is armed by an execution
	// The events of the last replay until its fence: start, and done
	// when the caller took no event of it.
	start, done         ze.Event
	startSlot, doneSlot eventSlot
	doneAlloc           *eventAllocator
	// keep holds the fill patterns the recorded list reads.
	keep [][]byte
}

// cbCommand is one recorded command: append appends it to a list, again
// when the list is recorded anew (UpdateLaunch).
type cbCommand struct {
	append func(l ze.CommandList) (string, ze.Result)
	launch *cbLaunch // nil for other commands
}

// cbLaunch is a recorded launch with a kernel handle of its own. Level
// Zero reads a launch's arguments, group size and offset when it is
// appended, so a pooled handle would serve the recording itself; but the
// list uses the handle until it is destroyed (zeKernelDestroy requires
// that no list does), and UpdateLaunch sets new arguments on it and
// records the list again: each launch keeps its own.
type cbLaunch struct {
	k           *kernel
	kd          kernelDev
	groups      ze.GroupCount
	cooperative bool
}

func (c *context) NewCommandBuffer(dd driver.Device, props driver.CommandBufferProperties) (driver.CommandBuffer, error) {
	d := dd.(*device)
	cb := &cmdBuffer{c: c, dev: d, ze: c.ze, updatable: props.Updatable}
	desc := &ze.CommandQueueDesc{Ordinal: d.computeOrdinal, Mode: ze.CommandQueueModeAsynchronous}
	var r ze.Result
	if cb.cq, r = c.ze.CommandQueueCreate(c.handle, d.handle, desc); r != ze.Success {
		return nil, zeError("zeCommandQueueCreate", r)
	}
	if cb.fence, r = c.ze.FenceCreate(cb.cq); r != ze.Success {
		cb.destroy()
		return nil, zeError("zeFenceCreate", r)
	}
	for _, l := range []*ze.CommandList{&cb.main, &cb.prefix, &cb.suffix} {
		if *l, r = c.ze.CommandListCreate(c.handle, d.handle, &ze.CommandListDesc{CommandQueueGroupOrdinal: d.computeOrdinal}); r != ze.Success {
			cb.destroy()
			return nil, zeError("zeCommandListCreate", r)
		}
	}
	c.retain()
	return cb, nil
}

// destroy destroys what the buffer made; the device no longer runs it.
func (cb *cmdBuffer) destroy() error {
	var err error
	keep := func(fn string, r ze.Result) {
		if e := check(fn, r); e != nil && err == nil {
			err = e
		}
	}
	for _, c := range cb.cmds {
		if c.launch != nil {
			keep("zeKernelDestroy", cb.ze.KernelDestroy(c.launch.kd.handle))
			if e := c.launch.k.p.unref(); e != nil && err == nil {
				err = e
			}
		}
	}
	cb.cmds = nil
	for _, l := range []ze.CommandList{cb.main, cb.prefix, cb.suffix} {
		if l != 0 {
			keep("zeCommandListDestroy", cb.ze.CommandListDestroy(l))
		}
	}
	if cb.fence != 0 {
		keep("zeFenceDestroy", cb.ze.FenceDestroy(cb.fence))
	}
	if cb.cq != 0 {
		keep("zeCommandQueueDestroy", cb.ze.CommandQueueDestroy(cb.cq))
	}
	return err
}

// Release waits for the last replay, then destroys the buffer.
func (cb *cmdBuffer) Release() error {
	cb.mu.Lock()
	defer cb.mu.Unlock()
	err := cb.retire()
	if err2 := cb.destroy(); err == nil {
		err = err2
	}
	if err2 := cb.c.unref(); err == nil {
		err = err2
	}
	return err
}

// Emulated is false: the buffer is a Level Zero command list.
func (cb *cmdBuffer) Emulated() bool { return false }

// add records a command, after a barrier when another came before:
// regular lists of Level Zero 1.4 have no in-order flag
// (ZE_COMMAND_LIST_FLAG_IN_ORDER is spec 1.9), and commands of a buffer
// run in the order recorded.
func (cb *cmdBuffer) add(c *cbCommand) (driver.Command, error) {
	cb.mu.Lock()
	defer cb.mu.Unlock()
	if cb.finalized {
		return nil, driver.Errorf(driver.ResultInvalidOperation, "the command buffer is finalized")
	}
	if err := cb.record(len(cb.cmds), c); err != nil {
		return nil, err
	}
	cb.cmds = append(cb.cmds, c)
	return c, nil
}

// record appends command i to the recorded list. The caller holds cb.mu.
func (cb *cmdBuffer) record(i int, c *cbCommand) error {
	if i > 0 {
		if err := check("zeCommandListAppendBarrier", cb.ze.CommandListAppendBarrier(cb.main, 0, nil)); err != nil {
			return err
		}
	}
	fn, r := c.append(cb.main)
	return check(fn, r)
}

// AppendLaunch records a launch of a kernel handle of its own with args
// set on it (see cbLaunch).
func (cb *cmdBuffer) AppendLaunch(dk driver.Kernel, r driver.NDRange, args []driver.LaunchArg, props driver.LaunchProperties) (driver.Command, error) {
	k := dk.(*kernel)
	switch {
	case props.DynamicLocalMem != 0:
		return nil, driver.Errorf(driver.ResultUnsupportedFeature, "Level Zero has no dynamic work-group memory beyond local arguments (%d bytes asked): pass a local argument", props.DynamicLocalMem)
	case props.ClusterDims != [3]uint32{}:
		return nil, driver.Errorf(driver.ResultUnsupportedFeature, "Level Zero has no work-group clusters (%v asked)", props.ClusterDims)
	case props.Cooperative && !cb.dev.cooperative:
		return nil, driver.Errorf(driver.ResultUnsupportedFeature, "the compute queue group of %q runs no cooperative kernels", cb.dev.info.Name)
	}
	i := k.p.index(cb.dev)
	if i < 0 || k.perDev[i].handle == 0 {
		return nil, driver.Errorf(driver.ResultInvalidKernel, "kernel %s is not built for the command buffer's device %q", k.name, cb.dev.info.Name)
	}
	h, res := cb.ze.KernelCreate(k.perDev[i].module, k.name)
	if res != ze.Success {
		return nil, zeError("zeKernelCreate", res)
	}
	l := &cbLaunch{k: k, kd: kernelDev{handle: h, module: k.perDev[i].module, props: k.perDev[i].props}, cooperative: props.Cooperative}
	fail := func(err error) (driver.Command, error) {
		cb.ze.KernelDestroy(h)
		return nil, err
	}
	if err := l.set(cb.dev, args, &r); err != nil {
		return fail(err)
	}
	c := &cbCommand{launch: l, append: func(list ze.CommandList) (string, ze.Result) {
		if l.cooperative {
			return "zeCommandListAppendLaunchCooperativeKernel", cb.ze.CommandListAppendLaunchCooperativeKernel(list, l.kd.handle, l.groups, 0, nil)
		}
		return "zeCommandListAppendLaunchKernel", cb.ze.CommandListAppendLaunchKernel(list, l.kd.handle, l.groups, 0, nil)
	}}
	k.p.refs.Add(1) // the module stays while the handle does
	cmd, err := cb.add(c)
	if err != nil {
		k.p.unref()
		return fail(err)
	}
	return cmd, nil
}

// set sets a recorded launch's arguments (nil: keep) and range on its
// handle.
func (l *cbLaunch) set(d *device, args []driver.LaunchArg, r *driver.NDRange) error {
	if args != nil {
		if err := l.k.setArgs(&l.kd, args); err != nil {
			return err
		}
	}
	groups, err := d.shape(l.k.p.c.ze, &l.kd, r)
	if err != nil {
		return err
	}
	if err := d.offset(l.k.p.c.ze, &l.kd, r); err != nil {
		return err
	}
	l.groups = groups
	return nil
}

func (cb *cmdBuffer) AppendCopy(src, dst driver.Mem, srcOffset, dstOffset, size uint64) (driver.Command, error) {
	return cb.AppendUSMCopy(dst.(*mem).ptr+uintptr(dstOffset), src.(*mem).ptr+uintptr(srcOffset), size)
}

func (cb *cmdBuffer) AppendUSMCopy(dst, src uintptr, size uint64) (driver.Command, error) {
	return cb.add(&cbCommand{append: func(l ze.CommandList) (string, ze.Result) {
		return "zeCommandListAppendMemoryCopy", cb.ze.CommandListAppendMemoryCopy(l, dst, src, uintptr(size), 0, nil)
	}})
}

func (cb *cmdBuffer) AppendFill(m driver.Mem, pattern []byte, offset, size uint64) (driver.Command, error) {
	return cb.AppendUSMFill(m.(*mem).ptr+uintptr(offset), pattern, size)
}

// AppendUSMFill is zeCommandListAppendMemoryFill, or, for a pattern
// longer than the compute engine fills, the pattern copied from the host
// and doubled by copies, each after a barrier, as a queue's fill is.
func (cb *cmdBuffer) AppendUSMFill(ptr uintptr, pattern []byte, size uint64) (driver.Command, error) {
	pat := append([]byte(nil), pattern...)
	n := uint64(len(pat))
	c := &cbCommand{append: func(l ze.CommandList) (string, ze.Result) {
		if uintptr(n) <= cb.dev.maxFillPattern && size > n {
			return "zeCommandListAppendMemoryFill", cb.ze.CommandListAppendMemoryFill(l, ptr, pat, uintptr(size), 0, nil)
		}
		if r := cb.ze.CommandListAppendCopyFromHost(l, ptr, unsafe.Pointer(&pat[0]), uintptr(min(n, size)), 0, nil); r != ze.Success {
			return "zeCommandListAppendMemoryCopy", r
		}
		for filled := n; filled < size; filled *= 2 {
			if r := cb.ze.CommandListAppendBarrier(l, 0, nil); r != ze.Success {
				return "zeCommandListAppendBarrier", r
			}
			if r := cb.ze.CommandListAppendMemoryCopy(l, ptr+uintptr(filled), ptr, uintptr(min(filled, size-filled)), 0, nil); r != ze.Success {
				return "zeCommandListAppendMemoryCopy", r
			}
		}
		return "", ze.Success
	}}
	cmd, err := cb.add(c)
	if err == nil {
		cb.mu.Lock()
		cb.keep = append(cb.keep, pat)
		cb.mu.Unlock()
	}
	return cmd, err
}

// Finalize closes the recorded list.
func (cb *cmdBuffer) Finalize() error {
	cb.mu.Lock()
	defer cb.mu.Unlock()
	if err := check("zeCommandListClose", cb.ze.CommandListClose(cb.main)); err != nil {
		return err
	}
	cb.finalized = true
	return nil
}

// UpdateLaunch sets a recorded launch's new arguments and range on its
// kernel handle and records the list anew (zeCommandListReset, every
// command again, zeCommandListClose), after the last replay completes.
// Level Zero 1.4 has no mutable command lists
// (ZE_experimental_mutable_command_list is spec 1.9): the update costs a
// recording on the host, a replay nothing more.
func (cb *cmdBuffer) UpdateLaunch(dc driver.Command, args []driver.LaunchArg, r *driver.NDRange) error {
	c, ok := dc.(*cbCommand)
	if !ok || c.launch == nil {
		return driver.Errorf(driver.ResultInvalidValue, "the command is not a launch of a Level Zero command buffer")
	}
	if !cb.updatable {
		return driver.Errorf(driver.ResultInvalidOperation, "the command buffer was not made updatable")
	}
	cb.mu.Lock()
	defer cb.mu.Unlock()
	if err := cb.retire(); err != nil {
		return err
	}
	l := c.launch
	if r == nil {
		// Keep the range: the group count and size stay as recorded.
		if args == nil {
			return nil
		}
		if err := l.k.setArgs(&l.kd, args); err != nil {
			return err
		}
	} else if err := l.set(cb.dev, args, r); err != nil {
		return err
	}
	if err := check("zeCommandListReset", cb.ze.CommandListReset(cb.main)); err != nil {
		return err
	}
	for i, c := range cb.cmds {
		if err := cb.record(i, c); err != nil {
			return err
		}
	}
	return check("zeCommandListClose", cb.ze.CommandListClose(cb.main))
}

// retire waits for the last replay's fence and frees its events. The
// caller holds cb.mu.
func (cb *cmdBuffer) retire() error {
	if !cb.inFlight {
		return nil
	}
	if err := check("zeFenceHostSynchronize", cb.ze.FenceHostSynchronize(cb.fence, ze.TimeoutInfinite)); err != nil {
		return err
	}
	cb.inFlight = false
	cb.freeEvents()
	return check("zeFenceReset", cb.ze.FenceReset(cb.fence))
}

// freeEvents frees the last replay's events that the buffer kept, which
// nothing uses any more. The caller holds cb.mu.
func (cb *cmdBuffer) freeEvents() {
	if cb.start != 0 {
		cb.c.plain.put(cb.start, cb.startSlot)
		cb.start = 0
	}
	if cb.done != 0 {
		cb.doneAlloc.put(cb.done, cb.doneSlot)
		cb.done = 0
	}
}

// Enqueue replays the buffer after q's earlier commands and the wait list,
// and before q's later ones (see cmdBuffer). The event is the suffix's,
// with timestamps on a profiling queue.
func (cb *cmdBuffer) Enqueue(dq driver.Queue, wait []driver.Event, wantEvent bool) (driver.Event, error) {
	q := dq.(*queue)
	if q.dev != cb.dev {
		return nil, driver.Errorf(driver.ResultInvalidQueue, "the command buffer is for %q, the queue's device is %q", cb.dev.info.Name, q.dev.info.Name)
	}
	cb.mu.Lock()
	defer cb.mu.Unlock()
	if !cb.finalized {
		return nil, driver.Errorf(driver.ResultInvalidOperation, "the command buffer is not finalized")
	}
	if err := cb.retire(); err != nil {
		return nil, err
	}
	start, startSlot, err := cb.c.plain.get()
	if err != nil {
		return nil, err
	}
	alloc := &cb.c.plain
	if q.profiling {
		alloc = &cb.c.timed
	}
	done, doneSlot, err := alloc.get()
	if err != nil {
		cb.c.plain.put(start, startSlot)
		return nil, err
	}
	cb.start, cb.startSlot, cb.done, cb.doneSlot, cb.doneAlloc = start, startSlot, done, doneSlot, alloc
	if err := cb.bracket(start, done); err != nil {
		cb.freeEvents()
		return nil, err
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	var zw []ze.Event
	if len(wait) > 0 {
		zw = make([]ze.Event, len(wait))
		for i, w := range wait {
			zw[i] = w.(*event).handle
		}
	}
	if err := check("zeCommandListAppendBarrier", q.ze.CommandListAppendBarrier(q.list, start, zw)); err != nil {
		cb.freeEvents()
		return nil, err
	}
	lists := []ze.CommandList{cb.prefix, cb.main, cb.suffix}
	if err := check("zeCommandQueueExecuteCommandLists", cb.ze.CommandQueueExecuteCommandLists(cb.cq, lists, cb.fence)); err != nil {
		// The barrier signals start in time: wait for it before freeing.
		q.sync()
		cb.freeEvents()
		return nil, err
	}
	cb.inFlight = true
	q.appends++
	if err := check("zeCommandListAppendWaitOnEvents", q.ze.CommandListAppendWaitOnEvents(q.list, []ze.Event{done})); err != nil {
		return nil, err
	}
	q.pending = false
	if !wantEvent {
		return nil, nil
	}
	// The caller's event owns done from now on.
	cb.done = 0
	q.c.retain()
	ev := &event{q: q, alloc: alloc, handle: done, slot: doneSlot, timestamps: q.profiling}
	if q.profiling {
		ev.queuedNS = uint64(time.Now().UnixNano())
	}
	return ev, nil
}

// bracket records the prefix, which waits for start, and the suffix,
// whose barrier signals done after the replay. The caller holds cb.mu and
// the last replay is complete.
func (cb *cmdBuffer) bracket(start, done ze.Event) error {
	for _, step := range []struct {
		fn string
		r  func() ze.Result
	}{
		{"zeCommandListReset", func() ze.Result { return cb.ze.CommandListReset(cb.prefix) }},
		{"zeCommandListAppendWaitOnEvents", func() ze.Result { return cb.ze.CommandListAppendWaitOnEvents(cb.prefix, []ze.Event{start}) }},
		{"zeCommandListClose", func() ze.Result { return cb.ze.CommandListClose(cb.prefix) }},
		{"zeCommandListReset", func() ze.Result { return cb.ze.CommandListReset(cb.suffix) }},
		{"zeCommandListAppendBarrier", func() ze.Result { return cb.ze.CommandListAppendBarrier(cb.suffix, done, nil) }},
		{"zeCommandListClose", func() ze.Result { return cb.ze.CommandListClose(cb.suffix) }},
	} {
		if err := check(step.fn, step.r()); err != nil {
			return err
		}
	}
	return nil
}
