// Package dtype names the element types gour's layers move and compute
// with, one vocabulary for all of them: blas's matrices, collectives'
// buffers and compute's arrays (Array.DType) say their element type as a
// dtype.Type, as NumPy's, PyTorch's and JAX's dtypes do.
//
// Float16 (IEEE 754 binary16) and BFloat16 (the upper half of a float32)
// are storage types: gour computes with them in float32, as the vendor
// libraries do. Go has no type for either, so their values travel as
// their bits (uint16); Float16Bits, Float16From, BFloat16Bits and
// BFloat16From convert, rounding to nearest even.
//
// The package imports nothing of gour: every floor may use it.
package dtype
