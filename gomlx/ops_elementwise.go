package gomlx

import (
	"fmt"
	"strings"

	gc "github.com/gomlx/compute"
	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/compute/shapeinference"
	"github.com/gomlx/compute/shapes"
	"github.com/pkg/errors"

	"github.com/gour-dev/gour/compute/expr"
)

// ewSpec is an element-wise operation as an expression of compute/expr:
// expr gets its inputs' expressions (parenthesized, of their storage
// types) and returns the operation's, which the node converts to its
// output's storage type. Compile inlines a chain of such operations into
// one kernel.
type ewSpec struct {
	expr func(in []string) string
}

// ewNode adds an element-wise node of output shape out over inputs, which
// have out's dimensions or broadcast to them (a scalar, or extents of 1).
func (f *Function) ewNode(op gc.OpType, out shapes.Shape, inputs []*node, e func(in []string) string) (gc.Value, error) {
	if _, err := dtypeStorage(out.DType); err != nil {
		return nil, err
	}
	if err := f.builder.backend.checkDType(out.DType); err != nil {
		return nil, err
	}
	for _, in := range inputs {
		if err := f.builder.backend.checkDType(in.shape.DType); err != nil {
			return nil, err
		}
	}
	return f.add(&node{op: op, shape: out, inputs: inputs, ew: &ewSpec{expr: e}}), nil
}

func (f *Function) unary(op gc.OpType, x gc.Value, e func(x string, dt dtypes.DType) (string, error)) (gc.Value, error) {
	if err := f.check(); err != nil {
		return nil, err
	}
	n, err := f.nodeOf(x)
	if err != nil {
		return nil, err
	}
	out, err := shapeinference.UnaryOp(op, n.shape)
	if err != nil {
		return nil, err
	}
	dt := n.shape.DType
	if _, err := e("x", dt); err != nil {
		return nil, err
	}
	return f.ewNode(op, out, []*node{n}, func(in []string) string {
		s, _ := e(in[0], dt)
		return s
	})
}

func (f *Function) binary(op gc.OpType, lhs, rhs gc.Value, e func(a, b string, dt dtypes.DType) (string, error)) (gc.Value, error) {
	if err := f.check(); err != nil {
		return nil, err
	}
	ns, err := f.nodesOf(lhs, rhs)
	if err != nil {
		return nil, err
	}
	var out shapes.Shape
	if shapeinference.ComparisonOperations.Has(op) {
		out, err = shapeinference.ComparisonOp(op, ns[0].shape, ns[1].shape)
	} else {
		out, err = shapeinference.BinaryOp(op, ns[0].shape, ns[1].shape)
	}
	if err != nil {
		return nil, err
	}
	dt := ns[0].shape.DType
	if _, err := e("a", "b", dt); err != nil {
		return nil, err
	}
	return f.ewNode(op, out, ns, func(in []string) string {
		s, _ := e(in[0], in[1], dt)
		return s
	})
}

// simple returns an expression builder of a format over the input(s),
// for the dtypes ok accepts.
func floatOnly(format string) func(x string, dt dtypes.DType) (string, error) {
	return func(x string, dt dtypes.DType) (string, error) {
		if !dt.IsFloat() {
			return "", notImplemented("%q of %s", format, dt)
		}
		return strings.ReplaceAll(format, "X", x), nil
	}
}

func anyNumber(format string) func(x string, dt dtypes.DType) (string, error) {
	return func(x string, dt dtypes.DType) (string, error) {
		return strings.ReplaceAll(format, "X", x), nil
	}
}

func bin(format string) func(a, b string, dt dtypes.DType) (string, error) {
	return func(a, b string, dt dtypes.DType) (string, error) {
		return strings.NewReplacer("A", a, "B", b).Replace(format), nil
	}
}

// Neg implements compute.Function.
func (f *Function) Neg(x gc.Value) (gc.Value, error) {
	return f.unary(gc.OpTypeNeg, x, anyNumber("-X"))
}

