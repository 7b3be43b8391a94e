package levelzero

import (
	"sync"
	"unsafe"

	"github.com/gour-dev/gour/adapters/levelzero/internal/ze"
	"github.com/gour-dev/gour/ur/driver"
)

// kernel is one ze_kernel_handle_t per device of its program; argument
// setters apply to all of them. Level Zero keeps the group size and
// global offset in the kernel object, so a launch sets them only when they
// change.
type kernel struct {
	p       *program
	name    string
	numArgs uint32

	// mu guards the per-device kernel state against launches on several
	// queues at once: setting the group size and appending the launch
	// must not interleave.
	mu      sync.Mutex
	perDev  []kernelDev // parallel to p.devices; handle 0 where not built
	set     []bool
	nset    int
	memArgs []uintptr // device addresses of buffer arguments, by index

	// clones are per-device pools of kernel handles for launches that
	// carry their arguments (launch.go), parallel to perDev.
	clones []clonePool
}

type kernelDev struct {
	handle    ze.Kernel
	module    ze.Module
	props     *ze.KernelProperties
	arg       uint64 // a pooled handle's argument value, during setArgs
	groupSize [3]uint32
	offset    [3]uint32
	// The last suggestion of zeKernelSuggestGroupSize, by global size.
	suggestedFor, suggested [3]uint32
}

func (p *program) NewKernel(name string) (driver.Kernel, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	k := &kernel{p: p, name: name, perDev: make([]kernelDev, len(p.devices)), clones: make([]clonePool, len(p.devices))}
	built := false
	for i, m := range p.modules {
		if m == 0 {
			continue
		}
		built = true
		h, r := p.c.ze.KernelCreate(m, name)
		if r != ze.Success {
			k.destroy()
			e := zeError("zeKernelCreate", r)
			e.Message += " for kernel " + name
			return nil, e
		}
		props, r := p.c.ze.KernelGetProperties(h)
		if r != ze.Success {
			p.c.ze.KernelDestroy(h)
			k.destroy()
			return nil, zeError("zeKernelGetProperties", r)
		}
		k.perDev[i] = kernelDev{handle: h, module: m, props: props}
		k.numArgs = props.NumKernelArgs
	}
	if !built {
		return nil, driver.Errorf(driver.ResultInvalidProgramExecutable, "the program is not built")
	}
	k.set = make([]bool, k.numArgs)
	k.memArgs = make([]uintptr, k.numArgs)
	p.refs.Add(1)
	return k, nil
}

func (k *kernel) destroy() error {
	err := k.destroyClones()
	for i := range k.perDev {
		if h := k.perDev[i].handle; h != 0 {
			if err2 := check("zeKernelDestroy", k.p.c.ze.KernelDestroy(h)); err == nil {
				err = err2
			}
			k.perDev[i].handle = 0
		}
	}
	return err
}

func (k *kernel) Native() uintptr {
	for _, kd := range k.perDev {
		if kd.handle != 0 {
			return uintptr(kd.handle)
		}
	}
	return 0
}

// Release destroys the kernel once the context's queues are idle, then
// drops its hold on the program.
func (k *kernel) Release() error {
	// Queues are waited for before taking k.mu: a launch holds its queue's
	// lock, then the kernel's.
	err := k.p.c.quiesce()
	k.mu.Lock()
	if err2 := k.destroy(); err == nil {
		err = err2
	}
	k.mu.Unlock()
	if err2 := k.p.unref(); err == nil {
		err = err2
	}
	return err
}

// setArg calls zeKernelSetArgumentValue on every device's kernel; the
// driver copies the value before returning.
func (k *kernel) setArg(index uint32, size uintptr, value unsafe.Pointer) error {
	if index >= k.numArgs {
		return driver.Errorf(driver.ResultInvalidKernelArgumentIndex, "argument %d: kernel %s takes %d", index, k.name, k.numArgs)
	}
	for i := range k.perDev {
		if h := k.perDev[i].handle; h != 0 {
			if r := k.p.c.ze.KernelSetArgumentValue(h, index, size, value); r != ze.Success {
				return zeError("zeKernelSetArgumentValue", r)
			}
		}
	}
	if !k.set[index] {
		k.set[index] = true
		k.nset++
	}
	return nil
}

func (k *kernel) SetArgValue(index uint32, value []byte) error {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.setArg(index, uintptr(len(value)), unsafe.Pointer(&value[0]))
}

