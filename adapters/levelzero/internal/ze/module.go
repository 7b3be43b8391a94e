package ze

import (
	"strings"
	"unsafe"

	"github.com/gour-dev/gour/internal/dl"
)

// NewModuleConstants returns the ze_module_constants_t of specialization
// constants ids[i] = values[i]. The structure points into Go memory it
// references itself, so it stays valid as long as it is referenced.
// Mismatched lengths give nil.
func NewModuleConstants(ids []uint32, values [][]byte) *ModuleConstants {
	if len(ids) != len(values) {
		return nil
	}
	if len(ids) == 0 {
		return &ModuleConstants{}
	}
	ptrs := make([]unsafe.Pointer, len(values))
	for i, v := range values {
		// A copy of at least 8 bytes: drivers read the constant's full
		// type width, and a bool or char constant is given in one byte.
		b := make([]byte, max(len(v), 8))
		copy(b, v)
		ptrs[i] = unsafe.Pointer(&b[0])
	}
	idsCopy := append([]uint32(nil), ids...)
	return &ModuleConstants{
		NumConstants:    uint32(len(ids)),
		PConstantIDs:    unsafe.Pointer(&idsCopy[0]),
		PConstantValues: unsafe.Pointer(&ptrs[0]),
	}
}

// ModuleCreate calls zeModuleCreate with input in format (SPIR-V or a
// native binary), build flags and specialization constants (nil for
// none), and returns the module with the build log handle, which the
// caller reads with BuildLogString and destroys with
// ModuleBuildLogDestroy. On failure the module is 0 and the log (if not 0)
// says why.
func (l *Lib) ModuleCreate(c Context, dev Device, format ModuleFormat, input []byte, flags string, consts *ModuleConstants) (Module, BuildLog, Result) {
	desc := &ModuleDesc{
		Stype:        StructureTypeModuleDesc,
		Format:       format,
		InputSize:    uintptr(len(input)),
		PInputModule: dl.First(input),
		PBuildFlags:  unsafe.Pointer(&dl.CString(flags)[0]),
		PConstants:   unsafe.Pointer(consts),
	}
	return l.moduleCreate1(c, dev, desc)
}

// ModuleInput is one SPIR-V module of ModuleCreateLinked with its build
// flags and specialization constants (nil for none).
type ModuleInput struct {
	IL        []byte
	Flags     string
	Constants *ModuleConstants
}

// ModuleCreateLinked calls zeModuleCreate with a ze_module_program_exp_desc_t
// (ZE_experimental_module_program): the SPIR-V inputs are compiled and
// linked into one module, their imports resolved against each other's
// exports. A link error gives ErrorModuleLinkFailure (or
// ErrorModuleBuildFailure) with the log.
func (l *Lib) ModuleCreateLinked(c Context, dev Device, inputs []ModuleInput) (Module, BuildLog, Result) {
	n := len(inputs)
	sizes := make([]uintptr, n)
	ils := make([]unsafe.Pointer, n)
	flags := make([]unsafe.Pointer, n)
	consts := make([]unsafe.Pointer, n)
	for i, in := range inputs {
		sizes[i] = uintptr(len(in.IL))
		ils[i] = dl.First(in.IL)
		flags[i] = unsafe.Pointer(&dl.CString(in.Flags)[0])
		consts[i] = unsafe.Pointer(in.Constants)
	}
	prog := &ModuleProgramExpDesc{
		Stype:         StructureTypeModuleProgramExpDesc,
		Count:         uint32(n),
		InputSizes:    dl.First(sizes),
		PInputModules: dl.First(ils),
		PBuildFlags:   dl.First(flags),
		PConstants:    dl.First(consts),
	}
	desc := &ModuleDesc{Stype: StructureTypeModuleDesc, PNext: unsafe.Pointer(prog), Format: ModuleFormatILSPIRV}
	if n > 0 {
		// The driver takes the inputs from the extension structure and
		// ignores these fields, but validation layers check that they
		// are set: the first input fills them.
		desc.InputSize, desc.PInputModule, desc.PBuildFlags, desc.PConstants = sizes[0], ils[0], flags[0], consts[0]
	}
	return l.moduleCreate1(c, dev, desc)
}

func (l *Lib) moduleCreate1(c Context, dev Device, desc *ModuleDesc) (Module, BuildLog, Result) {
	f := dl.NewFrame()
	f.Args = dl.Args{uintptr(c), uintptr(dev), f.Ptr(0, unsafe.Pointer(desc)), f.Out(0), f.Out(1)}
	r, out := call(f, l.moduleCreate)
	return Module(out[0]), BuildLog(out[1]), r
}

