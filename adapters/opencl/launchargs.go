package opencl

import (
	"strconv"
	"sync"
	"unsafe"

	"github.com/gour-dev/gour/adapters/opencl/internal/cl"
	"github.com/gour-dev/gour/ur/driver"
)

// Launches that carry their arguments (driver.ArgLauncher). OpenCL keeps
// arguments in the cl_kernel, and clSetKernelArg on one kernel is not
// thread-safe, so a launch with arguments sets them on a cl_kernel of the
// adapter's own, never on the user's: a clone (clCloneKernel, OpenCL 2.1)
// or, where the driver has none, a new kernel of the same program and
// name (clCreateKernel). OpenCL takes the arguments at the enqueue, so the
// kernel object is free again as soon as clEnqueueNDRangeKernel returns.
//
// Two ways to share those kernels between goroutines were measured
// (BenchmarkLaunchArgs, doc.go): a pool of them, one taken per launch, so
// launches of one kernel run through the driver at once; and one per
// kernel (per mix of buffers and pointers, below) under a lock. The pool
// is the default.
//
// A kernel of the pool never changes a pointer argument between a buffer
// (clSetKernelArg of a cl_mem) and a USM pointer
// (clSetKernelArgMemPointerINTEL, clSetKernelArgSVMPointer). OpenCL says
// what each call replaces only for itself: a value set by
// clSetKernelArgSVMPointer holds "until the argument value is changed by a
// call to clSetKernelArgSVMPointer", one set by clSetKernelArg until the
// next clSetKernelArg. NVIDIA's driver (OpenCL 3.0, coarse-grained SVM)
// keeps an argument's SVM pointer when a cl_mem is set over it: the next
// clEnqueueNDRangeKernel fails with CL_INVALID_KERNEL_ARGS, also after
// setting the argument to NULL either way first, and a clone of the
// kernel carries the state; the same arguments launch on a new kernel,
// and a pointer set over a buffer is accepted. So each kernel of the pool
// remembers how its pointer arguments were set, and a launch takes one it
// turns none of from one kind to the other, or makes one: the pool holds
// a kernel per mix of buffers and pointers in flight at once.

// argLaunchMode selects how argument launches share the adapter's
// kernels; tests switch it to compare.
var argLaunchMode = argLaunchPool

const (
	argLaunchPool   = iota // a pool of kernels, one per launch in flight
	argLaunchLocked        // one kernel, under a lock
)

// argKernel is a cl_kernel of the adapter's own made from a user's
// kernel, with the size arrays its launches pass (heap memory for C).
type argKernel struct {
	handle cl.Kernel
	sizes  launchSizes
	kinds  []uint8 // per argument: how its pointer was set (argBuffer, argPointer), or argUnset
}

// How a pointer argument was set on an argKernel.
const (
	argUnset   uint8 = iota // not a pointer, or not set yet
	argBuffer               // a cl_mem, with clSetKernelArg
	argPointer              // a USM pointer (or NULL)
)

// ptrKind is how a sets a pointer argument: argBuffer, argPointer, or
// argUnset where a is no pointer.
func ptrKind(a *driver.LaunchArg) uint8 {
	switch {
	case a.Kind != driver.ArgMem:
		return argUnset
	case a.Mem != nil:
		return argBuffer
	}
	return argPointer
}

// fits reports whether args set on ak turn no pointer argument from a
// buffer to a USM pointer or back.
func (ak *argKernel) fits(args []driver.LaunchArg) bool {
	for i := range args {
		if i >= len(ak.kinds) {
			return true
		}
		if w, had := ptrKind(&args[i]), ak.kinds[i]; w != argUnset && had != argUnset && w != had {
			return false
		}
	}
	return true
}

// note records how args set ak's pointer arguments. Where setting them
// failed part of the way, the arguments not reached keep their kind,
// which fits found unset or the same.
func (ak *argKernel) note(args []driver.LaunchArg) {
	if len(ak.kinds) < len(args) {
		ak.kinds = append(ak.kinds, make([]uint8, len(args)-len(ak.kinds))...)
	}
	for i := range args {
		if w := ptrKind(&args[i]); w != argUnset {
			ak.kinds[i] = w
		}
	}
}

