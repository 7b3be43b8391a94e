package levelzero

import (
	"sync"
	"unsafe"

	"github.com/gour-dev/gour/adapters/levelzero/internal/ze"
	"github.com/gour-dev/gour/ur/driver"
)

// This file is the adapter's side of the launch model beyond Queue.Launch
// (ur/driver/launch.go): launches that carry their arguments, queue
// queries, kernel attributes and program globals. Command buffers are in
// cmdbuf.go.

// The optional interfaces of the launch model the adapter implements.
// Level Zero has no completion callbacks (the front end's goroutine
// waits on the event instead) and no capture.
var (
	_ driver.ArgLauncher      = (*queue)(nil)
	_ driver.QueueFeatures    = (*queue)(nil)
	_ driver.KernelAttributes = (*kernel)(nil)
	_ driver.GlobalsProgram   = (*program)(nil)
)

// clonePool holds the kernel handles of one device that launches with
// arguments borrow: more handles (zeKernelCreate) of the kernel's module
// and name, made on demand and kept until the kernel is released.
//
// Level Zero keeps arguments, group size and offset in the kernel object
// and forbids setting them from two threads at once; it reads them when
// the launch is appended (zeKernelSetArgumentValue: "the argument values
// will be used when a zeCommandListAppendLaunchKernel variant is
// called"). A launch with its own arguments therefore takes a handle no
// one else uses, sets everything on it, appends, and gives it back: the
// kernel's own handle and arguments are untouched, and launches of one
// kernel on different queues run in parallel. The alternative, setting
// the arguments on the kernel's own handle under its lock, would
// serialise every launch of the kernel across queues and overwrite what
// SetArg* set. The pool is a mutex and a slice rather than a sync.Pool,
// which may drop handles at a collection and so leak them in the driver;
// once as many handles exist as launches ran at once, a launch allocates
// nothing.
type clonePool struct {
	mu   sync.Mutex
	free []*kernelDev
	all  []*kernelDev
}

// clone takes a handle of the kernel on device i from its pool, creating
// one when none is free.
func (k *kernel) clone(i int) (*kernelDev, error) {
	cp := &k.clones[i]
	cp.mu.Lock()
	if n := len(cp.free); n > 0 {
		c := cp.free[n-1]
		cp.free = cp.free[:n-1]
		cp.mu.Unlock()
		return c, nil
	}
	cp.mu.Unlock()
	kd := &k.perDev[i]
	h, r := k.p.c.ze.KernelCreate(kd.module, k.name)
	if r != ze.Success {
		return nil, zeError("zeKernelCreate", r)
	}
	c := &kernelDev{handle: h, module: kd.module, props: kd.props}
	cp.mu.Lock()
	cp.all = append(cp.all, c)
	cp.mu.Unlock()
	return c, nil
}

// unclone gives a handle back to device i's pool.
func (k *kernel) unclone(i int, c *kernelDev) {
	cp := &k.clones[i]
	cp.mu.Lock()
	cp.free = append(cp.free, c)
	cp.mu.Unlock()
}

// destroyClones destroys every pooled handle; the context's queues are
// idle (Release quiesced them).
func (k *kernel) destroyClones() error {
	var err error
	for i := range k.clones {
		cp := &k.clones[i]
		cp.mu.Lock()
		for _, c := range cp.all {
			if err2 := check("zeKernelDestroy", k.p.c.ze.KernelDestroy(c.handle)); err == nil {
				err = err2
			}
		}
		cp.all, cp.free = nil, nil
		cp.mu.Unlock()
	}
	return err
}

