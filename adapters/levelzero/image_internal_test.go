package levelzero

import (
	"testing"

	"github.com/gour-dev/gour/adapters/levelzero/internal/ze"
	"github.com/gour-dev/gour/ur/driver"
)

// layoutBytes is the bytes of a pixel of each layout zeFormat makes.
var layoutBytes = map[ze.ImageFormatLayout]uint64{
	ze.ImageFormatLayout8: 1, ze.ImageFormatLayout16: 2, ze.ImageFormatLayout32: 4,
	ze.ImageFormatLayout8_8: 2, ze.ImageFormatLayout16_16: 4, ze.ImageFormatLayout32_32: 8,
	ze.ImageFormatLayout8_8_8_8: 4, ze.ImageFormatLayout16_16_16_16: 8, ze.ImageFormatLayout32_32_32_32: 16,
	ze.ImageFormatLayout5_6_5: 2, ze.ImageFormatLayout5_5_5_1: 2, ze.ImageFormatLayout10_10_10_2: 4,
}

// TestZeFormat: every format Level Zero can describe has a layout of the
// front end's pixel size (host buffers are sized by it), and a fill
// encodes a pixel of that size; the rest are the ones without a layout.
func TestZeFormat(t *testing.T) {
	described := 0
	for o := driver.ChannelA; o <= driver.ChannelSRGBA; o++ {
		for ct := driver.ChannelSnormInt8; ct <= driver.ChannelFloat; ct++ {
			f := driver.ImageFormat{Order: o, Type: ct}
			zf, ok := zeFormat(f)
			if !ok {
				continue
			}
			described++
			if got := layoutBytes[zf.Layout]; got != f.PixelSize() {
				t.Errorf("%v: layout %d of %d bytes, pixels of %d", f, zf.Layout, got, f.PixelSize())
			}
			px, err := driver.EncodePixel(f, [16]byte{})
			if err != nil || uint64(len(px)) != f.PixelSize() {
				t.Errorf("%v: a fill pixel of %d bytes (%v)", f, len(px), err)
			}
		}
	}
	// 1 channel (A, R, Rx), 2 (RG, RGx, RA) and 4 (RGBA, BGRA, ARGB,
	// ABGR) of the 12 types that are not packed; RGB and RGBx of the 3
	// packed ones.
	if want := 10*12 + 2*3; described != want {
		t.Errorf("%d formats described, want %d", described, want)
	}
	for _, c := range []struct {
		f    driver.ImageFormat
		want ze.ImageFormat
	}{
		{driver.ImageFormat{Order: driver.ChannelBGRA, Type: driver.ChannelUnormInt8},
			ze.ImageFormat{Layout: ze.ImageFormatLayout8_8_8_8, Type: ze.ImageFormatTypeUnorm, X: ze.SwizzleB, Y: ze.SwizzleG, Z: ze.SwizzleR, W: ze.SwizzleA}},
		{driver.ImageFormat{Order: driver.ChannelR, Type: driver.ChannelHalfFloat},
			ze.ImageFormat{Layout: ze.ImageFormatLayout16, Type: ze.ImageFormatTypeFloat, X: ze.SwizzleR, Y: ze.Swizzle0, Z: ze.Swizzle0, W: ze.Swizzle1}},
		{driver.ImageFormat{Order: driver.ChannelRGBx, Type: driver.ChannelInt101010},
			ze.ImageFormat{Layout: ze.ImageFormatLayout10_10_10_2, Type: ze.ImageFormatTypeUnorm, X: ze.SwizzleR, Y: ze.SwizzleG, Z: ze.SwizzleB, W: ze.SwizzleNone}},
	} {
		if got, ok := zeFormat(c.f); !ok || got != c.want {
			t.Errorf("zeFormat(%v) = %+v, %v; want %+v", c.f, got, ok, c.want)
		}
	}
	for _, f := range []driver.ImageFormat{{Order: driver.ChannelRGB, Type: driver.ChannelFloat}, {Order: driver.ChannelIntensity, Type: driver.ChannelFloat},
		{Order: driver.ChannelSRGBA, Type: driver.ChannelUnormInt8}, {Order: driver.ChannelRGBA, Type: driver.ChannelUnormShort565}} {
		if _, ok := zeFormat(f); ok {
			t.Errorf("zeFormat(%v) describes a format Level Zero 1.4 lacks", f)
		}
	}
}
