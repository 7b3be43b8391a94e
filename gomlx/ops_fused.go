package gomlx

import (
	"fmt"
	"math"
	"slices"
	"strings"

	gc "github.com/gomlx/compute"
	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/compute/shapes"
	"github.com/pkg/errors"

	"github.com/gour-dev/gour/compute/expr"
	"github.com/gour-dev/gour/ur"
)

// floatOperand checks that n is of a float dtype the backend holds
// (float32, or float64 with double precision): other floats are not
// implemented, other dtypes are an error.
func (f *Function) floatOperand(op string, n *node) error {
	dt := n.shape.DType
	if !dt.IsFloat() {
		return errors.Errorf("gour backend: %s of %s, want a float", op, n.shape)
	}
	return f.builder.backend.checkDType(dt)
}

// rowNode adds a node running a row kernel over its first input seen as
// [outer, len, inner]: src is the kernel's source (its parameters dst,
// src, then one pointer per other input, then len and inner).
func (f *Function) rowNode(op gc.OpType, out shapes.Shape, inputs []*node, name string, t expr.Type,
	outer, length, inner int, src func(backend string) string) *node {
	return f.add(&node{op: op, shape: out, inputs: inputs,
		run: func(b *Backend, sts []store) (store, error) {
			st, err := b.alloc(out)
			if err != nil {
				return nil, err
			}
			if outer*inner == 0 || length == 0 {
				return st, nil
			}
			k, err := b.kernel(name, name, src, t == expr.Float64)
			if err == nil {
				var args []ur.Arg
				if args, err = ioArgs(st, sts, 2); err == nil {
					args = append(args, ur.ArgOf(uint64(length)), ur.ArgOf(uint64(inner)))
					err = b.launchGroups(k, outer*inner, args...)
				}
			}
			if err != nil {
				_ = st.release()
				return nil, err
			}
			return st, nil
		}})
}

// FusedSoftmax implements compute.Function: a work-group per row of the
// axis (the maximum, the sum of exponentials, then the quotients).
func (f *Function) FusedSoftmax(x gc.Value, axis int) (gc.Value, error) {
	if err := f.check(); err != nil {
		return nil, err
	}
	n, err := f.nodeOf(x)
	if err != nil {
		return nil, err
	}
	if axis < 0 || axis >= n.shape.Rank() {
		return nil, errors.Errorf("gour backend: FusedSoftmax axis %d of %s (want 0 ≤ axis < rank)", axis, n.shape)
	}
	if err := f.floatOperand("FusedSoftmax", n); err != nil {
		return nil, err
	}
	t, _ := storageType(n.shape.DType)
	outer, length, inner := axisSplit(n.shape.Dimensions, axis)
	name := kernelName("softmax", n.shape.DType.String())
	return f.rowNode(gc.OpTypeFusedSoftmax, n.shape.Clone(), []*node{n}, name, t, outer, length, inner,
		func(backend string) string { return softmaxSource(backend, name, t) }), nil
}

func softmaxSource(backend, name string, t expr.Type) string {
	var sb strings.Builder
	sb.WriteString(rowPrelude(backend, t))
	fmt.Fprintf(&sb, "KERNEL %s(GLOBAL T* dst, GLOBAL const T* src, UL len, UL inner) {\n", name)
	sb.WriteString(rowHead)
	sb.WriteString("  T m = NEG_INF;\n  for (UL k = lid; k < len; k += WG) { T v = src[base + k * inner]; if (v > m || v != v) m = v; }\n")
	sb.WriteString(groupReduce("m", maxOf))
	sb.WriteString("  T sum = 0;\n  for (UL k = lid; k < len; k += WG) { UL p = base + k * inner; T e = EXP(src[p] - m); dst[p] = e; sum += e; }\n")
	sb.WriteString(groupReduce("sum", sumOf))
	sb.WriteString("  T inv = (T)1 / sum;\n  for (UL k = lid; k < len; k += WG) dst[base + k * inner] *= inv;\n}\n")
	return sb.String()
}

