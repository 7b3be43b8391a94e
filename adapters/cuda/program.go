package cuda

import (
	"bytes"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/gour-dev/gour/adapters/cuda/internal/cu"
	"github.com/gour-dev/gour/adapters/cuda/internal/nvrtc"
	"github.com/gour-dev/gour/ur/driver"
)

// programKind is what a program was created from.
type programKind int

const (
	fromCUDAC programKind = iota
	fromPTX
	fromBinary
)

type program struct {
	ctx  *context
	dev  *device // the first of the devices the program is built for
	kind programKind
	src  []byte // CUDA C, PTX, or the cubin/fatbin given

	mu     sync.Mutex
	ptx    []byte    // after Compile, or the PTX given
	binary []byte    // the cubin (or given fatbin) the module was loaded from
	module cu.Module // 0 until built
	log    string

	// refs counts the program handle and its kernels: the module is
	// unloaded when the last of them is released, as OpenCL keeps a
	// program alive while it has kernels.
	refs atomic.Int32
	// shared holds, per function of the module, the dynamic shared memory
	// limit the adapter set on it (launchargs.go); under mu.
	shared map[cu.Function]*funcShared
	// others are the program's other devices, in a context of several:
	// each has its own binary and module (multidevice.go); under mu.
	others []devModule
}

// sharedOf returns the dynamic shared memory limit of fn, a function of
// p's module, starting from what the driver reports (48 KiB less the
// function's static shared memory). The caller holds p.mu and bind.
func (p *program) sharedOf(fn cu.Function) *funcShared {
	if fs := p.shared[fn]; fs != nil {
		return fs
	}
	fs := new(funcShared)
	limit, r := p.dev.a.cu.FuncGetAttribute(cu.FuncAttributeMaxDynamicSharedSizeBytes, fn)
	if r != cu.Success || limit < 0 {
		limit = 0 // raised on the first launch that asks for any
	}
	fs.limit.Store(uint64(limit))
	if p.shared == nil {
		p.shared = make(map[cu.Function]*funcShared)
	}
	p.shared[fn] = fs
	return fs
}

func (c *context) newProgram(kind programKind, src []byte) *program {
	p := &program{ctx: c, dev: c.dev, kind: kind, src: src}
	for _, d := range c.devs[min(1, len(c.devs)):] {
		p.others = append(p.others, devModule{dev: d})
	}
	p.refs.Store(1)
	return p
}

func (c *context) NewProgramFromSource(source string) (driver.Program, error) {
	if _, err := c.dev.a.compiler(); err != nil {
		return nil, err
	}
	return c.newProgram(fromCUDAC, []byte(source)), nil
}

func (c *context) NewProgramFromIL(il []byte) (driver.Program, error) {
	if !bytes.Contains(il, []byte(".version")) || !bytes.Contains(il, []byte(".target")) {
		return nil, driver.Errorf(driver.ResultInvalidBinary, "CUDA takes PTX as IL; this is not PTX (no .version and .target directives)")
	}
	p := c.newProgram(fromPTX, bytes.Clone(il))
	p.ptx = p.src
	return p, nil
}

// ELF (cubin) and fatbin magic numbers: anything else is refused before the
// driver sees it.
var (
	elfMagic    = []byte{0x7f, 'E', 'L', 'F'}
	fatbinMagic = []byte{0x50, 0xed, 0x55, 0xba} // 0xba55ed50, little-endian
)

func (c *context) NewProgramFromBinaries(devs []driver.Device, binaries [][]byte) (driver.Program, error) {
	for i, bin := range binaries {
		if !bytes.HasPrefix(bin, elfMagic) && !bytes.HasPrefix(bin, fatbinMagic) {
			return nil, driver.Errorf(driver.ResultInvalidBinary, "binary %d is not a cubin or fatbin (%d bytes without the ELF or fatbin magic)", i, len(bin))
		}
	}
	p := c.newProgram(fromBinary, bytes.Clone(binaries[0]))
	p.binary = p.src
	if len(devs) > 0 {
		p.target(c, devs)
	}
	for i := range p.others {
		if i+1 < len(binaries) {
			p.others[i].binary = bytes.Clone(binaries[i+1])
		}
	}
	return p, nil
}

func (p *program) Native() uintptr { return uintptr(p.module) }

func (p *program) Release() error { return p.unref() }

func (p *program) unref() error {
	if p.refs.Add(-1) != 0 {
		return nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	err := p.unloadOthers()
	if p.module == 0 {
		return err
	}
	if err := p.dev.bindBusy(); err != nil {
		return err
	}
	defer p.dev.unbindBusy()
	if err2 := check("cuModuleUnload", p.dev.a.cu.ModuleUnload(p.module)); err == nil {
		err = err2
	}
	p.module = 0
	return err
}

// Build compiles CUDA C with NVRTC, JIT-links PTX into a cubin, and loads
// the cubin as the program's module.
func (p *program) Build(devs []driver.Device, options string) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.module != 0 {
		return driver.Errorf(driver.ResultInvalidOperation, "the program is already built")
	}
	if len(devs) > 0 && p.kind != fromBinary {
		p.target(p.ctx, devs)
	}
	p.log = ""
	switch p.kind {
	case fromCUDAC:
		ptx, cubin, err := p.compile(p.dev, options, false)
		if err != nil {
			return err
		}
		p.ptx, p.binary = ptx, cubin
		if p.binary == nil {
			if err := p.jit(options); err != nil {
				return err
			}
		}
	case fromPTX:
		if err := p.jit(options); err != nil {
			return err
		}
	}
	if err := p.load(); err != nil {
		return err
	}
	return p.buildOthers(options)
}

