package levelzero

import (
	"bytes"
	"encoding/binary"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/gour-dev/gour/adapters/levelzero/internal/ze"
	"github.com/gour-dev/gour/ur/driver"
)

// programKind is what a program was created from.
type programKind int

const (
	fromIL     programKind = iota // SPIR-V: built by zeModuleCreate
	fromBinary                    // native binaries, one per device
	fromLink                      // the result of Context.Link
)

// spirvMagic is the first word of every SPIR-V module.
const spirvMagic = 0x07230203

type program struct {
	c       *context
	kind    programKind
	il      []byte    // fromIL
	devices []*device // the devices the program is for
	bins    [][]byte  // fromBinary: per device

	mu        sync.Mutex
	modules   []ze.Module // per device; 0 until built
	logs      []string    // per device, of the last build
	compiled  bool        // Compile recorded options (IL programs)
	compileOp string
	specIDs   []uint32
	specVals  [][]byte

	// refs counts the program handle and its kernels: the modules are
	// destroyed when the last of them is released.
	refs atomic.Int32
}

func (c *context) newProgram(kind programKind, devs []*device) *program {
	p := &program{c: c, kind: kind, devices: devs, modules: make([]ze.Module, len(devs)), logs: make([]string, len(devs))}
	p.refs.Store(1)
	c.retain()
	return p
}

// NewProgramFromSource is unsupported: Level Zero has no source language.
func (c *context) NewProgramFromSource(string) (driver.Program, error) {
	return nil, driver.Errorf(driver.ResultUnsupportedFeature,
		"Level Zero takes no source language: build SPIR-V with NewProgramFromIL (OpenCL C becomes SPIR-V with clang -target spir64 and llvm-spirv, see scripts/spirv.sh)")
}

// isSPIRV reports whether il starts like a SPIR-V module: the magic word
// in either byte order and a five-word header.
func isSPIRV(il []byte) bool {
	if len(il) < 20 || len(il)%4 != 0 {
		return false
	}
	return binary.LittleEndian.Uint32(il) == spirvMagic || binary.BigEndian.Uint32(il) == spirvMagic
}

func (c *context) NewProgramFromIL(il []byte) (driver.Program, error) {
	if !isSPIRV(il) {
		return nil, driver.Errorf(driver.ResultInvalidBinary, "Level Zero takes SPIR-V as IL; these %d bytes are not a SPIR-V module (magic 0x07230203)", len(il))
	}
	p := c.newProgram(fromIL, c.devices)
	p.il = bytes.Clone(il)
	return p, nil
}

func (c *context) NewProgramFromBinaries(devs []driver.Device, binaries [][]byte) (driver.Program, error) {
	ds := make([]*device, len(devs))
	for i, d := range devs {
		ds[i] = d.(*device)
	}
	p := c.newProgram(fromBinary, ds)
	p.bins = make([][]byte, len(binaries))
	for i, b := range binaries {
		p.bins[i] = bytes.Clone(b)
	}
	return p, nil
}

func (p *program) Native() uintptr {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, m := range p.modules {
		if m != 0 {
			return uintptr(m)
		}
	}
	return 0
}

func (p *program) Release() error { return p.unref() }

func (p *program) unref() error {
	if p.refs.Add(-1) != 0 {
		return nil
	}
	p.mu.Lock()
	err := p.destroyModules()
	p.mu.Unlock()
	if err2 := p.c.unref(); err == nil {
		err = err2
	}
	return err
}

// destroyModules destroys the built modules once the context's queues are
// idle. The caller holds p.mu.
func (p *program) destroyModules() error {
	built := false
	for _, m := range p.modules {
		built = built || m != 0
	}
	if !built {
		return nil
	}
	err := p.c.quiesce()
	for i, m := range p.modules {
		if m == 0 {
			continue
		}
		if err2 := check("zeModuleDestroy", p.c.ze.ModuleDestroy(m)); err == nil {
			err = err2
		}
		p.modules[i] = 0
	}
	return err
}

// index returns the position of d in p.devices, or -1.
func (p *program) index(d *device) int {
	for i, pd := range p.devices {
		if pd == d {
			return i
		}
	}
	return -1
}

