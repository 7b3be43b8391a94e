package gokernel

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/gour-dev/gour/dtype"
)

// kernPath is the import path of the intrinsics.
const kernPath = "github.com/gour-dev/gour/gokernel/kern"

// File is one Go source file of a kernel package.
type File struct {
	Name string
	Src  []byte
}

// Compile type-checks the Go files of one package and compiles its
// kernels — the exported functions whose first parameter is a kern.Item,
// or those named, if names are given — with the functions they call
// (device functions, which may take the kern.Item too), to OpenCL C
// and CUDA C. Anything outside the subset the package documents is a
// *CompileError naming the file, line and column and the reason; so is a
// Go type error. Imports are type-checked from source, so Compile runs
// where the Go tool and the module's sources are (go generate, tests).
func Compile(files []File, names ...string) (*Module, error) {
	fset := token.NewFileSet()
	var parsed []*ast.File
	h := sha256.New()
	for _, f := range files {
		af, err := parser.ParseFile(fset, f.Name, f.Src, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			return nil, &CompileError{Msg: err.Error()}
		}
		parsed = append(parsed, af)
		fmt.Fprintf(h, "%s\x00%d\x00", filepath.Base(f.Name), len(f.Src))
		h.Write(f.Src)
	}
	if len(parsed) == 0 {
		return nil, &CompileError{Msg: "no Go files"}
	}
	info := &types.Info{
		Types:      map[ast.Expr]types.TypeAndValue{},
		Defs:       map[*ast.Ident]types.Object{},
		Uses:       map[*ast.Ident]types.Object{},
		Instances:  map[*ast.Ident]types.Instance{},
		Selections: map[*ast.SelectorExpr]*types.Selection{},
	}
	var typeErr error
	sourceImporter.Lock()
	defer sourceImporter.Unlock()
	if sourceImporter.imp == nil {
		sourceImporter.imp = importer.ForCompiler(token.NewFileSet(), "source", nil)
	}
	conf := types.Config{Importer: sourceImporter.imp, Error: func(err error) {
		if typeErr == nil {
			typeErr = err
		}
	}}
	pkg, _ := conf.Check(parsed[0].Name.Name, fset, parsed, info)
	if typeErr != nil {
		return nil, &CompileError{Msg: typeErr.Error()}
	}
	c := &compiler{fset: fset, info: info, pkg: pkg, funcs: map[*types.Func]*ast.FuncDecl{}}
	for _, f := range parsed {
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv == nil && fd.Body != nil {
				c.funcs[info.Defs[fd.Name].(*types.Func)] = fd
			}
		}
	}
	var kernels []*ast.FuncDecl
	for fn, fd := range c.funcs {
		generic := fn.Type().(*types.Signature).TypeParams().Len() != 0
		if len(names) > 0 && !slices.Contains(names, fn.Name()) || len(names) == 0 && !(isKernel(fn) && fn.Exported() && !generic) {
			continue
		}
		if !isKernel(fn) {
			return nil, c.errorf(fd.Name, "kernel %s: its first parameter must be a kern.Item", fn.Name())
		}
		kernels = append(kernels, fd)
	}
	if len(kernels) == 0 {
		return nil, &CompileError{Msg: "no kernel functions (exported functions whose first parameter is a kern.Item)"}
	}
	for _, n := range names {
		if !slices.ContainsFunc(kernels, func(fd *ast.FuncDecl) bool { return fd.Name.Name == n }) {
			return nil, &CompileError{Msg: fmt.Sprintf("no function %s in the package", n)}
		}
	}
	sort.Slice(kernels, func(i, j int) bool { return kernels[i].Name.Name < kernels[j].Name.Name })
	m := &Module{Hash: hex.EncodeToString(h.Sum(nil))}
	for _, debug := range []bool{false, true} {
		for _, lang := range []lang{langOpenCL, langCUDA} {
			c.lang, c.debug, c.done, c.protos, c.bodies = lang, debug, map[string]bool{}, nil, nil
			c.usesFP64, c.sites, c.needInt64Atomics, c.usesHalf = false, nil, false, false
			for _, fd := range kernels {
				info, err := c.kernel(fd)
				if err != nil {
					return nil, err
				}
				if lang == langOpenCL && !debug {
					m.Kernels = append(m.Kernels, info)
				}
			}
			src := c.source()
			switch {
			case lang == langOpenCL && !debug:
				m.OpenCL = src
			case !debug:
				m.CUDA = src
			case lang == langOpenCL:
				m.DebugOpenCL, m.DebugSites = src, c.sites
			default:
				m.DebugCUDA = src
			}
			m.FP64 = m.FP64 || c.usesFP64
			m.Int64Atomics = m.Int64Atomics || c.needInt64Atomics && !debug
		}
	}
	return m, nil
}

