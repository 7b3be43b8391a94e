package cuda

import (
	"bytes"
	gocontext "context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
	"unsafe"

	"github.com/gour-dev/gour/adapters/cuda/internal/cu"
	"github.com/gour-dev/gour/dtype"
	"github.com/gour-dev/gour/internal/harness/testenv"
	"github.com/gour-dev/gour/ur"
	"github.com/gour-dev/gour/ur/driver"
)

// The tests of image.go. Those without "GPU" in their comment run
// anywhere; the others make CUDA arrays through the ur front end and skip
// without a CUDA device, and the kernel tests skip without NVRTC.

// TestImageFormatTable: every format the context lists maps to an array
// format of the right width, and there is no 3-channel one.
func TestImageFormatTable(t *testing.T) {
	fs, err := (&context{}).SupportedImageFormats(driver.MemReadWrite, driver.Image2D)
	if err != nil {
		t.Fatal(err)
	}
	if len(fs) != 36 {
		t.Errorf("%d formats, want 36 (R, RG, RGBA × 12 channel types)", len(fs))
	}
	width := map[cu.ArrayFormat]uint64{cu.ArrayFormatUint8: 1, cu.ArrayFormatInt8: 1, cu.ArrayFormatUint16: 2, cu.ArrayFormatInt16: 2,
		cu.ArrayFormatHalf: 2, cu.ArrayFormatUint32: 4, cu.ArrayFormatInt32: 4, cu.ArrayFormatFloat: 4}
	for _, f := range fs {
		af, ch, ok := arrayFormat(f)
		if !ok {
			t.Errorf("%v listed but not mapped", f)
			continue
		}
		if got := width[af] * uint64(ch); got != f.PixelSize() {
			t.Errorf("%v: array format %#x × %d channels is %d bytes, the format's pixel %d", f, af, ch, got, f.PixelSize())
		}
	}
	for _, f := range []driver.ImageFormat{
		{Order: driver.ChannelRGB, Type: driver.ChannelFloat},
		{Order: driver.ChannelRGB, Type: driver.ChannelUnormShort565},
		{Order: driver.ChannelBGRA, Type: driver.ChannelUnormInt8},
		{Order: driver.ChannelRGBA, Type: driver.ChannelInt101010},
	} {
		if _, _, ok := arrayFormat(f); ok {
			t.Errorf("%v mapped to an array format", f)
		}
		if _, err := (&context{}).NewImage(driver.MemReadWrite, f, driver.ImageDesc{Type: driver.Image2D, Width: 4, Height: 4}, nil); !errors.Is(err, driver.ResultUnsupportedImageFormat) || !strings.Contains(err.Error(), f.String()) {
			t.Errorf("NewImage(%v): %v, want UNSUPPORTED_IMAGE_FORMAT naming the format", f, err)
		}
	}
}

// TestImageSeveralDevices: a context of several devices has no images
// (an array belongs to one device's context), typed.
func TestImageSeveralDevices(t *testing.T) {
	c := &context{devs: []*device{{}, {}}}
	if _, err := c.SupportedImageFormats(driver.MemReadWrite, driver.Image2D); !errors.Is(err, driver.ResultUnsupportedFeature) {
		t.Errorf("SupportedImageFormats: %v, want UNSUPPORTED_FEATURE", err)
	}
	f := driver.ImageFormat{Order: driver.ChannelRGBA, Type: driver.ChannelFloat}
	if _, err := c.NewImage(driver.MemReadWrite, f, driver.ImageDesc{Type: driver.Image2D, Width: 4, Height: 4}, nil); !errors.Is(err, driver.ResultUnsupportedFeature) {
		t.Errorf("NewImage: %v, want UNSUPPORTED_FEATURE", err)
	}
}

// TestImageArrayDescriptor: the descriptor of each image type, as
// cuArray3DCreate wants it (Height 0 for 1D, Depth the layers of the
// layered types).
func TestImageArrayDescriptor(t *testing.T) {
	ldst, layered := uint32(cu.Array3DSurfaceLDST), uint32(cu.Array3DSurfaceLDST|cu.Array3DLayered)
	for _, c := range []struct {
		d    driver.ImageDesc
		want cu.Array3DDescriptor
	}{
		{driver.ImageDesc{Type: driver.Image1D, Width: 64}, cu.Array3DDescriptor{Width: 64, Flags: ldst}},
		{driver.ImageDesc{Type: driver.Image1DArray, Width: 32, ArraySize: 3}, cu.Array3DDescriptor{Width: 32, Depth: 3, Flags: layered}},
		{driver.ImageDesc{Type: driver.Image2D, Width: 17, Height: 9}, cu.Array3DDescriptor{Width: 17, Height: 9, Flags: ldst}},
		{driver.ImageDesc{Type: driver.Image2DArray, Width: 8, Height: 5, ArraySize: 3}, cu.Array3DDescriptor{Width: 8, Height: 5, Depth: 3, Flags: layered}},
		{driver.ImageDesc{Type: driver.Image3D, Width: 8, Height: 4, Depth: 3}, cu.Array3DDescriptor{Width: 8, Height: 4, Depth: 3, Flags: ldst}},
	} {
		c.want.Format, c.want.NumChannels = cu.ArrayFormatFloat, 4
		if got := arrayDescriptor(cu.ArrayFormatFloat, 4, c.d); got != c.want {
			t.Errorf("type %d: %+v, want %+v", c.d.Type, got, c.want)
		}
	}
}

