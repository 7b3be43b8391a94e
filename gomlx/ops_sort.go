package gomlx

import (
	"fmt"
	"hash/fnv"
	"strings"

	gc "github.com/gomlx/compute"
	"github.com/gomlx/compute/dtypes"
	"github.com/pkg/errors"

	"github.com/gour-dev/gour/compute"
	"github.com/gour-dev/gour/compute/expr"
	"github.com/gour-dev/gour/ur"
)

// comparatorC translates a Sort comparator's output node into a C
// expression of x<k>[i] (lhs) and x<k>[j] (rhs): parameters, the
// comparisons and the logical operations; anything else is
// ErrNotImplemented.
func comparatorC(comp *Function, n *node) (string, error) {
	if n.op == gc.OpTypeParameter {
		k, side := n.param/2, "i"
		if n.param%2 == 1 {
			side = "j"
		}
		return fmt.Sprintf("x%d[%s]", k, side), nil
	}
	ops := map[gc.OpType]string{gc.OpTypeLessThan: "<", gc.OpTypeGreaterThan: ">", gc.OpTypeLessOrEqual: "<=",
		gc.OpTypeGreaterOrEqual: ">=", gc.OpTypeEqual: "==", gc.OpTypeNotEqual: "!=", gc.OpTypeLogicalAnd: "&&",
		gc.OpTypeLogicalOr: "||", gc.OpTypeLogicalXor: "!="}
	args := make([]string, len(n.inputs))
	for i, in := range n.inputs {
		s, err := comparatorC(comp, in)
		if err != nil {
			return "", err
		}
		args[i] = s
	}
	if n.op == gc.OpTypeLogicalNot && len(args) == 1 {
		return "(!" + args[0] + ")", nil
	}
	if o, ok := ops[n.op]; ok && len(args) == 2 {
		if n.op == gc.OpTypeLogicalXor {
			return fmt.Sprintf("((%s != 0) != (%s != 0))", args[0], args[1]), nil
		}
		return fmt.Sprintf("(%s %s %s)", args[0], o, args[1]), nil
	}
	return "", notImplemented("Sort comparator with %s (comparisons and logical operations of the parameters only)", n.op)
}