// FusedLayerNorm implements compute.Function over consecutive axes
// (given in increasing order): a work-group per normalized row computes
// its mean, then its variance, then the output; gamma and beta (nil, or of
// the normalized axes' size) scale and offset it. Axes otherwise are not
// implemented (the caller decomposes).
func (f *Function) FusedLayerNorm(x gc.Value, axes []int, epsilon float64, gamma, beta gc.Value) (gc.Value, error) {
	if err := f.check(); err != nil {
		return nil, err
	}
	n, err := f.nodeOf(x)
	if err != nil {
		return nil, err
	}
	if err := f.floatOperand("FusedLayerNorm", n); err != nil {
		return nil, err
	}
	if n.shape.IsDynamic() {
		ins, err := f.valueInputs([]*node{n}, gamma, beta)
		if err != nil {
			return nil, err
		}
		return f.pending(gc.OpTypeFusedLayerNorm, n.shape.Clone(), ins...), nil
	}
	rank := n.shape.Rank()
	if len(axes) == 0 {
		return nil, errors.New("gour backend: FusedLayerNorm with no axes")
	}
	norm := make([]int, len(axes))
	for i, a := range axes {
		if a < 0 {
			a += rank
		}
		if a < 0 || a >= rank {
			return nil, errors.Errorf("gour backend: FusedLayerNorm axis %d out of range for %s", axes[i], n.shape)
		}
		norm[i] = a
	}
	for i := 1; i < len(norm); i++ {
		if norm[i] == norm[i-1] {
			return nil, errors.Errorf("gour backend: FusedLayerNorm axes %v repeat an axis", axes)
		}
		if norm[i] != norm[i-1]+1 {
			return nil, notImplemented("FusedLayerNorm over axes %v (consecutive increasing axes only)", axes)
		}
	}
	outer, _, _ := axisSplit(n.shape.Dimensions, norm[0])
	_, _, inner := axisSplit(n.shape.Dimensions, norm[len(norm)-1])
	length := 1
	for _, a := range norm {
		length *= n.shape.Dimensions[a]
	}
	inputs := []*node{n}
	flags := ""
	for _, p := range []struct {
		name string
		v    gc.Value
	}{{"gamma", gamma}, {"beta", beta}} {
		if p.v == nil {
			continue
		}
		pn, err := f.nodeOf(p.v)
		if err != nil {
			return nil, err
		}
		if pn.shape.DType != n.shape.DType {
			return nil, errors.Errorf("gour backend: FusedLayerNorm %s of %s for x of %s", p.name, pn.shape, n.shape)
		}
		if pn.shape.Size() != length {
			return nil, notImplemented("FusedLayerNorm %s of %s for %d normalized elements", p.name, pn.shape, length)
		}
		inputs = append(inputs, pn)
		flags += "_" + p.name
	}
	t, _ := storageType(n.shape.DType)
	eps := formatFloat(epsilon, n.shape.DType)
	name := kernelName("layernorm", n.shape.DType.String()+flags, fmt.Sprintf("%x", math.Float64bits(epsilon)))
	hasGamma, hasBeta := gamma != nil, beta != nil
	return f.rowNode(gc.OpTypeFusedLayerNorm, n.shape.Clone(), inputs, name, t, outer, length, inner,
		func(backend string) string {
			var sb strings.Builder
			sb.WriteString(rowPrelude(backend, t))
			fmt.Fprintf(&sb, "KERNEL %s(GLOBAL T* dst, GLOBAL const T* src", name)
			if hasGamma {
				sb.WriteString(", GLOBAL const T* gamma")
			}
			if hasBeta {
				sb.WriteString(", GLOBAL const T* beta")
			}
			sb.WriteString(", UL len, UL inner) {\n")
			sb.WriteString(rowHead)
			sb.WriteString("  T mean = 0;\n  for (UL k = lid; k < len; k += WG) mean += src[base + k * inner];\n")
			sb.WriteString(groupReduce("mean", sumOf))
			sb.WriteString("  mean /= (T)len;\n  T var = 0;\n  for (UL k = lid; k < len; k += WG) { T d = src[base + k * inner] - mean; var += d * d; }\n")
			sb.WriteString(groupReduce("var", sumOf))
			fmt.Fprintf(&sb, "  T inv = RSQRT(var / (T)len + (T)%s);\n", eps)
			sb.WriteString("  for (UL k = lid; k < len; k += WG) {\n    UL p = base + k * inner;\n    T y = (src[p] - mean) * inv;\n")
			if hasGamma {
				sb.WriteString("    y *= gamma[k];\n")
			}
			if hasBeta {
				sb.WriteString("    y += beta[k];\n")
			}
			sb.WriteString("    dst[p] = y;\n  }\n}\n")
			return sb.String()
		}), nil
}