// TestImageArrayBox: a 1D array's layer (y in the front end's boxes) is
// the array's z; other types keep their coordinates.
func TestImageArrayBox(t *testing.T) {
	a := &image{typ: driver.Image1DArray, pixel: 8}
	o, r := a.arrayBox([3]uint64{5, 2, 0}, [3]uint64{7, 3, 1})
	if o != [3]uint64{5, 0, 2} || r != [3]uint64{7, 1, 3} {
		t.Errorf("1D array box: %v %v", o, r)
	}
	p, _ := a.copy3D(true, [3]uint64{5, 2, 0}, [3]uint64{7, 3, 1})
	if p.DstXInBytes != 40 || p.DstY != 0 || p.DstZ != 2 || p.WidthInBytes != 56 || p.Height != 1 || p.Depth != 3 || p.DstMemoryType != cu.MemoryTypeArray {
		t.Errorf("1D array copy: %+v", p)
	}
	b := &image{typ: driver.Image3D, pixel: 4}
	if o, r := b.arrayBox([3]uint64{1, 2, 3}, [3]uint64{4, 5, 6}); o != [3]uint64{1, 2, 3} || r != [3]uint64{4, 5, 6} {
		t.Errorf("3D box: %v %v", o, r)
	}
}

// TestImageHostCopies: the CUDA_MEMCPY3D of host copies: one when the
// slice pitch is a whole number of rows (its height that many rows), one
// a slice otherwise, host addresses a slice pitch apart and the array's z
// advancing; a 1D array's layers are slices of one row.
func TestImageHostCopies(t *testing.T) {
	type call struct {
		host, pitch, height, z, depth uint64
	}
	host := make([]byte, 4096)
	base := uint64(uintptr(unsafe.Pointer(&host[0])))
	for _, c := range []struct {
		name           string
		typ            driver.ImageType
		toImage        bool
		origin, region [3]uint64
		row, slice     uint64
		want           []call
	}{
		{"WholeRows", driver.Image2DArray, true, [3]uint64{1, 2, 1}, [3]uint64{3, 2, 2}, 60, 180,
			[]call{{base, 60, 3, 1, 2}}},
		{"SliceBySlice", driver.Image3D, false, [3]uint64{1, 2, 1}, [3]uint64{3, 2, 2}, 60, 140,
			[]call{{base, 60, 2, 1, 1}, {base + 140, 60, 2, 2, 1}}},
		{"2D", driver.Image2D, false, [3]uint64{0, 0, 0}, [3]uint64{3, 5, 1}, 50, 250,
			[]call{{base, 50, 5, 0, 1}}},
		{"1DArrayLayers", driver.Image1DArray, true, [3]uint64{3, 1, 0}, [3]uint64{10, 2, 1}, 32, 40,
			[]call{{base, 32, 1, 1, 1}, {base + 40, 32, 1, 2, 1}}},
		{"1DArrayTight", driver.Image1DArray, false, [3]uint64{0, 0, 0}, [3]uint64{10, 3, 1}, 160, 160,
			[]call{{base, 160, 1, 0, 3}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			img := &image{typ: c.typ, pixel: 16, array: 5}
			hc := img.hostCopy(c.toImage, c.origin, c.region, c.row, c.slice, host)
			var got []call
			hc.each(func(p *cu.Memcpy3D) cu.Result {
				if c.toImage {
					if p.SrcMemoryType != cu.MemoryTypeHost || p.DstMemoryType != cu.MemoryTypeArray || p.DstArray != 5 {
						t.Errorf("write: memory types %d→%d, array %d", p.SrcMemoryType, p.DstMemoryType, p.DstArray)
					}
					got = append(got, call{uint64(p.SrcHost), p.SrcPitch, p.SrcHeight, p.DstZ, p.Depth})
				} else {
					if p.SrcMemoryType != cu.MemoryTypeArray || p.DstMemoryType != cu.MemoryTypeHost || p.SrcArray != 5 {
						t.Errorf("read: memory types %d→%d, array %d", p.SrcMemoryType, p.DstMemoryType, p.SrcArray)
					}
					got = append(got, call{uint64(p.DstHost), p.DstPitch, p.DstHeight, p.SrcZ, p.Depth})
				}
				if p.WidthInBytes != c.region[0]*16 {
					t.Errorf("WidthInBytes %d", p.WidthInBytes)
				}
				return cu.Success
			})
			if fmt.Sprint(got) != fmt.Sprint(c.want) {
				t.Errorf("copies (host, pitch, height, z, depth) %v, want %v", got, c.want)
			}
		})
	}
}