// targets returns the positions in p.devices of the devices asked for
// (all when none are).
func (p *program) targets(devs []driver.Device) ([]int, error) {
	if len(devs) == 0 {
		out := make([]int, len(p.devices))
		for i := range out {
			out[i] = i
		}
		return out, nil
	}
	out := make([]int, 0, len(devs))
	for _, dd := range devs {
		i := p.index(dd.(*device))
		if i < 0 {
			return nil, driver.Errorf(driver.ResultInvalidDevice, "device %q is not a device of the program", dd.(*device).info.Name)
		}
		out = append(out, i)
	}
	return out, nil
}

// constants returns the recorded specialization constants for
// ze_module_constants_t, or nil. The caller holds p.mu.
func (p *program) constants() *ze.ModuleConstants {
	if len(p.specIDs) == 0 {
		return nil
	}
	return ze.NewModuleConstants(p.specIDs, p.specVals)
}

// Build creates one module per device: from SPIR-V (with the recorded
// specialization constants and options as build flags) or from the
// device's native binary.
func (p *program) Build(devs []driver.Device, options string) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.kind == fromLink {
		return driver.Errorf(driver.ResultInvalidOperation, "a linked program is already built")
	}
	idx, err := p.targets(devs)
	if err != nil {
		return err
	}
	for _, i := range idx {
		if p.modules[i] != 0 {
			return driver.Errorf(driver.ResultInvalidOperation, "the program is already built for %q", p.devices[i].info.Name)
		}
	}
	var failed []string
	var first *driver.Error
	for _, i := range idx {
		d := p.devices[i]
		format, input, consts := ze.ModuleFormatILSPIRV, p.il, p.constants()
		if p.kind == fromBinary {
			format, input, consts = ze.ModuleFormatNative, p.bins[i], nil
		}
		m, log, r := p.c.ze.ModuleCreate(p.c.handle, d.handle, format, input, options, consts)
		p.logs[i] = p.takeLog(log)
		if r != ze.Success {
			e := zeError("zeModuleCreate", r)
			if p.kind == fromBinary && e.Result == driver.ResultProgramBuildFailure {
				// A binary the driver cannot load is an invalid binary.
				e.Result = driver.ResultInvalidBinary
			}
			e.Message += " for " + d.info.Name
			e.BuildLog = p.logs[i]
			if first == nil {
				first = e
			}
			failed = append(failed, p.logs[i])
			continue
		}
		p.modules[i] = m
	}
	if first != nil {
		first.BuildLog = strings.TrimSpace(strings.Join(failed, "\n"))
		return first
	}
	return nil
}

// takeLog reads and destroys a build log.
func (p *program) takeLog(log ze.BuildLog) string {
	s, _ := p.c.ze.BuildLogString(log)
	p.c.ze.ModuleBuildLogDestroy(log)
	return s
}

// Compile records the options of an IL program for Link: Level Zero
// compiles SPIR-V and links it in one step (zeModuleCreate).
func (p *program) Compile(_ []driver.Device, options string) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.kind != fromIL {
		return driver.Errorf(driver.ResultInvalidOperation, "only a program from SPIR-V can be compiled")
	}
	p.compiled, p.compileOp = true, options
	return nil
}

