package gomlx

import (
	"fmt"
	"strings"

	gc "github.com/gomlx/compute"
	"github.com/gomlx/compute/shapeinference"
	"github.com/gomlx/compute/shapes"

	"github.com/gour-dev/gour/compute/expr"
	"github.com/gour-dev/gour/ur"
)

// FusedTopK implements compute.Function: the indices are an axis kernel
// (a work-item per row of the axis) that selects the k elements one after
// the other, each the first in the order (value, then lower index) after
// the previous one: k passes over the row and no memory but the output,
// which suits the small k of top-k sampling and beam search (a long k is
// quadratic, as the backend's Sort is). The values are a second kernel
// reading the operand at those indices. A NaN is above every number, in
// both directions (so first among the largest, last among the smallest).
func (f *Function) FusedTopK(operand gc.Value, k int, cfg gc.FusedTopKConfig) (values, indices gc.Value, err error) {
	if err := f.check(); err != nil {
		return nil, nil, err
	}
	n, err := f.nodeOf(operand)
	if err != nil {
		return nil, nil, err
	}
	vshape, ishape, err := shapeinference.FusedTopK(n.shape, k, cfg)
	if err != nil {
		return nil, nil, err
	}
	if n.shape.IsDynamic() {
		return f.pending(gc.OpTypeFusedTopK, vshape, n), f.pending(gc.OpTypeFusedTopK, ishape, n), nil
	}
	dt := n.shape.DType
	if err := f.builder.backend.checkDType(dt); err != nil {
		return nil, nil, err
	}
	axis := cfg.Axis
	if axis < 0 {
		axis += n.shape.Rank()
	}
	t, ok := storageType(dt)
	if !ok {
		return nil, nil, notImplemented("FusedTopK of %s", dt)
	}
	which := "max"
	if cfg.Smallest {
		which = "min"
	}
	ik := &axisKernel{name: kernelName("topk", which, dt.String(), fmt.Sprint(k)), out: expr.Int32, in: t,
		body: func(backend string) string { return topKBody(backend, t, k, cfg.Smallest) }}
	idx := f.axisNode(gc.OpTypeFusedTopK, ishape, n, axis, ik)
	outer, length, inner := axisSplit(n.shape.Dimensions, axis)
	vals := f.add(&node{op: gc.OpTypeFusedTopK, shape: vshape, inputs: []*node{n, idx},
		run: func(b *Backend, sts []store) (store, error) {
			return b.takeAlongAxis(vshape, t, sts[0], sts[1], outer, length, k, inner)
		}})
	return vals, idx, nil
}

// topKBody is the statements of FusedTopK's axis kernel for one row: the
// j-th pass takes the first element in the order (before) among those
// after the (j-1)-th pick, and writes its index.
func topKBody(backend string, t expr.Type, k int, smallest bool) string {
	ct := cType(backend, t)
	// gt(a, b): a above b, a NaN above every number.
	gt := "((A) > (B) || ((A) != (A) && (B) == (B)))"
	if smallest {
		gt = "((A) < (B) || ((B) != (B) && (A) == (A)))"
	}
	eq := "((A) == (B) || ((A) != (A) && (B) != (B)))"
	before := func(a, ia, b, ib string) string {
		r := strings.NewReplacer("A", a, "B", b)
		return fmt.Sprintf("(%s || (%s && %s < %s))", r.Replace(gt), r.Replace(eq), ia, ib)
	}
	return fmt.Sprintf(`  UL_T obase = o * %d * inner + (i - o * inner);
  %s pv = src[base];
  UL_T pi = 0;
  for (UL_T j = 0; j < %d; j++) {
    %s bv = src[base];
    UL_T bi = len;
    for (UL_T c = 0; c < len; c++) {
      %s v = src[base + c * inner];
      if (j > 0 && !%s) continue;
      if (bi == len || %s) { bv = v; bi = c; }
    }
    dst[obase + j * inner] = (int)bi;
    pv = bv;
    pi = bi;
  }
`, k, ct, k, ct, ct, before("pv", "pi", "v", "c"), before("v", "c", "bv", "bi"))
}

// takeAlongAxisSource is the kernel reading src, seen as [outer, len,
// inner], at the indices idx, of [outer, k, inner]: a work-item per
// output element.
func takeAlongAxisSource(backend, name string, t expr.Type) string {
	ul := "ulong"
	if backend == "cuda" {
		ul = "unsigned long long"
	}
	var sb strings.Builder
	kernelHead(&sb, backend, name, t == expr.Float64)
	fmt.Fprintf(&sb, "%s dst, %s src, %s idx, %s n, %s len, %s k, %s inner) {\n",
		globalPtr(backend, cType(backend, t), true), globalPtr(backend, cType(backend, t), false),
		globalPtr(backend, "int", false), ul, ul, ul, ul)
	sb.WriteString(globalID(backend))
	fmt.Fprintf(&sb, "  if (i >= n) return;\n  %s o = i / (k * inner);\n  %s r = i - o * k * inner;\n", ul, ul)
	fmt.Fprintf(&sb, "  %s c = r - (r / inner) * inner;\n  dst[i] = src[o * len * inner + (%s)idx[i] * inner + c];\n}\n", ul, ul)
	return sb.String()
}

// takeAlongAxis enqueues takeAlongAxisSource's kernel into new storage of
// shape out.
func (b *Backend) takeAlongAxis(out shapes.Shape, t expr.Type, src, idx store, outer, length, k, inner int) (store, error) {
	st, err := b.alloc(out)
	if err != nil {
		return nil, err
	}
	n := outer * k * inner
	if n == 0 {
		return st, nil
	}
	name := kernelName("take_along_axis", cType("opencl", t))
	kern, err := b.kernel(name, name, func(backend string) string { return takeAlongAxisSource(backend, name, t) }, t == expr.Float64)
	if err == nil {
		var args []ur.Arg
		if args, err = ioArgs(st, []store{src, idx}, 4); err == nil {
			args = append(args, ur.ArgOf(uint64(n)), ur.ArgOf(uint64(length)), ur.ArgOf(uint64(k)), ur.ArgOf(uint64(inner)))
			err = b.launch(kern, n, args...)
		}
	}
	if err != nil {
		_ = st.release()
		return nil, err
	}
	return st, nil
}
