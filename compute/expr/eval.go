package expr

import (
	"errors"
	"fmt"
	"math"
	"sync"
)

// chunkLen is how many elements each operation of the evaluator computes
// at a time: enough that the indirect call and the operand lookups of an
// operation are paid once per 1024 elements, few enough that the
// temporaries of an expression stay in the L1 and L2 caches.
const chunkLen = 1024

// Evaluator computes a Compiled function on the CPU. It is safe for
// concurrent use: each Run takes its own temporaries (from a pool), so
// goroutines may run disjoint ranges of one output at once.
//
// An Evaluator is a list of operations over chunks: each node of the
// expression is one typed Go loop writing a temporary slice of up to 1024
// elements (or the output itself, for the last), reading array inputs in
// place and scalars from slots. Subexpressions of parameters and
// constants alone are computed once per Run, before the chunks; a*x+y
// and its variants are one fused loop.
type Evaluator struct {
	c       *Compiled
	pre     []step   // once per Run, on one element: the uniform values
	main    []step   // per chunk
	slots   []uint64 // initial slots: parameters (set by Run), constants, uniforms
	temps   []Type   // each temporary's type
	chunked bool     // main uses temporaries: run it chunk by chunk
	pool    sync.Pool
}

type opKind uint8

const (
	kArray opKind = iota
	kTemp
	kSlot
	kOut
)

// operand is where an operation's input or output lives for a chunk.
type operand struct {
	kind opKind
	idx  int
	typ  Type
}

func (o operand) scalar() bool { return o.kind == kSlot }

type frame struct {
	arrays []any
	out    any
	temps  []any
	slots  []uint64
}

type step func(f *frame, off, n int)

func vec[T number | bool](f *frame, o operand, off, n int) []T {
	switch o.kind {
	case kArray:
		return f.arrays[o.idx].([]T)[off : off+n]
	case kOut:
		return f.out.([]T)[off : off+n]
	}
	return f.temps[o.idx].([]T)[:n]
}

func scalar[T number](f *frame, o operand) T { return fromBits[T](f.slots[o.idx]) }

func fromBits[T number](b uint64) T {
	var z T
	switch any(z).(type) {
	case float32:
		return T(math.Float32frombits(uint32(b)))
	case float64:
		return T(math.Float64frombits(b))
	}
	return T(b)
}

func toBits[T number](v T) uint64 {
	switch x := any(v).(type) {
	case float32:
		return uint64(math.Float32bits(x))
	case float64:
		return math.Float64bits(x)
	}
	return uint64(v)
}

// Evaluator returns the CPU evaluator of c.
func (c *Compiled) Evaluator() (*Evaluator, error) {
	e := &Evaluator{c: c, slots: make([]uint64, len(c.params))}
	cp := &compiler{e: e, free: map[Type][]int{}, pinned: map[int]bool{}, uniform: map[*node]bool{}}
	for _, l := range c.lets {
		o, err := cp.compile(l, nil)
		if err != nil {
			return nil, err
		}
		if o.kind == kTemp {
			cp.pinned[o.idx] = true // read until the end of the chunk
		}
		cp.lets = append(cp.lets, o)
	}
	out := operand{kind: kOut, typ: c.outType}
	if _, err := cp.compile(c.root, &out); err != nil {
		return nil, err
	}
	e.chunked = cp.mainTemps
	e.pool.New = func() any {
		f := &frame{slots: make([]uint64, len(e.slots)), temps: make([]any, len(e.temps))}
		for i, t := range e.temps {
			f.temps[i] = makeSlice(t, chunkLen)
		}
		return f
	}
	return e, nil
}

func makeSlice(t Type, n int) any {
	switch t {
	case Float32:
		return make([]float32, n)
	case Float64:
		return make([]float64, n)
	case Int32:
		return make([]int32, n)
	case Uint32:
		return make([]uint32, n)
	case Int64:
		return make([]int64, n)
	case Uint64:
		return make([]uint64, n)
	}
	return make([]bool, n)
}

func sliceType(v any) (Type, int) {
	switch s := v.(type) {
	case []float32:
		return Float32, len(s)
	case []float64:
		return Float64, len(s)
	case []int32:
		return Int32, len(s)
	case []uint32:
		return Uint32, len(s)
	case []int64:
		return Int64, len(s)
	case []uint64:
		return Uint64, len(s)
	}
	return invalid, 0
}

// ErrArgs is wrapped by the errors of Run for arguments that do not match
// the function's signature.
var ErrArgs = errors.New("expr: arguments do not match the signature")

