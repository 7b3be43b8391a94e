package gomlx

import (
	"fmt"
	"strings"

	gc "github.com/gomlx/compute"
	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/compute/shapeinference"

	"github.com/gour-dev/gour/compute/expr"
	"github.com/gour-dev/gour/ur"
)

// bitcastable reports whether dt's bits are its storage's (or their low
// bits): every dtype but bool and the half floats (kept as float32).
func bitcastable(dt dtypes.DType) bool {
	switch dt {
	case dtypes.Bool, dtypes.Float16, dtypes.BFloat16:
		return false
	}
	_, ok := storageType(dt)
	return ok
}

// bitsOf is the C expression of x's bits, of dtype dt (its storage type
// st), as a 64-bit unsigned integer holding dt's width.
func bitsOf(backend string, x string, dt dtypes.DType, st expr.Type) string {
	cuda := backend == "cuda"
	switch st {
	case expr.Float32:
		if cuda {
			return "(U64)__float_as_uint(" + x + ")"
		}
		return "(U64)as_uint(" + x + ")"
	case expr.Float64:
		if cuda {
			return "(U64)__double_as_longlong(" + x + ")"
		}
		return "(U64)as_ulong(" + x + ")"
	}
	if bits := dt.Bits(); bits < 64 {
		return fmt.Sprintf("((U64)%s & 0x%xu)", x, uint64(1)<<bits-1)
	}
	return "(U64)" + x
}

// fromBits is the C expression of a value of dtype dt (storage st) of
// the bits b (a U64 holding dt's width).
func fromBits(backend string, b string, dt dtypes.DType, st expr.Type) string {
	cuda := backend == "cuda"
	switch st {
	case expr.Float32:
		if cuda {
			return "__uint_as_float((unsigned int)" + b + ")"
		}
		return "as_float((uint)" + b + ")"
	case expr.Float64:
		if cuda {
			return "__longlong_as_double((long long)" + b + ")"
		}
		return "as_double((ulong)" + b + ")"
	}
	ct := cType(backend, st)
	switch dt {
	case dtypes.Int8:
		return "(int)(signed char)" + b
	case dtypes.Int16:
		return "(int)(short)" + b
	}
	return "(" + ct + ")" + b
}

// Bitcast implements compute.Function: one kernel, an output element per
// work-item assembling (or taking apart) the operand's bits,
// little-endian. Not for bool and the half floats.
func (f *Function) Bitcast(x gc.Value, targetDType dtypes.DType) (gc.Value, error) {
	if err := f.check(); err != nil {
		return nil, err
	}
	n, err := f.nodeOf(x)
	if err != nil {
		return nil, err
	}
	if err := f.builder.backend.checkDType(targetDType); err != nil {
		return nil, err
	}
	out, err := shapeinference.Bitcast(n.shape, targetDType)
	if err != nil {
		return nil, err
	}
	sdt := n.shape.DType
	if !bitcastable(sdt) || !bitcastable(targetDType) {
		return nil, notImplemented("Bitcast of %s to %s", sdt, targetDType)
	}
	if out.IsDynamic() || n.shape.IsDynamic() {
		return f.pending(gc.OpTypeBitcast, out, n), nil
	}
	sst, _ := storageType(sdt)
	dst, _ := storageType(targetDType)
	sw, dw := sdt.Bits(), targetDType.Bits()
	name := kernelName("bitcast", sdt.String(), targetDType.String())
	src := func(backend string) string {
		var sb strings.Builder
		sb.WriteString(rngPrelude(backend))
		if backend != "cuda" && (sst == expr.Float64 || dst == expr.Float64) {
			sb.WriteString("#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n")
		}
		fmt.Fprintf(&sb, "KERNEL %s(GLOBAL %s* dst, GLOBAL const %s* src, U64 n) {\n  U64 i = ID;\n  if (i >= n) return;\n",
			name, cType(backend, dst), cType(backend, sst))
		switch {
		case sw == dw:
			fmt.Fprintf(&sb, "  U64 b = %s;\n", bitsOf(backend, "src[i]", sdt, sst))
		case sw > dw:
			k := sw / dw
			fmt.Fprintf(&sb, "  U64 q = i / %d;\n  U64 b = (%s >> (%d * (i - q * %d))) & 0x%xu;\n", k, bitsOf(backend, "src[q]", sdt, sst),
				dw, k, uint64(1)<<dw-1)
		default:
			k := dw / sw
			fmt.Fprintf(&sb, "  U64 b = 0;\n  for (int j = 0; j < %d; j++) b |= %s << (%d * j);\n", k, bitsOf(backend, fmt.Sprintf("src[i * %d + j]", k), sdt, sst), sw)
		}
		fmt.Fprintf(&sb, "  dst[i] = %s;\n}\n", fromBits(backend, "b", targetDType, dst))
		return sb.String()
	}
	return f.add(&node{op: gc.OpTypeBitcast, shape: out, inputs: []*node{n},
		run: func(b *Backend, sts []store) (store, error) {
			st, err := b.alloc(out)
			if err != nil {
				return nil, err
			}
			cnt := st.len()
			if cnt == 0 {
				return st, nil
			}
			k, err := b.kernel(name, name, src, sst == expr.Float64 || dst == expr.Float64)
			if err == nil {
				var args []ur.Arg
				if args, err = ioArgs(st, sts, 1); err == nil {
					err = b.launch(k, cnt, append(args, ur.ArgOf(uint64(cnt)))...)
				}
			}
			if err != nil {
				_ = st.release()
				return nil, err
			}
			return st, nil
		}}), nil
}
