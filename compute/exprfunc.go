package compute

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"unsafe"

	"github.com/gour-dev/gour/compute/expr"
)

// ExprFunc is a Func written once as an expression (package compute/expr):
// `y = a*x + y`. Its device kernels are generated OpenCL C (on OpenCL and,
// compiled to SPIR-V, on Level Zero) and CUDA C, its CPU side is expr's
// chunked evaluator. Every array and scalar parameter has the element
// type T.
//
// Transform passes the array inputs in the order of their names, sorted
// (Arrays), which is the order of the generated kernel's parameters: for
// `out = a*x + y`, Transform(ctx, f, out, x, y).
type ExprFunc[T Number] struct {
	c      *expr.Compiled
	eval   *expr.Evaluator
	params []T
	key    string
	inputs int // len(c.Arrays()), which copies: Transform asks per call
	// vec4Src is the four-a-work-item kernel's program, made once so
	// that a Transform asking for it allocates nothing.
	vec4Src *kernelSrc
}

// exprKernel is the name of every generated kernel: the Key, which holds
// the expression, tells programs apart.
const exprKernel = "compute_expr"

// Expr compiles src, an assignment `out = expression`, for elements of
// type T, with params (name → value) as its scalar parameters; every other
// name in the expression is an array input. Errors are expr's (*expr.Error,
// with the position and the name), wrapped with ErrInvalid.
func Expr[T Number](src string, params map[string]T) (*ExprFunc[T], error) {
	f, err := expr.Parse(src)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalid, err)
	}
	t := exprType[T]()
	sig := expr.Signature{Out: t, Arrays: map[string]expr.Type{}, Params: map[string]expr.Type{}}
	for name := range params {
		sig.Params[name] = t
	}
	// The arrays are the names the checker does not know: ask it, one
	// unknown name at a time.
	for {
		c, err := f.Check(sig)
		if err == nil {
			return newExprFunc(c, params)
		}
		var e *expr.Error
		if !errors.As(err, &e) || !strings.HasPrefix(e.Msg, "unknown name") || e.Name == "" || sig.Arrays[e.Name] != 0 {
			return nil, fmt.Errorf("%w: %w", ErrInvalid, err)
		}
		sig.Arrays[e.Name] = t
	}
}

func newExprFunc[T Number](c *expr.Compiled, params map[string]T) (*ExprFunc[T], error) {
	ev, err := c.Evaluator()
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalid, err)
	}
	f := &ExprFunc[T]{c: c, eval: ev, key: "compute/" + c.Key(), inputs: len(c.Arrays())}
	f.vec4Src = &kernelSrc{key: f.key + "/v4", source: sourceFunc(f.vec4Source), fp64: typeOf[T]().fp64}
	for _, name := range c.Params() {
		f.params = append(f.params, params[name])
	}
	return f, nil
}

// exprType is T's expr.Type.
func exprType[T Number]() expr.Type {
	switch typeOf[T]() {
	case typeF32:
		return expr.Float32
	case typeF64:
		return expr.Float64
	case typeI32:
		return expr.Int32
	case typeU32:
		return expr.Uint32
	case typeI64:
		return expr.Int64
	}
	return expr.Uint64
}

// With returns a copy of f with new parameter values (name → value);
// names it does not have are an error. The kernels are the same.
func (f *ExprFunc[T]) With(params map[string]T) (*ExprFunc[T], error) {
	if f == nil {
		return nil, fmt.Errorf("%w: nil *ExprFunc", ErrInvalid)
	}
	g := *f
	g.params = slices.Clone(f.params)
	names := f.c.Params()
	for name, v := range params {
		i := slices.Index(names, name)
		if i < 0 {
			return nil, fmt.Errorf("%w: %s has no parameter %q (parameters: %s)", ErrInvalid, f.c, name, strings.Join(names, ", "))
		}
		g.params[i] = v
	}
	return &g, nil
}

// Arrays are the names of the array inputs, in the order Transform takes
// them.
func (f *ExprFunc[T]) Arrays() []string { return f.c.Arrays() }