// TestImageToImageCopies: one copy between images whose layers lie
// alike, one a row between a 1D array (layers in the array's z) and a 2D
// image (rows in its y).
func TestImageToImageCopies(t *testing.T) {
	a := &image{typ: driver.Image1DArray, pixel: 4, array: 1}
	b := &image{typ: driver.Image2D, pixel: 4, array: 2}
	c := &image{typ: driver.Image2DArray, pixel: 4, array: 3}
	ps := imageCopies(b, c, [3]uint64{1, 2, 0}, [3]uint64{3, 0, 1}, [3]uint64{5, 2, 1})
	if len(ps) != 1 || ps[0].SrcArray != 2 || ps[0].DstArray != 3 || ps[0].SrcXInBytes != 4 || ps[0].SrcY != 2 ||
		ps[0].DstXInBytes != 12 || ps[0].DstZ != 1 || ps[0].Height != 2 || ps[0].Depth != 1 {
		t.Errorf("2D to 2D array: %+v", ps)
	}
	ps = imageCopies(a, b, [3]uint64{0, 3, 0}, [3]uint64{2, 1, 0}, [3]uint64{6, 2, 1})
	if len(ps) != 2 {
		t.Fatalf("1D array to 2D: %d copies, want 2", len(ps))
	}
	for i, p := range ps {
		if p.SrcY != 0 || p.SrcZ != uint64(3+i) || p.DstY != uint64(1+i) || p.DstZ != 0 || p.Height != 1 || p.Depth != 1 || p.WidthInBytes != 24 {
			t.Errorf("1D array to 2D, row %d: %+v", i, p)
		}
	}
}

// TestImageBufferMixups: an image call given a buffer, or a buffer side
// given an image, is INVALID_MEM_OBJECT before any driver call.
func TestImageBufferMixups(t *testing.T) {
	q := &queue{}
	buf, img := &mem{ptr: 0x1000}, &mem{img: &image{typ: driver.Image2D, pixel: 4}}
	r := driver.ImageRegion{Region: [3]uint64{1, 1, 1}}
	want := driver.ResultInvalidMemObject
	if _, err := q.ReadImage(buf, true, r, 0, 0, make([]byte, 4), nil, false); !errors.Is(err, want) {
		t.Errorf("ReadImage(buffer): %v", err)
	}
	if _, err := q.WriteImage(buf, true, r, 0, 0, make([]byte, 4), nil, false); !errors.Is(err, want) {
		t.Errorf("WriteImage(buffer): %v", err)
	}
	if _, err := q.CopyImage(img, buf, [3]uint64{}, r, nil, true); !errors.Is(err, want) {
		t.Errorf("CopyImage(image, buffer): %v", err)
	}
	if _, err := q.FillImage(buf, [16]byte{}, r, nil, true); !errors.Is(err, want) {
		t.Errorf("FillImage(buffer): %v", err)
	}
	if _, err := q.CopyImageToBuffer(img, r, img, 0, nil, true); !errors.Is(err, want) {
		t.Errorf("CopyImageToBuffer(image, image): %v", err)
	}
	if _, err := q.CopyBufferToImage(buf, 0, buf, r, nil, true); !errors.Is(err, want) {
		t.Errorf("CopyBufferToImage(buffer, buffer): %v", err)
	}
}

// TestImageSamplerArgument: the sampler's 32-bit value (bit 0
// normalized, bit 1 filter, bits 2-4 addressing, bit 31 set) goes into a
// 4-byte argument, and one of another size is refused when the kernel's
// parameters are known.
func TestImageSamplerArgument(t *testing.T) {
	s, err := (&context{}).NewSampler(driver.SamplerDesc{Normalized: true, Addressing: driver.AddressMirroredRepeat, Filter: driver.FilterLinear})
	if err != nil {
		t.Fatal(err)
	}
	want := uint32(1<<31 | 4<<2 | 1<<1 | 1)
	if got := uint32(s.Native()); got != want {
		t.Errorf("Native = %#x, want %#x", got, want)
	}
	if z, _ := (&context{}).NewSampler(driver.SamplerDesc{}); z.Native() != 1<<31 {
		t.Errorf("the zero sampler's value is %#x, want only bit 31", z.Native())
	}
	k := &kernel{name: "k"} // no parameter list: the arguments grow
	if err := k.SetArgSampler(1, s); err != nil {
		t.Fatal(err)
	}
	if got := *(*uint32)(k.ptrs[1]); got != want {
		t.Errorf("argument 1 = %#x, want %#x", got, want)
	}
	k = &kernel{name: "k", params: []cu.ParamInfo{{Size: 8}}}
	k.layout([]uintptr{8})
	if err := k.SetArgSampler(0, s); !errors.Is(err, driver.ResultInvalidKernelArgumentSize) {
		t.Errorf("a sampler into an 8-byte parameter: %v, want INVALID_KERNEL_ARGUMENT_SIZE", err)
	}
	if err := s.Release(); err != nil {
		t.Error(err)
	}
}

// TestImageArgIsSurfaceObject: SetArgMem of an image stores its surface
// object, of a buffer its address.
func TestImageArgIsSurfaceObject(t *testing.T) {
	k := &kernel{name: "k"}
	if err := k.SetArgMem(0, &mem{ptr: 0x1000, img: &image{surf: 42}}); err != nil {
		t.Fatal(err)
	}
	if err := k.SetArgMem(1, &mem{ptr: 0x2000}); err != nil {
		t.Fatal(err)
	}
	if a, b := *(*uint64)(k.ptrs[0]), *(*uint64)(k.ptrs[1]); a != 42 || b != 0x2000 {
		t.Errorf("arguments %#x and %#x, want the surface object 42 and the address 0x2000", a, b)
	}
	if n := (&mem{img: &image{array: 7}}).Native(); n != 7 {
		t.Errorf("an image's Native = %d, want its CUarray", n)
	}
}

// imgFixture is a context and queue of the first CUDA device through the
// ur front end.
type imgFixture struct {
	dev *ur.Device
	ctx *ur.Context
	q   *ur.Queue
}