// ModuleDestroy calls zeModuleDestroy. Kernels of the module must be
// destroyed first.
func (l *Lib) ModuleDestroy(m Module) Result { return call1(l.moduleDestroy, uintptr(m)) }

// ModuleDynamicLink calls zeModuleDynamicLink: the imports of each module
// are resolved against the exports of the others. It returns the link log
// handle, to read and destroy as ModuleCreate's.
func (l *Lib) ModuleDynamicLink(modules []Module) (BuildLog, Result) {
	f := dl.NewFrame()
	f.Args = dl.Args{uintptr(uint32(len(modules))), f.Ptr(0, dl.First(modules)), f.Out(0)}
	r, out := call(f, l.moduleDynamicLink)
	return BuildLog(out[0]), r
}

// ModuleBuildLogDestroy calls zeModuleBuildLogDestroy; a 0 log is ignored.
func (l *Lib) ModuleBuildLogDestroy(log BuildLog) Result {
	if log == 0 {
		return Success
	}
	return call1(l.moduleBuildLogDestroy, uintptr(log))
}

// BuildLogString calls zeModuleBuildLogGetString for the size, then the
// text, and returns it without the NUL and trailing blanks; a 0 log gives
// "".
func (l *Lib) BuildLogString(log BuildLog) (string, Result) {
	if log == 0 {
		return "", Success
	}
	f := dl.NewFrame()
	f.Args = dl.Args{uintptr(log), f.Out(0), 0}
	r, out := call(f, l.moduleBuildLogGetString)
	if r != Success || out[0] == 0 {
		return "", r
	}
	buf := make([]byte, out[0])
	f = dl.NewFrame()
	f.Args = dl.Args{uintptr(log), f.InOut(0, uint64(len(buf))), f.Ptr(0, unsafe.Pointer(&buf[0]))}
	r, _ = call(f, l.moduleBuildLogGetString)
	return strings.TrimRight(dl.BufString(buf), " \t\r\n"), r
}

// ModuleGetNativeBinary calls zeModuleGetNativeBinary for the size, then
// the device binary a module can be recreated from with ModuleFormatNative.
func (l *Lib) ModuleGetNativeBinary(m Module) ([]byte, Result) {
	f := dl.NewFrame()
	f.Args = dl.Args{uintptr(m), f.Out(0), 0}
	r, out := call(f, l.moduleGetNativeBinary)
	if r != Success || out[0] == 0 {
		return nil, r
	}
	bin := make([]byte, out[0])
	f = dl.NewFrame()
	f.Args = dl.Args{uintptr(m), f.InOut(0, uint64(len(bin))), f.Ptr(0, unsafe.Pointer(&bin[0]))}
	r, out = call(f, l.moduleGetNativeBinary)
	return bin[:min(out[0], uint64(len(bin)))], r
}

// ModuleGetKernelNames calls zeModuleGetKernelNames for the count, then
// the names, which it copies out of the module's memory.
func (l *Lib) ModuleGetKernelNames(m Module) ([]string, Result) {
	f := dl.NewFrame()
	f.Args = dl.Args{uintptr(m), f.Out(0), 0}
	r, out := call(f, l.moduleGetKernelNames)
	if r != Success || out[0] == 0 {
		return nil, r
	}
	// The driver writes const char* values: uintptr, so that the collector
	// never sees C pointers in Go memory.
	ptrs := make([]uintptr, uint32(out[0]))
	f = dl.NewFrame()
	f.Args = dl.Args{uintptr(m), f.InOut(0, uint64(len(ptrs))), f.Ptr(0, dl.First(ptrs))}
	r, out = call(f, l.moduleGetKernelNames)
	if r != Success {
		return nil, r
	}
	names := make([]string, 0, len(ptrs))
	for _, p := range ptrs[:min(uint32(out[0]), uint32(len(ptrs)))] {
		names = append(names, cStringAt(p))
	}
	return names, Success
}

// cStringAt copies the NUL-terminated C string at the C address p.
func cStringAt(p uintptr) string {
	if p == 0 {
		return ""
	}
	// p is memory of the driver, outside the Go heap.
	return dl.GoString(*(*unsafe.Pointer)(unsafe.Pointer(&p)))
}

