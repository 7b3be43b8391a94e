package nvrtc

import (
	"fmt"
	"strings"
	"unsafe"

	"github.com/gour-dev/gour/adapters/cuda/internal/toolkit"

	"github.com/ebitengine/purego"

	"github.com/gour-dev/gour/internal/dl"
)

// Lib is the resolved NVRTC entry-point table. Fields hold C function
// addresses; optional entry points the library lacks are zero. A Lib is
// read-only after Load; NVRTC itself is thread-safe for distinct programs.
type Lib struct {
	lib *dl.Library

	version           uintptr
	getErrorString    uintptr // optional
	createProgram     uintptr
	destroyProgram    uintptr
	compileProgram    uintptr
	getPTXSize        uintptr
	getPTX            uintptr
	getCUBINSize      uintptr // optional, CUDA 11.1
	getCUBIN          uintptr // optional, CUDA 11.1
	getProgramLogSize uintptr
	getProgramLog     uintptr
	addNameExpression uintptr // optional
	getLoweredName    uintptr // optional
}

// libraryBase is the file name before the version suffix.
const libraryBase = "libnvrtc.so"

// libraryNames are the sonames of the toolkits this binding knows, newest
// first after the unversioned development link.
var libraryNames = []string{"libnvrtc.so", "libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so.11.2"}

// Load opens NVRTC and resolves its entry points. It tries libraryNames
// through the loader's search path, then in the CUDA toolkit directories
// (/usr/local/cuda/lib64, /usr/local/cuda/targets/<arch>/lib,
// $CUDA_HOME/lib64, $CUDA_PATH/lib64) and extraDirs, including any
// libnvrtc.so.* found there. The error lists every path tried.
func Load(extraDirs ...string) (*Lib, error) {
	dirs := toolkit.Dirs(extraDirs)
	lib, err := dl.Open(toolkit.Candidates(libraryBase, libraryNames, dirs)...)
	if err != nil {
		return nil, fmt.Errorf("nvrtc: NVRTC library not available (searched the loader path and %s): %w",
			strings.Join(dirs, ", "), err)
	}
	l := &Lib{lib: lib}
	if err := lib.Resolve(l.symbols()); err != nil {
		_ = lib.Close()
		return nil, fmt.Errorf("nvrtc: %w", err)
	}
	return l, nil
}

func (l *Lib) symbols() []dl.Symbol {
	return []dl.Symbol{
		{Name: "nvrtcVersion", Addr: &l.version},
		{Name: "nvrtcGetErrorString", Addr: &l.getErrorString, Optional: true},
		{Name: "nvrtcCreateProgram", Addr: &l.createProgram},
		{Name: "nvrtcDestroyProgram", Addr: &l.destroyProgram},
		{Name: "nvrtcCompileProgram", Addr: &l.compileProgram},
		{Name: "nvrtcGetPTXSize", Addr: &l.getPTXSize},
		{Name: "nvrtcGetPTX", Addr: &l.getPTX},
		{Name: "nvrtcGetCUBINSize", Addr: &l.getCUBINSize, Optional: true},
		{Name: "nvrtcGetCUBIN", Addr: &l.getCUBIN, Optional: true},
		{Name: "nvrtcGetProgramLogSize", Addr: &l.getProgramLogSize},
		{Name: "nvrtcGetProgramLog", Addr: &l.getProgramLog},
		{Name: "nvrtcAddNameExpression", Addr: &l.addNameExpression, Optional: true},
		{Name: "nvrtcGetLoweredName", Addr: &l.getLoweredName, Optional: true},
	}
}

// LibraryName returns the file name NVRTC was opened under.
func (l *Lib) LibraryName() string { return l.lib.Name }

// Close unloads the library. No method may be called afterwards.
func (l *Lib) Close() error {
	if l == nil || l.lib == nil {
		return nil
	}
	return l.lib.Close()
}

// HasCUBIN reports whether nvrtcGetCUBINSize and nvrtcGetCUBIN (CUDA 11.1)
// are exported.
func (l *Lib) HasCUBIN() bool { return l.getCUBINSize != 0 && l.getCUBIN != 0 }

// HasNameExpressions reports whether nvrtcAddNameExpression and
// nvrtcGetLoweredName are exported.
func (l *Lib) HasNameExpressions() bool { return l.addNameExpression != 0 && l.getLoweredName != 0 }

// result converts an nvrtcResult return register: only the low 32 bits are
// defined by the C ABI.
func result(r uintptr) Result { return Result(int32(r)) }

// Each method calls purego.SyscallN directly, converting its pointers in
// the call expression: SyscallN is //go:uintptrescapes, which keeps the
// pointed-to memory alive and in place for the call. Compilation is a cold
// path, so the allocations that costs do not matter. A missing entry point
// (an optional one, or any on a zero Lib) answers EntryPointMissing.

