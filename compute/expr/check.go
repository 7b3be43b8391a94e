package expr

import (
	"math"
	"math/big"
	"strconv"
	"strings"
)

type opcode uint8

const (
	opConst opcode = iota
	opArray        // idx: position in Arrays()
	opParam        // idx: position in Params()
	opLet          // idx: position in the lets
	opNeg
	opNot
	opAdd
	opSub
	opMul
	opDiv
	opRem
	opLt
	opLe
	opGt
	opGe
	opEq
	opNe
	opAnd
	opOr
	opCond // args: condition, then, else
	opConv // args[0] converted to typ
	opCall // fn
)

var binOps = map[string]opcode{"+": opAdd, "-": opSub, "*": opMul, "/": opDiv, "%": opRem,
	"<": opLt, "<=": opLe, ">": opGt, ">=": opGe, "==": opEq, "!=": opNe, "&&": opAnd, "||": opOr}

var opText = map[opcode]string{opNeg: "-", opNot: "!", opAdd: "+", opSub: "-", opMul: "*", opDiv: "/", opRem: "%",
	opLt: "<", opLe: "<=", opGt: ">", opGe: ">=", opEq: "==", opNe: "!=", opAnd: "&&", opOr: "||"}

// node is a checked expression: every node has its type, and after Check
// none is untyped.
type node struct {
	op   opcode
	fn   fnID
	typ  Type
	pos  Pos
	args []*node
	idx  int
	name string
	// A constant's value: ival for integer types (exact), fval for
	// float types (rounded to the type), bval for bool.
	ival *big.Int
	fval float64
	bval bool
}

func (n *node) isConst() bool { return n.op == opConst }

type fnID uint8

const (
	fnSqrt fnID = iota
	fnRsqrt
	fnExp
	fnExp2
	fnLog
	fnLog2
	fnLog10
	fnSin
	fnCos
	fnTan
	fnTanh
	fnFloor
	fnCeil
	fnRound
	fnAbs
	fnPow
	fnMin
	fnMax
	fnFma
	fnClamp
)

type fnInfo struct {
	name  string
	nargs int
	ints  bool // defined on integers too (else integers are converted to float64)
	fold  func(a []float64) float64
}

var fns = [...]fnInfo{
	fnSqrt:  {"sqrt", 1, false, func(a []float64) float64 { return math.Sqrt(a[0]) }},
	fnRsqrt: {"rsqrt", 1, false, func(a []float64) float64 { return 1 / math.Sqrt(a[0]) }},
	fnExp:   {"exp", 1, false, func(a []float64) float64 { return math.Exp(a[0]) }},
	fnExp2:  {"exp2", 1, false, func(a []float64) float64 { return math.Exp2(a[0]) }},
	fnLog:   {"log", 1, false, func(a []float64) float64 { return math.Log(a[0]) }},
	fnLog2:  {"log2", 1, false, func(a []float64) float64 { return math.Log2(a[0]) }},
	fnLog10: {"log10", 1, false, func(a []float64) float64 { return math.Log10(a[0]) }},
	fnSin:   {"sin", 1, false, func(a []float64) float64 { return math.Sin(a[0]) }},
	fnCos:   {"cos", 1, false, func(a []float64) float64 { return math.Cos(a[0]) }},
	fnTan:   {"tan", 1, false, func(a []float64) float64 { return math.Tan(a[0]) }},
	fnTanh:  {"tanh", 1, false, func(a []float64) float64 { return math.Tanh(a[0]) }},
	fnFloor: {"floor", 1, false, func(a []float64) float64 { return math.Floor(a[0]) }},
	fnCeil:  {"ceil", 1, false, func(a []float64) float64 { return math.Ceil(a[0]) }},
	fnRound: {"round", 1, false, func(a []float64) float64 { return math.Round(a[0]) }},
	fnAbs:   {"abs", 1, true, func(a []float64) float64 { return math.Abs(a[0]) }},
	fnPow:   {"pow", 2, false, func(a []float64) float64 { return math.Pow(a[0], a[1]) }},
	fnMin:   {"min", 2, true, func(a []float64) float64 { return fmin(a[0], a[1]) }},
	fnMax:   {"max", 2, true, func(a []float64) float64 { return fmax(a[0], a[1]) }},
	fnFma:   {"fma", 3, false, func(a []float64) float64 { return math.FMA(a[0], a[1], a[2]) }},
	fnClamp: {"clamp", 3, true, func(a []float64) float64 { return fmin(fmax(a[0], a[1]), a[2]) }},
}

