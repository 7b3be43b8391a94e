package gomlx

import (
	"fmt"
	"hash/fnv"
	"strings"

	gc "github.com/gomlx/compute"
	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/compute/shapes"

	"github.com/gour-dev/gour/compute/expr"
)

// GGML's block formats (llama.cpp's ggml-quants), as GoMLX defines them
// (compute.GGMLQuantType): a row of K values is K/vpb blocks of bpb bytes
// each, little-endian, its scales float16 (float32 for Q8_K). A block's
// value j is a function of a few of the block's bytes, so the kernels
// here dequantize an element per work-item, each reading only the bytes
// it needs, rather than a block per work-item: more bytes are read twice,
// but every work-item does the same small amount of work and the block
// layouts stay as readable as their definitions:
//
//	Q8_0   34 B / 32:  d f16, qs int8[32]                     v = d·qs[j]
//	Q4_0   18 B / 32:  d f16, qs u8[16] (low nibbles j<16)     v = d·(nib-8)
//	Q4_1   20 B / 32:  d f16, m f16, qs u8[16]                v = d·nib + m
//	Q5_0   22 B / 32:  d f16, qh u32 (bit j), qs u8[16]       v = d·(nib|h<<4 - 16)
//	Q5_1   24 B / 32:  d f16, m f16, qh u32, qs u8[16]        v = d·(nib|h<<4) + m
//	IQ4_NL 18 B / 32:  d f16, qs u8[16]                       v = d·table[nib]
//	Q2_K   84 B / 256: scales u8[16] (4-bit scale, 4-bit min), qs u8[64] (2 bits), d f16, dmin f16
//	Q3_K  110 B / 256: hmask u8[32], qs u8[64] (2 bits), scales 12 B (16 6-bit), d f16
//	Q4_K  144 B / 256: d f16, dmin f16, scales 12 B (8 6-bit scales and mins), qs u8[128]
//	Q5_K  176 B / 256: d f16, dmin f16, scales 12 B, qh u8[32], qs u8[128]
//	Q6_K  210 B / 256: ql u8[128], qh u8[64], scales int8[16], d f16
//	Q8_K  292 B / 256: d f32, qs int8[256], bsums int16[16]   v = d·qs[j]
//
// The K-quant element formulas below are gobackend's row dequantizers
// (fusedops.dequantQ*_KRow) with their loops solved for one element.

// ggmlSupported reports whether t is a format the kernels here decode.
func ggmlSupported(t gc.GGMLQuantType) bool {
	switch t {
	case gc.GGMLQ4_0, gc.GGMLQ4_1, gc.GGMLQ5_0, gc.GGMLQ5_1, gc.GGMLQ8_0, gc.GGMLIQ4NL,
		gc.GGMLQ2_K, gc.GGMLQ3_K, gc.GGMLQ4_K, gc.GGMLQ5_K, gc.GGMLQ6_K, gc.GGMLQ8_K:
		return true
	}
	return false
}

// ggmlHelpers is the source of the functions a GGML kernel calls: gx_h2f,
// a float16's bits to float (subnormals, infinities and NaN included;
// the device may have no half type), and gx_i8, a byte as a signed
// integer.
func ggmlHelpers(backend string) string {
	fn, asFloat, u := "", "as_float", "uint"
	if backend == "cuda" {
		fn, asFloat, u = "__device__ ", "__uint_as_float", "unsigned int"
	}
	return fmt.Sprintf(`%[1]sfloat gx_h2f(%[3]s h) {
  %[3]s s = (h & 0x8000u) << 16, e = (h >> 10) & 31u, m = h & 0x3ffu;
  float v;
  if (e == 0u) v = (float)m * 5.9604644775390625e-8f;
  else if (e == 31u) v = %[2]s(0x7f800000u | (m << 13));
  else v = %[2]s(((e + 112u) << 23) | (m << 13));
  return s != 0u ? -v : v;
}
%[1]sint gx_i8(%[3]s b) { return b >= 128u ? (int)b - 256 : (int)b; }
`, fn, asFloat, u)
}

