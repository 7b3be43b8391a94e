package gomlx

import (
	"fmt"
	"strings"

	gc "github.com/gomlx/compute"
	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/compute/shapeinference"
	"github.com/gomlx/compute/shapes"

	"github.com/gour-dev/gour/programmgr"
	"github.com/gour-dev/gour/ur"
)

// rngAlgorithms are the RNG algorithms the backend generates on the
// device, bit-exact with GoMLX's reference (OpenXLA's for Philox and
// ThreeFry). RNGDefault is Philox. PCG, sequential, is one work-item's
// loop.
var rngAlgorithms = []gc.RNGAlgorithm{gc.RNGDefault, gc.RNGPhilox, gc.RNGThreeFry, gc.RNGSplitMix64, gc.RNGChaCha8, gc.RNGPCG}

// rngBlockWords is the number of 32-bit words of an algorithm's block
// (SplitMix64: an element per block).
func rngBlockWords(a gc.RNGAlgorithm) int {
	switch a {
	case gc.RNGPhilox:
		return 4
	case gc.RNGThreeFry:
		return 2
	case gc.RNGChaCha8:
		return 16
	}
	return 0
}

// rngPrelude is the integer types of an RNG kernel (U32, U64), and ID, the
// work-item's index.
func rngPrelude(backend string) string {
	if backend == "cuda" {
		return `#define KERNEL extern "C" __global__ void
#define GLOBAL
#define U32 unsigned int
#define U64 unsigned long long
#define ID (blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x)
#define MULHI64(a, b) __umul64hi(a, b)
`
	}
	return `#define KERNEL __kernel void
#define GLOBAL __global
#define U32 uint
#define U64 ulong
#define ID ((ulong)get_global_id(0))
#define MULHI64(a, b) mul_hi(a, b)
`
}

// rngBlock is the statements of a block of algorithm a: from key
// (state[0]...) and the block's counter, the words w[0..].
func rngBlock(a gc.RNGAlgorithm) string {
	var sb strings.Builder
	switch a {
	case gc.RNGPhilox:
		sb.WriteString(`  U64 lo = st[1] + b;
  U64 hi = st[2] + (lo < b ? 1 : 0);
  U32 c0 = (U32)lo, c1 = (U32)(lo >> 32), c2 = (U32)hi, c3 = (U32)(hi >> 32);
  U32 k0 = (U32)st[0], k1 = (U32)(st[0] >> 32);
  for (int r = 0; r < 10; r++) {
    U64 p0 = (U64)0xD2511F53u * c0;
    U64 p1 = (U64)0xCD9E8D57u * c2;
    U32 n0 = (U32)(p1 >> 32) ^ c1 ^ k0;
    U32 n2 = (U32)(p0 >> 32) ^ c3 ^ k1;
    c1 = (U32)p1; c3 = (U32)p0; c0 = n0; c2 = n2;
    k0 += 0x9E3779B9u; k1 += 0xBB67AE85u;
  }
  U32 w[4];
  w[0] = c0; w[1] = c1; w[2] = c2; w[3] = c3;
`)
	case gc.RNGThreeFry:
		sb.WriteString(`  U64 ctr = st[1] + b;
  U32 ks[3];
  ks[0] = (U32)st[0]; ks[1] = (U32)(st[0] >> 32); ks[2] = ks[0] ^ ks[1] ^ 0x1BD11BDAu;
  U32 x0 = (U32)ctr + ks[0], x1 = (U32)(ctr >> 32) + ks[1];
`)
		rot := []int{13, 15, 26, 6, 17, 29, 16, 24}
		for r := range 20 {
			fmt.Fprintf(&sb, "  x0 += x1; x1 = (x1 << %d) | (x1 >> %d); x1 ^= x0;\n", rot[r%8], 32-rot[r%8])
			if (r+1)%4 == 0 {
				inj := (r + 1) / 4
				fmt.Fprintf(&sb, "  x0 += ks[%d]; x1 += ks[%d] + %du;\n", inj%3, (inj+1)%3, inj)
			}
		}
		sb.WriteString("  U32 w[2];\n  w[0] = x0; w[1] = x1;\n")
	case gc.RNGChaCha8:
		sb.WriteString(`  U64 ctr = st[4] + b;
  U32 iv[16], s[16];
  iv[0] = 0x61707865u; iv[1] = 0x3320646eu; iv[2] = 0x79622d32u; iv[3] = 0x6b206574u;
  for (int j = 0; j < 4; j++) { iv[4 + 2 * j] = (U32)st[j]; iv[5 + 2 * j] = (U32)(st[j] >> 32); }
  iv[12] = (U32)ctr; iv[13] = (U32)(ctr >> 32); iv[14] = 0; iv[15] = 0;
  for (int j = 0; j < 16; j++) s[j] = iv[j];
  for (int r = 0; r < 4; r++) {
`)
		qr := func(a, b, c, d int) {
			for _, step := range []struct {
				x, y, z, rot int
			}{{a, b, d, 16}, {c, d, b, 12}, {a, b, d, 8}, {c, d, b, 7}} {
				fmt.Fprintf(&sb, "    s[%d] += s[%d]; s[%d] ^= s[%d]; s[%d] = (s[%d] << %d) | (s[%d] >> %d);\n",
					step.x, step.y, step.z, step.x, step.z, step.z, step.rot, step.z, 32-step.rot)
			}
		}
		for _, q := range [][4]int{{0, 4, 8, 12}, {1, 5, 9, 13}, {2, 6, 10, 14}, {3, 7, 11, 15},
			{0, 5, 10, 15}, {1, 6, 11, 12}, {2, 7, 8, 13}, {3, 4, 9, 14}} {
			qr(q[0], q[1], q[2], q[3])
		}
		sb.WriteString("  }\n  U32 w[16];\n  for (int j = 0; j < 16; j++) w[j] = s[j] + iv[j];\n")
	}
	return sb.String()
}