func newImgFixture(tb testing.TB) *imgFixture {
	tb.Helper()
	testenv.MustHaveAdapter(tb, Name)
	sys, err := ur.Discover(ur.Config{Selector: "cuda:*"})
	if err != nil {
		tb.Fatal(err)
	}
	if len(sys.Devices) == 0 {
		tb.Skip("no CUDA device selected")
	}
	f := &imgFixture{dev: sys.Devices[0]}
	if f.ctx, err = ur.NewContext(f.dev); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { f.ctx.Release() })
	if f.q, err = f.ctx.NewQueue(f.dev, ur.QueueProperties{}); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { f.q.Release() })
	return f
}

func (f *imgFixture) image(tb testing.TB, format ur.ImageFormat, d ur.ImageDesc, host []byte) *ur.Mem {
	tb.Helper()
	img, err := f.ctx.NewImage(ur.MemReadWrite, format, d, host)
	if err != nil {
		tb.Fatalf("NewImage(%v, %+v): %v", format, d, err)
	}
	tb.Cleanup(func() {
		if err := img.Release(); err != nil {
			tb.Errorf("Release: %v", err)
		}
	})
	return img
}

// waitEv waits for the event of an enqueue and releases it.
func waitEv(ev *ur.Event, err error) error {
	if err != nil {
		return err
	}
	defer ev.Release()
	return ev.Wait(gocontext.Background())
}

func (f *imgFixture) readAll(tb testing.TB, img *ur.Mem) []byte {
	tb.Helper()
	format, d, _ := img.ImageInfo()
	ext := d.Extent()
	got := make([]byte, ext[0]*ext[1]*ext[2]*format.PixelSize())
	if _, err := f.q.EnqueueReadImage(img, true, [3]uint64{}, ext, 0, 0, got); err != nil {
		tb.Fatal(err)
	}
	return got
}

var imgShapes = []struct {
	name string
	d    ur.ImageDesc
}{
	{"1D", ur.ImageDesc{Type: ur.Image1D, Width: 37}},
	{"1DArray", ur.ImageDesc{Type: ur.Image1DArray, Width: 19, ArraySize: 3}},
	{"2D", ur.ImageDesc{Type: ur.Image2D, Width: 17, Height: 9}},
	{"2DArray", ur.ImageDesc{Type: ur.Image2DArray, Width: 8, Height: 5, ArraySize: 3}},
	{"3D", ur.ImageDesc{Type: ur.Image3D, Width: 8, Height: 4, Depth: 3}},
}

// imgPixels is n pixels of the format, different from seed to seed, with
// float and half channels small whole numbers (no NaN bit patterns).
func imgPixels(f ur.ImageFormat, n uint64, seed int) []byte {
	b := make([]byte, 0, n*f.PixelSize())
	_, ch, _ := arrayFormat(f)
	for i := range n * uint64(ch) {
		v := int(i)*7 + seed*13 + 1
		switch f.Type {
		case ur.ChannelFloat:
			b = binary.LittleEndian.AppendUint32(b, math.Float32bits(float32(v%1000)-300))
		case ur.ChannelHalfFloat:
			b = binary.LittleEndian.AppendUint16(b, dtype.Float16Bits(float32(v%500)-100))
		default:
			for range f.PixelSize() / uint64(ch) {
				b = append(b, byte(v))
				v = v*31 + 5
			}
		}
	}
	return b
}

// imgModel is an image's pixels in Go, tightly packed as the front end's
// whole-image reads give them.
type imgModel struct {
	ext   [3]uint64
	pixel uint64
	b     []byte
}

func (m *imgModel) at(x, y, z uint64) []byte {
	o := ((z*m.ext[1]+y)*m.ext[0] + x) * m.pixel
	return m.b[o : o+m.pixel]
}

// hostAt is the offset of pixel (x, y, z) of a box in host memory laid out
// with the pitches, where a 1D array's layers (y) are slices.
func hostAt(t ur.ImageType, x, y, z, pixel, row, slice uint64) uint64 {
	if t == ur.Image1DArray {
		return y*slice + x*pixel
	}
	return z*slice + y*row + x*pixel
}

// TestImageRoundTrip (GPU): an image of every listed format and every
// type made from host data reads back the same.
func TestImageRoundTrip(t *testing.T) {
	f := newImgFixture(t)
	for _, s := range imgShapes {
		fs, err := f.ctx.SupportedImageFormats(ur.MemReadWrite, s.d.Type)
		if err != nil {
			t.Fatal(err)
		}
		if len(fs) != 36 {
			t.Errorf("%s: %d formats, want 36", s.name, len(fs))
		}
		for i, format := range fs {
			t.Run(s.name+"/"+format.String(), func(t *testing.T) {
				ext := s.d.Extent()
				host := imgPixels(format, ext[0]*ext[1]*ext[2], i)
				img := f.image(t, format, s.d, host)
				if img.Size() != uint64(len(host)) || img.Native() == 0 {
					t.Errorf("Size %d (want %d), Native %#x", img.Size(), len(host), img.Native())
				}
				if got := f.readAll(t, img); !bytes.Equal(got, host) {
					t.Error("the image does not read back what it was made from")
				}
			})
		}
	}
}

