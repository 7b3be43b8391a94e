package conformance

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"testing"

	"github.com/gour-dev/gour/ur"
)

// The cases of this file are the Unified Runtime CTS's urMemImage*,
// urEnqueueMemImage* and urSampler* tests: images of each type and of
// several formats made from host data and read back, regions written,
// copied and filled, copies to and from buffers, samplers, and kernels
// reading and writing images. A device without images checks the typed
// error and skips.

// imageCtx returns the shared context, or skips a device without images
// after checking the error is typed.
func imageCtx(t *testing.T, f *Fixture) *ur.Context {
	t.Helper()
	ctx := f.Context(t)
	if _, err := ctx.SupportedImageFormats(ur.MemReadWrite, ur.Image2D); err != nil {
		if errors.Is(err, ur.ErrUnsupportedFeature) {
			t.Skipf("no images: %v", err)
		}
		t.Fatal(err)
	}
	return ctx
}

var imageShapes = []struct {
	name string
	desc ur.ImageDesc
}{
	{"1D", ur.ImageDesc{Type: ur.Image1D, Width: 64}},
	{"1DArray", ur.ImageDesc{Type: ur.Image1DArray, Width: 32, ArraySize: 3}},
	{"2D", ur.ImageDesc{Type: ur.Image2D, Width: 17, Height: 9}},
	{"2DArray", ur.ImageDesc{Type: ur.Image2DArray, Width: 8, Height: 5, ArraySize: 3}},
	{"3D", ur.ImageDesc{Type: ur.Image3D, Width: 8, Height: 4, Depth: 3}},
}

var imageFormats = []ur.ImageFormat{
	{Order: ur.ChannelRGBA, Type: ur.ChannelUnormInt8},
	{Order: ur.ChannelRGBA, Type: ur.ChannelFloat},
	{Order: ur.ChannelR, Type: ur.ChannelFloat},
	{Order: ur.ChannelRGBA, Type: ur.ChannelUnsignedInt32},
	{Order: ur.ChannelRG, Type: ur.ChannelSignedInt16},
}

func imagePixels(d ur.ImageDesc) uint64 {
	n := d.Width * max(d.Height, 1) * max(d.Depth, 1) * max(d.ArraySize, 1)
	return n
}

// TestImageCreateAndRead makes images of every type and several formats
// from host data and reads them back whole.
func TestImageCreateAndRead(t *testing.T) {
	forEachDevice(t, func(t *testing.T, f *Fixture) {
		ctx := imageCtx(t, f)
		for _, s := range imageShapes {
			for _, format := range imageFormats {
				f.Run(t, s.name+"/"+format.Order.String()+"_"+format.Type.String(), func(t *testing.T) {
					fs, err := ctx.SupportedImageFormats(ur.MemReadWrite, s.desc.Type)
					if err != nil {
						t.Fatal(err)
					}
					supported := false
					for _, g := range fs {
						supported = supported || g == format
					}
					size := imagePixels(s.desc) * format.PixelSize()
					host := pattern(int(size), 3)
					img, err := ctx.NewImage(ur.MemReadWrite, format, s.desc, host)
					if !supported {
						if !errors.Is(err, ur.ErrUnsupportedImageFormat) {
							t.Fatalf("a format the device does not list: %v, want ErrUnsupportedImageFormat", err)
						}
						t.Skipf("%v not supported for %s", format, s.name)
					}
					if err != nil {
						t.Fatal(err)
					}
					defer img.Release()
					if gf, gd, ok := img.ImageInfo(); !ok || gf != format || gd.Type != s.desc.Type || img.Size() != size {
						t.Errorf("ImageInfo = %v %+v %v, size %d", gf, gd, ok, img.Size())
					}
					q := f.Queue(t)
					got := make([]byte, size)
					ext := s.desc.Extent()
					if _, err := q.EnqueueReadImage(img, true, [3]uint64{}, ext, 0, 0, got); err != nil {
						t.Fatal(err)
					}
					if format.Type == ur.ChannelFloat {
						// NaN patterns may be canonicalized; compare the
						// non-NaN floats only.
						for i := 0; i+4 <= len(got); i += 4 {
							w, g := binary.NativeEndian.Uint32(host[i:]), binary.NativeEndian.Uint32(got[i:])
							if w != g && !math.IsNaN(float64(math.Float32frombits(w))) {
								t.Fatalf("float %d: %#x, want %#x", i/4, g, w)
							}
						}
						return
					}
					if !bytes.Equal(got, host) {
						t.Error("the image does not read back what it was made from")
					}
				})
			}
		}
	})
}

