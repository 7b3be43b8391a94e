package gomlx

import (
	"fmt"
	"hash/fnv"
	"slices"
	"strings"

	gc "github.com/gomlx/compute"
	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/compute/shapeinference"
	"github.com/gomlx/compute/shapes"
	"github.com/pkg/errors"

	"github.com/gour-dev/gour/compute/expr"
)

// highest is dt's highest value as a C literal of its storage type: +Inf
// for floats.
func highest(backend string, dt dtypes.DType) string {
	cuda := backend == "cuda"
	switch dt {
	case dtypes.Float32, dtypes.Float16, dtypes.BFloat16:
		if cuda {
			return "__int_as_float(0x7f800000)"
		}
		return "INFINITY"
	case dtypes.Float64:
		if cuda {
			return "__longlong_as_double(0x7ff0000000000000ULL)"
		}
		return "((double)INFINITY)"
	case dtypes.Int8:
		return "127"
	case dtypes.Int16:
		return "32767"
	case dtypes.Int32:
		return "2147483647"
	case dtypes.Int64:
		if cuda {
			return "9223372036854775807LL"
		}
		return "9223372036854775807L"
	case dtypes.Uint8:
		return "255u"
	case dtypes.Uint16:
		return "65535u"
	case dtypes.Uint32:
		return "4294967295u"
	case dtypes.Uint64:
		if cuda {
			return "18446744073709551615ULL"
		}
		return "18446744073709551615UL"
	}
	return "0"
}

// windowSpec is a ReduceWindow's or a SelectAndScatter's configuration:
// per axis the window, stride, dilations and low padding, with every
// extent a constant of the generated kernel.
type windowSpec struct {
	name                string
	t                   expr.Type
	dt                  dtypes.DType
	op                  gc.ReduceOpType
	in, out             []int // the operand's and the windows' (output or source) dimensions
	win, stride, padLow []int
	baseDil, winDil     []int
	selectMin, isSelect bool
}

// decompose writes the statements splitting i over dims into c0, c1, ...
func decompose(sb *strings.Builder, ul, l string, dims []int) {
	fmt.Fprintf(sb, "  %s r = i, q;\n", ul)
	for k := len(dims) - 1; k >= 0; k-- {
		fmt.Fprintf(sb, "  q = r / %du; %s c%d = (%s)(r - q * %du); r = q;\n", max(dims[k], 1), l, k, l, max(dims[k], 1))
	}
}

func (w *windowSpec) head(backend string, nIn int) (sb *strings.Builder, ul, l, ct string) {
	ul, l = "ulong", "long"
	if backend == "cuda" {
		ul, l = "unsigned long long", "long long"
	}
	ct = cType(backend, w.t)
	sb = &strings.Builder{}
	kernelHead(sb, backend, w.name, w.t == expr.Float64)
	fmt.Fprintf(sb, "%s dst", globalPtr(backend, ct, true))
	for j := range nIn {
		fmt.Fprintf(sb, ", %s src%d", globalPtr(backend, ct, false), j)
	}
	fmt.Fprintf(sb, ", %s n) {\n", ul)
	sb.WriteString(globalID(backend))
	sb.WriteString("  if (i >= n) return;\n")
	return sb, ul, l, ct
}

// reduceSource is ReduceWindow's kernel: work-item i computes output
// element i over its window, padding and dilation holes left out.
func (w *windowSpec) reduceSource(backend string) string {
	sb, ul, l, ct := w.head(backend, 1)
	decompose(sb, ul, l, w.out)
	init, comb := "0", "acc + v"
	isFloat := w.dt.IsFloat()
	switch w.op {
	case gc.ReduceOpProduct:
		init, comb = "1", "acc * v"
	case gc.ReduceOpMax:
		init, comb = lowest(backend, w.dt), "(v > acc) ? v : acc"
		if isFloat {
			comb = "(v > acc || v != v) ? v : acc"
		}
	case gc.ReduceOpMin:
		init, comb = highest(backend, w.dt), "(v < acc) ? v : acc"
		if isFloat {
			comb = "(v < acc || v != v) ? v : acc"
		}
	}
	fmt.Fprintf(sb, "  %s acc = (%s)%s;\n", ct, ct, init)
	is := rowMajorStrides(w.in)
	indent := "  "
	for a := range w.in {
		fmt.Fprintf(sb, "%sfor (%s k%d = 0; k%d < %d; k%d++) {\n", indent, l, a, a, w.win[a], a)
		indent += "  "
		fmt.Fprintf(sb, "%s%s x%d = c%d * %d + k%d * %d - %d;\n", indent, l, a, a, w.stride[a], a, w.winDil[a], w.padLow[a])
		fmt.Fprintf(sb, "%sif (x%d < 0 || x%d >= %d) continue;\n", indent, a, a, (w.in[a]-1)*w.baseDil[a]+1)
		if d := w.baseDil[a]; d > 1 {
			fmt.Fprintf(sb, "%sif (x%d - (x%d / %d) * %d != 0) continue;\n%sx%d /= %d;\n", indent, a, a, d, d, indent, a, d)
		}
	}
	fmt.Fprintf(sb, "%s%s v = src0[0", indent, ct)
	for a := range w.in {
		fmt.Fprintf(sb, " + x%d * %d", a, is[a])
	}
	fmt.Fprintf(sb, "];\n%sacc = %s;\n", indent, comb)
	for range w.in {
		indent = indent[2:]
		fmt.Fprintf(sb, "%s}\n", indent)
	}
	sb.WriteString("  dst[i] = acc;\n}\n")
	return sb.String()
}

