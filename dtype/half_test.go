package dtype_test

import (
	"math"
	"testing"

	"github.com/gour-dev/gour/dtype"
)

// TestHalfConversions checks the binary16 and bfloat16 conversions at
// their edges: rounding to nearest even, subnormals, overflow, NaN.
func TestHalfConversions(t *testing.T) {
	for _, c := range []struct {
		f    float32
		bits uint16
	}{
		{0, 0}, {1, 0x3c00}, {-2, 0xc000}, {65504, 0x7bff}, {65520, 0x7c00}, {1e9, 0x7c00},
		{float32(math.Inf(-1)), 0xfc00}, {5.960464477539063e-08, 0x0001}, {6.097555160522461e-05, 0x03ff},
		{1 + 1.0/2048, 0x3c00}, {1 + 3.0/2048, 0x3c02}, // ties to even
		{2.9802322387695312e-08, 0}, // half the smallest subnormal: to even, zero
	} {
		if got := dtype.Float16Bits(c.f); got != c.bits {
			t.Errorf("Float16Bits(%v) = %#04x, want %#04x", c.f, got, c.bits)
		}
		if c.bits&0x7c00 != 0x7c00 && c.bits != 0 {
			if back := dtype.Float16From(c.bits); dtype.Float16Bits(back) != c.bits {
				t.Errorf("Float16From(%#04x) = %v does not convert back", c.bits, back)
			}
		}
	}
	if h := dtype.Float16Bits(float32(math.NaN())); h&0x7c00 != 0x7c00 || h&0x3ff == 0 {
		t.Errorf("Float16Bits(NaN) = %#04x", h)
	}
	for _, c := range []struct {
		f    float32
		bits uint16
	}{{1, 0x3f80}, {-1, 0xbf80}, {1 + 1.0/256, 0x3f80}, {1 + 3.0/256, 0x3f82}, {float32(math.Inf(1)), 0x7f80}} {
		if got := dtype.BFloat16Bits(c.f); got != c.bits {
			t.Errorf("BFloat16Bits(%v) = %#04x, want %#04x", c.f, got, c.bits)
		}
		if back := dtype.BFloat16From(c.bits); dtype.BFloat16Bits(back) != c.bits {
			t.Errorf("BFloat16From(%#04x) = %v does not convert back", c.bits, back)
		}
	}
	if h := dtype.BFloat16Bits(float32(math.NaN())); !math.IsNaN(float64(dtype.BFloat16From(h))) {
		t.Errorf("BFloat16Bits(NaN) = %#04x, not a NaN", h)
	}
}

func TestTypes(t *testing.T) {
	for _, c := range []struct {
		t    dtype.Type
		name string
		size int
	}{{dtype.Int8, "int8", 1}, {dtype.Uint64, "uint64", 8}, {dtype.Float16, "float16", 2}, {dtype.Float32, "float32", 4}, {dtype.BFloat16, "bfloat16", 2}, {0, "dtype.Type(0)", 0}, {99, "dtype.Type(99)", 0}} {
		if c.t.String() != c.name || c.t.Size() != c.size || c.t.Valid() != (c.size != 0) {
			t.Errorf("%d: %q size %d valid %v; want %q, %d", uint8(c.t), c.t, c.t.Size(), c.t.Valid(), c.name, c.size)
		}
	}
	if !dtype.BFloat16.IsFloat() || dtype.Int32.IsFloat() {
		t.Error("IsFloat: bfloat16 is a float, int32 is not")
	}
}
