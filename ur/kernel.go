package ur

import (
	"math"
	"slices"
	"sync"
	"unsafe"

	"github.com/gour-dev/gour/trace"
	"github.com/gour-dev/gour/ur/driver"
)

// KernelInfo describes a kernel on one device.
type KernelInfo = driver.KernelInfo

// NDRange is a launch's index space, the struct
//
//	type NDRange struct {
//		Dims   uint32    // 1, 2 or 3
//		Offset [3]uint64 // added to every global id; CUDA supports only zero
//		Global [3]uint64 // work-items per dimension (SYCL's global range)
//		Local  [3]uint64 // work-group size per dimension (SYCL's local range, a CUDA block); all 0: the driver chooses
//	}
//
// with the method
//
//	func (r NDRange) WithLocal(local ...uint64) NDRange
//
// which sets the local size, one per dimension:
// ur.Range2D(1024, 768).WithLocal(16, 16) is SYCL's
// nd_range<2>({1024, 768}, {16, 16}), a CUDA grid of 64×48 blocks of
// 16×16 threads. Build one with Range1D, Range2D or Range3D. A launch
// checks that each global size is a multiple of its local size, and the
// local size against the kernel's and the device's maximum work-group
// (KernelInfo.WorkGroupSize, DeviceInfo.MaxWorkItemSizes), naming them.
// It is the adapters' type, driver.NDRange.
type NDRange = driver.NDRange

// Range1D is a one-dimensional index space of n work-items.
func Range1D(n uint64) NDRange { return NDRange{Dims: 1, Global: [3]uint64{n, 1, 1}} }

// Range2D is an x×y index space.
func Range2D(x, y uint64) NDRange { return NDRange{Dims: 2, Global: [3]uint64{x, y, 1}} }

// Range3D is an x×y×z index space.
func Range3D(x, y, z uint64) NDRange { return NDRange{Dims: 3, Global: [3]uint64{x, y, z}} }

// Kernel is one entry point of a built program, with its arguments.
//
// Like an OpenCL kernel, a Kernel's arguments are state: setting them and
// launching from several goroutines at once needs the caller's own
// ordering. Use one Kernel per goroutine for concurrent launches.
//
// The setters check each argument against what the driver reports of it
// (Args): a value of another size, a buffer for a value or a value for a
// buffer gives ErrInvalidKernelArgumentSize naming the argument, what it
// takes and what it was given; where the driver reports nothing, its own
// error says which argument was given what. A launch with an argument
// never set gives ErrInvalidKernelArgs naming it.
type Kernel struct {
	object
	drv     driver.Kernel
	ctx     *Context // the program's, kept here for the launch path
	program *Program
	name    string
	numArgs uint32
	args    kernelArgs
	// groups bounds the kernel's work-groups on each device of the
	// context, in the context's order (Queue.deviceIndex).
	groups []groupLimits
	// scratch holds a scalar argument while the adapter copies it, so that
	// setting one allocates nothing.
	scratch [2]uint64
	// memArgs holds the buffers bound as arguments. Each is kept entered
	// (alive) while bound, so releasing a buffer that a kernel still points
	// at defers its free instead of crashing the next launch.
	memArgs []*Mem
	// ptrArgs holds the USM allocations bound as arguments. They are not
	// kept alive (USM is freed when the caller says, as in SYCL): a launch
	// checks that none was freed.
	ptrArgs []ptrArg
	// argMu serialises launches with arguments on adapters without
	// argument launches, which set the kernel's arguments for each.
	argMu   sync.Mutex
	repeats repeats
}