// TestImageRegionPitches (GPU): a box written from host memory with
// padded pitches, one slice pitch a whole number of rows and one not
// (a copy a slice), changes that box only, and reads back with other
// pitches.
func TestImageRegionPitches(t *testing.T) {
	f := newImgFixture(t)
	for _, c := range []struct {
		name           string
		format         ur.ImageFormat
		d              ur.ImageDesc
		origin, region [3]uint64
	}{
		{"2DArray", ur.ImageFormat{Order: ur.ChannelRGBA, Type: ur.ChannelFloat}, ur.ImageDesc{Type: ur.Image2DArray, Width: 8, Height: 6, ArraySize: 4},
			[3]uint64{1, 2, 1}, [3]uint64{3, 2, 2}},
		{"3D", ur.ImageFormat{Order: ur.ChannelR, Type: ur.ChannelUnsignedInt16}, ur.ImageDesc{Type: ur.Image3D, Width: 9, Height: 7, Depth: 5},
			[3]uint64{4, 1, 2}, [3]uint64{5, 3, 3}},
		{"1DArray", ur.ImageFormat{Order: ur.ChannelRG, Type: ur.ChannelSignedInt8}, ur.ImageDesc{Type: ur.Image1DArray, Width: 20, ArraySize: 4},
			[3]uint64{3, 1, 0}, [3]uint64{10, 2, 1}},
		{"2D", ur.ImageFormat{Order: ur.ChannelRGBA, Type: ur.ChannelUnormInt8}, ur.ImageDesc{Type: ur.Image2D, Width: 16, Height: 8},
			[3]uint64{5, 4, 0}, [3]uint64{3, 2, 1}},
	} {
		for _, wholeRows := range []bool{true, false} {
			t.Run(fmt.Sprintf("%s/wholeRows=%v", c.name, wholeRows), func(t *testing.T) {
				px := c.format.PixelSize()
				ext := c.d.Extent()
				img := f.image(t, c.format, c.d, nil)
				zero := make([]byte, ext[0]*ext[1]*ext[2]*px)
				if _, err := f.q.EnqueueWriteImage(img, true, [3]uint64{}, ext, 0, 0, zero); err != nil {
					t.Fatal(err)
				}
				rows, slices := c.region[1], c.region[2]
				if c.d.Type == ur.Image1DArray {
					rows, slices = 1, c.region[1]
				}
				row := c.region[0]*px + 12
				slice := row*rows + 20
				if wholeRows {
					slice = row * (rows + 1)
				}
				src := imgPixels(c.format, (slices*slice+px-1)/px, 3)[:slices*slice]
				must(t, "EnqueueWriteImage", waitEv(f.q.EnqueueWriteImage(img, false, c.origin, c.region, row, slice, src)))
				want := &imgModel{ext: ext, pixel: px, b: zero}
				for z := range c.region[2] {
					for y := range c.region[1] {
						for x := range c.region[0] {
							o := hostAt(c.d.Type, x, y, z, px, row, slice)
							copy(want.at(c.origin[0]+x, c.origin[1]+y, c.origin[2]+z), src[o:o+px])
						}
					}
				}
				if got := f.readAll(t, img); !bytes.Equal(got, want.b) {
					t.Fatal("the image differs from the box written into zeros")
				}
				// Read the box back with other pitches.
				row2, slice2 := row+4, (row+4)*rows+8
				back := make([]byte, slices*slice2)
				if _, err := f.q.EnqueueReadImage(img, true, c.origin, c.region, row2, slice2, back); err != nil {
					t.Fatal(err)
				}
				for z := range c.region[2] {
					for y := range c.region[1] {
						for x := range c.region[0] {
							o, o2 := hostAt(c.d.Type, x, y, z, px, row, slice), hostAt(c.d.Type, x, y, z, px, row2, slice2)
							if !bytes.Equal(back[o2:o2+px], src[o:o+px]) {
								t.Fatalf("pixel (%d,%d,%d) of the box read back = % x, want % x", x, y, z, back[o2:o2+px], src[o:o+px])
							}
						}
					}
				}
			})
		}
	}
}

