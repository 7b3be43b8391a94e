package expr

import "math"

// The builders of steps: each picks, once, the typed loop for an
// operation and the shapes of its operands, and returns a closure that
// finds the chunk's slices and calls it.

func typed[R any](t Type, f32, f64, i32, u32, i64, u64 func() R) R {
	switch t {
	case Float32:
		return f32()
	case Float64:
		return f64()
	case Int32:
		return i32()
	case Uint32:
		return u32()
	case Int64:
		return i64()
	case Uint64:
		return u64()
	}
	var zero R
	return zero
}

func buildStep(n *node, d operand, args []operand) step {
	if n.typ == boolType {
		if s := boolStep(n, d, args); s != nil {
			return s
		}
		a, b := args[0], args[1]
		return typed(a.typ,
			func() step { return cmpStep[float32](n.op, d, a, b) },
			func() step { return cmpStep[float64](n.op, d, a, b) },
			func() step { return cmpStep[int32](n.op, d, a, b) },
			func() step { return cmpStep[uint32](n.op, d, a, b) },
			func() step { return cmpStep[int64](n.op, d, a, b) },
			func() step { return cmpStep[uint64](n.op, d, a, b) })
	}
	return typed(n.typ,
		func() step { return floatStep[float32](n, d, args) },
		func() step { return floatStep[float64](n, d, args) },
		func() step { return intStep[int32](n, d, args) },
		func() step { return intStep[uint32](n, d, args) },
		func() step { return intStep[int64](n, d, args) },
		func() step { return intStep[uint64](n, d, args) })
}

func boolStep(n *node, d operand, args []operand) step {
	v := func(f *frame, o operand, off, n int) []bool { return vec[bool](f, o, off, n) }
	var k func(d, a, b []bool)
	switch {
	case n.op == opNot:
		a := args[0]
		return func(f *frame, off, n int) { notV(v(f, d, off, n), v(f, a, off, n)) }
	case n.op == opCond:
		c, a, b := args[0], args[1], args[2]
		return func(f *frame, off, n int) { selVV(v(f, d, off, n), v(f, c, off, n), v(f, a, off, n), v(f, b, off, n)) }
	case n.op == opAnd:
		k = andVV
	case n.op == opOr:
		k = orVV
	case args[0].typ == boolType && n.op == opEq:
		k = eqBVV
	case args[0].typ == boolType && n.op == opNe:
		k = neBVV
	default:
		return nil
	}
	a, b := args[0], args[1]
	return func(f *frame, off, n int) { k(v(f, d, off, n), v(f, a, off, n), v(f, b, off, n)) }
}

func cmpStep[T number](op opcode, d, a, b operand) step {
	type kern = func(d []bool, a, b []T)
	type kernS = func(d []bool, a []T, b T)
	var vv kern
	var vs kernS
	mirror := op
	switch op {
	case opLt:
		vv, vs, mirror = ltVV[T], ltVS[T], opGt
	case opLe:
		vv, vs, mirror = leVV[T], leVS[T], opGe
	case opGt:
		vv, vs, mirror = gtVV[T], gtVS[T], opLt
	case opGe:
		vv, vs, mirror = geVV[T], geVS[T], opLe
	case opEq:
		vv, vs = eqVV[T], eqVS[T]
	case opNe:
		vv, vs = neVV[T], neVS[T]
	default:
		return nil
	}
	if a.scalar() { // s < v is v > s
		return cmpStep[T](mirror, d, b, a)
	}
	if b.scalar() {
		return func(f *frame, off, n int) {
			vs(vec[bool](f, d, off, n), vec[T](f, a, off, n), scalar[T](f, b))
		}
	}
	return func(f *frame, off, n int) {
		vv(vec[bool](f, d, off, n), vec[T](f, a, off, n), vec[T](f, b, off, n))
	}
}

func bin[T number](d, a, b operand, vv func(d, a, b []T), vs func(d, a []T, b T), sv func(d []T, a T, b []T)) step {
	switch {
	case a.scalar():
		return func(f *frame, off, n int) { sv(vec[T](f, d, off, n), scalar[T](f, a), vec[T](f, b, off, n)) }
	case b.scalar():
		return func(f *frame, off, n int) { vs(vec[T](f, d, off, n), vec[T](f, a, off, n), scalar[T](f, b)) }
	}
	return func(f *frame, off, n int) { vv(vec[T](f, d, off, n), vec[T](f, a, off, n), vec[T](f, b, off, n)) }
}

