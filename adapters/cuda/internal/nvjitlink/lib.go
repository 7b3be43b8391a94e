package nvjitlink

import (
	"fmt"
	"slices"
	"strings"

	"github.com/gour-dev/gour/internal/dl"
	"github.com/gour-dev/gour/internal/nvlib"
)

// Lib is the resolved nvJitLink entry-point table. Fields hold C function
// addresses; optional entry points the library lacks are zero. A Lib is
// read-only after Load; distinct handles may be used concurrently.
type Lib struct {
	lib *dl.Library
	// symbolSuffix is the version suffix the entry points were found under,
	// such as "_12_0", or "" for the plain names.
	symbolSuffix string

	create             uintptr
	destroy            uintptr
	addData            uintptr
	complete           uintptr
	getLinkedCubinSize uintptr
	getLinkedCubin     uintptr
	getErrorLogSize    uintptr
	getErrorLog        uintptr
	getInfoLogSize     uintptr // optional
	getInfoLog         uintptr // optional
	version            uintptr // optional, nvJitLinkVersion (12.3), never versioned
}

// library is nvJitLink as CUDA 12 and 13 ship it.
var library = nvlib.Library{Name: "nvJitLink", Base: "libnvJitLink.so", Versions: []string{"13", "12"}}

// versionFamilies are the major versions whose versioned entry points
// (__nvJitLinkCreate_<major>_<minor>) are tried, newest first; minors run
// from maxMinor down to 0.
var versionFamilies = []int{13, 12}

const maxMinor = 9

// Load opens nvJitLink and resolves its entry points (see [nvlib.Load]
// for where it looks: the loader's search path, then /usr/local/cuda,
// $CUDA_HOME, $CUDA_PATH and extraDirs). The error lists every path tried.
func Load(extraDirs ...string) (*Lib, error) { return load(library, extraDirs) }

// load is Load of another description of the library (tests load a
// stand-in).
func load(library nvlib.Library, extraDirs []string) (*Lib, error) {
	l := &Lib{}
	lib, err := nvlib.Load(library, extraDirs, l.symbols)
	if err != nil {
		return nil, fmt.Errorf("nvjitlink: %w", err)
	}
	l.lib = lib
	return l, nil
}

// symbolNames returns the names an entry point may be exported under: the
// plain name, then __name_<major>_<minor> for each version family, newest
// first.
func symbolNames(base string) []string {
	names := []string{base}
	for _, major := range versionFamilies {
		for minor := maxMinor; minor >= 0; minor-- {
			names = append(names, fmt.Sprintf("__%s_%d_%d", base, major, minor))
		}
	}
	return names
}

// exportedName returns base under a version suffix ("" for the plain name).
func exportedName(base, suffix string) string {
	if suffix == "" {
		return base
	}
	return "__" + base + suffix
}

// symbols returns the entry-point table for lib: each entry point under
// the version suffix nvJitLinkCreate is exported under, so that the
// functions of one handle come from one version family, then under any
// other name it may have.
func (l *Lib) symbols(lib *dl.Library) []dl.Symbol {
	const first = "nvJitLinkCreate"
	if _, name, err := lib.LookupFirst(symbolNames(first)...); err == nil && name != first {
		l.symbolSuffix = strings.TrimPrefix(name, "__"+first)
	}
	entry := func(base string, addr *uintptr, optional bool) dl.Symbol {
		name := exportedName(base, l.symbolSuffix)
		others := slices.DeleteFunc(symbolNames(base), func(n string) bool { return n == name })
		return dl.Symbol{Name: name, Alternates: others, Addr: addr, Optional: optional}
	}
	return []dl.Symbol{
		entry("nvJitLinkCreate", &l.create, false),
		entry("nvJitLinkDestroy", &l.destroy, false),
		entry("nvJitLinkAddData", &l.addData, false),
		entry("nvJitLinkComplete", &l.complete, false),
		entry("nvJitLinkGetLinkedCubinSize", &l.getLinkedCubinSize, false),
		entry("nvJitLinkGetLinkedCubin", &l.getLinkedCubin, false),
		entry("nvJitLinkGetErrorLogSize", &l.getErrorLogSize, false),
		entry("nvJitLinkGetErrorLog", &l.getErrorLog, false),
		entry("nvJitLinkGetInfoLogSize", &l.getInfoLogSize, true),
		entry("nvJitLinkGetInfoLog", &l.getInfoLog, true),
		{Name: "nvJitLinkVersion", Addr: &l.version, Optional: true},
	}
}