// Link creates one module per device from the programs' SPIR-V: a single
// program directly, several through ZE_experimental_module_program, which
// resolves the imports of each against the exports of the others.
func (c *context) Link(devs []driver.Device, programs []driver.Program, options string) (driver.Program, error) {
	inputs := make([]ze.ModuleInput, len(programs))
	for i, dp := range programs {
		in := dp.(*program)
		in.mu.Lock()
		if in.kind != fromIL || !in.compiled {
			in.mu.Unlock()
			return nil, driver.Errorf(driver.ResultInvalidProgram, "program %d is not a compiled SPIR-V program", i)
		}
		inputs[i] = ze.ModuleInput{IL: in.il, Flags: strings.TrimSpace(in.compileOp + " " + options), Constants: in.constants()}
		in.mu.Unlock()
	}
	if len(inputs) > 1 && !c.p.moduleProgram {
		return nil, driver.Errorf(driver.ResultUnsupportedFeature, "linking %d SPIR-V modules needs the driver extension ZE_experimental_module_program", len(inputs))
	}
	ds := c.devices
	if len(devs) > 0 {
		ds = make([]*device, len(devs))
		for i, d := range devs {
			ds[i] = d.(*device)
		}
	}
	p := c.newProgram(fromLink, ds)
	var failed []string
	var first *driver.Error
	for i, d := range ds {
		var m ze.Module
		var log ze.BuildLog
		var r ze.Result
		if len(inputs) == 1 {
			in := inputs[0]
			m, log, r = c.ze.ModuleCreate(c.handle, d.handle, ze.ModuleFormatILSPIRV, in.IL, in.Flags, in.Constants)
		} else {
			m, log, r = c.ze.ModuleCreateLinked(c.handle, d.handle, inputs)
		}
		p.logs[i] = p.takeLog(log)
		if r != ze.Success {
			e := zeError("zeModuleCreate (link)", r)
			if e.Result == driver.ResultProgramBuildFailure && len(inputs) > 1 {
				e.Result = driver.ResultProgramLinkFailure
			}
			e.Message += " for " + d.info.Name
			if first == nil {
				first = e
			}
			failed = append(failed, p.logs[i])
			continue
		}
		p.modules[i] = m
	}
	if first != nil {
		p.unref()
		first.BuildLog = strings.TrimSpace(strings.Join(failed, "\n"))
		return nil, first
	}
	return p, nil
}

func (p *program) BuildLog(dd driver.Device) (string, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	i := p.index(dd.(*device))
	if i < 0 {
		return "", driver.Errorf(driver.ResultInvalidDevice, "device %q is not a device of the program", dd.(*device).info.Name)
	}
	return p.logs[i], nil
}

// Binaries returns each device's native binary (zeModuleGetNativeBinary):
// what NewProgramFromBinaries takes back without the SPIR-V compile. A
// device the program is not built for has an empty binary, as OpenCL's
// CL_PROGRAM_BINARIES gives one (the program manager builds once for
// identical devices of a context, then asks for that device's binary);
// a program built for none of its devices is an error.
func (p *program) Binaries() ([][]byte, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make([][]byte, len(p.devices))
	built := false
	for i, m := range p.modules {
		if m == 0 {
			continue
		}
		built = true
		bin, r := p.c.ze.ModuleGetNativeBinary(m)
		if err := check("zeModuleGetNativeBinary", r); err != nil {
			return nil, err
		}
		out[i] = bin
	}
	if !built {
		return nil, driver.Errorf(driver.ResultInvalidProgramExecutable, "the program is built for none of its %d devices", len(p.devices))
	}
	return out, nil
}

func (p *program) Devices() ([]driver.Device, error) {
	out := make([]driver.Device, len(p.devices))
	for i, d := range p.devices {
		out[i] = d
	}
	return out, nil
}

// KernelNames asks the module of the first device built.
func (p *program) KernelNames() ([]string, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, m := range p.modules {
		if m == 0 {
			continue
		}
		names, r := p.c.ze.ModuleGetKernelNames(m)
		if err := check("zeModuleGetKernelNames", r); err != nil {
			return nil, err
		}
		return names, nil
	}
	return nil, driver.Errorf(driver.ResultInvalidProgramExecutable, "the program is not built")
}

// SetSpecConstant records a specialization constant of a SPIR-V program;
// Build passes the recorded values in ze_module_constants_t.
func (p *program) SetSpecConstant(id uint32, value []byte) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.kind != fromIL {
		return driver.Errorf(driver.ResultUnsupportedFeature, "specialization constants apply to SPIR-V programs, not to native binaries")
	}
	for _, m := range p.modules {
		if m != 0 {
			return driver.Errorf(driver.ResultInvalidOperation, "the program is already built; set specialization constants before Build")
		}
	}
	v := bytes.Clone(value)
	for i, have := range p.specIDs {
		if have == id {
			p.specVals[i] = v
			return nil
		}
	}
	p.specIDs = append(p.specIDs, id)
	p.specVals = append(p.specVals, v)
	return nil
}