// formatFloat is v as a C literal of dt's precision.
func formatFloat(v float64, dt dtypes.DType) string {
	if dt != dtypes.Float64 {
		dt = dtypes.Float32 // the half floats are float32 on the device
	}
	if dt == dtypes.Float32 {
		v = float64(float32(v))
	}
	s := fmt.Sprintf("%.17g", v)
	if !strings.ContainsAny(s, ".eEn") {
		s += ".0"
	}
	if dt == dtypes.Float32 {
		s += "f"
	}
	return s
}

// SELU's constants.
const (
	seluAlpha = 1.6732632423543772848170429916717
	seluScale = 1.0507009873554804934193349852946
)

// activationExpr is activation a of x (an expression of compute/expr),
// for dtype dt; SwiGLU is not element-wise (FusedActivation splits it).
func activationExpr(a gc.ActivationType, x string, dt dtypes.DType) (string, error) {
	r := func(format string) string { return strings.ReplaceAll(format, "X", x) }
	switch a {
	case gc.ActivationNone:
		return x, nil
	case gc.ActivationRelu:
		return r("(X > 0 ? X : 0)"), nil
	case gc.ActivationSigmoid:
		return r("(1 / (1 + exp(-X)))"), nil
	case gc.ActivationHardSigmoid:
		return r("min(max(0.2 * X + 0.5, 0), 1)"), nil
	case gc.ActivationLeakyRelu:
		return r("(X >= 0 ? X : 0.3 * X)"), nil
	case gc.ActivationSelu:
		return r(fmt.Sprintf("(X > 0 ? %v * X : %v * (exp(X) - 1))", seluScale, seluScale*seluAlpha)), nil
	case gc.ActivationSilu:
		return r("(X / (1 + exp(-X)))"), nil
	case gc.ActivationHardSwish:
		return r("(X * min(max(X / 6 + 0.5, 0), 1))"), nil
	case gc.ActivationTanh:
		return r("tanh(X)"), nil
	case gc.ActivationGelu:
		e, err := erfExpr(r("(X * 0.7071067811865476)"), dt)
		if err != nil {
			return "", err
		}
		return r("(X * 0.5 * (1 + " + e + "))"), nil
	case gc.ActivationGeluApproximate:
		return r("(0.5 * X * (1 + tanh(0.7978845608028654 * (X + 0.044715 * X * X * X))))"), nil
	}
	return "", notImplemented("activation %s", a)
}

// activationVJPExpr is dx of activation a, of dy and of y or x (y may be
// "", then computed from x; x may be "" where a's derivative needs only y).
func activationVJPExpr(a gc.ActivationType, y, x, dy string, dt dtypes.DType) (string, error) {
	if y == "" && !a.VJPRequiresInput() {
		var err error
		if y, err = activationExpr(a, x, dt); err != nil {
			return "", err
		}
		y = "(" + y + ")"
	}
	r := func(format string) string {
		return "(" + dy + " * " + strings.NewReplacer("Y", y, "X", x).Replace(format) + ")"
	}
	switch a {
	case gc.ActivationNone:
		return dy, nil
	case gc.ActivationRelu:
		return r("(Y > 0 ? 1 : 0)"), nil
	case gc.ActivationSigmoid:
		return r("Y * (1 - Y)"), nil
	case gc.ActivationHardSigmoid:
		return r("(Y > 0 && Y < 1 ? 0.2 : 0)"), nil
	case gc.ActivationLeakyRelu:
		return r("(Y >= 0 ? 1 : 0.3)"), nil
	case gc.ActivationSelu:
		return r(fmt.Sprintf("(Y > 0 ? %v : Y + %v)", seluScale, seluScale*seluAlpha)), nil
	case gc.ActivationTanh:
		return r("(1 - Y * Y)"), nil
	case gc.ActivationSilu:
		s := "(1 / (1 + exp(-X)))"
		return r(s + " * (1 + X * (1 - " + s + "))"), nil
	case gc.ActivationHardSwish:
		return r("(X < -3 ? 0 : (X > 3 ? 1 : X / 3 + 0.5))"), nil
	case gc.ActivationGelu:
		e, err := erfExpr("("+x+" * 0.7071067811865476)", dt)
		if err != nil {
			return "", err
		}
		return r("(0.5 * (1 + " + e + ") + X * 0.3989422804014327 * exp(-0.5 * X * X))"), nil
	case gc.ActivationGeluApproximate:
		u := "tanh(0.7978845608028654 * (X + 0.044715 * X * X * X))"
		return r("(0.5 * (1 + " + u + ") + 0.5 * X * (1 - " + u + " * " + u + ") * 0.7978845608028654 * (1 + 0.134145 * X * X))"), nil
	}
	return "", notImplemented("FusedActivationVJP of %s", a)
}