func (f *ExprFunc[T]) Key() string    { return f.key }
func (f *ExprFunc[T]) Kernel() string { return exprKernel }
func (f *ExprFunc[T]) Inputs() int    { return f.inputs }
func (f *ExprFunc[T]) Params() []T    { return f.params }
func (f *ExprFunc[T]) String() string { return f.c.String() }

func (f *ExprFunc[T]) Source(backend string) (string, error) {
	switch backend {
	case "opencl", "level_zero": // Level Zero: compiled to SPIR-V
		return f.c.OpenCL(exprKernel), nil
	case "cuda":
		return f.c.CUDA(exprKernel), nil
	}
	return "", errUnsupportedBackend(backend)
}

// CPU runs expr's evaluator over out[lo:hi]. An error (which the checks
// made when compiling leave no room for) panics, and the CPU context
// returns it.
func (f *ExprFunc[T]) CPU(out []T, ins [][]T, params []T, lo, hi int) {
	arrays := make([]any, len(ins))
	for i, in := range ins {
		arrays[i] = underlying(in)
	}
	ps := make([]any, len(params))
	for i, p := range params {
		ps[i] = underlyingValue(p)
	}
	if err := f.eval.Run(underlying(out), arrays, ps, lo, hi); err != nil {
		panic(fmt.Errorf("compute: %s: %w", f.c, err))
	}
}

// underlying is s as a slice of T's underlying type, which the evaluator
// takes: a named element type (type Meters float64) is its underlying
// type there, as on a device.
func underlying[T Number](s []T) any {
	p := unsafe.Pointer(unsafe.SliceData(s))
	switch typeOf[T]() {
	case typeF32:
		return unsafe.Slice((*float32)(p), len(s))
	case typeF64:
		return unsafe.Slice((*float64)(p), len(s))
	case typeI32:
		return unsafe.Slice((*int32)(p), len(s))
	case typeU32:
		return unsafe.Slice((*uint32)(p), len(s))
	case typeI64:
		return unsafe.Slice((*int64)(p), len(s))
	}
	return unsafe.Slice((*uint64)(p), len(s))
}

// underlyingValue is v as T's underlying type.
func underlyingValue[T Number](v T) any {
	p := unsafe.Pointer(&v)
	switch typeOf[T]() {
	case typeF32:
		return *(*float32)(p)
	case typeF64:
		return *(*float64)(p)
	case typeI32:
		return *(*int32)(p)
	case typeU32:
		return *(*uint32)(p)
	case typeI64:
		return *(*int64)(p)
	}
	return *(*uint64)(p)
}

// The four-a-work-item kernel (vec4Func): the expression over four
// consecutive elements a work-item, loaded and stored as vectors.

const exprVec4Kernel = "compute_expr_v4"

func (f *ExprFunc[T]) vec4() (*kernelSrc, string) { return f.vec4Src, exprVec4Kernel }

func (f *ExprFunc[T]) vec4Source(backend string) (string, error) {
	switch backend {
	case "opencl", "level_zero":
		return f.c.OpenCLVec4(exprVec4Kernel), nil
	case "cuda":
		return f.c.CUDAVec4(exprVec4Kernel), nil
	}
	return "", errUnsupportedBackend(backend)
}

// The broadcast kernel (stridedFunc): the expression with each array
// read at its broadcast index.

const exprStridedKernel = "compute_expr_bcast"

func (f *ExprFunc[T]) stridedKey() string    { return f.key + "/bcast" }
func (f *ExprFunc[T]) stridedKernel() string { return exprStridedKernel }

func (f *ExprFunc[T]) stridedSource(backend string) (string, error) {
	switch backend {
	case "opencl", "level_zero":
		return f.c.OpenCLStrided(exprStridedKernel), nil
	case "cuda":
		return f.c.CUDAStrided(exprStridedKernel), nil
	}
	return "", errUnsupportedBackend(backend)
}
