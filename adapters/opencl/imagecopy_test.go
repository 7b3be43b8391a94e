package opencl

import (
	"bytes"
	ctxpkg "context"
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"

	"github.com/gour-dev/gour/internal/harness/testenv"
	"github.com/gour-dev/gour/ur"
)

// forceImageCopyMode gives the contexts made during the test mode m
// (read on a context's first image copy).
func forceImageCopyMode(t *testing.T, m string) {
	t.Setenv(imageCopyEnv, m)
}

// kernelCopies counts the copies made by the kernel from now on.
func kernelCopies() func() uint64 {
	before := imageCopyKernelLaunches.Load()
	return func() uint64 { return imageCopyKernelLaunches.Load() - before }
}

// imageCopyContext is a context and queue of the first OpenCL device; the
// test skips where it has no images.
func imageCopyContext(t *testing.T) (*ur.Context, *ur.Queue) {
	t.Helper()
	devs := testenv.MustHaveDevice(t, Name)
	ctx, q := testenv.ContextQueue(t, devs[0])
	if _, err := ctx.SupportedImageFormats(ur.MemReadWrite, ur.Image2D); err != nil {
		if errors.Is(err, ur.ErrUnsupportedFeature) {
			t.Skipf("no images: %v", err)
		}
		t.Fatal(err)
	}
	return ctx, q
}

// copyShape is an image shape with the box copied out of it.
type copyShape struct {
	name                         string
	desc                         ur.ImageDesc
	srcOrigin, dstOrigin, region [3]uint64
}

var copyShapes = []copyShape{
	{"1D", ur.ImageDesc{Type: ur.Image1D, Width: 128},
		[3]uint64{3, 0, 0}, [3]uint64{21, 0, 0}, [3]uint64{100, 1, 1}},
	{"1DArray", ur.ImageDesc{Type: ur.Image1DArray, Width: 64, ArraySize: 4},
		[3]uint64{2, 1, 0}, [3]uint64{17, 2, 0}, [3]uint64{40, 2, 1}},
	{"2D", ur.ImageDesc{Type: ur.Image2D, Width: 24, Height: 10},
		[3]uint64{3, 2, 0}, [3]uint64{5, 1, 0}, [3]uint64{15, 6, 1}},
	{"2DArray", ur.ImageDesc{Type: ur.Image2DArray, Width: 16, Height: 8, ArraySize: 4},
		[3]uint64{1, 2, 1}, [3]uint64{3, 1, 2}, [3]uint64{10, 5, 2}},
	{"3D", ur.ImageDesc{Type: ur.Image3D, Width: 16, Height: 8, Depth: 4},
		[3]uint64{1, 2, 1}, [3]uint64{3, 1, 2}, [3]uint64{10, 5, 2}},
}

// copyFormat is a format with the bytes its copied pixels take, in order:
// the values a copy is most likely to change.
type copyFormat struct {
	format ur.ImageFormat
	stream func(n int, r *rand.Rand) []byte
	kernel bool // the kernel copies it (else the driver)
}

func words32(special []uint32) func(int, *rand.Rand) []byte {
	return func(n int, r *rand.Rand) []byte {
		b := make([]byte, n)
		for i := 0; i+4 <= n; i += 4 {
			w := r.Uint32()
			if j := i / 4; j%2 == 0 {
				w = special[(j/2)%len(special)]
			}
			binary.NativeEndian.PutUint32(b[i:], w)
		}
		return b
	}
}

func words16(special []uint16, step uint16) func(int, *rand.Rand) []byte {
	return func(n int, _ *rand.Rand) []byte {
		b := make([]byte, n)
		for i := 0; i+2 <= n; i += 2 {
			j := i / 2
			w := uint16(j) * step
			if j < len(special) {
				w = special[j]
			}
			binary.NativeEndian.PutUint16(b[i:], w)
		}
		return b
	}
}

// everyByte is 0, 1, ..., 255, 0, ...: every value of an 8-bit channel.
func everyByte(n int, _ *rand.Rand) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i)
	}
	return b
}