// fmin and fmax are C's: a NaN operand gives the other one, which is what
// OpenCL and CUDA devices compute, unlike Go's min.
func fmin(a, b float64) float64 {
	if b < a || a != a {
		return b
	}
	return a
}

func fmax(a, b float64) float64 {
	if b > a || a != a {
		return b
	}
	return a
}

func lookupFn(name string) (fnID, bool) {
	for i := range fns {
		if fns[i].name == name {
			return fnID(i), true
		}
	}
	return 0, false
}

// Compiled is a type-checked function, ready for code generation and the
// CPU evaluator. It is immutable and safe for concurrent use.
type Compiled struct {
	outName    string
	outType    Type
	arrays     []string
	arrayTypes []Type
	params     []string
	paramTypes []Type
	lets       []*node // typed let bindings, in order; opLet nodes refer to them
	letNames   []string
	root       *node // typed as outType
	canon      string
	key        string
}

// Compile parses src and checks it against sig.
func Compile(src string, sig Signature) (*Compiled, error) {
	f, err := Parse(src)
	if err != nil {
		return nil, err
	}
	return f.Check(sig)
}

type checker struct {
	sig    Signature
	c      *Compiled
	lets   map[string]*node // a let's checked value: untyped ones are inlined
	letPos map[string]int
	depth  int
}

// Check types f against sig: it resolves names, gives every operation its
// type by the rules of the package documentation and converts the result
// to sig.Out.
func (f *Func) Check(sig Signature) (*Compiled, error) {
	c := &Compiled{outName: f.out, outType: sig.Out}
	if !sig.Out.Valid() {
		return nil, errorf(f.outPos, f.out, "output %s has invalid type %v", f.out, sig.Out)
	}
	c.arrays = sortedNames(sig.Arrays)
	c.params = sortedNames(sig.Params)
	for _, n := range c.arrays {
		if err := checkDecl(n, sig.Arrays[n], "array"); err != nil {
			return nil, err
		}
		if _, ok := sig.Params[n]; ok {
			return nil, errorf(Pos{Line: 1, Col: 1}, n, "%s is both an array and a parameter", n)
		}
		c.arrayTypes = append(c.arrayTypes, sig.Arrays[n])
	}
	for _, n := range c.params {
		if err := checkDecl(n, sig.Params[n], "parameter"); err != nil {
			return nil, err
		}
		c.paramTypes = append(c.paramTypes, sig.Params[n])
	}
	ck := &checker{sig: sig, c: c, lets: map[string]*node{}, letPos: map[string]int{}}
	for _, l := range f.lets {
		if _, ok := sig.Arrays[l.name]; ok {
			return nil, errorf(l.pos, l.name, "let %s: %s is an array", l.name, l.name)
		}
		if _, ok := sig.Params[l.name]; ok {
			return nil, errorf(l.pos, l.name, "let %s: %s is a parameter", l.name, l.name)
		}
		if _, ok := ck.lets[l.name]; ok {
			return nil, errorf(l.pos, l.name, "let %s: %s is already defined", l.name, l.name)
		}
		if l.name == f.out {
			return nil, errorf(l.pos, l.name, "let %s: %s is the output", l.name, l.name)
		}
		v, err := ck.expr(l.val)
		if err != nil {
			return nil, err
		}
		if v.typ.isUntyped() {
			ck.lets[l.name] = v // typed where it is used, as a constant is
			continue
		}
		ck.letPos[l.name] = len(c.lets)
		c.lets = append(c.lets, v)
		c.letNames = append(c.letNames, l.name)
		ck.lets[l.name] = &node{op: opLet, typ: v.typ, pos: l.pos, idx: len(c.lets) - 1, name: l.name}
	}
	body, err := ck.expr(f.body)
	if err != nil {
		return nil, err
	}
	if body.typ != boolType {
		if err := needNumber(f.outPos, f.out, body); err != nil {
			return nil, err
		}
	}
	if body, err = convertExplicit(body, sig.Out, f.outPos); err != nil {
		return nil, err
	}
	c.root = body
	c.canon = c.canonical()
	c.key = c.makeKey()
	return c, nil
}

