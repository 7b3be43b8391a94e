package expr

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// The reference evaluator: the checked tree walked for one element at a
// time, each value a Go value of its type (float32, ..., bool) and each
// operation Go's own on that type. The evaluator must agree with it bit
// for bit (NaNs with any payload).

func refEval(c *Compiled, n *node, arrays, params []any, i int, lets []any) any {
	switch n.op {
	case opConst:
		return constValue(n)
	case opArray:
		return elem(arrays[n.idx], i)
	case opParam:
		return params[n.idx]
	case opLet:
		return lets[n.idx]
	}
	args := make([]any, len(n.args))
	for k, a := range n.args {
		args[k] = refEval(c, a, arrays, params, i, lets)
	}
	switch n.op {
	case opNot:
		return !args[0].(bool)
	case opAnd:
		return args[0].(bool) && args[1].(bool)
	case opOr:
		return args[0].(bool) || args[1].(bool)
	case opCond:
		if args[0].(bool) {
			return args[1]
		}
		return args[2]
	case opConv:
		return castTo(args[0], n.typ)
	}
	if b, ok := args[0].(bool); ok { // == and != of booleans
		return (b == args[1].(bool)) == (n.op == opEq)
	}
	switch args[0].(type) {
	case float32:
		return refOp[float32](n, args)
	case float64:
		return refOp[float64](n, args)
	case int32:
		return refOp[int32](n, args)
	case uint32:
		return refOp[uint32](n, args)
	case int64:
		return refOp[int64](n, args)
	case uint64:
		return refOp[uint64](n, args)
	}
	panic(fmt.Sprintf("ref: %T", args[0]))
}

func refOp[T number](n *node, args []any) any {
	x := args[0].(T)
	var y T
	if len(args) > 1 {
		y = args[1].(T)
	}
	isInt := n.typ.IsInteger() || n.args[0].typ.IsInteger()
	switch n.op {
	case opNeg:
		return -x
	case opAdd:
		return x + y
	case opSub:
		return x - y
	case opMul:
		return x * y
	case opDiv:
		if isInt && y == 0 {
			return T(0)
		}
		return x / y
	case opRem:
		if y == 0 {
			return T(0)
		}
		return remAny(x, y)
	case opLt:
		return x < y
	case opLe:
		return x <= y
	case opGt:
		return x > y
	case opGe:
		return x >= y
	case opEq:
		return x == y
	case opNe:
		return x != y
	}
	// Calls.
	switch n.fn {
	case fnMin:
		if y < x || x != x {
			return y
		}
		return x
	case fnMax:
		if y > x || x != x {
			return y
		}
		return x
	case fnClamp:
		lo, hi := y, args[2].(T)
		if lo > x || x != x {
			x = lo
		}
		if hi < x || x != x {
			x = hi
		}
		return x
	case fnAbs:
		if isInt {
			if x < 0 {
				return -x
			}
			return x
		}
	}
	fs := make([]float64, len(args))
	for k, a := range args {
		fs[k] = float64(a.(T))
	}
	return T(fns[n.fn].fold(fs))
}

func remAny[T number](x, y T) T {
	switch a := any(x).(type) {
	case int32:
		return T(a % any(y).(int32))
	case uint32:
		return T(a % any(y).(uint32))
	case int64:
		return T(a % any(y).(int64))
	case uint64:
		return T(a % any(y).(uint64))
	}
	panic("rem of floats")
}

func castTo(v any, t Type) any {
	switch x := v.(type) {
	case bool:
		if x {
			return castTo(int32(1), t)
		}
		return castTo(int32(0), t)
	case float32:
		return cast(x, t)
	case float64:
		return cast(x, t)
	case int32:
		return cast(x, t)
	case uint32:
		return cast(x, t)
	case int64:
		return cast(x, t)
	case uint64:
		return cast(x, t)
	}
	panic("cast")
}

