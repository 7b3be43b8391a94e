package gomlx

import (
	"fmt"
	"hash/fnv"
	"strings"

	gc "github.com/gomlx/compute"
	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/compute/shapeinference"
	"github.com/gomlx/compute/shapes"
	"github.com/pkg/errors"

	"github.com/gour-dev/gour/compute/expr"
)

// FusedQuantizedDense implements compute.Function by dequantizing into
// floats and FusedDense (one GEMM, then bias and activation as one fused
// kernel): the weight (QuantLinear and QuantNF4 by a kernel indexing its
// scale and zero point by shapeinference's block layouts; QuantGGML by a
// kernel decoding its blocks, see ggml.go) into the compute dtype; a
// quantized x (QuantLinear, by its activation layouts; QuantGGML's Q8_0
// and Q8_K blocks) into float32. QuantizedMatmul is a hint that the
// integer arithmetic may be used: it is not, the product is in float (the
// suite accepts either). An OutputQuantization (QuantLinear) is one more
// kernel rounding the result to int8 or uint8. An Int32 bias of QuantLinear
// activations (QLinearMatMul's, added to the integer accumulator, so
// scaled with it) is added by a kernel of its own after the GEMM, then
// the activation.
func (f *Function) FusedQuantizedDense(x, weight, bias gc.Value, options gc.FusedQuantizedDenseConfig) (gc.Value, error) {
	if err := f.check(); err != nil {
		return nil, err
	}
	wq := options.WeightQuantization
	if wq == nil {
		return nil, errors.New("gour backend: FusedQuantizedDense: options.WeightQuantization must not be nil")
	}
	ns, err := f.nodesOf(x, weight)
	if err != nil {
		return nil, err
	}
	xn, wn := ns[0], ns[1]
	qs, scale, zp, err := f.quantParts(wq)
	if err != nil {
		return nil, err
	}
	xqs, xScale, xZP, err := f.quantParts(options.XQuantization)
	if err != nil {
		return nil, err
	}
	oqs, oScale, oZP, err := f.quantParts(options.OutputQuantization)
	if err != nil {
		return nil, err
	}
	var bn *node
	var biasShape shapes.Shape
	if bias != nil {
		if bn, err = f.nodeOf(bias); err != nil {
			return nil, err
		}
		biasShape = bn.shape
	}
	info, err := shapeinference.FusedQuantizedDenseWithInfo(xn.shape, wn.shape, biasShape, shapeinference.QuantizedDenseConfigShapes{
		WeightQuantization: qs, XQuantization: xqs, OutputQuantization: oqs, QuantizedMatmul: options.QuantizedMatmul,
		Activation: options.Activation, WeightLayout: options.WeightLayout})
	if err != nil {
		return nil, err
	}
	for _, n := range []*node{xn, wn, scale, zp, xScale, xZP, oScale, oZP, bn} {
		if n == nil {
			continue
		}
		if err := f.builder.backend.checkDType(n.shape.DType); err != nil {
			return nil, err
		}
	}
	if (options.XQuantization != nil && options.XQuantization.Scheme == gc.QuantLinear && xScale == nil) ||
		(options.OutputQuantization != nil && oScale == nil) {
		return nil, notImplemented("FusedQuantizedDense of a quantized x or output without a scale")
	}
	dt := info.FloatComputeDType
	var deq *node
	switch wq.Scheme {
	case gc.QuantLinear, gc.QuantNF4:
		deq = f.dequantNode(dt, wq.Scheme, wn, scale, zp, info.WeightScaleLayout, info.WeightZeroPointLayout)
	case gc.QuantGGML:
		if !ggmlSupported(wq.GGMLType) {
			return nil, notImplemented("FusedQuantizedDense of GGML type %s", wq.GGMLType)
		}
		deq = f.ggmlDecoded(gc.OpTypeFusedQuantizedDense, dt, wq.GGMLType, wn)
	default:
		return nil, notImplemented("FusedQuantizedDense of scheme %s", wq.Scheme)
	}
	xf := xn
	switch xq := options.XQuantization; {
	case xq == nil:
		if err := f.floatOperand("FusedQuantizedDense", xn); err != nil {
			return nil, err
		}
	case xq.Scheme == gc.QuantGGML:
		if !ggmlSupported(xq.GGMLType) {
			return nil, notImplemented("FusedQuantizedDense of GGML x type %s", xq.GGMLType)
		}
		xf = f.ggmlDecoded(gc.OpTypeFusedQuantizedDense, dt, xq.GGMLType, xn)
	case xq.Scheme == gc.QuantLinear:
		xf = f.actQuantNode(false, shapes.Make(dt, xn.shape.Dimensions...), xn, xScale, xZP, info.XScaleLayout, info.XZeroPointLayout)
	default:
		return nil, notImplemented("FusedQuantizedDense of x scheme %s", xq.Scheme)
	}
	var y gc.Value
	if bn != nil && bn.shape.DType == dtypes.Int32 {
		// QLinearMatMul's bias: an integer added to the accumulator
		// Σ(x-zx)(w-zw), so scaled by x's and the weight's scales
		// (shapeinference allows it only where K is one scale block).
		if y, err = f.FusedDense(xf, deq, nil, gc.DenseConfig{WeightLayout: options.WeightLayout}); err != nil {
			return nil, err
		}
		yn, err := f.nodeOf(y)
		if err != nil {
			return nil, err
		}
		y = f.int32BiasNode(yn, bn, xScale, scale, info.XScaleLayout, info.WeightScaleLayout, options.WeightLayout)
		if options.Activation.Type != gc.ActivationNone {
			if y, err = f.FusedActivation(y, options.Activation); err != nil {
				return nil, err
			}
		}
	} else {
		if bn != nil && bn.shape.DType != dt {
			b, err := f.ConvertDType(bn, dt)
			if err != nil {
				return nil, err
			}
			bias = b
		}
		y, err = f.FusedDense(xf, deq, bias, gc.DenseConfig{Activation: options.Activation, WeightLayout: options.WeightLayout})
		if err != nil {
			return nil, err
		}
	}
	if options.OutputQuantization == nil {
		return y, nil
	}
	yn, err := f.nodeOf(y)
	if err != nil {
		return nil, err
	}
	return f.actQuantNode(true, info.OutputShape, yn, oScale, oZP, info.OutputScaleLayout, info.OutputZeroPointLayout), nil
}

