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

	"github.com/gour-dev/gour/compute"
	"github.com/gour-dev/gour/compute/expr"
	"github.com/gour-dev/gour/ur"
)

// axisKernel is a kernel of the backend's own walking one axis: the
// operand seen as [outer, len, inner], work-item i < outer·inner takes the
// row of the axis at outer index o = i / inner and inner index i - o·inner,
// whose elements are src[base + k·inner], k < len. One work-item per row:
// simple, and parallel while outer·inner is large.
type axisKernel struct {
	// name is the kernel's name, unique to its source.
	name string
	out  expr.Type
	in   expr.Type
	// body is the statements of a row, in the backend's language, of
	// src, dst, i, base, len and inner (the last three of the 64-bit
	// unsigned type UL_T).
	body func(backend string) string
}

func (k *axisKernel) fp64() bool { return k.out == expr.Float64 || k.in == expr.Float64 }

func (k *axisKernel) source(backend string) string {
	ul := "ulong"
	if backend == "cuda" {
		ul = "unsigned long long"
	}
	var sb strings.Builder
	kernelHead(&sb, backend, k.name, k.fp64())
	fmt.Fprintf(&sb, "%s dst, %s src, %s n, %s len, %s inner) {\n",
		globalPtr(backend, cType(backend, k.out), true), globalPtr(backend, cType(backend, k.in), false), ul, ul, ul)
	sb.WriteString(globalID(backend))
	fmt.Fprintf(&sb, "  if (i >= n) return;\n  %s o = i / inner;\n  %s base = o * len * inner + (i - o * inner);\n", ul, ul)
	sb.WriteString(strings.ReplaceAll(k.body(backend), "UL_T", ul))
	sb.WriteString("}\n")
	return sb.String()
}

// runAxis enqueues an axis kernel over in, seen as [outer, len, inner].
func (b *Backend) runAxis(k *axisKernel, out, in store, outer, length, inner int) error {
	n := outer * inner
	if n == 0 {
		return nil
	}
	kern, err := b.kernel(k.name, k.name, k.source, k.fp64())
	if err != nil {
		return err
	}
	oa, err := out.arg(compute.InOut)
	if err != nil {
		return err
	}
	ia, err := in.arg(compute.In)
	if err != nil {
		return err
	}
	return b.launch(kern, n, oa, ia, ur.ArgOf(uint64(n)), ur.ArgOf(uint64(length)), ur.ArgOf(uint64(inner)))
}

// axisSplit is the [outer, len, inner] view of dims around axis.
func axisSplit(dims []int, axis int) (outer, length, inner int) {
	outer, inner = 1, 1
	for _, d := range dims[:axis] {
		outer *= d
	}
	for _, d := range dims[axis+1:] {
		inner *= d
	}
	return outer, dims[axis], inner
}

// axisNode adds a node computing out from its input n by an axis kernel
// along axis.
func (f *Function) axisNode(op gc.OpType, out shapes.Shape, n *node, axis int, k *axisKernel) *node {
	outer, length, inner := axisSplit(n.shape.Dimensions, axis)
	return f.add(&node{op: op, shape: out, inputs: []*node{n},
		run: func(b *Backend, sts []store) (store, error) {
			st, err := b.alloc(out)
			if err != nil {
				return nil, err
			}
			if length > 0 {
				err = b.runAxis(k, st, sts[0], outer, length, inner)
			}
			if err != nil {
				_ = st.release()
				return nil, err
			}
			return st, nil
		}})
}

// kernelName is a kernel's name of parts, as a C identifier.
func kernelName(parts ...string) string {
	return strings.ToLower("gour_gomlx_" + strings.Join(parts, "_"))
}

// ArgMinMax implements compute.Function: the index of the first minimum
// (or maximum) along axis, or of the first NaN.
func (f *Function) ArgMinMax(x gc.Value, axis int, outputDType dtypes.DType, isMin bool) (gc.Value, error) {
	if err := f.check(); err != nil {
		return nil, err
	}
	n, err := f.nodeOf(x)
	if err != nil {
		return nil, err
	}
	out, err := shapeinference.ArgMinMax(n.shape, axis, outputDType)
	if err != nil {
		return nil, err
	}
	dt := n.shape.DType
	if err := f.builder.backend.checkDType(dt); err != nil {
		return nil, err
	}
	if err := f.builder.backend.checkDType(outputDType); err != nil {
		return nil, err
	}
	it, _ := storageType(dt)
	ot, _ := storageType(outputDType)
	cmp, which := ">", "max"
	if isMin {
		cmp, which = "<", "min"
	}
	k := &axisKernel{name: kernelName("arg"+which, dt.String(), outputDType.String()), out: ot, in: it,
		body: func(backend string) string {
			t := cType(backend, it)
			return fmt.Sprintf(`  %s best = src[base];
  UL_T bi = 0;
  for (UL_T k = 1; k < len; k++) {
    %s v = src[base + k * inner];
    if (best == best && (v != v || v %s best)) { best = v; bi = k; }
  }
  dst[i] = (%s)bi;
`, t, t, cmp, cType(backend, ot))
		}}
	return f.axisNode(gc.OpTypeArgMinMax, out, n, axis, k), nil
}

