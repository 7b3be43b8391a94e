package compute

import (
	"fmt"
	"math"
)

// ReduceOp is an associative and commutative operator with its
// identity, for Reduce: Combine on the CPU context and Expr on devices.
// The CPU context combines chunks in order; a device combines elements
// a stride apart and then the work-items' values in a tree, so it needs
// commutativity, and an only approximately associative operator
// (floating-point addition) gives results differing by rounding.
type ReduceOp[T Number] struct {
	// Name is a C identifier: part of the kernels' names and of the
	// cache key, so two operators of one type need two names.
	Name string
	// Identity is the operator's neutral element, and the result of
	// reducing no elements.
	Identity T
	// Combine is the operator on the CPU.
	Combine func(a, b T) T
	// Expr is the operator as a C expression of a and b of the element
	// type, valid in OpenCL C and CUDA C ("a + b", "max(a, b)").
	Expr string

	builtin bool
}

// Sum is addition, identity 0.
func Sum[T Number]() ReduceOp[T] {
	return ReduceOp[T]{Name: "sum", Identity: 0, Combine: func(a, b T) T { return a + b }, Expr: "a + b", builtin: true}
}

// Prod is multiplication, identity 1.
func Prod[T Number]() ReduceOp[T] {
	return ReduceOp[T]{Name: "prod", Identity: 1, Combine: func(a, b T) T { return a * b }, Expr: "a * b", builtin: true}
}

// Min is the minimum, identity the largest T (+Inf for floats).
func Min[T Number]() ReduceOp[T] {
	return ReduceOp[T]{Name: "min", Identity: highest[T](), Combine: func(a, b T) T {
		if b < a {
			return b
		}
		return a
	}, Expr: "b < a ? b : a", builtin: true}
}

// Max is the maximum, identity the lowest T (-Inf for floats).
func Max[T Number]() ReduceOp[T] {
	return ReduceOp[T]{Name: "max", Identity: lowest[T](), Combine: func(a, b T) T {
		if b > a {
			return b
		}
		return a
	}, Expr: "b > a ? b : a", builtin: true}
}

// highest and lowest go through variables: a constant conversion to T
// must hold for every type of Number, a run-time one only for T.
func highest[T Number]() T {
	inf, i32, u32, i64, u64 := math.Inf(1), int64(math.MaxInt32), uint64(math.MaxUint32), int64(math.MaxInt64), uint64(math.MaxUint64)
	switch typeOf[T]() {
	case typeF32, typeF64:
		return T(inf)
	case typeI32:
		return T(i32)
	case typeU32:
		return T(u32)
	case typeI64:
		return T(i64)
	}
	return T(u64)
}

func lowest[T Number]() T {
	inf, i32, i64 := math.Inf(-1), int64(math.MinInt32), int64(math.MinInt64)
	switch typeOf[T]() {
	case typeF32, typeF64:
		return T(inf)
	case typeI32:
		return T(i32)
	case typeI64:
		return T(i64)
	}
	return 0 // unsigned
}

// check validates a user's operator.
func (op *ReduceOp[T]) check() error {
	if !isIdent(op.Name) {
		return fmt.Errorf("%w: reduce operator name %q is not a C identifier", ErrInvalid, op.Name)
	}
	if op.Combine == nil {
		return fmt.Errorf("%w: reduce operator %s has no Combine", ErrInvalid, op.Name)
	}
	return nil
}