// argKernels are a kernel's argKernels.
type argKernels struct {
	mu   sync.Mutex
	free []*argKernel // the pool
	all  []*argKernel // every one made, released with the kernel

	lockMu sync.Mutex // argLaunchLocked: held for the launch

	srcOnce sync.Once // the program and name, for clCreateKernel
	prog    cl.Program
	name    string
}

// newArgKernel makes a cl_kernel like k's with its own argument state:
// clCloneKernel, or clCreateKernel of k's program and name where the
// driver has no clones (a 1.2 or 2.0 driver, a 3.0 driver without the
// 2.1 feature). A clone copies k's arguments; neither shares them. Where
// an argument of k was set as a USM pointer, it is clCreateKernel: a
// clone would carry the pointer, which on NVIDIA's driver a buffer set
// over it does not replace (see above).
func (k *kernel) newArgKernel() (cl.Kernel, error) {
	if k.lib.HasCloneKernel() && !k.ptrArgs.Load() {
		h, st := k.lib.CloneKernel(k.handle)
		if st == cl.Success {
			return h, nil
		}
		if st != cl.InvalidOperation {
			return 0, check("clCloneKernel", st)
		}
	}
	a := &k.args
	a.srcOnce.Do(func() {
		if b, st := k.lib.KernelInfo(k.handle, cl.KernelProgram); st == cl.Success {
			a.prog = cl.Program(cl.Uintptr(b))
		}
		if b, st := k.lib.KernelInfo(k.handle, cl.KernelFunctionName); st == cl.Success {
			a.name = cl.CString(b)
		}
	})
	if a.prog == 0 || a.name == "" {
		return 0, driver.Errorf(driver.ResultUnsupportedFeature, "the driver has no clCloneKernel and does not say the kernel's program and name")
	}
	h, st := k.lib.CreateKernel(a.prog, a.name)
	return h, check("clCreateKernel", st)
}

// takeArgKernel takes a kernel that args fit from the pool, making one
// where there is none: the pool grows to the number of launches in flight
// at once, of each mix of buffers and pointers.
func (k *kernel) takeArgKernel(args []driver.LaunchArg) (*argKernel, error) {
	a := &k.args
	a.mu.Lock()
	for i := len(a.free) - 1; i >= 0; i-- {
		if ak := a.free[i]; ak.fits(args) {
			n := len(a.free) - 1
			a.free[i] = a.free[n]
			a.free[n] = nil
			a.free = a.free[:n]
			a.mu.Unlock()
			return ak, nil
		}
	}
	a.mu.Unlock()
	h, err := k.newArgKernel()
	if err != nil {
		return nil, err
	}
	ak := &argKernel{handle: h}
	a.mu.Lock()
	a.all = append(a.all, ak)
	a.mu.Unlock()
	return ak, nil
}

func (k *kernel) giveArgKernel(ak *argKernel) {
	a := &k.args
	a.mu.Lock()
	a.free = append(a.free, ak)
	a.mu.Unlock()
}

// releaseArgKernels releases the kernels made for argument launches.
func (k *kernel) releaseArgKernels() error {
	a := &k.args
	a.mu.Lock()
	defer a.mu.Unlock()
	var err error
	for _, ak := range a.all {
		if e := check("clReleaseKernel", k.lib.ReleaseKernel(ak.handle)); err == nil {
			err = e
		}
	}
	a.all, a.free = nil, nil
	return err
}

// checkLaunchProps refuses what OpenCL cannot launch: it has no
// cooperative launches (OpenCL 2.0's work-group functions reach one
// work-group only), no clusters, and no dynamic work-group memory outside
// a __local pointer argument, which ArgLocalMem sizes.
func checkLaunchProps(p *driver.LaunchProperties) error {
	switch {
	case *p == driver.LaunchProperties{}:
		return nil
	case p.Cooperative:
		return driver.Errorf(driver.ResultUnsupportedFeature, "OpenCL has no cooperative launches (all work-groups resident at once)")
	case p.ClusterDims != [3]uint32{}:
		return driver.Errorf(driver.ResultUnsupportedFeature, "OpenCL has no thread block clusters")
	default:
		return driver.Errorf(driver.ResultUnsupportedFeature, "OpenCL has no dynamic work-group memory apart from __local pointer arguments: give it with ArgLocalMem")
	}
}

