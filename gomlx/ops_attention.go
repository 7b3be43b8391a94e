package gomlx

import (
	"fmt"
	"hash/fnv"
	"math"
	"strings"

	gc "github.com/gomlx/compute"
	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/compute/shapes"
	"github.com/pkg/errors"

	"github.com/gour-dev/gour/compute/expr"
	"github.com/gour-dev/gour/ur"
)

// attnSpec is the configuration of an attention's softmax kernel: the
// scores are rows of kv elements, row r being (b, hkv, x1, x2) of extents
// (batch, kvHeads, n1, n2), where (x1, x2) is (g, s) (gs) or (s, g), and
// h = hkv·groups + g is the query head.
type attnSpec struct {
	name                   string
	t                      expr.Type
	dt                     dtypes.DType
	batch, kvHeads, groups int
	seq, kv                int
	gs                     bool
	scale                  float64
	causal                 bool
	// mask: none, "bool" or "add"; its strides along (b, h, s, kv), 0
	// where it broadcasts. bias likewise (additive).
	mask             string
	maskStr, biasStr [4]int
	bias, seqLens    bool
}

// attnStrides are the strides along (batch, heads, seq, kv) of a mask or
// bias of dims: [S, KV], [B, S, KV], or rank 4 in the layout's order; a
// dimension of 1 broadcasts. Other shapes are not implemented.
func attnStrides(what string, dims []int, layout gc.AttentionAxesLayout, want [4]int) ([4]int, error) {
	var idx [4]int // for (b, h, s, kv): the axis of dims, or -1
	switch len(dims) {
	case 2:
		idx = [4]int{-1, -1, 0, 1}
	case 3:
		idx = [4]int{0, -1, 1, 2}
	case 4:
		if layout == gc.AttentionAxesLayoutBSHD {
			idx = [4]int{0, 2, 1, 3}
		} else {
			idx = [4]int{0, 1, 2, 3}
		}
	default:
		return [4]int{}, notImplemented("attention %s of dimensions %v (rank 2, 3 or 4 only)", what, dims)
	}
	rs := rowMajorStrides(dims)
	var st [4]int
	for j, a := range idx {
		if a < 0 {
			continue
		}
		switch dims[a] {
		case want[j]:
			if want[j] != 1 {
				st[j] = rs[a]
			}
		case 1:
		default:
			return [4]int{}, notImplemented("attention %s of dimensions %v for [batch %d, heads %d, seq %d, kv %d]",
				what, dims, want[0], want[1], want[2], want[3])
		}
	}
	return st, nil
}