func cast[S number](x S, t Type) any {
	switch t {
	case Float32:
		return float32(x)
	case Float64:
		return float64(x)
	case Int32:
		return int32(x)
	case Uint32:
		return uint32(x)
	case Int64:
		return int64(x)
	}
	return uint64(x)
}

func constValue(n *node) any {
	if n.typ == boolType {
		return n.bval
	}
	b := constBits(n)
	switch n.typ {
	case Float32:
		return fromBits[float32](b)
	case Float64:
		return fromBits[float64](b)
	case Int32:
		return fromBits[int32](b)
	case Uint32:
		return fromBits[uint32](b)
	case Int64:
		return fromBits[int64](b)
	}
	return fromBits[uint64](b)
}

func elem(s any, i int) any {
	switch a := s.(type) {
	case []float32:
		return a[i]
	case []float64:
		return a[i]
	case []int32:
		return a[i]
	case []uint32:
		return a[i]
	case []int64:
		return a[i]
	case []uint64:
		return a[i]
	}
	panic("elem")
}

// same compares two values bit for bit, any NaN equal to any NaN.
func same(a, b any) bool {
	switch x := a.(type) {
	case float32:
		y := b.(float32)
		return x != x && y != y || math.Float32bits(x) == math.Float32bits(y)
	case float64:
		y := b.(float64)
		return x != x && y != y || math.Float64bits(x) == math.Float64bits(y)
	}
	return a == b
}

// randomSlice makes n values of t: small integers, zeros, negatives,
// fractions, and for floats now and then a NaN or an infinity.
func randomSlice(r *rand.Rand, t Type, n int) any {
	s := makeSlice(t, n)
	for i := range n {
		var v float64
		switch k := r.IntN(10); {
		case k == 0:
			v = 0
		case k < 5:
			v = float64(r.IntN(21) - 10)
		default:
			v = r.NormFloat64() * 100
		}
		if t.IsFloat() && r.IntN(50) == 0 {
			v = []float64{math.NaN(), math.Inf(1), math.Inf(-1), math.Copysign(0, -1)}[r.IntN(4)]
		}
		switch a := s.(type) {
		case []float32:
			a[i] = float32(v)
		case []float64:
			a[i] = v
		case []int32:
			a[i] = int32(v)
		case []uint32:
			a[i] = uint32(int32(v))
		case []int64:
			a[i] = int64(v)
		case []uint64:
			a[i] = uint64(int64(v))
		}
	}
	return s
}

func randomParam(r *rand.Rand, t Type) any {
	return elem(randomSlice(r, t, 1), 0)
}

// checkAgainstReference runs c's evaluator on random data over n elements,
// in a range that starts off zero, and compares every element with the
// reference. It reports the first difference.
func checkAgainstReference(t testing.TB, c *Compiled, r *rand.Rand, n int) {
	t.Helper()
	ev, err := c.Evaluator()
	if err != nil {
		t.Fatalf("%s: Evaluator: %v", c, err)
	}
	arrays := make([]any, len(c.arrays))
	for k, at := range c.arrayTypes {
		arrays[k] = randomSlice(r, at, n)
	}
	params := make([]any, len(c.params))
	for k, pt := range c.params {
		_ = pt
		params[k] = randomParam(r, c.paramTypes[k])
	}
	out := makeSlice(c.outType, n)
	lo := min(3, n)
	if err := ev.Run(out, arrays, params, lo, n); err != nil {
		t.Fatalf("%s: Run: %v", c, err)
	}
	for i := lo; i < n; i++ {
		lets := make([]any, len(c.lets))
		for k, l := range c.lets {
			lets[k] = refEval(c, l, arrays, params, i, lets)
		}
		want := refEval(c, c.root, arrays, params, i, lets)
		if got := elem(out, i); !same(got, want) {
			var in []string
			for k, a := range arrays {
				in = append(in, fmt.Sprintf("%s=%v", c.arrays[k], elem(a, i)))
			}
			for k, p := range params {
				in = append(in, fmt.Sprintf("%s=%v", c.params[k], p))
			}
			t.Fatalf("%s\nelement %d (%s): evaluator %v, reference %v", c, i, strings.Join(in, " "), got, want)
		}
	}
}