// selectSource is SelectAndScatter's kernel, gathering rather than
// scattering (no atomics, deterministic): work-item i, an operand element,
// goes over the windows that hold it and adds the source value of each
// whose selected element (the first maximum or minimum, or the last NaN,
// padding left out) it is.
func (w *windowSpec) selectSource(backend string) string {
	sb, ul, l, ct := w.head(backend, 2) // src0: the operand, src1: the source
	decompose(sb, ul, l, w.in)
	fmt.Fprintf(sb, "  %s acc = 0;\n", ct)
	is, ss := rowMajorStrides(w.in), rowMajorStrides(w.out)
	cmp := ">"
	if w.selectMin {
		cmp = "<"
	}
	indent := "  "
	for a := range w.in {
		fmt.Fprintf(sb, "%s%s lo%d = c%d + %d - %d + 1;\n%slo%d = lo%d <= 0 ? 0 : (lo%d + %d - 1) / %d;\n", indent, l, a, a, w.padLow[a],
			w.win[a], indent, a, a, a, w.stride[a], w.stride[a])
		fmt.Fprintf(sb, "%s%s hi%d = (c%d + %d) / %d;\n%sif (hi%d > %d) hi%d = %d;\n", indent, l, a, a, w.padLow[a], w.stride[a],
			indent, a, w.out[a]-1, a, w.out[a]-1)
		fmt.Fprintf(sb, "%sfor (%s w%d = lo%d; w%d <= hi%d; w%d++) {\n", indent, l, a, a, a, a, a)
		indent += "  "
	}
	fmt.Fprintf(sb, "%s%s best = -1;\n%s%s bv = 0;\n", indent, l, indent, ct)
	inner := indent
	for a := range w.in {
		fmt.Fprintf(sb, "%sfor (%s k%d = 0; k%d < %d; k%d++) {\n", indent, l, a, a, w.win[a], a)
		indent += "  "
		fmt.Fprintf(sb, "%s%s y%d = w%d * %d - %d + k%d;\n%sif (y%d < 0 || y%d >= %d) continue;\n", indent, l, a, a, w.stride[a],
			w.padLow[a], a, indent, a, a, w.in[a])
	}
	fmt.Fprintf(sb, "%s%s p = 0", indent, l)
	for a := range w.in {
		fmt.Fprintf(sb, " + y%d * %d", a, is[a])
	}
	fmt.Fprintf(sb, ";\n%s%s v = src0[p];\n%sif (best < 0 || v %s bv || v != v) { best = p; bv = v; }\n", indent, ct, indent, cmp)
	for range w.in {
		indent = indent[2:]
		fmt.Fprintf(sb, "%s}\n", indent)
	}
	fmt.Fprintf(sb, "%sif (best == (%s)i) acc += src1[0", inner, l)
	for a := range w.in {
		fmt.Fprintf(sb, " + w%d * %d", a, ss[a])
	}
	sb.WriteString("];\n")
	for range w.in {
		indent = indent[2:]
		fmt.Fprintf(sb, "%s}\n", indent)
	}
	sb.WriteString("  dst[i] = acc;\n}\n")
	return sb.String()
}

func (w *windowSpec) setName(kind string) {
	h := fnv.New64a()
	fmt.Fprintf(h, "%s|%v|%v|%v|%v|%v|%v|%v|%v|%v|%v|%v", kind, w.dt, w.op, w.in, w.out, w.win, w.stride, w.padLow, w.baseDil,
		w.winDil, w.selectMin, w.t)
	w.name = fmt.Sprintf("gour_gomlx_%s_%016x", kind, h.Sum64())
}

// windowNode adds the node running w's kernel (src the source of the
// kernel) over inputs, an output element per work-item.
func (f *Function) windowNode(op gc.OpType, out shapes.Shape, inputs []*node, w *windowSpec, src func(string) string) *node {
	return f.add(&node{op: op, shape: out, inputs: inputs,
		run: eachRun(out, w.name, src, w.t == expr.Float64)})
}

// orOnes is v, or rank ones (def, when given) where v is empty.
func orDefault(v []int, def []int) []int {
	if len(v) == 0 {
		return slices.Clone(def)
	}
	return slices.Clone(v)
}