// ggmlElement is the C statements setting float v to value j (an unsigned
// integer expression below the format's values per block) of the block
// whose first byte is w[base], for format t: the bytes are w's elements
// (uint8 kept as 32-bit words, one byte each); asFloat is the backend's
// reinterpretation of a 32-bit word as a float.
func ggmlElement(t gc.GGMLQuantType, asFloat string) string {
	var sb strings.Builder
	// b(k) is byte k of the block, f16(k) the float16 at bytes k, k+1.
	b := func(k string) string { return fmt.Sprintf("(w[base + (%s)] & 255u)", k) }
	f16 := func(k int) string {
		return fmt.Sprintf("gx_h2f(%s | (%s << 8))", b(fmt.Sprint(k)), b(fmt.Sprint(k+1)))
	}
	// nib(off) is value j's nibble of the 16 bytes at off: j < 16 the low
	// nibble of byte j, else the high nibble of byte j-16.
	nib := func(off int) string {
		return fmt.Sprintf("((j < 16u ? %s : (%s >> 4)) & 15u)", b(fmt.Sprintf("%d + j", off)), b(fmt.Sprintf("%d + j - 16u", off)))
	}
	qh32 := func(off int) string {
		return fmt.Sprintf("(%s | (%s << 8) | (%s << 16) | (%s << 24))", b(fmt.Sprint(off)), b(fmt.Sprint(off+1)),
			b(fmt.Sprint(off+2)), b(fmt.Sprint(off+3)))
	}
	// k4 sets sc and mn, Q4_K's and Q5_K's 6-bit scale and min number is
	// of the 12 bytes at 4 (getScaleMinK4).
	k4 := func() string {
		return fmt.Sprintf("  unsigned int sc, mn;\n"+
			"  if (is < 4u) { sc = %s & 63u; mn = %s & 63u; }\n"+
			"  else { sc = (%s & 15u) | ((%s >> 6) << 4); mn = (%s >> 4) | ((%s >> 6) << 4); }\n",
			b("4u + is"), b("8u + is"), b("8u + is"), b("is"), b("8u + is"), b("4u + is"))
	}
	switch t {
	case gc.GGMLQ8_0:
		fmt.Fprintf(&sb, "  float v = %s * (float)gx_i8(%s);\n", f16(0), b("2u + j"))
	case gc.GGMLQ4_0:
		fmt.Fprintf(&sb, "  float v = %s * (float)((int)%s - 8);\n", f16(0), nib(2))
	case gc.GGMLQ4_1:
		fmt.Fprintf(&sb, "  float v = %s * (float)%s + %s;\n", f16(0), nib(4), f16(2))
	case gc.GGMLQ5_0:
		fmt.Fprintf(&sb, "  unsigned int q = %s | (((%s >> j) & 1u) << 4);\n  float v = %s * (float)((int)q - 16);\n",
			nib(6), qh32(2), f16(0))
	case gc.GGMLQ5_1:
		fmt.Fprintf(&sb, "  unsigned int q = %s | (((%s >> j) & 1u) << 4);\n  float v = %s * (float)q + %s;\n",
			nib(8), qh32(4), f16(0), f16(2))
	case gc.GGMLIQ4NL:
		sb.WriteString("  float lut[16] = {")
		for i, v := range gc.IQ4NLLookupTable {
			if i > 0 {
				sb.WriteString(", ")
			}
			sb.WriteString(formatFloat(float64(v), dtypes.Float32))
		}
		fmt.Fprintf(&sb, "};\n  float v = %s * lut[%s];\n", f16(0), nib(2))
	case gc.GGMLQ2_K:
		// Halves of 128 values; in each, 4 shifts of 2 bits, each two
		// groups of 16 with a scale byte each (low nibble scale, high min).
		fmt.Fprintf(&sb, "  unsigned int h = j >> 7, s = (j >> 5) & 3u, g = (j >> 4) & 1u, l = j & 15u;\n"+
			"  unsigned int sc = %s, q = (%s >> (2u * s)) & 3u;\n"+
			"  float v = %s * (float)(sc & 15u) * (float)q - %s * (float)(sc >> 4);\n",
			b("h * 8u + s * 2u + g"), b("16u + h * 32u + g * 16u + l"), f16(80), f16(82))
	case gc.GGMLQ3_K:
		// As Q2_K, the third bit in hmask (bit h*4+s of byte g*16+l, set
		// meaning not to subtract 4); the 16 6-bit scales (biased by 32)
		// are 4 low bits from bytes 0..7 (low nibbles for 0..7, high for
		// 8..15) and 2 high bits from bytes 8..11.
		fmt.Fprintf(&sb, "  unsigned int h = j >> 7, s = (j >> 5) & 3u, g = (j >> 4) & 1u, l = j & 15u;\n"+
			"  unsigned int is = h * 8u + s * 2u + g, k = is & 3u, grp = is >> 2;\n"+
			"  int sc = (int)(((%s >> ((grp >> 1) * 4u)) & 15u) | (((%s >> (2u * grp)) & 3u) << 4)) - 32;\n"+
			"  int q = (int)((%s >> (2u * s)) & 3u);\n"+
			"  if ((%s & (1u << (h * 4u + s))) == 0u) q -= 4;\n"+
			"  float v = %s * (float)sc * (float)q;\n",
			b("96u + (grp & 1u) * 4u + k"), b("104u + k"), b("32u + h * 32u + g * 16u + l"), b("g * 16u + l"), f16(108))
	case gc.GGMLQ4_K:
		// 4 chunks of 64: the low nibbles of 32 bytes, then their high.
		fmt.Fprintf(&sb, "  unsigned int c = j >> 6, hi = (j >> 5) & 1u, l = j & 31u, is = c * 2u + hi;\n%s"+
			"  unsigned int q = (%s >> (4u * hi)) & 15u;\n"+
			"  float v = %s * (float)sc * (float)q - %s * (float)mn;\n",
			k4(), b("16u + c * 32u + l"), f16(0), f16(2))
	case gc.GGMLQ5_K:
		// Q4_K's layout, the fifth bit bit 2c+hi of qh[l].
		fmt.Fprintf(&sb, "  unsigned int c = j >> 6, hi = (j >> 5) & 1u, l = j & 31u, is = c * 2u + hi;\n%s"+
			"  unsigned int q = ((%s >> (4u * hi)) & 15u) + (((%s >> (2u * c + hi)) & 1u) << 4);\n"+
			"  float v = %s * (float)sc * (float)q - %s * (float)mn;\n",
			k4(), b("48u + c * 32u + l"), b("16u + l"), f16(0), f16(2))
	case gc.GGMLQ6_K:
		// Halves of 128, each 4 quarters of 32: quarter 0 and 1 the low
		// nibbles of ql[l] and ql[l+32], 2 and 3 their high; 2 high bits
		// from qh[l] (shift 2·quarter); a scale per 16 values.
		fmt.Fprintf(&sb, "  unsigned int h = j >> 7, qd = (j >> 5) & 3u, l = j & 31u;\n"+
			"  unsigned int lo = (%s >> (4u * (qd >> 1))) & 15u, hb = (%s >> (2u * qd)) & 3u;\n"+
			"  float v = %s * (float)gx_i8(%s) * (float)((int)(lo | (hb << 4)) - 32);\n",
			b("h * 64u + l + (qd & 1u) * 32u"), b("128u + h * 32u + l"), f16(208), b("192u + h * 8u + (l >> 4) + 2u * qd"))
	case gc.GGMLQ8_K:
		fmt.Fprintf(&sb, "  float v = %s(%s) * (float)gx_i8(%s);\n", asFloat, qh32(0), b("4u + j"))
	}
	return sb.String()
}