func checkDecl(name string, t Type, what string) *Error {
	if !isIdent(name) || name == "let" {
		return errorf(Pos{Line: 1, Col: 1}, name, "%s name %q is not an identifier", what, name)
	}
	if !t.Valid() {
		return errorf(Pos{Line: 1, Col: 1}, name, "%s %s has invalid type %v", what, name, t)
	}
	return nil
}

func isIdent(s string) bool {
	if s == "" || !isLetter(s[0]) {
		return false
	}
	for i := 1; i < len(s); i++ {
		if !isLetter(s[i]) && !isDigit(s[i]) {
			return false
		}
	}
	return true
}

func (ck *checker) expr(a *ast) (*node, error) {
	ck.depth++
	defer func() { ck.depth-- }()
	if ck.depth > maxTree {
		return nil, errorf(a.pos, "", "expression too deep (more than %d levels of operations)", maxTree)
	}
	switch a.kind {
	case aNum:
		return literal(a)
	case aIdent:
		return ck.ident(a)
	case aUnary:
		x, err := ck.expr(a.args[0])
		if err != nil {
			return nil, err
		}
		return unary(a, x)
	case aBinary:
		x, err := ck.expr(a.args[0])
		if err != nil {
			return nil, err
		}
		y, err := ck.expr(a.args[1])
		if err != nil {
			return nil, err
		}
		return binary(a.pos, binOps[a.op], x, y)
	case aCond:
		var args [3]*node
		for i, s := range a.args {
			n, err := ck.expr(s)
			if err != nil {
				return nil, err
			}
			args[i] = n
		}
		return cond(a.pos, args[0], args[1], args[2])
	case aCall:
		return ck.call(a)
	}
	return nil, errorf(a.pos, "", "internal error: unknown syntax")
}

func literal(a *ast) (*node, error) {
	s := a.text
	if strings.HasPrefix(s, "0x") || strings.HasPrefix(s, "0X") {
		u, err := strconv.ParseUint(s[2:], 16, 64)
		if err != nil {
			return nil, literalError(a, err)
		}
		return &node{op: opConst, typ: untypedInt, pos: a.pos, ival: new(big.Int).SetUint64(u)}, nil
	}
	if strings.ContainsAny(s, ".eE") {
		f, err := strconv.ParseFloat(s, 64)
		if err != nil || strings.ContainsAny(s, "_xXpP") {
			return nil, literalError(a, err)
		}
		return &node{op: opConst, typ: untypedFloat, pos: a.pos, fval: f}, nil
	}
	u, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		return nil, literalError(a, err)
	}
	return &node{op: opConst, typ: untypedInt, pos: a.pos, ival: new(big.Int).SetUint64(u)}, nil
}

func literalError(a *ast, err error) *Error {
	if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
		return errorf(a.pos, a.text, "number %s out of range", a.text)
	}
	return errorf(a.pos, a.text, "malformed number %s", a.text)
}

