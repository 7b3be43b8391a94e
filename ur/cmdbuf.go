package ur

import (
	"slices"
	"sync"

	"github.com/gour-dev/gour/trace"
	"github.com/gour-dev/gour/ur/driver"
)

// CommandBufferOptions configures a command buffer.
type CommandBufferOptions struct {
	// Updatable lets CommandBuffer.UpdateLaunch change a recorded launch's arguments
	// and range after Finalize.
	Updatable bool
	// Mode chooses between the driver's command buffer and gour's
	// emulation; the zero value, CommandBufferAuto, takes the faster.
	Mode CommandBufferMode
}

// CommandBufferMode chooses how a command buffer is recorded and replayed.
type CommandBufferMode uint8

const (
	// CommandBufferAuto records natively where the driver has command
	// buffers, except where its adapter measured them slower than the
	// same launches one by one (PoCL: docs/benchmarks.md), and emulates
	// them elsewhere.
	CommandBufferAuto CommandBufferMode = iota
	// CommandBufferNative records in the driver's command buffer;
	// NewCommandBuffer fails with ErrUnsupportedFeature where it has none.
	CommandBufferNative
	// CommandBufferEmulated records in gour and replays the commands as
	// launches prepared with their arguments, one call each.
	CommandBufferEmulated
)

// CommandBuffer is a recorded sequence of commands for one device —
// launches, copies and fills — finalized once and replayed by one
// Queue.EnqueueCommandBuffer as many times as wanted, as CUDA graphs,
// OpenCL's cl_khr_command_buffer, Level Zero's command lists and SYCL's
// ext_oneapi_graph do. Commands run in the order they were recorded.
//
// Where the driver has no command buffers, or its adapter measured them
// slower than the same launches one by one, gour records the commands and
// replays them itself: Emulated reports it. An emulated replay makes each
// launch as prepared once per queue, with the arguments bound when it was
// recorded — one driver call, no checks and no allocation per launch —
// and costs no more than the launches made one by one.
// Buffers a command uses stay alive while the command buffer does; USM a
// command uses must not be freed before the last replay (a replay after
// it fails with ErrInvalidMemObject).
type CommandBuffer struct {
	object
	ctx       *Context
	dev       *Device
	drv       driver.CommandBuffer // nil: emulated
	updatable bool

	mu        sync.Mutex
	finalized bool
	cmds      []*Command
	// usm lists the USM pointers the commands use, checked at each
	// replay; made by Finalize and UpdateLaunch.
	usm []Ptr
	// plans are an emulated buffer's launches prepared for the queues
	// that replayed it last, most recent first (cmdreplay.go).
	plans []*replayPlan
}

// Command is one recorded command of a CommandBuffer.
type Command struct {
	cb  *CommandBuffer
	drv driver.Command
	// What the command uses, kept alive (buffers) or checked at each
	// replay (USM), and, for emulation, replayed.
	kind    commandKind
	kernel  *Kernel
	r       NDRange
	props   LaunchProperties
	args    []Arg
	dargs   []driver.LaunchArg // args in the adapter's form, made when recorded
	index   int                // the command's place in the buffer
	mems    [2]*Mem
	ptrs    [2]Ptr
	offsets [2]uint64
	size    uint64
	pattern []byte
}

type commandKind uint8

const (
	cmdLaunch commandKind = iota
	cmdCopy
	cmdFill
	cmdMemcpy
	cmdMemFill
)

// NewCommandBuffer creates an empty command buffer for dev.
func (c *Context) NewCommandBuffer(dev *Device, opts CommandBufferOptions) (rh *CommandBuffer, rerr error) {
	const op = "Context.NewCommandBuffer"
	if t := trace.Active(); t != nil {
		tc := beginCall(t, op, c)
		defer endNewOf(&tc, &rh, &rerr)
	}

	if err := c.enter(op); err != nil {
		return nil, err
	}
	defer c.life.leave()
	if dev == nil {
		return nil, nilHandle("Device", op)
	}
	if !c.hasDevice(dev) {
		return nil, newError(ErrInvalidDevice, op, c.adapter.name, "device %q is not in the context", dev.Name())
	}
	cb := &CommandBuffer{object: object{adapter: c.adapter}, ctx: c, dev: dev, updatable: opts.Updatable}
	cc, native := c.drv.(driver.CommandBufferContext)
	switch opts.Mode {
	case CommandBufferAuto:
		if adv, ok := c.drv.(driver.CommandBufferAdvisor); ok && native && adv.NativeCommandBufferSlower(dev.drv) {
			native = false
		}
	case CommandBufferNative:
		if !native {
			return nil, newError(ErrUnsupportedFeature, op, c.adapter.name, "the driver has no command buffers on %s", dev.Name())
		}
	case CommandBufferEmulated:
		native = false
	default:
		return nil, newError(ErrInvalidValue, op, c.adapter.name, "unknown command buffer mode %d", opts.Mode)
	}
	if native {
		drv, err := cc.NewCommandBuffer(dev.drv, driver.CommandBufferProperties{Updatable: opts.Updatable})
		if err != nil {
			return nil, c.wrap(err, op)
		}
		cb.drv = drv
	}
	cb.created("CommandBuffer")
	cb.life.free = cb.free
	return cb, nil
}

