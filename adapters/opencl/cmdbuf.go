package opencl

import (
	"slices"
	"sync"

	"github.com/gour-dev/gour/adapters/opencl/internal/cl"
	"github.com/gour-dev/gour/ur/driver"
)

// Command buffers through cl_khr_command_buffer. A context whose devices
// all have the extension is a cbContext, the only kind with
// NewCommandBuffer: on others the front end records and replays the
// commands itself, as it does by default on PoCL, whose buffers replay
// slower than the launches one by one (cmdreplay.go).

// cbContext is a context whose devices have cl_khr_command_buffer.
type cbContext struct{ *context }

var _ driver.CommandBufferContext = (*cbContext)(nil)

// driverContext returns c as the front end sees it: a cbContext where
// command buffers can be recorded.
func (c *context) driverContext() driver.Context {
	if c.commandBuffers() != nil {
		return &cbContext{c}
	}
	return c
}

// commandBuffers returns the extension's entry points where every device
// of the context has it, else nil. The signatures follow the lowest
// version among the devices (CL_DEVICE_EXTENSIONS_WITH_VERSION; 0.9.0
// where a device does not say).
func (c *context) commandBuffers() *cl.CommandBufferKHR {
	var p *platform
	version := ^uint32(0)
	for _, d := range c.devices {
		if !d.hasExtension("cl_khr_command_buffer") {
			return nil
		}
		p = d.p
		v := d.extensionVersion("cl_khr_command_buffer")
		if v == 0 {
			v = cl.Version(0, 9, 0)
		}
		version = min(version, v)
	}
	if p == nil {
		return nil
	}
	p.cbOnce.Do(func() { p.cb = p.a.lib.LoadCommandBufferKHR(p.handle, version) })
	return p.cb
}

// commandBuffer is a cl_command_buffer_khr recorded for the context's own
// queue on its device (it must be created for a queue, and no user queue
// is known when recording starts). The adapter keeps what it recorded, so
// that UpdateLaunch can record the buffer again (below).
type commandBuffer struct {
	ctx  *context
	dev  *device
	ext  *cl.CommandBufferKHR
	q    cl.Queue // the queue it is recorded for
	opts driver.CommandBufferProperties

	mu        sync.Mutex
	handle    cl.CommandBuffer
	flags     uint64
	cmds      []*command
	chain     cl.Chain
	finalized bool
	last      cl.Event // the last replay, where the buffer is not simultaneous-use
}

type cmdKind uint8

const (
	cmdLaunch cmdKind = iota
	cmdCopy
	cmdFill
	cmdUSMCopy
	cmdUSMFill
)

// command is one recorded command, as the adapter recorded it.
type command struct {
	kind cmdKind
	// A launch: a kernel of its own with the arguments set (so that later
	// SetArg calls on the user's kernel, and other launches, leave the
	// recording alone; PoCL 3.1 reads a recorded kernel's arguments at
	// each replay), and its sizes.
	k     *kernel
	kh    cl.Kernel
	args  []driver.LaunchArg
	r     driver.NDRange
	sizes *[3][3]uintptr
	mems  [2]*mem
	ptrs  [2]uintptr
	offs  [2]uint64
	size  uint64
	pat   []byte
}

func (c *cbContext) NewCommandBuffer(dev driver.Device, props driver.CommandBufferProperties) (driver.CommandBuffer, error) {
	d := dev.(*device)
	q, err := c.internalQueue(d)
	if err != nil {
		return nil, err
	}
	cb := &commandBuffer{ctx: c.context, dev: d, ext: c.commandBuffers(), q: q, opts: props}
	// Simultaneous use lets a replay be enqueued while the one before is
	// still pending; without it, Enqueue waits for that one first.
	if b, st := c.a.lib.DeviceInfo(d.handle, cl.DeviceCommandBufferCapabilitiesKHR); st == cl.Success && cl.Uint64(b)&cl.CommandBufferCapabilitySimultaneousUseKHR != 0 {
		cb.flags = cl.CommandBufferSimultaneousUseKHR
	}
	h, st := cb.ext.Create(q, cb.flags)
	if err := check("clCreateCommandBufferKHR", st); err != nil {
		return nil, err
	}
	cb.handle = h
	return cb, nil
}