// SetArgMem passes the buffer's device address, or the image's handle,
// from heap memory the kernel owns.
func (k *kernel) SetArgMem(index uint32, m driver.Mem) error {
	k.mu.Lock()
	defer k.mu.Unlock()
	if index >= k.numArgs {
		return driver.Errorf(driver.ResultInvalidKernelArgumentIndex, "argument %d: kernel %s takes %d", index, k.name, k.numArgs)
	}
	k.memArgs[index] = m.(*mem).argValue()
	return k.setArg(index, unsafe.Sizeof(uintptr(0)), unsafe.Pointer(&k.memArgs[index]))
}

// SetArgLocal sets a __local argument: a size with no value.
func (k *kernel) SetArgLocal(index uint32, size uint64) error {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.setArg(index, uintptr(size), nil)
}

func (k *kernel) Info(dd driver.Device) (driver.KernelInfo, error) {
	d := dd.(*device)
	i := k.p.index(d)
	if i < 0 || k.perDev[i].handle == 0 {
		return driver.KernelInfo{}, driver.Errorf(driver.ResultInvalidDevice, "kernel %s is not built for %q", k.name, d.info.Name)
	}
	props := k.perDev[i].props
	wg := uint64(d.maxTotalGroup)
	if req := uint64(props.RequiredGroupSizeX) * uint64(props.RequiredGroupSizeY) * uint64(props.RequiredGroupSizeZ); req != 0 {
		wg = req
	}
	return driver.KernelInfo{
		Name:                           k.name,
		NumArgs:                        props.NumKernelArgs,
		WorkGroupSize:                  wg,
		PreferredWorkGroupSizeMultiple: uint64(max(props.MaxSubgroupSize, 1)),
		CompileWorkGroupSize:           [3]uint64{uint64(props.RequiredGroupSizeX), uint64(props.RequiredGroupSizeY), uint64(props.RequiredGroupSizeZ)},
		LocalMemSize:                   uint64(props.LocalMemSize),
		PrivateMemSize:                 uint64(props.PrivateMemSize),
	}, nil
}

// Launch is the hot path: with no wait list and no event it allocates
// nothing.
func (q *queue) Launch(dk driver.Kernel, r driver.NDRange, wait []driver.Event, wantEvent bool) (driver.Event, error) {
	k := dk.(*kernel)
	q.mu.Lock()
	defer q.mu.Unlock()
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.nset != len(k.set) {
		return nil, driver.Errorf(driver.ResultInvalidKernelArgs, "kernel %s: %d of %d arguments set", k.name, k.nset, len(k.set))
	}
	i := k.p.index(q.dev)
	if i < 0 || k.perDev[i].handle == 0 {
		return nil, driver.Errorf(driver.ResultInvalidKernel, "kernel %s is not built for the queue's device %q", k.name, q.dev.info.Name)
	}
	return q.launch(&k.perDev[i], &r, false, wait, wantEvent)
}

// launch appends a launch of kd over r. The caller holds q.mu and owns
// kd: the kernel's lock for its own handles, nothing for a clone.
func (q *queue) launch(kd *kernelDev, r *driver.NDRange, cooperative bool, wait []driver.Event, wantEvent bool) (driver.Event, error) {
	groups, err := q.dev.shape(q.ze, kd, r)
	if err != nil {
		return nil, err
	}
	if err := q.dev.offset(q.ze, kd, r); err != nil {
		return nil, err
	}
	cmd, err := q.begin(wait, wantEvent)
	if err != nil {
		return nil, err
	}
	if cooperative {
		res := q.ze.CommandListAppendLaunchCooperativeKernel(q.list, kd.handle, groups, cmd.signal, cmd.wait)
		return q.end("zeCommandListAppendLaunchCooperativeKernel", cmd, res, nil)
	}
	res := q.ze.CommandListAppendLaunchKernel(q.list, kd.handle, groups, cmd.signal, cmd.wait)
	return q.end("zeCommandListAppendLaunchKernel", cmd, res, nil)
}