func (ck *checker) ident(a *ast) (*node, error) {
	name := a.text
	if v, ok := ck.lets[name]; ok {
		if v.op == opLet {
			n := *v
			n.pos = a.pos
			return &n, nil
		}
		return v, nil
	}
	if t, ok := ck.sig.Arrays[name]; ok {
		return &node{op: opArray, typ: t, pos: a.pos, idx: indexOf(ck.c.arrays, name), name: name}, nil
	}
	if t, ok := ck.sig.Params[name]; ok {
		return &node{op: opParam, typ: t, pos: a.pos, idx: indexOf(ck.c.params, name), name: name}, nil
	}
	if _, ok := lookupFn(name); ok || typeByName(name) != invalid {
		return nil, errorf(a.pos, name, "%s is a function: call it, %s(...)", name, name)
	}
	return nil, errorf(a.pos, name, "unknown name %q (arrays: %s; parameters: %s)", name, nameList(ck.c.arrays), nameList(ck.c.params))
}

func indexOf(list []string, s string) int {
	for i, x := range list {
		if x == s {
			return i
		}
	}
	return -1
}

func needNumber(pos Pos, what string, n *node) error {
	if !n.typ.isNumeric() {
		return errorf(pos, what, "%s needs a number, got %v", what, n.typ)
	}
	return nil
}

func needBool(pos Pos, what string, n *node) error {
	if n.typ != boolType {
		return errorf(pos, what, "%s needs a boolean (a comparison), got %v", what, n.typ)
	}
	return nil
}

func unary(a *ast, x *node) (*node, error) {
	switch a.op {
	case "+":
		return x, needNumber(a.pos, "unary +", x)
	case "!":
		if err := needBool(a.pos, "!", x); err != nil {
			return nil, err
		}
		if x.isConst() {
			return &node{op: opConst, typ: boolType, pos: a.pos, bval: !x.bval}, nil
		}
		return &node{op: opNot, typ: boolType, pos: a.pos, args: []*node{x}}, nil
	}
	if err := needNumber(a.pos, "unary -", x); err != nil {
		return nil, err
	}
	if x.isConst() && x.typ.isUntyped() {
		n := *x
		n.pos = a.pos
		if x.typ == untypedInt {
			n.ival = new(big.Int).Neg(x.ival)
		} else {
			n.fval = -x.fval
		}
		return &n, nil
	}
	return &node{op: opNeg, typ: x.typ, pos: a.pos, args: []*node{x}}, nil
}

// unify gives the type two numeric operands are computed in: one typed
// type: the same; two floats: float64; an integer and a float: the float;
// two integer types: an error. An untyped constant takes the other's type;
// an untyped expression too, except that an untyped float expression with
// an integer promotes both to float64. Two untyped: untyped.
func unify(pos Pos, what string, x, y *node) (Type, error) {
	tx, ty := x.typ, y.typ
	switch {
	case tx == ty:
		return tx, nil
	case tx.isUntyped() && ty.isUntyped():
		return untypedFloat, nil
	case tx.isUntyped():
		return withUntyped(ty, x), nil
	case ty.isUntyped():
		return withUntyped(tx, y), nil
	case tx.IsFloat() && ty.IsFloat():
		return Float64, nil
	case tx.IsFloat():
		return tx, nil
	case ty.IsFloat():
		return ty, nil
	}
	return invalid, errorf(pos, what, "%s: mismatched types %v and %v (convert one, e.g. %v(...))", what, tx, ty, tx)
}

func withUntyped(t Type, u *node) Type {
	if u.typ == untypedFloat && !u.isConst() && t.IsInteger() {
		return Float64
	}
	return t
}