// LibraryName returns the file name nvJitLink was opened under.
func (l *Lib) LibraryName() string { return l.lib.Name }

// SymbolSuffix returns the version suffix of the entry points in use, such
// as "_12_0", or "" when the library exports the plain names.
func (l *Lib) SymbolSuffix() string { return l.symbolSuffix }

// Close unloads the library. No method may be called afterwards.
func (l *Lib) Close() error {
	if l == nil || l.lib == nil {
		return nil
	}
	return l.lib.Close()
}

// HasInfoLog reports whether nvJitLinkGetInfoLogSize and
// nvJitLinkGetInfoLog are exported.
func (l *Lib) HasInfoLog() bool { return l.getInfoLogSize != 0 && l.getInfoLog != 0 }

// HasVersion reports whether nvJitLinkVersion (CUDA 12.3) is exported.
func (l *Lib) HasVersion() bool { return l.version != 0 }

// Each method makes its call through a dl.Frame, as the driver binding
// does: the frame keeps the pointer arguments alive and takes the outputs.
// Linking is a cold path; what that allocates does not matter.

// call calls fn with f's arguments. A zero fn (an optional entry point the
// library lacks, or any on a zero Lib) answers EntryPointMissing without a
// call.
func call(f *dl.Frame, fn uintptr) (r Result, out [4]uint64) {
	if fn == 0 {
		f.Release()
		return EntryPointMissing, out
	}
	r1, out, _ := f.Call(fn)
	// Only the low 32 bits of the nvJitLinkResult register are defined.
	return Result(int32(r1)), out
}

// Version calls nvJitLinkVersion.
func (l *Lib) Version() (major, minor uint32, r Result) {
	f := dl.NewFrame()
	f.Args = dl.Args{f.Out(0), f.Out(1)}
	r, out := call(f, l.version)
	return uint32(out[0]), uint32(out[1]), r
}

// Create calls nvJitLinkCreate with link options such as "-arch=sm_90"
// (required), "-O3" or "-lto".
func (l *Lib) Create(options []string) (Handle, Result) {
	f := dl.NewFrame()
	f.Args = dl.Args{f.Out(0), uintptr(uint32(len(options))), f.Ptr(0, dl.First(dl.CStrings(options)))}
	r, out := call(f, l.create)
	return Handle(out[0]), r
}

// Destroy calls nvJitLinkDestroy.
func (l *Lib) Destroy(h Handle) Result {
	f := dl.NewFrame()
	f.Args[0] = f.InOut(0, uint64(h)) // nvJitLinkHandle*
	r, _ := call(f, l.destroy)
	return r
}

// AddData calls nvJitLinkAddData with one input; name, used in messages,
// may be empty. PTX input is passed NUL-terminated (a copy gets the NUL
// when data lacks it). Empty data gives InvalidInput without a call.
func (l *Lib) AddData(h Handle, typ InputType, data []byte, name string) Result {
	if typ == InputPTX && len(data) > 0 && data[len(data)-1] != 0 {
		data = append(data[:len(data):len(data)], 0)
	}
	if l.addData != 0 && len(data) == 0 {
		return InvalidInput
	}
	f := dl.NewFrame()
	f.Args = dl.Args{uintptr(h), uintptr(typ),
		f.Ptr(0, dl.First(data)), uintptr(len(data)), f.Ptr(1, dl.First(dl.CStringOrNil(name)))}
	r, _ := call(f, l.addData)
	return r
}

// Complete calls nvJitLinkComplete, which does the link.
func (l *Lib) Complete(h Handle) Result {
	f := dl.NewFrame()
	f.Args[0] = uintptr(h)
	r, _ := call(f, l.complete)
	return r
}

// GetLinkedCubinSize calls nvJitLinkGetLinkedCubinSize.
func (l *Lib) GetLinkedCubinSize(h Handle) (uintptr, Result) { return size(l.getLinkedCubinSize, h) }

// GetLinkedCubin calls nvJitLinkGetLinkedCubin, which fills buf
// (GetLinkedCubinSize bytes).
func (l *Lib) GetLinkedCubin(h Handle, buf []byte) Result { return fill(l.getLinkedCubin, h, buf) }

// GetErrorLogSize calls nvJitLinkGetErrorLogSize.
func (l *Lib) GetErrorLogSize(h Handle) (uintptr, Result) { return size(l.getErrorLogSize, h) }