// sourceImporter type-checks the kernels' imports (kern, math) from
// source once a process: an importer is not safe for concurrent use.
var sourceImporter struct {
	sync.Mutex
	imp types.Importer
}

// CompileError is a kernel the compiler refuses: its position and why.
type CompileError struct {
	Pos string // file:line:col, empty when the error has none of its own
	Msg string
}

func (e *CompileError) Error() string {
	if e.Pos == "" {
		return "gokernel: " + e.Msg
	}
	return "gokernel: " + e.Pos + ": " + e.Msg
}

// isKernel reports whether fn's first parameter is a kern.Item.
func isKernel(fn *types.Func) bool {
	p := fn.Type().(*types.Signature).Params()
	return p.Len() > 0 && isItem(p.At(0).Type())
}

func isItem(t types.Type) bool { return isKern(t, "Item") }

// isKern reports whether t is package kern's type called name.
func isKern(t types.Type, name string) bool {
	n, ok := t.(*types.Named)
	return ok && n.Obj().Name() == name && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == kernPath
}

type lang int

const (
	langOpenCL lang = iota
	langCUDA
)

// compiler emits one language at a time.
type compiler struct {
	fset  *token.FileSet
	info  *types.Info
	pkg   *types.Package
	funcs map[*types.Func]*ast.FuncDecl

	lang     lang
	protos   []string
	bodies   []string
	usesFP64 bool
	// per function
	shared map[types.Object]int64 // shared arrays of the kernel: their lengths
	// local are the slice parameters of the device function being
	// emitted that a caller gave a shared array (work-group memory).
	local map[types.Object]bool
	depth int
	stack []*types.Func // the device functions being emitted, outermost first
	// debug emits the bounds-checked variant: every slice index checked,
	// the first failure's site (an index into sites) stored through the
	// gok_err parameter every function takes.
	debug bool
	sites []string
	tmps  int // temporaries made, for unique names
	// subst maps the type parameters of the generic device function being
	// emitted to the instantiation's type arguments.
	subst map[*types.TypeParam]types.Type
	done  map[string]bool // device functions emitted, by name (instantiation included)
	// needInt64Atomics: a kernel uses 64-bit atomics (OpenCL's
	// cl_khr_int64_base_atomics).
	needInt64Atomics bool
	usesHalf         bool // float16 or bfloat16 conversions: halfPrelude
}

func (c *compiler) errorf(n ast.Node, format string, args ...any) error {
	return &CompileError{Pos: c.fset.Position(n.Pos()).String(), Msg: fmt.Sprintf(format, args...)}
}

// cType is t's C type; ok false for a type outside the subset.
func (c *compiler) cType(t types.Type) (string, bool) {
	b, ok := c.concrete(t).Underlying().(*types.Basic)
	if !ok {
		return "", false
	}
	cl := c.lang == langOpenCL
	switch b.Kind() {
	case types.Int, types.Int64:
		return pick(cl, "long", "long long"), true
	case types.Uint, types.Uint64, types.Uintptr:
		return pick(cl, "ulong", "unsigned long long"), true
	case types.Int32:
		return "int", true
	case types.Uint32:
		return pick(cl, "uint", "unsigned int"), true
	case types.Int16:
		return "short", true
	case types.Uint16:
		return pick(cl, "ushort", "unsigned short"), true
	case types.Int8:
		return "char", true
	case types.Uint8:
		return pick(cl, "uchar", "unsigned char"), true
	case types.Float32:
		return "float", true
	case types.Float64:
		c.usesFP64 = true
		return "double", true
	case types.Bool:
		return "bool", true
	}
	return "", false
}

func pick(cl bool, a, b string) string {
	if cl {
		return a
	}
	return b
}

// elemDType is the dtype of a slice element type.
func elemDType(t types.Type) dtype.Type {
	switch {
	case isKern(t, "Float16"):
		return dtype.Float16
	case isKern(t, "BFloat16"):
		return dtype.BFloat16
	}
	b, ok := t.Underlying().(*types.Basic)
	if !ok {
		return 0
	}
	switch b.Kind() {
	case types.Int8:
		return dtype.Int8
	case types.Uint8:
		return dtype.Uint8
	case types.Int32:
		return dtype.Int32
	case types.Uint32:
		return dtype.Uint32
	case types.Int, types.Int64:
		return dtype.Int64
	case types.Uint, types.Uint64:
		return dtype.Uint64
	case types.Float32:
		return dtype.Float32
	case types.Float64:
		return dtype.Float64
	}
	return 0
}