var copyFormats = []copyFormat{
	{ur.ImageFormat{Order: ur.ChannelRGBA, Type: ur.ChannelFloat}, words32([]uint32{
		0x7fc00001, 0x7f800001, 0xffc12345, 0x7fbfffff, 0xff800001, // NaNs with payloads, quiet and signalling
		0x80000000, 0x00000000, // -0, +0
		0x00000001, 0x807fffff, 0x00400000, // denormals
		0x7f800000, 0xff800000, // infinities
		0x3f800000, 0xc0490fdb,
	}), true},
	// Not the kernel's: read_imagef quiets a signalling half NaN.
	{ur.ImageFormat{Order: ur.ChannelRGBA, Type: ur.ChannelHalfFloat}, words16([]uint16{
		0x7e01, 0x7c01, 0xfe55, 0x7dff, // NaNs with payloads, quiet and signalling
		0x8000, 0x0000, 0x0001, 0x83ff, 0x7c00, 0xfc00, 0x3c00,
	}, 0x9e37), false},
	{ur.ImageFormat{Order: ur.ChannelRGBA, Type: ur.ChannelUnormInt8}, everyByte, true},
	{ur.ImageFormat{Order: ur.ChannelR, Type: ur.ChannelUnormInt16}, words16([]uint16{0, 0xffff, 0x8000, 0x7fff, 1}, 0x9e37), true},
	{ur.ImageFormat{Order: ur.ChannelR, Type: ur.ChannelUnsignedInt32}, words32([]uint32{0, 0xffffffff, 0x80000000, 1}), true},
	{ur.ImageFormat{Order: ur.ChannelRG, Type: ur.ChannelSignedInt16}, words16([]uint16{0x8000, 0xffff, 0x7fff, 0, 1}, 0x9e37), true},
	{ur.ImageFormat{Order: ur.ChannelRGBA, Type: ur.ChannelSignedInt16}, words16([]uint16{0x8000, 0xffff, 0x7fff, 0, 1}, 0x9e37), true}, // PoCL has no RG
	{ur.ImageFormat{Order: ur.ChannelRGBA, Type: ur.ChannelSignedInt8}, everyByte, true},
	// Outside the kernels' list: -128 and -127 are both -1.0, so a
	// kernel could turn one into the other. The driver copies it.
	{ur.ImageFormat{Order: ur.ChannelRGBA, Type: ur.ChannelSnormInt8}, everyByte, false},
}

// pixelIndex is the index of pixel p of an image of extent e, tightly
// packed.
func pixelIndex(e, p [3]uint64) uint64 { return (p[2]*e[1]+p[1])*e[0] + p[0] }

// forBox calls fn with every pixel of the box of region at origin, and its
// index in the box, in row order.
func forBox(origin, region [3]uint64, fn func(p [3]uint64, i uint64)) {
	var i uint64
	for z := range region[2] {
		for y := range region[1] {
			for x := range region[0] {
				fn([3]uint64{origin[0] + x, origin[1] + y, origin[2] + z}, i)
				i++
			}
		}
	}
}

// checkCopy makes two images of s and f, copies s's box between them and
// compares every byte of the destination with what it should be.
func checkCopy(t *testing.T, ctx *ur.Context, q *ur.Queue, s copyShape, f copyFormat) {
	t.Helper()
	ps := f.format.PixelSize()
	ext := s.desc.Extent()
	n := ext[0] * ext[1] * ext[2]
	r := rand.New(rand.NewPCG(uint64(s.desc.Type), uint64(f.format.Type)))
	src, dst := make([]byte, n*ps), make([]byte, n*ps)
	for i := range src {
		src[i], dst[i] = byte(r.Uint32()), byte(r.Uint32())
	}
	// The copied pixels take the format's stream, the rest random bytes.
	stream := f.stream(int(s.region[0]*s.region[1]*s.region[2]*ps), r)
	forBox(s.srcOrigin, s.region, func(p [3]uint64, i uint64) {
		copy(src[pixelIndex(ext, p)*ps:][:ps], stream[i*ps:])
	})
	want := bytes.Clone(dst)
	forBox(s.dstOrigin, s.region, func(p [3]uint64, i uint64) {
		copy(want[pixelIndex(ext, p)*ps:][:ps], stream[i*ps:])
	})

	si, err := ctx.NewImage(ur.MemReadWrite, f.format, s.desc, src)
	if errors.Is(err, ur.ErrUnsupportedImageFormat) {
		t.Skipf("%v %s images not supported", f.format, s.name)
	}
	if err != nil {
		t.Fatal(err)
	}
	defer si.Release()
	di, err := ctx.NewImage(ur.MemReadWrite, f.format, s.desc, dst)
	if err != nil {
		t.Fatal(err)
	}
	defer di.Release()
	ev, err := q.EnqueueCopyImage(si, di, s.srcOrigin, s.dstOrigin, s.region)
	if err != nil {
		t.Fatal(err)
	}
	ev.Release()
	got := make([]byte, len(dst))
	if _, err := q.EnqueueReadImage(di, true, [3]uint64{}, ext, 0, 0, got); err != nil {
		t.Fatal(err)
	}
	if i := firstDiff(got, want); i >= 0 {
		p := uint64(i) / ps
		t.Errorf("byte %d (pixel %d, {%d %d %d}) = %#02x, want %#02x; pixel %x, want %x", i, p,
			p%ext[0], p/ext[0]%ext[1], p/ext[0]/ext[1],
			got[i], want[i], got[p*ps:][:ps], want[p*ps:][:ps])
	}
}

func firstDiff(a, b []byte) int {
	for i := range a {
		if a[i] != b[i] {
			return i
		}
	}
	return -1
}