// NewKernel creates the kernel called name. An unknown name gives
// ErrInvalidKernelName.
func (p *Program) NewKernel(name string) (rh *Kernel, rerr error) {
	const op = "Program.NewKernel"
	if t := trace.Active(); t != nil {
		tc := beginCall(t, op, p)
		tc.args.Str("name", name)
		defer endNewOf(&tc, &rh, &rerr)
	}

	if err := p.enter(op); err != nil {
		return nil, err
	}
	defer p.life.leave()
	if name == "" {
		return nil, newError(ErrInvalidKernelName, op, p.adapter.name, "kernel name is empty")
	}
	drv, err := p.drv.NewKernel(name)
	if err != nil {
		return nil, p.newKernelError(op, name, err)
	}
	devs := p.ctx.devices
	info, err := drv.Info(devs[0].drv)
	if err != nil {
		drv.Release()
		return nil, wrapError(err, op, p.adapter.name)
	}
	k := &Kernel{object: object{adapter: p.adapter}, program: p, ctx: p.ctx, drv: drv, name: name, numArgs: info.NumArgs,
		args: newKernelArgs(info.NumArgs, info.Args, devs[0].info.AddressBits)}
	if info.NumArgs != driver.NumArgsUnknown {
		k.memArgs = make([]*Mem, info.NumArgs)
	}
	// The launch's work-group checks read these instead of asking the
	// driver. A device the program is not built for has no limits here:
	// its launches fail in the adapter.
	k.groups = make([]groupLimits, len(devs))
	for i, d := range devs {
		if i > 0 {
			if info, err = drv.Info(d.drv); err != nil {
				continue
			}
		}
		k.groups[i] = groupLimits{maxItems: info.WorkGroupSize, required: info.CompileWorkGroupSize}
	}
	k.created("Kernel")
	k.life.free = func() error {
		err := drv.Release()
		for i, m := range k.memArgs {
			if m != nil {
				m.life.leave()
				k.memArgs[i] = nil
			}
		}
		return err
	}
	return k, nil
}

// enterError is the error of a failed enter of k, nil or released.
func (k *Kernel) enterError(op string) error {
	if k == nil {
		return nilHandle("Kernel", op)
	}
	return k.releasedError("Kernel", ErrInvalidKernel, op)
}

func (k *Kernel) enter(op string) error {
	if k == nil || !k.life.enter() {
		return k.enterError(op)
	}
	return nil
}

// Release releases the kernel once no queued launch uses it.
func (k *Kernel) Release() error {
	if k == nil {
		return nilHandle("Kernel", "Kernel.Release")
	}
	return k.release("Kernel", ErrInvalidKernel)
}

// Name is the kernel's name; "" for a nil kernel.
func (k *Kernel) Name() string {
	if k == nil {
		return ""
	}
	return k.name
}

// NumArgs is the number of arguments the kernel takes, or -1 when the
// driver cannot tell (or k is nil).
func (k *Kernel) NumArgs() int {
	if k == nil || k.numArgs == driver.NumArgsUnknown {
		return -1
	}
	return int(k.numArgs)
}

// Program returns the program the kernel came from.
func (k *Kernel) Program() *Program {
	if k == nil {
		return nil
	}
	return k.program
}

// Native returns the vendor handle (cl_kernel, CUfunction, ...); 0 for a
// nil or released kernel.
func (k *Kernel) Native() uintptr {
	if k.enter("Kernel.Native") != nil {
		return 0
	}
	defer k.life.leave()
	return k.drv.Native()
}

// Info returns the kernel's properties on dev.
func (k *Kernel) Info(dev *Device) (rv KernelInfo, rerr error) {
	const op = "Kernel.Info"
	if t := trace.Active(); t != nil {
		tc := beginCall(t, op, k)
		defer tc.end(&rerr)
	}

	if err := k.enter(op); err != nil {
		return KernelInfo{}, err
	}
	defer k.life.leave()
	if dev == nil {
		return KernelInfo{}, nilHandle("Device", op)
	}
	if !k.ctx.hasDevice(dev) {
		return KernelInfo{}, newError(ErrInvalidDevice, op, k.adapter.name, "device %q is not in the context", dev.Name())
	}
	info, err := k.drv.Info(dev.drv)
	return info, wrapError(err, op, k.adapter.name)
}

func (k *Kernel) checkIndex(op string, index int) error {
	if index < 0 || (k.numArgs != driver.NumArgsUnknown && index >= int(k.numArgs)) {
		return k.indexError(op, index)
	}
	return nil
}

