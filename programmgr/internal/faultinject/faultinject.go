package faultinject

import (
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/gour-dev/gour/adapters/opencl"
	"github.com/gour-dev/gour/ur"
	"github.com/gour-dev/gour/ur/driver"
)

// Name is the adapter's registry name.
const Name = "faultinject"

// Copies is how many devices the adapter shows for each real device.
const Copies = 2

var registerOnce sync.Once

// Register registers the adapter under Name. It may be called any number
// of times.
func Register() {
	registerOnce.Do(func() { driver.Register(Name, open) })
}

// Op names a driver call that can be counted, hooked and failed.
type Op int

// The calls a test can fail.
const (
	CreateSource    Op = iota // Context.NewProgramFromSource
	CreateIL                  // Context.NewProgramFromIL
	CreateBinaries            // Context.NewProgramFromBinaries
	Build                     // Program.Build
	Compile                   // Program.Compile
	Link                      // Context.Link
	CreateKernel              // Program.NewKernel
	Binaries                  // Program.Binaries
	SetSpecConstant           // Program.SetSpecConstant
	numOps
)

var opNames = [...]string{"CreateSource", "CreateIL", "CreateBinaries", "Build", "Compile", "Link", "CreateKernel", "Binaries", "SetSpecConstant"}

func (op Op) String() string {
	if op >= 0 && op < numOps {
		return opNames[op]
	}
	return fmt.Sprintf("Op(%d)", int(op))
}

// Controller holds the faults and counters of one context.
type Controller struct {
	mu     sync.Mutex
	faults [numOps][]fault
	hooks  [numOps]func() error

	calls                            [numOps]atomic.Int64
	programsCreated, programReleases atomic.Int64
	kernelsCreated, kernelReleases   atomic.Int64
	doubleReleases                   atomic.Int64
	binarySize                       atomic.Int64
	dropLinkOptions                  atomic.Bool
}

type fault struct {
	code  driver.Result
	times int
}

// Fail makes the next times calls of op fail with code, after the faults
// already queued for op.
func (c *Controller) Fail(op Op, code driver.Result, times int) {
	if times <= 0 {
		return
	}
	c.mu.Lock()
	c.faults[op] = append(c.faults[op], fault{code, times})
	c.mu.Unlock()
}

// Pending is the number of injected failures of op not yet used.
func (c *Controller) Pending(op Op) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for _, f := range c.faults[op] {
		n += f.times
	}
	return n
}

// Hook runs fn at every call of op, before the call and before any
// injected failure; fn may block, panic, or return an error that the call
// returns instead of forwarding. A nil fn removes the hook.
func (c *Controller) Hook(op Op, fn func() error) {
	c.mu.Lock()
	c.hooks[op] = fn
	c.mu.Unlock()
}

// Calls is the number of calls of op so far, failed ones included.
func (c *Controller) Calls(op Op) int64 { return c.calls[op].Load() }

// ProgramsCreated counts programs created (from source, IL, binaries or
// by linking).
func (c *Controller) ProgramsCreated() int64 { return c.programsCreated.Load() }

// ProgramReleases counts first releases of programs.
func (c *Controller) ProgramReleases() int64 { return c.programReleases.Load() }

// KernelsCreated counts kernels created.
func (c *Controller) KernelsCreated() int64 { return c.kernelsCreated.Load() }

// KernelReleases counts first releases of kernels.
func (c *Controller) KernelReleases() int64 { return c.kernelReleases.Load() }

// LivePrograms is the number of programs created and not released.
func (c *Controller) LivePrograms() int64 { return c.ProgramsCreated() - c.ProgramReleases() }

// LiveKernels is the number of kernels created and not released.
func (c *Controller) LiveKernels() int64 { return c.KernelsCreated() - c.KernelReleases() }

// DoubleReleases counts releases of programs or kernels already released:
// each one is a bug in the caller. They are not forwarded.
func (c *Controller) DoubleReleases() int64 { return c.doubleReleases.Load() }

// SetBinarySize makes Program.Binaries report binaries of n zero bytes, one
// per device the program was built for, instead of the real ones, so that
// cache sizes are exact (n = 0 goes back to the real binaries).
func (c *Controller) SetBinarySize(n int) { c.binarySize.Store(int64(n)) }

// SetDropLinkOptions makes Link forward empty link options: PoCL refuses
// every link option, and tests of the compile-and-link path need some.
func (c *Controller) SetDropLinkOptions(drop bool) { c.dropLinkOptions.Store(drop) }