// setArgs sets args on h, a kernel of k's (an argKernel, a recorded
// launch's). It allocates nothing: every pointer passed is into args,
// which the caller keeps on the heap, or into a mem.
func (k *kernel) setArgs(h cl.Kernel, args []driver.LaunchArg) error {
	for i := range args {
		a := &args[i]
		var st cl.Status
		fn := "clSetKernelArg"
		switch {
		case a.Kind == driver.ArgLocal:
			st = k.lib.SetKernelArg(h, uint32(i), uintptr(a.Size), nil)
		case a.Kind == driver.ArgMem && a.Mem != nil:
			mm := a.Mem.(*mem)
			st = k.lib.SetKernelArg(h, uint32(i), unsafe.Sizeof(mm.handle), unsafe.Pointer(&mm.handle))
		case a.Kind == driver.ArgMem:
			switch k.ctx.via {
			case usmIntel:
				fn, st = "clSetKernelArgMemPointerINTEL", k.ctx.intel.SetKernelArgMemPointer(h, uint32(i), a.Ptr)
			case usmSVM:
				fn, st = "clSetKernelArgSVMPointer", k.lib.SetKernelArgSVMPointer(h, uint32(i), a.Ptr)
			default:
				return k.ctx.noUSM()
			}
		case a.Kind == driver.ArgValue && a.Bytes != nil:
			st = k.lib.SetKernelArg(h, uint32(i), uintptr(len(a.Bytes)), unsafe.Pointer(unsafe.SliceData(a.Bytes)))
		case a.Kind == driver.ArgValue && a.Size <= 8:
			st = k.lib.SetKernelArg(h, uint32(i), uintptr(a.Size), unsafe.Pointer(&a.Bits))
		case a.Kind == driver.ArgValue:
			return driver.Errorf(driver.ResultInvalidKernelArgumentSize, "argument %d: a %d-byte value needs Bytes", i, a.Size)
		default:
			return driver.Errorf(driver.ResultInvalidKernelArgs, "argument %d: unknown kind %d", i, a.Kind)
		}
		if st != cl.Success {
			e := statusError(fn, st)
			e.Message += argSuffix(i)
			return e
		}
	}
	return nil
}

// argSuffix names argument i in an error.
func argSuffix(i int) string { return " (argument " + strconv.Itoa(i) + ")" }

// LaunchWithArgs sets args on a kernel of the adapter's own (see above)
// and launches it. With no wait list and no event it allocates nothing.
func (q *queue) LaunchWithArgs(dk driver.Kernel, r driver.NDRange, args []driver.LaunchArg, props driver.LaunchProperties, wait []driver.Event, wantEvent bool) (driver.Event, error) {
	if err := checkLaunchProps(&props); err != nil {
		return nil, err
	}
	k := dk.(*kernel)
	if argLaunchMode == argLaunchLocked {
		// One launch at a time: the pool holds a kernel per mix of
		// buffers and pointers.
		k.args.lockMu.Lock()
		defer k.args.lockMu.Unlock()
	}
	ak, err := k.takeArgKernel(args)
	if err != nil {
		return nil, err
	}
	ev, err := q.launchArgKernel(k, ak, &r, args, wait, wantEvent)
	k.giveArgKernel(ak)
	return ev, err
}

func (q *queue) launchArgKernel(k *kernel, ak *argKernel, r *driver.NDRange, args []driver.LaunchArg, wait []driver.Event, wantEvent bool) (driver.Event, error) {
	err := k.setArgs(ak.handle, args)
	ak.note(args)
	if err != nil {
		return nil, err
	}
	e, ev := q.newEvent(wantEvent)
	offset, global, local := ak.sizes.set(r)
	k.guard.enter(q)
	st := q.lib.EnqueueNDRangeKernel(q.handle, ak.handle, r.Dims, offset, global, local, waitList(wait), ev)
	k.guard.exit(q, st)
	return q.result("clEnqueueNDRangeKernel", e, st)
}

var _ driver.ArgLauncher = (*queue)(nil)