// indexError is checkIndex's error, out of line.
//
//go:noinline
func (k *Kernel) indexError(op string, index int) error {
	return newError(ErrInvalidKernelArgumentIndex, op, k.adapter.name,
		"argument %d: kernel %s takes %d arguments", index, k.name, k.numArgs)
}

// SetArgBytes sets argument index to a value passed by copy (a scalar or a
// struct laid out as the device expects).
func (k *Kernel) SetArgBytes(index int, value []byte) (rerr error) {
	const op = "Kernel.SetArgBytes"
	if t := trace.Active(); t != nil {
		tc := beginCall(t, op, k)
		tc.args.Int("index", int64(index))
		defer tc.end(&rerr)
	}

	if err := k.enter(op); err != nil {
		return err
	}
	defer k.life.leave()
	if err := k.checkIndex(op, index); err != nil {
		return err
	}
	if len(value) == 0 {
		return newError(ErrInvalidKernelArgumentSize, op, k.adapter.name, "%s takes %s, not an empty value", k.describeArg(index), k.expected(index))
	}
	if err := k.checkValue(op, index, uint64(len(value))); err != nil {
		return err
	}
	if err := k.drv.SetArgValue(uint32(index), value); err != nil {
		return k.argDriverError(op, index, argSetting{ArgValue, uint64(len(value))}, err)
	}
	k.unbindMem(index)
	k.args.markSet(index)
	return nil
}

// setArgBits sets a scalar argument of size bytes from its bit pattern.
func (k *Kernel) setArgBits(op string, index int, bits uint64, size int) (rerr error) {
	if t := trace.Active(); t != nil {
		tc := beginCall(t, op, k)
		tc.args.Int("index", int64(index))
		defer tc.end(&rerr)
	}

	if err := k.enter(op); err != nil {
		return err
	}
	defer k.life.leave()
	if err := k.checkIndex(op, index); err != nil {
		return err
	}
	if err := k.checkValue(op, index, uint64(size)); err != nil {
		return err
	}
	k.scratch[0] = bits // little-endian: the low bytes hold the value
	value := unsafe.Slice((*byte)(unsafe.Pointer(&k.scratch[0])), size)
	if err := k.drv.SetArgValue(uint32(index), value); err != nil {
		return k.argDriverError(op, index, argSetting{ArgValue, uint64(size)}, err)
	}
	k.unbindMem(index)
	k.args.markSet(index)
	return nil
}

// SetArgInt32 sets a 32-bit integer argument (int, uint in OpenCL C).
func (k *Kernel) SetArgInt32(index int, v int32) error {
	return k.setArgBits("Kernel.SetArgInt32", index, uint64(uint32(v)), 4)
}

// SetArgUint32 sets a 32-bit unsigned argument.
func (k *Kernel) SetArgUint32(index int, v uint32) error {
	return k.setArgBits("Kernel.SetArgUint32", index, uint64(v), 4)
}

// SetArgInt64 sets a 64-bit integer argument (long, size_t on 64-bit devices).
func (k *Kernel) SetArgInt64(index int, v int64) error {
	return k.setArgBits("Kernel.SetArgInt64", index, uint64(v), 8)
}

// SetArgUint64 sets a 64-bit unsigned argument.
func (k *Kernel) SetArgUint64(index int, v uint64) error {
	return k.setArgBits("Kernel.SetArgUint64", index, v, 8)
}

// SetArgFloat32 sets a float argument.
func (k *Kernel) SetArgFloat32(index int, v float32) error {
	return k.setArgBits("Kernel.SetArgFloat32", index, uint64(math.Float32bits(v)), 4)
}

// SetArgFloat64 sets a double argument.
func (k *Kernel) SetArgFloat64(index int, v float64) error {
	return k.setArgBits("Kernel.SetArgFloat64", index, math.Float64bits(v), 8)
}