func binary(pos Pos, op opcode, x, y *node) (*node, error) {
	what := opText[op]
	if op == opAnd || op == opOr {
		if err := needBool(pos, what, x); err != nil {
			return nil, err
		}
		if err := needBool(pos, what, y); err != nil {
			return nil, err
		}
		if x.isConst() && y.isConst() {
			v := x.bval && y.bval
			if op == opOr {
				v = x.bval || y.bval
			}
			return &node{op: opConst, typ: boolType, pos: pos, bval: v}, nil
		}
		return &node{op: op, typ: boolType, pos: pos, args: []*node{x, y}}, nil
	}
	if (op == opEq || op == opNe) && x.typ == boolType && y.typ == boolType {
		if x.isConst() && y.isConst() {
			return &node{op: opConst, typ: boolType, pos: pos, bval: (x.bval == y.bval) == (op == opEq)}, nil
		}
		return &node{op: op, typ: boolType, pos: pos, args: []*node{x, y}}, nil
	}
	if err := needNumber(pos, what, x); err != nil {
		return nil, err
	}
	if err := needNumber(pos, what, y); err != nil {
		return nil, err
	}
	t, err := unify(pos, what, x, y)
	if err != nil {
		return nil, err
	}
	if op == opRem && !t.IsInteger() {
		return nil, errorf(pos, what, "%% needs integer operands, got %v", t)
	}
	cmp := op >= opLt && op <= opNe
	if t.isUntyped() {
		if x.isConst() && y.isConst() {
			return foldBinary(pos, op, x, y)
		}
		if cmp { // the operands need a type of their own
			t = defaultType(t)
		}
	}
	if x, err = convertTo(x, t, pos); err != nil {
		return nil, err
	}
	if y, err = convertTo(y, t, pos); err != nil {
		return nil, err
	}
	rt := t
	if cmp {
		rt = boolType
	}
	return &node{op: op, typ: rt, pos: pos, args: []*node{x, y}}, nil
}

func defaultType(t Type) Type {
	switch t {
	case untypedInt:
		return Int64
	case untypedFloat:
		return Float64
	}
	return t
}

func floatOf(n *node) float64 {
	if n.typ == untypedInt || n.typ.IsInteger() {
		f, _ := new(big.Float).SetInt(n.ival).Float64()
		return f
	}
	return n.fval
}

func foldBinary(pos Pos, op opcode, x, y *node) (*node, error) {
	if x.typ == untypedInt && y.typ == untypedInt {
		a, b := x.ival, y.ival
		r := new(big.Int)
		switch op {
		case opAdd:
			r.Add(a, b)
		case opSub:
			r.Sub(a, b)
		case opMul:
			r.Mul(a, b)
		case opDiv, opRem:
			if b.Sign() == 0 {
				return nil, errorf(pos, opText[op], "division by zero")
			}
			if op == opDiv {
				r.Quo(a, b)
			} else {
				r.Rem(a, b)
			}
		default:
			return &node{op: opConst, typ: boolType, pos: pos, bval: cmpResult(op, a.Cmp(b))}, nil
		}
		if r.BitLen() > 256 {
			return nil, errorf(pos, opText[op], "constant too large")
		}
		return &node{op: opConst, typ: untypedInt, pos: pos, ival: r}, nil
	}
	a, b := floatOf(x), floatOf(y)
	var r float64
	switch op {
	case opAdd:
		r = a + b
	case opSub:
		r = a - b
	case opMul:
		r = a * b
	case opDiv:
		if b == 0 {
			return nil, errorf(pos, "/", "division by zero")
		}
		r = a / b
	default:
		c := 0
		switch {
		case a < b:
			c = -1
		case a > b:
			c = 1
		case a != b: // NaN: only != holds
			return &node{op: opConst, typ: boolType, pos: pos, bval: op == opNe}, nil
		}
		return &node{op: opConst, typ: boolType, pos: pos, bval: cmpResult(op, c)}, nil
	}
	return &node{op: opConst, typ: untypedFloat, pos: pos, fval: r}, nil
}

func cmpResult(op opcode, c int) bool {
	switch op {
	case opLt:
		return c < 0
	case opLe:
		return c <= 0
	case opGt:
		return c > 0
	case opGe:
		return c >= 0
	case opEq:
		return c == 0
	}
	return c != 0
}