// TestImageCopyKernel copies every class of format the kernels take, and
// one they do not, in every image type, with the kernel forced.
func TestImageCopyKernel(t *testing.T) {
	forceImageCopyMode(t, "kernel")
	ctx, q := imageCopyContext(t)
	copies := kernelCopies()
	for _, s := range copyShapes {
		for _, f := range copyFormats {
			t.Run(fmt.Sprintf("%s/%v_%v", s.name, f.format.Order, f.format.Type), func(t *testing.T) {
				if kernel := exactAccess(f.format.Type) != accessNone; kernel != f.kernel {
					t.Errorf("%v copied by the kernel = %v, want %v", f.format.Type, kernel, f.kernel)
				}
				checkCopy(t, ctx, q, s, f)
			})
		}
	}
	if copies() == 0 {
		t.Error("the kernel copied nothing")
	}
}

// TestImageCopyAutoPoCL: auto leaves PoCL (any platform but NVIDIA's) on
// the driver's copy, so the program is never built, even for a copy past
// imageCopyMinBytes.
func TestImageCopyAutoPoCL(t *testing.T) {
	forceImageCopyMode(t, "auto")
	ctx, q := imageCopyContext(t)
	builds, copies := imageCopyBuilds.Load(), kernelCopies()
	const w, h = 512, 128 // 1 MiB of RGBA float
	s := copyShape{"2D", ur.ImageDesc{Type: ur.Image2D, Width: w, Height: h},
		[3]uint64{}, [3]uint64{}, [3]uint64{w, h, 1}}
	checkCopy(t, ctx, q, s, copyFormats[0])
	info := testenv.MustHaveDevice(t, Name)[0].Platform().Info()
	nvidia := strings.Contains(info.Vendor, "NVIDIA") || strings.Contains(info.Name, "NVIDIA")
	if built := imageCopyBuilds.Load() > builds; built != nvidia || (copies() > 0) != nvidia {
		t.Errorf("auto on an NVIDIA platform = %v: program built = %v, kernel copies %d", nvidia, built, copies())
	}
}

// TestImageCopyWaitEvent orders a write, the kernel's copy and a read
// through wait lists and events only.
func TestImageCopyWaitEvent(t *testing.T) {
	forceImageCopyMode(t, "kernel")
	ctx, q := imageCopyContext(t)
	copies := kernelCopies()
	format := ur.ImageFormat{Order: ur.ChannelRGBA, Type: ur.ChannelUnsignedInt8}
	d := ur.ImageDesc{Type: ur.Image2D, Width: 32, Height: 16}
	region := [3]uint64{32, 16, 1}
	si, err := ctx.NewImage(ur.MemReadWrite, format, d, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer si.Release()
	di, err := ctx.NewImage(ur.MemReadWrite, format, d, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer di.Release()
	src := everyByte(32*16*4, nil)
	wrote, err := q.EnqueueWriteImage(si, false, [3]uint64{}, region, 0, 0, src)
	if err != nil {
		t.Fatal(err)
	}
	defer wrote.Release()
	copied, err := q.EnqueueCopyImage(si, di, [3]uint64{}, [3]uint64{}, region, wrote)
	if err != nil {
		t.Fatal(err)
	}
	defer copied.Release()
	got := make([]byte, len(src))
	read, err := q.EnqueueReadImage(di, false, [3]uint64{}, region, 0, 0, got, copied)
	if err != nil {
		t.Fatal(err)
	}
	defer read.Release()
	if err := read.Wait(ctxpkg.Background()); err != nil {
		t.Fatal(err)
	}
	if err := copied.Wait(ctxpkg.Background()); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, src) {
		t.Errorf("copy read back differs from the image written (first difference at byte %d)", firstDiff(got, src))
	}
	if copies() != 1 {
		t.Errorf("%d copies by the kernel, want 1", copies())
	}
}

// TestImageCopyConcurrent copies on several queues of one context at once:
// the kernels' arguments are shared state.
func TestImageCopyConcurrent(t *testing.T) {
	forceImageCopyMode(t, "kernel")
	ctx, _ := imageCopyContext(t)
	dev := testenv.MustHaveDevice(t, Name)[0]
	var wg sync.WaitGroup
	for g := range 4 {
		q, err := ctx.NewQueue(dev, ur.QueueProperties{})
		if err != nil {
			t.Fatal(err)
		}
		defer q.Release()
		wg.Go(func() {
			s := copyShapes[2]
			s.srcOrigin[0] += uint64(g) // a box of each goroutine's own
			for range 10 {
				checkCopy(t, ctx, q, s, copyFormats[4])
			}
		})
	}
	wg.Wait()
}

func TestImageCopyModeParse(t *testing.T) {
	for s, want := range map[string]imageCopyMode{
		"": imageCopyAuto, "auto": imageCopyAuto, "kernel": imageCopyKernel, " Kernel ": imageCopyKernel,
		"driver": imageCopyDriver, "bogus": imageCopyAuto,
	} {
		if got := parseImageCopyMode(s); got != want {
			t.Errorf("parseImageCopyMode(%q) = %v, want %v", s, got, want)
		}
	}
}