var rgba8 = ur.ImageFormat{Order: ur.ChannelRGBA, Type: ur.ChannelUnormInt8}

// newImage2D makes a w×h RGBA8 image.
func newImage2D(t *testing.T, ctx *ur.Context, w, h uint64, host []byte) *ur.Mem {
	t.Helper()
	img, err := ctx.NewImage(ur.MemReadWrite, rgba8, ur.ImageDesc{Type: ur.Image2D, Width: w, Height: h}, host)
	if err != nil {
		t.Fatal(err)
	}
	return cleanup(t, img)
}

// TestImageWriteRegion writes a box with pitches and reads the image
// whole: the box and only the box changed.
func TestImageWriteRegion(t *testing.T) {
	forEachDevice(t, func(t *testing.T, f *Fixture) {
		ctx := imageCtx(t, f)
		q := f.Queue(t)
		img := newImage2D(t, ctx, 16, 8, make([]byte, 16*8*4))
		// A 3×2 box at (5, 4), from host rows of 20 bytes.
		src := pattern(2*20, 9)
		if _, err := q.EnqueueWriteImage(img, true, [3]uint64{5, 4, 0}, [3]uint64{3, 2, 1}, 20, 0, src); err != nil {
			t.Fatal(err)
		}
		got := make([]byte, 16*8*4)
		ev, err := q.EnqueueReadImage(img, false, [3]uint64{}, [3]uint64{16, 8, 1}, 0, 0, got)
		if err != nil {
			t.Fatal(err)
		}
		must(t, "Wait", ev.Wait(t.Context()))
		ev.Release()
		for y := range 8 {
			for x := range 16 {
				px := got[(y*16+x)*4 : (y*16+x)*4+4]
				in := x >= 5 && x < 8 && y >= 4 && y < 6
				want := []byte{0, 0, 0, 0}
				if in {
					o := (y-4)*20 + (x-5)*4
					want = src[o : o+4]
				}
				if !bytes.Equal(px, want) {
					t.Fatalf("pixel (%d,%d) = %v, want %v", x, y, px, want)
				}
			}
		}
	})
}

// TestImageCopyFillAndBuffers: image to image, fill, image to buffer and
// back.
func TestImageCopyFillAndBuffers(t *testing.T) {
	forEachDevice(t, func(t *testing.T, f *Fixture) {
		ctx := imageCtx(t, f)
		q := f.Queue(t)
		src := newImage2D(t, ctx, 8, 8, pattern(8*8*4, 1))
		dst := newImage2D(t, ctx, 8, 8, make([]byte, 8*8*4))
		f.Run(t, "Copy", func(t *testing.T) {
			ev, err := q.EnqueueCopyImage(src, dst, [3]uint64{2, 2, 0}, [3]uint64{0, 0, 0}, [3]uint64{4, 4, 1})
			if err != nil {
				t.Fatal(err)
			}
			must(t, "Wait", ev.Wait(t.Context()))
			ev.Release()
			got := make([]byte, 4*4*4)
			if _, err := q.EnqueueReadImage(dst, true, [3]uint64{}, [3]uint64{4, 4, 1}, 0, 0, got); err != nil {
				t.Fatal(err)
			}
			want := make([]byte, 0, 64)
			s := pattern(8*8*4, 1)
			for y := 2; y < 6; y++ {
				want = append(want, s[(y*8+2)*4:(y*8+6)*4]...)
			}
			if !bytes.Equal(got, want) {
				t.Error("copied box differs")
			}
		})
		f.Run(t, "Fill", func(t *testing.T) {
			ev, err := q.EnqueueFillImage(dst, ur.FillColorFloat(1, 0, 0.5, 1), [3]uint64{1, 1, 0}, [3]uint64{2, 2, 1})
			if err != nil {
				t.Fatal(err)
			}
			must(t, "Wait", ev.Wait(t.Context()))
			ev.Release()
			px := make([]byte, 4)
			if _, err := q.EnqueueReadImage(dst, true, [3]uint64{2, 2, 0}, [3]uint64{1, 1, 1}, 0, 0, px); err != nil {
				t.Fatal(err)
			}
			if px[0] != 255 || px[1] != 0 || px[2] < 126 || px[2] > 129 || px[3] != 255 {
				t.Errorf("filled pixel = %v, want [255 0 127/128 255]", px)
			}
		})
		f.Run(t, "ToBufferAndBack", func(t *testing.T) {
			buf := f.Buffer(t, ur.MemReadWrite, 8*8*4+16)
			ev, err := q.EnqueueCopyImageToBuffer(src, [3]uint64{}, [3]uint64{8, 8, 1}, buf, 16)
			if err != nil {
				t.Fatal(err)
			}
			ev2, err := q.EnqueueCopyBufferToImage(buf, 16, dst, [3]uint64{}, [3]uint64{8, 8, 1}, ev)
			if err != nil {
				t.Fatal(err)
			}
			must(t, "Wait", ev2.Wait(t.Context()))
			ev.Release()
			ev2.Release()
			got := make([]byte, 8*8*4)
			must(t, "ReadBuffer", q.ReadBuffer(buf, 16, got))
			if !bytes.Equal(got, pattern(8*8*4, 1)) {
				t.Error("the buffer does not hold the image's pixels")
			}
			if _, err := q.EnqueueReadImage(dst, true, [3]uint64{}, [3]uint64{8, 8, 1}, 0, 0, got); err != nil || !bytes.Equal(got, pattern(8*8*4, 1)) {
				t.Errorf("the image from the buffer differs (%v)", err)
			}
		})
	})
}

