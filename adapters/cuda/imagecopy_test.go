package cuda

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/gour-dev/gour/ur"
	"github.com/gour-dev/gour/ur/driver"
)

// The tests of imagecopy.go. Those without "GPU" in their comment run
// anywhere.

// TestImageCopyPTX: the module has an entry point for every image type
// and pixel size it claims, each loading and storing its pixel width with
// its geometry's coordinates, and none for sizes without a kernel.
func TestImageCopyPTX(t *testing.T) {
	ptx := imageCopyPTX()
	if !strings.HasPrefix(ptx, ".version 7.0\n.target sm_52\n.address_size 64\n") {
		t.Errorf("header: %q", ptx[:60])
	}
	for _, g := range surfaceGeometry {
		for _, w := range surfaceWidths {
			name := imageCopyKernelName(g.typ, w.size)
			i := strings.Index(ptx, ".visible .entry "+name+"(")
			if i < 0 {
				t.Fatalf("no entry %s", name)
			}
			body := ptx[i : i+strings.Index(ptx[i:], "\n}\n")]
			for _, want := range []string{
				"suld.b." + g.name + w.vec + ".trap " + w.regs + ", [%src, ",
				"sust.b." + g.name + w.vec + ".trap [%dst, ",
				fmt.Sprintf("mul.lo.u32 %%sx, %%sx, %d;", w.size),
			} {
				if !strings.Contains(body, want) {
					t.Errorf("%s lacks %q", name, want)
				}
			}
		}
	}
	for _, size := range []uint64{1, 2, 3, 12} {
		if name := imageCopyKernelName(driver.Image2D, size); name != "" {
			t.Errorf("a kernel for %d-byte pixels: %s", size, name)
		}
	}
	if strings.Count(ptx, "{") != strings.Count(ptx, "}") {
		t.Error("unbalanced braces")
	}
}

// TestImageCopyMode: GOUR_CUDA_IMAGE_COPY reads as auto unless it says
// kernel or driver, in any case.
func TestImageCopyMode(t *testing.T) {
	for env, want := range map[string]string{"": "auto", "kernel": "kernel", "driver": "driver", "fast": "auto", " Kernel ": "kernel"} {
		t.Setenv("GOUR_CUDA_IMAGE_COPY", env)
		if got := imageCopyMode(); got != want {
			t.Errorf("GOUR_CUDA_IMAGE_COPY=%q: %s, want %s", env, got, want)
		}
	}
}

// TestImageCopyKernel (GPU): with GOUR_CUDA_IMAGE_COPY=kernel, copies of
// sub-regions at other origins, between images of every type and pixel
// size the kernels take, reproduce every byte (random bits: NaN payloads
// and denormals in the float formats) and leave the rest of the
// destination as it was; the kernel path is the one taken.
func TestImageCopyKernel(t *testing.T) {
	f := newImgFixture(t)
	t.Setenv("GOUR_CUDA_IMAGE_COPY", "kernel")
	formats := []ur.ImageFormat{
		{Order: ur.ChannelRGBA, Type: ur.ChannelUnormInt8},   // 4 bytes
		{Order: ur.ChannelR, Type: ur.ChannelUnsignedInt32},  // 4
		{Order: ur.ChannelRG, Type: ur.ChannelFloat},         // 8
		{Order: ur.ChannelRGBA, Type: ur.ChannelHalfFloat},   // 8
		{Order: ur.ChannelRGBA, Type: ur.ChannelFloat},       // 16
		{Order: ur.ChannelRGBA, Type: ur.ChannelSignedInt32}, // 16
		{Order: ur.ChannelRG, Type: ur.ChannelUnsignedInt8},  // 2: cuMemcpy3DAsync
	}
	shapes := []struct {
		name       string
		d          ur.ImageDesc
		so, do, rg [3]uint64
	}{
		{"1D", ur.ImageDesc{Type: ur.Image1D, Width: 300}, [3]uint64{7, 0, 0}, [3]uint64{40, 0, 0}, [3]uint64{250, 1, 1}},
		{"2D", ur.ImageDesc{Type: ur.Image2D, Width: 70, Height: 33}, [3]uint64{3, 5, 0}, [3]uint64{1, 0, 0}, [3]uint64{60, 21, 1}},
		{"3D", ur.ImageDesc{Type: ur.Image3D, Width: 40, Height: 12, Depth: 5}, [3]uint64{2, 1, 1}, [3]uint64{0, 3, 0}, [3]uint64{35, 9, 4}},
		{"1DArray", ur.ImageDesc{Type: ur.Image1DArray, Width: 100, ArraySize: 6}, [3]uint64{4, 1, 0}, [3]uint64{0, 2, 0}, [3]uint64{90, 4, 1}},
		{"2DArray", ur.ImageDesc{Type: ur.Image2DArray, Width: 45, Height: 10, ArraySize: 4}, [3]uint64{0, 2, 1}, [3]uint64{5, 0, 0}, [3]uint64{33, 8, 3}},
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for _, format := range formats {
		for _, s := range shapes {
			t.Run(s.name+"/"+format.String(), func(t *testing.T) {
				ext := s.d.Extent()
				px := format.PixelSize()
				n := ext[0] * ext[1] * ext[2] * px
				src, dst := make([]byte, n), make([]byte, n)
				for i := range src {
					src[i], dst[i] = byte(rng.Uint32()), byte(rng.Uint32())
				}
				si, di := f.image(t, format, s.d, src), f.image(t, format, s.d, dst)
				before := imageCopyKernelLaunches.Load()
				if err := waitEv(f.q.EnqueueCopyImage(si, di, s.so, s.do, s.rg)); err != nil {
					t.Fatal(err)
				}
				launched := imageCopyKernelLaunches.Load() - before
				if want := uint64(0); imageCopyKernelName(driver.ImageType(s.d.Type), px) != "" {
					want = 1
					if launched != want {
						t.Errorf("%d copy kernels launched, want %d", launched, want)
					}
				} else if launched != 0 {
					t.Errorf("%d copy kernels launched for %d-byte pixels", launched, px)
				}
				want := bytes.Clone(dst)
				at := func(o [3]uint64, x, y, z uint64) uint64 {
					return (((o[2]+z)*ext[1]+o[1]+y)*ext[0] + o[0] + x) * px
				}
				for z := range s.rg[2] {
					for y := range s.rg[1] {
						for x := range s.rg[0] {
							copy(want[at(s.do, x, y, z):][:px], src[at(s.so, x, y, z):][:px])
						}
					}
				}
				if got := f.readAll(t, di); !bytes.Equal(got, want) {
					i := 0
					for i < len(got) && got[i] == want[i] {
						i++
					}
					t.Fatalf("byte %d (pixel %d) = %#x, want %#x", i, uint64(i)/px, got[i], want[i])
				}
			})
		}
	}
}