// TestImageCopies (GPU): image to image, and image to buffer to image,
// between boxes at different origins, for 3D and 1D-array images.
func TestImageCopies(t *testing.T) {
	f := newImgFixture(t)
	for _, c := range []struct {
		name               string
		format             ur.ImageFormat
		d                  ur.ImageDesc
		srcO, dstO, region [3]uint64
	}{
		{name: "3D", format: ur.ImageFormat{Order: ur.ChannelRGBA, Type: ur.ChannelHalfFloat}, d: ur.ImageDesc{Type: ur.Image3D, Width: 8, Height: 5, Depth: 4},
			srcO: [3]uint64{1, 1, 1}, dstO: [3]uint64{4, 0, 2}, region: [3]uint64{3, 4, 2}},
		{name: "1DArray", format: ur.ImageFormat{Order: ur.ChannelR, Type: ur.ChannelFloat}, d: ur.ImageDesc{Type: ur.Image1DArray, Width: 16, ArraySize: 5},
			srcO: [3]uint64{2, 1, 0}, dstO: [3]uint64{9, 3, 0}, region: [3]uint64{6, 2, 1}},
		{name: "2DArray", format: ur.ImageFormat{Order: ur.ChannelRG, Type: ur.ChannelUnsignedInt32}, d: ur.ImageDesc{Type: ur.Image2DArray, Width: 6, Height: 6, ArraySize: 3},
			srcO: [3]uint64{0, 3, 2}, dstO: [3]uint64{2, 0, 0}, region: [3]uint64{4, 3, 1}},
	} {
		t.Run(c.name, func(t *testing.T) {
			px := c.format.PixelSize()
			ext := c.d.Extent()
			n := ext[0] * ext[1] * ext[2]
			srcHost := imgPixels(c.format, n, 1)
			src := f.image(t, c.format, c.d, srcHost)
			dst := f.image(t, c.format, c.d, make([]byte, n*px))
			must(t, "enqueue and wait", waitEv(f.q.EnqueueCopyImage(src, dst, c.srcO, c.dstO, c.region)))
			sm := &imgModel{ext: ext, pixel: px, b: srcHost}
			want := &imgModel{ext: ext, pixel: px, b: make([]byte, n*px)}
			var box []byte // the region's pixels, tightly packed
			for z := range c.region[2] {
				for y := range c.region[1] {
					for x := range c.region[0] {
						p := sm.at(c.srcO[0]+x, c.srcO[1]+y, c.srcO[2]+z)
						copy(want.at(c.dstO[0]+x, c.dstO[1]+y, c.dstO[2]+z), p)
						box = append(box, p...)
					}
				}
			}
			if got := f.readAll(t, dst); !bytes.Equal(got, want.b) {
				t.Fatal("image to image: the destination differs")
			}

			const off = 24
			buf, err := f.ctx.NewBuffer(ur.MemReadWrite, off+uint64(len(box))+8)
			if err != nil {
				t.Fatal(err)
			}
			defer buf.Release()
			must(t, "enqueue and wait", waitEv(f.q.EnqueueCopyImageToBuffer(src, c.srcO, c.region, buf, off)))
			got := make([]byte, len(box))
			if err := f.q.ReadBuffer(buf, off, got); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, box) {
				t.Fatal("image to buffer: the buffer does not hold the box, tightly packed")
			}
			back := f.image(t, c.format, c.d, make([]byte, n*px))
			must(t, "enqueue and wait", waitEv(f.q.EnqueueCopyBufferToImage(buf, off, back, c.dstO, c.region)))
			if got := f.readAll(t, back); !bytes.Equal(got, want.b) {
				t.Fatal("buffer to image: the image differs")
			}
		})
	}
}

// TestImageFill (GPU): a box filled with one color, per channel type
// and pixel width (1, 2, 4, 8 and 16 bytes: each memset), changes that
// box only.
func TestImageFill(t *testing.T) {
	f := newImgFixture(t)
	for _, c := range []struct {
		format         ur.ImageFormat
		d              ur.ImageDesc
		color          [16]byte
		origin, region [3]uint64
	}{
		{ur.ImageFormat{Order: ur.ChannelRGBA, Type: ur.ChannelUnormInt8}, ur.ImageDesc{Type: ur.Image2D, Width: 8, Height: 8},
			ur.FillColorFloat(1, 0, 0.5, 1), [3]uint64{1, 1, 0}, [3]uint64{2, 2, 1}},
		{ur.ImageFormat{Order: ur.ChannelR, Type: ur.ChannelSignedInt8}, ur.ImageDesc{Type: ur.Image1D, Width: 40},
			ur.FillColorInt(-3, 0, 0, 0), [3]uint64{5, 0, 0}, [3]uint64{30, 1, 1}},
		{ur.ImageFormat{Order: ur.ChannelR, Type: ur.ChannelSignedInt16}, ur.ImageDesc{Type: ur.Image1DArray, Width: 16, ArraySize: 4},
			ur.FillColorInt(-40000, 0, 0, 0), [3]uint64{2, 1, 0}, [3]uint64{7, 2, 1}},
		{ur.ImageFormat{Order: ur.ChannelRG, Type: ur.ChannelUnsignedInt16}, ur.ImageDesc{Type: ur.Image3D, Width: 6, Height: 5, Depth: 4},
			ur.FillColorUint(9, 70000, 0, 0), [3]uint64{1, 2, 1}, [3]uint64{4, 2, 3}},
		{ur.ImageFormat{Order: ur.ChannelRGBA, Type: ur.ChannelHalfFloat}, ur.ImageDesc{Type: ur.Image2DArray, Width: 7, Height: 5, ArraySize: 3},
			ur.FillColorFloat(1, 0.5, -2, 0), [3]uint64{3, 1, 1}, [3]uint64{4, 3, 2}},
		{ur.ImageFormat{Order: ur.ChannelRGBA, Type: ur.ChannelFloat}, ur.ImageDesc{Type: ur.Image2D, Width: 9, Height: 9},
			ur.FillColorFloat(1.5, -2, 0, 3), [3]uint64{0, 4, 0}, [3]uint64{9, 5, 1}},
		{ur.ImageFormat{Order: ur.ChannelRGBA, Type: ur.ChannelUnsignedInt32}, ur.ImageDesc{Type: ur.Image3D, Width: 4, Height: 4, Depth: 4},
			ur.FillColorUint(1, 2, 3, 4), [3]uint64{0, 0, 0}, [3]uint64{4, 4, 4}},
	} {
		t.Run(fmt.Sprintf("%d/%v", c.d.Type, c.format), func(t *testing.T) {
			px := c.format.PixelSize()
			ext := c.d.Extent()
			n := ext[0] * ext[1] * ext[2]
			img := f.image(t, c.format, c.d, make([]byte, n*px))
			must(t, "enqueue and wait", waitEv(f.q.EnqueueFillImage(img, c.color, c.origin, c.region)))
			pixel, err := driver.EncodePixel(driver.ImageFormat(c.format), c.color)
			must(t, "EncodePixel", err)
			want := &imgModel{ext: ext, pixel: px, b: make([]byte, n*px)}
			for z := range c.region[2] {
				for y := range c.region[1] {
					for x := range c.region[0] {
						copy(want.at(c.origin[0]+x, c.origin[1]+y, c.origin[2]+z), pixel)
					}
				}
			}
			if got := f.readAll(t, img); !bytes.Equal(got, want.b) {
				t.Fatalf("the image differs from a box of % x in zeros", pixel)
			}
		})
	}
}

