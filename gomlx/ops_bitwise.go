package gomlx

import (
	"fmt"
	"slices"
	"strings"

	gc "github.com/gomlx/compute"
	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/compute/shapeinference"
	"github.com/gomlx/compute/shapes"
	"github.com/pkg/errors"

	"github.com/gour-dev/gour/compute/expr"
)

// intBits describes an integer dtype as its storage holds it, for the
// C expressions of the bitwise operations: T its storage's C type, U the
// unsigned C type of the same width, S the storage's bits and W the
// dtype's (8 and 16 for the narrow dtypes, kept sign- or zero-extended).
type intBits struct {
	T, U    string
	S, W    int
	signed  bool
	cuda    bool
	wideU64 bool
	maskLit string // " & 0xFFu" where W < S, else ""
}

func newIntBits(backend string, dt dtypes.DType) intBits {
	t, _ := storageType(dt)
	ib := intBits{T: cType(backend, t), S: 8 * elemSize(t), W: dt.Bits(),
		signed: !dt.IsUnsigned(), cuda: backend == "cuda"}
	ut := expr.Uint32
	if ib.S == 64 {
		ut, ib.wideU64 = expr.Uint64, true
	}
	ib.U = cType(backend, ut)
	if ib.W < ib.S {
		ib.maskLit = fmt.Sprintf(" & 0x%Xu", uint64(1)<<ib.W-1)
	}
	return ib
}

// u is x as U.
func (ib intBits) u(x string) string { return fmt.Sprintf("((%s)%s)", ib.U, x) }

// fix converts u, of type U, to the dtype's storage: sign-extended from W
// bits for the narrow signed dtypes, masked to W bits for the unsigned.
func (ib intBits) fix(u string) string {
	switch {
	case ib.W == ib.S:
		return fmt.Sprintf("((%s)(%s))", ib.T, u)
	case ib.signed:
		return fmt.Sprintf("(((%s)((%s)(%s) << %d)) >> %d)", ib.T, ib.U, u, ib.S-ib.W, ib.S-ib.W)
	default:
		return fmt.Sprintf("((%s)((%s)%s))", ib.T, u, ib.maskLit)
	}
}

// big is whether a shift amount s shifts out every bit (Go's x << uint(s)
// with s negative or at least W).
func (ib intBits) big(s string) string {
	if ib.signed {
		return fmt.Sprintf("(%s < 0 || %s >= %d)", s, s, ib.W)
	}
	return fmt.Sprintf("(%s >= %du)", s, ib.W)
}

// bitwiseBody is the C expression of a bitwise operation of x0 (and x1).
func bitwiseBody(op gc.OpType, ib intBits) string {
	switch op {
	case gc.OpTypeBitwiseAnd:
		return ib.fix(ib.u("x0") + " & " + ib.u("x1"))
	case gc.OpTypeBitwiseOr:
		return ib.fix(ib.u("x0") + " | " + ib.u("x1"))
	case gc.OpTypeBitwiseXor:
		return ib.fix(ib.u("x0") + " ^ " + ib.u("x1"))
	case gc.OpTypeBitwiseNot:
		return ib.fix("~" + ib.u("x0"))
	case gc.OpTypeShiftLeft:
		return fmt.Sprintf("(%s ? (%s)0 : %s)", ib.big("x1"), ib.T, ib.fix(ib.u("x0")+" << x1"))
	case gc.OpTypeShiftRightArithmetic:
		if ib.signed {
			return fmt.Sprintf("(%s ? (x0 < 0 ? (%s)-1 : (%s)0) : (%s)(x0 >> x1))", ib.big("x1"), ib.T, ib.T, ib.T)
		}
		fallthrough
	case gc.OpTypeShiftRightLogical:
		return fmt.Sprintf("(%s ? (%s)0 : %s)", ib.big("x1"), ib.T, ib.fix("("+ib.u("x0")+ib.maskLit+") >> x1"))
	case gc.OpTypeBitCount:
		v := "(" + ib.u("x0") + ib.maskLit + ")"
		switch {
		case !ib.cuda:
			return fmt.Sprintf("((%s)popcount(%s))", ib.T, v)
		case ib.wideU64:
			return fmt.Sprintf("((%s)__popcll(%s))", ib.T, v)
		default:
			return fmt.Sprintf("((%s)__popc(%s))", ib.T, v)
		}
	case gc.OpTypeClz:
		v := "(" + ib.u("x0") + ib.maskLit + ")"
		switch {
		case !ib.cuda:
			return fmt.Sprintf("((%s)(clz(%s) - %d))", ib.T, v, ib.S-ib.W)
		case ib.wideU64:
			return fmt.Sprintf("((%s)(__clzll((long long)%s) - %d))", ib.T, v, ib.S-ib.W)
		default:
			return fmt.Sprintf("((%s)(__clz((int)%s) - %d))", ib.T, v, ib.S-ib.W)
		}
	}
	return ""
}

