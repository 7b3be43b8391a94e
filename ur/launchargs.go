package ur

import (
	"sync"
	"unsafe"

	"github.com/gour-dev/gour/trace"
	"github.com/gour-dev/gour/ur/driver"
)

// LaunchProperties are a launch's properties beyond its range:
// cooperative launch, CUDA cluster dimensions, and dynamic work-group
// memory (CUDA's sharedMemBytes, for kernels that declare
// extern __shared__ arrays).
type LaunchProperties = driver.LaunchProperties

// Arg is one kernel argument given with a launch (Queue.Launch), as
// the Unified Runtime's urEnqueueKernelLaunchWithArgsExp and CUDA's
// kernelParams take them: a value (ArgOf, ArgBytes), a buffer
// (ArgBuffer), a USM pointer (ArgPtr) or local memory (ArgLocalMem). An Arg
// holds no driver state, so building one costs nothing.
type Arg struct {
	kind  ArgKind
	size  uint64
	bits  uint64
	bytes []byte
	mem   *Mem
	ptr   Ptr
}

// ArgOf is a scalar argument: ur.ArgOf(float32(2)), ur.ArgOf(uint32(n)).
func ArgOf[T Scalar](v T) Arg {
	var bits uint64
	*(*T)(unsafe.Pointer(&bits)) = v // little-endian: the low bytes hold the value
	return Arg{kind: ArgValue, size: uint64(unsafe.Sizeof(v)), bits: bits}
}

// ArgBytes is an argument passed by copy, laid out as the device expects
// (a struct, a vector); the launch copies it before it returns.
func ArgBytes(b []byte) Arg { return Arg{kind: ArgValue, size: uint64(len(b)), bytes: b} }

// ArgBuffer is a buffer argument.
func ArgBuffer(m *Mem) Arg { return Arg{kind: ArgMem, mem: m} }

// ArgPtr is a USM pointer argument; it may point into the middle of its
// allocation.
func ArgPtr(p Ptr) Arg { return Arg{kind: ArgMem, ptr: p} }

// ArgLocalMem is size bytes of work-group (local, shared) memory for a
// __local pointer argument, or, on CUDA, for an argument of gour's
// portable local-memory convention (see adapters/cuda).
func ArgLocalMem(size uint64) Arg { return Arg{kind: ArgLocal, size: size} }

// argScratch holds the adapter's form of a launch's arguments between
// launches, so that a launch allocates nothing.
var argScratch = sync.Pool{New: func() any { return new([]driver.LaunchArg) }}

func (q *Queue) launchArgs(op string, k *Kernel, r *NDRange, props LaunchProperties, args []Arg, wait []*Event, wantEvent bool) (*Event, error) {
	if q == nil || !q.life.enter() {
		return nil, q.enterError(op)
	}
	if k == nil || !k.life.enter() {
		q.life.leave()
		return nil, k.enterError(op)
	}
	defer leaveBoth(&q.life, &k.life)
	if err := q.checkArgLaunch(op, k, r, &props, len(args)); err != nil {
		return nil, err
	}
	sp := argScratch.Get().(*[]driver.LaunchArg)
	defer argScratch.Put(sp)
	dargs := (*sp)[:0]
	defer func() { clear(dargs); *sp = dargs[:0] }()
	entered := 0
	defer func() { leaveArgs(args[:entered]) }()
	for i := range args {
		a := &args[i]
		d, err := k.checkLaunchArg(op, i, a)
		if err != nil {
			return nil, err
		}
		entered = i + 1
		dargs = append(dargs, d)
	}
	// A repeated launch: the arguments that changed written into its
	// prepared table, then one call (argTable).
	plain := len(wait) == 0 && !wantEvent && props == LaunchProperties{}
	if plain && k.launchArgTable(q, r, dargs) {
		return nil, nil
	}
	dw, err := q.useWaitList(op, wait)
	if err != nil {
		return nil, err
	}
	defer leaveEvents(wait)
	var ev driver.Event
	if al, ok := q.drv.(driver.ArgLauncher); ok {
		ev, err = al.LaunchWithArgs(k.drv, *r, dargs, props, dw, wantEvent)
	} else {
		ev, err = k.launchLocked(q, r, props, dargs, dw, wantEvent)
	}
	if err == nil && ev == nil {
		if plain {
			k.noteArgLaunch(q, r, dargs)
		}
		return nil, nil
	}
	return q.finishEnqueue(op, ev, err, nil)
}