// KernelCreate calls zeKernelCreate for the kernel of that name;
// ErrorInvalidKernelName when the module has none.
func (l *Lib) KernelCreate(m Module, name string) (Kernel, Result) {
	n := dl.CString(name)
	desc := &KernelDesc{Stype: StructureTypeKernelDesc, PKernelName: unsafe.Pointer(&n[0])}
	f := dl.NewFrame()
	f.Args = dl.Args{uintptr(m), f.Ptr(0, unsafe.Pointer(desc)), f.Out(0)}
	r, out := call(f, l.kernelCreate)
	return Kernel(out[0]), r
}

// KernelDestroy calls zeKernelDestroy.
func (l *Lib) KernelDestroy(k Kernel) Result { return call1(l.kernelDestroy, uintptr(k)) }

// KernelSetGroupSize calls zeKernelSetGroupSize: the work-group size of
// the kernel's next launches.
func (l *Lib) KernelSetGroupSize(k Kernel, x, y, z uint32) Result {
	f := dl.NewFrame()
	f.Args = dl.Args{uintptr(k), uintptr(x), uintptr(y), uintptr(z)}
	r, _ := call(f, l.kernelSetGroupSize)
	return r
}

// KernelSuggestGroupSize calls zeKernelSuggestGroupSize: the work-group
// size the driver proposes for a global size.
func (l *Lib) KernelSuggestGroupSize(k Kernel, gx, gy, gz uint32) (x, y, z uint32, r Result) {
	f := dl.NewFrame()
	f.Args = dl.Args{uintptr(k), uintptr(gx), uintptr(gy), uintptr(gz), f.Out(0), f.Out(1), f.Out(2)}
	r, out := call(f, l.kernelSuggestGroupSize)
	return uint32(out[0]), uint32(out[1]), uint32(out[2]), r
}

// KernelSetArgumentValue calls zeKernelSetArgumentValue. The driver copies
// the size bytes at value before returning; a nil value with a non-zero
// size sets a local-memory argument of that many bytes.
func (l *Lib) KernelSetArgumentValue(k Kernel, index uint32, size uintptr, value unsafe.Pointer) Result {
	f := dl.NewFrame()
	f.Args = dl.Args{uintptr(k), uintptr(index), size, f.Ptr(0, value)}
	r, _ := call(f, l.kernelSetArgumentValue)
	return r
}

// KernelGetProperties calls zeKernelGetProperties.
func (l *Lib) KernelGetProperties(k Kernel) (*KernelProperties, Result) {
	p := &KernelProperties{Stype: StructureTypeKernelProperties}
	f := dl.NewFrame()
	f.Args = dl.Args{uintptr(k), f.Ptr(0, unsafe.Pointer(p))}
	r, _ := call(f, l.kernelGetProperties)
	return p, r
}

// KernelSetGlobalOffsetExp calls zeKernelSetGlobalOffsetExp
// (ZE_experimental_global_offset): the global offset of the kernel's next
// launches. NotSupported when the loader lacks it (see
// HasKernelSetGlobalOffset).
func (l *Lib) KernelSetGlobalOffsetExp(k Kernel, x, y, z uint32) Result {
	f := dl.NewFrame()
	f.Args = dl.Args{uintptr(k), uintptr(x), uintptr(y), uintptr(z)}
	r, _ := call(f, l.kernelSetGlobalOffsetExp)
	return r
}

// ModuleGetGlobalPointer calls zeModuleGetGlobalPointer: the device
// address and size of a module's global variable;
// ErrorInvalidGlobalName when the module has none of that name.
func (l *Lib) ModuleGetGlobalPointer(m Module, name string) (ptr, size uintptr, r Result) {
	n := dl.CString(name)
	f := dl.NewFrame()
	f.Args = dl.Args{uintptr(m), f.Ptr(0, unsafe.Pointer(&n[0])), f.Out(0), f.Out(1)}
	r, out := call(f, l.moduleGetGlobalPointer)
	return uintptr(out[1]), uintptr(out[0]), r
}

// KernelSuggestMaxCooperativeGroupCount calls
// zeKernelSuggestMaxCooperativeGroupCount: the most work-groups, of the
// group size last set on k, a cooperative launch of k may have.
func (l *Lib) KernelSuggestMaxCooperativeGroupCount(k Kernel) (uint32, Result) {
	f := dl.NewFrame()
	f.Args = dl.Args{uintptr(k), f.Out(0)}
	r, out := call(f, l.kernelSuggestMaxCoop)
	return uint32(out[0]), r
}
