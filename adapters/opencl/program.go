package opencl

import (
	"os"
	"strings"
	"unsafe"

	"github.com/gour-dev/gour/adapters/opencl/internal/cl"
	"github.com/gour-dev/gour/ur/driver"
)

type program struct {
	ctx    *context
	lib    *cl.Lib
	handle cl.Program
	origin programOrigin
}

// programOrigin is what a program was created from: what it may be given
// (specialization constants need IL) and what a build keeps
// (-cl-kernel-arg-info applies to source).
type programOrigin uint8

const (
	fromSource programOrigin = iota
	fromIL
	fromBinaries // binaries, or a program linked from others
)

func (c *context) newProgram(h cl.Program, origin programOrigin) *program {
	return &program{ctx: c, lib: c.a.lib, handle: h, origin: origin}
}

func (c *context) NewProgramFromSource(source string) (driver.Program, error) {
	h, st := c.a.lib.CreateProgramWithSource(c.handle, source)
	if err := check("clCreateProgramWithSource", st); err != nil {
		return nil, err
	}
	return c.newProgram(h, fromSource), nil
}

func (c *context) NewProgramFromIL(il []byte) (driver.Program, error) {
	if !c.a.lib.HasIL() {
		return nil, driver.Errorf(driver.ResultUnsupportedFeature, "the OpenCL library has no clCreateProgramWithIL (OpenCL < 2.1)")
	}
	for _, d := range c.devices {
		if d.info.ILVersions == "" {
			return nil, driver.Errorf(driver.ResultUnsupportedFeature, "device %q takes no IL (CL_DEVICE_IL_VERSION is empty)", d.info.Name)
		}
	}
	h, st := c.a.lib.CreateProgramWithIL(c.handle, il)
	if err := check("clCreateProgramWithIL", st); err != nil {
		return nil, err
	}
	return c.newProgram(h, fromIL), nil
}

func (c *context) NewProgramFromBinaries(devs []driver.Device, binaries [][]byte) (driver.Program, error) {
	var made []string // PoCL build directories made for the binaries (poclbuilddir.go)
	if c.isPoCL() {
		binaries, made = poclOwnBuildDirs(binaries)
	}
	h, perDevice, st := c.a.lib.CreateProgramWithBinary(c.handle, handles(devs), binaries)
	if st == cl.Success {
		return c.newProgram(h, fromBinaries), nil
	}
	for _, dir := range made {
		os.RemoveAll(dir)
	}
	for i, ds := range perDevice {
		if ds != cl.Success {
			e := statusError("clCreateProgramWithBinary", ds)
			e.Message += " for device " + devs[i].(*device).info.Name
			return nil, e
		}
	}
	return nil, statusError("clCreateProgramWithBinary", st)
}

func (c *context) Link(devs []driver.Device, programs []driver.Program, options string) (driver.Program, error) {
	inputs := make([]cl.Program, len(programs))
	for i, p := range programs {
		inputs[i] = p.(*program).handle
	}
	h, st := c.a.lib.LinkProgram(c.handle, handles(devs), options, inputs)
	if st != cl.Success {
		e := statusError("clLinkProgram", st)
		if h != 0 {
			// A failed link may still return a program holding the log.
			linked := c.newProgram(h, fromBinaries)
			e.BuildLog = linked.logs(devs)
			linked.Release()
		}
		return nil, e
	}
	return c.newProgram(h, fromBinaries), nil
}

func (p *program) Native() uintptr { return uintptr(p.handle) }
func (p *program) Release() error  { return check("clReleaseProgram", p.lib.ReleaseProgram(p.handle)) }

func (p *program) Build(devs []driver.Device, options string) error {
	return p.withLogs("clBuildProgram", p.lib.BuildProgram(p.handle, handles(devs), p.withArgInfo(devs, options)), devs)
}

func (p *program) Compile(devs []driver.Device, options string) error {
	return p.withLogs("clCompileProgram", p.lib.CompileProgram(p.handle, handles(devs), p.withArgInfo(devs, options)), devs)
}

// withLogs attaches the build logs to a failed build step.
func (p *program) withLogs(fn string, st cl.Status, devs []driver.Device) error {
	if st == cl.Success {
		return nil
	}
	e := statusError(fn, st)
	e.BuildLog = p.logs(devs)
	return e
}