// Run computes out[lo:hi]: out is a slice of the output's Go type
// ([]float32 for Float32, ...), arrays one slice per array input in the
// order of Compiled.Arrays, each of its type, params one value per
// parameter in the order of Compiled.Params (any Go number, converted as
// Go converts). Every slice must hold at least hi elements. out may be
// one of the arrays (computed in place) but must not overlap one
// otherwise. Types are checked once per call, not per element. Run may be
// called from several goroutines at once, for disjoint ranges of out.
func (e *Evaluator) Run(out any, arrays []any, params []any, lo, hi int) (err error) {
	c := e.c
	t, n := sliceType(out)
	if t != c.outType {
		return fmt.Errorf("%w: output %s is %T, want []%v", ErrArgs, c.outName, out, c.outType)
	}
	if lo < 0 || lo > hi || hi > n {
		return fmt.Errorf("%w: range [%d, %d) of an output of %d elements", ErrArgs, lo, hi, n)
	}
	if len(arrays) != len(c.arrays) {
		return fmt.Errorf("%w: %d arrays, want %d (%s)", ErrArgs, len(arrays), len(c.arrays), nameList(c.arrays))
	}
	for i, a := range arrays {
		t, n := sliceType(a)
		if t != c.arrayTypes[i] {
			return fmt.Errorf("%w: array %s is %T, want []%v", ErrArgs, c.arrays[i], a, c.arrayTypes[i])
		}
		if n < hi {
			return fmt.Errorf("%w: array %s has %d elements, want at least %d", ErrArgs, c.arrays[i], n, hi)
		}
	}
	if len(params) != len(c.params) {
		return fmt.Errorf("%w: %d parameters, want %d (%s)", ErrArgs, len(params), len(c.params), nameList(c.params))
	}
	f := e.pool.Get().(*frame)
	copy(f.slots, e.slots)
	for i, p := range params {
		b, ok := paramBits(p, c.paramTypes[i])
		if !ok {
			e.pool.Put(f)
			return fmt.Errorf("%w: parameter %s is %T, want a number", ErrArgs, c.params[i], p)
		}
		f.slots[i] = b
	}
	f.out, f.arrays = out, arrays
	defer func() {
		// An evaluator bug must not crash the caller: it becomes an error.
		if r := recover(); r != nil {
			err = fmt.Errorf("expr: internal error evaluating %s: %v", c.canon, r)
		}
		f.out, f.arrays = nil, nil
		e.pool.Put(f)
	}()
	for _, s := range e.pre {
		s(f, 0, 1)
	}
	if !e.chunked {
		if hi > lo {
			for _, s := range e.main {
				s(f, lo, hi-lo)
			}
		}
		return nil
	}
	for off := lo; off < hi; off += chunkLen {
		n := min(chunkLen, hi-off)
		for _, s := range e.main {
			s(f, off, n)
		}
	}
	return nil
}

func paramBits(v any, t Type) (uint64, bool) {
	switch x := v.(type) {
	case float32:
		return bitsAs(x, t), true
	case float64:
		return bitsAs(x, t), true
	case int32:
		return bitsAs(x, t), true
	case uint32:
		return bitsAs(x, t), true
	case int64:
		return bitsAs(x, t), true
	case uint64:
		return bitsAs(x, t), true
	case int:
		return bitsAs(int64(x), t), true
	case uint:
		return bitsAs(uint64(x), t), true
	case int8:
		return bitsAs(int64(x), t), true
	case int16:
		return bitsAs(int64(x), t), true
	case uint8:
		return bitsAs(uint64(x), t), true
	case uint16:
		return bitsAs(uint64(x), t), true
	case uintptr:
		return bitsAs(uint64(x), t), true
	}
	return 0, false
}

func bitsAs[S number](x S, t Type) uint64 {
	switch t {
	case Float32:
		return toBits(float32(x))
	case Float64:
		return toBits(float64(x))
	case Int32:
		return toBits(int32(x))
	case Uint32:
		return toBits(uint32(x))
	case Int64:
		return toBits(int64(x))
	}
	return toBits(uint64(x))
}

// compiler turns the checked tree into the evaluator's steps.
type compiler struct {
	e         *Evaluator
	free      map[Type][]int // free temporaries by type
	pinned    map[int]bool   // temporaries of lets: never freed
	lets      []operand
	uniform   map[*node]bool
	inPre     bool
	mainTemps bool
}

func (cp *compiler) isUniform(n *node) bool {
	if u, ok := cp.uniform[n]; ok {
		return u
	}
	u := true
	switch n.op {
	case opArray:
		u = false
	case opLet:
		u = cp.lets[n.idx].kind == kSlot
	}
	for _, a := range n.args {
		u = cp.isUniform(a) && u
	}
	cp.uniform[n] = u
	return u
}

func (cp *compiler) temp(t Type) operand {
	if !cp.inPre {
		cp.mainTemps = true
	}
	if l := cp.free[t]; len(l) > 0 {
		cp.free[t] = l[:len(l)-1]
		return operand{kind: kTemp, idx: l[len(l)-1], typ: t}
	}
	cp.e.temps = append(cp.e.temps, t)
	return operand{kind: kTemp, idx: len(cp.e.temps) - 1, typ: t}
}

func (cp *compiler) release(o operand) {
	if o.kind == kTemp && !cp.pinned[o.idx] {
		cp.free[o.typ] = append(cp.free[o.typ], o.idx)
	}
}

