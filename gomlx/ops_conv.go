package gomlx

import (
	"fmt"
	"hash/fnv"
	"slices"
	"strings"

	gc "github.com/gomlx/compute"
	"github.com/gomlx/compute/shapeinference"
	"github.com/pkg/errors"

	"github.com/gour-dev/gour/compute/expr"
)

// convSpec is one ConvGeneral's configuration, from which its kernel is
// generated with every extent, stride and axis a constant.
type convSpec struct {
	name                string
	t                   expr.Type
	in, ker, out        []int
	axes                gc.ConvolveAxesConfig
	strides             []int
	padLow              []int
	inDil, kerDil       []int
	chanGroups, bGroups int
}

// source is the direct convolution kernel: work-item i < n computes
// output element i, the sum over the kernel's input channels and window of
// input·kernel, input positions outside the (dilated, padded) input, or
// between dilated elements, contributing nothing.
func (c *convSpec) source(backend string) string {
	ul, l := cType(backend, expr.Uint64), cType(backend, expr.Int64)
	ct := cType(backend, c.t)
	var sb strings.Builder
	kernelHead(&sb, backend, c.name, c.t == expr.Float64)
	fmt.Fprintf(&sb, "%s dst, %s src, %s ker, %s n) {\n", globalPtr(backend, ct, true), globalPtr(backend, ct, false),
		globalPtr(backend, ct, false), ul)
	sb.WriteString(globalID(backend))
	fmt.Fprintf(&sb, "  if (i >= n) return;\n  %s r = i, q;\n", ul)
	for k := len(c.out) - 1; k >= 0; k-- {
		fmt.Fprintf(&sb, "  q = r / %du; %s c%d = (%s)(r - q * %du); r = q;\n", c.out[k], l, k, l, c.out[k])
	}
	is, ks := rowMajorStrides(c.in), rowMajorStrides(c.ker)
	ax := c.axes
	outC := c.out[ax.OutputChannels]
	kerIn := c.ker[ax.KernelInputChannels]
	fmt.Fprintf(&sb, "  %s b = c%d, oc = c%d;\n", l, ax.OutputBatch, ax.OutputChannels)
	if c.bGroups > 1 {
		fmt.Fprintf(&sb, "  b += (oc / %d) * %d;\n", outC/c.bGroups, c.out[ax.OutputBatch])
	}
	fmt.Fprintf(&sb, "  %s ib = b * %d, kb = oc * %d;\n", l, is[ax.InputBatch], ks[ax.KernelOutputChannels])
	if c.chanGroups > 1 {
		fmt.Fprintf(&sb, "  ib += (oc / %d) * %d * %d;\n", outC/c.chanGroups, kerIn, is[ax.InputChannels])
	}
	fmt.Fprintf(&sb, "  %s acc = 0;\n", ct)
	indent := "  "
	for s := range ax.InputSpatial {
		dim := (c.in[ax.InputSpatial[s]]-1)*c.inDil[s] + 1
		fmt.Fprintf(&sb, "%sfor (%s k%d = 0; k%d < %d; k%d++) {\n", indent, l, s, s, c.ker[ax.KernelSpatial[s]], s)
		indent += "  "
		fmt.Fprintf(&sb, "%s%s x%d = c%d * %d + k%d * %d - %d;\n", indent, l, s, ax.OutputSpatial[s], c.strides[s], s, c.kerDil[s], c.padLow[s])
		fmt.Fprintf(&sb, "%sif (x%d < 0 || x%d >= %d) continue;\n", indent, s, s, dim)
		if d := c.inDil[s]; d > 1 {
			fmt.Fprintf(&sb, "%sif (x%d - (x%d / %d) * %d != 0) continue;\n%sx%d /= %d;\n", indent, s, s, d, d, indent, s, d)
		}
		fmt.Fprintf(&sb, "%s%s ib%d = ib%s + x%d * %d, kb%d = kb%s + k%d * %d;\n", indent, l, s, prev(s), s,
			is[ax.InputSpatial[s]], s, prev(s), s, ks[ax.KernelSpatial[s]])
	}
	last := prev(len(ax.InputSpatial))
	fmt.Fprintf(&sb, "%sfor (%s ci = 0; ci < %d; ci++) acc += src[ib%s + ci * %d] * ker[kb%s + ci * %d];\n", indent, l, kerIn,
		last, is[ax.InputChannels], last, ks[ax.KernelInputChannels])
	for range ax.InputSpatial {
		indent = indent[2:]
		fmt.Fprintf(&sb, "%s}\n", indent)
	}
	sb.WriteString("  dst[i] = acc;\n}\n")
	return sb.String()
}