// Compile runs NVRTC with relocatable device code, so that Link can
// resolve calls between programs. PTX needs no compile step.
func (p *program) Compile(_ []driver.Device, options string) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch p.kind {
	case fromCUDAC:
		ptx, _, err := p.compile(p.dev, options, true)
		if err != nil {
			return err
		}
		p.ptx = ptx
	case fromBinary:
		return driver.Errorf(driver.ResultInvalidOperation, "a program from a binary cannot be compiled")
	}
	return nil
}

// compile runs NVRTC. With a real sm_XX architecture (the default) NVRTC
// gives the cubin directly; for relocatable code it gives PTX for the
// virtual architecture.
func (p *program) compile(d *device, options string, relocatable bool) (ptx, cubin []byte, err error) {
	nv, err := d.a.compiler()
	if err != nil {
		return nil, nil, err
	}
	opts := strings.Fields(options)
	if !hasArch(opts) {
		arch := "-arch=" + d.arch
		if relocatable {
			arch = "-arch=compute_" + strings.TrimPrefix(d.arch, "sm_")
		}
		opts = append(opts, arch)
	}
	if relocatable {
		opts = append(opts, "-rdc=true")
	}
	ptx, cubin, log, err := nv.Compile(string(p.src), "gour.cu", opts)
	p.log = log
	if err != nil {
		e := &driver.Error{Result: driver.ResultProgramBuildFailure, Message: "NVRTC compile failed", BuildLog: log}
		if ne, ok := err.(*nvrtc.Error); ok {
			e.Native, e.NativeName = int64(ne.Result), ne.Result.Name()
			if ne.Result == nvrtc.OutOfMemory {
				e.Result = driver.ResultOutOfHostMemory
			}
		}
		return nil, nil, e
	}
	return ptx, cubin, nil
}

func hasArch(opts []string) bool {
	for _, o := range opts {
		if o == "-arch" || o == "--gpu-architecture" || strings.HasPrefix(o, "-arch=") || strings.HasPrefix(o, "--gpu-architecture=") {
			return true
		}
	}
	return false
}

// jitOptions maps build options to JIT options: -O0 … -O4 and
// -lineinfo; anything else is refused rather than silently ignored.
func jitOptions(options string) ([]cu.JitOptionValue, error) {
	var out []cu.JitOptionValue
	for _, o := range strings.Fields(options) {
		switch {
		case len(o) == 3 && strings.HasPrefix(o, "-O") && o[2] >= '0' && o[2] <= '4':
			out = append(out, cu.JitOptionValue{Option: cu.JitOptimizationLevel, Value: uintptr(o[2] - '0')})
		case o == "-lineinfo":
			out = append(out, cu.JitOptionValue{Option: cu.JitGenerateLineInfo, Value: 1})
		default:
			return nil, driver.Errorf(driver.ResultProgramBuildFailure, "PTX JIT option %q is not supported (only -O0 … -O4 and -lineinfo)", o)
		}
	}
	return out, nil
}

// jit links p.ptx into a cubin with the driver's JIT, on the device.
func (p *program) jit(options string) error {
	cubin, err := p.jitOn(p.dev, options)
	if err != nil {
		return err
	}
	p.binary = cubin
	return nil
}

// jitOn links p.ptx into a cubin for d with the driver's JIT, d's
// context current.
func (p *program) jitOn(d *device, options string) ([]byte, error) {
	opts, err := jitOptions(options)
	if err != nil {
		if p.kind != fromCUDAC { // CUDA C options were NVRTC's
			return nil, err
		}
		opts = nil
	}
	if err := d.bindBusy(); err != nil {
		return nil, err
	}
	defer d.unbindBusy()
	cubin, log, r := d.a.cu.Link([]cu.LinkInput{{Type: cu.JitInputPTX, Data: p.ptx, Name: "gour.ptx"}}, opts...)
	if log != "" {
		p.log = strings.TrimSpace(p.log + "\n" + log)
	}
	if r != cu.Success {
		e := cuError("cuLink (PTX JIT)", r)
		if e.Result == driver.ResultInvalidBinary || e.Result == driver.ResultInvalidValue {
			e.Result = driver.ResultProgramBuildFailure
		}
		e.BuildLog = p.log
		return nil, e
	}
	return cubin, nil
}

// load loads p.binary as the program's module.
func (p *program) load() error {
	m, err := loadModule(p.dev, p.binary)
	if err != nil {
		return err
	}
	p.module = m
	return nil
}