// Abs implements compute.Function.
func (f *Function) Abs(x gc.Value) (gc.Value, error) {
	return f.unary(gc.OpTypeAbs, x, func(x string, dt dtypes.DType) (string, error) {
		if dt.IsUnsigned() {
			return x, nil
		}
		return "abs(" + x + ")", nil
	})
}

// Sign implements compute.Function: +1, ±0 or -1, NaN for NaN.
func (f *Function) Sign(x gc.Value) (gc.Value, error) {
	return f.unary(gc.OpTypeSign, x, func(x string, dt dtypes.DType) (string, error) {
		if dt.IsUnsigned() {
			return fmt.Sprintf("(%s > 0 ? 1 : 0)", x), nil
		}
		if dt.IsFloat() {
			return fmt.Sprintf("(%s > 0 ? 1 : (%s < 0 ? -1 : %s))", x, x, x), nil
		}
		return fmt.Sprintf("(%s > 0 ? 1 : (%s < 0 ? -1 : 0))", x, x), nil
	})
}

// Exp implements compute.Function.
func (f *Function) Exp(x gc.Value) (gc.Value, error) {
	return f.unary(gc.OpTypeExp, x, floatOnly("exp(X)"))
}

// Expm1 implements compute.Function: exp(x)-1, by its Taylor series near 0.
func (f *Function) Expm1(x gc.Value) (gc.Value, error) {
	return f.unary(gc.OpTypeExpm1, x, floatOnly("(abs(X) < 1e-5 ? X + X*X/2 : exp(X) - 1)"))
}

// Log implements compute.Function.
func (f *Function) Log(x gc.Value) (gc.Value, error) {
	return f.unary(gc.OpTypeLog, x, floatOnly("log(X)"))
}

// Log1p implements compute.Function: log(1+x), by its Taylor series near 0.
func (f *Function) Log1p(x gc.Value) (gc.Value, error) {
	return f.unary(gc.OpTypeLog1p, x, floatOnly("(abs(X) < 1e-4 ? X - X*X/2 + X*X*X/3 : log(1 + X))"))
}

// Ceil implements compute.Function.
func (f *Function) Ceil(x gc.Value) (gc.Value, error) {
	return f.unary(gc.OpTypeCeil, x, floatOnly("ceil(X)"))
}

// Floor implements compute.Function.
func (f *Function) Floor(x gc.Value) (gc.Value, error) {
	return f.unary(gc.OpTypeFloor, x, floatOnly("floor(X)"))
}

// Round implements compute.Function: to the nearest integer, ties to even
// (expr's round takes ties away from zero, which is corrected).
func (f *Function) Round(x gc.Value) (gc.Value, error) {
	return f.unary(gc.OpTypeRound, x, floatOnly(
		"((abs(round(X) - X) == 0.5 && round(X) - 2*floor(round(X)/2) != 0) ? round(X) - (X > 0 ? 1 : -1) : round(X))"))
}

// Rsqrt implements compute.Function.
func (f *Function) Rsqrt(x gc.Value) (gc.Value, error) {
	return f.unary(gc.OpTypeRsqrt, x, floatOnly("rsqrt(X)"))
}

// Sqrt implements compute.Function.
func (f *Function) Sqrt(x gc.Value) (gc.Value, error) {
	return f.unary(gc.OpTypeSqrt, x, floatOnly("sqrt(X)"))
}

// Cos implements compute.Function.
func (f *Function) Cos(x gc.Value) (gc.Value, error) {
	return f.unary(gc.OpTypeCos, x, floatOnly("cos(X)"))
}

// Sin implements compute.Function.
func (f *Function) Sin(x gc.Value) (gc.Value, error) {
	return f.unary(gc.OpTypeSin, x, floatOnly("sin(X)"))
}