// randomExpr writes a random source expression over the names given.
func randomExpr(r *rand.Rand, names []string, depth int) string {
	if depth <= 0 || r.IntN(4) == 0 {
		switch r.IntN(5) {
		case 0:
			return fmt.Sprint(r.IntN(7) - 2)
		case 1:
			return fmt.Sprintf("%.3g", r.NormFloat64()*3)
		default:
			return names[r.IntN(len(names))]
		}
	}
	sub := func() string { return randomExpr(r, names, depth-1) }
	switch r.IntN(10) {
	case 0, 1, 2:
		ops := []string{"+", "-", "*", "/", "%", "+", "*", "-"}
		return "(" + sub() + " " + ops[r.IntN(len(ops))] + " " + sub() + ")"
	case 3:
		cmp := []string{"<", "<=", ">", ">=", "==", "!="}
		c := sub() + " " + cmp[r.IntN(len(cmp))] + " " + sub()
		if r.IntN(3) == 0 {
			c = "(" + c + []string{" && ", " || "}[r.IntN(2)] + "!(" + sub() + " < " + sub() + "))"
		}
		return "(" + c + " ? " + sub() + " : " + sub() + ")"
	case 4:
		return "-" + sub()
	case 5:
		f := []string{"float32", "float64", "int32", "uint32", "int64", "uint64"}
		return f[r.IntN(len(f))] + "(" + sub() + ")"
	case 6, 7:
		f := []string{"sqrt", "rsqrt", "exp", "exp2", "log", "log2", "log10", "sin", "cos", "tan", "tanh", "abs", "floor", "ceil", "round"}
		return f[r.IntN(len(f))] + "(" + sub() + ")"
	default:
		f := []string{"pow", "min", "max", "min", "max"}
		if r.IntN(3) == 0 {
			g := []string{"fma", "clamp"}[r.IntN(2)]
			return g + "(" + sub() + ", " + sub() + ", " + sub() + ")"
		}
		return f[r.IntN(len(f))] + "(" + sub() + ", " + sub() + ")"
	}
}

var allTypes = []Type{Float32, Float64, Int32, Uint32, Int64, Uint64}

func randomSignature(r *rand.Rand) Signature {
	pick := func() Type {
		if r.IntN(2) == 0 { // mostly one family, so that more functions type-check
			return Float32
		}
		return allTypes[r.IntN(len(allTypes))]
	}
	return Signature{Out: pick(),
		Arrays: map[string]Type{"x": pick(), "y": pick()},
		Params: map[string]Type{"a": pick(), "b": pick()}}
}

// TestEvaluatorMatchesReference is the property test: random functions of
// random types, the evaluator against the reference element by element.
func TestEvaluatorMatchesReference(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	compiled, tries := 0, 0
	for compiled < 3000 && tries < 100000 {
		tries++
		sig := randomSignature(r)
		src := "out = " + randomExpr(r, []string{"x", "y", "a", "b"}, 4)
		if r.IntN(4) == 0 {
			src = "let t = " + randomExpr(r, []string{"x", "a"}, 2) + "; " + strings.ReplaceAll(src, "b", "t")
		}
		c, err := Compile(src, sig)
		if err != nil {
			continue
		}
		compiled++
		n := 1 + r.IntN(2*chunkLen+100)
		if r.IntN(2) == 0 {
			n = 1 + r.IntN(40)
		}
		checkAgainstReference(t, c, r, n)
	}
	if compiled < 3000 {
		t.Fatalf("only %d of %d random functions compiled", compiled, tries)
	}
	t.Logf("%d functions checked (%d generated)", compiled, tries)
}