// FusedScaledDotProductAttention implements compute.Function: the scores
// are one batched GEMM (query by key, kv heads as a batch axis and a
// query-head group as rows), a work-group per row scales them, masks them
// (causal, a boolean or additive mask, a bias, sequence lengths) and takes
// their softmax (a row with nothing to attend is zeros), and a second GEMM
// weighs the values. No state for a VJP is returned.
func (f *Function) FusedScaledDotProductAttention(query, key, value gc.Value, layout gc.AttentionAxesLayout,
	options *gc.ScaledDotProductAttentionConfig) (gc.Value, []gc.Value, error) {
	if err := f.check(); err != nil {
		return nil, nil, err
	}
	ns, err := f.nodesOf(query, key, value)
	if err != nil {
		return nil, nil, err
	}
	q, k, v := ns[0], ns[1], ns[2]
	if err := f.floatOperand("FusedScaledDotProductAttention", q); err != nil {
		return nil, nil, err
	}
	if layout != gc.AttentionAxesLayoutBHSD && layout != gc.AttentionAxesLayoutBSHD {
		return nil, nil, notImplemented("attention layout %s", layout)
	}
	for _, n := range ns {
		if n.shape.Rank() != 4 || n.shape.DType != q.shape.DType {
			return nil, nil, errors.Errorf("gour backend: FusedScaledDotProductAttention of query %s, key %s, value %s: want rank 4 of one dtype",
				q.shape, k.shape, v.shape)
		}
	}
	if q.shape.IsDynamic() || k.shape.IsDynamic() || v.shape.IsDynamic() {
		// The output is the query's shape; the rest is checked in the replay.
		var opt gc.ScaledDotProductAttentionConfig
		if options != nil {
			opt = *options
		}
		ins, err := f.valueInputs(ns, opt.Mask, opt.Bias, opt.QuerySeqLen, opt.KeyValueSeqLen)
		if err != nil {
			return nil, nil, err
		}
		return f.pending(gc.OpTypeFusedScaledDotProductAttention, q.shape.Clone(), ins...), nil, nil
	}
	if !k.shape.Equal(v.shape) {
		return nil, nil, errors.Errorf("gour backend: FusedScaledDotProductAttention key %s and value %s differ", k.shape, v.shape)
	}
	sa, ha := layout.SeqAxis(), layout.HeadsAxis()
	qd, kd := q.shape.Dimensions, k.shape.Dimensions
	batch, heads, seq, dim := qd[0], qd[ha], qd[sa], qd[3]
	kvHeads, kvLen := kd[ha], kd[sa]
	if kd[0] != batch || kd[3] != dim {
		return nil, nil, errors.Errorf("gour backend: FusedScaledDotProductAttention of query %s and key %s: batch or head dimension differ", q.shape, k.shape)
	}
	if heads <= 0 || kvHeads <= 0 || heads%kvHeads != 0 {
		return nil, nil, errors.Errorf("gour backend: FusedScaledDotProductAttention: numHeads (%d) must be positive and divisible by numKVHeads (%d)", heads, kvHeads)
	}
	var opt gc.ScaledDotProductAttentionConfig
	if options != nil {
		opt = *options
	}
	if (opt.QuerySeqLen != nil) != (opt.KeyValueSeqLen != nil) {
		return nil, nil, errors.New("gour backend: FusedScaledDotProductAttention: QuerySeqLen and KeyValueSeqLen must both be set or both nil")
	}
	groups := heads / kvHeads
	dt := q.shape.DType
	t, _ := storageType(dt)
	spec := &attnSpec{t: t, dt: dt, batch: batch, kvHeads: kvHeads, groups: groups, seq: seq, kv: kvLen,
		gs: layout == gc.AttentionAxesLayoutBHSD, scale: opt.Scale, causal: opt.Causal}
	if spec.scale == 0 {
		spec.scale = 1 / math.Sqrt(float64(dim))
	}
	want := [4]int{batch, heads, seq, kvLen}
	var extra []*node
	if opt.Mask != nil {
		mn, err := f.nodeOf(opt.Mask)
		if err != nil {
			return nil, nil, err
		}
		switch mn.shape.DType {
		case dtypes.Bool:
			spec.mask = "bool"
		case dt:
			spec.mask = "add"
		default:
			return nil, nil, notImplemented("attention mask of %s for %s", mn.shape.DType, dt)
		}
		if spec.maskStr, err = attnStrides("mask", mn.shape.Dimensions, layout, want); err != nil {
			return nil, nil, err
		}
		extra = append(extra, mn)
	}
	if opt.Bias != nil {
		bn, err := f.nodeOf(opt.Bias)
		if err != nil {
			return nil, nil, err
		}
		if bn.shape.DType != dt {
			return nil, nil, notImplemented("attention bias of %s for %s", bn.shape.DType, dt)
		}
		if spec.biasStr, err = attnStrides("bias", bn.shape.Dimensions, layout, want); err != nil {
			return nil, nil, err
		}
		spec.bias = true
		extra = append(extra, bn)
	}
	if opt.QuerySeqLen != nil {
		ls, err := f.nodesOf(opt.QuerySeqLen, opt.KeyValueSeqLen)
		if err != nil {
			return nil, nil, err
		}
		for _, l := range ls {
			if l.shape.DType != dtypes.Int32 || !l.shape.EqualDimensions(shapes.Make(dtypes.Int32, batch)) {
				return nil, nil, errors.Errorf("gour backend: attention sequence lengths of %s, want int32[%d]", l.shape, batch)
			}
		}
		spec.seqLens = true
		extra = append(extra, ls...)
	}

	// The scores, [B, Hkv, G·S, KV] (BHSD) or [B, Hkv, S, G, KV] (BSHD).
	var qr gc.Value
	var scores gc.Value
	if spec.gs {
		if qr, err = f.Reshape(q, batch, kvHeads, groups*seq, dim); err != nil {
			return nil, nil, err
		}
		scores, err = f.DotGeneral(qr, []int{3}, []int{0, 1}, k, []int{3}, []int{0, 1}, gc.DotGeneralConfig{})
	} else {
		if qr, err = f.Reshape(q, batch, seq, kvHeads, groups, dim); err != nil {
			return nil, nil, err
		}
		scores, err = f.DotGeneral(qr, []int{4}, []int{0, 2}, k, []int{3}, []int{0, 2}, gc.DotGeneralConfig{})
	}
	if err != nil {
		return nil, nil, err
	}
	sn := scores.(*node)
	h := fnv.New64a()
	fmt.Fprintf(h, "%+v", *spec)
	spec.name = fmt.Sprintf("gour_gomlx_attn_%016x", h.Sum64())
	rows := batch * kvHeads * groups * seq
	probs := f.add(&node{op: gc.OpTypeFusedScaledDotProductAttention, shape: sn.shape.Clone(),
		inputs: append([]*node{sn}, extra...),
		run: func(b *Backend, sts []store) (store, error) {
			st, err := b.alloc(sn.shape)
			if err != nil {
				return nil, err
			}
			if rows == 0 || kvLen == 0 {
				return st, nil
			}
			kern, err := b.kernel(spec.name, spec.name, spec.source, t == expr.Float64)
			if err == nil {
				var args []ur.Arg
				if args, err = ioArgs(st, sts, 0); err == nil {
					err = b.launchGroups(kern, rows, args...)
				}
			}
			if err != nil {
				_ = st.release()
				return nil, err
			}
			return st, nil
		}})
	// The output, weighed by the probabilities.
	var out gc.Value
	if spec.gs {
		if out, err = f.DotGeneral(probs, []int{3}, []int{0, 1}, v, []int{2}, []int{0, 1}, gc.DotGeneralConfig{}); err != nil {
			return nil, nil, err
		}
		out, err = f.Reshape(out, batch, heads, seq, dim)
	} else {
		// [B, Hkv, S, G, D] to [B, S, Hkv, G, D].
		if out, err = f.DotGeneral(probs, []int{4}, []int{0, 1}, v, []int{1}, []int{0, 2}, gc.DotGeneralConfig{}); err != nil {
			return nil, nil, err
		}
		if out, err = f.Transpose(out, 0, 2, 1, 3, 4); err != nil {
			return nil, nil, err
		}
		out, err = f.Reshape(out, batch, seq, heads, dim)
	}
	if err != nil {
		return nil, nil, err
	}
	return out, nil, nil
}