// ReduceWindow implements compute.Function: a kernel generated for its
// configuration, an output element per work-item. Integer sums and
// products wrap.
func (f *Function) ReduceWindow(x gc.Value, reductionType gc.ReduceOpType, windowDimensions, strides, inputDilations,
	windowDilations []int, paddings [][2]int) (gc.Value, error) {
	if err := f.check(); err != nil {
		return nil, err
	}
	n, err := f.nodeOf(x)
	if err != nil {
		return nil, err
	}
	if err := f.builder.backend.checkDType(n.shape.DType); err != nil {
		return nil, err
	}
	out, err := shapeinference.ReduceWindow(n.shape, windowDimensions, strides, inputDilations, windowDilations, paddings)
	if err != nil {
		return nil, err
	}
	switch reductionType {
	case gc.ReduceOpSum, gc.ReduceOpProduct, gc.ReduceOpMax, gc.ReduceOpMin:
	default:
		return nil, notImplemented("ReduceWindow of %s", reductionType)
	}
	if n.shape.DType == dtypes.Bool {
		return nil, notImplemented("ReduceWindow of %s", n.shape)
	}
	if n.shape.IsDynamic() {
		return f.pending(gc.OpTypeReduceWindow, out, n), nil
	}
	rank := n.shape.Rank()
	if rank == 0 {
		return f.Identity(n)
	}
	ones := slices.Repeat([]int{1}, rank)
	w := &windowSpec{dt: n.shape.DType, op: reductionType, in: slices.Clone(n.shape.Dimensions), out: slices.Clone(out.Dimensions),
		win: orDefault(windowDimensions, ones), baseDil: orDefault(inputDilations, ones), winDil: orDefault(windowDilations, ones),
		padLow: make([]int, rank)}
	w.stride = orDefault(strides, w.win)
	for a := range min(rank, len(paddings)) {
		w.padLow[a] = paddings[a][0]
	}
	w.t, _ = storageType(w.dt)
	w.setName("reducewindow")
	v := f.windowNode(gc.OpTypeReduceWindow, out, []*node{n}, w, w.reduceSource)
	if wrapNarrow("x", out.DType) != "x" {
		return f.ewNode(gc.OpTypeReduceWindow, out.Clone(), []*node{v}, func(in []string) string { return in[0] })
	}
	return v, nil
}

// SelectAndScatterMax implements compute.Function.
func (f *Function) SelectAndScatterMax(operand, source gc.Value, windowDimensions, windowStrides []int, paddings [][2]int) (gc.Value, error) {
	return f.selectAndScatter(gc.OpTypeSelectAndScatterMax, false, operand, source, windowDimensions, windowStrides, paddings)
}

// SelectAndScatterMin implements compute.Function.
func (f *Function) SelectAndScatterMin(operand, source gc.Value, windowDimensions, windowStrides []int, paddings [][2]int) (gc.Value, error) {
	return f.selectAndScatter(gc.OpTypeSelectAndScatterMin, true, operand, source, windowDimensions, windowStrides, paddings)
}

func (f *Function) selectAndScatter(op gc.OpType, isMin bool, operand, source gc.Value, windowDimensions, windowStrides []int,
	paddings [][2]int) (gc.Value, error) {
	if err := f.check(); err != nil {
		return nil, err
	}
	ns, err := f.nodesOf(operand, source)
	if err != nil {
		return nil, err
	}
	for _, n := range ns {
		if err := f.builder.backend.checkDType(n.shape.DType); err != nil {
			return nil, err
		}
	}
	out, err := shapeinference.SelectAndScatter(ns[0].shape, ns[1].shape, windowDimensions, windowStrides, paddings)
	if err != nil {
		return nil, err
	}
	if out.DType == dtypes.Bool {
		return nil, notImplemented("%s of %s", op, out)
	}
	if out.IsDynamic() || ns[1].shape.IsDynamic() {
		return f.pending(op, out, ns...), nil
	}
	rank := out.Rank()
	if rank == 0 {
		return nil, errors.Errorf("gour backend: %s of a scalar", op)
	}
	ones := slices.Repeat([]int{1}, rank)
	w := &windowSpec{dt: out.DType, in: slices.Clone(out.Dimensions), out: slices.Clone(ns[1].shape.Dimensions),
		win: orDefault(windowDimensions, ones), padLow: make([]int, rank), selectMin: isMin, isSelect: true}
	w.stride = orDefault(windowStrides, w.win)
	for a := range min(rank, len(paddings)) {
		w.padLow[a] = paddings[a][0]
	}
	w.t, _ = storageType(w.dt)
	w.setName("selectscatter")
	v := f.windowNode(op, out, ns, w, w.selectSource)
	if wrapNarrow("x", out.DType) != "x" {
		return f.ewNode(op, out.Clone(), []*node{v}, func(in []string) string { return in[0] })
	}
	return v, nil
}