// ggmlRowsNode adds the node decoding rows of GGML format t into float
// dtype out.DType: src is uint8 [rows..., bytes per row]; with idx nil,
// out is [rows..., K] (row r of src is row r of out); with idx an integer
// tensor, out is [idx..., K], its row q src's row idx[q] clamped to the
// table (QuantizedGather). An element per work-item.
func (f *Function) ggmlRowsNode(op gc.OpType, out shapes.Shape, t gc.GGMLQuantType, src, idx *node) *node {
	ot, _ := storageType(out.DType)
	k := out.Dimensions[out.Rank()-1]
	bpr := src.shape.Dimensions[src.shape.Rank()-1]
	vpb, bpb := t.ValuesPerBlock(), t.BytesPerBlock()
	inputs := []*node{src}
	var it expr.Type
	if idx != nil {
		it, _ = storageType(idx.shape.DType)
		inputs = append(inputs, idx)
	}
	h := fnv.New64a()
	fmt.Fprintf(h, "%v|%v|%v|%v|%v|%v", t, out, src.shape, idx != nil, it, op)
	name := fmt.Sprintf("gour_gomlx_ggml_%016x", h.Sum64())
	srcC := func(backend string) string {
		ul, l, f32 := "ulong", "long", "as_float"
		if backend == "cuda" {
			ul, l, f32 = "unsigned long long", "long long", "__uint_as_float"
		}
		ct := cType(backend, ot)
		var sb strings.Builder
		if ot == expr.Float64 && backend != "cuda" {
			sb.WriteString("#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n")
		}
		sb.WriteString(ggmlHelpers(backend))
		kernelHead(&sb, backend, name, false)
		fmt.Fprintf(&sb, "%s dst, %s w", globalPtr(backend, ct, true), globalPtr(backend, cType(backend, expr.Uint32), false))
		if idx != nil {
			fmt.Fprintf(&sb, ", %s idx", globalPtr(backend, cType(backend, it), false))
		}
		fmt.Fprintf(&sb, ", %s n) {\n", ul)
		sb.WriteString(globalID(backend))
		fmt.Fprintf(&sb, "  if (i >= n) return;\n  %s row = i / %du, col = i - row * %du;\n", ul, k, k)
		if idx != nil {
			vocab := src.shape.Dimensions[0]
			fmt.Fprintf(&sb, "  %s r = (%s)idx[row];\n  r = r < 0 ? 0 : (r > %d ? %d : r);\n", l, l, vocab-1, vocab-1)
		} else {
			fmt.Fprintf(&sb, "  %s r = row;\n", ul)
		}
		fmt.Fprintf(&sb, "  %s blk = col / %du;\n  unsigned int j = (unsigned int)(col - blk * %du);\n", ul, vpb, vpb)
		fmt.Fprintf(&sb, "  %s base = (%s)r * %du + blk * %du;\n", ul, ul, bpr, bpb)
		sb.WriteString(ggmlElement(t, f32))
		fmt.Fprintf(&sb, "  dst[i] = (%s)v;\n}\n", ct)
		return sb.String()
	}
	return f.add(&node{op: op, shape: out, inputs: inputs,
		run: eachRun(out, name, srcC, ot == expr.Float64)})
}

// ggmlDecoded is the node decoding n (uint8 [rows..., bytes per row] of
// GGML format t) into dtype dt, [rows..., K].
func (f *Function) ggmlDecoded(op gc.OpType, dt dtypes.DType, t gc.GGMLQuantType, n *node) *node {
	dims := append([]int(nil), n.shape.Dimensions...)
	last := len(dims) - 1
	dims[last] = dims[last] / t.BytesPerBlock() * t.ValuesPerBlock()
	return f.ggmlRowsNode(op, shapes.Make(dt, dims...), t, n, nil)
}