// source is the attention softmax kernel: work-group r takes row r of
// the scores, dst[r·kv ..] from src[r·kv ..]; then come the mask, the bias
// and the sequence lengths where there are.
func (s *attnSpec) source(backend string) string {
	var sb strings.Builder
	sb.WriteString(rowPrelude(backend, s.t))
	fmt.Fprintf(&sb, "KERNEL %s(GLOBAL T* dst, GLOBAL const T* src", s.name)
	switch s.mask {
	case "bool":
		fmt.Fprintf(&sb, ", GLOBAL const %s* mask", cType(backend, expr.Uint32))
	case "add":
		sb.WriteString(", GLOBAL const T* mask")
	}
	if s.bias {
		sb.WriteString(", GLOBAL const T* bias")
	}
	if s.seqLens {
		sb.WriteString(", GLOBAL const int* qlen, GLOBAL const int* kvlen")
	}
	sb.WriteString(") {\n  UL lid = LID;\n  UL row = GROUP;\n  SHARED T sh[WG];\n")
	// (b, hkv, x1, x2) of the row.
	n1, n2 := s.groups, s.seq
	if !s.gs {
		n1, n2 = s.seq, s.groups
	}
	// Without %, as the other kernels (llvm-spirv-15 cannot translate what
	// clang makes of a / and % pair).
	fmt.Fprintf(&sb, "  UL r = row / %du;\n  UL x2 = row - r * %du;\n  UL r1 = r / %du;\n  UL x1 = r - r1 * %du;\n  UL b = r1 / %du;\n  UL hkv = r1 - b * %du;\n",
		n2, n2, n1, n1, s.kvHeads, s.kvHeads)
	if s.gs {
		sb.WriteString("  UL g = x1, q = x2;\n")
	} else {
		sb.WriteString("  UL q = x1, g = x2;\n")
	}
	fmt.Fprintf(&sb, "  UL h = hkv * %du + g;\n  UL base = row * %du;\n", s.groups, s.kv)
	fmt.Fprintf(&sb, "  UL lim = %du;\n", s.kv)
	if s.causal {
		sb.WriteString("  if (q + 1 < lim) lim = q + 1;\n")
	}
	if s.seqLens {
		sb.WriteString("  { SL kl = kvlen[b]; if (kl < 0) kl = 0; if ((UL)kl < lim) lim = (UL)kl; }\n")
		sb.WriteString("  { SL ql = qlen[b]; if ((SL)q >= ql) lim = 0; }\n")
	}
	off := func(st [4]int) string {
		return fmt.Sprintf("b * (UL)%d + h * (UL)%d + q * (UL)%d", st[0], st[1], st[2])
	}
	if s.mask != "" {
		fmt.Fprintf(&sb, "  UL mbase = %s;\n", off(s.maskStr))
	}
	if s.bias {
		fmt.Fprintf(&sb, "  UL bbase = %s;\n", off(s.biasStr))
	}
	// score(k) in v, with on saying whether k is attended.
	score := fmt.Sprintf("    T v = src[base + k] * (T)%s;\n    int on = k < lim;\n", formatFloat(s.scale, s.dt))
	if s.bias {
		score += fmt.Sprintf("    v += bias[bbase + k * (UL)%d];\n", s.biasStr[3])
	}
	switch s.mask {
	case "bool":
		score += fmt.Sprintf("    if (mask[mbase + k * (UL)%d] == 0) on = 0;\n", s.maskStr[3])
	case "add":
		score += fmt.Sprintf("    v += mask[mbase + k * (UL)%d];\n", s.maskStr[3])
	}
	fmt.Fprintf(&sb, "  T m = NEG_INF;\n  for (UL k = lid; k < %du; k += WG) {\n%s    if (on && (v > m || v != v)) m = v;\n  }\n", s.kv, score)
	sb.WriteString(groupReduce("m", maxOf))
	fmt.Fprintf(&sb, "  T sum = 0;\n  for (UL k = lid; k < %du; k += WG) {\n%s    T e = 0;\n    if (on && m != NEG_INF) e = EXP(v - m);\n    dst[base + k] = e;\n    sum += e;\n  }\n", s.kv, score)
	sb.WriteString(groupReduce("sum", sumOf))
	fmt.Fprintf(&sb, "  T inv = sum > 0 ? (T)1 / sum : (T)0;\n  for (UL k = lid; k < %du; k += WG) dst[base + k] *= inv;\n}\n", s.kv)
	return sb.String()
}