// FusedActivation implements compute.Function: an element-wise node,
// fused with the element-wise operations around it; SwiGLU is the two
// halves of the last axis (gate, then value) sliced, then swish(gate)·value.
func (f *Function) FusedActivation(x gc.Value, cfg gc.ActivationConfig) (gc.Value, error) {
	if err := f.check(); err != nil {
		return nil, err
	}
	n, err := f.nodeOf(x)
	if err != nil {
		return nil, err
	}
	if err := f.floatOperand("FusedActivation", n); err != nil {
		return nil, err
	}
	dt := n.shape.DType
	if cfg.Type == gc.ActivationSwiGLU {
		rank := n.shape.Rank()
		if rank == 0 || n.shape.Dimensions[rank-1]%2 != 0 {
			return nil, errors.Errorf("gour backend: FusedActivation SwiGLU of %s: the last axis must be of even size", n.shape)
		}
		h := n.shape.Dimensions[rank-1] / 2
		starts := make([]int, rank)
		limits := slices.Clone(n.shape.Dimensions)
		limits[rank-1] = h
		ones := slices.Repeat([]int{1}, rank)
		gate, err := f.Slice(n, starts, limits, ones)
		if err != nil {
			return nil, err
		}
		starts[rank-1], limits[rank-1] = h, 2*h
		value, err := f.Slice(n, starts, limits, ones)
		if err != nil {
			return nil, err
		}
		gn, vn := gate.(*node), value.(*node)
		return f.ewNode(gc.OpTypeFusedActivation, gn.shape.Clone(), []*node{gn, vn}, func(in []string) string {
			s, _ := activationExpr(gc.ActivationSilu, in[0], dt)
			return s + " * " + in[1]
		})
	}
	if _, err := activationExpr(cfg.Type, "x", dt); err != nil {
		return nil, err
	}
	return f.ewNode(gc.OpTypeFusedActivation, n.shape.Clone(), []*node{n}, func(in []string) string {
		s, _ := activationExpr(cfg.Type, in[0], dt)
		return s
	})
}

// FusedActivationVJP implements compute.Function: an element-wise node
// of dOutput and y or x (x where the derivative needs it). SwiGLU's is not
// implemented.
func (f *Function) FusedActivationVJP(y, x, dOutput gc.Value, cfg gc.ActivationConfig) (gc.Value, error) {
	if err := f.check(); err != nil {
		return nil, err
	}
	if cfg.Type == gc.ActivationSwiGLU {
		return nil, notImplemented("FusedActivationVJP of SwiGLU")
	}
	dn, err := f.nodeOf(dOutput)
	if err != nil {
		return nil, err
	}
	if err := f.floatOperand("FusedActivationVJP", dn); err != nil {
		return nil, err
	}
	inputs := []*node{dn}
	yi, xi := -1, -1
	useY := y != nil && !cfg.Type.VJPRequiresInput()
	if useY {
		yn, err := f.nodeOf(y)
		if err != nil {
			return nil, err
		}
		yi = len(inputs)
		inputs = append(inputs, yn)
	} else {
		if x == nil {
			return nil, errors.Errorf("gour backend: FusedActivationVJP of %s needs x", cfg.Type)
		}
		xn, err := f.nodeOf(x)
		if err != nil {
			return nil, err
		}
		xi = len(inputs)
		inputs = append(inputs, xn)
	}
	for _, in := range inputs[1:] {
		if !in.shape.Equal(dn.shape) {
			return nil, errors.Errorf("gour backend: FusedActivationVJP of %s with dOutput of %s", in.shape, dn.shape)
		}
	}
	dt := dn.shape.DType
	names := func(in []string) (string, string) {
		ys, xs := "", ""
		if yi >= 0 {
			ys = in[yi]
		}
		if xi >= 0 {
			xs = in[xi]
		}
		return ys, xs
	}
	probe := []string{"d", "v"}
	ys, xs := names(probe)
	if _, err := activationVJPExpr(cfg.Type, ys, xs, "d", dt); err != nil {
		return nil, err
	}
	return f.ewNode(gc.OpTypeFusedActivationVJP, dn.shape.Clone(), inputs, func(in []string) string {
		ys, xs := names(in)
		s, _ := activationVJPExpr(cfg.Type, ys, xs, in[0], dt)
		return s
	})
}