// CumSum implements compute.Function: integers wrap.
func (f *Function) CumSum(x gc.Value, axis int, options gc.CumSumOptions) (gc.Value, error) {
	return f.cumulative(gc.OpTypeCumSum, x, axis, options)
}

// CumMax implements compute.Function: a NaN propagates.
func (f *Function) CumMax(x gc.Value, axis int, options gc.CumSumOptions) (gc.Value, error) {
	return f.cumulative(gc.OpTypeCumMax, x, axis, options)
}

func (f *Function) cumulative(op gc.OpType, x gc.Value, axis int, options gc.CumSumOptions) (gc.Value, error) {
	if err := f.check(); err != nil {
		return nil, err
	}
	n, err := f.nodeOf(x)
	if err != nil {
		return nil, err
	}
	var out shapes.Shape
	if op == gc.OpTypeCumSum {
		out, err = shapeinference.CumSum(n.shape, axis)
	} else {
		out, err = shapeinference.CumMax(n.shape, axis)
	}
	if err != nil {
		return nil, err
	}
	dt := n.shape.DType
	if err := f.builder.backend.checkDType(dt); err != nil {
		return nil, err
	}
	t, _ := storageType(dt)
	name := kernelName(op.String(), dt.String())
	if options.Exclusive {
		name += "_excl"
	}
	if options.Reverse {
		name += "_rev"
	}
	k := &axisKernel{name: name, out: t, in: t, body: func(backend string) string {
		ct := cType(backend, t)
		acc, init, step := ct, "0", "acc = acc + v;"
		if op == gc.OpTypeCumSum && dt.IsInt() {
			// In the unsigned type, so that an overflow wraps.
			acc = cType(backend, unsignedOf(t))
			step = fmt.Sprintf("acc = acc + (%s)v;", acc)
		}
		if op == gc.OpTypeCumMax {
			init = lowest(backend, dt)
			step = "if (v != v || v > acc) acc = v;"
		}
		idx := "k"
		if options.Reverse {
			idx = "len - 1 - k"
		}
		body := fmt.Sprintf("    dst[p] = (%s)acc;\n    %s\n", ct, step)
		if !options.Exclusive {
			body = fmt.Sprintf("    %s\n    dst[p] = (%s)acc;\n", step, ct)
		}
		return fmt.Sprintf(`  %s acc = %s;
  for (UL_T k = 0; k < len; k++) {
    UL_T p = base + (%s) * inner;
    %s v = src[p];
%s  }
`, acc, init, idx, ct, body)
	}}
	v := f.axisNode(op, out, n, axis, k)
	if op == gc.OpTypeCumSum && wrapNarrow("x", dt) != "x" {
		// A sum of narrow integers, wrapped to their width.
		return f.ewNode(op, out.Clone(), []*node{v}, func(in []string) string { return in[0] })
	}
	return v, nil
}

// unsignedOf is the unsigned storage type of t's width.
func unsignedOf(t expr.Type) expr.Type {
	if elemSize(t) == 8 {
		return expr.Uint64
	}
	return expr.Uint32
}

// lowest is dt's lowest value as a C literal of its storage type: -Inf
// for floats.
func lowest(backend string, dt dtypes.DType) string {
	cuda := backend == "cuda"
	switch dt {
	case dtypes.Float32, dtypes.Float16, dtypes.BFloat16:
		if cuda {
			return "__int_as_float(0xff800000)"
		}
		return "(-INFINITY)"
	case dtypes.Float64:
		if cuda {
			return "__longlong_as_double(0xfff0000000000000ULL)"
		}
		return "(-(double)INFINITY)"
	case dtypes.Int8:
		return "(-128)"
	case dtypes.Int16:
		return "(-32768)"
	case dtypes.Int32:
		return "(-2147483647 - 1)"
	case dtypes.Int64:
		if cuda {
			return "(-9223372036854775807LL - 1)"
		}
		return "(-9223372036854775807L - 1)"
	}
	return "0"
}