// Tanh implements compute.Function.
func (f *Function) Tanh(x gc.Value) (gc.Value, error) {
	return f.unary(gc.OpTypeTanh, x, floatOnly("tanh(X)"))
}

// Logistic implements compute.Function: 1/(1+exp(-x)).
func (f *Function) Logistic(x gc.Value) (gc.Value, error) {
	return f.unary(gc.OpTypeLogistic, x, floatOnly("(1 / (1 + exp(-X)))"))
}

// Erf implements compute.Function for float32: Numerical Recipes' erfc
// approximation (a Chebyshev fit, fractional error below 1.2e-7), which is
// float32's precision; float64 is not implemented.
func (f *Function) Erf(x gc.Value) (gc.Value, error) {
	return f.unary(gc.OpTypeErf, x, erfExpr)
}

// erfExpr is erf(x): for float64 fdlibm's (Go's math.Erf's) rational
// approximations, for float32 (and the half floats, kept as float32)
// Numerical Recipes' erfc approximation.
func erfExpr(x string, dt dtypes.DType) (string, error) {
	if dt == dtypes.Float64 {
		return erf64Expr(x), nil
	}
	if dt != dtypes.Float32 && dt != dtypes.Float16 && dt != dtypes.BFloat16 {
		return "", notImplemented("Erf of %s", dt)
	}
	z := "abs(" + x + ")"
	t := "(1 / (1 + 0.5 * " + z + "))"
	poly := "(-1.26551223 + T*(1.00002368 + T*(0.37409196 + T*(0.09678418 + T*(-0.18628806 + T*(0.27886807 + T*(-1.13520398 + T*(1.48851587 + T*(-0.82215223 + T*0.17087277)))))))))"
	erfc := "(" + t + " * exp(-" + z + "*" + z + " + " + strings.ReplaceAll(poly, "T", t) + "))"
	return fmt.Sprintf("(%s >= 0 ? 1 - %s : %s - 1)", x, erfc, erfc), nil
}

// IsFinite implements compute.Function.
func (f *Function) IsFinite(x gc.Value) (gc.Value, error) {
	return f.predicate(gc.OpTypeIsFinite, x, "(X - X == 0)")
}

// IsNaN implements compute.Function.
func (f *Function) IsNaN(x gc.Value) (gc.Value, error) {
	return f.predicate(gc.OpTypeIsNaN, x, "(X != X)")
}

// predicate is a float → bool element-wise test.
func (f *Function) predicate(op gc.OpType, x gc.Value, format string) (gc.Value, error) {
	if err := f.check(); err != nil {
		return nil, err
	}
	n, err := f.nodeOf(x)
	if err != nil {
		return nil, err
	}
	if !n.shape.DType.IsFloat() {
		return nil, errors.Errorf("gour backend: %s of %s, want a float", op, n.shape)
	}
	if _, err := dtypeStorage(n.shape.DType); err != nil {
		return nil, err
	}
	out := n.shape.Clone()
	out.DType = dtypes.Bool
	return f.ewNode(op, out, []*node{n}, func(in []string) string {
		return strings.ReplaceAll(format, "X", in[0])
	})
}

// LogicalNot implements compute.Function.
func (f *Function) LogicalNot(x gc.Value) (gc.Value, error) {
	return f.unary(gc.OpTypeLogicalNot, x, anyNumber("(X == 0)"))
}

// Add implements compute.Function.
func (f *Function) Add(lhs, rhs gc.Value) (gc.Value, error) {
	return f.binary(gc.OpTypeAdd, lhs, rhs, bin("A + B"))
}

// Sub implements compute.Function.
func (f *Function) Sub(lhs, rhs gc.Value) (gc.Value, error) {
	return f.binary(gc.OpTypeSub, lhs, rhs, bin("A - B"))
}

// Mul implements compute.Function.
func (f *Function) Mul(lhs, rhs gc.Value) (gc.Value, error) {
	return f.binary(gc.OpTypeMul, lhs, rhs, bin("A * B"))
}