// free releases the driver's buffer and what the commands kept alive.
func (cb *CommandBuffer) free() error {
	var err error
	if cb.drv != nil {
		err = cb.drv.Release()
	}
	if e := cb.dropPlans(); err == nil {
		err = e
	}
	for _, c := range cb.cmds {
		c.unkeep()
	}
	cb.cmds = nil
	return err
}

func (cb *CommandBuffer) enter(op string) error {
	if cb == nil {
		return nilHandle("CommandBuffer", op)
	}
	return cb.object.enter("CommandBuffer", ErrInvalidValue, op)
}

// Release releases the command buffer once no replay is being enqueued;
// replays already enqueued complete (the drivers keep what they run).
func (cb *CommandBuffer) Release() error {
	if cb == nil {
		return nilHandle("CommandBuffer", "CommandBuffer.Release")
	}
	return cb.release("CommandBuffer", ErrInvalidValue)
}

// Emulated reports a command buffer that gour replays through ordinary
// enqueues because the driver has none.
func (cb *CommandBuffer) Emulated() bool { return cb != nil && cb.drv == nil }

// Len is the number of commands recorded.
func (cb *CommandBuffer) Len() int {
	if cb.enter("CommandBuffer.Len") != nil {
		return 0
	}
	defer cb.life.leave()
	cb.mu.Lock()
	defer cb.mu.Unlock()
	return len(cb.cmds)
}

// record is the shared body of the Append methods: it checks the buffer
// is still recording, keeps what the command uses alive, and appends it
// to the driver's buffer through add.
func (cb *CommandBuffer) record(op string, c *Command, add func() (driver.Command, error)) (*Command, error) {
	if err := cb.enter(op); err != nil {
		return nil, err
	}
	defer cb.life.leave()
	cb.mu.Lock()
	defer cb.mu.Unlock()
	if cb.finalized {
		return nil, newError(ErrInvalidOperation, op, cb.adapter.name, "the command buffer is finalized: record into a new one")
	}
	if err := c.keep(op); err != nil {
		return nil, err
	}
	if cb.drv != nil {
		drv, err := add()
		if err != nil {
			c.unkeep()
			return nil, wrapError(err, op, cb.adapter.name)
		}
		c.drv = drv
	}
	c.cb = cb
	c.index = len(cb.cmds)
	cb.cmds = append(cb.cmds, c)
	return c, nil
}

// keep enters the kernel and buffers the command uses, for the life of
// the command buffer.
func (c *Command) keep(op string) error {
	var kept []*lifetime
	undo := func() {
		for _, l := range kept {
			l.leave()
		}
	}
	if c.kernel != nil {
		if err := c.kernel.enter(op); err != nil {
			return err
		}
		kept = append(kept, &c.kernel.life)
	}
	for _, m := range c.allMems() {
		if err := m.enter(op); err != nil {
			undo()
			return err
		}
		kept = append(kept, &m.life)
	}
	return nil
}

func (c *Command) unkeep() {
	if c.kernel != nil {
		c.kernel.life.leave()
	}
	for _, m := range c.allMems() {
		m.life.leave()
	}
}

// allMems lists the buffers the command uses.
func (c *Command) allMems() []*Mem {
	var out []*Mem
	for _, m := range c.mems {
		if m != nil {
			out = append(out, m)
		}
	}
	for _, a := range c.args {
		if a.kind == ArgMem && a.mem != nil {
			out = append(out, a.mem)
		}
	}
	return out
}