// Version calls nvrtcVersion.
func (l *Lib) Version() (major, minor int32, r Result) {
	if l.version == 0 {
		return 0, 0, EntryPointMissing
	}
	r1, _, _ := purego.SyscallN(l.version, uintptr(unsafe.Pointer(&major)), uintptr(unsafe.Pointer(&minor)))
	return major, minor, result(r1)
}

// GetErrorString calls nvrtcGetErrorString; it falls back to Name when the
// library lacks it.
func (l *Lib) GetErrorString(r Result) string {
	if l.getErrorString == 0 {
		return r.Name()
	}
	p, _, _ := purego.SyscallN(l.getErrorString, uintptr(uint32(r)))
	return dl.GoString(*(*unsafe.Pointer)(unsafe.Pointer(&p)))
}

// CreateProgram calls nvrtcCreateProgram with src and a program name used
// in messages (empty means "default_program"), without headers.
func (l *Lib) CreateProgram(src, name string) (Program, Result) {
	if l.createProgram == 0 {
		return 0, EntryPointMissing
	}
	csrc := dl.CString(src)
	var cname []byte
	if name != "" {
		cname = dl.CString(name)
	}
	var p Program
	r1, _, _ := purego.SyscallN(l.createProgram,
		uintptr(unsafe.Pointer(&p)),
		uintptr(unsafe.Pointer(&csrc[0])),
		uintptr(dl.First(cname)),
		0, // numHeaders
		0, // headers
		0, // includeNames
	)
	return p, result(r1)
}

// DestroyProgram calls nvrtcDestroyProgram.
func (l *Lib) DestroyProgram(p Program) Result {
	if l.destroyProgram == 0 {
		return EntryPointMissing
	}
	r1, _, _ := purego.SyscallN(l.destroyProgram, uintptr(unsafe.Pointer(&p)))
	return result(r1)
}

// CompileProgram calls nvrtcCompileProgram with the options as an array of
// C strings, such as "-arch=sm_90" or "--std=c++17".
func (l *Lib) CompileProgram(p Program, options []string) Result {
	if l.compileProgram == 0 {
		return EntryPointMissing
	}
	strs := make([][]byte, len(options))
	ptrs := make([]*byte, len(options))
	for i, o := range options {
		strs[i] = dl.CString(o)
		ptrs[i] = &strs[i][0]
	}
	r1, _, _ := purego.SyscallN(l.compileProgram, uintptr(p), uintptr(len(ptrs)), uintptr(dl.First(ptrs)))
	return result(r1)
}

// GetPTXSize calls nvrtcGetPTXSize; the size includes the trailing NUL.
func (l *Lib) GetPTXSize(p Program) (uintptr, Result) {
	return l.size(l.getPTXSize, p)
}

// GetPTX calls nvrtcGetPTX, which fills buf (GetPTXSize bytes). An empty
// buf gives InvalidInput without a call.
func (l *Lib) GetPTX(p Program, buf []byte) Result { return l.fill(l.getPTX, p, buf) }

// GetCUBINSize calls nvrtcGetCUBINSize: 0 when the program was compiled for
// a virtual architecture (compute_XX). EntryPointMissing without
// nvrtcGetCUBINSize (see HasCUBIN).
func (l *Lib) GetCUBINSize(p Program) (uintptr, Result) { return l.size(l.getCUBINSize, p) }

// GetCUBIN calls nvrtcGetCUBIN, which fills buf (GetCUBINSize bytes).
func (l *Lib) GetCUBIN(p Program, buf []byte) Result { return l.fill(l.getCUBIN, p, buf) }

// GetProgramLogSize calls nvrtcGetProgramLogSize; the size includes the
// trailing NUL.
func (l *Lib) GetProgramLogSize(p Program) (uintptr, Result) {
	return l.size(l.getProgramLogSize, p)
}

// GetProgramLog calls nvrtcGetProgramLog, which fills buf.
func (l *Lib) GetProgramLog(p Program, buf []byte) Result { return l.fill(l.getProgramLog, p, buf) }

// AddNameExpression calls nvrtcAddNameExpression before compilation, for a
// __global__ function or __device__/__constant__ variable expression such as
// "&kernel<float>".
func (l *Lib) AddNameExpression(p Program, expr string) Result {
	if l.addNameExpression == 0 {
		return EntryPointMissing
	}
	cexpr := dl.CString(expr)
	r1, _, _ := purego.SyscallN(l.addNameExpression, uintptr(p), uintptr(unsafe.Pointer(&cexpr[0])))
	return result(r1)
}