// TestImageUnsupportedFormat (GPU): formats CUDA arrays lack are
// ErrUnsupportedImageFormat naming the format; 3-channel ones are never
// listed.
func TestImageUnsupportedFormat(t *testing.T) {
	f := newImgFixture(t)
	fs, err := f.ctx.SupportedImageFormats(ur.MemReadOnly, ur.Image3D)
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range fs {
		if g.Order == ur.ChannelRGB || g.Order == ur.ChannelRGBx {
			t.Errorf("%v listed", g)
		}
	}
	for _, format := range []ur.ImageFormat{
		{Order: ur.ChannelRGB, Type: ur.ChannelFloat},
		{Order: ur.ChannelRGB, Type: ur.ChannelUnormShort565},
		{Order: ur.ChannelBGRA, Type: ur.ChannelUnormInt8},
		{Order: ur.ChannelA, Type: ur.ChannelFloat},
	} {
		_, err := f.ctx.NewImage(ur.MemReadWrite, format, ur.ImageDesc{Type: ur.Image2D, Width: 4, Height: 4}, nil)
		if !errors.Is(err, ur.ErrUnsupportedImageFormat) || !strings.Contains(err.Error(), format.String()) {
			t.Errorf("%v: %v, want ErrUnsupportedImageFormat naming the format", format, err)
		}
	}
}

// imageKernels are the CUDA C kernels of the tests: surfaces are byte
// addressed in x; the sampler is the 32-bit value of image.go, applied by
// the kernel (nearest filtering; clamp to edge, or clamp to a zero
// border).
const imageKernels = `
extern "C" __global__ void invert(cudaSurfaceObject_t in, cudaSurfaceObject_t out, int w, int h) {
	int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
	if (x >= w || y >= h) return;
	uchar4 v = surf2Dread<uchar4>(in, x * 4, y);
	surf2Dwrite(make_uchar4(255 - v.x, 255 - v.y, 255 - v.z, 255 - v.w), out, x * 4, y);
}

extern "C" __global__ void sample(cudaSurfaceObject_t img, unsigned int sampler, int w, int h, const float2 *coords, float4 *out, int n) {
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n) return;
	float2 c = coords[i];
	if (sampler & 1) { c.x *= w; c.y *= h; }
	int x = (int)floorf(c.x), y = (int)floorf(c.y);
	unsigned addressing = (sampler >> 2) & 7;
	if (addressing == 1) { x = min(max(x, 0), w - 1); y = min(max(y, 0), h - 1); }
	out[i] = surf2Dread<float4>(img, x * (int)sizeof(float4), y, cudaBoundaryModeZero);
}
`