// FusedDense implements compute.Function: a DotGeneral (one GEMM), then
// the bias and the activation, one fused element-wise kernel.
func (f *Function) FusedDense(x, weight, bias gc.Value, options gc.DenseConfig) (gc.Value, error) {
	if err := f.check(); err != nil {
		return nil, err
	}
	if options.Activation.Type == gc.ActivationSwiGLU {
		return nil, errors.New("gour backend: FusedDense with SwiGLU (it halves the output: use FusedActivation after)")
	}
	ns, err := f.nodesOf(x, weight)
	if err != nil {
		return nil, err
	}
	xn, wn := ns[0], ns[1]
	if err := f.floatOperand("FusedDense", xn); err != nil {
		return nil, err
	}
	if wn.shape.DType != xn.shape.DType {
		return nil, errors.Errorf("gour backend: FusedDense of x %s and weight %s: dtypes differ", xn.shape, wn.shape)
	}
	xr, wr := xn.shape.Rank(), wn.shape.Rank()
	if xr < 1 || wr < 1 {
		return nil, errors.Errorf("gour backend: FusedDense of x %s and weight %s", xn.shape, wn.shape)
	}
	wc := 0
	switch options.WeightLayout {
	case gc.DenseLayoutInputOutputs:
	case gc.DenseLayoutOutputsInput:
		wc = wr - 1
	default:
		return nil, notImplemented("FusedDense weight layout %s", options.WeightLayout)
	}
	if _, err := activationExpr(options.Activation.Type, "x", xn.shape.DType); err != nil {
		return nil, err
	}
	y, err := f.DotGeneral(xn, []int{xr - 1}, nil, wn, []int{wc}, nil, gc.DotGeneralConfig{})
	if err != nil {
		return nil, err
	}
	yn := y.(*node)
	out := yn.shape.Clone()
	inputs := []*node{yn}
	if bias != nil {
		bn, err := f.nodeOf(bias)
		if err != nil {
			return nil, err
		}
		outDims := out.Dimensions[xr-1:]
		if bn.shape.DType != out.DType || !slices.Equal(bn.shape.Dimensions, outDims) {
			return nil, errors.Errorf("gour backend: FusedDense bias of %s, want %s of dimensions %v", bn.shape, out.DType, outDims)
		}
		// The bias as [1, ..., 1, out...], broadcast by the fused kernel.
		dims := slices.Concat(slices.Repeat([]int{1}, xr-1), outDims)
		rb, err := f.Reshape(bn, dims...)
		if err != nil {
			return nil, err
		}
		inputs = append(inputs, rb.(*node))
	}
	dt := out.DType
	act := options.Activation.Type
	return f.ewNode(gc.OpTypeFusedDense, out, inputs, func(in []string) string {
		z := in[0]
		if len(in) > 1 {
			z = "(" + in[0] + " + " + in[1] + ")"
		}
		s, _ := activationExpr(act, z, dt)
		return s
	})
}

