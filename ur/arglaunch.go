package ur

import (
	"encoding/binary"

	"github.com/gour-dev/gour/trace"
	"github.com/gour-dev/gour/ur/driver"
)

// ArgLaunch is a launch with arguments (Queue.Launch) checked once and
// kept with its own argument table, for a loop that makes the same launch
// many times with new argument values: SetArg changes one argument,
// Launch enqueues the kernel with the arguments as they are. On CUDA a
// Launch is the driver's one call, as a PreparedLaunch is.
//
// The table belongs to the ArgLaunch, not to the kernel, so goroutines
// that each prepare their own ArgLaunch of one kernel launch it at once
// with no lock; one ArgLaunch is used by one goroutine at a time, as a
// kernel's own arguments are.
//
// An ArgLaunch holds its queue, its kernel and the buffers and pointers
// among its arguments: releasing or freeing one makes Launch fail with
// ErrInvalidQueue, ErrInvalidKernel or ErrInvalidMemObject, and the driver
// object is freed once the ArgLaunch is released too (or the argument
// replaced by SetArg).
type ArgLaunch struct {
	object
	q      *Queue
	k      *Kernel
	r      NDRange
	props  LaunchProperties
	args   []Arg
	drv    driver.PreparedArgLaunch // nil where the adapter cannot prepare one
	native *driver.NativeCall       // drv's one C call, or nil
	// values holds, per value argument, its bytes in drv's table, which
	// SetArg writes a value of the prepared size into directly.
	values [][]byte
}

// PrepareLaunchArgs checks a launch of k over r with props and args on q as
// EnqueueLaunch would and returns it prepared.
func (q *Queue) PrepareLaunchArgs(k *Kernel, r NDRange, props LaunchProperties, args ...Arg) (rh *ArgLaunch, rerr error) {
	const op = "Queue.PrepareLaunchArgs"
	if t := trace.Active(); t != nil {
		tc := beginCall(t, op, q, k)
		tc.launchArgs(k, &r)
		defer endNewOf(&tc, &rh, &rerr)
	}

	if err := q.enter(op); err != nil {
		return nil, err
	}
	if err := k.enter(op); err != nil {
		q.life.leave()
		return nil, err
	}
	l, err := q.prepareArgs(op, k, &r, props, args)
	if err != nil {
		leaveBoth(&q.life, &k.life)
		return nil, err
	}
	// The queue, the kernel and the arguments' memory stay entered until
	// l is freed.
	l.created("ArgLaunch")
	l.life.free = func() error {
		leaveArgs(l.args)
		leaveBoth(&q.life, &k.life)
		return nil
	}
	return l, nil
}

func (q *Queue) prepareArgs(op string, k *Kernel, r *NDRange, props LaunchProperties, args []Arg) (*ArgLaunch, error) {
	if err := q.checkArgLaunch(op, k, r, &props, len(args)); err != nil {
		return nil, err
	}
	l := &ArgLaunch{object: object{adapter: q.adapter}, q: q, k: k, r: *r, props: props, args: make([]Arg, len(args))}
	dargs := make([]driver.LaunchArg, len(args))
	for i := range args {
		d, err := k.checkLaunchArg(op, i, &args[i])
		if err != nil {
			leaveArgs(l.args[:i])
			return nil, err
		}
		l.args[i], dargs[i] = args[i], d
	}
	if prep, ok := q.drv.(driver.ArgLaunchPreparer); ok {
		pl, err := prep.PrepareArgLaunch(k.drv, *r, dargs, props)
		if err != nil {
			leaveArgs(l.args)
			return nil, q.ctx.wrap(err, op)
		}
		l.drv, l.native = pl, pl.Native()
		l.values = make([][]byte, len(args))
		for i := range args {
			if args[i].kind == ArgValue {
				l.values[i] = pl.Value(i)
			}
		}
	}
	return l, nil
}

const (
	opArgLaunch       = "ArgLaunch.Launch"
	opArgLaunchSetArg = "ArgLaunch.SetArg"
)

// Launch enqueues the launch with its arguments as they are. It returns
// no event and allocates nothing.
func (l *ArgLaunch) Launch() error {
	if l == nil || !l.life.enter() {
		return l.enterError(opArgLaunch)
	}
	defer l.life.leave()
	// l keeps the queue, the kernel and the arguments' memory from being
	// freed, so loads tell whether they were released.
	if l.q.life.released() || l.k.life.released() || argsReleased(l.args) {
		return l.heldReleasedError()
	}
	if t := trace.Active(); t != nil {
		return l.launchTraced(t)
	}
	if l.native != nil {
		if l.native.Launch() == driver.Launched { // a direct call, not through the interface
			return nil
		}
	} else if l.drv != nil && l.drv.Launch() == driver.Launched {
		return nil
	}
	return l.launchSlowly()
}

