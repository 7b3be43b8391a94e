package ur

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/gour-dev/gour/trace"
	"github.com/gour-dev/gour/ur/driver"
)

// Program is device code in a context: created from source, IL or device
// binaries, then built (or compiled and linked) for some of its devices.
type Program struct {
	object
	ctx *Context
	drv driver.Program
}

func (c *Context) newProgram(op string, create func() (driver.Program, error)) (*Program, error) {
	if err := c.enter(op); err != nil {
		return nil, err
	}
	defer c.life.leave()
	drv, err := create()
	if err != nil {
		return nil, c.wrap(err, op)
	}
	p := &Program{object: object{adapter: c.adapter}, ctx: c, drv: drv}
	p.created("Program")
	p.life.free = drv.Release
	return p, nil
}

// NewProgramFromSource creates a program from source in the adapter's
// language: OpenCL C for OpenCL, CUDA C for CUDA.
func (c *Context) NewProgramFromSource(source string) (rh *Program, rerr error) {
	const op = "Context.NewProgramFromSource"
	if t := trace.Active(); t != nil {
		tc := beginCall(t, op, c)
		tc.args.Uint("bytes", uint64(len(source)))
		defer endNewOf(&tc, &rh, &rerr)
	}

	if source == "" && c != nil {
		return nil, newError(ErrInvalidValue, op, c.adapter.name, "source is empty")
	}
	return c.newProgram(op, func() (driver.Program, error) { return c.drv.NewProgramFromSource(source) })
}

// NewProgramFromIL creates a program from intermediate language (SPIR-V
// for OpenCL and Level Zero, PTX for CUDA). A device that takes no IL gives
// ErrUnsupportedFeature.
func (c *Context) NewProgramFromIL(il []byte) (rh *Program, rerr error) {
	const op = "Context.NewProgramFromIL"
	if t := trace.Active(); t != nil {
		tc := beginCall(t, op, c)
		tc.args.Uint("bytes", uint64(len(il)))
		defer endNewOf(&tc, &rh, &rerr)
	}

	if len(il) == 0 && c != nil {
		return nil, newError(ErrInvalidValue, op, c.adapter.name, "IL is empty")
	}
	return c.newProgram(op, func() (driver.Program, error) { return c.drv.NewProgramFromIL(il) })
}

// NewProgramFromBinaries creates a program from one device binary per
// device, as returned by Program.Binaries.
func (c *Context) NewProgramFromBinaries(devices []*Device, binaries [][]byte) (rh *Program, rerr error) {
	const op = "Context.NewProgramFromBinaries"
	if t := trace.Active(); t != nil {
		tc := beginCall(t, op, c)
		defer endNewOf(&tc, &rh, &rerr)
	}

	if c == nil {
		return nil, nilHandle("Context", op)
	}
	if len(devices) == 0 || len(devices) != len(binaries) {
		return nil, newError(ErrInvalidValue, op, c.adapter.name, "%d devices and %d binaries: want one binary per device", len(devices), len(binaries))
	}
	if _, err := c.checkDevices(op, devices); err != nil {
		return nil, err
	}
	for i, b := range binaries {
		if len(b) == 0 {
			return nil, newError(ErrInvalidBinary, op, c.adapter.name, "binary %d is empty", i)
		}
	}
	return c.newProgram(op, func() (driver.Program, error) {
		return c.drv.NewProgramFromBinaries(devicesOf(devices), binaries)
	})
}

// Link links compiled programs into an executable program for devices (all
// of the context's when none are given).
func (c *Context) Link(options string, programs []*Program, devices ...*Device) (rh *Program, rerr error) {
	const op = "Context.Link"
	if t := trace.Active(); t != nil {
		tc := beginCall(t, op, c)
		tc.args.Str("options", options)
		defer endNewOf(&tc, &rh, &rerr)
	}

	if c == nil {
		return nil, nilHandle("Context", op)
	}
	if len(programs) == 0 {
		return nil, newError(ErrInvalidValue, op, c.adapter.name, "no programs to link")
	}
	devs, err := c.checkDevices(op, devices)
	if err != nil {
		return nil, err
	}
	drvs := make([]driver.Program, len(programs))
	for i, p := range programs {
		if err := p.enter(op); err != nil {
			leavePrograms(programs[:i])
			return nil, err
		}
		if p.ctx != c {
			leavePrograms(programs[:i+1])
			return nil, newError(ErrInvalidProgram, op, c.adapter.name, "program %d belongs to another context", i)
		}
		drvs[i] = p.drv
	}
	defer leavePrograms(programs)
	prog, err := c.newProgram(op, func() (driver.Program, error) { return c.drv.Link(devicesOf(devs), drvs, options) })
	if err != nil {
		return nil, err
	}
	return prog, nil
}