// shape sets the kernel's group size for r and returns the group count.
// Without a local size it takes zeKernelSuggestGroupSize's, made to divide
// the global size. A global size that the local size does not divide is
// an invalid work-group size: Level Zero launches whole groups only.
func (d *device) shape(l *ze.Lib, kd *kernelDev, r *driver.NDRange) (ze.GroupCount, error) {
	var global, local [3]uint32
	for i := range 3 {
		g := uint64(1)
		if uint32(i) < r.Dims {
			g = r.Global[i]
		}
		if g == 0 || g > 1<<32-1 {
			return ze.GroupCount{}, driver.Errorf(driver.ResultInvalidGlobalWidthDimension, "global size %d in dimension %d", g, i)
		}
		global[i] = uint32(g)
		if uint32(i) < r.Dims {
			local[i] = uint32(min(r.Local[i], 1<<32-1))
		} else {
			local[i] = 1
		}
	}
	if r.Local[0] == 0 { // the front end checks that all or none are set
		if kd.suggestedFor != global {
			x, y, z, res := l.KernelSuggestGroupSize(kd.handle, global[0], global[1], global[2])
			if res != ze.Success {
				return ze.GroupCount{}, zeError("zeKernelSuggestGroupSize", res)
			}
			s := [3]uint32{max(x, 1), max(y, 1), max(z, 1)}
			for i := range s {
				s[i] = largestDivisor(global[i], s[i])
			}
			kd.suggestedFor, kd.suggested = global, s
		}
		local = kd.suggested
	}
	total := uint64(1)
	for i := range 3 {
		if local[i] == 0 || global[i]%local[i] != 0 {
			return ze.GroupCount{}, driver.Errorf(driver.ResultInvalidWorkGroupSize, "global size %d is not a multiple of local size %d in dimension %d", global[i], local[i], i)
		}
		if local[i] > d.maxGroupSize[i] {
			return ze.GroupCount{}, driver.Errorf(driver.ResultInvalidWorkGroupSize, "local size %d in dimension %d exceeds the device's %d", local[i], i, d.maxGroupSize[i])
		}
		if n := global[i] / local[i]; d.maxGroupCount[i] != 0 && n > d.maxGroupCount[i] {
			return ze.GroupCount{}, driver.Errorf(driver.ResultInvalidGlobalWidthDimension, "%d work-groups in dimension %d exceed the device's %d", n, i, d.maxGroupCount[i])
		}
		total *= uint64(local[i])
	}
	if total > uint64(d.maxTotalGroup) {
		return ze.GroupCount{}, driver.Errorf(driver.ResultInvalidWorkGroupSize, "work-group of %d×%d×%d exceeds the device's %d work-items", local[0], local[1], local[2], d.maxTotalGroup)
	}
	if kd.groupSize != local {
		if res := l.KernelSetGroupSize(kd.handle, local[0], local[1], local[2]); res != ze.Success {
			return ze.GroupCount{}, zeError("zeKernelSetGroupSize", res)
		}
		kd.groupSize = local
	}
	return ze.GroupCount{GroupCountX: global[0] / local[0], GroupCountY: global[1] / local[1], GroupCountZ: global[2] / local[2]}, nil
}

// offset sets the kernel's global offset when it changes, through
// zeKernelSetGlobalOffsetExp; without it a non-zero offset is
// unsupported.
func (d *device) offset(l *ze.Lib, kd *kernelDev, r *driver.NDRange) error {
	var off [3]uint32
	for i := range r.Dims {
		if r.Offset[i] > 1<<32-1 {
			return driver.Errorf(driver.ResultInvalidValue, "global offset %d in dimension %d", r.Offset[i], i)
		}
		off[i] = uint32(r.Offset[i])
	}
	if off == kd.offset {
		return nil
	}
	if !l.HasKernelSetGlobalOffset() {
		return driver.Errorf(driver.ResultUnsupportedFeature, "the Level Zero loader has no zeKernelSetGlobalOffsetExp: no global offset (offset %v)", r.Offset)
	}
	if res := l.KernelSetGlobalOffsetExp(kd.handle, off[0], off[1], off[2]); res != ze.Success {
		e := zeError("zeKernelSetGlobalOffsetExp", res)
		e.Message += " (the driver lacks ZE_experimental_global_offset?)"
		return e
	}
	kd.offset = off
	return nil
}

// largestDivisor returns the largest divisor of n that is at most limit.
func largestDivisor(n, limit uint32) uint32 {
	for b := min(limit, n); b > 1; b-- {
		if n%b == 0 {
			return b
		}
	}
	return 1
}
