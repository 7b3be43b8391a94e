// Package expr is the small typed expression language of package compute:
// an element-wise function written once, as text, then generated as an
// OpenCL C or CUDA C kernel for devices and evaluated by a fast Go
// evaluator on the CPU.
//
//	c, err := expr.Compile("out = a*x + y", expr.Signature{Out: expr.Float32,
//		Arrays: map[string]expr.Type{"x": expr.Float32, "y": expr.Float32},
//		Params: map[string]expr.Type{"a": expr.Float32}})
//	src := c.OpenCL("axpy")          // or c.CUDA("axpy")
//	ev, err := c.Evaluator()
//	err = ev.Run(out, []any{x, y}, []any{float32(2)}, lo, hi)
//
// # Syntax
//
// A function is one assignment to the output, optionally after let
// bindings of local values; blanks, newlines and // comments are ignored:
//
//	Func     = { "let" name "=" Expr ";" } name "=" Expr [ ";" ] .
//	Expr     = Or [ "?" Expr ":" Expr ] .
//	Or       = And { "||" And } .
//	And      = Equality { "&&" Equality } .
//	Equality = Relation { ( "==" | "!=" ) Relation } .
//	Relation = Sum { ( "<" | "<=" | ">" | ">=" ) Sum } .
//	Sum      = Product { ( "+" | "-" ) Product } .
//	Product  = Unary { ( "*" | "/" | "%" ) Unary } .
//	Unary    = ( "-" | "+" | "!" ) Unary | Primary .
//	Primary  = number | name | name "(" [ Expr { "," Expr } ] ")" | "(" Expr ")" .
//	number   = decimal integer | "0x" hex integer | decimal float with optional exponent (2.5, .5, 1e-3) .
//	name     = letter { letter | digit } .   (letters include _; "let" is reserved)
//
// Precedence and associativity are C's; ?: is right-associative.
// Parentheses, call arguments, ?: branches and unary operators nest at
// most 256 levels deep, the expression itself being the first. A chain
// of binary operators, x + y - z + ..., is no nesting, but the checked
// expression is at most 4096 operations deep, a chain counting one per
// operator: x + x + ... + x may have 4096 terms. Kernels write such
// chains without parentheses, within the device compilers' limits on
// nesting (clang's is 256 levels).
//
// # Types
//
// Arrays, parameters and the output have one of the types Float32,
// Float64, Int32, Uint32, Int64, Uint64, given by the Signature. An array
// is read element-wise (element i of each array for out[i]); a parameter
// is one value for all elements. Operations are typed as follows, more
// strictly than C:
//
//   - Numeric literals are untyped constants, folded exactly (integers
//     arbitrarily large, floats as float64) and typed where they meet a
//     typed operand: they take its type, and must fit it (2.5 with an int32
//     operand is an error, as is 4294967296 or -1 with a uint32 one).
//   - Two typed operands of one type give that type; float32 and float64
//     give float64; an integer and a float type give the float type; two
//     different integer types are an error (convert one).
//   - An expression of constants whose value depends on a condition
//     (x > 0 ? 1 : 2) is typed by its context, like a constant.
//   - Comparisons, &&, || and ! give a boolean, usable only by ?:, &&, ||,
//     !, == and != — or as the output or a conversion's argument, where it
//     becomes 0 or 1.
//   - % needs integer operands. Integer division and remainder by zero
//     give 0 (and MinInt / -1 wraps), on the CPU and in the generated
//     kernels alike, where C leaves them undefined. Other integer
//     arithmetic wraps on both too: the kernels compute signed +, - and *
//     and negation in the unsigned type of the same width, as C's signed
//     overflow is undefined (a compiler may fold x + 1 > x to true).
//   - Conversions are written float32(e), float64(e), int32(e), uint32(e),
//     int64(e), uint64(e); as in C, a float converted to an integer is
//     truncated toward zero (and is undefined out of range).
//   - The result is converted to the output's type as by such a
//     conversion.
//
// # Functions
//
// sqrt, rsqrt, exp, exp2, log, log2, log10, sin, cos, tan, tanh, floor,
// ceil, round (half away from zero) and pow(x, y), fma(x, y, z) compute in
// the floating-point type of their arguments; integer arguments are
// converted to float64 first. abs, min, max and clamp(x, lo, hi) =
// min(max(x, lo), hi) are defined on integers and floats; on floats min
// and max are C's fmin and fmax (a NaN argument gives the other one).
// Functions of constants are folded.
//
// # Generated kernels
//
// OpenCL and CUDA return a program of one kernel with the fixed signature
//
//	(output pointer, array pointers sorted by name, parameters by value sorted by name, 64-bit count n)
//
// in which work-item i < n computes out[i] from a 1D index
// (get_global_id(0); blockIdx.x * (size_t)blockDim.x + threadIdx.x). The
// order is that of Compiled.Arrays and Compiled.Params. User names appear
// as u_NAME and generated ones as gx_NAME, so they cannot collide. Math
// functions use each language's names (CUDA: sqrtf, fminf, fmaf, rsqrtf,
// fabsf... for float; OpenCL's overloads), literals their type's suffix
// (2.5f, 3u, 7L or 7LL), and integer division, remainder, abs, min and
// max small helper functions that give the CPU's results. An OpenCL
// program using float64 enables cl_khr_fp64. Compiled.Key identifies the
// generated code for caching built programs. OpenCLStrided and
// CUDAStrided generate the same kernel reading each array at an index of
// its own, from the output's coordinates over four extents and the
// array's strides (arguments after n): how package compute broadcasts
// an input (a stride of 0 repeats it along a dimension).
//
// # The evaluator
//
// A tree walk per element would pay an interface or closure call per node
// per element. The Evaluator instead compiles the expression into a list
// of typed loops, each computing one node for a chunk of 1024 elements
// into a temporary slice (or into the output, for the root), reading the
// arrays in place. So interpretation costs a few calls per chunk and the
// element loops are plain Go loops over slices. Subexpressions of
// parameters and constants only are computed once per Run; a*x + y and
// its variants with scalars are one fused loop, and a function of one
// operation needs no temporaries and runs over the whole range at once.
// Temporaries come from a pool per Evaluator, so goroutines may Run
// disjoint ranges of one output concurrently. For out = a*x + y the
// evaluator runs as fast as a hand-written Go loop (BenchmarkAxpyEvaluator
// against BenchmarkAxpyHandLoop).
//
// Float32 math functions other than sqrt are computed in float64 and
// rounded, so they may differ from a device's by an ulp or so; the
// arithmetic and comparisons are those of Go, as the devices' are IEEE
// (a device compiler may still contract a*b+c into one fused operation).
package expr
