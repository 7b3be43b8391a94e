package kern

import "math"

// The math functions devices have, in float32: each compiles to the
// device's own (expf, sqrtf, ...) and, on the CPU, computes in float64
// and rounds, which devices' float32 functions match to within their
// documented error (OpenCL C's full-profile ULP bounds).

// Sqrt is the square root.
func Sqrt(x float32) float32 { return float32(math.Sqrt(float64(x))) }

// Exp is e**x.
func Exp(x float32) float32 { return float32(math.Exp(float64(x))) }

// Log is the natural logarithm.
func Log(x float32) float32 { return float32(math.Log(float64(x))) }

// Tanh is the hyperbolic tangent.
func Tanh(x float32) float32 { return float32(math.Tanh(float64(x))) }

// Abs is |x|.
func Abs(x float32) float32 { return math.Float32frombits(math.Float32bits(x) &^ (1 << 31)) }

// Rsqrt is 1/Sqrt(x).
func Rsqrt(x float32) float32 { return float32(1 / math.Sqrt(float64(x))) }