// SetArgMem sets a buffer argument (a __global or __constant pointer).
func (k *Kernel) SetArgMem(index int, m *Mem) (rerr error) {
	const op = "Kernel.SetArgMem"
	if t := trace.Active(); t != nil {
		tc := beginCall(t, op, k, m)
		tc.args.Int("index", int64(index))
		defer tc.end(&rerr)
	}

	if err := k.enter(op); err != nil {
		return err
	}
	defer k.life.leave()
	if err := k.checkIndex(op, index); err != nil {
		return err
	}
	if err := m.enter(op); err != nil {
		return err
	}
	defer m.life.leave()
	if m.ctx != k.ctx {
		if err := k.sameAdapter(&m.object, "Mem", ErrInvalidMemObject, op); err != nil {
			return err
		}
		return newError(ErrInvalidContext, op, k.adapter.name, "buffer belongs to another context")
	}
	if err := k.checkMem(op, index); err != nil {
		return err
	}
	if err := k.drv.SetArgMem(uint32(index), m.drv); err != nil {
		return k.argDriverError(op, index, argSetting{kind: ArgMem}, err)
	}
	k.forgetPtr(index)
	k.bindMem(index, m)
	k.args.markSet(index)
	return nil
}

// bindMem records m as argument index, keeping it alive until it is
// replaced or the kernel is freed. Rebinding the same buffer costs nothing.
func (k *Kernel) bindMem(index int, m *Mem) {
	for index >= len(k.memArgs) {
		k.memArgs = append(k.memArgs, nil)
	}
	old := k.memArgs[index]
	if old == m {
		return
	}
	m.life.enter() // cannot fail: the caller holds m entered
	k.memArgs[index] = m
	if old != nil {
		old.life.leave()
	}
}

// unbindMem forgets a buffer or pointer argument that another argument
// replaced.
func (k *Kernel) unbindMem(index int) {
	if index < len(k.memArgs) && k.memArgs[index] != nil {
		k.memArgs[index].life.leave()
		k.memArgs[index] = nil
	}
	k.forgetPtr(index)
}

// SetArgLocal sets a __local argument to size bytes of work-group memory.
func (k *Kernel) SetArgLocal(index int, size uint64) (rerr error) {
	const op = "Kernel.SetArgLocal"
	if t := trace.Active(); t != nil {
		tc := beginCall(t, op, k)
		tc.args.Int("index", int64(index))
		defer tc.end(&rerr)
	}

	if err := k.enter(op); err != nil {
		return err
	}
	defer k.life.leave()
	if err := k.checkIndex(op, index); err != nil {
		return err
	}
	if size == 0 {
		return newError(ErrInvalidKernelArgumentSize, op, k.adapter.name, "%s: local memory size is 0", k.describeArg(index))
	}
	if err := k.checkLocal(op, index, size); err != nil {
		return err
	}
	if err := k.drv.SetArgLocal(uint32(index), size); err != nil {
		return k.argDriverError(op, index, argSetting{ArgLocal, size}, err)
	}
	k.unbindMem(index)
	k.args.markSet(index)
	return nil
}

// checkRange validates an index space before it reaches the driver.
func checkRange(op, adapter string, r *NDRange) error {
	if r.Dims < 1 || r.Dims > 3 {
		return newError(ErrInvalidWorkDimension, op, adapter, "%d dimensions: want 1, 2 or 3", r.Dims)
	}
	hasLocal := r.Local[0] != 0
	for i := uint32(0); i < r.Dims; i++ {
		if r.Global[i] == 0 {
			return newError(ErrInvalidGlobalWidthDimension, op, adapter, "global size %d in dimension %d", r.Global[i], i)
		}
		if (r.Local[i] != 0) != hasLocal {
			local := r.Local // a copy, so that r itself stays off the heap
			return newError(ErrInvalidWorkGroupSize, op, adapter, "local size is set in some dimensions only: %v", local[:r.Dims])
		}
		if hasLocal && r.Global[i]%r.Local[i] != 0 {
			return newError(ErrInvalidWorkGroupSize, op, adapter,
				"global size %d is not a multiple of local size %d in dimension %d", r.Global[i], r.Local[i], i)
		}
	}
	for i := r.Dims; i < 3; i++ {
		if r.Local[i] > 1 {
			local := r.Local
			return newError(ErrInvalidWorkGroupSize, op, adapter,
				"local size %v has more dimensions than the %d-dimensional range", local, r.Dims)
		}
	}
	return nil
}