// allPtrs lists the USM pointers the command uses.
func (c *Command) allPtrs() []Ptr {
	var out []Ptr
	for _, p := range c.ptrs {
		if !p.IsNil() {
			out = append(out, p)
		}
	}
	for _, a := range c.args {
		if a.kind == ArgMem && a.mem == nil {
			out = append(out, a.ptr)
		}
	}
	return out
}

// checkArgs validates a launch's arguments as Launch does with them,
// returning the adapter's form; the buffers and pointers are left as
// found.
func (k *Kernel) checkArgs(op string, args []Arg) ([]driver.LaunchArg, error) {
	if k.numArgs != driver.NumArgsUnknown && len(args) != int(k.numArgs) {
		return nil, newError(ErrInvalidKernelArgs, op, k.adapter.name, "kernel %s takes %d arguments, the launch gives %d", k.name, k.numArgs, len(args))
	}
	out := make([]driver.LaunchArg, len(args))
	for i := range args {
		d, err := k.checkLaunchArg(op, i, &args[i])
		if err != nil {
			leaveArgs(args[:i])
			return nil, err
		}
		out[i] = d
	}
	leaveArgs(args)
	return out, nil
}

// AppendLaunch records a launch of k over r with its arguments.
func (cb *CommandBuffer) AppendLaunch(k *Kernel, r NDRange, props LaunchProperties, args ...Arg) (rv *Command, rerr error) {
	const op = "CommandBuffer.AppendLaunch"
	if t := trace.Active(); t != nil {
		tc := beginCall(t, op, cb, k)
		defer tc.end(&rerr)
	}

	if err := cb.enter(op); err != nil {
		return nil, err
	}
	defer cb.life.leave()
	if err := k.enter(op); err != nil {
		return nil, err
	}
	defer k.life.leave()
	if k.ctx != cb.ctx {
		return nil, newError(ErrInvalidContext, op, cb.adapter.name, "kernel belongs to another context")
	}
	if err := checkRange(op, cb.adapter.name, &r); err != nil {
		return nil, err
	}
	dargs, err := k.checkArgs(op, args)
	if err != nil {
		return nil, err
	}
	c := &Command{kind: cmdLaunch, kernel: k, r: r, props: props, args: slices.Clone(args), dargs: dargs}
	return cb.record(op, c, func() (driver.Command, error) { return cb.drv.AppendLaunch(k.drv, r, dargs, props) })
}

// AppendCopy records a copy of size bytes between buffers.
func (cb *CommandBuffer) AppendCopy(src, dst *Mem, srcOffset, dstOffset, size uint64) (rv *Command, rerr error) {
	const op = "CommandBuffer.AppendCopy"
	if t := trace.Active(); t != nil {
		tc := beginCall(t, op, cb)
		defer tc.end(&rerr)
	}

	for _, m := range []*Mem{src, dst} {
		if err := m.enter(op); err != nil {
			return nil, err
		}
		defer m.life.leave()
		if cb != nil && m.ctx != cb.ctx {
			return nil, newError(ErrInvalidContext, op, cb.adapter.name, "buffer belongs to another context")
		}
		if err := m.notImage(op); err != nil {
			return nil, err
		}
	}
	if err := src.checkRange(op, srcOffset, size); err != nil {
		return nil, err
	}
	if err := dst.checkRange(op, dstOffset, size); err != nil {
		return nil, err
	}
	if src == dst && srcOffset < dstOffset+size && dstOffset < srcOffset+size {
		return nil, newError(ErrOverlappingRegions, op, src.adapter.name, "source and destination ranges overlap")
	}
	c := &Command{kind: cmdCopy, mems: [2]*Mem{src, dst}, offsets: [2]uint64{srcOffset, dstOffset}, size: size}
	return cb.record(op, c, func() (driver.Command, error) {
		return cb.drv.AppendCopy(src.drv, dst.drv, srcOffset, dstOffset, size)
	})
}

