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
	"github.com/gour-dev/gour/ur"
)

// FusedQuantizedDense implements compute.Function for weight-only
// quantization (XQuantization and OutputQuantization nil) of the
// QuantLinear and QuantNF4 schemes: a kernel dequantizes the weight into
// x's float dtype (its scale and zero point indexed by shapeinference's
// block layouts), then FusedDense (one GEMM, then bias and activation as
// one fused kernel). The other configurations are ErrNotImplemented, so
// that the caller decomposes.
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
	var scale, zp *node
	qs := &shapeinference.QuantizationShapes{Scheme: wq.Scheme, Scale: shapes.Invalid(), ZeroPoint: shapes.Invalid(),
		BlockAxis: wq.BlockAxis, BlockSize: wq.BlockSize, GGMLType: wq.GGMLType, QuantizedDType: wq.QuantizedDType,
		PackedDType: wq.PackedDType}
	if wq.Scale != nil {
		if scale, err = f.nodeOf(wq.Scale); err != nil {
			return nil, err
		}
		qs.Scale = scale.shape
	}
	if wq.ZeroPoint != nil {
		if zp, err = f.nodeOf(wq.ZeroPoint); err != nil {
			return nil, err
		}
		qs.ZeroPoint = zp.shape
	}
	var biasShape shapes.Shape
	if bias != nil {
		bn, err := f.nodeOf(bias)
		if err != nil {
			return nil, err
		}
		biasShape = bn.shape
	}
	if options.XQuantization != nil || options.OutputQuantization != nil {
		return nil, notImplemented("FusedQuantizedDense with quantized x or output (weight-only quantization only)")
	}
	info, err := shapeinference.FusedQuantizedDenseWithInfo(xn.shape, wn.shape, biasShape, shapeinference.QuantizedDenseConfigShapes{
		WeightQuantization: qs, QuantizedMatmul: options.QuantizedMatmul, Activation: options.Activation,
		WeightLayout: options.WeightLayout})
	if err != nil {
		return nil, err
	}
	if wq.Scheme != gc.QuantLinear && wq.Scheme != gc.QuantNF4 {
		return nil, notImplemented("FusedQuantizedDense of scheme %s", wq.Scheme)
	}
	for _, n := range []*node{xn, wn, scale, zp} {
		if n == nil {
			continue
		}
		if err := f.builder.backend.checkDType(n.shape.DType); err != nil {
			return nil, err
		}
	}
	if err := f.floatOperand("FusedQuantizedDense", xn); err != nil {
		return nil, err
	}
	deq := f.dequantNode(xn.shape.DType, wq.Scheme, wn, scale, zp, info.WeightScaleLayout, info.WeightZeroPointLayout)
	return f.FusedDense(xn, deq, bias, gc.DenseConfig{Activation: options.Activation, WeightLayout: options.WeightLayout})
}

// QuantizedGather implements compute.Function for unpacked int8 and uint8
// rows (QuantNone), and the QuantLinear and QuantNF4 schemes: one kernel,
// an output element per work-item, its row index clamped to the table.
// Packed sub-byte rows and GGML blocks are ErrNotImplemented.
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
		ul, l := "ulong", "long"
		if backend == "cuda" {
			ul, l = "unsigned long long", "long long"
		}
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
		run: func(b *Backend, sts []store) (store, error) {
			st, err := b.alloc(out)
			if err != nil {
				return nil, err
			}
			n := st.len()
			if n == 0 {
				return st, nil
			}
			kern, err := b.kernel(name, name, src, ot == expr.Float64)
			if err == nil {
				var args []ur.Arg
				if args, err = ioArgs(st, sts, 1); err == nil {
					err = b.launch(kern, n, append(args, ur.ArgOf(uint64(n)))...)
				}
			}
			if err != nil {
				_ = st.release()
				return nil, err
			}
			return st, nil
		}}), nil
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
		run: func(b *Backend, sts []store) (store, error) {
			out, err := b.alloc(wf)
			if err != nil {
				return nil, err
			}
			n := out.len()
			if n == 0 {
				return out, nil
			}
			k, err := b.kernel(name, name, src, ft == expr.Float64)
			if err == nil {
				var args []ur.Arg
				if args, err = ioArgs(out, sts, 1); err == nil {
					err = b.launch(k, n, append(args, ur.ArgOf(uint64(n)))...)
				}
			}
			if err != nil {
				_ = out.release()
				return nil, err
			}
			return out, nil
		}})
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
// QuantLinear and QuantNF4 (the weight frozen): dZ is dOutput through the
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
	if wq.Scheme != gc.QuantLinear && wq.Scheme != gc.QuantNF4 {
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
	deq := f.dequantNode(dn.shape.DType, wq.Scheme, wn, scale, zp, info.WeightScaleLayout, info.WeightZeroPointLayout)
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