// Div implements compute.Function: integer division truncates, and
// gives 0 for a zero divisor (expr's rule).
func (f *Function) Div(lhs, rhs gc.Value) (gc.Value, error) {
	return f.binary(gc.OpTypeDiv, lhs, rhs, bin("A / B"))
}

// Rem implements compute.Function: C's remainder, of the dividend's sign.
// For floats it is a - b·trunc(a/b), exact while the quotient is below
// 2^24 (float32) or 2^53 (float64), unlike fmod beyond.
func (f *Function) Rem(lhs, rhs gc.Value) (gc.Value, error) {
	return f.binary(gc.OpTypeRem, lhs, rhs, func(a, b string, dt dtypes.DType) (string, error) {
		if dt.IsFloat() {
			return fmt.Sprintf("(%s - %s * (%s / %s < 0 ? ceil(%s / %s) : floor(%s / %s)))", a, b, a, b, a, b, a, b), nil
		}
		return a + " % " + b, nil
	})
}

// Pow implements compute.Function: integers are raised in float64.
func (f *Function) Pow(lhs, rhs gc.Value) (gc.Value, error) {
	return f.binary(gc.OpTypePow, lhs, rhs, bin("pow(A, B)"))
}

// Max implements compute.Function.
func (f *Function) Max(lhs, rhs gc.Value) (gc.Value, error) {
	return f.binary(gc.OpTypeMax, lhs, rhs, nanPropagating("max"))
}

// Min implements compute.Function.
func (f *Function) Min(lhs, rhs gc.Value) (gc.Value, error) {
	return f.binary(gc.OpTypeMin, lhs, rhs, nanPropagating("min"))
}

// nanPropagating is max or min that gives NaN where an operand is NaN,
// as XLA's do (expr's, C's fmax and fmin, give the other operand).
func nanPropagating(fn string) func(a, b string, dt dtypes.DType) (string, error) {
	return func(a, b string, dt dtypes.DType) (string, error) {
		if dt.IsFloat() {
			return fmt.Sprintf("(%s != %s ? %s : (%s != %s ? %s : %s(%s, %s)))", a, a, a, b, b, b, fn, a, b), nil
		}
		return fmt.Sprintf("%s(%s, %s)", fn, a, b), nil
	}
}

// Equal implements compute.Function.
func (f *Function) Equal(lhs, rhs gc.Value) (gc.Value, error) {
	return f.binary(gc.OpTypeEqual, lhs, rhs, bin("(A == B)"))
}

// NotEqual implements compute.Function.
func (f *Function) NotEqual(lhs, rhs gc.Value) (gc.Value, error) {
	return f.binary(gc.OpTypeNotEqual, lhs, rhs, bin("(A != B)"))
}

// GreaterOrEqual implements compute.Function.
func (f *Function) GreaterOrEqual(lhs, rhs gc.Value) (gc.Value, error) {
	return f.binary(gc.OpTypeGreaterOrEqual, lhs, rhs, bin("(A >= B)"))
}

// GreaterThan implements compute.Function.
func (f *Function) GreaterThan(lhs, rhs gc.Value) (gc.Value, error) {
	return f.binary(gc.OpTypeGreaterThan, lhs, rhs, bin("(A > B)"))
}

// LessOrEqual implements compute.Function.
func (f *Function) LessOrEqual(lhs, rhs gc.Value) (gc.Value, error) {
	return f.binary(gc.OpTypeLessOrEqual, lhs, rhs, bin("(A <= B)"))
}

// LessThan implements compute.Function.
func (f *Function) LessThan(lhs, rhs gc.Value) (gc.Value, error) {
	return f.binary(gc.OpTypeLessThan, lhs, rhs, bin("(A < B)"))
}

// LogicalAnd implements compute.Function.
func (f *Function) LogicalAnd(lhs, rhs gc.Value) (gc.Value, error) {
	return f.binary(gc.OpTypeLogicalAnd, lhs, rhs, bin("(A != 0 && B != 0)"))
}

