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
	insts, err := c.instantiations(parsed)
	if err != nil {
		return nil, err
	}
	var kernels []entry
	for fn, fd := range c.funcs {
		generic := fn.Type().(*types.Signature).TypeParams().Len() != 0
		if generic && isKernel(fn) && fn.Exported() {
			// Each instantiation the package declares is a kernel.
			for _, e := range insts[fn] {
				if len(names) == 0 || slices.Contains(names, e.name) {
					kernels = append(kernels, e)
				}
			}
			if len(names) == 0 || !slices.Contains(names, fn.Name()) {
				continue
			}
		}
		if len(names) > 0 && !slices.Contains(names, fn.Name()) || len(names) == 0 && !(isKernel(fn) && fn.Exported() && !generic) {
			continue
		}
		if !isKernel(fn) {
			return nil, c.errorf(fd.Name, "kernel %s: its first parameter must be a kern.Item", fn.Name())
		}
		kernels = append(kernels, entry{fd: fd, name: fn.Name()})
	}
	if len(kernels) == 0 {
		return nil, &CompileError{Msg: "no kernel functions (exported functions whose first parameter is a kern.Item)"}
	}
	for _, n := range names {
		if !slices.ContainsFunc(kernels, func(e entry) bool { return e.name == n }) {
			return nil, &CompileError{Msg: fmt.Sprintf("no function %s in the package", n)}
		}
	}
	sort.Slice(kernels, func(i, j int) bool { return kernels[i].name < kernels[j].name })
	for i := 1; i < len(kernels); i++ {
		if kernels[i].name == kernels[i-1].name {
			return nil, c.errorf(kernels[i].fd.Name, "two kernels are called %s: an instantiation's name is its function's and its type arguments', joined by _", kernels[i].name)
		}
	}
	m := &Module{Hash: hex.EncodeToString(h.Sum(nil))}
	for _, debug := range []bool{false, true} {
		for _, lang := range []lang{langOpenCL, langCUDA} {
			// Each kernel is compiled on its own, into the chunks of its
			// own translation unit; the module's source is their union,
			// and each kernel's spans pick its chunks out of it.
			c.lang, c.debug, c.sites, c.siteIndex = lang, debug, nil, map[string]int{}
			var units [][]chunk
			for i, fd := range kernels {
				c.done, c.helpers, c.protos, c.bodies = map[string]bool{}, nil, nil, nil
				c.types, c.typeDone = nil, map[string]bool{}
				c.usesFP64, c.needInt64Atomics, c.usesHalf, c.needs, c.usesDynamic = false, false, false, 0, false
				info, err := c.kernel(fd.fd, fd.targs, fd.name)
				if err != nil {
					return nil, err
				}
				if lang == langOpenCL && !debug {
					m.Kernels = append(m.Kernels, info)
				}
				ki := &m.Kernels[i]
				if c.usesFP64 {
					ki.Needs |= AspectFP64
				}
				if c.needInt64Atomics && !debug {
					ki.Needs |= AspectAtomic64
				}
				ki.Needs |= c.needs
				units = append(units, c.chunks())
			}
			src, spans, err := link(units)
			if err != nil {
				return nil, err
			}
			for i := range m.Kernels {
				ks := &m.Kernels[i].Source
				switch {
				case lang == langOpenCL && !debug:
					ks.OpenCL = spans[i]
				case !debug:
					ks.CUDA = spans[i]
				case lang == langOpenCL:
					ks.DebugOpenCL = spans[i]
				default:
					ks.DebugCUDA = spans[i]
				}
			}
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
		}
	}
	for _, k := range m.Kernels {
		m.FP64 = m.FP64 || k.Needs&AspectFP64 != 0
		m.Int64Atomics = m.Int64Atomics || k.Needs&AspectAtomic64 != 0
	}
	return m, nil
}

// entry is a kernel: a function, or an instantiation of a generic one
// (its type arguments), and its name.
type entry struct {
	fd    *ast.FuncDecl
	targs []types.Type
	name  string
}

