package gomlx

import (
	"math/bits"
	"reflect"
	"testing"
	"unsafe"

	gc "github.com/gomlx/compute"
	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/compute/shapes"
)

type anyInt interface {
	~int8 | ~int16 | ~int32 | ~int64 | ~uint8 | ~uint16 | ~uint32 | ~uint64
}

// TestBitwiseDTypes checks the bitwise operations and shifts of every
// integer dtype against Go's operators, shift amounts negative and past
// the width included, and a broadcast scalar operand.
func TestBitwiseDTypes(t *testing.T) {
	b := newTestBackend(t)
	t.Run("int8", func(t *testing.T) { testBitwise[int8](t, b) })
	t.Run("uint16", func(t *testing.T) { testBitwise[uint16](t, b) })
	t.Run("int32", func(t *testing.T) { testBitwise[int32](t, b) })
	t.Run("uint32", func(t *testing.T) { testBitwise[uint32](t, b) })
	t.Run("int64", func(t *testing.T) { testBitwise[int64](t, b) })
	t.Run("uint64", func(t *testing.T) { testBitwise[uint64](t, b) })
}

func testBitwise[T anyInt](t *testing.T, b *Backend) {
	must := mustOf(t)
	var zero T
	w := int(unsafe.Sizeof(zero)) * 8
	mask := uint64(1)<<w - 1
	if w == 64 {
		mask = ^uint64(0)
	}
	// x: 0, 1, -1 (all ones), the top bit, a pattern, 7; s: shift amounts.
	top := T(1) << (w - 1)
	xs := []T{0, 1, ^T(0), top, T(0x5A5A5A5A5A5A5A5A & mask), 7, top + 3, 2}
	ss := []T{0, 1, T(w - 1), T(w), T(w + 1), ^T(0), 3, 2}
	dt := dtypes.FromGoType(reflect.TypeOf(zero))
	s := shapes.Make(dt, len(xs))

	bl := b.Builder("bitwise")
	f := bl.Main()
	x := must(f.Parameter("x", s, nil))
	y := must(f.Parameter("s", s, nil))
	two := must(f.Constant([]T{2}))
	outs := []gc.Value{
		must(f.BitwiseAnd(x, y)), must(f.BitwiseOr(x, y)), must(f.BitwiseXor(x, y)), must(f.BitwiseNot(x)),
		must(f.ShiftLeft(x, y)), must(f.ShiftRightArithmetic(x, y)), must(f.ShiftRightLogical(x, y)),
		must(f.BitCount(x)), must(f.Clz(x)), must(f.ShiftLeft(x, two)),
	}
	if err := f.Return(outs, nil); err != nil {
		t.Fatal(err)
	}
	ex, err := bl.Compile()
	if err != nil {
		t.Fatal(err)
	}
	defer ex.Finalize()
	xb, err := b.BufferFromFlatData(0, xs, s)
	if err != nil {
		t.Fatal(err)
	}
	sb, err := b.BufferFromFlatData(0, ss, s)
	if err != nil {
		t.Fatal(err)
	}
	res, err := ex.Execute([]gc.Buffer{xb, sb}, []bool{true, true}, 0)
	if err != nil {
		t.Fatal(err)
	}
	names := []string{"And", "Or", "Xor", "Not", "ShiftLeft", "ShiftRightArithmetic", "ShiftRightLogical", "BitCount", "Clz", "ShiftLeft by 2"}
	for k, buf := range res {
		got := make([]T, len(xs))
		if err := buf.ToFlatData(got); err != nil {
			t.Fatal(err)
		}
		for i, xv := range xs {
			sv := ss[i]
			var want T
			switch k {
			case 0:
				want = xv & sv
			case 1:
				want = xv | sv
			case 2:
				want = xv ^ sv
			case 3:
				want = ^xv
			case 4:
				want = xv << uint64(sv)
			case 5:
				want = xv >> uint64(sv)
			case 6:
				if uint64(sv) < uint64(w) {
					want = T((uint64(xv) & mask) >> uint64(sv))
				}
			case 7:
				want = T(bits.OnesCount64(uint64(xv) & mask))
			case 8:
				want = T(bits.LeadingZeros64(uint64(xv)&mask) - (64 - w))
			case 9:
				want = xv << 2
			}
			if got[i] != want {
				t.Errorf("%s(%v, %v) of %s: got %v, want %v", names[k], xv, sv, dt, got[i], want)
			}
		}
		_ = buf.Finalize()
	}
}