// actIndex is the C expression of the index into a scale or zero point
// of activation layout l at row m, column c (C expressions).
func actIndex(l shapeinference.ActivationParamLayout, m, c string) string {
	switch l.Kind {
	case shapeinference.ActParamPerColBlock:
		return fmt.Sprintf("(%s) / %du", c, max(1, l.ColBlockSize))
	case shapeinference.ActParamPerRow:
		return m
	case shapeinference.ActParamPerRowColBlock:
		return fmt.Sprintf("(%s) * %du + (%s) / %du", m, l.NumColBlocks, c, max(1, l.ColBlockSize))
	}
	return "0"
}

// int32BiasNode adds the node of y [M, N] plus an int32 bias [N] scaled
// by x's scale (sx, layout xl, at row m) and the weight's (sw, layout wl
// over the weight's 2-D shape in layout, at output n): out[m, n] = y[m, n]
// + bias[n]·sx[m]·sw[n]. An element per work-item.
func (f *Function) int32BiasNode(y, bias, sx, sw *node, xl shapeinference.ActivationParamLayout,
	wl shapeinference.BlockParamLayout, layout gc.DenseLayout) *node {
	out := y.shape
	ot, _ := storageType(out.DType)
	xt, _ := storageType(sx.shape.DType)
	wt, _ := storageType(sw.shape.DType)
	cols := out.Dimensions[out.Rank()-1]
	h := fnv.New64a()
	fmt.Fprintf(h, "%v|%v|%v|%+v|%+v|%v", out, xt, wt, xl, wl, layout)
	name := fmt.Sprintf("gour_gomlx_qbias_%016x", h.Sum64())
	src := func(backend string) string {
		ul := "ulong"
		if backend == "cuda" {
			ul = "unsigned long long"
		}
		var sb strings.Builder
		kernelHead(&sb, backend, name, false)
		fmt.Fprintf(&sb, "%s dst, %s y, %s b, %s sx, %s sw, %s n) {\n", globalPtr(backend, cType(backend, ot), true),
			globalPtr(backend, cType(backend, ot), false), globalPtr(backend, "int", false),
			globalPtr(backend, cType(backend, xt), false), globalPtr(backend, cType(backend, wt), false), ul)
		sb.WriteString(globalID(backend))
		fmt.Fprintf(&sb, "  if (i >= n) return;\n  %s m = i / %du, c = i - m * %du;\n", ul, cols, cols)
		// The weight's scale at (k = 0, n) of [K, N], or (n, k = 0) of [N, K].
		wi := fmt.Sprintf("c / %du", max(1, wl.ColBlockSize))
		if layout == gc.DenseLayoutOutputsInput {
			wi = fmt.Sprintf("(c / %du) * %du", max(1, wl.RowBlockSize), wl.NumColBlocks)
		}
		fmt.Fprintf(&sb, "  dst[i] = y[i] + (float)b[c] * (float)sx[%s] * (float)sw[%s];\n}\n", actIndex(xl, "m", "0"), wi)
		return sb.String()
	}
	return f.add(&node{op: gc.OpTypeFusedQuantizedDense, shape: out, inputs: []*node{y, bias, sx, sw},
		run: eachRun(out, name, src, false)})
}