func cond(pos Pos, c, x, y *node) (*node, error) {
	if err := needBool(pos, "?:", c); err != nil {
		return nil, err
	}
	t := boolType
	if x.typ != boolType || y.typ != boolType {
		if err := needNumber(pos, "?:", x); err != nil {
			return nil, err
		}
		if err := needNumber(pos, "?:", y); err != nil {
			return nil, err
		}
		var err error
		if t, err = unify(pos, "?:", x, y); err != nil {
			return nil, err
		}
		if x, err = convertTo(x, t, pos); err != nil {
			return nil, err
		}
		if y, err = convertTo(y, t, pos); err != nil {
			return nil, err
		}
	}
	if c.isConst() {
		if c.bval {
			return x, nil
		}
		return y, nil
	}
	return &node{op: opCond, typ: t, pos: pos, args: []*node{c, x, y}}, nil
}

func (ck *checker) call(a *ast) (*node, error) {
	name := a.op
	var args []*node
	for _, s := range a.args {
		n, err := ck.expr(s)
		if err != nil {
			return nil, err
		}
		args = append(args, n)
	}
	if t := typeByName(name); t != invalid {
		if len(args) != 1 {
			return nil, errorf(a.pos, name, "%s takes 1 argument, got %d", name, len(args))
		}
		return convertExplicit(args[0], t, a.pos)
	}
	id, ok := lookupFn(name)
	if !ok {
		if _, isVar := ck.sig.Arrays[name]; isVar {
			return nil, errorf(a.pos, name, "%s is an array, not a function", name)
		}
		if _, isVar := ck.sig.Params[name]; isVar {
			return nil, errorf(a.pos, name, "%s is a parameter, not a function", name)
		}
		return nil, errorf(a.pos, name, "unknown function %q", name)
	}
	info := fns[id]
	if len(args) != info.nargs {
		s := "s"
		if info.nargs == 1 {
			s = ""
		}
		return nil, errorf(a.pos, name, "%s takes %d argument%s, got %d", name, info.nargs, s, len(args))
	}
	t := invalid
	allConst := true
	for i, x := range args {
		if err := needNumber(a.pos, name, x); err != nil {
			return nil, err
		}
		if i == 0 {
			t, allConst = x.typ, x.isConst()
			continue
		}
		// The arguments so far stand as one operand, constant if all are.
		prev := &node{typ: t, op: opAdd}
		if allConst {
			prev.op = opConst
		}
		var err error
		if t, err = unify(a.pos, name, prev, x); err != nil {
			return nil, err
		}
		allConst = allConst && x.isConst()
	}
	if !info.ints && t.IsInteger() {
		if t == untypedInt {
			t = untypedFloat
		} else {
			t = Float64
		}
	}
	if allConst && t.isUntyped() {
		return foldCall(a.pos, id, t, args)
	}
	for i := range args {
		var err error
		if args[i], err = convertTo(args[i], t, a.pos); err != nil {
			return nil, err
		}
	}
	return &node{op: opCall, fn: id, typ: t, pos: a.pos, args: args}, nil
}

func foldCall(pos Pos, id fnID, t Type, args []*node) (*node, error) {
	if t == untypedInt { // abs, min, max, clamp: exact
		v := func(i int) *big.Int { return args[i].ival }
		var r *big.Int
		switch id {
		case fnAbs:
			r = new(big.Int).Abs(v(0))
		case fnMin:
			r = bigMin(v(0), v(1))
		case fnMax:
			r = bigMax(v(0), v(1))
		case fnClamp:
			r = bigMin(bigMax(v(0), v(1)), v(2))
		}
		return &node{op: opConst, typ: untypedInt, pos: pos, ival: r}, nil
	}
	fs := make([]float64, len(args))
	for i, x := range args {
		fs[i] = floatOf(x)
	}
	return &node{op: opConst, typ: untypedFloat, pos: pos, fval: fns[id].fold(fs)}, nil
}

func bigMin(a, b *big.Int) *big.Int {
	if b.Cmp(a) < 0 {
		return b
	}
	return a
}

func bigMax(a, b *big.Int) *big.Int {
	if b.Cmp(a) > 0 {
		return b
	}
	return a
}