func un[T number](d, a operand, k func(d, a []T)) step {
	return func(f *frame, off, n int) { k(vec[T](f, d, off, n), vec[T](f, a, off, n)) }
}

func tri[T number](d, a, b, c operand, k func(d, a, b, c []T)) step {
	return func(f *frame, off, n int) {
		k(vec[T](f, d, off, n), vec[T](f, a, off, n), vec[T](f, b, off, n), vec[T](f, c, off, n))
	}
}

// numStep builds the operations defined alike on every numeric type.
func numStep[T number](n *node, d operand, args []operand) step {
	switch n.op {
	case opAdd:
		return bin(d, args[0], args[1], addVV[T], addVS[T], addSV[T])
	case opSub:
		return bin(d, args[0], args[1], subVV[T], subVS[T], subSV[T])
	case opMul:
		return bin(d, args[0], args[1], mulVV[T], mulVS[T], mulSV[T])
	case opNeg:
		return un(d, args[0], negV[T])
	case opCond:
		return selStep[T](d, args[0], args[1], args[2])
	case opConv:
		return convStep[T](d, args[0])
	case opCall:
		switch n.fn {
		case fnMin:
			return bin(d, args[0], args[1], minVV[T], minVS[T], minSV[T])
		case fnMax:
			return bin(d, args[0], args[1], maxVV[T], maxVS[T], maxSV[T])
		case fnClamp:
			return tri(d, args[0], args[1], args[2], clampVVV[T])
		}
	}
	return nil
}

func floatStep[T float](n *node, d operand, args []operand) step {
	switch n.op {
	case opDiv:
		return bin(d, args[0], args[1], divFVV[T], divFVS[T], divFSV[T])
	case opCall:
		a := args[0]
		switch n.fn {
		case fnSqrt:
			return un(d, a, sqrtV[T])
		case fnRsqrt:
			return un(d, a, rsqrtV[T])
		case fnAbs:
			return un(d, a, absV[T])
		case fnFloor:
			return un(d, a, floorV[T])
		case fnCeil:
			return un(d, a, ceilV[T])
		case fnPow:
			if args[1].scalar() {
				b := args[1]
				return func(f *frame, off, n int) { powVS(vec[T](f, d, off, n), vec[T](f, a, off, n), scalar[T](f, b)) }
			}
			return func(f *frame, off, n int) {
				powVV(vec[T](f, d, off, n), vec[T](f, a, off, n), vec[T](f, args[1], off, n))
			}
		case fnFma:
			return tri(d, args[0], args[1], args[2], fmaVVV[T])
		}
		if fn := mathFuncs[n.fn]; fn != nil {
			return func(f *frame, off, n int) { mathV(vec[T](f, d, off, n), vec[T](f, a, off, n), fn) }
		}
	}
	return numStep[T](n, d, args)
}

var mathFuncs = map[fnID]func(float64) float64{
	fnExp: math.Exp, fnExp2: math.Exp2, fnLog: math.Log, fnLog2: math.Log2, fnLog10: math.Log10,
	fnSin: math.Sin, fnCos: math.Cos, fnTan: math.Tan, fnTanh: math.Tanh, fnRound: math.Round,
}

func intStep[T integer](n *node, d operand, args []operand) step {
	switch {
	case n.op == opDiv:
		return bin(d, args[0], args[1], divIVV[T], divIVS[T], divISV[T])
	case n.op == opRem:
		return bin(d, args[0], args[1], remIVV[T], remIVS[T], remISV[T])
	case n.op == opCall && n.fn == fnAbs:
		return un(d, args[0], absI[T])
	}
	return numStep[T](n, d, args)
}

func selStep[T number](d, c, a, b operand) step {
	cv := func(f *frame, off, n int) []bool { return vec[bool](f, c, off, n) }
	switch {
	case a.scalar() && b.scalar():
		return func(f *frame, off, n int) {
			selSS(vec[T](f, d, off, n), cv(f, off, n), scalar[T](f, a), scalar[T](f, b))
		}
	case a.scalar():
		return func(f *frame, off, n int) {
			selSV(vec[T](f, d, off, n), cv(f, off, n), scalar[T](f, a), vec[T](f, b, off, n))
		}
	case b.scalar():
		return func(f *frame, off, n int) {
			selVS(vec[T](f, d, off, n), cv(f, off, n), vec[T](f, a, off, n), scalar[T](f, b))
		}
	}
	return func(f *frame, off, n int) {
		selVV(vec[T](f, d, off, n), cv(f, off, n), vec[T](f, a, off, n), vec[T](f, b, off, n))
	}
}