// setArgs sets a launch's arguments on a handle the caller owns. Values
// of up to 8 bytes and addresses go through the handle's arg word, so
// that nothing escapes to the heap; the driver copies them before
// returning.
func (k *kernel) setArgs(c *kernelDev, args []driver.LaunchArg) error {
	if uint32(len(args)) != k.numArgs {
		return driver.Errorf(driver.ResultInvalidKernelArgs, "kernel %s takes %d arguments, the launch gives %d", k.name, k.numArgs, len(args))
	}
	l := k.p.c.ze
	for i := range args {
		a := &args[i]
		var size uintptr
		var v unsafe.Pointer
		switch {
		case a.Kind == driver.ArgLocal:
			size = uintptr(a.Size)
		case a.Kind == driver.ArgMem:
			c.arg = uint64(a.Ptr)
			if a.Mem != nil {
				c.arg = uint64(a.Mem.(*mem).argValue())
			}
			size, v = unsafe.Sizeof(uintptr(0)), unsafe.Pointer(&c.arg)
		case a.Bytes != nil:
			size, v = uintptr(len(a.Bytes)), unsafe.Pointer(&a.Bytes[0])
		case a.Size <= 8:
			c.arg = a.Bits
			size, v = uintptr(a.Size), unsafe.Pointer(&c.arg)
		default:
			return driver.Errorf(driver.ResultInvalidKernelArgumentSize, "kernel %s argument %d: a %d-byte value without its bytes", k.name, i, a.Size)
		}
		if r := l.KernelSetArgumentValue(c.handle, uint32(i), size, v); r != ze.Success {
			e := zeError("zeKernelSetArgumentValue", r)
			e.Message += " for an argument of kernel " + k.name
			return e
		}
	}
	return nil
}

// checkProps refuses the launch properties Level Zero lacks: dynamic
// work-group memory (Level Zero kernels get work-group memory only
// through local arguments: pass ur.ArgLocalMem) and clusters; a
// cooperative launch needs a compute queue group with cooperative
// kernels.
func (q *queue) checkProps(props driver.LaunchProperties) error {
	switch {
	case props.DynamicLocalMem != 0:
		return driver.Errorf(driver.ResultUnsupportedFeature, "Level Zero has no dynamic work-group memory beyond local arguments (%d bytes asked): pass a local argument", props.DynamicLocalMem)
	case props.ClusterDims != [3]uint32{}:
		return driver.Errorf(driver.ResultUnsupportedFeature, "Level Zero has no work-group clusters (%v asked)", props.ClusterDims)
	case props.Cooperative && !q.dev.cooperative:
		return driver.Errorf(driver.ResultUnsupportedFeature, "the compute queue group of %q runs no cooperative kernels", q.dev.info.Name)
	}
	return nil
}