// Launch enqueues k over r: the normal way to launch a kernel. It returns
// no event and allocates nothing.
//
// With args, the kernel runs with them, taken with the launch (CUDA's
// kernelParams, the Unified Runtime's urEnqueueKernelLaunchWithArgsExp):
// the kernel's own arguments are neither read nor changed, so any number
// of goroutines may launch one kernel at once, with no lock — a kernel
// from programmgr included. Without args, it runs with the arguments set
// on the kernel (SetArg*, OpenCL's clSetKernelArg model), whose setting
// the caller orders with its launches.
//
// A launch repeated over the same range on the same queue is made, from
// the third time on, as a prepared launch (PrepareLaunch,
// PrepareLaunchArgs) makes it: one driver call, on the adapters that
// prepare launches (CUDA, OpenCL). EnqueueLaunch is the same launch with
// a wait list, launch properties and an event.
func (q *Queue) Launch(k *Kernel, r NDRange, args ...Arg) error {
	// One call, so that Launch inlines into its caller's loop: launch
	// hands a launch with arguments to launchWith.
	_, err := q.launch(opLaunch, k, &r, nil, false, false, args)
	return err
}

// launchWith is Launch with arguments.
func (q *Queue) launchWith(k *Kernel, r *NDRange, args []Arg) error {
	if t := trace.Active(); t != nil {
		return q.launchArgsTraced(t, k, r, args)
	}
	_, err := q.launchArgs(opLaunch, k, r, LaunchProperties{}, args, nil, false)
	return err
}

const opLaunch = "Queue.Launch"

// LaunchOptions are what EnqueueLaunch takes beyond Launch's arguments.
type LaunchOptions struct {
	// Wait lists the events the launch waits for.
	Wait []*Event
	// Properties are the launch's properties (cooperative, cluster
	// dimensions, dynamic local memory); a launch with properties takes
	// its arguments with it.
	Properties LaunchProperties
}

// EnqueueLaunch is Launch after opts.Wait, with opts.Properties,
// returning the launch's event.
func (q *Queue) EnqueueLaunch(k *Kernel, r NDRange, opts LaunchOptions, args ...Arg) (rh *Event, rerr error) {
	const op = "Queue.EnqueueLaunch"
	if len(args) == 0 && opts.Properties == (LaunchProperties{}) {
		return q.launch(op, k, &r, opts.Wait, true, false, nil)
	}
	if t := trace.Active(); t != nil {
		tc := beginCall(t, op, q, k)
		tc.launchArgs(k, &r)
		defer tc.endEventOf(q, &rh, &rerr)
	}

	return q.launchArgs(op, k, &r, opts.Properties, args, opts.Wait, true)
}

// launch is Launch and EnqueueLaunch with the kernel's own arguments, or
// Launch with args (launchWith); traced is set by the tracing layer's own
// call (layers_trace.go), which records this one.
func (q *Queue) launch(op string, k *Kernel, r *NDRange, wait []*Event, wantEvent, traced bool, args []Arg) (*Event, error) {
	if len(args) != 0 {
		return nil, q.launchWith(k, r, args)
	}
	if !traced {
		if t := trace.Active(); t != nil {
			return q.launchTraced(t, op, k, r, wait, wantEvent)
		}
	}
	// The guards inline here; their errors are made out of line.
	if q == nil || !q.life.enter() {
		return nil, q.enterError(op)
	}
	if q.ctx.lost.first.Load() != nil {
		q.life.leave()
		return nil, q.ctx.lostError(op)
	}
	if k == nil || !k.life.enter() {
		q.life.leave()
		return nil, k.enterError(op)
	}
	// One defer with few returns is open-coded by the compiler, nearly
	// free; three of them were not, and cost more than the rest of the path.
	defer leaveBoth(&q.life, &k.life)
	if k.ctx != q.ctx {
		return nil, q.foreignKernel(op, k)
	}
	if len(k.ptrArgs) != 0 {
		if err := k.checkPtrArgs(op); err != nil {
			return nil, err
		}
	}
	plain := len(wait) == 0 && !wantEvent
	// A repeated launch, checked when it was prepared (repeatLaunch): one
	// call of the adapter's prepared launch, a direct one where it is a
	// driver.NativeCall.
	if c := k.repeats.launch.Load(); plain && c != nil && c.q == q && c.r == *r {
		var st driver.LaunchStatus
		if c.call.native != nil {
			st = c.call.native.Launch()
		} else {
			st = c.call.other.Launch()
		}
		if st == driver.Launched || st == driver.LaunchStale && k.relaunch(c) {
			return nil, nil
		}
	}
	if err := checkRange(op, q.adapter.name, r); err != nil {
		return nil, err
	}
	if err := k.checkLaunch(op, q, r); err != nil {
		return nil, err
	}
	dw, err := q.useWaitList(op, wait)
	if err != nil {
		return nil, err
	}
	ev, err := q.drv.Launch(k.drv, *r, dw, wantEvent)
	leaveEvents(wait)
	if ev == nil && err == nil {
		if plain {
			k.noteLaunch(q, r)
		}
		return nil, nil // the launch loop's answer, without a call
	}
	return q.finishEnqueue(op, ev, err, nil)
}