// AppendFill records a fill of size bytes of a buffer with pattern.
func (cb *CommandBuffer) AppendFill(m *Mem, pattern []byte, offset, size uint64) (rv *Command, rerr error) {
	const op = "CommandBuffer.AppendFill"
	if t := trace.Active(); t != nil {
		tc := beginCall(t, op, cb)
		defer tc.end(&rerr)
	}

	if err := m.enter(op); err != nil {
		return nil, err
	}
	defer m.life.leave()
	if cb != nil && m.ctx != cb.ctx {
		return nil, newError(ErrInvalidContext, op, cb.adapter.name, "buffer belongs to another context")
	}
	if err := m.notImage(op); err != nil {
		return nil, err
	}
	if err := checkPattern(op, m.adapter.name, pattern, offset, size); err != nil {
		return nil, err
	}
	if err := m.checkRange(op, offset, size); err != nil {
		return nil, err
	}
	pat := slices.Clone(pattern)
	c := &Command{kind: cmdFill, mems: [2]*Mem{m}, offsets: [2]uint64{offset}, size: size, pattern: pat}
	return cb.record(op, c, func() (driver.Command, error) { return cb.drv.AppendFill(m.drv, pat, offset, size) })
}

// AppendMemcpy records a copy of size bytes between USM pointers.
func (cb *CommandBuffer) AppendMemcpy(dst, src Ptr, size uint64) (rv *Command, rerr error) {
	const op = "CommandBuffer.AppendMemcpy"
	if t := trace.Active(); t != nil {
		tc := beginCall(t, op, cb)
		tc.args.Uint("bytes", size)
		defer tc.end(&rerr)
	}

	if err := cb.enter(op); err != nil {
		return nil, err
	}
	defer cb.life.leave()
	if size == 0 {
		return nil, newError(ErrInvalidSize, op, cb.adapter.name, "copy size is 0")
	}
	for i, p := range []Ptr{dst, src} {
		if err := p.use(op, [...]string{"the destination", "the source"}[i], cb.ctx, size); err != nil {
			return nil, err
		}
		p.u.life.leave()
	}
	c := &Command{kind: cmdMemcpy, ptrs: [2]Ptr{dst, src}, size: size}
	return cb.record(op, c, func() (driver.Command, error) { return cb.drv.AppendUSMCopy(dst.Addr(), src.Addr(), size) })
}

// AppendMemFill records a fill of size bytes from p with pattern.
func (cb *CommandBuffer) AppendMemFill(p Ptr, pattern []byte, size uint64) (rv *Command, rerr error) {
	const op = "CommandBuffer.AppendMemFill"
	if t := trace.Active(); t != nil {
		tc := beginCall(t, op, cb)
		defer tc.end(&rerr)
	}

	if err := cb.enter(op); err != nil {
		return nil, err
	}
	defer cb.life.leave()
	if err := checkPattern(op, cb.adapter.name, pattern, 0, size); err != nil {
		return nil, err
	}
	if err := p.use(op, "the pointer", cb.ctx, size); err != nil {
		return nil, err
	}
	p.u.life.leave()
	pat := slices.Clone(pattern)
	c := &Command{kind: cmdMemFill, ptrs: [2]Ptr{p}, size: size, pattern: pat}
	return cb.record(op, c, func() (driver.Command, error) { return cb.drv.AppendUSMFill(p.Addr(), pat, size) })
}

// Finalize ends recording: the buffer can then be enqueued, and no more
// commands recorded.
func (cb *CommandBuffer) Finalize() (rerr error) {
	const op = "CommandBuffer.Finalize"
	if t := trace.Active(); t != nil {
		tc := beginCall(t, op, cb)
		defer tc.end(&rerr)
	}

	if err := cb.enter(op); err != nil {
		return err
	}
	defer cb.life.leave()
	cb.mu.Lock()
	defer cb.mu.Unlock()
	if cb.finalized {
		return newError(ErrInvalidOperation, op, cb.adapter.name, "the command buffer is already finalized")
	}
	if cb.drv != nil {
		if err := cb.drv.Finalize(); err != nil {
			return wrapError(err, op, cb.adapter.name)
		}
	}
	cb.finalized = true
	cb.usm = cb.collectPtrs()
	return nil
}

