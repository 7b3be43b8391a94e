package gomlx

import (
	"slices"

	gc "github.com/gomlx/compute"
	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/compute/shapeinference"
	"github.com/pkg/errors"

	"github.com/gour-dev/gour/compute"
	"github.com/gour-dev/gour/compute/expr"
)

type reduceKind int

const (
	reduceSum reduceKind = iota
	reduceProd
	reduceMax
	reduceMin
)

// ReduceSum implements compute.Function.
func (f *Function) ReduceSum(x gc.Value, axes ...int) (gc.Value, error) {
	return f.reduce(gc.OpTypeReduceSum, reduceSum, x, axes, false)
}

// ReduceProduct implements compute.Function.
func (f *Function) ReduceProduct(x gc.Value, axes ...int) (gc.Value, error) {
	return f.reduce(gc.OpTypeReduceProduct, reduceProd, x, axes, false)
}

// ReduceMax implements compute.Function.
func (f *Function) ReduceMax(x gc.Value, axes ...int) (gc.Value, error) {
	return f.reduce(gc.OpTypeReduceMax, reduceMax, x, axes, false)
}

// ReduceMin implements compute.Function.
func (f *Function) ReduceMin(x gc.Value, axes ...int) (gc.Value, error) {
	return f.reduce(gc.OpTypeReduceMin, reduceMin, x, axes, false)
}

// ReduceLogicalAnd implements compute.Function: the minimum of the 0s and
// 1s that store the booleans.
func (f *Function) ReduceLogicalAnd(x gc.Value, axes ...int) (gc.Value, error) {
	return f.reduce(gc.OpTypeReduceLogicalAnd, reduceMin, x, axes, true)
}

// ReduceLogicalOr implements compute.Function: their maximum.
func (f *Function) ReduceLogicalOr(x gc.Value, axes ...int) (gc.Value, error) {
	return f.reduce(gc.OpTypeReduceLogicalOr, reduceMax, x, axes, true)
}

// ReduceLogicalXor implements compute.Function: their sum, modulo 2.
func (f *Function) ReduceLogicalXor(x gc.Value, axes ...int) (gc.Value, error) {
	v, err := f.reduce(gc.OpTypeReduceLogicalXor, reduceSum, x, axes, true)
	if err != nil {
		return nil, err
	}
	n := v.(*node)
	return f.ewNode(gc.OpTypeReduceLogicalXor, n.shape.Clone(), []*node{n}, func(in []string) string {
		return in[0] + " % 2"
	})
}