// TestImageBadInput: every argument the image calls check.
func TestImageBadInput(t *testing.T) {
	forEachDevice(t, func(t *testing.T, f *Fixture) {
		ctx := imageCtx(t, f)
		q := f.Queue(t)
		img := newImage2D(t, ctx, 8, 8, nil)
		buf := f.Buffer(t, ur.MemReadWrite, 1024)
		d2 := ur.ImageDesc{Type: ur.Image2D, Width: 8, Height: 8}
		cases := []struct {
			name string
			err  func() error
			want ur.Result
		}{
			{"Flags", func() error { _, err := ctx.NewImage(0, rgba8, d2, nil); return err }, ur.ErrInvalidValue},
			{"UnknownOrder", func() error {
				_, err := ctx.NewImage(ur.MemReadWrite, ur.ImageFormat{Order: 99, Type: ur.ChannelFloat}, d2, nil)
				return err
			}, ur.ErrInvalidImageFormatDescriptor},
			{"PackedWithRGBA", func() error {
				_, err := ctx.NewImage(ur.MemReadWrite, ur.ImageFormat{Order: ur.ChannelRGBA, Type: ur.ChannelUnormShort565}, d2, nil)
				return err
			}, ur.ErrInvalidImageFormatDescriptor},
			{"UnknownType", func() error {
				_, err := ctx.NewImage(ur.MemReadWrite, rgba8, ur.ImageDesc{Type: 0, Width: 8}, nil)
				return err
			}, ur.ErrInvalidImageFormatDescriptor},
			{"ZeroWidth", func() error {
				_, err := ctx.NewImage(ur.MemReadWrite, rgba8, ur.ImageDesc{Type: ur.Image2D, Height: 8}, nil)
				return err
			}, ur.ErrInvalidImageSize},
			{"ZeroHeight2D", func() error {
				_, err := ctx.NewImage(ur.MemReadWrite, rgba8, ur.ImageDesc{Type: ur.Image2D, Width: 8}, nil)
				return err
			}, ur.ErrInvalidImageSize},
			{"DepthOn2D", func() error {
				_, err := ctx.NewImage(ur.MemReadWrite, rgba8, ur.ImageDesc{Type: ur.Image2D, Width: 8, Height: 8, Depth: 4}, nil)
				return err
			}, ur.ErrInvalidImageSize},
			{"NoLayers", func() error {
				_, err := ctx.NewImage(ur.MemReadWrite, rgba8, ur.ImageDesc{Type: ur.Image2DArray, Width: 8, Height: 8}, nil)
				return err
			}, ur.ErrInvalidImageSize},
			{"TooWide", func() error {
				_, err := ctx.NewImage(ur.MemReadWrite, rgba8, ur.ImageDesc{Type: ur.Image2D, Width: 1 << 40, Height: 1}, nil)
				return err
			}, ur.ErrInvalidImageSize},
			{"HostTooSmall", func() error { _, err := ctx.NewImage(ur.MemReadWrite, rgba8, d2, make([]byte, 100)); return err }, ur.ErrInvalidHostPtr},
			{"PitchTooSmall", func() error {
				_, err := ctx.NewImage(ur.MemReadWrite, rgba8, ur.ImageDesc{Type: ur.Image2D, Width: 8, Height: 8, RowPitch: 4}, make([]byte, 8*8*4))
				return err
			}, ur.ErrInvalidValue},
			{"PitchOverflow", func() error {
				_, err := ctx.NewImage(ur.MemReadWrite, rgba8, ur.ImageDesc{Type: ur.Image2D, Width: 8, Height: 8, RowPitch: 1 << 62}, make([]byte, 8*8*4))
				return err
			}, ur.ErrInvalidSize},
			{"ReadPitchOverflow", func() error {
				_, err := q.EnqueueReadImage(img, true, [3]uint64{}, [3]uint64{8, 8, 1}, 1<<61, 0, make([]byte, 64))
				return err
			}, ur.ErrInvalidSize},
			{"ReadOutside", func() error {
				_, err := q.EnqueueReadImage(img, true, [3]uint64{4, 0, 0}, [3]uint64{5, 1, 1}, 0, 0, make([]byte, 64))
				return err
			}, ur.ErrInvalidSize},
			{"ReadEmptyRegion", func() error {
				_, err := q.EnqueueReadImage(img, true, [3]uint64{}, [3]uint64{1, 0, 1}, 0, 0, make([]byte, 64))
				return err
			}, ur.ErrInvalidSize},
			{"ReadZOn2D", func() error {
				_, err := q.EnqueueReadImage(img, true, [3]uint64{0, 0, 1}, [3]uint64{1, 1, 1}, 0, 0, make([]byte, 64))
				return err
			}, ur.ErrInvalidSize},
			{"ReadHostTooSmall", func() error {
				_, err := q.EnqueueReadImage(img, true, [3]uint64{}, [3]uint64{8, 8, 1}, 0, 0, make([]byte, 64))
				return err
			}, ur.ErrInvalidSize},
			{"ReadBufferAsImage", func() error {
				_, err := q.EnqueueReadImage(buf, true, [3]uint64{}, [3]uint64{1, 1, 1}, 0, 0, make([]byte, 64))
				return err
			}, ur.ErrInvalidMemObject},
			{"ReadBufferOfImage", func() error { return q.ReadBuffer(img, 0, make([]byte, 64)) }, ur.ErrInvalidMemObject},
			{"CopyBufferFromImage", func() error {
				ev, err := q.EnqueueCopy(img, buf, 0, 0, 64)
				if ev != nil {
					ev.Release()
				}
				return err
			}, ur.ErrInvalidMemObject},
			{"FillOfImage", func() error {
				ev, err := q.EnqueueFill(img, []byte{1, 2, 3, 4}, 0, 64)
				if ev != nil {
					ev.Release()
				}
				return err
			}, ur.ErrInvalidMemObject},
			{"SubBufferOfImage", func() error {
				sub, err := img.SubBuffer(0, 64)
				if sub != nil {
					sub.Release()
				}
				return err
			}, ur.ErrInvalidMemObject},
			{"ReadNilImage", func() error {
				_, err := q.EnqueueReadImage(nil, true, [3]uint64{}, [3]uint64{1, 1, 1}, 0, 0, make([]byte, 64))
				return err
			}, ur.ErrInvalidNullHandle},
			{"CopyFormatMismatch", func() error {
				other, err := ctx.NewImage(ur.MemReadWrite, ur.ImageFormat{Order: ur.ChannelRGBA, Type: ur.ChannelFloat}, d2, nil)
				if err != nil {
					return ur.ErrInvalidImageFormatDescriptor // a device without the format
				}
				defer other.Release()
				_, err = q.EnqueueCopyImage(img, other, [3]uint64{}, [3]uint64{}, [3]uint64{1, 1, 1})
				return err
			}, ur.ErrInvalidImageFormatDescriptor},
			{"ImageToBufferPastEnd", func() error {
				_, err := q.EnqueueCopyImageToBuffer(img, [3]uint64{}, [3]uint64{8, 8, 1}, buf, 1000)
				return err
			}, ur.ErrInvalidSize},
			{"ImageAsBuffer", func() error {
				_, err := q.EnqueueCopyBufferToImage(img, 0, img, [3]uint64{}, [3]uint64{1, 1, 1})
				return err
			}, ur.ErrInvalidMemObject},
			{"FillOutside", func() error {
				_, err := q.EnqueueFillImage(img, ur.FillColorFloat(0, 0, 0, 0), [3]uint64{8, 0, 0}, [3]uint64{1, 1, 1})
				return err
			}, ur.ErrInvalidSize},
			{"SamplerBadAddressing", func() error { _, err := ctx.NewSampler(ur.SamplerDesc{Addressing: 9}); return err }, ur.ErrInvalidEnumeration},
			{"SamplerBadFilter", func() error { _, err := ctx.NewSampler(ur.SamplerDesc{Filter: 5}); return err }, ur.ErrInvalidEnumeration},
		}
		for _, c := range cases {
			f.Run(t, c.name, func(t *testing.T) {
				if err := c.err(); !errors.Is(err, c.want) {
					t.Errorf("%v, want %v", err, c.want)
				}
			})
		}
	})
}