// bitwiseNode adds the node of a bitwise operation of inputs, of integer
// dtype dt and output shape out: a map kernel of the backend's own
// (compute/expr has no bitwise operators), so not fused.
func (f *Function) bitwiseNode(op gc.OpType, out shapes.Shape, ns []*node) (gc.Value, error) {
	dt := ns[0].shape.DType
	if !dt.IsInt() {
		return nil, errors.Errorf("gour backend: %s of %s, want an integer", op, ns[0].shape)
	}
	if err := f.builder.backend.checkDType(dt); err != nil {
		return nil, err
	}
	if out.Rank() > maxCopyRank {
		return nil, notImplemented("%s over %d axes (at most %d)", op, out.Rank(), maxCopyRank)
	}
	t, _ := storageType(dt)
	ins := make([]expr.Type, len(ns))
	inDims := make([][]int, len(ns))
	for i, n := range ns {
		ins[i] = t
		inDims[i] = slices.Clone(n.shape.Dimensions)
	}
	dims := slices.Clone(out.Dimensions)
	k := &mapKernel{
		name: fmt.Sprintf("gour_gomlx_%s_%s", strings.ToLower(op.String()), strings.ToLower(dt.String())),
		out:  t, ins: ins,
		body: func(backend string) string { return bitwiseBody(op, newIntBits(backend, dt)) },
	}
	return f.add(&node{op: op, shape: out, inputs: ns,
		run: func(b *Backend, sts []store) (store, error) {
			st, err := b.alloc(out)
			if err != nil {
				return nil, err
			}
			if err := b.runMap(k, st, dims, sts, inDims); err != nil {
				_ = st.release()
				return nil, err
			}
			return st, nil
		}}), nil
}

func (f *Function) bitwiseUnary(op gc.OpType, x gc.Value) (gc.Value, error) {
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
	return f.bitwiseNode(op, out, []*node{n})
}

func (f *Function) bitwiseBinary(op gc.OpType, lhs, rhs gc.Value) (gc.Value, error) {
	if err := f.check(); err != nil {
		return nil, err
	}
	ns, err := f.nodesOf(lhs, rhs)
	if err != nil {
		return nil, err
	}
	out, err := shapeinference.BinaryOp(op, ns[0].shape, ns[1].shape)
	if err != nil {
		return nil, err
	}
	return f.bitwiseNode(op, out, ns)
}

// BitwiseAnd implements compute.Function.
func (f *Function) BitwiseAnd(lhs, rhs gc.Value) (gc.Value, error) {
	return f.bitwiseBinary(gc.OpTypeBitwiseAnd, lhs, rhs)
}

// BitwiseOr implements compute.Function.
func (f *Function) BitwiseOr(lhs, rhs gc.Value) (gc.Value, error) {
	return f.bitwiseBinary(gc.OpTypeBitwiseOr, lhs, rhs)
}

// BitwiseXor implements compute.Function.
func (f *Function) BitwiseXor(lhs, rhs gc.Value) (gc.Value, error) {
	return f.bitwiseBinary(gc.OpTypeBitwiseXor, lhs, rhs)
}

// BitwiseNot implements compute.Function.
func (f *Function) BitwiseNot(x gc.Value) (gc.Value, error) {
	return f.bitwiseUnary(gc.OpTypeBitwiseNot, x)
}

// ShiftLeft implements compute.Function: as Go's x << uint(s), 0 where s
// is negative or at least the dtype's bits.
func (f *Function) ShiftLeft(lhs, rhs gc.Value) (gc.Value, error) {
	return f.bitwiseBinary(gc.OpTypeShiftLeft, lhs, rhs)
}

// ShiftRightArithmetic implements compute.Function: as Go's x >> uint(s)
// (sign-filling for signed dtypes, so -1 or 0 where s is negative or at
// least the dtype's bits; logical for unsigned ones).
func (f *Function) ShiftRightArithmetic(lhs, rhs gc.Value) (gc.Value, error) {
	return f.bitwiseBinary(gc.OpTypeShiftRightArithmetic, lhs, rhs)
}

// ShiftRightLogical implements compute.Function: the bits as unsigned,
// shifted with zeros in, 0 where s is negative or at least the dtype's
// bits.
func (f *Function) ShiftRightLogical(lhs, rhs gc.Value) (gc.Value, error) {
	return f.bitwiseBinary(gc.OpTypeShiftRightLogical, lhs, rhs)
}

// BitCount implements compute.Function: the number of 1 bits of the
// dtype's width.
func (f *Function) BitCount(x gc.Value) (gc.Value, error) {
	return f.bitwiseUnary(gc.OpTypeBitCount, x)
}

// Clz implements compute.Function: the leading zero bits of the dtype's
// width (its bits for 0).
func (f *Function) Clz(x gc.Value) (gc.Value, error) {
	return f.bitwiseUnary(gc.OpTypeClz, x)
}