// kernel emits fd as a kernel, with the device functions it calls.
func (c *compiler) kernel(fd *ast.FuncDecl) (KernelInfo, error) {
	fn := c.info.Defs[fd.Name].(*types.Func)
	sig := fn.Type().(*types.Signature)
	ki := KernelInfo{Name: fn.Name()}
	if sig.Results().Len() != 0 {
		return ki, c.errorf(fd.Name, "kernel %s returns a value: a kernel returns nothing", fn.Name())
	}
	if sig.TypeParams().Len() != 0 {
		return ki, c.errorf(fd.Name, "kernel %s is generic: instantiate it in a non-generic kernel that calls it", fn.Name())
	}
	var params, prologue []string
	for i := 1; i < sig.Params().Len(); i++ {
		p := sig.Params().At(i)
		switch t := p.Type().Underlying().(type) {
		case *types.Slice:
			ct, ok := c.cType(t.Elem())
			dt := elemDType(t.Elem())
			if !ok || dt == 0 {
				return ki, c.errorf(fd.Name, "kernel %s: parameter %s: slices of %s are not in the subset", fn.Name(), p.Name(), t.Elem())
			}
			params = append(params, pick(c.lang == langOpenCL, "__global ", "")+ct+"* "+c.name(p), c.intType()+" "+c.name(p)+"_len")
			ki.Params = append(ki.Params, Param{Name: p.Name(), Slice: true, Type: dt, Go: c.goType(t.Elem())})
		case *types.Basic:
			if t.Kind() == types.Bool {
				// Kernel arguments cannot be bool in OpenCL C (its size is
				// the implementation's): a byte, made a bool on entry.
				params = append(params, pick(c.lang == langOpenCL, "uchar ", "unsigned char ")+c.name(p)+"_arg")
				prologue = append(prologue, "\tbool "+c.name(p)+" = "+c.name(p)+"_arg != 0;\n")
				ki.Params = append(ki.Params, Param{Name: p.Name(), Type: dtype.Uint8, Go: "bool"})
				continue
			}
			ct, ok := c.cType(t)
			dt := elemDType(t)
			if !ok || dt == 0 {
				return ki, c.errorf(fd.Name, "kernel %s: parameter %s of type %s: a kernel takes numbers, bools and slices of numbers", fn.Name(), p.Name(), p.Type())
			}
			params = append(params, ct+" "+c.name(p))
			ki.Params = append(ki.Params, Param{Name: p.Name(), Type: dt, Go: c.goType(p.Type())})
		default:
			return ki, c.errorf(fd.Name, "kernel %s: parameter %s of type %s: a kernel takes numbers, bools and slices of numbers", fn.Name(), p.Name(), p.Type())
		}
	}
	if c.debug {
		params = append(params, c.errParam())
	}
	head := pick(c.lang == langOpenCL, "__kernel void ", `extern "C" __global__ void `) + fn.Name() + "(" + strings.Join(params, ", ") + ")"
	c.shared = map[types.Object]int64{}
	body, err := c.block(fd.Body, true)
	if err != nil {
		return ki, err
	}
	body = "{\n" + strings.Join(prologue, "") + strings.TrimPrefix(body, "{\n")
	c.bodies = append(c.bodies, head+" "+body)
	return ki, nil
}

// goType is t as the kernel's own package writes it.
func (c *compiler) goType(t types.Type) string {
	return types.TypeString(t, func(p *types.Package) string {
		if p == c.pkg {
			return ""
		}
		return p.Name()
	})
}

// intType is Go's int in C.
func (c *compiler) intType() string { return pick(c.lang == langOpenCL, "long", "long long") }