// convertTo gives n the type t, implicitly: untyped constants become typed
// ones (integers must fit, a float constant given to an integer type must
// be a whole number), untyped expressions are typed
// throughout, typed values are converted (C's conversions), a boolean
// becomes 0 or 1.
func convertTo(n *node, t Type, pos Pos) (*node, error) {
	if n.typ == t {
		return n, nil
	}
	if t.isUntyped() {
		// Two untyped operands of an untyped operation: an int one
		// becomes an untyped float one by its value.
		if n.typ == untypedInt && t == untypedFloat {
			if n.isConst() {
				return &node{op: opConst, typ: untypedFloat, pos: n.pos, fval: floatOf(n)}, nil
			}
			return n, nil // typed later as a whole
		}
		return n, nil
	}
	if n.isConst() {
		return constTo(n, t, pos, false)
	}
	if !n.typ.isUntyped() {
		return &node{op: opConv, typ: t, pos: pos, args: []*node{n}}, nil
	}
	// An untyped expression (a ?: or an operation of constants with a
	// non-constant condition inside). Integer division is not float
	// division: those keep an integer type, converted after.
	if t.IsInteger() && n.typ == untypedFloat || t.IsFloat() && n.typ == untypedInt && (n.op == opDiv || n.op == opRem) {
		d, err := convertTo(n, defaultType(n.typ), pos)
		if err != nil {
			return nil, err
		}
		return &node{op: opConv, typ: t, pos: pos, args: []*node{d}}, nil
	}
	m := *n
	m.typ = t
	m.args = make([]*node, len(n.args))
	for i, a := range n.args {
		m.args[i] = a
		if a.typ.isUntyped() {
			var err error
			if m.args[i], err = convertTo(a, t, a.pos); err != nil {
				return nil, err
			}
		}
	}
	return &m, nil
}

// convertExplicit is a conversion written out (float32(x)) or the
// assignment's: a float constant given to an integer type is truncated
// toward zero, as C converts.
func convertExplicit(n *node, t Type, pos Pos) (*node, error) {
	if n.isConst() && n.typ != t {
		return constTo(n, t, pos, true)
	}
	return convertTo(n, t, pos)
}

var intRange = map[Type][2]*big.Int{
	Int32:  {big.NewInt(math.MinInt32), big.NewInt(math.MaxInt32)},
	Uint32: {big.NewInt(0), big.NewInt(math.MaxUint32)},
	Int64:  {big.NewInt(math.MinInt64), big.NewInt(math.MaxInt64)},
	Uint64: {big.NewInt(0), new(big.Int).SetUint64(math.MaxUint64)},
}

func constTo(n *node, t Type, pos Pos, explicit bool) (*node, error) {
	r := &node{op: opConst, typ: t, pos: n.pos}
	switch {
	case n.typ == boolType:
		if !t.Valid() {
			return nil, errorf(pos, "", "cannot use bool as %v", t)
		}
		v := int64(0)
		if n.bval {
			v = 1
		}
		if t.IsFloat() {
			r.fval = float64(v)
		} else {
			r.ival = big.NewInt(v)
		}
		return r, nil
	case t.IsFloat():
		r.fval = floatOf(n)
		if t == Float32 {
			r.fval = float64(float32(r.fval))
		}
		return r, nil
	case t.IsInteger():
		v := n.ival
		if n.typ.IsFloat() {
			f := math.Trunc(n.fval)
			if math.IsNaN(f) || math.IsInf(f, 0) {
				return nil, errorf(pos, "", "constant %v cannot be %v", n.fval, t)
			}
			if f != n.fval && !explicit {
				return nil, errorf(pos, "", "constant %v is not an integer (%v operand; convert with %v(...) to truncate)", n.fval, t, t)
			}
			v, _ = new(big.Float).SetFloat64(f).Int(nil)
		}
		rg := intRange[t]
		if v.Cmp(rg[0]) < 0 || v.Cmp(rg[1]) > 0 {
			return nil, errorf(pos, v.String(), "constant %v overflows %v", v, t)
		}
		r.ival = v
		return r, nil
	}
	return nil, errorf(pos, "", "cannot convert %v to %v", n.typ, t)
}