// actQuantNode adds the node (de)quantizing activations in by a scale and
// zero point (nil: 0) of activation layouts sl and zl over in seen as
// [M, F] (F its last axis): with quantize, out = clamp(round(in/scale) +
// zero point) to out's int8 or uint8 range (ties to even: rint);
// otherwise out = (in - zero point)·scale. An element per work-item.
func (f *Function) actQuantNode(quantize bool, out shapes.Shape, in, scale, zp *node,
	sl, zl shapeinference.ActivationParamLayout) *node {
	ot, _ := storageType(out.DType)
	it, _ := storageType(in.shape.DType)
	st, _ := storageType(scale.shape.DType)
	var zt expr.Type
	inputs := []*node{in, scale}
	if zp != nil {
		zt, _ = storageType(zp.shape.DType)
		inputs = append(inputs, zp)
	}
	cols := in.shape.Dimensions[in.shape.Rank()-1]
	h := fnv.New64a()
	fmt.Fprintf(h, "%v|%v|%v|%v|%v|%v|%v|%+v|%+v", quantize, out, in.shape, st, zp != nil, zt, cols, sl, zl)
	name := fmt.Sprintf("gour_gomlx_actquant_%016x", h.Sum64())
	fp64 := ot == expr.Float64 || it == expr.Float64 || st == expr.Float64 || zt == expr.Float64
	src := func(backend string) string {
		ul, rint := "ulong", "rint"
		if backend == "cuda" {
			ul, rint = "unsigned long long", "rintf"
		}
		var sb strings.Builder
		kernelHead(&sb, backend, name, fp64)
		fmt.Fprintf(&sb, "%s dst, %s x, %s sc", globalPtr(backend, cType(backend, ot), true),
			globalPtr(backend, cType(backend, it), false), globalPtr(backend, cType(backend, st), false))
		if zp != nil {
			fmt.Fprintf(&sb, ", %s zp", globalPtr(backend, cType(backend, zt), false))
		}
		fmt.Fprintf(&sb, ", %s n) {\n", ul)
		sb.WriteString(globalID(backend))
		fmt.Fprintf(&sb, "  if (i >= n) return;\n  %s m = i / %du, c = i - m * %du;\n", ul, cols, cols)
		idx := func(l shapeinference.ActivationParamLayout) string { return actIndex(l, "m", "c") }
		z := "0.0f"
		if zp != nil {
			z = fmt.Sprintf("(float)zp[%s]", idx(zl))
		}
		fmt.Fprintf(&sb, "  float s = (float)sc[%s], z = %s;\n", idx(sl), z)
		if !quantize {
			fmt.Fprintf(&sb, "  dst[i] = (%s)(((float)x[i] - z) * s);\n}\n", cType(backend, ot))
			return sb.String()
		}
		lo, hi := -128, 127
		if out.DType == dtypes.Uint8 {
			lo, hi = 0, 255
		}
		fmt.Fprintf(&sb, "  float q = %s((float)x[i] / s) + z;\n  q = q < %d.0f ? %d.0f : (q > %d.0f ? %d.0f : q);\n",
			rint, lo, lo, hi, hi)
		fmt.Fprintf(&sb, "  dst[i] = (%s)%s(q);\n}\n", cType(backend, ot), rint)
		return sb.String()
	}
	return f.add(&node{op: gc.OpTypeFusedQuantizedDense, shape: out, inputs: inputs,
		run: eachRun(out, name, src, fp64)})
}