// UpdateLaunch changes recorded launch c's range (nil: keep) and
// arguments (none: keep) for the replays enqueued after it, without
// recording the buffer again. The buffer must have been made Updatable
// and finalized.
func (cb *CommandBuffer) UpdateLaunch(c *Command, r *NDRange, args ...Arg) (rerr error) {
	const op = "CommandBuffer.UpdateLaunch"
	if t := trace.Active(); t != nil {
		tc := beginCall(t, op, cb)
		defer tc.end(&rerr)
	}

	if err := cb.enter(op); err != nil {
		return err
	}
	defer cb.life.leave()
	if c == nil || c.cb != cb {
		return newError(ErrInvalidValue, op, cb.adapter.name, "the command is not in this command buffer")
	}
	if c.kind != cmdLaunch {
		return newError(ErrInvalidValue, op, cb.adapter.name, "only launches can be updated")
	}
	if !cb.updatable {
		return newError(ErrInvalidOperation, op, cb.adapter.name, "the command buffer was not made Updatable")
	}
	cb.mu.Lock()
	defer cb.mu.Unlock()
	if !cb.finalized {
		return newError(ErrInvalidOperation, op, cb.adapter.name, "finalize the command buffer before updating its commands")
	}
	nr := c.r
	if r != nil {
		nr = *r
		if err := checkRange(op, cb.adapter.name, &nr); err != nil {
			return err
		}
	}
	var dargs []driver.LaunchArg
	nargs, ndargs := c.args, c.dargs
	if len(args) > 0 {
		var err error
		if dargs, err = c.kernel.checkArgs(op, args); err != nil {
			return err
		}
		nargs, ndargs = slices.Clone(args), dargs
	}
	next := &Command{kind: cmdLaunch, kernel: c.kernel, r: nr, props: c.props, args: nargs}
	if err := next.keep(op); err != nil {
		return err
	}
	if cb.drv != nil {
		var rp *driver.NDRange
		if r != nil {
			rp = &nr
		}
		if err := cb.drv.UpdateLaunch(c.drv, dargs, rp); err != nil {
			next.unkeep()
			return wrapError(err, op, cb.adapter.name)
		}
	}
	c.unkeep()
	c.r, c.args, c.dargs = nr, nargs, ndargs
	cb.usm = cb.collectPtrs()
	// Prepared again, with the new arguments, at the next replay.
	if err := cb.dropStep(c.index); err != nil {
		return wrapError(err, op, cb.adapter.name)
	}
	return nil
}

// EnqueueCommandBuffer replays cb on the queue after the wait list and
// returns the replay's event. The queue must be on the buffer's device.
func (q *Queue) EnqueueCommandBuffer(cb *CommandBuffer, wait ...*Event) (rh *Event, rerr error) {
	const op = "Queue.EnqueueCommandBuffer"
	if t := trace.Active(); t != nil {
		tc := beginCall(t, op, q, cb)
		defer tc.endEventOf(q, &rh, &rerr)
	}

	if err := q.enter(op); err != nil {
		return nil, err
	}
	defer q.life.leave()
	if err := cb.enter(op); err != nil {
		return nil, err
	}
	defer cb.life.leave()
	if cb.ctx != q.ctx || cb.dev != q.device {
		return nil, newError(ErrInvalidQueue, op, q.adapter.name, "the command buffer is for %s, the queue's device is %s", cb.dev.Name(), q.device.Name())
	}
	cb.mu.Lock()
	defer cb.mu.Unlock()
	if !cb.finalized {
		return nil, newError(ErrInvalidOperation, op, q.adapter.name, "finalize the command buffer before enqueuing it")
	}
	for _, p := range cb.usm {
		if p.u.life.released() {
			return nil, cb.freedPtr(op, p)
		}
	}
	if cb.drv == nil {
		return q.replay(op, cb, wait)
	}
	dw, err := q.useWaitList(op, wait)
	if err != nil {
		return nil, err
	}
	defer leaveEvents(wait)
	ev, err := cb.drv.Enqueue(q.drv, dw, true)
	return q.finishEnqueue(op, ev, err, nil)
}

// collectPtrs lists the USM pointers the commands use.
func (cb *CommandBuffer) collectPtrs() []Ptr {
	var out []Ptr
	for _, c := range cb.cmds {
		out = append(out, c.allPtrs()...)
	}
	return out
}

// freedPtr is the error of a replay of a buffer that uses p, freed.
func (cb *CommandBuffer) freedPtr(op string, p Ptr) error {
	for i, c := range cb.cmds {
		for _, cp := range c.allPtrs() {
			if cp.u == p.u {
				return newError(ErrInvalidMemObject, op, cb.adapter.name, "command %d uses the USM allocation at %#x, which was freed", i, p.u.addr)
			}
		}
	}
	return newError(ErrInvalidMemObject, op, cb.adapter.name, "the USM allocation at %#x was freed", p.u.addr)
}
