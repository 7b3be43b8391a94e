package cu

import (
	"runtime"
	"strings"
	"unsafe"

	"github.com/gour-dev/gour/internal/dl"
)

// LogBufferSize is the size of each JIT log buffer ModuleLoadDataEx and Link
// hand the driver; longer logs are cut.
const LogBufferSize = 64 << 10

// JitOptionValue is one JIT option with its value, for Link. Integer values
// are stored in Value itself; a buffer goes by address and must stay alive
// (and unmoved: pin it) until the call that uses it returns.
type JitOptionValue struct {
	Option JitOption
	Value  uintptr
}

// ModuleLoadData calls cuModuleLoadData with a cubin, fatbin or PTX image
// in the current context. PTX is passed NUL-terminated (a copy gets the NUL
// when image lacks it). An empty image gives InvalidValue without a call.
func (l *Lib) ModuleLoadData(image []byte) (Module, Result) {
	img := cImage(image)
	if len(img) == 0 {
		return 0, InvalidValue
	}
	f := dl.NewFrame()
	f.Args = dl.Args{f.Out(0), f.Ptr(0, unsafe.Pointer(&img[0]))}
	r, out, _ := call(f, l.moduleLoadData)
	return Module(out[0]), r
}

// ModuleLoadDataWithOptions calls cuModuleLoadDataEx with JIT options and
// their values (void* slots, see JitOption). The driver writes the output
// options (log sizes, wall time) back into values. Pointers stored in values
// must stay alive and pinned during the call. Lists of different lengths or
// an empty image give InvalidValue without a call.
func (l *Lib) ModuleLoadDataWithOptions(image []byte, options []JitOption, values []uintptr) (Module, Result) {
	img := cImage(image)
	if len(img) == 0 || len(options) != len(values) {
		return 0, InvalidValue
	}
	f := dl.NewFrame()
	f.Args = dl.Args{
		f.Out(0),
		f.Ptr(0, unsafe.Pointer(&img[0])),
		uintptr(len(options)),
		f.Ptr(1, dl.First(options)),
		f.Ptr(2, dl.First(values)),
	}
	r, out, _ := call(f, l.moduleLoadDataEx)
	return Module(out[0]), r
}

// ModuleLoadDataEx loads image like ModuleLoadData. With withLogs it passes
// LogBufferSize-byte info and error log buffers (CU_JIT_INFO_LOG_BUFFER,
// CU_JIT_ERROR_LOG_BUFFER) and returns what the JIT wrote there, trimmed;
// a PTX error such as InvalidPTX comes with the ptxas message in errorLog.
func (l *Lib) ModuleLoadDataEx(image []byte, withLogs bool) (m Module, infoLog, errorLog string, r Result) {
	if !withLogs {
		m, r = l.ModuleLoadDataWithOptions(image, nil, nil)
		return m, "", "", r
	}
	info := make([]byte, LogBufferSize)
	errs := make([]byte, LogBufferSize)
	var pin runtime.Pinner
	pin.Pin(&info[0])
	pin.Pin(&errs[0])
	defer pin.Unpin()
	options := []JitOption{JitInfoLogBuffer, JitInfoLogBufferSizeBytes, JitErrorLogBuffer, JitErrorLogBufferSizeBytes}
	values := []uintptr{uintptr(unsafe.Pointer(&info[0])), LogBufferSize, uintptr(unsafe.Pointer(&errs[0])), LogBufferSize}
	m, r = l.ModuleLoadDataWithOptions(image, options, values)
	return m, trimLog(info), trimLog(errs), r
}

// ModuleUnload calls cuModuleUnload.
func (l *Lib) ModuleUnload(m Module) Result { return call1(l.moduleUnload, uintptr(m)) }

// ModuleGetFunction calls cuModuleGetFunction; NotFound when m has no
// kernel of that (mangled) name.
func (l *Lib) ModuleGetFunction(m Module, name string) (Function, Result) {
	n := dl.CString(name)
	f := dl.NewFrame()
	f.Args = dl.Args{f.Out(0), uintptr(m), f.Ptr(0, unsafe.Pointer(&n[0]))}
	r, out, _ := call(f, l.moduleGetFunction)
	return Function(out[0]), r
}

// ModuleGetGlobal calls cuModuleGetGlobal_v2: the address and size of a
// __device__ or __constant__ variable. NotSupported when missing (see
// HasModuleGetGlobal).
func (l *Lib) ModuleGetGlobal(m Module, name string) (DevicePtr, uint64, Result) {
	n := dl.CString(name)
	f := dl.NewFrame()
	f.Args = dl.Args{f.Out(0), f.Out(1), uintptr(m), f.Ptr(0, unsafe.Pointer(&n[0]))}
	r, out, _ := call(f, l.moduleGetGlobal)
	return DevicePtr(out[0]), out[1], r
}

// ModuleGetFunctionCount calls cuModuleGetFunctionCount (CUDA 12.4).
// NotSupported when missing (see HasModuleEnumerateFunctions).
func (l *Lib) ModuleGetFunctionCount(m Module) (uint32, Result) {
	f := dl.NewFrame()
	f.Args = dl.Args{f.Out(0), uintptr(m)}
	r, out, _ := call(f, l.moduleGetFunctionCount)
	return uint32(int32At(&out[0])), r
}

// ModuleEnumerateFunctions calls cuModuleEnumerateFunctions (CUDA 12.4),
// filling fns with up to len(fns) kernels of m.
func (l *Lib) ModuleEnumerateFunctions(m Module, fns []Function) Result {
	f := dl.NewFrame()
	f.Args = dl.Args{f.Ptr(0, dl.First(fns)), uintptr(uint32(len(fns))), uintptr(m)}
	r, _, _ := call(f, l.moduleEnumerateFunctions)
	return r
}