// deviceFunc emits fn, called from a kernel, once.
// A generic device function is emitted once per instantiation (its type
// arguments in its C name), its type parameters substituted while its
// body is emitted; likewise once for each set of slice parameters given
// shared arrays (local: by parameter index), which OpenCL C declares in
// another address space.
func (c *compiler) deviceFunc(fn *types.Func, at ast.Node, targs []types.Type, local map[int]bool) error {
	name := deviceName(fn, targs, local)
	if c.done[name] {
		return nil
	}
	fd := c.funcs[fn]
	if fd == nil {
		return c.errorf(at, "%s is not a function of the kernel's package: a kernel calls only its package's functions, kern's and the builtins", fn.FullName())
	}
	c.done[name] = true
	sig := fn.Type().(*types.Signature)
	savedSubst := c.subst
	defer func() { c.subst = savedSubst }()
	if tps := sig.TypeParams(); tps.Len() != 0 {
		subst := map[*types.TypeParam]types.Type{}
		for i := range tps.Len() {
			subst[tps.At(i)] = targs[i]
		}
		c.subst = subst
	}
	ret := "void"
	switch sig.Results().Len() {
	case 0:
	case 1:
		t, ok := c.cType(c.concrete(sig.Results().At(0).Type()))
		if !ok {
			return c.errorf(fd.Name, "device function %s returns %s: device functions return one number or nothing", fn.Name(), c.concrete(sig.Results().At(0).Type()))
		}
		ret = t
	default:
		return c.errorf(fd.Name, "device function %s returns %d values: device functions return one number or nothing", fn.Name(), sig.Results().Len())
	}
	var params []string
	locals := map[types.Object]bool{}
	for i := range sig.Params().Len() {
		p := sig.Params().At(i)
		if isItem(p.Type()) {
			continue
		}
		switch t := c.concrete(p.Type()).Underlying().(type) {
		case *types.Slice:
			ct, ok := c.cType(t.Elem())
			if !ok {
				return c.errorf(fd.Name, "device function %s: parameter %s: slices of %s are not in the subset", fn.Name(), p.Name(), t.Elem())
			}
			space := "__global "
			if local[i] {
				space = "__local "
				locals[p] = true
			}
			params = append(params, pick(c.lang == langOpenCL, space, "")+ct+"* "+c.name(p), c.intType()+" "+c.name(p)+"_len")
		default:
			ct, ok := c.cType(c.concrete(p.Type()))
			if !ok {
				return c.errorf(fd.Name, "device function %s: parameter %s of type %s is not in the subset", fn.Name(), p.Name(), p.Type())
			}
			params = append(params, ct+" "+c.name(p))
		}
	}
	if c.debug {
		params = append(params, c.errParam())
	}
	head := pick(c.lang == langOpenCL, "", "__device__ ") + ret + " " + name + "(" + strings.Join(params, ", ") + ")"
	savedS, savedL, savedD := c.shared, c.local, c.depth
	c.shared, c.local, c.depth = map[types.Object]int64{}, locals, 0
	c.stack = append(c.stack, fn)
	body, err := c.block(fd.Body, false)
	c.stack = c.stack[:len(c.stack)-1]
	c.shared, c.local, c.depth = savedS, savedL, savedD
	if err != nil {
		return err
	}
	c.protos = append(c.protos, head+";")
	c.bodies = append([]string{head + " " + body}, c.bodies...)
	return nil
}

// errParam is the debug variant's error record parameter: the first
// failed check's site, the index and the length.
func (c *compiler) errParam() string {
	return pick(c.lang == langOpenCL, "__global long* gok_err", "long long* gok_err")
}

// checked is x[i] of a slice or array of length n, bounds-checked in the
// debug variant: a failed check records its site (first failure wins)
// and reads element 0 instead.
func (c *compiler) checked(at ast.Node, x, i, n string) string {
	if !c.debug {
		return x + "[" + i + "]"
	}
	pos := c.fset.Position(at.Pos())
	c.sites = append(c.sites, fmt.Sprintf("%s:%d:%d", filepath.Base(pos.Filename), pos.Line, pos.Column))
	return fmt.Sprintf("%s[gok_chk(%s, %s, %d, gok_err)]", x, i, n, len(c.sites))
}

// deviceName is fn's name as a device function: apart from the kernels'
// names, since a function taking a kern.Item is a kernel and may be
// called as a device function too.
func deviceName(fn *types.Func, targs []types.Type, local map[int]bool) string {
	name := "gok_f_" + fn.Name()
	for _, t := range targs {
		name += "_" + strings.NewReplacer(" ", "_", "[", "", "]", "_", ".", "_").Replace(t.String())
	}
	for i := range fn.Type().(*types.Signature).Params().Len() {
		if local[i] {
			name += "_l" + strconv.Itoa(i)
		}
	}
	return name
}