// instantiations are the generic kernels' instantiations the package
// declares, `var _ = Scale[float32]`: each a kernel of its own, named
// Scale_float32 (the function's name and the type arguments', joined by
// _, a qualified one's dot an _ too), compiled as its own specialisation.
func (c *compiler) instantiations(files []*ast.File) (map[*types.Func][]entry, error) {
	insts := map[*types.Func][]entry{}
	for _, f := range files {
		for _, d := range f.Decls {
			gd, ok := d.(*ast.GenDecl)
			if !ok || gd.Tok != token.VAR {
				continue
			}
			for _, spec := range gd.Specs {
				for _, v := range spec.(*ast.ValueSpec).Values {
					id := identOf(v)
					inst, ok := c.info.Instances[id]
					fn, _ := c.info.Uses[id].(*types.Func)
					if !ok || fn == nil || c.funcs[fn] == nil || !isKernel(fn) || !fn.Exported() {
						continue
					}
					e := entry{fd: c.funcs[fn], name: fn.Name()}
					for i := range inst.TypeArgs.Len() {
						t := inst.TypeArgs.At(i)
						e.targs = append(e.targs, t)
						e.name += "_" + strings.NewReplacer(".", "_", " ", "_", "[", "_", "]", "_", "*", "p").Replace(c.goType(t))
					}
					if !slices.ContainsFunc(insts[fn], func(o entry) bool { return o.name == e.name }) {
						insts[fn] = append(insts[fn], e)
					}
				}
			}
		}
	}
	return insts, nil
}

// A chunk is a piece of a translation unit: a pragma, a prelude, a
// helper, a prototype or a function. Its kind orders it: every pragma
// before every prelude, ..., every prototype before every function, so
// that any subset of a module's chunks, in the module's order, is a
// translation unit when the subset is a kernel's own.
type chunk struct {
	kind int
	text string
}

// The kinds of chunk, in the order a translation unit has them.
const (
	chunkHeader = iota
	chunkPragma
	chunkPrelude
	chunkType
	chunkHelper
	chunkProto
	chunkFunc
)