// record appends c to handle after chain and returns the new chain.
func (cb *commandBuffer) record(h cl.CommandBuffer, chain cl.Chain, c *command) (cl.Chain, error) {
	var sp cl.SyncPoint
	var st cl.Status
	var fn string
	switch c.kind {
	case cmdLaunch:
		fn = "clCommandNDRangeKernelKHR"
		var withOffset bool
		for i := range c.r.Dims {
			withOffset = withOffset || c.r.Offset[i] != 0
		}
		sp, st = cb.ext.NDRangeKernel(h, c.kh, c.r.Dims, c.sizes, withOffset, c.r.Local[0] != 0, chain)
	case cmdCopy:
		fn = "clCommandCopyBufferKHR"
		sp, st = cb.ext.CopyBuffer(h, c.mems[0].handle, c.mems[1].handle, uintptr(c.offs[0]), uintptr(c.offs[1]), uintptr(c.size), chain)
	case cmdFill:
		fn = "clCommandFillBufferKHR"
		sp, st = cb.ext.FillBuffer(h, c.mems[0].handle, c.pat, uintptr(c.offs[0]), uintptr(c.size), chain)
	case cmdUSMCopy:
		fn = "clCommandSVMMemcpyKHR"
		sp, st = cb.ext.SVMMemcpy(h, c.ptrs[0], c.ptrs[1], uintptr(c.size), chain)
	case cmdUSMFill:
		fn = "clCommandSVMMemFillKHR"
		sp, st = cb.ext.SVMMemFill(h, c.ptrs[0], c.pat, uintptr(c.size), chain)
	}
	if err := check(fn, st); err != nil {
		return chain, err
	}
	return cl.Chain{After: sp, Has: true}, nil
}

// add records c at the end of the buffer.
func (cb *commandBuffer) add(c *command) (driver.Command, error) {
	cb.mu.Lock()
	defer cb.mu.Unlock()
	if cb.finalized {
		return nil, driver.Errorf(driver.ResultInvalidOperation, "the command buffer is finalized")
	}
	chain, err := cb.record(cb.handle, cb.chain, c)
	if err != nil {
		return nil, err
	}
	cb.chain = chain
	cb.cmds = append(cb.cmds, c)
	return c, nil
}

// launchKernel makes the kernel a recorded launch runs: a new one of k's
// with args set.
func launchKernel(k *kernel, args []driver.LaunchArg) (cl.Kernel, error) {
	h, err := k.newArgKernel()
	if err != nil {
		return 0, err
	}
	if err := k.setArgs(h, args); err != nil {
		k.lib.ReleaseKernel(h)
		return 0, err
	}
	return h, nil
}

// copyArgs copies a launch's arguments, value bytes included, to keep.
func copyArgs(args []driver.LaunchArg) []driver.LaunchArg {
	out := slices.Clone(args)
	for i := range out {
		if out[i].Bytes != nil {
			out[i].Bytes = slices.Clone(out[i].Bytes)
		}
	}
	return out
}

func rangeSizes(r *driver.NDRange) *[3][3]uintptr {
	s := new([3][3]uintptr)
	for i := range r.Dims {
		s[0][i], s[1][i], s[2][i] = uintptr(r.Offset[i]), uintptr(r.Global[i]), uintptr(r.Local[i])
	}
	return s
}

func (cb *commandBuffer) AppendLaunch(dk driver.Kernel, r driver.NDRange, args []driver.LaunchArg, props driver.LaunchProperties) (driver.Command, error) {
	if err := checkLaunchProps(&props); err != nil {
		return nil, err
	}
	k := dk.(*kernel)
	h, err := launchKernel(k, args)
	if err != nil {
		return nil, err
	}
	c := &command{kind: cmdLaunch, k: k, kh: h, args: copyArgs(args), r: r, sizes: rangeSizes(&r)}
	cmd, err := cb.add(c)
	if err != nil {
		k.lib.ReleaseKernel(h)
	}
	return cmd, err
}

