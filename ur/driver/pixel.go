package driver

import (
	"encoding/binary"
	"math"

	"github.com/gour-dev/gour/dtype"
)

// Extent is the image's size in pixels as regions count it: {width,
// height or layers, depth or layers}.
func (d ImageDesc) Extent() [3]uint64 {
	switch d.Type {
	case Image1D:
		return [3]uint64{d.Width, 1, 1}
	case Image1DArray:
		return [3]uint64{d.Width, d.ArraySize, 1}
	case Image2D:
		return [3]uint64{d.Width, d.Height, 1}
	case Image2DArray:
		return [3]uint64{d.Width, d.Height, d.ArraySize}
	}
	return [3]uint64{d.Width, d.Height, d.Depth}
}

// memoryOrder is, per channel order, the components of a color (0 R, 1
// G, 2 B, 3 A) a pixel stores, in memory order. The x of Rx, RGx and RGBx
// is padding the pixel does not count (ImageFormat.PixelSize); intensity
// and luminance store one value, the color's red.
var memoryOrder = [...][]int{
	ChannelA:         {3},
	ChannelR:         {0},
	ChannelRG:        {0, 1},
	ChannelRA:        {0, 3},
	ChannelRGB:       {0, 1, 2},
	ChannelRGBA:      {0, 1, 2, 3},
	ChannelBGRA:      {2, 1, 0, 3},
	ChannelARGB:      {3, 0, 1, 2},
	ChannelABGR:      {3, 2, 1, 0},
	ChannelIntensity: {0},
	ChannelLuminance: {0},
	ChannelRx:        {0},
	ChannelRGx:       {0, 1},
	ChannelRGBx:      {0, 1, 2},
}

// EncodePixel returns color, a fill color as ImageQueue.FillImage takes
// it (four float32 for normalized, half and float channels, else four
// int32 or uint32, in RGBA order, in native byte order), as one pixel of
// f, converted as OpenCL's image writes convert: normalized values
// clamped to their range and rounded to nearest even (NaN to 0), integers
// saturated, half rounded. It is for adapters whose driver has no image
// fill (CUDA, Level Zero): they copy pixels in. A format it cannot encode
// (sRGB, which needs a transfer function, or one PixelSize refuses) is
// ResultUnsupportedImageFormat.
func EncodePixel(f ImageFormat, color [16]byte) ([]byte, error) {
	if f.PixelSize() == 0 || int(f.Order) >= len(memoryOrder) || memoryOrder[f.Order] == nil {
		return nil, Errorf(ResultUnsupportedImageFormat, "no fill for %v", f)
	}
	var u [4]uint32
	var fl [4]float32
	for i := range 4 {
		u[i] = binary.NativeEndian.Uint32(color[4*i:])
		fl[i] = math.Float32frombits(u[i])
	}
	switch f.Type {
	case ChannelUnormShort565:
		v := unorm(fl[0], 31)<<11 | unorm(fl[1], 63)<<5 | unorm(fl[2], 31)
		return binary.NativeEndian.AppendUint16(nil, uint16(v)), nil
	case ChannelUnormShort555:
		v := unorm(fl[0], 31)<<10 | unorm(fl[1], 31)<<5 | unorm(fl[2], 31)
		return binary.NativeEndian.AppendUint16(nil, uint16(v)), nil
	case ChannelInt101010:
		v := unorm(fl[0], 1023)<<20 | unorm(fl[1], 1023)<<10 | unorm(fl[2], 1023)
		return binary.NativeEndian.AppendUint32(nil, v), nil
	}
	out := make([]byte, 0, f.PixelSize())
	for _, i := range memoryOrder[f.Order] {
		s := int64(int32(u[i]))
		switch f.Type {
		case ChannelUnormInt8:
			out = append(out, byte(unorm(fl[i], 255)))
		case ChannelUnormInt16:
			out = binary.NativeEndian.AppendUint16(out, uint16(unorm(fl[i], 65535)))
		case ChannelSnormInt8:
			out = append(out, byte(int8(snorm(fl[i], 127))))
		case ChannelSnormInt16:
			out = binary.NativeEndian.AppendUint16(out, uint16(int16(snorm(fl[i], 32767))))
		case ChannelSignedInt8:
			out = append(out, byte(int8(min(max(s, math.MinInt8), math.MaxInt8))))
		case ChannelSignedInt16:
			out = binary.NativeEndian.AppendUint16(out, uint16(int16(min(max(s, math.MinInt16), math.MaxInt16))))
		case ChannelUnsignedInt8:
			out = append(out, byte(min(u[i], math.MaxUint8)))
		case ChannelUnsignedInt16:
			out = binary.NativeEndian.AppendUint16(out, uint16(min(u[i], math.MaxUint16)))
		case ChannelHalfFloat:
			out = binary.NativeEndian.AppendUint16(out, dtype.Float16Bits(fl[i]))
		default: // 32-bit channels: the value's bits as they are
			out = binary.NativeEndian.AppendUint32(out, u[i])
		}
	}
	return out, nil
}

// unorm is v clamped to [0, 1], scaled by max and rounded to nearest
// even; NaN is 0.
func unorm(v float32, max float64) uint32 {
	if v != v {
		return 0
	}
	return uint32(math.RoundToEven(math.Min(math.Max(float64(v), 0), 1) * max))
}

// snorm is v clamped to [-1, 1], scaled by max and rounded to nearest
// even; NaN is 0.
func snorm(v float32, max float64) int64 {
	if v != v {
		return 0
	}
	return int64(math.RoundToEven(math.Min(math.Max(float64(v), -1), 1) * max))
}