// TestSampler makes samplers of each addressing and filter mode.
func TestSampler(t *testing.T) {
	forEachDevice(t, func(t *testing.T, f *Fixture) {
		ctx := imageCtx(t, f)
		for _, norm := range []bool{false, true} {
			for a := ur.AddressNone; a <= ur.AddressMirroredRepeat; a++ {
				for _, fl := range []ur.FilterMode{ur.FilterNearest, ur.FilterLinear} {
					desc := ur.SamplerDesc{Normalized: norm, Addressing: a, Filter: fl}
					if !norm && (a == ur.AddressRepeat || a == ur.AddressMirroredRepeat) {
						continue // repeat needs normalized coordinates
					}
					f.Run(t, fmt.Sprintf("norm=%v/addr=%d/filter=%d", norm, a, fl), func(t *testing.T) {
						s, err := ctx.NewSampler(desc)
						if err != nil {
							t.Fatal(err)
						}
						if s.Desc() != desc || s.Context() != ctx || s.Native() == 0 {
							t.Errorf("Desc %+v, Context, Native %#x", s.Desc(), s.Native())
						}
						must(t, "Release", s.Release())
						if err := s.Release(); !errors.Is(err, ur.ErrInvalidSampler) {
							t.Errorf("second release: %v", err)
						}
					})
				}
			}
		}
	})
}

