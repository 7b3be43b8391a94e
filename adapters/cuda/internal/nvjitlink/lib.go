package nvjitlink

import (
	"fmt"
	"strings"
	"unsafe"

	"github.com/gour-dev/gour/adapters/cuda/internal/toolkit"

	"github.com/ebitengine/purego"

	"github.com/gour-dev/gour/internal/dl"
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

// libraryBase is the file name before the version suffix.
const libraryBase = "libnvJitLink.so"

// libraryNames are the sonames this binding knows, newest first after the
// unversioned development link.
var libraryNames = []string{"libnvJitLink.so", "libnvJitLink.so.13", "libnvJitLink.so.12"}

// versionFamilies are the major versions whose versioned entry points
// (__nvJitLinkCreate_<major>_<minor>) are tried, newest first; minors run
// from maxMinor down to 0.
var versionFamilies = []int{13, 12}

const maxMinor = 9

// Load opens nvJitLink and resolves its entry points. It tries libraryNames
// through the loader's search path, then in the CUDA toolkit directories
// (/usr/local/cuda/lib64, /usr/local/cuda/targets/<arch>/lib,
// $CUDA_HOME/lib64, $CUDA_PATH/lib64) and extraDirs, including any
// libnvJitLink.so.* found there. The error lists every path tried.
func Load(extraDirs ...string) (*Lib, error) {
	dirs := toolkit.Dirs(extraDirs)
	lib, err := dl.Open(toolkit.Candidates(libraryBase, libraryNames, dirs)...)
	if err != nil {
		return nil, fmt.Errorf("nvjitlink: nvJitLink library not available (searched the loader path and %s): %w",
			strings.Join(dirs, ", "), err)
	}
	l := &Lib{lib: lib}
	if err := l.resolve(); err != nil {
		_ = lib.Close()
		return nil, err
	}
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

// resolve finds the version suffix under which nvJitLinkCreate is exported,
// then resolves every other entry point under the same suffix, falling back
// to any known name.
func (l *Lib) resolve() error {
	table := []struct {
		base     string
		addr     *uintptr
		optional bool
	}{
		{"nvJitLinkCreate", &l.create, false},
		{"nvJitLinkDestroy", &l.destroy, false},
		{"nvJitLinkAddData", &l.addData, false},
		{"nvJitLinkComplete", &l.complete, false},
		{"nvJitLinkGetLinkedCubinSize", &l.getLinkedCubinSize, false},
		{"nvJitLinkGetLinkedCubin", &l.getLinkedCubin, false},
		{"nvJitLinkGetErrorLogSize", &l.getErrorLogSize, false},
		{"nvJitLinkGetErrorLog", &l.getErrorLog, false},
		{"nvJitLinkGetInfoLogSize", &l.getInfoLogSize, true},
		{"nvJitLinkGetInfoLog", &l.getInfoLog, true},
	}
	for i, e := range table {
		names := symbolNames(e.base)
		if i > 0 {
			names = append([]string{exportedName(e.base, l.symbolSuffix)}, names...)
		}
		for _, n := range names {
			if addr, err := l.lib.Lookup(n); err == nil {
				*e.addr = addr
				if i == 0 && n != e.base {
					l.symbolSuffix = strings.TrimPrefix(n, "__"+e.base)
				}
				break
			}
		}
		if *e.addr == 0 && !e.optional {
			return fmt.Errorf("nvjitlink: %s: symbol %s not found (nor %s ... %s)",
				l.lib.Name, e.base, names[1], names[len(names)-1])
		}
	}
	if addr, err := l.lib.Lookup("nvJitLinkVersion"); err == nil {
		l.version = addr
	}
	return nil
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

// result converts an nvJitLinkResult return register: only the low 32 bits
// are defined by the C ABI.
func result(r uintptr) Result { return Result(int32(r)) }

// Each method calls purego.SyscallN directly, converting its pointers in
// the call expression: SyscallN is //go:uintptrescapes, which keeps the
// pointed-to memory alive and in place for the call. Linking is a cold
// path, so the allocations that costs do not matter. A missing entry point
// (an optional one, or any on a zero Lib) answers EntryPointMissing.

// Version calls nvJitLinkVersion.
func (l *Lib) Version() (major, minor uint32, r Result) {
	if l.version == 0 {
		return 0, 0, EntryPointMissing
	}
	r1, _, _ := purego.SyscallN(l.version, uintptr(unsafe.Pointer(&major)), uintptr(unsafe.Pointer(&minor)))
	return major, minor, result(r1)
}

// Create calls nvJitLinkCreate with link options such as "-arch=sm_90"
// (required), "-O3" or "-lto".
func (l *Lib) Create(options []string) (Handle, Result) {
	if l.create == 0 {
		return 0, EntryPointMissing
	}
	strs := make([][]byte, len(options))
	ptrs := make([]*byte, len(options))
	for i, o := range options {
		strs[i] = dl.CString(o)
		ptrs[i] = &strs[i][0]
	}
	var h Handle
	r1, _, _ := purego.SyscallN(l.create, uintptr(unsafe.Pointer(&h)), uintptr(uint32(len(ptrs))), uintptr(dl.First(ptrs)))
	return h, result(r1)
}

// Destroy calls nvJitLinkDestroy.
func (l *Lib) Destroy(h Handle) Result {
	if l.destroy == 0 {
		return EntryPointMissing
	}
	r1, _, _ := purego.SyscallN(l.destroy, uintptr(unsafe.Pointer(&h)))
	return result(r1)
}

// AddData calls nvJitLinkAddData with one input; name, used in messages,
// may be empty. PTX input is passed NUL-terminated (a copy gets the NUL
// when data lacks it). Empty data gives InvalidInput without a call.
func (l *Lib) AddData(h Handle, typ InputType, data []byte, name string) Result {
	if l.addData == 0 {
		return EntryPointMissing
	}
	if typ == InputPTX && len(data) > 0 && data[len(data)-1] != 0 {
		data = append(data[:len(data):len(data)], 0)
	}
	if len(data) == 0 {
		return InvalidInput
	}
	var cname []byte
	if name != "" {
		cname = dl.CString(name)
	}
	r1, _, _ := purego.SyscallN(l.addData, uintptr(h), uintptr(typ),
		uintptr(unsafe.Pointer(&data[0])), uintptr(len(data)), uintptr(dl.First(cname)))
	return result(r1)
}

// Complete calls nvJitLinkComplete, which does the link.
func (l *Lib) Complete(h Handle) Result {
	if l.complete == 0 {
		return EntryPointMissing
	}
	r1, _, _ := purego.SyscallN(l.complete, uintptr(h))
	return result(r1)
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
	if fn == 0 {
		return 0, EntryPointMissing
	}
	var n uintptr
	r1, _, _ := purego.SyscallN(fn, uintptr(h), uintptr(unsafe.Pointer(&n)))
	return n, result(r1)
}

// fill runs an nvJitLinkGet* function that copies into a caller's buffer.
func fill(fn uintptr, h Handle, buf []byte) Result {
	if fn == 0 {
		return EntryPointMissing
	}
	if len(buf) == 0 {
		return InvalidInput
	}
	r1, _, _ := purego.SyscallN(fn, uintptr(h), uintptr(unsafe.Pointer(&buf[0])))
	return result(r1)
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
