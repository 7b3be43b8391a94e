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
	// call names the algorithm (Fill, Copy, Transform), for errors.
	call string
	// driverCopy marks Copy: on a GPU the driver's copy moves the bytes
	// (its copy engine reaches the memory's bandwidth where the copy
	// kernel fell short; docs/benchmarks.md, "The compute runtime on the
	// H100"); the kernel is the
	// fallback, and a CPU device's choice (Device.kernelCopy).
	driverCopy bool
	// vec is the Func's four-a-work-item kernel, where it has one (an
	// ExprFunc): a Device whose ElementsPerThread is 4 launches it over a
	// quarter of the work-items when every array is aligned to four
	// elements, and the one-a-work-item kernel otherwise.
	vec     vec4Func
	vecUsed bool // kernel is vec's

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
	if op.n == 0 {
		return nil
	}
	if op.vec != nil && d.perThread == 4 {
		op.kernel, err = d.kernel(op.vec.vec4())
		op.vecUsed = err == nil
		return err
	}
	op.kernel, err = d.kernel(&op.kernelSrc, op.name)
	return err
}

// vec4Func is a Func with a kernel computing four consecutive elements a
// work-item (an ExprFunc), with the arguments of its one-a-work-item
// kernel: vec4 returns its program and its name.
type vec4Func interface {
	vec4() (*kernelSrc, string)
}

// aligned4 reports whether every array of op starts at a multiple of
// four elements, as the four-a-work-item kernel's vector loads need.
func (op *ewOp) aligned4() bool {
	b := uint64(4 * op.out.et.size)
	if !op.out.dev.alignedTo(b) {
		return false
	}
	for _, in := range op.ins {
		if !in.dev.alignedTo(uint64(4 * in.et.size)) {
			return false
		}
	}
	return true
}

func (op *ewOp) onDevice(d *Device) error {
	if op.n == 0 {
		return nil
	}
	if op.driverCopy && !d.kernelCopy {
		if ok, err := op.out.dev.copyFrom(op.ins[0].dev, op.out.bytes()); ok {
			return err
		}
	}
	e, items := op.kernel, uint64(op.n)
	if op.vecUsed {
		if op.aligned4() {
			items = (items + 3) / 4
		} else {
			var err error
			if e, err = d.kernel(&op.kernelSrc, op.name); err != nil {
				return err
			}
		}
	}
	args := op.argBuf[:0]
	args = append(args, op.out.dev.arg())
	for _, in := range op.ins {
		args = append(args, in.dev.arg())
	}
	args = append(args, op.params...)
	args = append(args, ur.ArgOf(uint64(op.n)))
	return d.launch(e, roundUp(items, e.local), e.local, args)
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

func (op *ewOp) onMulti(m *MultiDevice) error { return splitRun(m, op) }

func (op *ewOp) layout() (string, *core, []marg) {
	return op.call, op.out, append(margsOf(op.call+" input", true, op.ins...), margsOf(op.call+" output", false, op.out)...)
}

func (op *ewOp) onPart(i int) (work, []use, error) {
	p := op.partOp(i)
	return p, p.uses(), nil
}

// partOp is op over part i of its arrays: its own slices, no kernel yet.
func (op *ewOp) partOp(i int) *ewOp {
	out := op.out.parts[i]
	return &ewOp{
		n: out.n, kernelSrc: op.kernelSrc, name: op.name, out: out, ins: partsOf(op.ins, i),
		params: op.params, cpu: op.cpu, fn: op.fn, call: op.call, driverCopy: op.driverCopy, vec: op.vec,
	}
}

// uses are op's arrays as run takes them.
func (op *ewOp) uses() []use {
	uses := make([]use, 0, len(op.ins)+1)
	for _, in := range op.ins {
		uses = append(uses, use{in, In})
	}
	return append(uses, use{op.out, Out})
}