func (cb *commandBuffer) AppendCopy(src, dst driver.Mem, srcOffset, dstOffset, size uint64) (driver.Command, error) {
	return cb.add(&command{kind: cmdCopy, mems: [2]*mem{src.(*mem), dst.(*mem)}, offs: [2]uint64{srcOffset, dstOffset}, size: size})
}

func (cb *commandBuffer) AppendFill(m driver.Mem, pattern []byte, offset, size uint64) (driver.Command, error) {
	return cb.add(&command{kind: cmdFill, mems: [2]*mem{m.(*mem)}, pat: slices.Clone(pattern), offs: [2]uint64{offset}, size: size})
}

// usmCommands checks that USM copies and fills can be recorded: they are
// clCommandSVMMemcpyKHR and clCommandSVMMemFillKHR (cl_khr_command_buffer
// 0.9.4) on a context whose USM is SVM.
func (cb *commandBuffer) usmCommands() error {
	switch {
	case cb.ctx.via != usmSVM:
		return driver.Errorf(driver.ResultUnsupportedFeature, "cl_khr_command_buffer records SVM commands only, and this context's USM is not SVM")
	case !cb.ext.HasSVM():
		return driver.Errorf(driver.ResultUnsupportedFeature, "device %q's cl_khr_command_buffer records no SVM copies or fills (clCommandSVMMemcpyKHR, version 0.9.4)", cb.dev.info.Name)
	}
	return nil
}

func (cb *commandBuffer) AppendUSMCopy(dst, src uintptr, size uint64) (driver.Command, error) {
	if err := cb.usmCommands(); err != nil {
		return nil, err
	}
	return cb.add(&command{kind: cmdUSMCopy, ptrs: [2]uintptr{dst, src}, size: size})
}

func (cb *commandBuffer) AppendUSMFill(ptr uintptr, pattern []byte, size uint64) (driver.Command, error) {
	if err := cb.usmCommands(); err != nil {
		return nil, err
	}
	return cb.add(&command{kind: cmdUSMFill, ptrs: [2]uintptr{ptr}, pat: slices.Clone(pattern), size: size})
}

func (cb *commandBuffer) Finalize() error {
	cb.mu.Lock()
	defer cb.mu.Unlock()
	if cb.finalized {
		return driver.Errorf(driver.ResultInvalidOperation, "the command buffer is already finalized")
	}
	if err := check("clFinalizeCommandBufferKHR", cb.ext.Finalize(cb.handle)); err != nil {
		return err
	}
	cb.finalized = true
	return nil
}

// Enqueue replays the buffer on q with clEnqueueCommandBufferKHR, naming
// q in place of the queue it was recorded for. OpenCL allows that for a
// compatible queue only (same device and properties: in order, no
// profiling); for another one, such as a profiling or out-of-order queue,
// the replay runs on the buffer's own queue, between a marker of q's
// commands so far and a barrier on q that holds back q's commands after
// it, and the replay's event stands for it on q.
func (cb *commandBuffer) Enqueue(dq driver.Queue, wait []driver.Event, wantEvent bool) (driver.Event, error) {
	q := dq.(*queue)
	cb.mu.Lock()
	defer cb.mu.Unlock()
	if !cb.finalized {
		return nil, driver.Errorf(driver.ResultInvalidOperation, "the command buffer is not finalized")
	}
	if cb.last != 0 {
		// Not simultaneous-use: the replay before must be done.
		if err := q.check("clWaitForEvents", q.lib.WaitForEvents([]cl.Event{cb.last}), true); err != nil {
			return nil, err
		}
		q.lib.ReleaseEvent(cb.last)
		cb.last = 0
	}
	// PoCL writes the replay's event unchecked: always ask for one.
	e := &event{lib: q.lib, q: q}
	wl := waitList(wait)
	st := cb.ext.Enqueue(q.handle, cb.handle, wl, &e.handle)
	if st == cl.IncompatibleCommandQueueKHR {
		var m cl.Event
		if err := check("clEnqueueMarkerWithWaitList", q.lib.EnqueueMarkerWithWaitList(q.handle, nil, &m)); err != nil {
			return nil, err
		}
		st = cb.ext.Enqueue(0, cb.handle, append(wl, m), &e.handle)
		q.lib.ReleaseEvent(m)
		if st == cl.Success {
			q.lib.Flush(cb.q)
			if err := check("clEnqueueBarrierWithWaitList", q.lib.EnqueueBarrierWithWaitList(q.handle, []cl.Event{e.handle}, nil)); err != nil {
				e.Release()
				return nil, err
			}
		}
	}
	if err := check("clEnqueueCommandBufferKHR", st); err != nil {
		return nil, err
	}
	if cb.flags&cl.CommandBufferSimultaneousUseKHR == 0 {
		q.lib.RetainEvent(e.handle)
		cb.last = e.handle
	}
	if !wantEvent {
		return nil, e.Release()
	}
	return e, nil
}