// enter counts a call of op, runs its hook and returns the injected
// failure, if any.
func (c *Controller) enter(op Op) error {
	c.calls[op].Add(1)
	c.mu.Lock()
	hook := c.hooks[op]
	c.mu.Unlock()
	if hook != nil {
		if err := hook(); err != nil {
			return err
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	q := c.faults[op]
	if len(q) == 0 {
		return nil
	}
	code := q[0].code
	if q[0].times--; q[0].times == 0 {
		c.faults[op] = q[1:]
	}
	return &driver.Error{Result: code, Message: "faultinject: injected failure of " + op.String()}
}

var controllers sync.Map // real native context handle -> *Controller

// For returns the Controller of a context of this adapter, or nil for a
// context of another adapter.
func For(ctx *ur.Context) *Controller {
	if ctx == nil || ctx.Adapter() == nil || ctx.Adapter().Name() != Name {
		return nil
	}
	c, _ := controllers.Load(ctx.Native())
	ctl, _ := c.(*Controller)
	return ctl
}

type adapter struct {
	real      driver.Adapter
	platforms []driver.Platform
}

type platform struct {
	real    driver.Platform
	devices []driver.Device
}

type device struct {
	real driver.Device
	copy int
}

func open() (driver.Adapter, error) {
	real, err := opencl.Open()
	if err != nil {
		return nil, fmt.Errorf("%s wraps opencl: %w", Name, err)
	}
	a := &adapter{real: real}
	plats, err := real.Platforms()
	if err != nil {
		return nil, err
	}
	for _, rp := range plats {
		p := &platform{real: rp}
		devs, err := rp.Devices()
		if err != nil {
			return nil, err
		}
		for _, rd := range devs {
			for i := 0; i < Copies; i++ {
				p.devices = append(p.devices, &device{real: rd, copy: i})
			}
		}
		a.platforms = append(a.platforms, p)
	}
	return a, nil
}

func (a *adapter) Name() string                          { return Name }
func (a *adapter) Platforms() ([]driver.Platform, error) { return a.platforms, nil }

func (p *platform) Info() driver.PlatformInfo         { return p.real.Info() }
func (p *platform) Devices() ([]driver.Device, error) { return p.devices, nil }

func (d *device) Info() (driver.DeviceInfo, error) {
	info, err := d.real.Info()
	info.Name = fmt.Sprintf("%s (faultinject copy %d)", info.Name, d.copy)
	if d.copy > 0 {
		info.FP64, info.FP16 = false, false
	}
	return info, err
}

// reals maps devices to the real ones, each once, in order.
func reals(devs []driver.Device) []driver.Device {
	out := make([]driver.Device, 0, len(devs))
	for _, d := range devs {
		r := d.(*device).real
		dup := false
		for _, o := range out {
			dup = dup || o == r
		}
		if !dup {
			out = append(out, r)
		}
	}
	return out
}

func (a *adapter) NewContext(devs []driver.Device) (driver.Context, error) {
	rc, err := a.real.NewContext(reals(devs))
	if err != nil {
		return nil, err
	}
	c := &context{real: rc, devices: append([]driver.Device(nil), devs...), ctl: &Controller{}}
	controllers.Store(rc.Native(), c.ctl)
	return c, nil
}

type context struct {
	real    driver.Context
	devices []driver.Device
	ctl     *Controller
}

func (c *context) Native() uintptr { return c.real.Native() }

func (c *context) Release() error {
	controllers.Delete(c.real.Native())
	return c.real.Release()
}

func (c *context) NewQueue(dev driver.Device, props driver.QueueProperties) (driver.Queue, error) {
	q, err := c.real.NewQueue(dev.(*device).real, props)
	if err != nil {
		return nil, err
	}
	return &queue{Queue: q}, nil
}

// Buffers are the real adapter's: queues and kernels take them as they are.
func (c *context) NewBuffer(flags driver.MemFlags, size uint64, host []byte) (driver.Mem, error) {
	return c.real.NewBuffer(flags, size, host)
}

func (c *context) wrap(real driver.Program, devs []driver.Device) *program {
	c.ctl.programsCreated.Add(1)
	return &program{c: c, real: real, devices: devs}
}

func (c *context) NewProgramFromSource(source string) (driver.Program, error) {
	if err := c.ctl.enter(CreateSource); err != nil {
		return nil, err
	}
	p, err := c.real.NewProgramFromSource(source)
	if err != nil {
		return nil, err
	}
	return c.wrap(p, c.devices), nil
}

func (c *context) NewProgramFromIL(il []byte) (driver.Program, error) {
	if err := c.ctl.enter(CreateIL); err != nil {
		return nil, err
	}
	p, err := c.real.NewProgramFromIL(il)
	if err != nil {
		return nil, err
	}
	return c.wrap(p, c.devices), nil
}

func (c *context) NewProgramFromBinaries(devs []driver.Device, binaries [][]byte) (driver.Program, error) {
	if err := c.ctl.enter(CreateBinaries); err != nil {
		return nil, err
	}
	var rdevs []driver.Device
	var rbins [][]byte
	for i, d := range devs {
		r := d.(*device).real
		dup := false
		for _, o := range rdevs {
			dup = dup || o == r
		}
		if !dup {
			rdevs = append(rdevs, r)
			rbins = append(rbins, binaries[i])
		}
	}
	p, err := c.real.NewProgramFromBinaries(rdevs, rbins)
	if err != nil {
		return nil, err
	}
	return c.wrap(p, devs), nil
}

func (c *context) Link(devs []driver.Device, programs []driver.Program, options string) (driver.Program, error) {
	if err := c.ctl.enter(Link); err != nil {
		return nil, err
	}
	in := make([]driver.Program, len(programs))
	for i, p := range programs {
		in[i] = p.(*program).real
	}
	if c.ctl.dropLinkOptions.Load() {
		options = ""
	}
	p, err := c.real.Link(reals(devs), in, options)
	if err != nil {
		return nil, err
	}
	w := c.wrap(p, devs)
	w.built = append([]driver.Device(nil), devs...)
	return w, nil
}

type program struct {
	c        *context
	real     driver.Program
	devices  []driver.Device // the program's devices, as Devices reports them
	mu       sync.Mutex
	built    []driver.Device // devices built, compiled or linked for
	released atomic.Bool
}

func (p *program) Native() uintptr { return p.real.Native() }

func (p *program) Release() error {
	if !p.released.CompareAndSwap(false, true) {
		p.c.ctl.doubleReleases.Add(1)
		return driver.Errorf(driver.ResultInvalidProgram, "faultinject: program released twice")
	}
	p.c.ctl.programReleases.Add(1)
	return p.real.Release()
}

func (p *program) setBuilt(devs []driver.Device) {
	p.mu.Lock()
	p.built = append([]driver.Device(nil), devs...)
	p.mu.Unlock()
}

func (p *program) Build(devs []driver.Device, options string) error {
	if err := p.c.ctl.enter(Build); err != nil {
		return err
	}
	if err := p.real.Build(reals(devs), options); err != nil {
		return err
	}
	p.setBuilt(devs)
	return nil
}

func (p *program) Compile(devs []driver.Device, options string) error {
	if err := p.c.ctl.enter(Compile); err != nil {
		return err
	}
	if err := p.real.Compile(reals(devs), options); err != nil {
		return err
	}
	p.setBuilt(devs)
	return nil
}

func (p *program) BuildLog(d driver.Device) (string, error) { return p.real.BuildLog(d.(*device).real) }

// Binaries gives one binary per program device: the real device's binary
// for a device the program was built for, an empty one for the others (as
// OpenCL does for a device of the context the program was not built for).
func (p *program) Binaries() ([][]byte, error) {
	if err := p.c.ctl.enter(Binaries); err != nil {
		return nil, err
	}
	p.mu.Lock()
	built := p.built
	p.mu.Unlock()
	isBuilt := func(d driver.Device) bool {
		for _, b := range built {
			if b == d {
				return true
			}
		}
		return false
	}
	out := make([][]byte, len(p.devices))
	if n := p.c.ctl.binarySize.Load(); n > 0 {
		for i, d := range p.devices {
			if isBuilt(d) {
				out[i] = make([]byte, n)
			}
		}
		return out, nil
	}
	bins, err := p.real.Binaries()
	if err != nil {
		return nil, err
	}
	rdevs, err := p.real.Devices()
	if err != nil {
		return nil, err
	}
	for i, d := range p.devices {
		if !isBuilt(d) {
			continue
		}
		for j, r := range rdevs {
			if r == d.(*device).real && j < len(bins) {
				out[i] = bins[j]
			}
		}
	}
	return out, nil
}

func (p *program) Devices() ([]driver.Device, error) {
	return append([]driver.Device(nil), p.devices...), nil
}

func (p *program) KernelNames() ([]string, error) { return p.real.KernelNames() }

func (p *program) SetSpecConstant(id uint32, value []byte) error {
	if err := p.c.ctl.enter(SetSpecConstant); err != nil {
		return err
	}
	return p.real.SetSpecConstant(id, value)
}

func (p *program) NewKernel(name string) (driver.Kernel, error) {
	if err := p.c.ctl.enter(CreateKernel); err != nil {
		return nil, err
	}
	k, err := p.real.NewKernel(name)
	if err != nil {
		return nil, err
	}
	p.c.ctl.kernelsCreated.Add(1)
	return &kernel{ctl: p.c.ctl, real: k}, nil
}

type kernel struct {
	ctl      *Controller
	real     driver.Kernel
	released atomic.Bool
}

func (k *kernel) Native() uintptr { return k.real.Native() }

func (k *kernel) Release() error {
	if !k.released.CompareAndSwap(false, true) {
		k.ctl.doubleReleases.Add(1)
		return driver.Errorf(driver.ResultInvalidKernel, "faultinject: kernel released twice")
	}
	k.ctl.kernelReleases.Add(1)
	return k.real.Release()
}

func (k *kernel) SetArgValue(index uint32, value []byte) error {
	return k.real.SetArgValue(index, value)
}

func (k *kernel) SetArgMem(index uint32, m driver.Mem) error { return k.real.SetArgMem(index, m) }

func (k *kernel) SetArgLocal(index uint32, size uint64) error {
	return k.real.SetArgLocal(index, size)
}

func (k *kernel) Info(d driver.Device) (driver.KernelInfo, error) {
	return k.real.Info(d.(*device).real)
}

// queue forwards everything to the real queue; launches unwrap the kernel.
type queue struct {
	driver.Queue
}

func (q *queue) Launch(k driver.Kernel, r driver.NDRange, wait []driver.Event, wantEvent bool) (driver.Event, error) {
	return q.Queue.Launch(k.(*kernel).real, r, wait, wantEvent)
}
