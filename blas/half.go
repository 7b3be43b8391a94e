package blas

import f16 "github.com/gour-dev/gour/internal/half"

// Float16Bits is f as IEEE 754 binary16 bits, rounded to nearest even:
// how a Float16 operand stores it.
func Float16Bits(f float32) uint16 { return f16.Float16Bits(f) }

// Float16From is the value of binary16 bits.
func Float16From(h uint16) float32 { return f16.Float16From(h) }

// BFloat16Bits is f as bfloat16 bits (the upper half of a float32),
// rounded to nearest even: how a BFloat16 operand stores it.
func BFloat16Bits(f float32) uint16 { return f16.BFloat16Bits(f) }

// BFloat16From is the value of bfloat16 bits.
func BFloat16From(h uint16) float32 { return f16.BFloat16From(h) }