func (f *imgFixture) program(t *testing.T) *ur.Program {
	t.Helper()
	p, err := f.ctx.NewProgramFromSource(imageKernels)
	if errors.Is(err, ur.ErrUnsupportedFeature) {
		t.Skipf("CUDA C needs NVRTC: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Release() })
	if err := p.Build(""); err != nil {
		log, _ := p.BuildLog(f.dev)
		t.Fatalf("Build: %v\n%s", err, log)
	}
	return p
}

func (f *imgFixture) kernel(t *testing.T, p *ur.Program, name string) *ur.Kernel {
	t.Helper()
	k, err := p.NewKernel(name)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { k.Release() })
	return k
}

func must(t *testing.T, what string, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// TestImageKernelSurfaces (GPU): a kernel reads one image with surf2Dread
// and writes another with surf2Dwrite, each set with SetArgMem.
func TestImageKernelSurfaces(t *testing.T) {
	f := newImgFixture(t)
	k := f.kernel(t, f.program(t), "invert")
	format := ur.ImageFormat{Order: ur.ChannelRGBA, Type: ur.ChannelUnsignedInt8}
	d := ur.ImageDesc{Type: ur.Image2D, Width: 8, Height: 2}
	host := imgPixels(format, 16, 5)
	in := f.image(t, format, d, host)
	out := f.image(t, format, d, nil)
	must(t, "SetArgMem in", k.SetArgMem(0, in))
	must(t, "SetArgMem out", k.SetArgMem(1, out))
	must(t, "SetArgInt32", k.SetArgInt32(2, 8))
	must(t, "SetArgInt32", k.SetArgInt32(3, 2))
	must(t, "Launch", f.q.Launch(k, ur.Range2D(8, 2)))
	got := f.readAll(t, out)
	for i := range got {
		if got[i] != 255-host[i] {
			t.Fatalf("byte %d = %d, want %d", i, got[i], 255-host[i])
		}
	}
}

// TestImageKernelSampler (GPU): a kernel takes a sampler as an unsigned
// int and applies its normalized-coordinate and addressing bits to
// surface reads.
func TestImageKernelSampler(t *testing.T) {
	f := newImgFixture(t)
	k := f.kernel(t, f.program(t), "sample")
	format := ur.ImageFormat{Order: ur.ChannelRGBA, Type: ur.ChannelFloat}
	const w, h = 4, 4
	host := make([]float32, w*h*4)
	for i := range host {
		host[i] = float32(i)
	}
	img := f.image(t, format, ur.ImageDesc{Type: ur.Image2D, Width: w, Height: h}, ur.AsBytes(host))
	pixel := func(x, y int) [4]float32 { return [4]float32(host[(y*w+x)*4:]) }
	for _, c := range []struct {
		name   string
		desc   ur.SamplerDesc
		coords []float32
		want   [][4]float32
	}{
		{"NormalizedClampToEdge", ur.SamplerDesc{Normalized: true, Addressing: ur.AddressClampToEdge},
			[]float32{0.1, 0.1, 1.5, 0.6, -0.3, 0.9},
			[][4]float32{pixel(0, 0), pixel(3, 2), pixel(0, 3)}},
		{"PixelsClamp", ur.SamplerDesc{Addressing: ur.AddressClamp},
			[]float32{2.5, 1.5, 5, 1, -1, 0},
			[][4]float32{pixel(2, 1), {}, {}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, err := f.ctx.NewSampler(c.desc)
			must(t, "NewSampler", err)
			defer s.Release()
			n := len(c.want)
			coords, err := f.ctx.NewBufferFrom(ur.MemReadOnly, ur.AsBytes(c.coords))
			must(t, "NewBufferFrom", err)
			defer coords.Release()
			out, err := f.ctx.NewBuffer(ur.MemWriteOnly, uint64(n*16))
			must(t, "NewBuffer", err)
			defer out.Release()
			must(t, "SetArgMem image", k.SetArgMem(0, img))
			must(t, "SetArgSampler", k.SetArgSampler(1, s))
			must(t, "SetArgInt32", k.SetArgInt32(2, w))
			must(t, "SetArgInt32", k.SetArgInt32(3, h))
			must(t, "SetArgMem coords", k.SetArgMem(4, coords))
			must(t, "SetArgMem out", k.SetArgMem(5, out))
			must(t, "SetArgInt32", k.SetArgInt32(6, int32(n)))
			must(t, "Launch", f.q.Launch(k, ur.Range1D(uint64(n))))
			got := make([]float32, n*4)
			must(t, "ReadBuffer", f.q.ReadBuffer(out, 0, ur.AsBytes(got)))
			for i, want := range c.want {
				if g := [4]float32(got[4*i:]); g != want {
					t.Errorf("sample %d at (%v, %v) = %v, want %v", i, c.coords[2*i], c.coords[2*i+1], g, want)
				}
			}
		})
	}
}

// imageCopySide is the side of BenchmarkImageCopyVsBuffer's image:
// 4096×4096 RGBA float, 256 MiB.
const imageCopySide = 4096

// BenchmarkImageCopyVsBuffer (GPU) copies 256 MiB on one queue, as a
// 4096×4096 RGBA/FLOAT image to another image (Image: one array-to-array
// cuMemcpy3DAsync) and as a device buffer to another (Buffer: one
// cuMemcpyDtoDAsync), so that image copy bandwidth can be set against
// buffer copy bandwidth: MB/s is the bytes copied (each read once and
// written once) per second, and the target is Image at least 0.9× Buffer.
// Each copy is waited for inside the loop: b.Loop stops the clock when the
// loop ends, so a wait after it would not be timed.
//
//	go test ./adapters/cuda -run '^$' -bench BenchmarkImageCopyVsBuffer -benchtime 20x
func BenchmarkImageCopyVsBuffer(b *testing.B) {
	f := newImgFixture(b)
	const size = imageCopySide * imageCopySide * 16
	b.Run("Image", func(b *testing.B) {
		format := ur.ImageFormat{Order: ur.ChannelRGBA, Type: ur.ChannelFloat}
		d := ur.ImageDesc{Type: ur.Image2D, Width: imageCopySide, Height: imageCopySide}
		src, dst := f.image(b, format, d, nil), f.image(b, format, d, nil)
		region := [3]uint64{imageCopySide, imageCopySide, 1}
		copyOnce := func() {
			ev, err := f.q.EnqueueCopyImage(src, dst, [3]uint64{}, [3]uint64{}, region)
			if err != nil {
				b.Fatal(err)
			}
			ev.Release()
			if err := f.q.Finish(); err != nil {
				b.Fatal(err)
			}
		}
		copyOnce() // first touch of both arrays outside the timing
		b.SetBytes(size)
		for b.Loop() {
			copyOnce()
		}
	})
	b.Run("Buffer", func(b *testing.B) {
		src, err := f.ctx.NewBuffer(ur.MemReadWrite, size)
		if err != nil {
			b.Fatal(err)
		}
		defer src.Release()
		dst, err := f.ctx.NewBuffer(ur.MemReadWrite, size)
		if err != nil {
			b.Fatal(err)
		}
		defer dst.Release()
		copyOnce := func() {
			ev, err := f.q.EnqueueCopy(src, dst, 0, 0, size)
			if err != nil {
				b.Fatal(err)
			}
			ev.Release()
			if err := f.q.Finish(); err != nil {
				b.Fatal(err)
			}
		}
		copyOnce()
		b.SetBytes(size)
		for b.Loop() {
			copyOnce()
		}
	})
}