// imageProgram builds the image kernels (testdata/opencl/images.cl):
// from the OpenCL C for an adapter that compiles it, from its SPIR-V
// (testdata/spirv/images.spv, made as the suite's other SPIR-V) for one
// whose device code is SPIR-V. Other adapters skip.
func imageProgram(t *testing.T, f *Fixture, ctx *ur.Context) *ur.Program {
	t.Helper()
	code := f.DeviceCode(t)
	var p *ur.Program
	var err error
	switch {
	case code.ILOnly && code.Ext == ".spv":
		var il []byte
		if il, err = testdata.ReadFile("testdata/spirv/images.spv"); err == nil {
			p, err = ctx.NewProgramFromIL(il)
		}
	case !code.ILOnly:
		// images.cl, images.cu: the same kernels in each source language.
		var src []byte
		if src, err = code.read("images"); errors.Is(err, fs.ErrNotExist) {
			t.Skipf("no image kernels for %s in the suite", f.Backend)
		}
		if err == nil {
			p, err = ctx.NewProgramFromSource(string(src))
		}
	default:
		t.Skipf("no image kernels for %s in the suite", f.Backend)
	}
	must(t, "creating the image program", err)
	cleanup(t, p)
	must(t, "Build", p.Build("", f.Device))
	return p
}