// ModuleFunctions returns every kernel of m (CUDA 12.4 drivers).
func (l *Lib) ModuleFunctions(m Module) ([]Function, Result) {
	n, r := l.ModuleGetFunctionCount(m)
	if r != Success || n == 0 {
		return nil, r
	}
	fns := make([]Function, n)
	if r := l.ModuleEnumerateFunctions(m, fns); r != Success {
		return nil, r
	}
	return fns, Success
}

// FuncGetName calls cuFuncGetName (CUDA 12.3): the kernel's (mangled)
// name. NotSupported when missing (see HasFuncGetName).
func (l *Lib) FuncGetName(fn Function) (string, Result) {
	f := dl.NewFrame()
	f.Args = dl.Args{f.OutPtr(), uintptr(fn)}
	r, _, p := call(f, l.funcGetName)
	return dl.GoString(p), r
}

// FuncGetAttribute calls cuFuncGetAttribute.
func (l *Lib) FuncGetAttribute(attr FunctionAttribute, fn Function) (int32, Result) {
	f := dl.NewFrame()
	f.Args = dl.Args{f.Out(0), uintptr(attr), uintptr(fn)}
	r, out, _ := call(f, l.funcGetAttribute)
	return int32At(&out[0]), r
}

// FuncSetAttribute calls cuFuncSetAttribute, for the settable attributes
// such as FuncAttributeMaxDynamicSharedSizeBytes.
func (l *Lib) FuncSetAttribute(fn Function, attr FunctionAttribute, value int32) Result {
	f := dl.NewFrame()
	f.Args = dl.Args{uintptr(fn), uintptr(attr), uintptr(value)}
	r, _, _ := call(f, l.funcSetAttribute)
	return r
}

// FuncGetParamInfo calls cuFuncGetParamInfo (CUDA 12.4): the byte offset
// and size of kernel parameter index in the parameter buffer. An index past
// the last parameter gives an error (InvalidValue). NotSupported when
// missing (see HasFuncGetParamInfo).
func (l *Lib) FuncGetParamInfo(fn Function, index uintptr) (offset, size uintptr, r Result) {
	f := dl.NewFrame()
	f.Args = dl.Args{uintptr(fn), index, f.Out(0), f.Out(1)}
	r, out, _ := call(f, l.funcGetParamInfo)
	return uintptr(out[0]), uintptr(out[1]), r
}

// FuncLoad calls cuFuncLoad: it loads fn's code onto the device now, where
// lazy loading (CUDA_MODULE_LOADING=LAZY, the default since CUDA 12.2)
// would load it at its first launch, waiting there for the device to drain
// with the context's lock held. NotSupported when missing (see
// HasFuncLoad).
func (l *Lib) FuncLoad(fn Function) Result {
	f := dl.NewFrame()
	f.Args = dl.Args{uintptr(fn)}
	r, _, _ := call(f, l.funcLoad)
	return r
}

// ParamInfo is where one kernel parameter lies in the parameter buffer.
type ParamInfo struct {
	Offset, Size uintptr
}

// FuncParams returns the layout of every parameter of fn, asking
// FuncGetParamInfo for index 0, 1, ... until the driver answers
// InvalidValue. maxParams bounds the walk.
func (l *Lib) FuncParams(fn Function, maxParams int) ([]ParamInfo, Result) {
	var params []ParamInfo
	for i := range maxParams {
		off, size, r := l.FuncGetParamInfo(fn, uintptr(i))
		if r == InvalidValue {
			return params, Success
		}
		if r != Success {
			return nil, r
		}
		params = append(params, ParamInfo{Offset: off, Size: size})
	}
	return params, Success
}

// OccupancyMaxPotentialBlockSize calls cuOccupancyMaxPotentialBlockSize
// without a dynamic-shared-memory callback: the block size that maximizes
// occupancy for dynamicSMem bytes of dynamic shared memory per block, and
// the minimum grid size that fills the device. blockSizeLimit 0 means no
// limit. NotSupported when missing (see HasOccupancy).
func (l *Lib) OccupancyMaxPotentialBlockSize(fn Function, dynamicSMem uintptr, blockSizeLimit int32) (minGridSize, blockSize int32, r Result) {
	f := dl.NewFrame()
	f.Args = dl.Args{f.Out(0), f.Out(1), uintptr(fn), 0, dynamicSMem, uintptr(blockSizeLimit)}
	r, out, _ := call(f, l.occupancyMaxPotentialBlock)
	return int32At(&out[0]), int32At(&out[1]), r
}

// cImage returns image as C expects it: a PTX image (anything that is not
// an ELF cubin or a fatbin) NUL-terminated, copied when the NUL is missing.
func cImage(image []byte) []byte {
	if len(image) == 0 || image[len(image)-1] == 0 || isBinaryImage(image) {
		return image
	}
	b := make([]byte, len(image)+1)
	copy(b, image)
	return b
}

// isBinaryImage reports whether image starts like an ELF cubin or a fatbin
// (fatbin data header 0xBA55ED50, fatbin wrapper 0x466243B1, little-endian).
func isBinaryImage(image []byte) bool {
	if len(image) < 4 {
		return false
	}
	switch string(image[:4]) {
	case "\x7fELF", "\x50\xed\x55\xba", "\xb1\x43\x62\x46":
		return true
	}
	return false
}

// trimLog decodes a log buffer the JIT filled: the text before the first
// NUL, without trailing blanks.
func trimLog(b []byte) string {
	return strings.TrimRight(dl.BufString(b), " \t\r\n")
}