// GetLoweredName calls nvrtcGetLoweredName after compilation: the mangled
// name of an expression given to AddNameExpression.
func (l *Lib) GetLoweredName(p Program, expr string) (string, Result) {
	if l.getLoweredName == 0 {
		return "", EntryPointMissing
	}
	cexpr := dl.CString(expr)
	var lowered unsafe.Pointer // const char*, owned by the program
	r1, _, _ := purego.SyscallN(l.getLoweredName, uintptr(p), uintptr(unsafe.Pointer(&cexpr[0])), uintptr(unsafe.Pointer(&lowered)))
	return dl.GoString(lowered), result(r1)
}

// size runs an nvrtcGet*Size function.
func (l *Lib) size(fn uintptr, p Program) (uintptr, Result) {
	if fn == 0 {
		return 0, EntryPointMissing
	}
	var n uintptr
	r1, _, _ := purego.SyscallN(fn, uintptr(p), uintptr(unsafe.Pointer(&n)))
	return n, result(r1)
}

// fill runs an nvrtcGet* function that copies into a caller's buffer.
func (l *Lib) fill(fn uintptr, p Program, buf []byte) Result {
	if fn == 0 {
		return EntryPointMissing
	}
	if len(buf) == 0 {
		return InvalidInput
	}
	r1, _, _ := purego.SyscallN(fn, uintptr(p), uintptr(unsafe.Pointer(&buf[0])))
	return result(r1)
}

// fetch runs the size-then-data protocol of the nvrtcGet* pairs.
func (l *Lib) fetch(sizeFn, dataFn uintptr, p Program) ([]byte, Result) {
	n, r := l.size(sizeFn, p)
	if r != Success || n == 0 {
		return nil, r
	}
	buf := make([]byte, n)
	if r := l.fill(dataFn, p, buf); r != Success {
		return nil, r
	}
	return buf, Success
}

// PTX returns the program's PTX without its trailing NUL.
func (l *Lib) PTX(p Program) ([]byte, Result) {
	b, r := l.fetch(l.getPTXSize, l.getPTX, p)
	return trimNUL(b), r
}

// CUBIN returns the program's cubin; nil (and Success) when it was compiled
// for a virtual architecture.
func (l *Lib) CUBIN(p Program) ([]byte, Result) { return l.fetch(l.getCUBINSize, l.getCUBIN, p) }

// ProgramLog returns the compiler's log for p, without the trailing NUL and
// blanks.
func (l *Lib) ProgramLog(p Program) (string, Result) {
	b, r := l.fetch(l.getProgramLogSize, l.getProgramLog, p)
	return strings.TrimRight(string(trimNUL(b)), " \t\r\n"), r
}

// Compile compiles CUDA C++ src (named name in messages) with options. It
// returns the PTX (without a trailing NUL) and, when options ask for a real
// architecture (-arch=sm_XX or --gpu-architecture=sm_XX) and the library
// has nvrtcGetCUBIN, the cubin. log is the compiler's log, which may hold
// warnings even on success. A failure is an *Error carrying the log.
func (l *Lib) Compile(src, name string, options []string) (ptx, cubin []byte, log string, err error) {
	p, r := l.CreateProgram(src, name)
	if r != Success {
		return nil, nil, "", &Error{Op: "nvrtcCreateProgram", Result: r}
	}
	defer l.DestroyProgram(p)
	rc := l.CompileProgram(p, options)
	log, _ = l.ProgramLog(p)
	if rc != Success {
		return nil, nil, log, &Error{Op: "nvrtcCompileProgram", Result: rc, Log: log}
	}
	wantCubin := realArch(options) && l.HasCUBIN()
	ptx, r = l.PTX(p)
	if r != Success && !wantCubin {
		return nil, nil, log, &Error{Op: "nvrtcGetPTX", Result: r, Log: log}
	}
	if wantCubin {
		if cubin, r = l.CUBIN(p); r != Success {
			return nil, nil, log, &Error{Op: "nvrtcGetCUBIN", Result: r, Log: log}
		}
	}
	return ptx, cubin, log, nil
}

// realArch reports whether options name a real GPU architecture (sm_XX),
// for which NVRTC also produces a cubin.
func realArch(options []string) bool {
	for i, o := range options {
		for _, flag := range []string{"-arch", "--gpu-architecture"} {
			v, ok := strings.CutPrefix(o, flag)
			if !ok {
				continue
			}
			switch {
			case strings.HasPrefix(v, "="):
				v = v[1:]
			case v == "" && i+1 < len(options):
				v = options[i+1]
			default:
				continue
			}
			if strings.HasPrefix(v, "sm_") {
				return true
			}
		}
	}
	return false
}

// trimNUL drops trailing NUL bytes.
func trimNUL(b []byte) []byte {
	for len(b) > 0 && b[len(b)-1] == 0 {
		b = b[:len(b)-1]
	}
	return b
}