func convStep[B number](d, a operand) step {
	if a.typ == boolType {
		return func(f *frame, off, n int) { convBoolV(vec[B](f, d, off, n), vec[bool](f, a, off, n)) }
	}
	return typed(a.typ,
		func() step { return conv1[float32, B](d, a) },
		func() step { return conv1[float64, B](d, a) },
		func() step { return conv1[int32, B](d, a) },
		func() step { return conv1[uint32, B](d, a) },
		func() step { return conv1[int64, B](d, a) },
		func() step { return conv1[uint64, B](d, a) })
}

func conv1[A, B number](d, a operand) step {
	return func(f *frame, off, n int) { convV(vec[B](f, d, off, n), vec[A](f, a, off, n)) }
}

// moveStep copies src (a vector, or a scalar broadcast) to d, of one type.
func moveStep(d, src operand) step {
	if d.typ == boolType {
		if src.scalar() {
			return func(f *frame, off, n int) { fill(vec[bool](f, d, off, n), f.slots[src.idx] != 0) }
		}
		return func(f *frame, off, n int) { copy(vec[bool](f, d, off, n), vec[bool](f, src, off, n)) }
	}
	return typed(d.typ,
		func() step { return move1[float32](d, src) },
		func() step { return move1[float64](d, src) },
		func() step { return move1[int32](d, src) },
		func() step { return move1[uint32](d, src) },
		func() step { return move1[int64](d, src) },
		func() step { return move1[uint64](d, src) })
}

func move1[T number](d, src operand) step {
	if src.scalar() {
		return func(f *frame, off, n int) { fill(vec[T](f, d, off, n), scalar[T](f, src)) }
	}
	return func(f *frame, off, n int) { copy(vec[T](f, d, off, n), vec[T](f, src, off, n)) }
}

// storeStep saves the first element of o, computed once per Run, in
// slot s.
func storeStep(s, o operand) step {
	if o.typ == boolType {
		return func(f *frame, _, _ int) {
			f.slots[s.idx] = 0
			if vec[bool](f, o, 0, 1)[0] {
				f.slots[s.idx] = 1
			}
		}
	}
	return typed(o.typ,
		func() step { return store1[float32](s, o) },
		func() step { return store1[float64](s, o) },
		func() step { return store1[int32](s, o) },
		func() step { return store1[uint32](s, o) },
		func() step { return store1[int64](s, o) },
		func() step { return store1[uint64](s, o) })
}

func store1[T number](s, o operand) step {
	return func(f *frame, _, _ int) { f.slots[s.idx] = toBits(vec[T](f, o, 0, 1)[0]) }
}

func muladdStep(d operand, ops [3]operand) step {
	return typed(d.typ,
		func() step { return muladd1[float32](d, ops) },
		func() step { return muladd1[float64](d, ops) },
		func() step { return muladd1[int32](d, ops) },
		func() step { return muladd1[uint32](d, ops) },
		func() step { return muladd1[int64](d, ops) },
		func() step { return muladd1[uint64](d, ops) })
}

func muladd1[T number](d operand, ops [3]operand) step {
	a, b, c := ops[0], ops[1], ops[2]
	switch {
	case a.scalar() && c.scalar():
		return func(f *frame, off, n int) {
			muladdSVS(vec[T](f, d, off, n), scalar[T](f, a), vec[T](f, b, off, n), scalar[T](f, c))
		}
	case a.scalar():
		return func(f *frame, off, n int) {
			muladdSVV(vec[T](f, d, off, n), scalar[T](f, a), vec[T](f, b, off, n), vec[T](f, c, off, n))
		}
	case c.scalar():
		return func(f *frame, off, n int) {
			muladdVVS(vec[T](f, d, off, n), vec[T](f, a, off, n), vec[T](f, b, off, n), scalar[T](f, c))
		}
	}
	return func(f *frame, off, n int) {
		muladdVVV(vec[T](f, d, off, n), vec[T](f, a, off, n), vec[T](f, b, off, n), vec[T](f, c, off, n))
	}
}
