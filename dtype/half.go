package dtype

import "math"

// Float16Bits is f as IEEE 754 binary16 bits, rounded to nearest even:
// how a Float16 operand stores it.
func Float16Bits(f float32) uint16 {
	u := math.Float32bits(f)
	sign := uint16(u>>16) & 0x8000
	exp := int(u>>23&0xff) - 127 + 15
	mant := u & 0x7fffff
	switch {
	case u&0x7fffffff > 0x7f800000: // NaN, kept quiet
		return sign | 0x7e00
	case exp >= 31:
		return sign | 0x7c00
	case exp <= 0: // subnormal or zero
		if exp < -10 {
			return sign
		}
		mant |= 0x800000
		shift := uint(14 - exp)
		h, rem, half := mant>>shift, mant&(1<<shift-1), uint32(1)<<(shift-1)
		if rem > half || rem == half && h&1 == 1 {
			h++
		}
		return sign | uint16(h)
	}
	h := uint32(exp)<<10 | mant>>13
	if rem := mant & 0x1fff; rem > 0x1000 || rem == 0x1000 && h&1 == 1 {
		h++ // a carry into the exponent rounds up to the next binade, or infinity
	}
	return sign | uint16(h)
}

// Float16From is the value of binary16 bits.
func Float16From(h uint16) float32 {
	sign := uint32(h&0x8000) << 16
	exp, mant := uint32(h>>10)&0x1f, uint32(h&0x3ff)
	switch {
	case exp == 0x1f:
		return math.Float32frombits(sign | 0x7f800000 | mant<<13)
	case exp == 0: // subnormal: mant × 2⁻²⁴
		v := float32(mant) / (1 << 24)
		if sign != 0 {
			v = -v
		}
		return v
	}
	return math.Float32frombits(sign | (exp+127-15)<<23 | mant<<13)
}

// BFloat16Bits is f as bfloat16 bits (the upper half of a float32),
// rounded to nearest even: how a BFloat16 operand stores it.
func BFloat16Bits(f float32) uint16 {
	u := math.Float32bits(f)
	if u&0x7fffffff > 0x7f800000 {
		return uint16(u>>16) | 0x40
	}
	u += 0x7fff + (u>>16)&1
	return uint16(u >> 16)
}

// BFloat16From is the value of bfloat16 bits.
func BFloat16From(h uint16) float32 { return math.Float32frombits(uint32(h) << 16) }
