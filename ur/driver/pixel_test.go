package driver

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"testing"
)

// TestEncodePixel: the fill color as each channel type stores it, in
// the order's memory order, and formats it cannot encode.
func TestEncodePixel(t *testing.T) {
	le16 := func(v ...uint16) []byte {
		var b []byte
		for _, x := range v {
			b = binary.LittleEndian.AppendUint16(b, x)
		}
		return b
	}
	le32 := func(v ...uint32) []byte {
		var b []byte
		for _, x := range v {
			b = binary.LittleEndian.AppendUint32(b, x)
		}
		return b
	}
	f32 := math.Float32bits
	neg := func(v int16) uint16 { return uint16(v) }
	for _, c := range []struct {
		order ChannelOrder
		typ   ChannelType
		color [16]byte
		want  []byte
	}{
		{ChannelRGBA, ChannelUnormInt8, colorF(1, 0, 0.5, 2), []byte{255, 0, 128, 255}},
		{ChannelR, ChannelUnormInt8, colorF(float32(math.NaN()), 0, 0, 0), []byte{0}},
		{ChannelRG, ChannelUnormInt16, colorF(0.25, -1, 0, 0), le16(16384, 0)},
		{ChannelRG, ChannelSnormInt8, colorF(-1, 0.5, 0, 0), []byte{0x81, 64}},
		{ChannelRG, ChannelSnormInt16, colorF(-2, 0.5, 0, 0), le16(neg(-32767), 16384)},
		{ChannelRGBA, ChannelSignedInt8, colorI(-200, 100, -5, 300), []byte{0x80, 100, 0xfb, 127}},
		{ChannelR, ChannelSignedInt16, colorI(-40000, 0, 0, 0), le16(neg(-32768))},
		{ChannelR, ChannelSignedInt32, colorI(-7, 0, 0, 0), le32(uint32(0xfffffff9))},
		{ChannelRG, ChannelUnsignedInt8, colorU(300, 7, 0, 0), []byte{255, 7}},
		{ChannelR, ChannelUnsignedInt16, colorU(70000, 0, 0, 0), le16(65535)},
		{ChannelRGBA, ChannelUnsignedInt32, colorU(1, 2, 3, 1<<31), le32(1, 2, 3, 1<<31)},
		{ChannelRGBA, ChannelHalfFloat, colorF(1, 0.5, -2, 0), le16(0x3c00, 0x3800, 0xc000, 0)},
		{ChannelRGBA, ChannelFloat, colorF(1.5, -2, 0, 3), le32(f32(1.5), f32(-2), 0, f32(3))},
	} {
		f := ImageFormat{Order: c.order, Type: c.typ}
		got, err := EncodePixel(f, c.color)
		if err != nil || !bytes.Equal(got, c.want) {
			t.Errorf("%v: % x (%v), want % x", f, got, err, c.want)
		}
		if uint64(len(got)) != f.PixelSize() {
			t.Errorf("%v: %d bytes, pixel %d", f, len(got), f.PixelSize())
		}
	}
	for _, f := range []ImageFormat{{Order: ChannelSRGBA, Type: ChannelUnormInt8}, {Order: ChannelRGBA, Type: ChannelUnormShort565}, {Order: 99, Type: ChannelFloat}} {
		if _, err := EncodePixel(f, colorF(1, 1, 1, 1)); !errors.Is(err, ResultUnsupportedImageFormat) {
			t.Errorf("%v: %v, want ResultUnsupportedImageFormat", f, err)
		}
	}
}

func colorF(r, g, b, a float32) (c [16]byte) {
	for i, v := range []float32{r, g, b, a} {
		binary.NativeEndian.PutUint32(c[4*i:], math.Float32bits(v))
	}
	return c
}

func colorI(r, g, b, a int32) (c [16]byte) {
	for i, v := range []int32{r, g, b, a} {
		binary.NativeEndian.PutUint32(c[4*i:], uint32(v))
	}
	return c
}

func colorU(r, g, b, a uint32) (c [16]byte) {
	for i, v := range []uint32{r, g, b, a} {
		binary.NativeEndian.PutUint32(c[4*i:], v)
	}
	return c
}

// TestEncodePixelOrders: a four-channel color lands in each order's
// memory order.
func TestEncodePixelOrders(t *testing.T) {
	c := colorU(1, 2, 3, 4)
	for o, want := range map[ChannelOrder][]byte{ChannelRGBA: {1, 2, 3, 4}, ChannelBGRA: {3, 2, 1, 4}, ChannelARGB: {4, 1, 2, 3},
		ChannelABGR: {4, 3, 2, 1}, ChannelA: {4}, ChannelRA: {1, 4}, ChannelRGx: {1, 2}, ChannelIntensity: {1}} {
		f := ImageFormat{Order: o, Type: ChannelUnsignedInt8}
		if got, err := EncodePixel(f, c); err != nil || !bytes.Equal(got, want) {
			t.Errorf("%v: % x (%v), want % x", f, got, err, want)
		}
	}
}
