package levelzero_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/gour-dev/gour/dtype"
	"github.com/gour-dev/gour/ur"
)

// This file tests images and samplers over the fake driver (its images
// are real pixel stores): the device's image queries, the formats
// zeImageGetProperties takes, host memory with pitches Level Zero's
// copies lack, fills encoded on the host, whole-image copies, images as
// launch arguments, and that every image and sampler is destroyed. It
// runs in TestFakeDriverChild; conformance/image.go covers the rest.

func fakeImages(t *testing.T, ctx *ur.Context, dev *ur.Device, q *ur.Queue) {
	images, samplers := fakeCounter(t, "images"), fakeCounter(t, "samplers")
	defer func() {
		if n, m := fakeCounter(t, "images"), fakeCounter(t, "samplers"); n != images || m != samplers {
			t.Errorf("%d images and %d samplers left, want %d and %d", n, m, images, samplers)
		}
	}()
	t.Run("Queries", func(t *testing.T) {
		if ok, err := dev.QueryBool(ur.DeviceInfoImageSupported); err != nil || !ok {
			t.Errorf("IMAGE_SUPPORTED = %v, %v", ok, err)
		}
		for q, want := range map[ur.DeviceQuery]uint64{ur.DeviceInfoImage2DMaxWidth: 16384, ur.DeviceInfoImage3DMaxDepth: 2048,
			ur.DeviceInfoImageMaxArraySize: 2048, ur.DeviceInfoMaxSamplers: 16} {
			if got, err := dev.QueryUint(q); err != nil || got != want {
				t.Errorf("%v = %d, %v; want %d", q, got, err, want)
			}
		}
	})
	t.Run("Formats", func(t *testing.T) {
		fs, err := ctx.SupportedImageFormats(ur.MemReadWrite, ur.Image2D)
		must(t, "SupportedImageFormats", err)
		// 1 channel (A, R, Rx) and 4 (RGBA, BGRA, ARGB, ABGR) of 10 types
		// each; 2 channels (RG, RGx, RA) of the 6 types of 8 or 32 bits:
		// the fake has no 16_16 layout, no snorm, no packed layouts.
		if len(fs) != 3*10+4*10+3*6 {
			t.Errorf("%d formats: %v", len(fs), fs)
		}
		for _, f := range []ur.ImageFormat{{Order: ur.ChannelBGRA, Type: ur.ChannelUnormInt8}, {Order: ur.ChannelR, Type: ur.ChannelHalfFloat},
			{Order: ur.ChannelRA, Type: ur.ChannelSignedInt32}} {
			if !slices.Contains(fs, f) {
				t.Errorf("%v missing", f)
			}
		}
		for _, f := range []ur.ImageFormat{{Order: ur.ChannelRG, Type: ur.ChannelSignedInt16}, {Order: ur.ChannelRGBA, Type: ur.ChannelSnormInt8},
			{Order: ur.ChannelIntensity, Type: ur.ChannelFloat}, {Order: ur.ChannelRGB, Type: ur.ChannelUnormShort565}} {
			if slices.Contains(fs, f) {
				t.Errorf("%v listed", f)
			}
		}
		f := ur.ImageFormat{Order: ur.ChannelRGBA, Type: ur.ChannelSnormInt8}
		_, err = ctx.NewImage(ur.MemReadWrite, f, ur.ImageDesc{Type: ur.Image2D, Width: 4, Height: 4}, nil)
		if !errors.Is(err, ur.ErrUnsupportedImageFormat) || !strings.Contains(err.Error(), "RGBA/SNORM_INT8") {
			t.Errorf("NewImage(%v): %v", f, err)
		}
	})
	t.Run("Pitches", func(t *testing.T) {
		// A 4×3 2D array of 2 layers, made from rows of 20 bytes (16 of
		// pixels) and slices of 64, read back in a box with other pitches.
		d := ur.ImageDesc{Type: ur.Image2DArray, Width: 4, Height: 3, ArraySize: 2, RowPitch: 20, SlicePitch: 64}
		host := fakePattern(128, 7)
		img, err := ctx.NewImage(ur.MemReadWrite, rgba8, d, host)
		must(t, "NewImage", err)
		defer img.Release()
		pixel := func(x, y, z int) []byte { o := z*64 + y*20 + x*4; return host[o : o+4] }
		got := make([]byte, 2*40)
		ev, err := q.EnqueueReadImage(img, false, [3]uint64{1, 1, 0}, [3]uint64{2, 2, 2}, 12, 40, got)
		must(t, "EnqueueReadImage", err)
		must(t, "Wait", ev.Wait(t.Context()))
		ev.Release()
		for z := range 2 {
			for y := range 2 {
				for x := range 2 {
					o := z*40 + y*12 + x*4
					if !bytes.Equal(got[o:o+4], pixel(1+x, 1+y, z)) {
						t.Fatalf("pixel (%d,%d,%d) = %v, want %v", 1+x, 1+y, z, got[o:o+4], pixel(1+x, 1+y, z))
					}
				}
			}
		}
		// A 1D array's layers lie a slice pitch apart.
		a, err := ctx.NewImage(ur.MemReadWrite, rgba8, ur.ImageDesc{Type: ur.Image1DArray, Width: 4, ArraySize: 3}, make([]byte, 48))
		must(t, "NewImage 1D array", err)
		defer a.Release()
		src := fakePattern(2*24, 3)
		_, err = q.EnqueueWriteImage(a, true, [3]uint64{1, 1, 0}, [3]uint64{3, 2, 1}, 0, 24, src)
		must(t, "EnqueueWriteImage", err)
		all := make([]byte, 48)
		_, err = q.EnqueueReadImage(a, true, [3]uint64{}, [3]uint64{4, 3, 1}, 0, 0, all)
		must(t, "EnqueueReadImage", err)
		for layer := range 3 {
			for x := range 4 {
				want := []byte{0, 0, 0, 0}
				if layer >= 1 && x >= 1 {
					o := (layer-1)*24 + (x-1)*4
					want = src[o : o+4]
				}
				if px := all[(layer*4+x)*4:][:4]; !bytes.Equal(px, want) {
					t.Fatalf("layer %d pixel %d = %v, want %v", layer, x, px, want)
				}
			}
		}
	})
	t.Run("Fill", func(t *testing.T) {
		for _, c := range []struct {
			f     ur.ImageFormat
			color [16]byte
			want  []byte
		}{
			{ur.ImageFormat{Order: ur.ChannelBGRA, Type: ur.ChannelUnormInt8}, ur.FillColorFloat(1, 0.5, 0, 2), []byte{0, 128, 255, 255}},
			{ur.ImageFormat{Order: ur.ChannelRG, Type: ur.ChannelUnsignedInt32}, ur.FillColorUint(7, 1<<31, 0, 0), le32(7, 1<<31)},
			{ur.ImageFormat{Order: ur.ChannelA, Type: ur.ChannelSignedInt8}, ur.FillColorInt(0, 0, 0, -300), []byte{0x80}},
			{ur.ImageFormat{Order: ur.ChannelR, Type: ur.ChannelHalfFloat}, ur.FillColorFloat(1.5, 0, 0, 0), binary.NativeEndian.AppendUint16(nil, dtype.Float16Bits(1.5))},
			{ur.ImageFormat{Order: ur.ChannelRGBA, Type: ur.ChannelFloat}, ur.FillColorFloat(1, -2, 0.25, 8), le32(math.Float32bits(1), math.Float32bits(-2), math.Float32bits(0.25), math.Float32bits(8))},
		} {
			img, err := ctx.NewImage(ur.MemReadWrite, c.f, ur.ImageDesc{Type: ur.Image2D, Width: 3, Height: 3}, make([]byte, 9*c.f.PixelSize()))
			must(t, "NewImage "+c.f.String(), err)
			ev, err := q.EnqueueFillImage(img, c.color, [3]uint64{1, 1, 0}, [3]uint64{2, 2, 1})
			must(t, "EnqueueFillImage", err)
			must(t, "Wait", ev.Wait(t.Context()))
			ev.Release()
			got := make([]byte, 9*c.f.PixelSize())
			_, err = q.EnqueueReadImage(img, true, [3]uint64{}, [3]uint64{3, 3, 1}, 0, 0, got)
			must(t, "EnqueueReadImage", err)
			p := int(c.f.PixelSize())
			for i := range 9 {
				want := make([]byte, p)
				if i%3 >= 1 && i/3 >= 1 {
					want = c.want
				}
				if !bytes.Equal(got[i*p:(i+1)*p], want) {
					t.Errorf("%v: pixel %d = %v, want %v", c.f, i, got[i*p:(i+1)*p], want)
				}
			}
			img.Release()
		}
	})
	t.Run("WholeCopyAndLaunchArgs", func(t *testing.T) {
		fu := ur.ImageFormat{Order: ur.ChannelRGBA, Type: ur.ChannelUnsignedInt8}
		d := ur.ImageDesc{Type: ur.Image2D, Width: 8, Height: 2}
		host := fakePattern(64, 9)
		in, err := ctx.NewImage(ur.MemReadOnly, fu, d, host)
		must(t, "NewImage", err)
		defer in.Release()
		cp, err := ctx.NewImage(ur.MemReadWrite, fu, d, nil)
		must(t, "NewImage", err)
		defer cp.Release()
		out, err := ctx.NewImage(ur.MemWriteOnly, fu, d, nil)
		must(t, "NewImage", err)
		defer out.Release()
		ev, err := q.EnqueueCopyImage(in, cp, [3]uint64{}, [3]uint64{}, [3]uint64{8, 2, 1})
		must(t, "EnqueueCopyImage", err)
		ev.Release()
		p, err := ctx.NewProgramFromIL(spirv(t, "images.spv"))
		must(t, "NewProgramFromIL", err)
		defer p.Release()
		must(t, "Build", p.Build("", dev))
		k, err := p.NewKernel("invert")
		must(t, "NewKernel", err)
		defer k.Release()
		must(t, "Launch with arguments", q.Launch(k, ur.Range2D(8, 2), ur.ArgBuffer(cp), ur.ArgBuffer(out)))
		got := make([]byte, 64)
		_, err = q.EnqueueReadImage(out, true, [3]uint64{}, [3]uint64{8, 2, 1}, 0, 0, got)
		must(t, "EnqueueReadImage", err)
		for i := range got {
			if got[i] != 255-host[i] {
				t.Fatalf("byte %d = %d, want %d", i, got[i], 255-host[i])
			}
		}
		s, err := ctx.NewSampler(ur.SamplerDesc{Normalized: true, Addressing: ur.AddressMirroredRepeat, Filter: ur.FilterLinear})
		must(t, "NewSampler", err)
		if s.Native() == 0 || in.Native() == 0 {
			t.Errorf("native handles %#x, %#x", s.Native(), in.Native())
		}
		must(t, "Sampler.Release", s.Release())
	})
}

var rgba8 = ur.ImageFormat{Order: ur.ChannelRGBA, Type: ur.ChannelUnormInt8}

func fakePattern(n int, seed byte) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i)*13 + seed
	}
	return b
}

func le32(vs ...uint32) []byte {
	var b []byte
	for _, v := range vs {
		b = binary.NativeEndian.AppendUint32(b, v)
	}
	return b
}