// LaunchWithArgs launches a handle of k borrowed from its pool with
// args set on it (see clonePool), so the kernel's own arguments are
// neither read nor changed and launches of one kernel need no common
// lock. A cooperative launch is zeCommandListAppendLaunchCooperativeKernel.
func (q *queue) LaunchWithArgs(dk driver.Kernel, r driver.NDRange, args []driver.LaunchArg, props driver.LaunchProperties, wait []driver.Event, wantEvent bool) (driver.Event, error) {
	k := dk.(*kernel)
	if err := q.checkProps(props); err != nil {
		return nil, err
	}
	i := k.p.index(q.dev)
	if i < 0 || k.perDev[i].handle == 0 {
		return nil, driver.Errorf(driver.ResultInvalidKernel, "kernel %s is not built for the queue's device %q", k.name, q.dev.info.Name)
	}
	c, err := k.clone(i)
	if err != nil {
		return nil, err
	}
	defer k.unclone(i, c)
	if err := k.setArgs(c, args); err != nil {
		return nil, err
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.launch(c, &r, props.Cooperative, wait, wantEvent)
}

// Attributes reports zeKernelGetProperties: private memory is the
// private and spill memory per work-item, the largest work-group the
// required size where the kernel has one, else the device's bounded by
// the kernel's sub-groups; Level Zero reports no registers, and has no
// dynamic work-group memory (MaxDynamicLocalMem 0: use local arguments).
func (k *kernel) Attributes(dd driver.Device) (driver.KernelAttrs, error) {
	d := dd.(*device)
	i := k.p.index(d)
	if i < 0 || k.perDev[i].handle == 0 {
		return driver.KernelAttrs{}, driver.Errorf(driver.ResultInvalidDevice, "kernel %s is not built for %q", k.name, d.info.Name)
	}
	p := k.perDev[i].props
	wg := uint64(d.maxTotalGroup)
	if req := uint64(p.RequiredGroupSizeX) * uint64(p.RequiredGroupSizeY) * uint64(p.RequiredGroupSizeZ); req != 0 {
		wg = req
	} else if sg := uint64(p.MaxSubgroupSize) * uint64(p.MaxNumSubgroups); sg != 0 {
		wg = min(wg, sg)
	}
	sizes := d.subGroupSizes
	if p.RequiredSubgroupSize != 0 {
		sizes = []uint32{p.RequiredSubgroupSize}
	}
	return driver.KernelAttrs{
		PrivateMemSize:         uint64(p.PrivateMemSize) + uint64(p.SpillMemSize),
		StaticLocalMemSize:     uint64(p.LocalMemSize),
		MaxWorkGroupSize:       wg,
		PreferredGroupMultiple: uint64(max(p.MaxSubgroupSize, 1)),
		SubGroupSizes:          append([]uint32(nil), sizes...),
	}, nil
}

// SuggestLocalSize is zeKernelSuggestGroupSize, made to divide the global
// size as a launch without a local size does.
func (k *kernel) SuggestLocalSize(dd driver.Device, r driver.NDRange, dynamicLocalMem uint64) ([3]uint64, error) {
	d := dd.(*device)
	if dynamicLocalMem != 0 {
		return [3]uint64{}, driver.Errorf(driver.ResultUnsupportedFeature, "Level Zero has no dynamic work-group memory beyond local arguments (%d bytes asked)", dynamicLocalMem)
	}
	var global [3]uint32
	for j := range global {
		g := uint64(1)
		if uint32(j) < r.Dims {
			g = r.Global[j]
		}
		if g == 0 || g > 1<<32-1 {
			return [3]uint64{}, driver.Errorf(driver.ResultInvalidGlobalWidthDimension, "global size %d in dimension %d", g, j)
		}
		global[j] = uint32(g)
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	i := k.p.index(d)
	if i < 0 || k.perDev[i].handle == 0 {
		return [3]uint64{}, driver.Errorf(driver.ResultInvalidDevice, "kernel %s is not built for %q", k.name, d.info.Name)
	}
	x, y, z, res := k.p.c.ze.KernelSuggestGroupSize(k.perDev[i].handle, global[0], global[1], global[2])
	if err := check("zeKernelSuggestGroupSize", res); err != nil {
		return [3]uint64{}, err
	}
	var out [3]uint64
	for j, s := range [3]uint32{x, y, z} {
		if uint32(j) < r.Dims {
			out[j] = uint64(largestDivisor(global[j], max(s, 1)))
		}
	}
	return out, nil
}

// MaxCooperativeGroups is zeKernelSuggestMaxCooperativeGroupCount, which
// answers for the group size set on the kernel: it is asked on a pooled
// handle with local set, leaving the kernel's own group size alone.
func (k *kernel) MaxCooperativeGroups(dd driver.Device, local [3]uint64, dynamicLocalMem uint64) (uint64, error) {
	d := dd.(*device)
	if dynamicLocalMem != 0 {
		return 0, driver.Errorf(driver.ResultUnsupportedFeature, "Level Zero has no dynamic work-group memory beyond local arguments (%d bytes asked)", dynamicLocalMem)
	}
	var l [3]uint32
	for j, v := range local {
		if v == 0 && j > 0 {
			v = 1
		}
		if v == 0 || v > uint64(d.maxGroupSize[j]) {
			return 0, driver.Errorf(driver.ResultInvalidWorkGroupSize, "local size %d in dimension %d (the device's largest is %d)", v, j, d.maxGroupSize[j])
		}
		l[j] = uint32(v)
	}
	i := k.p.index(d)
	if i < 0 || k.perDev[i].handle == 0 {
		return 0, driver.Errorf(driver.ResultInvalidDevice, "kernel %s is not built for %q", k.name, d.info.Name)
	}
	c, err := k.clone(i)
	if err != nil {
		return 0, err
	}
	defer k.unclone(i, c)
	zl := k.p.c.ze
	if c.groupSize != l {
		if err := check("zeKernelSetGroupSize", zl.KernelSetGroupSize(c.handle, l[0], l[1], l[2])); err != nil {
			return 0, err
		}
		c.groupSize = l
	}
	n, r := zl.KernelSuggestMaxCooperativeGroupCount(c.handle)
	if err := check("zeKernelSuggestMaxCooperativeGroupCount", r); err != nil {
		return 0, err
	}
	return uint64(n), nil
}

// Global is zeModuleGetGlobalPointer on the module built for dev.
func (p *program) Global(dd driver.Device, name string) (uintptr, uint64, error) {
	d := dd.(*device)
	p.mu.Lock()
	defer p.mu.Unlock()
	i := p.index(d)
	if i < 0 || p.modules[i] == 0 {
		return 0, 0, driver.Errorf(driver.ResultInvalidProgramExecutable, "the program is not built for %q", d.info.Name)
	}
	ptr, size, r := p.c.ze.ModuleGetGlobalPointer(p.modules[i], name)
	if r != ze.Success {
		e := zeError("zeModuleGetGlobalPointer", r)
		e.Message += " for " + name
		return 0, 0, e
	}
	return ptr, uint64(size), nil
}

// Empty is zeCommandListHostSynchronize with a timeout of 0 (NOT_READY:
// not empty). Loaders older than spec 1.6 lack it: there a barrier
// signals a probe event, which is complete once everything before it
// is (see probe).
func (q *queue) Empty() (bool, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.closed {
		return true, nil
	}
	if q.syncEvent == 0 {
		switch r := q.ze.CommandListHostSynchronize(q.list, 0); r {
		case ze.Success:
			q.pending, q.keep = false, nil
			return true, nil
		case ze.NotReady:
			return false, nil
		default:
			return false, zeError("zeCommandListHostSynchronize", r)
		}
	}
	return q.probe()
}

// probe is an event Empty's barrier signals, with the queue's append
// count when it was appended.
type probe struct {
	event ze.Event
	slot  eventSlot
	at    uint64
}

// probe answers Empty without zeCommandListHostSynchronize: a barrier
// signals an event once everything before it is done. Until it
// completes the event stays with the queue (Level Zero forbids
// destroying an event the device may still signal); a later Empty asks
// it again while nothing was appended since, else appends another. The
// caller holds q.mu.
func (q *queue) probe() (bool, error) {
	done := false
	kept := q.probes[:0]
	for _, p := range q.probes {
		switch r := q.ze.EventQueryStatus(p.event); r {
		case ze.Success:
			done = done || p.at == q.appends
			q.c.plain.put(p.event, p.slot)
		case ze.NotReady:
			kept = append(kept, p)
		default:
			q.probes = append(kept, p)
			return false, zeError("zeEventQueryStatus", r)
		}
	}
	q.probes = kept
	if done {
		return true, nil
	}
	if n := len(kept); n > 0 && kept[n-1].at == q.appends {
		return false, nil
	}
	e, s, err := q.c.plain.get()
	if err != nil {
		return false, err
	}
	if r := q.ze.CommandListAppendBarrier(q.list, e, nil); r != ze.Success {
		q.c.plain.put(e, s)
		return false, zeError("zeCommandListAppendBarrier", r)
	}
	q.pending = false
	switch r := q.ze.EventQueryStatus(e); r {
	case ze.Success:
		q.c.plain.put(e, s)
		return true, nil
	case ze.NotReady:
		q.probes = append(q.probes, probe{event: e, slot: s, at: q.appends})
		return false, nil
	default:
		q.probes = append(q.probes, probe{event: e, slot: s, at: q.appends})
		return false, zeError("zeEventQueryStatus", r)
	}
}

// freeProbes frees the probes after a synchronization, which they
// preceded. The caller holds q.mu.
func (q *queue) freeProbes() {
	for _, p := range q.probes {
		q.c.plain.put(p.event, p.slot)
	}
	q.probes = nil
}