func (f *Function) reduce(op gc.OpType, kind reduceKind, x gc.Value, axes []int, logical bool) (gc.Value, error) {
	if err := f.check(); err != nil {
		return nil, err
	}
	n, err := f.nodeOf(x)
	if err != nil {
		return nil, err
	}
	dt := n.shape.DType
	if logical != (dt == dtypes.Bool) {
		return nil, errors.Errorf("gour backend: %s of %s", op, n.shape)
	}
	if _, err := dtypeStorage(dt); err != nil {
		return nil, err
	}
	rank := n.shape.Rank()
	if len(axes) == 0 {
		axes = make([]int, rank)
		for i := range axes {
			axes[i] = i
		}
	}
	out, err := shapeinference.Reduce(n.shape, axes)
	if err != nil {
		return nil, err
	}
	if len(slices.Compact(slices.Sorted(slices.Values(axes)))) != len(axes) {
		return nil, errors.Errorf("gour backend: %s axes %v repeat an axis", op, axes)
	}
	// The reduction is of a [K, R] matrix along its rows: the kept axes,
	// then the reduced ones.
	isReduced := make([]bool, rank)
	for _, a := range axes {
		isReduced[a] = true
	}
	var perm []int
	kSize, rSize := 1, 1
	for a := range rank {
		if !isReduced[a] {
			perm = append(perm, a)
			kSize *= n.shape.Dimensions[a]
		}
	}
	for a := range rank {
		if isReduced[a] {
			perm = append(perm, a)
			rSize *= n.shape.Dimensions[a]
		}
	}
	inDims := slices.Clone(n.shape.Dimensions)
	in := rowMajorStrides(inDims)
	ext := make([]int, rank)
	ss := make([]int, rank)
	for i, p := range perm {
		ext[i], ss[i] = inDims[p], in[p]
	}
	identity := slices.Equal(perm, seq(rank))
	red := f.add(&node{op: op, shape: out, inputs: []*node{n},
		run: func(b *Backend, sts []store) (store, error) {
			src := sts[0]
			t := src.typ()
			if len(axes) == 1 && slices.Equal(src.dims(), inDims) && kSize > 0 {
				// One axis of an array of the operand's shape: ReduceAxis
				// along it, with no copy.
				res, err := newStore(b.ctx, t, out.Dimensions)
				if err != nil {
					return nil, err
				}
				if err := reduceAxisAt(kind, res, src, axes[0]); err != nil {
					_ = res.release()
					return nil, err
				}
				return res, nil
			}
			res, err := newStore(b.ctx, t, []int{kSize})
			if err != nil {
				return nil, err
			}
			if kSize == 0 {
				return res, nil
			}
			if !identity || !slices.Equal(src.dims(), []int{kSize, rSize}) {
				tmp, err := newStore(b.ctx, t, []int{kSize, rSize})
				if err != nil {
					_ = res.release()
					return nil, err
				}
				err = b.stridedCopy(tmp, src, ext, 0, 0, rowMajorStrides(ext), ss)
				if err == nil {
					err = reduceAxis(kind, res, tmp)
				}
				_ = tmp.release()
				if err != nil {
					_ = res.release()
					return nil, err
				}
				return res, nil
			}
			if err := reduceAxis(kind, res, src); err != nil {
				_ = res.release()
				return nil, err
			}
			return res, nil
		}})
	if (kind == reduceSum || kind == reduceProd) && wrapNarrow("x", dt) != "x" {
		// A sum of narrow integers, wrapped to their width.
		return f.ewNode(op, out.Clone(), []*node{red}, func(in []string) string { return in[0] })
	}
	return red, nil
}

func seq(n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = i
	}
	return s
}

// reduceAxis runs compute.ReduceAxis along axis 1 of in, a [K, R] array,
// into out, a [K] array.
func reduceAxis(kind reduceKind, out, in store) error { return reduceAxisAt(kind, out, in, 1) }

// reduceAxisAt runs compute.ReduceAxis along an axis of in into out, of
// in's shape without the axis.
func reduceAxisAt(kind reduceKind, out, in store, axis int) error {
	switch in.typ() {
	case expr.Float32:
		return reduceAxisOf[float32](kind, out, in, axis)
	case expr.Float64:
		return reduceAxisOf[float64](kind, out, in, axis)
	case expr.Int32:
		return reduceAxisOf[int32](kind, out, in, axis)
	case expr.Uint32:
		return reduceAxisOf[uint32](kind, out, in, axis)
	case expr.Int64:
		return reduceAxisOf[int64](kind, out, in, axis)
	case expr.Uint64:
		return reduceAxisOf[uint64](kind, out, in, axis)
	}
	return errors.Errorf("gour backend: reduction of %v", in.typ())
}

func reduceAxisOf[T compute.Number](kind reduceKind, out, in store, axis int) error {
	o, i := out.(*arrStore[T]), in.(*arrStore[T])
	var op compute.ReduceOp[T]
	switch kind {
	case reduceSum:
		op = compute.Sum[T]()
	case reduceProd:
		op = compute.Prod[T]()
	case reduceMax:
		op = compute.Max[T]()
	case reduceMin:
		op = compute.Min[T]()
	}
	return compute.ReduceAxis(i.a.Context(), o.a, i.a, axis, op)
}