// QuantizedGather implements compute.Function for unpacked int8 and uint8
// rows (QuantNone), packed int2 and int4 rows, the QuantLinear and
// QuantNF4 schemes and GGML blocks: one kernel, an output element per
// work-item, its row index clamped to the table (for GGML, decoding the
// element's block: ggmlRowsNode).
func (f *Function) QuantizedGather(x, indices gc.Value, xQuantization *gc.Quantization) (gc.Value, error) {
	if err := f.check(); err != nil {
		return nil, err
	}
	ns, err := f.nodesOf(x, indices)
	if err != nil {
		return nil, err
	}
	xn, in := ns[0], ns[1]
	var qs *shapeinference.QuantizationShapes
	var scale, zp *node
	scheme := gc.QuantNone
	if q := xQuantization; q != nil {
		scheme = q.Scheme
		qs = &shapeinference.QuantizationShapes{Scheme: q.Scheme, Scale: shapes.Invalid(), ZeroPoint: shapes.Invalid(),
			BlockAxis: q.BlockAxis, BlockSize: q.BlockSize, GGMLType: q.GGMLType, QuantizedDType: q.QuantizedDType,
			PackedDType: q.PackedDType}
		if q.Scale != nil {
			if scale, err = f.nodeOf(q.Scale); err != nil {
				return nil, err
			}
			qs.Scale = scale.shape
		}
		if q.ZeroPoint != nil {
			if zp, err = f.nodeOf(q.ZeroPoint); err != nil {
				return nil, err
			}
			qs.ZeroPoint = zp.shape
		}
	}
	info, err := shapeinference.QuantizedGatherWithInfo(xn.shape, in.shape, qs)
	if err != nil {
		return nil, err
	}
	// Packed sub-byte values: vpu to a byte, low bits first.
	var packed dtypes.DType
	bits, vpu := 8, 1
	if qs != nil && qs.PackedDType != dtypes.InvalidDType {
		packed = qs.PackedDType
		bits = packed.Bits()
		vpu = 8 / bits
	}
	if scheme == gc.QuantGGML {
		if !ggmlSupported(qs.GGMLType) {
			return nil, notImplemented("QuantizedGather of GGML type %s", qs.GGMLType)
		}
		for _, n := range []*node{xn, in} {
			if err := f.builder.backend.checkDType(n.shape.DType); err != nil {
				return nil, err
			}
		}
		return f.ggmlRowsNode(gc.OpTypeQuantizedGather, info.OutputShape, qs.GGMLType, xn, in), nil
	}
	if scheme != gc.QuantNone && scheme != gc.QuantLinear && scheme != gc.QuantNF4 {
		return nil, notImplemented("QuantizedGather of scheme %s", scheme)
	}
	out := info.OutputShape
	inputs := []*node{xn, in}
	for _, n := range []*node{xn, in, scale, zp} {
		if n == nil {
			continue
		}
		if err := f.builder.backend.checkDType(n.shape.DType); err != nil {
			return nil, err
		}
	}
	if scale != nil {
		inputs = append(inputs, scale)
	}
	if zp != nil {
		inputs = append(inputs, zp)
	}
	ot, _ := storageType(out.DType)
	xt, _ := storageType(xn.shape.DType)
	it, _ := storageType(in.shape.DType)
	var st, zt expr.Type
	if scale != nil {
		st, _ = storageType(scale.shape.DType)
	}
	if zp != nil {
		zt, _ = storageType(zp.shape.DType)
	}
	vocab, width, k := xn.shape.Dimensions[0], xn.shape.Dimensions[1], info.K
	sl, zl := info.ScaleLayout, info.ZeroPointLayout
	h := fnv.New64a()
	fmt.Fprintf(h, "%v|%v|%v|%v|%v|%v|%v|%+v|%+v|%v", scheme, xn.shape, in.shape.DType, out.DType, st, zp != nil, zt, sl, zl, packed)
	name := fmt.Sprintf("gour_gomlx_qgather_%016x", h.Sum64())
	src := func(backend string) string {
		ul, l := cType(backend, expr.Uint64), cType(backend, expr.Int64)
		ct := cType(backend, ot)
		var sb strings.Builder
		kernelHead(&sb, backend, name, ot == expr.Float64)
		fmt.Fprintf(&sb, "%s dst, %s x, %s idx", globalPtr(backend, ct, true), globalPtr(backend, cType(backend, xt), false),
			globalPtr(backend, cType(backend, it), false))
		if scale != nil {
			fmt.Fprintf(&sb, ", %s sc", globalPtr(backend, cType(backend, st), false))
		}
		if zp != nil {
			fmt.Fprintf(&sb, ", %s zp", globalPtr(backend, cType(backend, zt), false))
		}
		fmt.Fprintf(&sb, ", %s n) {\n", ul)
		sb.WriteString(globalID(backend))
		fmt.Fprintf(&sb, "  if (i >= n) return;\n  %s q = i / %du, c = i - q * %du;\n", ul, k, k)
		fmt.Fprintf(&sb, "  %s r = (%s)idx[q];\n  r = r < 0 ? 0 : (r > %d ? %d : r);\n", l, l, vocab-1, vocab-1)
		if packed == dtypes.InvalidDType {
			fmt.Fprintf(&sb, "  %s v = x[(%s)r * %du + c];\n", cType(backend, xt), ul, width)
		} else {
			fmt.Fprintf(&sb, "  %s cb = c / %du;\n  unsigned int raw = ((unsigned int)x[(%s)r * %du + cb] >> ((c - cb * %du) * %du)) & %du;\n",
				ul, vpu, ul, width, vpu, bits, 1<<bits-1)
			if packed.IsUnsigned() || scheme == gc.QuantNF4 {
				sb.WriteString("  int v = (int)raw;\n")
			} else {
				fmt.Fprintf(&sb, "  int v = raw >= %du ? (int)raw - %d : (int)raw;\n", 1<<(bits-1), 1<<bits)
			}
		}
		pidx := func(lay shapeinference.BlockParamLayout) string {
			return fmt.Sprintf("((%s)r / %du) * %du + c / %du", ul, max(1, lay.RowBlockSize), lay.NumColBlocks, max(1, lay.ColBlockSize))
		}
		switch scheme {
		case gc.QuantNone:
			fmt.Fprintf(&sb, "  dst[i] = (%s)v;\n}\n", ct)
		case gc.QuantNF4:
			sb.WriteString("  float nf4[16] = {")
			for j, v := range gc.NF4LookupTable {
				if j > 0 {
					sb.WriteString(", ")
				}
				sb.WriteString(formatFloat(float64(v), dtypes.Float32))
			}
			fmt.Fprintf(&sb, "};\n  dst[i] = (%s)nf4[(unsigned int)v & 15u] * (%s)sc[%s];\n}\n", ct, ct, pidx(sl))
		default:
			z := "0"
			if zp != nil {
				z = fmt.Sprintf("(%s)zp[%s]", ct, pidx(zl))
			}
			fmt.Fprintf(&sb, "  dst[i] = ((%s)v - %s) * (%s)sc[%s];\n}\n", ct, z, ct, pidx(sl))
		}
		return sb.String()
	}
	return f.add(&node{op: gc.OpTypeQuantizedGather, shape: out, inputs: inputs,
		run: eachRun(out, name, src, ot == expr.Float64)}), nil
}