// Sort implements compute.Function for comparators made of comparisons
// and logical operations of their parameters (translated into C): a
// kernel, one work-item per row of the axis, sorting every operand's row
// together by a stable insertion sort (quadratic in the row's length:
// for short rows). Each output is a node of its own, sorting copies of
// every operand.
func (f *Function) Sort(comparator gc.Function, axis int, isStable bool, inputs ...gc.Value) ([]gc.Value, error) {
	if err := f.check(); err != nil {
		return nil, err
	}
	comp, ok := functionOf(comparator)
	if !ok || comp.builder != f.builder {
		return nil, errors.Errorf("gour backend: Sort comparator %T is not a function of this builder", comparator)
	}
	if !comp.returned || len(comp.outputs) != 1 {
		return nil, errors.New("gour backend: Sort comparator must have returned one value")
	}
	ns, err := f.nodesOf(inputs...)
	if err != nil {
		return nil, err
	}
	if len(ns) == 0 {
		return nil, errors.New("gour backend: Sort of no operands")
	}
	s0 := ns[0].shape
	if axis < 0 || axis >= s0.Rank() {
		return nil, errors.Errorf("gour backend: Sort axis %d of %s", axis, s0)
	}
	if len(comp.params) != 2*len(ns) {
		return nil, errors.Errorf("gour backend: Sort comparator of %d parameters for %d operands", len(comp.params), len(ns))
	}
	for k, n := range ns {
		if !n.shape.EqualDimensions(s0) {
			return nil, errors.Errorf("gour backend: Sort operands of %s and %s", s0, n.shape)
		}
		if err := f.builder.backend.checkDType(n.shape.DType); err != nil {
			return nil, err
		}
		for j := range 2 {
			p := comp.params[2*k+j].shape
			if !p.IsScalar() || p.DType != n.shape.DType {
				return nil, errors.Errorf("gour backend: Sort comparator parameter %d is %s, want a scalar %s", 2*k+j, p, n.shape.DType)
			}
		}
	}
	if o := comp.outputs[0].shape; !o.IsScalar() || o.DType != dtypes.Bool {
		return nil, errors.Errorf("gour backend: Sort comparator returns %s, want a scalar bool", o)
	}
	less, err := comparatorC(comp, comp.outputs[0])
	if err != nil {
		return nil, err
	}
	if s0.IsDynamic() {
		outs := make([]gc.Value, len(ns))
		for k, n := range ns {
			outs[k] = f.pending(gc.OpTypeSort, n.shape.Clone(), ns...)
		}
		return outs, nil
	}
	outer, length, inner := axisSplit(s0.Dimensions, axis)
	types := make([]expr.Type, len(ns))
	for k, n := range ns {
		types[k], _ = storageType(n.shape.DType)
	}
	fp64 := false
	for _, t := range types {
		fp64 = fp64 || t == expr.Float64
	}
	h := fnv.New64a()
	fmt.Fprintf(h, "%v|%s", types, less)
	name := fmt.Sprintf("gour_gomlx_sort_%016x", h.Sum64())
	src := func(backend string) string {
		ul := "ulong"
		if backend == "cuda" {
			ul = "unsigned long long"
		}
		var sb strings.Builder
		kernelHead(&sb, backend, name, fp64)
		for k, t := range types {
			if k > 0 {
				sb.WriteString(", ")
			}
			fmt.Fprintf(&sb, "%s d%d", globalPtr(backend, cType(backend, t), true), k)
		}
		fmt.Fprintf(&sb, ", %s n, %s len, %s inner) {\n", ul, ul, ul)
		sb.WriteString(globalID(backend))
		fmt.Fprintf(&sb, "  if (i >= n) return;\n  %s o = i / inner;\n  %s base = o * len * inner + (i - o * inner);\n", ul, ul)
		for k, t := range types {
			fmt.Fprintf(&sb, "  %s x%d[2];\n", cType(backend, t), k)
		}
		// Insertion sort: a (rhs) slides left past every b (lhs) it comes before.
		fmt.Fprintf(&sb, "  for (%s a = 1; a < len; a++) {\n    for (%s b = a; b > 0; b--) {\n      %s p = base + b * inner, q = p - inner;\n", ul, ul, ul)
		for k := range types {
			fmt.Fprintf(&sb, "      x%d[0] = d%d[p]; x%d[1] = d%d[q];\n", k, k, k, k)
		}
		// less(lhs = element b, rhs = element b-1): x<k>[i] is lhs, [j] rhs.
		cond := strings.NewReplacer("[i]", "[0]", "[j]", "[1]").Replace(less)
		fmt.Fprintf(&sb, "      if (!%s) break;\n", cond)
		for k := range types {
			fmt.Fprintf(&sb, "      d%d[p] = x%d[1]; d%d[q] = x%d[0];\n", k, k, k, k)
		}
		sb.WriteString("    }\n  }\n}\n")
		return sb.String()
	}
	outs := make([]gc.Value, len(ns))
	for k := range ns {
		out := ns[k].shape.Clone()
		outs[k] = f.add(&node{op: gc.OpTypeSort, shape: out, inputs: ns,
			run: func(b *Backend, sts []store) (store, error) {
				tmps := make([]store, len(sts))
				release := func(keep int) {
					for j, t := range tmps {
						if t != nil && j != keep {
							_ = t.release()
						}
					}
				}
				for j, st := range sts {
					t, err := newStore(b.ctx, st.typ(), ns[j].shape.Dimensions)
					if err == nil {
						tmps[j] = t
						err = b.copyAll(t, st)
					}
					if err != nil {
						release(-1)
						return nil, err
					}
				}
				if rows := outer * inner; rows > 0 && length > 1 {
					kern, err := b.kernel(name, name, src, fp64)
					if err == nil {
						args := make([]ur.Arg, 0, len(tmps)+3)
						for _, t := range tmps {
							a, aerr := t.arg(compute.InOut)
							if aerr != nil {
								err = aerr
								break
							}
							args = append(args, a)
						}
						if err == nil {
							err = b.launch(kern, rows, append(args, ur.ArgOf(uint64(rows)), ur.ArgOf(uint64(length)), ur.ArgOf(uint64(inner)))...)
						}
					}
					if err != nil {
						release(-1)
						return nil, err
					}
				}
				release(k)
				return tmps[k], nil
			}})
	}
	return outs, nil
}
