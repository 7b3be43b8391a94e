package nvrtc

import (
	"fmt"
	"strings"
	"unsafe"

	"github.com/gour-dev/gour/internal/dl"
	"github.com/gour-dev/gour/internal/nvlib"
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

// library is NVRTC as the toolkits this binding knows ship it: CUDA 11.2
// and later name it after the major version only (libnvrtc.so.12), 11.x
// after 11.2.
var library = nvlib.Library{Name: "NVRTC", Base: "libnvrtc.so", Versions: []string{"13", "12", "11.2"}}

// Load opens NVRTC and resolves its entry points (see [nvlib.Load] for
// where it looks: the loader's search path, then /usr/local/cuda,
// $CUDA_HOME, $CUDA_PATH and extraDirs). The error lists every path tried.
func Load(extraDirs ...string) (*Lib, error) { return load(library, extraDirs) }

// load is Load of another description of the library (tests load a
// stand-in).
func load(library nvlib.Library, extraDirs []string) (*Lib, error) {
	l := &Lib{}
	lib, err := nvlib.Load(library, extraDirs, func(*dl.Library) []dl.Symbol { return l.symbols() })
	if err != nil {
		return nil, fmt.Errorf("nvrtc: %w", err)
	}
	l.lib = lib
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

// Each method makes its call through a dl.Frame, as the driver binding
// does: the frame keeps the pointer arguments alive and takes the outputs.
// Compilation is a cold path; what that allocates does not matter.

// call calls fn with f's arguments. A zero fn (an optional entry point the
// library lacks, or any on a zero Lib) answers EntryPointMissing without a
// call.
func call(f *dl.Frame, fn uintptr) (r Result, out [4]uint64, outp unsafe.Pointer) {
	if fn == 0 {
		f.Release()
		return EntryPointMissing, out, nil
	}
	r1, out, outp := f.Call(fn)
	// Only the low 32 bits of the nvrtcResult register are defined.
	return Result(int32(r1)), out, outp
}

// Version calls nvrtcVersion.
func (l *Lib) Version() (major, minor int32, r Result) {
	f := dl.NewFrame()
	f.Args = dl.Args{f.Out(0), f.Out(1)}
	r, out, _ := call(f, l.version)
	return int32(out[0]), int32(out[1]), r
}

// GetErrorString calls nvrtcGetErrorString; it falls back to Name when the
// library lacks it.
func (l *Lib) GetErrorString(r Result) string {
	if l.getErrorString == 0 {
		return r.Name()
	}
	f := dl.NewFrame()
	f.Args[0] = uintptr(uint32(r))
	p, _, _ := f.Call(l.getErrorString) // a static const char*
	return dl.GoString(*(*unsafe.Pointer)(unsafe.Pointer(&p)))
}

// CreateProgram calls nvrtcCreateProgram with src and a program name used
// in messages (empty means "default_program"), without headers.
func (l *Lib) CreateProgram(src, name string) (Program, Result) {
	f := dl.NewFrame()
	f.Args = dl.Args{
		f.Out(0),
		f.Ptr(0, unsafe.Pointer(&dl.CString(src)[0])),
		f.Ptr(1, dl.First(dl.CStringOrNil(name))),
		0, // numHeaders
		0, // headers
		0, // includeNames
	}
	r, out, _ := call(f, l.createProgram)
	return Program(out[0]), r
}

// DestroyProgram calls nvrtcDestroyProgram.
func (l *Lib) DestroyProgram(p Program) Result {
	f := dl.NewFrame()
	f.Args[0] = f.InOut(0, uint64(p)) // nvrtcProgram*
	r, _, _ := call(f, l.destroyProgram)
	return r
}

// CompileProgram calls nvrtcCompileProgram with the options as an array of
// C strings, such as "-arch=sm_90" or "--std=c++17".
func (l *Lib) CompileProgram(p Program, options []string) Result {
	f := dl.NewFrame()
	f.Args = dl.Args{uintptr(p), uintptr(len(options)), f.Ptr(0, dl.First(dl.CStrings(options)))}
	r, _, _ := call(f, l.compileProgram)
	return r
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
	f := dl.NewFrame()
	f.Args = dl.Args{uintptr(p), f.Ptr(0, unsafe.Pointer(&dl.CString(expr)[0]))}
	r, _, _ := call(f, l.addNameExpression)
	return r
}

// GetLoweredName calls nvrtcGetLoweredName after compilation: the mangled
// name of an expression given to AddNameExpression.
func (l *Lib) GetLoweredName(p Program, expr string) (string, Result) {
	f := dl.NewFrame()
	f.Args = dl.Args{uintptr(p), f.Ptr(0, unsafe.Pointer(&dl.CString(expr)[0])), f.OutPtr()}
	r, _, lowered := call(f, l.getLoweredName) // a const char* the program owns
	return dl.GoString(lowered), r
}

// size runs an nvrtcGet*Size function.
func (l *Lib) size(fn uintptr, p Program) (uintptr, Result) {
	f := dl.NewFrame()
	f.Args = dl.Args{uintptr(p), f.Out(0)}
	r, out, _ := call(f, fn)
	return uintptr(out[0]), r
}

// fill runs an nvrtcGet* function that copies into a caller's buffer.
func (l *Lib) fill(fn uintptr, p Program, buf []byte) Result {
	if fn != 0 && len(buf) == 0 {
		return InvalidInput
	}
	f := dl.NewFrame()
	f.Args = dl.Args{uintptr(p), f.Ptr(0, dl.First(buf))}
	r, _, _ := call(f, fn)
	return r
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
	wantCubin := RealArch(options) && l.HasCUBIN()
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

// RealArch reports whether options name a real GPU architecture (sm_XX),
// for which NVRTC also produces a cubin.
func RealArch(options []string) bool {
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