// dequantNode adds the node dequantizing weight wn (QuantLinear or
// QuantNF4) into float dtype dt: a kernel, an element per work-item, its
// scale and zero point (nil: 0) at the block layouts sl and zl.
func (f *Function) dequantNode(dt dtypes.DType, scheme gc.QuantizationScheme, wn, scale, zp *node,
	sl, zl shapeinference.BlockParamLayout) *node {
	wf := shapes.Make(dt, wn.shape.Dimensions...)
	ft, _ := storageType(wf.DType)
	wt, _ := storageType(wn.shape.DType)
	st, _ := storageType(scale.shape.DType)
	var zt expr.Type
	inputs := []*node{wn, scale}
	if zp != nil {
		zt, _ = storageType(zp.shape.DType)
		inputs = append(inputs, zp)
	}
	d1 := wn.shape.Dimensions[1]
	h := fnv.New64a()
	fmt.Fprintf(h, "%v|%v|%v|%v|%v|%v|%+v|%+v|%v", scheme, wn.shape, wf.DType, scale.shape.DType, zp != nil, zt, sl, zl, d1)
	name := fmt.Sprintf("gour_gomlx_dequant_%016x", h.Sum64())
	src := func(backend string) string {
		ul := "ulong"
		if backend == "cuda" {
			ul = "unsigned long long"
		}
		var sb strings.Builder
		kernelHead(&sb, backend, name, ft == expr.Float64)
		ct := cType(backend, ft)
		fmt.Fprintf(&sb, "%s dst, %s w, %s sc", globalPtr(backend, ct, true), globalPtr(backend, cType(backend, wt), false),
			globalPtr(backend, cType(backend, st), false))
		if zp != nil {
			fmt.Fprintf(&sb, ", %s zp", globalPtr(backend, cType(backend, zt), false))
		}
		fmt.Fprintf(&sb, ", %s n) {\n", ul)
		sb.WriteString(globalID(backend))
		fmt.Fprintf(&sb, "  if (i >= n) return;\n  %s r = i / %du, c = i - r * %du;\n", ul, d1, d1)
		idx := func(l shapeinference.BlockParamLayout) string {
			return fmt.Sprintf("(r / %du) * %du + c / %du", max(1, l.RowBlockSize), l.NumColBlocks, max(1, l.ColBlockSize))
		}
		fmt.Fprintf(&sb, "  %s s = (%s)sc[%s];\n", ct, ct, idx(sl))
		if scheme == gc.QuantNF4 {
			sb.WriteString("  float nf4[16] = {")
			for j, v := range gc.NF4LookupTable {
				if j > 0 {
					sb.WriteString(", ")
				}
				sb.WriteString(formatFloat(float64(v), dtypes.Float32))
			}
			fmt.Fprintf(&sb, "};\n  dst[i] = (%s)nf4[(unsigned int)w[i] & 15u] * s;\n}\n", ct)
			return sb.String()
		}
		z := "0"
		if zp != nil {
			z = fmt.Sprintf("(%s)zp[%s]", ct, idx(zl))
		}
		fmt.Fprintf(&sb, "  dst[i] = ((%s)w[i] - %s) * s;\n}\n", ct, z)
		return sb.String()
	}
	return f.add(&node{op: gc.OpTypeFusedQuantizedDense, shape: wf, inputs: inputs,
		run: eachRun(wf, name, src, ft == expr.Float64)})
}