// checkArgLaunch checks a launch of k over r with props and nargs
// arguments on q, all but the arguments themselves.
func (q *Queue) checkArgLaunch(op string, k *Kernel, r *NDRange, props *LaunchProperties, nargs int) error {
	if k.ctx != q.ctx {
		return q.foreignKernel(op, k)
	}
	if err := checkRange(op, q.adapter.name, r); err != nil {
		return err
	}
	if r.Local[0] != 0 {
		if err := k.checkGroup(op, q, r); err != nil {
			return err
		}
	}
	if err := q.checkProps(op, props); err != nil {
		return err
	}
	if k.numArgs != driver.NumArgsUnknown && nargs != int(k.numArgs) {
		if nargs == 0 {
			return newError(ErrInvalidKernelArgs, op, k.adapter.name, "kernel %s takes %d arguments: a launch with properties takes them with it, not from the kernel", k.name, k.numArgs)
		}
		return newError(ErrInvalidKernelArgs, op, k.adapter.name, "kernel %s takes %d arguments, the launch gives %d", k.name, k.numArgs, nargs)
	}
	return nil
}

// checkProps checks launch properties against the queue's device.
func (q *Queue) checkProps(op string, p *LaunchProperties) error {
	if *p == (LaunchProperties{}) {
		return nil
	}
	for _, d := range p.ClusterDims {
		if d == 0 && p.ClusterDims != [3]uint32{} {
			return newError(ErrInvalidValue, op, q.adapter.name, "cluster dimensions %v: all or none must be set", p.ClusterDims)
		}
	}
	return nil
}

// checkLaunchArg checks argument i of a launch and returns the adapter's
// form of it; a buffer or pointer argument is left entered, for the
// caller to leave (leaveArgs).
func (k *Kernel) checkLaunchArg(op string, i int, a *Arg) (driver.LaunchArg, error) {
	switch a.kind {
	case ArgValue:
		if a.size == 0 {
			return driver.LaunchArg{}, newError(ErrInvalidKernelArgumentSize, op, k.adapter.name, "%s: the value is empty", k.describeArg(i))
		}
		if err := k.checkValue(op, i, a.size); err != nil {
			return driver.LaunchArg{}, err
		}
		return driver.LaunchArg{Kind: ArgValue, Size: a.size, Bits: a.bits, Bytes: a.bytes}, nil
	case ArgLocal:
		if a.size == 0 {
			return driver.LaunchArg{}, newError(ErrInvalidKernelArgumentSize, op, k.adapter.name, "%s: local memory size is 0", k.describeArg(i))
		}
		if err := k.checkLocal(op, i, a.size); err != nil {
			return driver.LaunchArg{}, err
		}
		return driver.LaunchArg{Kind: ArgLocal, Size: a.size}, nil
	case ArgMem:
		if err := k.checkMem(op, i); err != nil {
			return driver.LaunchArg{}, err
		}
		if a.mem != nil {
			if err := a.mem.enter(op); err != nil {
				return driver.LaunchArg{}, err
			}
			if a.mem.ctx != k.ctx {
				a.mem.life.leave()
				return driver.LaunchArg{}, newError(ErrInvalidContext, op, k.adapter.name, "%s: the buffer belongs to another context", k.describeArg(i))
			}
			return driver.LaunchArg{Kind: ArgMem, Mem: a.mem.drv}, nil
		}
		if err := a.ptr.useArg(op, k, i); err != nil {
			return driver.LaunchArg{}, err
		}
		return driver.LaunchArg{Kind: ArgMem, Ptr: a.ptr.Addr()}, nil
	}
	return driver.LaunchArg{}, newError(ErrInvalidKernelArgs, op, k.adapter.name, "%s: the zero Arg; make arguments with ArgOf, ArgBytes, ArgBuffer, ArgPtr or ArgLocalMem", k.describeArg(i))
}