// isShared reports whether o is work-group memory: a shared array of the
// kernel, or a device function's slice parameter given one.
func (c *compiler) isShared(o types.Object) bool { return c.shared[o] != 0 || c.local[o] }

// typeOf is e's type, with the type parameters of the generic function
// being emitted substituted.
func (c *compiler) typeOf(e ast.Expr) types.Type { return c.concrete(c.info.TypeOf(e)) }

// concrete is t with the type parameters being emitted substituted.
func (c *compiler) concrete(t types.Type) types.Type {
	if len(c.subst) == 0 || t == nil {
		return t
	}
	switch t := t.(type) {
	case *types.TypeParam:
		if s, ok := c.subst[t]; ok {
			return s
		}
	case *types.Slice:
		return types.NewSlice(c.concrete(t.Elem()))
	case *types.Array:
		return types.NewArray(c.concrete(t.Elem()), t.Len())
	case *types.Pointer:
		return types.NewPointer(c.concrete(t.Elem()))
	}
	return t
}

// source is the translation unit: prelude, prototypes, functions.
func (c *compiler) source() string {
	var b strings.Builder
	b.WriteString("// Generated by gokernel from Go source; do not edit.\n")
	if c.lang == langOpenCL {
		if c.usesFP64 {
			b.WriteString("#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n")
		}
		if c.needInt64Atomics && !c.debug { // the debug prelude enables it
			b.WriteString("#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable\n")
		}
		b.WriteString(clPrelude)
	} else {
		b.WriteString(cudaPrelude)
	}
	if c.debug {
		b.WriteString(pick(c.lang == langOpenCL, clCheck, cudaCheck))
	}
	if c.usesHalf {
		b.WriteString(c.halfSource())
	}
	for _, p := range c.protos {
		b.WriteString(p + "\n")
	}
	for _, f := range c.bodies {
		b.WriteString(f + "\n")
	}
	return b.String()
}

// The preludes: what Go's operators need beyond C's.
const clPrelude = `static inline float gok_atomic_add_f32(volatile __global float* p, float v) {
	union { uint u; float f; } old, nw;
	do { old.f = *p; nw.f = old.f + v; } while (atomic_cmpxchg((volatile __global uint*)p, old.u, nw.u) != old.u);
	return old.f;
}
static inline float gok_atomic_add_f32_local(volatile __local float* p, float v) {
	union { uint u; float f; } old, nw;
	do { old.f = *p; nw.f = old.f + v; } while (atomic_cmpxchg((volatile __local uint*)p, old.u, nw.u) != old.u);
	return old.f;
}
`

const cudaPrelude = `#define GOK_GID(d) ((long long)(d == 0 ? blockIdx.x * blockDim.x + threadIdx.x : d == 1 ? blockIdx.y * blockDim.y + threadIdx.y : blockIdx.z * blockDim.z + threadIdx.z))
#define GOK_LID(d) ((long long)(d == 0 ? threadIdx.x : d == 1 ? threadIdx.y : threadIdx.z))
#define GOK_GRP(d) ((long long)(d == 0 ? blockIdx.x : d == 1 ? blockIdx.y : blockIdx.z))
#define GOK_LSZ(d) ((long long)(d == 0 ? blockDim.x : d == 1 ? blockDim.y : blockDim.z))
#define GOK_NGR(d) ((long long)(d == 0 ? gridDim.x : d == 1 ? gridDim.y : gridDim.z))
#define GOK_GSZ(d) (GOK_LSZ(d) * GOK_NGR(d))
`

// The float16 and bfloat16 conversions, rounding to nearest even, bit
// for bit as package dtype converts (NaN is the quiet NaN of its sign).
// OpenCL C has them for float16 (vload_half, vstore_half_rte: core, no
// fp16 needed); bit operations elsewhere. OpenCL's bfloat16 code keeps to
// 8-, 16- and 32-bit integers: clang narrows masked fields to i15 or i31,
// which llvm-spirv refuses, on the way to SPIR-V.
const clHalf = `static inline float gok_f16_to_f32(ushort h) { return vload_half(0, (const half*)&h); }
static inline ushort gok_f32_to_f16(float f) {
	if (isnan(f)) return (ushort)((as_uint(f) >> 16) & 0x8000) | 0x7e00;
	ushort h;
	vstore_half_rte(f, 0, (half*)&h);
	return h;
}
static inline float gok_bf16_to_f32(ushort h) { return as_float(((uint)h) << 16); }
static inline ushort gok_f32_to_bf16(float f) {
	uint u = as_uint(f);
	if (isnan(f)) return (ushort)(u >> 16) | 0x40;
	u += 0x7fff + ((u >> 16) & 1);
	return (ushort)(u >> 16);
}
`

