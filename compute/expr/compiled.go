package expr

import (
	"math"
	"strconv"
	"strings"
)

// OutName is the output's name, as assigned in the source.
func (c *Compiled) OutName() string { return c.outName }

// Out is the output's type.
func (c *Compiled) Out() Type { return c.outType }

// Arrays are the array inputs' names in argument order: sorted by name.
// Every array of the Signature is there, used or not.
func (c *Compiled) Arrays() []string { return append([]string(nil), c.arrays...) }

// ArrayTypes are the array inputs' types, in the order of Arrays.
func (c *Compiled) ArrayTypes() []Type { return append([]Type(nil), c.arrayTypes...) }

// Params are the scalar parameters' names in argument order: sorted by
// name. Every parameter of the Signature is there, used or not.
func (c *Compiled) Params() []string { return append([]string(nil), c.params...) }

// ParamTypes are the parameters' types, in the order of Params.
func (c *Compiled) ParamTypes() []Type { return append([]Type(nil), c.paramTypes...) }

// String is the checked function in the language itself, every
// conversion and constant's type written out and every operation
// parenthesized: compiling it again with the same Signature gives the
// same function.
func (c *Compiled) String() string { return c.canon }

// Key identifies the generated code for caching built programs: the
// signature (output, arrays and parameters with their types, in argument
// order) and the normalized function. Two Compiled with one Key generate
// the same kernels for one kernel name; parameter values are not part of
// it.
func (c *Compiled) Key() string { return c.key }

func (c *Compiled) makeKey() string {
	var b strings.Builder
	b.WriteString("expr/v2;out ")
	b.WriteString(c.outType.String())
	for i, n := range c.arrays {
		b.WriteString(";array " + n + " " + c.arrayTypes[i].String())
	}
	for i, n := range c.params {
		b.WriteString(";param " + n + " " + c.paramTypes[i].String())
	}
	b.WriteString(";")
	b.WriteString(c.canon)
	return b.String()
}

func (c *Compiled) canonical() string {
	var b strings.Builder
	for i, l := range c.lets {
		b.WriteString("let " + c.letNames[i] + " = ")
		writeCanon(&b, c, l)
		b.WriteString("; ")
	}
	b.WriteString(c.outName + " = ")
	writeCanon(&b, c, c.root)
	return b.String()
}

func writeCanon(b *strings.Builder, c *Compiled, n *node) {
	switch n.op {
	case opConst:
		b.WriteString(canonConst(n))
	case opArray, opParam:
		b.WriteString(n.name)
	case opLet:
		b.WriteString(c.letNames[n.idx])
	case opNeg, opNot:
		b.WriteString("(" + opText[n.op])
		writeCanon(b, c, n.args[0])
		b.WriteString(")")
	case opCond:
		b.WriteString("(")
		writeCanon(b, c, n.args[0])
		b.WriteString(" ? ")
		writeCanon(b, c, n.args[1])
		b.WriteString(" : ")
		writeCanon(b, c, n.args[2])
		b.WriteString(")")
	case opConv:
		b.WriteString(n.typ.String() + "(")
		writeCanon(b, c, n.args[0])
		b.WriteString(")")
	case opCall:
		b.WriteString(fns[n.fn].name + "(")
		for i, a := range n.args {
			if i > 0 {
				b.WriteString(", ")
			}
			writeCanon(b, c, a)
		}
		b.WriteString(")")
	default:
		b.WriteString("(")
		writeInfix(b, c, n)
		b.WriteString(")")
	}
}

// writeInfix writes a binary operation without its parentheses, and a
// chain of operators of one precedence as one (x + y - z), which reads
// back as the same tree: with parentheses around each operation, a
// chain longer than the parser's nesting limit would not read back.
func writeInfix(b *strings.Builder, c *Compiled, n *node) {
	if l := n.args[0]; sameLevel(l.op, n.op) {
		writeInfix(b, c, l)
	} else {
		writeCanon(b, c, l)
	}
	b.WriteString(" " + opText[n.op] + " ")
	writeCanon(b, c, n.args[1])
}

// canonConst writes a typed constant so that it reads back as itself:
// non-finite values as constant expressions that fold to them.
func canonConst(n *node) string {
	if n.typ == boolType {
		if n.bval {
			return "(0 == 0)"
		}
		return "(0 != 0)"
	}
	t := n.typ.String()
	if n.typ.IsInteger() {
		return t + "(" + n.ival.String() + ")"
	}
	switch f := n.fval; {
	case math.IsNaN(f):
		return t + "(sqrt(-1.0))"
	case math.IsInf(f, 1):
		return t + "(-log(0.0))"
	case math.IsInf(f, -1):
		return t + "(log(0.0))"
	}
	return t + "(" + floatText(n.fval, n.typ) + ")"
}

// floatText is the shortest decimal that reads back as f in t's
// precision, always with a point or an exponent.
func floatText(f float64, t Type) string {
	bits := 64
	if t == Float32 {
		bits = 32
	}
	s := strconv.FormatFloat(f, 'g', -1, bits)
	if !strings.ContainsAny(s, ".eEn") {
		s += ".0"
	}
	return s
}