// loadModule loads binary as a module of d's context.
func loadModule(d *device, binary []byte) (cu.Module, error) {
	if err := d.bindBusy(); err != nil {
		return 0, err
	}
	defer d.unbindBusy()
	m, r := d.a.cu.ModuleLoadData(binary)
	if err := check("cuModuleLoadData", r); err != nil {
		return 0, err
	}
	return m, nil
}

func (c *context) Link(devs []driver.Device, programs []driver.Program, options string) (driver.Program, error) {
	opts, err := jitOptions(options)
	if err != nil {
		return nil, err
	}
	inputs := make([]cu.LinkInput, 0, len(programs))
	for i, dp := range programs {
		in := dp.(*program)
		in.mu.Lock()
		switch {
		case in.ptx != nil:
			inputs = append(inputs, cu.LinkInput{Type: cu.JitInputPTX, Data: in.ptx, Name: "input" + strconv.Itoa(i) + ".ptx"})
		case in.binary != nil && bytes.HasPrefix(in.binary, elfMagic):
			inputs = append(inputs, cu.LinkInput{Type: cu.JitInputCUBIN, Data: in.binary, Name: "input" + strconv.Itoa(i) + ".cubin"})
		case in.binary != nil:
			inputs = append(inputs, cu.LinkInput{Type: cu.JitInputFatbinary, Data: in.binary, Name: "input" + strconv.Itoa(i) + ".fatbin"})
		default:
			in.mu.Unlock()
			return nil, driver.Errorf(driver.ResultInvalidProgram, "program %d is not compiled", i)
		}
		in.mu.Unlock()
	}
	p := c.newProgram(fromBinary, nil)
	if len(devs) > 0 {
		p.target(c, devs)
	}
	d := p.dev
	if err := d.bindBusy(); err != nil {
		return nil, err
	}
	cubin, log, r := d.a.cu.Link(inputs, opts...)
	d.unbindBusy()
	if r != cu.Success {
		e := cuError("cuLink", r)
		e.Result = driver.ResultProgramLinkFailure
		e.BuildLog = log
		return nil, e
	}
	p.src, p.binary, p.log = cubin, cubin, log
	if err := p.load(); err != nil {
		return nil, err
	}
	// The other devices load the same cubin: linked inputs of one
	// architecture, the first device's.
	if err := p.buildOthers(""); err != nil {
		p.unref()
		return nil, err
	}
	return p, nil
}

func (p *program) BuildLog(driver.Device) (string, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.log, nil
}

// Binaries returns the cubin the module was loaded from: for a program
// built from PTX or CUDA C, what a cache can load next time without the JIT.
func (p *program) Binaries() ([][]byte, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.binary == nil {
		return nil, driver.Errorf(driver.ResultInvalidProgramExecutable, "the program is not built")
	}
	out := [][]byte{bytes.Clone(p.binary)}
	for _, o := range p.others {
		out = append(out, bytes.Clone(o.binary))
	}
	return out, nil
}

func (p *program) BinarySizes() ([]uint64, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.binary == nil {
		return nil, driver.Errorf(driver.ResultInvalidProgramExecutable, "the program is not built")
	}
	out := []uint64{uint64(len(p.binary))}
	for _, o := range p.others {
		out = append(out, uint64(len(o.binary)))
	}
	return out, nil
}

func (p *program) Devices() ([]driver.Device, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := []driver.Device{p.dev}
	for _, o := range p.others {
		out = append(out, o.dev)
	}
	return out, nil
}

var ptxEntry = regexp.MustCompile(`\.entry\s+([A-Za-z_$][\w$]*)`)

// KernelNames asks the driver (CUDA 12.4+) or, failing that, reads the
// .entry directives of the PTX.
func (p *program) KernelNames() ([]string, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.module == 0 {
		return nil, driver.Errorf(driver.ResultInvalidProgramExecutable, "the program is not built")
	}
	l := p.dev.a.cu
	if l.HasModuleEnumerateFunctions() && l.HasFuncGetName() {
		if err := p.dev.bind(); err != nil {
			return nil, err
		}
		defer unbind()
		fns, r := l.ModuleFunctions(p.module)
		if err := check("cuModuleEnumerateFunctions", r); err != nil {
			return nil, err
		}
		names := make([]string, 0, len(fns))
		for _, fn := range fns {
			name, r := l.FuncGetName(fn)
			if err := check("cuFuncGetName", r); err != nil {
				return nil, err
			}
			names = append(names, name)
		}
		return names, nil
	}
	if p.ptx == nil {
		return nil, driver.Errorf(driver.ResultUnsupportedFeature, "listing the kernels of a cubin needs CUDA 12.4")
	}
	var names []string
	for _, m := range ptxEntry.FindAllSubmatch(p.ptx, -1) {
		names = append(names, string(m[1]))
	}
	return names, nil
}

func (p *program) SetSpecConstant(uint32, []byte) error {
	return driver.Errorf(driver.ResultUnsupportedFeature, "CUDA has no specialization constants (the program manager passes them as -D definitions)")
}