// rngSource is the kernel of algorithm a writing elements of storage size
// elem (4 or 8 bytes) masked to mask (for uint8 and uint16): work-item b
// computes block b and writes its elements.
func rngSource(backend, name string, a gc.RNGAlgorithm, elem int, mask string) string {
	var sb strings.Builder
	sb.WriteString(rngPrelude(backend))
	ot := "U32"
	if elem == 8 {
		ot = "U64"
	}
	fmt.Fprintf(&sb, "KERNEL %s(GLOBAL %s* dst, GLOBAL const U64* st, U64 nblocks, U64 n) {\n  U64 b = ID;\n  if (b >= nblocks) return;\n", name, ot)
	if a == gc.RNGSplitMix64 {
		sb.WriteString(`  U64 z = st[0] + (st[1] + b + 1) * (U64)0x9e3779b97f4a7c15;
  z = (z ^ (z >> 30)) * (U64)0xbf58476d1ce4e5b9;
  z = (z ^ (z >> 27)) * (U64)0x94d049bb133111eb;
  z ^= z >> 31;
`)
		fmt.Fprintf(&sb, "  dst[b] = (%s)(z%s);\n}\n", ot, mask)
		return sb.String()
	}
	sb.WriteString(rngBlock(a))
	bw := rngBlockWords(a)
	if elem == 8 {
		fmt.Fprintf(&sb, "  for (int j = 0; j < %d; j++) {\n    U64 e = b * %d + j;\n    if (e < n) dst[e] = (U64)w[2 * j] | ((U64)w[2 * j + 1] << 32);\n  }\n}\n", bw/2, bw/2)
	} else {
		fmt.Fprintf(&sb, "  for (int j = 0; j < %d; j++) {\n    U64 e = b * %d + j;\n    if (e < n) dst[e] = w[j]%s;\n  }\n}\n", bw, bw, mask)
	}
	return sb.String()
}

// pcgStep is the statements advancing PCG's 128-bit LCG state (hi, lo)
// once, and h, the DXSM output of the new state: Go's math/rand/v2.PCG.
const pcgStep = `    U64 nlo = lo * (U64)4865540595714422341;
    U64 nhi = MULHI64(lo, (U64)4865540595714422341) + hi * (U64)4865540595714422341 + lo * (U64)2549297995355413924;
    lo = nlo + (U64)1442695040888963407;
    hi = nhi + (U64)6364136223846793005 + (lo < nlo ? 1 : 0);
    U64 h = hi;
    h ^= h >> 32; h *= (U64)0xda942042e4dd58b5; h ^= h >> 48; h *= (lo | 1);
`

// pcgSource is PCG's kernel: one work-item, n steps, a value each (the
// values) or the state after them (state).
func pcgSource(backend, name string, elem int, mask string, state bool) string {
	var sb strings.Builder
	sb.WriteString(rngPrelude(backend))
	ot := "U32"
	if elem == 8 || state {
		ot = "U64"
	}
	fmt.Fprintf(&sb, "KERNEL %s(GLOBAL %s* dst, GLOBAL const U64* st, U64 n) {\n  if (ID != 0) return;\n  U64 hi = st[0], lo = st[1];\n  for (U64 i = 0; i < n; i++) {\n%s", name, ot, pcgStep)
	if state {
		sb.WriteString("    (void)h;\n  }\n  dst[0] = hi;\n  dst[1] = lo;\n}\n")
	} else {
		fmt.Fprintf(&sb, "    dst[i] = (%s)(h%s);\n  }\n}\n", ot, mask)
	}
	return sb.String()
}