func (p *program) logs(devs []driver.Device) string {
	var b strings.Builder
	for _, d := range devs {
		log, _ := p.BuildLog(d)
		if log == "" {
			continue
		}
		if len(devs) > 1 {
			b.WriteString("--- " + d.(*device).info.Name + "\n")
		}
		b.WriteString(log)
		if !strings.HasSuffix(log, "\n") {
			b.WriteByte('\n')
		}
	}
	return b.String()
}

func (p *program) BuildLog(d driver.Device) (string, error) {
	b, st := p.lib.ProgramBuildInfo(p.handle, d.(*device).handle, cl.ProgramBuildLog)
	if err := check("clGetProgramBuildInfo", st); err != nil {
		return "", err
	}
	return strings.TrimSpace(cl.CString(b)), nil
}

func (p *program) Binaries() ([][]byte, error) {
	bins, st := p.lib.ProgramBinaries(p.handle)
	if err := check("clGetProgramInfo(CL_PROGRAM_BINARIES)", st); err != nil {
		return nil, err
	}
	if _, per, err := p.devices(); err == nil {
		bins = spread(bins, per)
	}
	return bins, nil
}

func (p *program) BinarySizes() ([]uint64, error) {
	b, st := p.lib.ProgramInfo(p.handle, cl.ProgramBinarySizes)
	if err := check("clGetProgramInfo(CL_PROGRAM_BINARY_SIZES)", st); err != nil {
		return nil, err
	}
	sizes := cl.Uintptrs(b)
	out := make([]uint64, len(sizes))
	for i, n := range sizes {
		out[i] = uint64(n)
	}
	if _, per, err := p.devices(); err == nil {
		out = spread(out, per)
	}
	return out, nil
}

func (p *program) Devices() ([]driver.Device, error) {
	out, _, err := p.devices()
	return out, err
}

// devices reads CL_PROGRAM_DEVICES as the context's devices. A driver
// that builds once for sub-devices of one device (PoCL) lists that device
// in their place: it stands for each of them, and per counts, for each
// entry of the list, the devices it stands for.
func (p *program) devices() (out []driver.Device, per []int, err error) {
	b, st := p.lib.ProgramInfo(p.handle, cl.ProgramDevices)
	if err := check("clGetProgramInfo(CL_PROGRAM_DEVICES)", st); err != nil {
		return nil, nil, err
	}
	for _, h := range cl.Uintptrs(b) {
		n := len(out)
		if d, ok := p.ctx.devices[cl.Device(h)]; ok {
			out = append(out, d)
		} else {
			out = append(out, p.ctx.descendants(cl.Device(h))...)
		}
		per = append(per, len(out)-n)
	}
	return out, per, nil
}

func (p *program) KernelNames() ([]string, error) {
	b, st := p.lib.ProgramInfo(p.handle, cl.ProgramKernelNames)
	if err := check("clGetProgramInfo(CL_PROGRAM_KERNEL_NAMES)", st); err != nil {
		return nil, err
	}
	s := cl.CString(b)
	if s == "" {
		return nil, nil
	}
	return strings.Split(s, ";"), nil
}

func (p *program) SetSpecConstant(id uint32, value []byte) error {
	if !p.lib.HasSpecializationConstants() {
		return driver.Errorf(driver.ResultUnsupportedFeature, "the OpenCL library has no clSetProgramSpecializationConstant (OpenCL < 2.2)")
	}
	if p.origin != fromIL {
		return driver.Errorf(driver.ResultUnsupportedFeature, "specialization constants need a program created from IL; this one is from source or binaries")
	}
	st := p.lib.SetProgramSpecializationConstant(p.handle, id, uintptr(len(value)), unsafe.Pointer(&value[0]))
	return check("clSetProgramSpecializationConstant", st)
}

func (p *program) NewKernel(name string) (driver.Kernel, error) {
	h, st := p.lib.CreateKernel(p.handle, name)
	if st != cl.Success {
		e := statusError("clCreateKernel", st)
		e.Message += " for kernel " + name
		return nil, e
	}
	p.ctx.madeKernels.Store(true)
	k := &kernel{lib: p.lib, ctx: p.ctx, handle: h}
	if p.ctx.guardsLaunches() {
		k.guard = guardFor(name)
	}
	return k, nil
}