// TestImageKernelArgs: kernels take images and samplers as arguments,
// read through the sampler and write images.
func TestImageKernelArgs(t *testing.T) {
	forEachDevice(t, func(t *testing.T, f *Fixture) {
		ctx := imageCtx(t, f)
		q := f.Queue(t)
		p := imageProgram(t, f, ctx)
		f.Run(t, "SampleRead", func(t *testing.T) {
			host := pattern(4*4*4, 0)
			img := newImage2D(t, ctx, 4, 4, host)
			s, err := ctx.NewSampler(ur.SamplerDesc{Addressing: ur.AddressClampToEdge, Filter: ur.FilterNearest})
			must(t, "NewSampler", err)
			defer s.Release()
			out := f.Buffer(t, ur.MemReadWrite, 4*4*16)
			k := f.KernelOf(t, p, "sample")
			must(t, "SetArgMem(image)", k.SetArgMem(0, img))
			must(t, "SetArgSampler", k.SetArgSampler(1, s))
			must(t, "SetArgMem", k.SetArgMem(2, out))
			must(t, "SetArgInt32", k.SetArgInt32(3, 4))
			must(t, "Launch", q.Launch(k, ur.Range2D(4, 4)))
			got := make([]float32, 4*4*4)
			must(t, "ReadBuffer", q.ReadBuffer(out, 0, ur.AsBytes(got)))
			for i, v := range got {
				if want := float32(host[i]) / 255; math.Abs(float64(v-want)) > 1e-3 {
					t.Fatalf("channel %d = %v, want %v", i, v, want)
				}
			}
		})
		f.Run(t, "WriteImage", func(t *testing.T) {
			fu := ur.ImageFormat{Order: ur.ChannelRGBA, Type: ur.ChannelUnsignedInt8}
			d := ur.ImageDesc{Type: ur.Image2D, Width: 8, Height: 2}
			host := pattern(8*2*4, 5)
			in, err := ctx.NewImage(ur.MemReadOnly, fu, d, host)
			must(t, "NewImage in", err)
			defer in.Release()
			out, err := ctx.NewImage(ur.MemWriteOnly, fu, d, nil)
			must(t, "NewImage out", err)
			defer out.Release()
			k := f.KernelOf(t, p, "invert")
			must(t, "SetArgMem in", k.SetArgMem(0, in))
			must(t, "SetArgMem out", k.SetArgMem(1, out))
			must(t, "Launch", q.Launch(k, ur.Range2D(8, 2)))
			got := make([]byte, len(host))
			if _, err := q.EnqueueReadImage(out, true, [3]uint64{}, [3]uint64{8, 2, 1}, 0, 0, got); err != nil {
				t.Fatal(err)
			}
			for i := range got {
				if got[i] != 255-host[i] {
					t.Fatalf("byte %d = %d, want %d", i, got[i], 255-host[i])
				}
			}
		})
		f.Run(t, "SamplerOfOtherContext", func(t *testing.T) {
			other := f.NewContext(t)
			s, err := other.NewSampler(ur.SamplerDesc{})
			must(t, "NewSampler", err)
			defer s.Release()
			k := f.KernelOf(t, p, "sample")
			if err := k.SetArgSampler(1, s); !errors.Is(err, ur.ErrInvalidContext) {
				t.Errorf("sampler of another context: %v", err)
			}
			if err := k.SetArgSampler(1, nil); !errors.Is(err, ur.ErrInvalidNullHandle) {
				t.Errorf("nil sampler: %v", err)
			}
		})
	})
}

// TestImageUnsupported: an adapter without images says so, typed.
func TestImageUnsupported(t *testing.T) {
	forEachDevice(t, func(t *testing.T, f *Fixture) {
		ctx := f.Context(t)
		_, err := ctx.SupportedImageFormats(ur.MemReadWrite, ur.Image2D)
		if err == nil {
			t.Skip("the device has images")
		}
		if !errors.Is(err, ur.ErrUnsupportedFeature) {
			t.Fatalf("SupportedImageFormats: %v", err)
		}
		if _, err := ctx.NewImage(ur.MemReadWrite, rgba8, ur.ImageDesc{Type: ur.Image2D, Width: 4, Height: 4}, nil); !errors.Is(err, ur.ErrUnsupportedFeature) {
			t.Errorf("NewImage: %v", err)
		}
		if _, err := ctx.NewSampler(ur.SamplerDesc{}); !errors.Is(err, ur.ErrUnsupportedFeature) {
			t.Errorf("NewSampler: %v", err)
		}
	})
}