// rngStateSource is the kernel of the new state: the old one, its counter
// (at index ci, a 128-bit one of two words where wide) advanced by nb.
func rngStateSource(backend, name string, size, ci int, wide bool) string {
	var sb strings.Builder
	sb.WriteString(rngPrelude(backend))
	fmt.Fprintf(&sb, "KERNEL %s(GLOBAL U64* dst, GLOBAL const U64* st, U64 nb) {\n  if (ID != 0) return;\n", name)
	fmt.Fprintf(&sb, "  for (int j = 0; j < %d; j++) dst[j] = st[j];\n  U64 c = st[%d] + nb;\n  dst[%d] = c;\n", size, ci, ci)
	if wide {
		fmt.Fprintf(&sb, "  dst[%d] = st[%d] + (c < nb ? 1 : 0);\n", ci+1, ci+1)
	}
	sb.WriteString("}\n")
	return sb.String()
}

// RNGBitGenerator implements compute.Function: a kernel generating the
// values, a block of the algorithm per work-item (an element for
// SplitMix64), and one advancing the state's counter.
func (f *Function) RNGBitGenerator(state gc.Value, shape shapes.Shape, algorithm gc.RNGAlgorithm) (gc.Value, gc.Value, error) {
	if err := f.check(); err != nil {
		return nil, nil, err
	}
	sn, err := f.nodeOf(state)
	if err != nil {
		return nil, nil, err
	}
	caps := f.builder.backend.caps
	want, err := caps.RNGStateShape(algorithm)
	if err != nil {
		return nil, nil, err
	}
	newStateShape, valuesShape, err := shapeinference.RNGBitGenerator(want, sn.shape, shape)
	if err != nil {
		return nil, nil, err
	}
	if err := f.builder.backend.checkDType(valuesShape.DType); err != nil {
		return nil, nil, err
	}
	if valuesShape.IsDynamic() {
		return f.pending(gc.OpTypeRNGBitGenerator, newStateShape, sn), f.pending(gc.OpTypeRNGBitGenerator, valuesShape, sn), nil
	}
	a := caps.ResolveRNGAlgorithm(algorithm)
	n := valuesShape.Size()
	words := n
	elem, mask := 4, ""
	switch valuesShape.DType {
	case dtypes.Uint64:
		words, elem = 2*n, 8
	case dtypes.Uint8:
		mask = " & 0xffu"
	case dtypes.Uint16:
		mask = " & 0xffffu"
	}
	nb := n
	if bw := rngBlockWords(a); bw > 0 {
		nb = (words + bw - 1) / bw
	}
	name := kernelName("rng", a.String(), valuesShape.DType.String())
	values := f.add(&node{op: gc.OpTypeRNGBitGenerator, shape: valuesShape, inputs: []*node{sn},
		run: func(b *Backend, sts []store) (store, error) {
			st, err := b.alloc(valuesShape)
			if err != nil || nb == 0 {
				return st, err
			}
			var k *programmgr.Kernel
			if a == gc.RNGPCG {
				k, err = b.kernel(name, name, func(backend string) string { return pcgSource(backend, name, elem, mask, false) }, false)
			} else {
				k, err = b.kernel(name, name, func(backend string) string { return rngSource(backend, name, a, elem, mask) }, false)
			}
			if err == nil {
				var args []ur.Arg
				if args, err = ioArgs(st, sts, 2); err == nil {
					if a == gc.RNGPCG {
						err = b.launch(k, 1, append(args, ur.ArgOf(uint64(n)))...)
					} else {
						err = b.launch(k, nb, append(args, ur.ArgOf(uint64(nb)), ur.ArgOf(uint64(n)))...)
					}
				}
			}
			if err != nil {
				_ = st.release()
				return nil, err
			}
			return st, nil
		}})
	size := newStateShape.Size()
	ci := size - 1
	wide := a == gc.RNGPhilox
	if wide {
		ci = 1
	}
	sname := kernelName("rngstate", fmt.Sprint(size, "_", ci, "_", wide))
	if a == gc.RNGPCG {
		sname = kernelName("rngstate_pcg")
	}
	newState := f.add(&node{op: gc.OpTypeRNGBitGenerator, shape: newStateShape, inputs: []*node{sn},
		run: func(b *Backend, sts []store) (store, error) {
			st, err := b.alloc(newStateShape)
			if err != nil {
				return nil, err
			}
			src := func(backend string) string { return rngStateSource(backend, sname, size, ci, wide) }
			if a == gc.RNGPCG {
				src = func(backend string) string { return pcgSource(backend, sname, 8, "", true) }
			}
			k, err := b.kernel(sname, sname, src, false)
			if err == nil {
				var args []ur.Arg
				if args, err = ioArgs(st, sts, 1); err == nil {
					err = b.launch(k, 1, append(args, ur.ArgOf(uint64(nb)))...)
				}
			}
			if err != nil {
				_ = st.release()
				return nil, err
			}
			return st, nil
		}})
	return newState, values, nil
}