// reduceBitwise reduces x over axes with a bitwise operation (&, |, ^):
// an axis kernel over the reduced axes where they are consecutive, else
// over a copy of x with its reduced axes last.
func (f *Function) reduceBitwise(op gc.OpType, cop string, x gc.Value, axes []int) (gc.Value, error) {
	if err := f.check(); err != nil {
		return nil, err
	}
	n, err := f.nodeOf(x)
	if err != nil {
		return nil, err
	}
	dt := n.shape.DType
	if !dt.IsInt() {
		return nil, errors.Errorf("gour backend: %s of %s, want an integer", op, n.shape)
	}
	if err := f.builder.backend.checkDType(dt); err != nil {
		return nil, err
	}
	rank := n.shape.Rank()
	if len(axes) == 0 {
		axes = seq(rank)
	}
	out, err := shapeinference.Reduce(n.shape, axes)
	if err != nil {
		return nil, err
	}
	sorted := slices.Sorted(slices.Values(axes))
	if len(slices.Compact(slices.Clone(sorted))) != len(axes) {
		return nil, errors.Errorf("gour backend: %s axes %v repeat an axis", op, axes)
	}
	t, _ := storageType(dt)
	init := "0"
	if op == gc.OpTypeReduceBitwiseAnd {
		init = "~0"
	}
	k := &axisKernel{name: kernelName(op.String(), dt.String()), out: t, in: t,
		body: func(backend string) string {
			ct := cType(backend, t)
			return fmt.Sprintf(`  %s acc = (%s)%s;
  for (UL_T k = 0; k < len; k++) acc = acc %s src[base + k * inner];
  dst[i] = acc;
`, ct, ct, init, cop)
		}}
	dims := slices.Clone(n.shape.Dimensions)
	var outer, length, inner int
	var copyExt, copySS []int
	if len(sorted) > 0 && sorted[len(sorted)-1]-sorted[0] == len(sorted)-1 {
		// Consecutive axes: [outer, reduced, inner] with no copy.
		outer, _, _ = axisSplit(dims, sorted[0])
		_, _, inner = axisSplit(dims, sorted[len(sorted)-1])
		length = 1
		for _, a := range sorted {
			length *= dims[a]
		}
	} else {
		// The kept axes then the reduced ones, copied into that order.
		isReduced := make([]bool, rank)
		for _, a := range axes {
			isReduced[a] = true
		}
		var perm []int
		outer, length, inner = 1, 1, 1
		for a := range rank {
			if !isReduced[a] {
				perm = append(perm, a)
				outer *= dims[a]
			}
		}
		for a := range rank {
			if isReduced[a] {
				perm = append(perm, a)
				length *= dims[a]
			}
		}
		is := rowMajorStrides(dims)
		for _, p := range perm {
			copyExt = append(copyExt, dims[p])
			copySS = append(copySS, is[p])
		}
	}
	return f.add(&node{op: op, shape: out, inputs: []*node{n},
		run: func(b *Backend, sts []store) (store, error) {
			st, err := b.alloc(out)
			if err != nil {
				return nil, err
			}
			src := sts[0]
			if copyExt != nil && outer*length > 0 {
				tmp, err := newStore(b.ctx, t, []int{outer, length})
				if err != nil {
					_ = st.release()
					return nil, err
				}
				defer func() { _ = tmp.release() }()
				if err := b.stridedCopy(tmp, src, copyExt, 0, 0, rowMajorStrides(copyExt), copySS); err != nil {
					_ = st.release()
					return nil, err
				}
				src = tmp
			}
			if length == 0 {
				// An empty reduction: the identity.
				if op == gc.OpTypeReduceBitwiseAnd {
					err = b.fillOnes(st, dt)
				}
			} else {
				err = b.runAxis(k, st, src, outer, length, inner)
			}
			if err != nil {
				_ = st.release()
				return nil, err
			}
			return st, nil
		}}), nil
}

// fillOnes sets every element of st, of integer dtype dt, to all ones
// (-1, or the unsigned dtype's maximum).
func (b *Backend) fillOnes(st store, dt dtypes.DType) error {
	t := st.typ()
	c, err := compileEW("out = "+wrapNarrow(fmt.Sprintf("%s(0) - 1", t), dt), t, nil)
	if err != nil {
		return err
	}
	return b.runEW(c, st, nil)
}

// ReduceBitwiseAnd implements compute.Function.
func (f *Function) ReduceBitwiseAnd(x gc.Value, axes ...int) (gc.Value, error) {
	return f.reduceBitwise(gc.OpTypeReduceBitwiseAnd, "&", x, axes)
}

// ReduceBitwiseOr implements compute.Function.
func (f *Function) ReduceBitwiseOr(x gc.Value, axes ...int) (gc.Value, error) {
	return f.reduceBitwise(gc.OpTypeReduceBitwiseOr, "|", x, axes)
}

// ReduceBitwiseXor implements compute.Function.
func (f *Function) ReduceBitwiseXor(x gc.Value, axes ...int) (gc.Value, error) {
	return f.reduceBitwise(gc.OpTypeReduceBitwiseXor, "^", x, axes)
}