// UpdateLaunch changes a recorded launch. Where the driver has
// cl_khr_command_buffer_mutable_dispatch it could be updated in place;
// gour records the buffer again instead, on every driver: a new
// cl_command_buffer_khr with the launch's new kernel (its arguments set
// anew, or copied with clCloneKernel) and range, finalized, replaces the
// old one, which OpenCL keeps until the replays already enqueued are
// done. On failure the buffer is left as it was.
func (cb *commandBuffer) UpdateLaunch(dc driver.Command, args []driver.LaunchArg, r *driver.NDRange) error {
	c, ok := dc.(*command)
	if !ok || c.kind != cmdLaunch {
		return driver.Errorf(driver.ResultInvalidValue, "the command is not a recorded launch")
	}
	cb.mu.Lock()
	defer cb.mu.Unlock()
	if !cb.opts.Updatable {
		return driver.Errorf(driver.ResultInvalidOperation, "the command buffer was not made updatable")
	}
	if !cb.finalized {
		return driver.Errorf(driver.ResultInvalidOperation, "the command buffer is not finalized")
	}
	i := slices.Index(cb.cmds, c)
	if i < 0 {
		return driver.Errorf(driver.ResultInvalidValue, "the command is not in this command buffer")
	}
	next := *c
	if args != nil {
		next.args = copyArgs(args)
	}
	if r != nil {
		next.r = *r
		next.sizes = rangeSizes(r)
	}
	h, err := launchKernel(c.k, next.args)
	if err != nil {
		return err
	}
	next.kh = h
	nh, st := cb.ext.Create(cb.q, cb.flags)
	if err := check("clCreateCommandBufferKHR", st); err != nil {
		c.k.lib.ReleaseKernel(h)
		return err
	}
	var chain cl.Chain
	for j, old := range cb.cmds {
		rc := old
		if j == i {
			rc = &next
		}
		if chain, err = cb.record(nh, chain, rc); err != nil {
			break
		}
	}
	if err == nil {
		err = check("clFinalizeCommandBufferKHR", cb.ext.Finalize(nh))
	}
	if err != nil {
		cb.ext.Release(nh)
		c.k.lib.ReleaseKernel(h)
		return err
	}
	cb.ext.Release(cb.handle)
	c.k.lib.ReleaseKernel(c.kh)
	// The front end holds c; it becomes the updated launch.
	*c = next
	cb.handle, cb.chain = nh, chain
	if cb.last != 0 {
		// The replay pending was of the old buffer: the new one may run.
		cb.lib().ReleaseEvent(cb.last)
		cb.last = 0
	}
	return nil
}

func (cb *commandBuffer) lib() *cl.Lib { return cb.ctx.a.lib }

func (cb *commandBuffer) Emulated() bool { return false }

// Release releases the cl_command_buffer_khr, which OpenCL keeps until its
// replays are done, and the launches' kernels, which the replays enqueued
// hold references of their own to.
func (cb *commandBuffer) Release() error {
	cb.mu.Lock()
	defer cb.mu.Unlock()
	err := check("clReleaseCommandBufferKHR", cb.ext.Release(cb.handle))
	for _, c := range cb.cmds {
		if c.kind == cmdLaunch {
			cb.lib().ReleaseKernel(c.kh)
		}
	}
	if cb.last != 0 {
		cb.lib().ReleaseEvent(cb.last)
	}
	cb.cmds, cb.handle, cb.last = nil, 0, 0
	return err
}