const cudaHalf = `__device__ inline float gok_f16_to_f32(unsigned short h) {
	unsigned int sign = ((unsigned int)(h & 0x8000)) << 16, e = (h >> 10) & 0x1f, m = h & 0x3ff;
	if (e == 0x1f) return __uint_as_float(sign | 0x7f800000u | (m << 13));
	if (e == 0) { float v = (float)m / 16777216.0f; return sign ? -v : v; }
	return __uint_as_float(sign | ((e + 112u) << 23) | (m << 13));
}
__device__ inline unsigned short gok_f32_to_f16(float f) {
	unsigned int u = __float_as_uint(f), m = u & 0x7fffff;
	unsigned short sign = (unsigned short)((u >> 16) & 0x8000);
	int e = (int)((u >> 23) & 0xff) - 112;
	if ((u & 0x7fffffff) > 0x7f800000u) return sign | 0x7e00;
	if (e >= 31) return sign | 0x7c00;
	if (e <= 0) {
		if (e < -10) return sign;
		m |= 0x800000;
		unsigned int shift = (unsigned int)(14 - e), h = m >> shift, rem = m & ((1u << shift) - 1), mid = 1u << (shift - 1);
		if (rem > mid || (rem == mid && (h & 1))) h++;
		return sign | (unsigned short)h;
	}
	unsigned int h = ((unsigned int)e << 10) | (m >> 13), rem = m & 0x1fff;
	if (rem > 0x1000 || (rem == 0x1000 && (h & 1))) h++;
	return sign | (unsigned short)h;
}
__device__ inline float gok_bf16_to_f32(unsigned short h) { return __uint_as_float(((unsigned int)h) << 16); }
__device__ inline unsigned short gok_f32_to_bf16(float f) {
	unsigned int u = __float_as_uint(f);
	if ((u & 0x7fffffff) > 0x7f800000u) return (unsigned short)(u >> 16) | 0x40;
	u += 0x7fff + ((u >> 16) & 1);
	return (unsigned short)(u >> 16);
}
`

// halfSource is the conversions in the language being emitted.
func (c *compiler) halfSource() string { return pick(c.lang == langOpenCL, clHalf, cudaHalf) }

// The debug variant's check: the first failure's site, index and length
// go to gok_err; the access reads element 0 instead.
const clCheck = `#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable
#define gok_chk(i, n, site, err) gok_check((long)(i), (long)(n), site, err)
static inline long gok_check(long i, long n, long site, __global long* err) {
	if (i >= 0 && i < n) return i;
	if (atom_cmpxchg(&err[0], 0L, site) == 0L) { err[1] = i; err[2] = n; }
	return 0;
}
`

const cudaCheck = `#define gok_chk(i, n, site, err) gok_check((long long)(i), (long long)(n), site, err)
__device__ inline long long gok_check(long long i, long long n, long long site, long long* err) {
	if (i >= 0 && i < n) return i;
	if (atomicCAS((unsigned long long*)&err[0], 0ULL, (unsigned long long)site) == 0ULL) { err[1] = i; err[2] = n; }
	return 0;
}
`

// name is a Go identifier as a C one: C's keywords and the preludes'
// names get a suffix.
func (c *compiler) name(o types.Object) string {
	n := o.Name()
	if cKeywords[n] || strings.HasPrefix(n, "gok_") || strings.HasPrefix(n, "GOK_") {
		return n + "_"
	}
	return n
}

var cKeywords = map[string]bool{}

func init() {
	for _, k := range strings.Fields(`auto char const double enum extern float inline int long register restrict short signed sizeof static
		struct typedef union unsigned void volatile while do goto bool half uint ulong uchar ushort kernel global local constant private
		__kernel __global __local __constant __private new delete class template this namespace using virtual public private protected
		friend operator throw try catch true false signed unsigned min max abs exp log sqrt int2 float2 float4 barrier`) {
		cKeywords[k] = true
	}
}

// PackageName is the package clause of a Go file.
func PackageName(f File) (string, error) {
	af, err := parser.ParseFile(token.NewFileSet(), f.Name, f.Src, parser.PackageClauseOnly)
	if err != nil {
		return "", &CompileError{Msg: err.Error()}
	}
	return af.Name.Name, nil
}