// leaveArgs ends the use of the buffers and pointers of checked arguments.
func leaveArgs(args []Arg) {
	for i := range args {
		if a := &args[i]; a.kind == ArgMem {
			if a.mem != nil {
				a.mem.life.leave()
			} else {
				a.ptr.u.life.leave()
			}
		}
	}
}

// launchLocked is a launch with arguments on an adapter without argument
// launches: the arguments are set on the kernel and the kernel launched
// under the kernel's launch lock, so launches of one kernel serialise but
// stay correct. Launches with properties need the adapter.
func (k *Kernel) launchLocked(q *Queue, r *NDRange, props LaunchProperties, args []driver.LaunchArg, wait []driver.Event, wantEvent bool) (driver.Event, error) {
	if props != (LaunchProperties{}) {
		return nil, driver.Errorf(driver.ResultUnsupportedFeature, "the %s adapter takes no launch properties", k.adapter.name)
	}
	k.argMu.Lock()
	defer k.argMu.Unlock()
	for i, a := range args {
		var err error
		switch {
		case a.Kind == ArgLocal:
			err = k.drv.SetArgLocal(uint32(i), a.Size)
		case a.Kind == ArgMem && a.Mem != nil:
			err = k.drv.SetArgMem(uint32(i), a.Mem)
		case a.Kind == ArgMem:
			pk, ok := k.drv.(driver.PointerKernel)
			if !ok {
				return nil, driver.Errorf(driver.ResultUnsupportedFeature, "the %s adapter's kernels take no USM pointers", k.adapter.name)
			}
			err = pk.SetArgPointer(uint32(i), a.Ptr)
		case a.Bytes != nil:
			err = k.drv.SetArgValue(uint32(i), a.Bytes)
		default:
			bits := a.Bits
			err = k.drv.SetArgValue(uint32(i), unsafe.Slice((*byte)(unsafe.Pointer(&bits)), a.Size))
		}
		if err != nil {
			return nil, err
		}
	}
	// The kernel's own argument state now differs from what SetArg*
	// recorded: launches through it (and prepared ones) see these
	// arguments until set again, as OpenCL's would.
	return q.drv.Launch(k.drv, *r, wait, wantEvent)
}

// useArg is Ptr.use for argument i of k, naming the argument only when it
// is refused: describing it costs an allocation a launch must not make.
func (p Ptr) useArg(op string, k *Kernel, i int) error {
	if p.u != nil && p.u.enter(op) == nil {
		if p.check(op, "", k.ctx, 0) == nil {
			return nil
		}
		p.u.life.leave()
	}
	return p.use(op, k.describeArg(i), k.ctx, 0)
}

// SetArg sets the kernel's own argument index to a, an argument made for
// Launch: a value (SetArgBytes), a buffer (SetArgMem), a USM pointer
// (SetArgPtr) or local memory (SetArgLocal). It is the bridge from code
// that builds Args to a PreparedLaunch, which launches with the kernel's
// own arguments.
func (k *Kernel) SetArg(index int, a Arg) (rerr error) {
	const op = "Kernel.SetArg"
	if t := trace.Active(); t != nil {
		tc := beginCall(t, op, k)
		tc.args.Int("index", int64(index))
		defer tc.end(&rerr)
	}

	if k == nil {
		return nilHandle("Kernel", op)
	}
	switch {
	case a.kind == ArgValue && a.bytes != nil:
		return k.SetArgBytes(index, a.bytes)
	case a.kind == ArgValue:
		var b [8]byte
		a.writeValue(b[:a.size])
		return k.SetArgBytes(index, b[:a.size])
	case a.kind == ArgMem && a.mem != nil:
		return k.SetArgMem(index, a.mem)
	case a.kind == ArgMem:
		return k.SetArgPtr(index, a.ptr)
	case a.kind == ArgLocal:
		return k.SetArgLocal(index, a.size)
	}
	return newError(ErrInvalidKernelArgs, op, k.adapter.name, "argument %d: an Arg made by none of ur's Arg functions", index)
}