// launchSlowly launches through the adapter's launch with arguments, which
// makes the error where the prepared launch failed.
func (l *ArgLaunch) launchSlowly() error {
	_, err := l.q.launchArgs(opArgLaunch, l.k, &l.r, l.props, l.args, nil, false)
	return err
}

// SetArg replaces argument i for the launches that follow. The new
// argument is of the kind the old one was (a value, memory or local
// memory) and is checked as a launch's is; a value of the right size
// costs no more than writing it.
func (l *ArgLaunch) SetArg(i int, a Arg) error { return l.setArg(i, a, false) }

// setArg is SetArg; traced is set by the tracing layer's own call
// (layers_trace.go), which records this one.
func (l *ArgLaunch) setArg(i int, a Arg, traced bool) error {
	if !traced {
		if t := trace.Active(); t != nil {
			return l.setArgTraced(t, i, &a)
		}
	}
	if l == nil || !l.life.enter() {
		return l.enterError(opArgLaunchSetArg)
	}
	defer l.life.leave()
	if i < 0 || i >= len(l.args) {
		return newError(ErrInvalidKernelArgumentIndex, opArgLaunchSetArg, l.adapter.name, "kernel %s was prepared with %d arguments, not an argument %d", l.k.name, len(l.args), i)
	}
	old := &l.args[i]
	if a.kind == ArgValue && l.values != nil && len(l.values[i]) != 0 && uint64(len(l.values[i])) == a.size {
		// The size the kernel's parameter has, checked when prepared: the
		// value goes straight into the launch's table.
		a.writeValue(l.values[i])
		*old = a
		return nil
	}
	if a.kind != old.kind || a.kind == ArgLocal && a.size != old.size {
		return newError(ErrInvalidKernelArgs, opArgLaunchSetArg, l.adapter.name,
			"%s was prepared as %s; prepare the launch again to change it", l.k.describeArg(i), old.describe())
	}
	if a.kind == ArgValue && a.size != old.size {
		return newError(ErrInvalidKernelArgumentSize, opArgLaunchSetArg, l.adapter.name,
			"%s was prepared as a %d-byte value, not %d bytes", l.k.describeArg(i), old.size, a.size)
	}
	d, err := l.k.checkLaunchArg(opArgLaunchSetArg, i, &a)
	if err != nil {
		return err
	}
	if l.drv != nil {
		if err := l.drv.SetArg(i, d); err != nil {
			leaveArgs([]Arg{a})
			return wrapError(err, opArgLaunchSetArg, l.adapter.name)
		}
	}
	if old.kind == ArgMem {
		leaveArgs(l.args[i : i+1])
	}
	*old = a
	return nil
}

// writeValue writes value argument a into dst, len(dst) == a.size.
func (a *Arg) writeValue(dst []byte) {
	if a.bytes != nil {
		copy(dst, a.bytes)
		return
	}
	switch len(dst) {
	case 4:
		binary.LittleEndian.PutUint32(dst, uint32(a.bits))
	case 8:
		binary.LittleEndian.PutUint64(dst, a.bits)
	default:
		for j := range dst {
			dst[j] = byte(a.bits >> (8 * j))
		}
	}
}

// describe names what kind of argument a is, for errors.
func (a *Arg) describe() string {
	switch a.kind {
	case ArgValue:
		return "a value"
	case ArgMem:
		return "memory"
	case ArgLocal:
		return "local memory"
	}
	return "the zero Arg"
}

// argsReleased reports whether a buffer or allocation among args was
// released or freed.
func argsReleased(args []Arg) bool {
	for i := range args {
		if a := &args[i]; a.kind == ArgMem {
			if a.mem != nil && a.mem.life.released() || a.mem == nil && a.ptr.u.life.released() {
				return true
			}
		}
	}
	return false
}

// enterError is the error for a nil or released l.
func (l *ArgLaunch) enterError(op string) error {
	if l == nil {
		return nilHandle("ArgLaunch", op)
	}
	return l.releasedError("ArgLaunch", ErrInvalidValue, op)
}

// heldReleasedError names what was released under l.
func (l *ArgLaunch) heldReleasedError() error {
	switch {
	case l.q.life.released():
		return newError(ErrInvalidQueue, opArgLaunch, l.adapter.name, "Queue was released")
	case l.k.life.released():
		return newError(ErrInvalidKernel, opArgLaunch, l.adapter.name, "Kernel was released")
	}
	for i := range l.args {
		if argsReleased(l.args[i : i+1]) {
			return newError(ErrInvalidMemObject, opArgLaunch, l.adapter.name, "%s was released or freed", l.k.describeArg(i))
		}
	}
	return newError(ErrInvalidMemObject, opArgLaunch, l.adapter.name, "an argument was released")
}

// Release releases the prepared launch, and with it its hold on the
// queue, the kernel and its arguments' memory, once no Launch is running.
func (l *ArgLaunch) Release() error {
	if l == nil {
		return nilHandle("ArgLaunch", "ArgLaunch.Release")
	}
	return l.release("ArgLaunch", ErrInvalidValue)
}