// LogicalOr implements compute.Function.
func (f *Function) LogicalOr(lhs, rhs gc.Value) (gc.Value, error) {
	return f.binary(gc.OpTypeLogicalOr, lhs, rhs, bin("(A != 0 || B != 0)"))
}

// LogicalXor implements compute.Function.
func (f *Function) LogicalXor(lhs, rhs gc.Value) (gc.Value, error) {
	return f.binary(gc.OpTypeLogicalXor, lhs, rhs, bin("((A != 0) != (B != 0))"))
}

// Where implements compute.Function.
func (f *Function) Where(condition, onTrue, onFalse gc.Value) (gc.Value, error) {
	if err := f.check(); err != nil {
		return nil, err
	}
	ns, err := f.nodesOf(condition, onTrue, onFalse)
	if err != nil {
		return nil, err
	}
	out, err := shapeinference.Where(ns[0].shape, ns[1].shape, ns[2].shape)
	if err != nil {
		return nil, err
	}
	return f.ewNode(gc.OpTypeWhere, out, ns, func(in []string) string {
		return fmt.Sprintf("(%s != 0 ? %s : %s)", in[0], in[1], in[2])
	})
}

// Clamp implements compute.Function: min and max are scalars or of x's
// shape.
func (f *Function) Clamp(lo, x, hi gc.Value) (gc.Value, error) {
	if err := f.check(); err != nil {
		return nil, err
	}
	ns, err := f.nodesOf(lo, x, hi)
	if err != nil {
		return nil, err
	}
	out := ns[1].shape.Clone()
	for _, n := range []*node{ns[0], ns[2]} {
		if n.shape.DType != out.DType {
			return nil, errors.Errorf("gour backend: Clamp of %s between %s and %s: dtypes differ", out, ns[0].shape, ns[2].shape)
		}
		if !n.shape.IsScalar() && !n.shape.EqualDimensions(out) {
			return nil, errors.Errorf("gour backend: Clamp of %s between %s and %s: want scalars or x's shape", out, ns[0].shape, ns[2].shape)
		}
	}
	if !out.DType.IsFloat() && !out.DType.IsInt() {
		return nil, errors.Errorf("gour backend: Clamp of %s", out)
	}
	return f.ewNode(gc.OpTypeClamp, out, ns, func(in []string) string {
		return fmt.Sprintf("min(max(%s, %s), %s)", in[1], in[0], in[2])
	})
}

// ConvertDType implements compute.Function: floats to integers truncate
// (undefined out of range, as in C), anything to bool is x != 0.
func (f *Function) ConvertDType(x gc.Value, dtype dtypes.DType) (gc.Value, error) {
	if err := f.check(); err != nil {
		return nil, err
	}
	n, err := f.nodeOf(x)
	if err != nil {
		return nil, err
	}
	if _, err := dtypeStorage(dtype); err != nil {
		return nil, err
	}
	out := n.shape.Clone()
	out.DType = dtype
	return f.ewNode(gc.OpTypeConvertDType, out, []*node{n}, func(in []string) string {
		if dtype == dtypes.Bool {
			return "(" + in[0] + " != 0)"
		}
		return in[0]
	})
}

// ewExpr is a node's expression of its inputs' expressions, converted to
// its storage type (so that a boolean or an untyped constant becomes a
// value of the output's type, and a fused expression types as the
// unfused one).
func ewExpr(n *node, in []string) string {
	t, _ := storageType(n.shape.DType)
	return wrapNarrow(fmt.Sprintf("%s(%s)", t, n.ew.expr(in)), n.shape.DType)
}

// ewTypes are the storage types of nodes.
func ewTypes(ns []*node) []expr.Type {
	ts := make([]expr.Type, len(ns))
	for i, n := range ns {
		ts[i], _ = storageType(n.shape.DType)
	}
	return ts
}