// link is the module's source, the union of the kernels' chunks (each
// once: a device function two kernels call is the same text in both,
// its debug sites numbered by position and its temporaries per
// function), and each kernel's spans in it: [start, end) byte offsets,
// pairwise, whose concatenation is the kernel's own translation unit.
func link(units [][]chunk) (string, [][]int, error) {
	var byKind [chunkFunc + 1][]string
	seen := map[chunk]bool{}
	heads := map[string]string{} // a function's head: its text
	for _, u := range units {
		for _, ch := range u {
			if seen[ch] {
				continue
			}
			seen[ch] = true
			byKind[ch.kind] = append(byKind[ch.kind], ch.text)
			if ch.kind == chunkFunc {
				// Two kernels that emit one function differently would
				// leave the module two definitions of it.
				head, _, _ := strings.Cut(ch.text, "{")
				if other, ok := heads[head]; ok && other != ch.text {
					return "", nil, &CompileError{Msg: "internal error: two definitions of " + strings.TrimSpace(head)}
				}
				heads[head] = ch.text
			}
		}
	}
	var b strings.Builder
	at := map[chunk][2]int{}
	for kind, texts := range byKind {
		for _, t := range texts {
			at[chunk{kind, t}] = [2]int{b.Len(), b.Len() + len(t)}
			b.WriteString(t)
		}
	}
	spans := make([][]int, len(units))
	for i, u := range units {
		var ranges [][2]int
		for _, ch := range u {
			ranges = append(ranges, at[ch])
		}
		sort.Slice(ranges, func(a, b int) bool { return ranges[a][0] < ranges[b][0] })
		var s []int
		for _, r := range ranges {
			if n := len(s); n > 0 && s[n-1] == r[0] {
				s[n-1] = r[1] // adjacent: one span
				continue
			}
			s = append(s, r[0], r[1])
		}
		spans[i] = s
	}
	return b.String(), spans, nil
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
	types    []string        // struct typedefs, inner ones first
	typeDone map[string]bool // struct types emitted, by C name
	helpers  []string        // helper functions (min and max of integers)
	protos   []string
	bodies   []string
	usesFP64 bool
	// per function
	shared map[types.Object]string // shared arrays of the kernel: their lengths in C
	// per kernel: its parameters (past the Item) by index, its body, and
	// its shared arrays sized at launch with their C parameters.
	kparams     map[types.Object]int
	kbody       *ast.BlockStmt
	dynamic     []DynamicShared
	extraParams []string
	usesDynamic bool // CUDA: gour_local, the launch's dynamic shared memory
	// local are the slice parameters of the device function being
	// emitted that a caller gave a shared array (work-group memory).
	local map[types.Object]bool
	depth int
	stack []*types.Func // the device functions being emitted, outermost first
	// debug emits the bounds-checked variant: every slice index checked,
	// the first failure's site (an index into sites) stored through the
	// gok_err parameter every function takes.
	debug     bool
	sites     []string
	siteIndex map[string]int // sites by file:line:col: one number each, whichever kernel emits it
	tmps      int            // temporaries made in the function being emitted, for unique names
	// subst maps the type parameters of the generic device function being
	// emitted to the instantiation's type arguments.
	subst map[*types.TypeParam]types.Type
	done  map[string]bool // device functions emitted, by name (instantiation included)
	// needInt64Atomics: a kernel uses 64-bit atomics (OpenCL's
	// cl_khr_int64_base_atomics).
	needInt64Atomics bool
	usesHalf         bool   // float16 or bfloat16 conversions: halfPrelude
	needs            Aspect // subgroup aspects the kernel being emitted needs
}

func (c *compiler) errorf(n ast.Node, format string, args ...any) error {
	return &CompileError{Pos: c.fset.Position(n.Pos()).String(), Msg: fmt.Sprintf(format, args...)}
}