func leavePrograms(ps []*Program) {
	for _, p := range ps {
		p.life.leave()
	}
}

// enter checks that p is live and its context not lost (lost.go); on nil
// error the caller must call p.life.leave.
func (p *Program) enter(op string) error {
	if p == nil {
		return nilHandle("Program", op)
	}
	if err := p.object.enter("Program", ErrInvalidProgram, op); err != nil {
		return err
	}
	if p.ctx.lost.first.Load() != nil {
		p.life.leave()
		return p.ctx.lostError(op)
	}
	return nil
}

// Release releases the program; kernels created from it stay valid.
func (p *Program) Release() error {
	if p == nil {
		return nilHandle("Program", "Program.Release")
	}
	return p.release("Program", ErrInvalidProgram)
}

// Context returns the program's context.
func (p *Program) Context() *Context {
	if p == nil {
		return nil
	}
	return p.ctx
}

// Native returns the vendor handle (cl_program, CUmodule, ...); 0 for a
// nil or released program.
func (p *Program) Native() uintptr {
	if p.enter("Program.Native") != nil {
		return 0
	}
	defer p.life.leave()
	return p.drv.Native()
}

// Build compiles and links the program for devices (all of the context's
// when none are given). A failure carries ErrProgramBuildFailure and the
// build log of every device that failed.
func (p *Program) Build(options string, devices ...*Device) (rerr error) {
	const op = "Program.Build"
	if t := trace.Active(); t != nil {
		tc := beginCall(t, op, p)
		tc.args.Str("options", options)
		defer tc.end(&rerr)
	}

	return p.buildStep(op, options, devices, p.drvBuild)
}

// Compile compiles the program for devices without linking; Context.Link
// makes an executable of compiled programs.
func (p *Program) Compile(options string, devices ...*Device) (rerr error) {
	const op = "Program.Compile"
	if t := trace.Active(); t != nil {
		tc := beginCall(t, op, p)
		tc.args.Str("options", options)
		defer tc.end(&rerr)
	}

	return p.buildStep(op, options, devices, p.drvCompile)
}

func (p *Program) drvBuild(d []driver.Device, o string) error   { return p.drv.Build(d, o) }
func (p *Program) drvCompile(d []driver.Device, o string) error { return p.drv.Compile(d, o) }

func (p *Program) buildStep(op, options string, devices []*Device, step func([]driver.Device, string) error) error {
	if err := p.enter(op); err != nil {
		return err
	}
	defer p.life.leave()
	devs, err := p.ctx.checkDevices(op, devices)
	if err != nil {
		return err
	}
	err = p.ctx.wrap(step(devicesOf(devs), options), op)
	var e *Error
	if errors.As(err, &e) && e.BuildLog == "" {
		e.BuildLog = p.buildLogs(devs)
	}
	return err
}

// buildLogs joins the non-empty logs of devs, each under its device name
// when there are several.
func (p *Program) buildLogs(devs []*Device) string {
	var out string
	for _, d := range devs {
		log, err := p.drv.BuildLog(d.drv)
		if err != nil || log == "" {
			continue
		}
		if len(devs) > 1 {
			out += "--- " + d.Name() + "\n"
		}
		out += log
	}
	return out
}

// BuildLog returns the compiler output of the last build, compile or link
// for dev.
func (p *Program) BuildLog(dev *Device) (rv string, rerr error) {
	const op = "Program.BuildLog"
	if t := trace.Active(); t != nil {
		tc := beginCall(t, op, p)
		defer tc.end(&rerr)
	}

	if err := p.enter(op); err != nil {
		return "", err
	}
	defer p.life.leave()
	if dev == nil {
		return "", nilHandle("Device", op)
	}
	if !p.ctx.hasDevice(dev) {
		return "", newError(ErrInvalidDevice, op, p.adapter.name, "device %q is not in the context", dev.Name())
	}
	log, err := p.drv.BuildLog(dev.drv)
	return log, wrapError(err, op, p.adapter.name)
}

