package compute

import "github.com/gour-dev/gour/ur"

// ewOp is one element-wise operation: out[i] = f(ins[i]..., params) for
// every i < n.
type ewOp struct {
	n int
	kernelSrc
	name   string // the kernel's name
	out    *core
	ins    []*core
	params []ur.Arg
	// cpu makes the chunk body on the CPU context, only there, so that a
	// device operation does not touch host storage.
	cpu cpuBody
	// fn is a Transform's Func[T], for its cpu.
	fn any
	// kernel is the device kernel, found by kernels.
	kernel *kernelEntry
	// driverCopy marks Copy: on a device the driver's copy moves the
	// bytes (its copy engine reaches the memory's bandwidth where the
	// copy kernel fell short by a fifth on the H100); the kernel is the
	// fallback.
	driverCopy bool

	// Room for the slices of a small operation: a Transform on a device
	// then allocates nothing (BenchmarkDispatch, with a NewFunc or an
	// Expr). Its dispatch cost is the package's overhead on a launch.
	// The CPU context allocates its chunk closures, and an ExprFunc the
	// evaluator's operands (BenchmarkDispatchCPU, 1024 elements in one
	// chunk).
	useBuf   [4]use
	coreBuf  [4]*core
	paramBuf [4]ur.Arg
	argBuf   [8]ur.Arg
}

// cpuBody makes an element-wise operation's chunk body from its arrays'
// host copies. An interface, so that an algorithm states its CPU side
// with a value of a zero-size type, without allocating: a func field set
// by a generic function (or a closure over the algorithm's arguments)
// would allocate on every operation, a device's included.
type cpuBody interface {
	body(op *ewOp) func(lo, hi int)
}

func (op *ewOp) kernels(d *Device) (err error) {
	if op.n > 0 {
		op.kernel, err = d.kernel(&op.kernelSrc, op.name)
	}
	return err
}

func (op *ewOp) onDevice(d *Device) error {
	if op.n == 0 {
		return nil
	}
	if op.driverCopy {
		if ok, err := op.out.dev.copyFrom(op.ins[0].dev, op.out.bytes()); ok {
			return err
		}
	}
	e := op.kernel
	args := op.argBuf[:0]
	args = append(args, op.out.dev.arg())
	for _, in := range op.ins {
		args = append(args, in.dev.arg())
	}
	args = append(args, op.params...)
	args = append(args, ur.ArgOf(uint64(op.n)))
	return d.launch(e, roundUp(uint64(op.n), e.local), e.local, args)
}

// onCPU recovers a panic in making the body (which views the arrays'
// storage), on the caller's goroutine, as parallel does one in a chunk.
func (op *ewOp) onCPU(c *CPU) (err error) {
	if op.n == 0 {
		return nil
	}
	defer recovered("CPU function", &err)
	f := op.cpu.body(op)
	return c.parallel(op.n, c.chunks(op.n), func(_, lo, hi int) { f(lo, hi) })
}