// FusedAttentionQKVProjection implements compute.Function: one GEMM of x
// by the concatenated weights, then each projection's columns sliced and
// its bias added (a fused element-wise kernel each).
func (f *Function) FusedAttentionQKVProjection(x, wQKV, biasQ, biasK, biasV gc.Value, queryDim, keyValueDim int) (
	query, key, value gc.Value, err error) {
	if err := f.check(); err != nil {
		return nil, nil, nil, err
	}
	ns, err := f.nodesOf(x, wQKV)
	if err != nil {
		return nil, nil, nil, err
	}
	xn, wn := ns[0], ns[1]
	if err := f.floatOperand("FusedAttentionQKVProjection", xn); err != nil {
		return nil, nil, nil, err
	}
	xr := xn.shape.Rank()
	if xr < 1 || wn.shape.Rank() != 2 || wn.shape.DType != xn.shape.DType || queryDim < 0 || keyValueDim < 0 ||
		wn.shape.Dimensions[1] != queryDim+2*keyValueDim {
		return nil, nil, nil, errors.Errorf("gour backend: FusedAttentionQKVProjection of x %s and weights %s for dimensions %d, %d",
			xn.shape, wn.shape, queryDim, keyValueDim)
	}
	y, err := f.DotGeneral(xn, []int{xr - 1}, nil, wn, []int{0}, nil, gc.DotGeneralConfig{})
	if err != nil {
		return nil, nil, nil, err
	}
	yn := y.(*node)
	outs := make([]gc.Value, 3)
	start := 0
	for i, p := range []struct {
		dim  int
		bias gc.Value
	}{{queryDim, biasQ}, {keyValueDim, biasK}, {keyValueDim, biasV}} {
		starts := make([]int, xr)
		limits := slices.Clone(yn.shape.Dimensions)
		starts[xr-1], limits[xr-1] = start, start+p.dim
		start += p.dim
		s, err := f.Slice(yn, starts, limits, slices.Repeat([]int{1}, xr))
		if err != nil {
			return nil, nil, nil, err
		}
		outs[i] = s
		if p.bias == nil {
			continue
		}
		bn, err := f.nodeOf(p.bias)
		if err != nil {
			return nil, nil, nil, err
		}
		if bn.shape.DType != xn.shape.DType || !slices.Equal(bn.shape.Dimensions, []int{p.dim}) {
			return nil, nil, nil, errors.Errorf("gour backend: FusedAttentionQKVProjection bias of %s, want %s[%d]", bn.shape, xn.shape.DType, p.dim)
		}
		rb, err := f.Reshape(bn, slices.Concat(slices.Repeat([]int{1}, xr-1), []int{p.dim})...)
		if err != nil {
			return nil, nil, nil, err
		}
		sn := s.(*node)
		if outs[i], err = f.ewNode(gc.OpTypeFusedAttentionQKVProjection, sn.shape.Clone(), []*node{sn, rb.(*node)},
			func(in []string) string { return in[0] + " + " + in[1] }); err != nil {
			return nil, nil, nil, err
		}
	}
	return outs[0], outs[1], outs[2], nil
}