// foreignKernel is the error for a kernel of another context than q's.
func (q *Queue) foreignKernel(op string, k *Kernel) error {
	if err := q.sameAdapter(&k.object, "Kernel", ErrInvalidKernel, op); err != nil {
		return err
	}
	return newError(ErrInvalidContext, op, q.adapter.name, "kernel belongs to another context")
}

// leaveBoth ends the use of two handles.
func leaveBoth(a, b *lifetime) {
	b.leave()
	a.leave()
}

// ptrArg is a pointer argument: its index and the allocation it points
// into.
type ptrArg struct {
	index int
	u     *USM
}

// SetArgPtr sets a pointer argument (a __global pointer, a CUDA T*) to p,
// which may point into the middle of its allocation. The allocation must
// belong to the kernel's context; a launch after it is freed fails with
// ErrInvalidMemObject naming the argument.
func (k *Kernel) SetArgPtr(index int, p Ptr) error {
	if t := trace.Active(); t != nil {
		return k.setArgPtrTraced(t, index, p)
	}
	return k.setArgPtr(index, p)
}

func (k *Kernel) setArgPtr(index int, p Ptr) error {
	const op = "Kernel.SetArgPtr"
	if err := k.enter(op); err != nil {
		return err
	}
	defer k.life.leave()
	if err := k.checkIndex(op, index); err != nil {
		return err
	}
	if err := p.use(op, k.describeArg(index), k.ctx, 0); err != nil {
		return err
	}
	defer p.u.life.leave()
	if err := k.checkMem(op, index); err != nil {
		return err
	}
	pk, ok := k.drv.(driver.PointerKernel)
	if !ok {
		return newError(ErrUnsupportedFeature, op, k.adapter.name, "the %s adapter's kernels take no USM pointers", k.adapter.name)
	}
	if err := pk.SetArgPointer(uint32(index), p.Addr()); err != nil {
		return k.argDriverError(op, index, argSetting{kind: ArgMem}, err)
	}
	k.unbindMem(index)
	k.ptrArgs = append(k.ptrArgs, ptrArg{index, p.u})
	k.args.markSet(index)
	return nil
}

// forgetPtr drops pointer argument index, which another argument replaced.
func (k *Kernel) forgetPtr(index int) {
	if len(k.ptrArgs) != 0 {
		k.ptrArgs = slices.DeleteFunc(k.ptrArgs, func(a ptrArg) bool { return a.index == index })
	}
}

// checkPtrArgs fails a launch whose pointer arguments point into freed
// memory.
func (k *Kernel) checkPtrArgs(op string) error {
	for _, a := range k.ptrArgs {
		if a.u.life.released() {
			return newError(ErrInvalidMemObject, op, k.adapter.name,
				"%s points into the USM allocation at %#x, which was freed", k.describeArg(a.index), a.u.addr)
		}
	}
	return nil
}