// Binaries returns one device binary per device of the program, in the
// order of Devices: what NewProgramFromBinaries takes back.
func (p *Program) Binaries() (rv [][]byte, rerr error) {
	const op = "Program.Binaries"
	if t := trace.Active(); t != nil {
		tc := beginCall(t, op, p)
		defer tc.end(&rerr)
	}

	if err := p.enter(op); err != nil {
		return nil, err
	}
	defer p.life.leave()
	bins, err := p.drv.Binaries()
	return bins, wrapError(err, op, p.adapter.name)
}

// BinarySizes returns the size of each device binary, without copying the
// binaries where the driver can tell.
func (p *Program) BinarySizes() (rv []uint64, rerr error) {
	const op = "Program.BinarySizes"
	if t := trace.Active(); t != nil {
		tc := beginCall(t, op, p)
		defer tc.end(&rerr)
	}

	if err := p.enter(op); err != nil {
		return nil, err
	}
	sizer, ok := p.drv.(driver.BinarySizer)
	if ok {
		defer p.life.leave()
		sizes, err := sizer.BinarySizes()
		return sizes, wrapError(err, op, p.adapter.name)
	}
	p.life.leave()
	bins, err := p.Binaries()
	if err != nil {
		return nil, err
	}
	sizes := make([]uint64, len(bins))
	for i, b := range bins {
		sizes[i] = uint64(len(b))
	}
	return sizes, nil
}

// Devices returns the devices the program is for.
func (p *Program) Devices() (rv []*Device, rerr error) {
	const op = "Program.Devices"
	if t := trace.Active(); t != nil {
		tc := beginCall(t, op, p)
		defer tc.end(&rerr)
	}

	if err := p.enter(op); err != nil {
		return nil, err
	}
	defer p.life.leave()
	drvs, err := p.drv.Devices()
	if err != nil {
		return nil, wrapError(err, op, p.adapter.name)
	}
	out := make([]*Device, 0, len(drvs))
	for _, dd := range drvs {
		if i := slices.IndexFunc(p.ctx.devices, func(d *Device) bool { return d.drv == dd }); i >= 0 {
			out = append(out, p.ctx.devices[i])
		}
	}
	return out, nil
}

// KernelNames returns the names of the program's kernels; the program must
// be built.
func (p *Program) KernelNames() (rv []string, rerr error) {
	const op = "Program.KernelNames"
	if t := trace.Active(); t != nil {
		tc := beginCall(t, op, p)
		defer tc.end(&rerr)
	}

	if err := p.enter(op); err != nil {
		return nil, err
	}
	defer p.life.leave()
	names, err := p.drv.KernelNames()
	return names, wrapError(err, op, p.adapter.name)
}

// SetSpecConstant sets specialization constant id of an IL program to
// value before Build. Programs from source give ErrUnsupportedFeature.
func (p *Program) SetSpecConstant(id uint32, value []byte) (rerr error) {
	const op = "Program.SetSpecConstant"
	if t := trace.Active(); t != nil {
		tc := beginCall(t, op, p)
		defer tc.end(&rerr)
	}

	if err := p.enter(op); err != nil {
		return err
	}
	defer p.life.leave()
	if len(value) == 0 {
		return newError(ErrInvalidValue, op, p.adapter.name, "spec constant %d: empty value", id)
	}
	return wrapError(p.drv.SetSpecConstant(id, value), op, p.adapter.name)
}

// newKernelError is NewKernel's error for a kernel the adapter would not
// create: for a name the program does not have, it lists the names it
// has, where the driver can tell them.
func (p *Program) newKernelError(op, name string, err error) error {
	werr := wrapError(err, op, p.adapter.name)
	names, nerr := p.drv.KernelNames()
	if nerr != nil || slices.Contains(names, name) {
		return werr
	}
	msg := fmt.Sprintf("program has no kernel %q", name)
	if len(names) == 0 {
		msg += "; it has no kernels"
	} else {
		msg += "; its kernels: " + strings.Join(names, ", ")
	}
	e := newError(ErrInvalidKernelName, op, p.adapter.name, "%s", msg)
	if d, ok := werr.(*Error); ok {
		e.Native, e.NativeName = d.Native, d.NativeName
		if d.Message != "" {
			e.Message += " (" + d.Message + ")"
		}
	}
	return e
}