// FusedLayerNormVJP implements compute.Function over the axes
// FusedLayerNorm takes: dx is a row kernel (the row's mean and variance
// again, then the sums of g = dOutput·gamma and of g·x̂); dGamma and dBeta
// are sums over the other axes of dOutput·x̂ and of dOutput.
func (f *Function) FusedLayerNormVJP(x, dOutput gc.Value, axes []int, epsilon float64, gamma, beta gc.Value) (
	dx, dGamma, dBeta gc.Value, err error) {
	if err := f.check(); err != nil {
		return nil, nil, nil, err
	}
	ns, err := f.nodesOf(x, dOutput)
	if err != nil {
		return nil, nil, nil, err
	}
	xn, dn := ns[0], ns[1]
	if !dn.shape.Equal(xn.shape) {
		return nil, nil, nil, errors.Errorf("gour backend: FusedLayerNormVJP of x %s and dOutput %s", xn.shape, dn.shape)
	}
	if xn.shape.IsDynamic() {
		ins, err := f.valueInputs(ns, gamma, beta)
		if err != nil {
			return nil, nil, nil, err
		}
		dx = f.pending(gc.OpTypeFusedLayerNormVJP, xn.shape.Clone(), ins...)
		for _, p := range []struct {
			v   gc.Value
			out *gc.Value
		}{{gamma, &dGamma}, {beta, &dBeta}} {
			if p.v != nil {
				pn, _ := f.nodeOf(p.v)
				*p.out = f.pending(gc.OpTypeFusedLayerNormVJP, pn.shape.Clone(), ins...)
			}
		}
		return dx, dGamma, dBeta, nil
	}
	// The forward's checks, and x̂ for dGamma.
	xhat, err := f.FusedLayerNorm(xn, axes, epsilon, nil, nil)
	if err != nil {
		return nil, nil, nil, err
	}
	rank := xn.shape.Rank()
	norm := make([]bool, rank)
	for _, a := range axes {
		if a < 0 {
			a += rank
		}
		norm[a] = true
	}
	var kept []int
	first, last := -1, -1
	for a := range rank {
		if !norm[a] {
			kept = append(kept, a)
		} else {
			if first < 0 {
				first = a
			}
			last = a
		}
	}
	outer, _, _ := axisSplit(xn.shape.Dimensions, first)
	_, _, inner := axisSplit(xn.shape.Dimensions, last)
	length := 1
	for a := first; a <= last; a++ {
		length *= xn.shape.Dimensions[a]
	}
	inputs := []*node{xn, dn}
	var gn *node
	if gamma != nil {
		if gn, err = f.nodeOf(gamma); err != nil {
			return nil, nil, nil, err
		}
		if gn.shape.DType != xn.shape.DType || gn.shape.Size() != length {
			return nil, nil, nil, notImplemented("FusedLayerNormVJP gamma of %s for %d normalized elements", gn.shape, length)
		}
		inputs = append(inputs, gn)
	}
	t, _ := storageType(xn.shape.DType)
	eps := formatFloat(epsilon, xn.shape.DType)
	flag := ""
	if gn != nil {
		flag = "_gamma"
	}
	name := kernelName("layernormvjp", xn.shape.DType.String()+flag, fmt.Sprintf("%x", math.Float64bits(epsilon)))
	dx = f.rowNode(gc.OpTypeFusedLayerNormVJP, xn.shape.Clone(), inputs, name, t, outer, length, inner,
		func(backend string) string {
			var sb strings.Builder
			sb.WriteString(rowPrelude(backend, t))
			fmt.Fprintf(&sb, "KERNEL %s(GLOBAL T* dst, GLOBAL const T* src, GLOBAL const T* dy", name)
			if gn != nil {
				sb.WriteString(", GLOBAL const T* gamma")
			}
			sb.WriteString(", UL len, UL inner) {\n")
			sb.WriteString(rowHead)
			sb.WriteString("  T mean = 0;\n  for (UL k = lid; k < len; k += WG) mean += src[base + k * inner];\n")
			sb.WriteString(groupReduce("mean", sumOf))
			sb.WriteString("  mean /= (T)len;\n  T var = 0;\n  for (UL k = lid; k < len; k += WG) { T d = src[base + k * inner] - mean; var += d * d; }\n")
			sb.WriteString(groupReduce("var", sumOf))
			fmt.Fprintf(&sb, "  T inv = RSQRT(var / (T)len + (T)%s);\n", eps)
			g := "dy[p]"
			if gn != nil {
				g = "dy[p] * gamma[k]"
			}
			fmt.Fprintf(&sb, "  T s1 = 0, s2 = 0;\n  for (UL k = lid; k < len; k += WG) { UL p = base + k * inner; T g = %s; s1 += g; s2 += g * (src[p] - mean) * inv; }\n", g)
			sb.WriteString(groupReduce("s1", sumOf))
			sb.WriteString(groupReduce("s2", sumOf))
			fmt.Fprintf(&sb, "  s1 /= (T)len; s2 /= (T)len;\n  for (UL k = lid; k < len; k += WG) { UL p = base + k * inner; T g = %s; dst[p] = inv * (g - s1 - (src[p] - mean) * inv * s2); }\n}\n", g)
			return sb.String()
		})
	sum := func(v gc.Value, like *node) (gc.Value, error) {
		s, err := f.ReduceSum(v, kept...)
		if err != nil {
			return nil, err
		}
		return f.Reshape(s, like.shape.Dimensions...)
	}
	if gn != nil {
		prod, err := f.Mul(dn, xhat)
		if err != nil {
			return nil, nil, nil, err
		}
		if dGamma, err = sum(prod, gn); err != nil {
			return nil, nil, nil, err
		}
	}
	if beta != nil {
		bn, err := f.nodeOf(beta)
		if err != nil {
			return nil, nil, nil, err
		}
		if bn.shape.DType != xn.shape.DType || bn.shape.Size() != length {
			return nil, nil, nil, notImplemented("FusedLayerNormVJP beta of %s for %d normalized elements", bn.shape, length)
		}
		if dBeta, err = sum(dn, bn); err != nil {
			return nil, nil, nil, err
		}
	}
	return dx, dGamma, dBeta, nil
}