// GetErrorLog calls nvJitLinkGetErrorLog, which fills buf.
func (l *Lib) GetErrorLog(h Handle, buf []byte) Result { return fill(l.getErrorLog, h, buf) }

// GetInfoLogSize calls nvJitLinkGetInfoLogSize.
func (l *Lib) GetInfoLogSize(h Handle) (uintptr, Result) { return size(l.getInfoLogSize, h) }

// GetInfoLog calls nvJitLinkGetInfoLog, which fills buf.
func (l *Lib) GetInfoLog(h Handle, buf []byte) Result { return fill(l.getInfoLog, h, buf) }

// size runs an nvJitLinkGet*Size function.
func size(fn uintptr, h Handle) (uintptr, Result) {
	f := dl.NewFrame()
	f.Args = dl.Args{uintptr(h), f.Out(0)}
	r, out := call(f, fn)
	return uintptr(out[0]), r
}

// fill runs an nvJitLinkGet* function that copies into a caller's buffer.
func fill(fn uintptr, h Handle, buf []byte) Result {
	if fn != 0 && len(buf) == 0 {
		return InvalidInput
	}
	f := dl.NewFrame()
	f.Args = dl.Args{uintptr(h), f.Ptr(0, dl.First(buf))}
	r, _ := call(f, fn)
	return r
}

// fetch runs the size-then-data protocol of the nvJitLinkGet* pairs.
func fetch(sizeFn, dataFn uintptr, h Handle) ([]byte, Result) {
	n, r := size(sizeFn, h)
	if r != Success || n == 0 {
		return nil, r
	}
	buf := make([]byte, n)
	if r := fill(dataFn, h, buf); r != Success {
		return nil, r
	}
	return buf, Success
}

// LinkedCubin returns the linked cubin after Complete.
func (l *Lib) LinkedCubin(h Handle) ([]byte, Result) {
	return fetch(l.getLinkedCubinSize, l.getLinkedCubin, h)
}

// ErrorLog returns the error log, trimmed.
func (l *Lib) ErrorLog(h Handle) (string, Result) {
	b, r := fetch(l.getErrorLogSize, l.getErrorLog, h)
	return trimLog(b), r
}

// InfoLog returns the info log, trimmed.
func (l *Lib) InfoLog(h Handle) (string, Result) {
	b, r := fetch(l.getInfoLogSize, l.getInfoLog, h)
	return trimLog(b), r
}

// LinkPTX links one PTX module into a cubin for arch ("sm_90", or a full
// "-arch=sm_90" option): nvJitLinkCreate, nvJitLinkAddData(PTX),
// nvJitLinkComplete, nvJitLinkGetLinkedCubin, nvJitLinkDestroy. log holds
// the error log followed by the info log. A failure is an *Error carrying
// the log.
func (l *Lib) LinkPTX(ptx []byte, arch string) (cubin []byte, log string, err error) {
	opt := arch
	if !strings.HasPrefix(opt, "-") {
		opt = "-arch=" + arch
	}
	h, r := l.Create([]string{opt})
	if r != Success {
		if h != 0 {
			log = l.logs(h)
			l.Destroy(h)
		}
		return nil, log, &Error{Op: "nvJitLinkCreate", Result: r, Log: log}
	}
	defer l.Destroy(h)
	if r := l.AddData(h, InputPTX, ptx, "input.ptx"); r != Success {
		log = l.logs(h)
		return nil, log, &Error{Op: "nvJitLinkAddData", Result: r, Log: log}
	}
	if r := l.Complete(h); r != Success {
		log = l.logs(h)
		return nil, log, &Error{Op: "nvJitLinkComplete", Result: r, Log: log}
	}
	cubin, r = l.LinkedCubin(h)
	log = l.logs(h)
	if r != Success {
		return nil, log, &Error{Op: "nvJitLinkGetLinkedCubin", Result: r, Log: log}
	}
	return cubin, log, nil
}

// logs returns the error and info logs of h, joined.
func (l *Lib) logs(h Handle) string {
	errLog, _ := l.ErrorLog(h)
	var infoLog string
	if l.HasInfoLog() {
		infoLog, _ = l.InfoLog(h)
	}
	switch {
	case errLog == "":
		return infoLog
	case infoLog == "":
		return errLog
	}
	return errLog + "\n" + infoLog
}

// trimLog decodes a log: the text before the first NUL, without trailing
// blanks.
func trimLog(b []byte) string {
	for i, c := range b {
		if c == 0 {
			b = b[:i]
			break
		}
	}
	return strings.TrimRight(string(b), " \t\r\n")
}