// quantParts returns q's shapes for shapeinference and its scale and zero
// point nodes (nil where absent).
func (f *Function) quantParts(q *gc.Quantization) (*shapeinference.QuantizationShapes, *node, *node, error) {
	if q == nil {
		return nil, nil, nil, nil
	}
	qs := &shapeinference.QuantizationShapes{Scheme: q.Scheme, Scale: shapes.Invalid(), ZeroPoint: shapes.Invalid(),
		BlockAxis: q.BlockAxis, BlockSize: q.BlockSize, GGMLType: q.GGMLType, QuantizedDType: q.QuantizedDType,
		PackedDType: q.PackedDType}
	var scale, zp *node
	var err error
	if q.Scale != nil {
		if scale, err = f.nodeOf(q.Scale); err != nil {
			return nil, nil, nil, err
		}
		qs.Scale = scale.shape
	}
	if q.ZeroPoint != nil {
		if zp, err = f.nodeOf(q.ZeroPoint); err != nil {
			return nil, nil, nil, err
		}
		qs.ZeroPoint = zp.shape
	}
	return qs, scale, zp, nil
}

// FusedQuantizedDenseVJP implements compute.Function for weight-only
// QuantLinear, QuantNF4 and QuantGGML (the weight frozen): dZ is dOutput through the
// activation's derivative (of y), dx is dZ by the dequantized weight
// transposed (one GEMM), dBias the sum of dZ over the batch axes.
func (f *Function) FusedQuantizedDenseVJP(x, weight, bias, y, dOutput gc.Value, options gc.FusedQuantizedDenseConfig) (
	dx, dBias gc.Value, err error) {
	if err := f.check(); err != nil {
		return nil, nil, err
	}
	wq := options.WeightQuantization
	if wq == nil {
		return nil, nil, errors.New("gour backend: FusedQuantizedDenseVJP: options.WeightQuantization must not be nil")
	}
	qs, scale, zp, err := f.quantParts(wq)
	if err != nil {
		return nil, nil, err
	}
	ns, err := f.nodesOf(weight, dOutput)
	if err != nil {
		return nil, nil, err
	}
	wn, dn := ns[0], ns[1]
	shapeOf := func(v gc.Value) (shapes.Shape, *node, error) {
		if v == nil {
			return shapes.Invalid(), nil, nil
		}
		n, err := f.nodeOf(v)
		if err != nil {
			return shapes.Invalid(), nil, err
		}
		return n.shape, n, nil
	}
	xs, _, err := shapeOf(x)
	if err != nil {
		return nil, nil, err
	}
	bs, bn, err := shapeOf(bias)
	if err != nil {
		return nil, nil, err
	}
	ys, yn, err := shapeOf(y)
	if err != nil {
		return nil, nil, err
	}
	if options.XQuantization != nil || options.OutputQuantization != nil {
		return nil, nil, notImplemented("FusedQuantizedDenseVJP with quantized x or output")
	}
	dxs, _, err := shapeinference.FusedQuantizedDenseVJP(xs, wn.shape, bs, ys, dn.shape, shapeinference.QuantizedDenseConfigShapes{
		WeightQuantization: qs, QuantizedMatmul: options.QuantizedMatmul, Activation: options.Activation,
		WeightLayout: options.WeightLayout})
	if err != nil {
		return nil, nil, err
	}
	switch {
	case wq.Scheme == gc.QuantGGML && !ggmlSupported(wq.GGMLType):
		return nil, nil, notImplemented("FusedQuantizedDenseVJP of GGML type %s", wq.GGMLType)
	case wq.Scheme != gc.QuantLinear && wq.Scheme != gc.QuantNF4 && wq.Scheme != gc.QuantGGML:
		return nil, nil, notImplemented("FusedQuantizedDenseVJP of scheme %s", wq.Scheme)
	}
	for _, n := range []*node{wn, dn, scale, zp} {
		if n == nil {
			continue
		}
		if err := f.builder.backend.checkDType(n.shape.DType); err != nil {
			return nil, nil, err
		}
	}
	info, err := shapeinference.FusedQuantizedDenseWithInfo(dxs, wn.shape, bs, shapeinference.QuantizedDenseConfigShapes{
		WeightQuantization: qs, Activation: options.Activation, WeightLayout: options.WeightLayout})
	if err != nil {
		return nil, nil, err
	}
	var dz gc.Value = dn
	if options.Activation.Type != gc.ActivationNone {
		if dz, err = f.FusedActivationVJP(yn, nil, dn, options.Activation); err != nil {
			return nil, nil, err
		}
	}
	var deq *node
	if wq.Scheme == gc.QuantGGML {
		deq = f.ggmlDecoded(gc.OpTypeFusedQuantizedDense, dn.shape.DType, wq.GGMLType, wn)
	} else {
		deq = f.dequantNode(dn.shape.DType, wq.Scheme, wn, scale, zp, info.WeightScaleLayout, info.WeightZeroPointLayout)
	}
	r := dn.shape.Rank()
	wc := 1 // the weight's N axis: [K, N]
	if options.WeightLayout == gc.DenseLayoutOutputsInput {
		wc = 0 // [N, K]
	}
	if dx, err = f.DotGeneral(dz, []int{r - 1}, nil, deq, []int{wc}, nil, gc.DotGeneralConfig{}); err != nil {
		return nil, nil, err
	}
	if bn != nil {
		if dBias, err = f.ReduceSum(dz, seq(r-1)...); err != nil {
			return nil, nil, err
		}
		if dBias, err = f.Reshape(dBias, bn.shape.Dimensions...); err != nil {
			return nil, nil, err
		}
	}
	return dx, dBias, nil
}