// cType is t's C type; ok false for a type outside the subset.
func (c *compiler) cType(t types.Type) (string, bool) {
	if _, ok := c.concrete(t).Underlying().(*types.Struct); ok {
		name, err := c.structType(c.concrete(t))
		return name, err == ""
	}
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
func (c *compiler) kernel(fd *ast.FuncDecl, targs []types.Type, name string) (KernelInfo, error) {
	fn := c.info.Defs[fd.Name].(*types.Func)
	sig := fn.Type().(*types.Signature)
	ki := KernelInfo{Name: name}
	if sig.Results().Len() != 0 {
		return ki, c.errorf(fd.Name, "kernel %s returns a value: a kernel returns nothing", fn.Name())
	}
	c.subst = nil
	if tps := sig.TypeParams(); tps.Len() != 0 {
		if len(targs) != tps.Len() {
			return ki, c.errorf(fd.Name, "kernel %s is generic: declare its instantiations (var _ = %s[float32]: a kernel %s_float32 each), or call it from a kernel", fn.Name(), fn.Name(), fn.Name())
		}
		c.subst = map[*types.TypeParam]types.Type{}
		for i := range tps.Len() {
			c.subst[tps.At(i)] = targs[i]
		}
	}
	var params, prologue []string
	for i := 1; i < sig.Params().Len(); i++ {
		p := sig.Params().At(i)
		pt := c.concrete(p.Type())
		switch t := pt.Underlying().(type) {
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
			ki.Params = append(ki.Params, Param{Name: p.Name(), Type: dt, Go: c.goType(pt)})
		case *types.Struct:
			ct, why := c.structType(pt)
			if why != "" {
				return ki, c.errorf(fd.Name, "kernel %s: parameter %s of type %s: %s", fn.Name(), p.Name(), p.Type(), why)
			}
			params = append(params, ct+" "+c.name(p))
			ki.Params = append(ki.Params, Param{Name: p.Name(), Struct: true, Size: int(hostSizes.Sizeof(pt)), Go: c.goType(pt)})
		default:
			return ki, c.errorf(fd.Name, "kernel %s: parameter %s of type %s: a kernel takes numbers, bools, structs of numbers and slices of numbers", fn.Name(), p.Name(), p.Type())
		}
	}
	c.shared, c.tmps, c.dynamic, c.extraParams, c.kbody = map[types.Object]string{}, 0, nil, nil, fd.Body
	c.kparams = map[types.Object]int{}
	for i := 1; i < sig.Params().Len(); i++ {
		c.kparams[sig.Params().At(i)] = i - 1
	}
	body, err := c.block(fd.Body, true)
	if err != nil {
		return ki, err
	}
	ki.Dynamic = c.dynamic
	params = append(params, c.extraParams...) // the dynamic shared arrays, after the kernel's own
	if c.debug {
		params = append(params, c.errParam())
	}
	head := pick(c.lang == langOpenCL, "__kernel void ", `extern "C" __global__ void `) + name + "(" + strings.Join(params, ", ") + ")"
	body = "{\n" + strings.Join(prologue, "") + strings.TrimPrefix(body, "{\n")
	c.bodies = append(c.bodies, head+" "+body)
	return ki, nil
}

// hostSizes is the layout a struct parameter has in Go on the 64-bit
// hosts gour runs on, which is C's (natural alignment): the size a
// launch checks a struct argument against.
var hostSizes = types.SizesFor("gc", "amd64")

// structType is the C type of a struct type of the kernel's package,
// its typedef emitted once (before the prototypes) with its fields in
// Go's order, so that C lays it out as Go does: each field at a multiple
// of its alignment (a number's size; an array's element's), the size a
// multiple of the largest. Its fields are numbers, fixed-size arrays of
// numbers and such structs, named (an embedded field's promotion is
// Go's, not C's); why says what else it holds.
func (c *compiler) structType(t types.Type) (name, why string) {
	n, ok := t.(*types.Named)
	if !ok || n.Obj().Pkg() != c.pkg || n.TypeArgs().Len() != 0 {
		return "", "a struct is a named, non-generic struct type of the kernel's package"
	}
	st := n.Underlying().(*types.Struct)
	name = "gok_s_" + n.Obj().Name()
	if c.typeDone[name] {
		return name, ""
	}
	var fields []string
	for i := range st.NumFields() {
		f := st.Field(i)
		if f.Embedded() {
			return "", fmt.Sprintf("its field %s is embedded: name it", f.Name())
		}
		ft, dims := f.Type(), ""
		for {
			arr, ok := ft.Underlying().(*types.Array)
			if !ok {
				break
			}
			dims += fmt.Sprintf("[%d]", arr.Len())
			ft = arr.Elem()
		}
		var ct string
		switch u := ft.Underlying().(type) {
		case *types.Basic:
			if u.Kind() == types.Bool || elemDType(ft) == 0 && u.Kind() != types.Int16 && u.Kind() != types.Uint16 {
				return "", fmt.Sprintf("its field %s is %s: a struct's fields are numbers, arrays of numbers and such structs", f.Name(), f.Type())
			}
			ct, _ = c.cType(ft)
		case *types.Struct:
			var why string
			if ct, why = c.structType(ft); why != "" {
				return "", fmt.Sprintf("its field %s: %s", f.Name(), why)
			}
		default:
			return "", fmt.Sprintf("its field %s is %s: a struct's fields are numbers, arrays of numbers and such structs", f.Name(), f.Type())
		}
		fields = append(fields, fmt.Sprintf("%s %s%s;", ct, cName(f.Name()), dims))
	}
	if len(fields) == 0 {
		return "", "it has no fields"
	}
	c.typeDone[name] = true
	c.types = append(c.types, "typedef struct { "+strings.Join(fields, " ")+" } "+name+";")
	return name, ""
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
	savedS, savedL, savedD, savedT := c.shared, c.local, c.depth, c.tmps
	c.shared, c.local, c.depth, c.tmps = map[types.Object]string{}, locals, 0, 0
	c.stack = append(c.stack, fn)
	body, err := c.block(fd.Body, false)
	c.stack = c.stack[:len(c.stack)-1]
	c.shared, c.local, c.depth, c.tmps = savedS, savedL, savedD, savedT
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
	site := fmt.Sprintf("%s:%d:%d", filepath.Base(pos.Filename), pos.Line, pos.Column)
	k := c.siteIndex[site]
	if k == 0 {
		c.sites = append(c.sites, site)
		k = len(c.sites)
		c.siteIndex[site] = k
	}
	return fmt.Sprintf("%s[gok_chk(%s, %s, %d, gok_err)]", x, i, n, k)
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
func (c *compiler) isShared(o types.Object) bool { return c.shared[o] != "" || c.local[o] }

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

// chunks is the translation unit of the kernel just emitted: pragmas,
// preludes, helpers, prototypes, functions.
func (c *compiler) chunks() []chunk {
	var u []chunk
	add := func(kind int, text string) { u = append(u, chunk{kind, text}) }
	add(chunkHeader, "// Generated by gokernel from Go source; do not edit.\n")
	if c.lang == langOpenCL {
		if c.usesFP64 {
			add(chunkPragma, "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n")
		}
		if c.needInt64Atomics || c.debug {
			add(chunkPragma, "#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable\n")
		}
		for _, ext := range []struct {
			a    Aspect
			name string
		}{{AspectSubgroups, "cl_khr_subgroups"}, {AspectSubgroupShuffle, "cl_khr_subgroup_shuffle"}, {AspectSubgroupBallot, "cl_khr_subgroup_ballot"}} {
			if c.needs&ext.a != 0 {
				add(chunkPragma, "#pragma OPENCL EXTENSION "+ext.name+" : enable\n")
			}
		}
		add(chunkPrelude, clPrelude)
	} else {
		add(chunkPrelude, cudaPrelude)
		if c.usesDynamic {
			add(chunkPrelude, "extern __shared__ unsigned char gour_local[];\n")
		}
		if c.needs&AspectSubgroups != 0 {
			add(chunkPrelude, cudaSubgroup)
		}
	}
	if c.debug {
		add(chunkPrelude, pick(c.lang == langOpenCL, clCheck, cudaCheck))
	}
	if c.usesHalf {
		add(chunkPrelude, c.halfSource())
	}
	for _, t := range c.types {
		add(chunkType, t+"\n")
	}
	for _, h := range c.helpers {
		add(chunkHelper, h+"\n")
	}
	for _, p := range c.protos {
		add(chunkProto, p+"\n")
	}
	for _, f := range c.bodies {
		add(chunkFunc, f+"\n")
	}
	return u
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

// cudaSubgroup is what CUDA's subgroup operations need: a warp is
// subgroup, of the consecutive work-items of the block's linear thread
// index, the last one partial where the block's size is not a multiple
// of 32, its lanes in gok_sg_mask.
const cudaSubgroup = `__device__ inline unsigned int gok_sg_lin() { return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z); }
__device__ inline unsigned int gok_sg_size() {
	unsigned int n = blockDim.x * blockDim.y * blockDim.z - (gok_sg_lin() & ~31u);
	return n < 32u ? n : 32u;
}
__device__ inline unsigned int gok_sg_mask() { unsigned int n = gok_sg_size(); return n == 32u ? 0xffffffffu : (1u << n) - 1u; }
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
const clCheck = `#define gok_chk(i, n, site, err) gok_check((long)(i), (long)(n), site, err)
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
func (c *compiler) name(o types.Object) string { return cName(o.Name()) }

func cName(n string) string {
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