func (cp *compiler) slot(bits uint64, t Type) operand {
	cp.e.slots = append(cp.e.slots, bits)
	return operand{kind: kSlot, idx: len(cp.e.slots) - 1, typ: t}
}

func (cp *compiler) emit(s step) {
	if cp.inPre {
		cp.e.pre = append(cp.e.pre, s)
	} else {
		cp.e.main = append(cp.e.main, s)
	}
}

func constBits(n *node) uint64 {
	switch n.typ {
	case boolType:
		if n.bval {
			return 1
		}
		return 0
	case Float32:
		return toBits(float32(n.fval))
	case Float64:
		return toBits(n.fval)
	}
	if n.ival.Sign() < 0 {
		return uint64(n.ival.Int64())
	}
	return n.ival.Uint64()
}

// compile emits the steps computing n and returns where its value is;
// with dst, into dst.
func (cp *compiler) compile(n *node, dst *operand) (operand, error) {
	o, err := cp.value(n, dst)
	if err != nil || dst == nil || o == *dst {
		return o, err
	}
	// A leaf, or a value computed before (a let, a uniform): copied.
	cp.emit(moveStep(*dst, o))
	cp.release(o)
	return *dst, nil
}

func (cp *compiler) value(n *node, dst *operand) (operand, error) {
	switch n.op {
	case opArray:
		return operand{kind: kArray, idx: n.idx, typ: n.typ}, nil
	case opParam:
		return operand{kind: kSlot, idx: n.idx, typ: n.typ}, nil
	case opConst:
		return cp.slot(constBits(n), n.typ), nil
	case opLet:
		return cp.lets[n.idx], nil
	}
	if !cp.inPre && cp.isUniform(n) {
		cp.inPre = true
		o, err := cp.value(n, nil)
		cp.inPre = false
		if err != nil {
			return o, err
		}
		s := cp.slot(0, n.typ)
		cp.e.pre = append(cp.e.pre, storeStep(s, o))
		cp.release(o)
		return s, nil
	}
	// a*b + c, either way round: one loop.
	if n.op == opAdd {
		for i, m := range n.args {
			if m.op == opMul && !(cp.inPre || cp.isUniform(m)) {
				return cp.muladd(n, m.args[0], m.args[1], n.args[1-i], dst)
			}
		}
	}
	args := make([]operand, len(n.args))
	for i, a := range n.args {
		o, err := cp.value(a, nil)
		if err != nil {
			return o, err
		}
		args[i] = o
	}
	cp.vectorize(n, args)
	for _, a := range args {
		cp.release(a)
	}
	var d operand
	if dst != nil {
		d = *dst
	} else {
		d = cp.temp(n.typ)
	}
	s := buildStep(n, d, args)
	if s == nil {
		return d, fmt.Errorf("expr: internal error: no evaluator for %s on %v", opName(n), n.typ)
	}
	cp.emit(s)
	return d, nil
}

func opName(n *node) string {
	if n.op == opCall {
		return fns[n.fn].name
	}
	if s, ok := opText[n.op]; ok {
		return s
	}
	return fmt.Sprint("op ", n.op)
}

// vectorize broadcasts the scalar operands that the operation has no loop
// for into temporaries.
func (cp *compiler) vectorize(n *node, args []operand) {
	bcast := func(i int) {
		d := cp.temp(args[i].typ)
		cp.emit(moveStep(d, args[i]))
		args[i] = d
	}
	switch {
	case len(args) == 1:
		if args[0].scalar() {
			bcast(0)
		}
	case n.op == opCond && n.typ != boolType:
		if args[0].scalar() {
			bcast(0)
		}
	case len(args) == 2 && hasScalarLoops(n):
		if args[0].scalar() && args[1].scalar() {
			bcast(0)
		}
		if n.op == opCall && n.fn == fnPow && args[0].scalar() {
			bcast(0)
		}
	default:
		for i := range args {
			if args[i].scalar() {
				bcast(i)
			}
		}
	}
}

func hasScalarLoops(n *node) bool {
	switch n.op {
	case opAnd, opOr:
		return false
	case opEq, opNe:
		return n.args[0].typ != boolType
	case opCall:
		return n.fn == fnMin || n.fn == fnMax || n.fn == fnPow
	}
	return true
}

func (cp *compiler) muladd(n, a, b, c *node, dst *operand) (operand, error) {
	var ops [3]operand
	for i, m := range []*node{a, b, c} {
		o, err := cp.value(m, nil)
		if err != nil {
			return o, err
		}
		ops[i] = o
	}
	if ops[1].scalar() && !ops[0].scalar() {
		ops[0], ops[1] = ops[1], ops[0]
	}
	for _, o := range ops {
		cp.release(o)
	}
	var d operand
	if dst != nil {
		d = *dst
	} else {
		d = cp.temp(n.typ)
	}
	cp.emit(muladdStep(d, ops))
	return d, nil
}