// horner is c[0] + v·(c[1] + v·(c[2] + ...)) as an expression.
func horner(v string, c ...float64) string {
	e := fmt.Sprintf("%.17g", c[len(c)-1])
	for i := len(c) - 2; i >= 0; i-- {
		e = fmt.Sprintf("(%.17g + %s * %s)", c[i], v, e)
	}
	return e
}

// erf64Expr is erf(x) of float64 by fdlibm's approximations (those of Go's
// math.Erf, in four ranges of |x|), exp(-x²) taken as exp(-z²)·exp((z-x)
// (z+x)) with z = x rounded to float32, so that z² is exact.
func erf64Expr(x string) string {
	a := "abs(" + x + ")"
	z := "(" + a + " * " + a + ")"
	small := fmt.Sprintf("(%s + %s * %s / %s)", a, a,
		horner(z, 1.28379167095512558561e-01, -3.25042107247001499370e-01, -2.84817495755985104766e-02,
			-5.77027029648944159157e-03, -2.37630166566501626084e-05),
		horner(z, 1, 3.97917223959155352819e-01, 6.50222499887672944485e-02, 5.08130628187576562776e-03,
			1.32494738004321644526e-04, -3.96022827877536812320e-06))
	m := "(" + a + " - 1)"
	mid := fmt.Sprintf("(8.45062911510467529297e-01 + %s / %s)",
		horner(m, -2.36211856075265944077e-03, 4.14856118683748331666e-01, -3.72207876035701323847e-01,
			3.18346619901161753674e-01, -1.10894694282396677476e-01, 3.54783043256182359371e-02, -2.16637559486879084300e-03),
		horner(m, 1, 1.06420880400844228286e-01, 5.40397917702171048937e-01, 7.18286544141962662868e-02,
			1.26171219808761642112e-01, 1.36370839120290507362e-02, 1.19844998467991074170e-02))
	s := "(1 / " + z + ")"
	ra := horner(s, -9.86494403484714822705e-03, -6.93858572707181764372e-01, -1.05586262253232909814e+01,
		-6.23753324503260060396e+01, -1.62396669462573470355e+02, -1.84605092906711035994e+02,
		-8.12874355063065934246e+01, -9.81432934416914548592e+00)
	sa := horner(s, 1, 1.96512716674392571292e+01, 1.37657754143519042600e+02, 4.34565877475229228821e+02,
		6.45387271733267880336e+02, 4.29008140027567833386e+02, 1.08635005541779435134e+02,
		6.57024977031928170135e+00, -6.04244152148580987438e-02)
	rb := horner(s, -9.86494292470009928597e-03, -7.99283237680523006574e-01, -1.77579549177547519889e+01,
		-1.60636384855821916062e+02, -6.37566443368389627722e+02, -1.02509513161107724954e+03,
		-4.83519191608651397019e+02)
	sb := horner(s, 1, 3.03380607434824582924e+01, 3.25792512996573918826e+02, 1.53672958608443695994e+03,
		3.19985821950859553908e+03, 2.55305040643316442583e+03, 4.74528541206955367215e+02,
		-2.24409524465858183362e+01)
	rs := fmt.Sprintf("(%s < 2.8571428571428572 ? %s / %s : %s / %s)", a, ra, sa, rb, sb)
	hi := "float64(float32(" + a + "))"
	tail := fmt.Sprintf("(1 - exp(-%s * %s - 0.5625) * exp((%s - %s) * (%s + %s) + %s) / %s)", hi, hi, hi, a, hi, a, rs, a)
	e := fmt.Sprintf("(%s < 0.84375 ? %s : (%s < 1.25 ? %s : (%s < 6 ? %s : 1)))", a, small, a, mid, a, tail)
	return fmt.Sprintf("(%s != %s ? %s : (%s < 0 ? -%s : %s))", x, x, x, x, e, e)
}