// prev is the suffix of the offsets of spatial axis s-1 ("" before the
// first).
func prev(s int) string {
	if s == 0 {
		return ""
	}
	return fmt.Sprint(s - 1)
}

// ConvGeneral implements compute.Function: XLA's convolution, strides,
// paddings, dilations and channel and batch groups included, as one
// kernel generated for its configuration, a work-item per output element.
// Integers wrap; every dtype of the backend but bool.
func (f *Function) ConvGeneral(input, kernel gc.Value, axes gc.ConvolveAxesConfig, strides []int, paddings [][2]int,
	inputDilations, kernelDilations []int, channelGroupCount, batchGroupCount int) (gc.Value, error) {
	if err := f.check(); err != nil {
		return nil, err
	}
	ns, err := f.nodesOf(input, kernel)
	if err != nil {
		return nil, err
	}
	in, ker := ns[0], ns[1]
	for _, n := range ns {
		if err := f.builder.backend.checkDType(n.shape.DType); err != nil {
			return nil, err
		}
	}
	channelGroupCount, batchGroupCount = max(1, channelGroupCount), max(1, batchGroupCount)
	out, err := shapeinference.ConvGeneral(in.shape, ker.shape, axes, strides, paddings, inputDilations, kernelDilations,
		channelGroupCount, batchGroupCount)
	if err != nil {
		return nil, err
	}
	if in.shape.IsDynamic() || ker.shape.IsDynamic() {
		return f.pending(gc.OpTypeConvGeneral, out, in, ker), nil
	}
	sr := len(axes.InputSpatial)
	fill := func(v []int, def int) []int {
		if len(v) == 0 {
			return slices.Repeat([]int{def}, sr)
		}
		return slices.Clone(v)
	}
	c := &convSpec{in: slices.Clone(in.shape.Dimensions), ker: slices.Clone(ker.shape.Dimensions),
		out: slices.Clone(out.Dimensions), axes: axes.Clone(), strides: fill(strides, 1), padLow: make([]int, sr),
		inDil: fill(inputDilations, 1), kerDil: fill(kernelDilations, 1),
		chanGroups: max(1, channelGroupCount), bGroups: max(1, batchGroupCount)}
	for s := range min(sr, len(paddings)) {
		c.padLow[s] = paddings[s][0]
	}
	for _, v := range [][]int{c.strides, c.inDil, c.kerDil} {
		if len(v) != sr {
			return nil, errors.Errorf("gour backend: ConvGeneral with %d spatial axes and a parameter of %d values", sr, len(v))
		}
	}
	c.t, _ = storageType(in.shape.DType)
	h := fnv.New64a()
	fmt.Fprintf(h, "%v|%v|%v|%+v|%v|%v|%v|%v|%d|%d|%v", c.in, c.ker, c.out, c.axes, c.strides, c.padLow, c.inDil, c.kerDil,
		c.chanGroups, c.bGroups, c.t)
	c.name = fmt.Sprintf("gour_gomlx_conv_%016x", h.Sum64())
	conv := f.add(&node{op: gc.OpTypeConvGeneral, shape: out, inputs: ns,
		run: func(b *Backend, sts []store) (store, error) {
			st, err := b.alloc(out)
			if err != nil {
				return nil, err
			}
			if err := b.runConv(c, st, sts[0], sts[1]); err != nil {
				_ = st.release()
				return nil, err
			}
			return st, nil
		}})
	if wrapNarrow("x", out.DType) != "x" {
		return f.ewNode(gc.OpTypeConvGeneral, out.Clone(), []*node{conv}, func(in []string) string { return in[0] })
	}
	return conv, nil
}

func (b *Backend) runConv(c *convSpec, out, in, ker store) error {
	return b.launchEach(c.name, c.source, c.t == expr.Float64, out, []store{in, ker})
}
