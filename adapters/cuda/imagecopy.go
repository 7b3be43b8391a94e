package cuda

import (
	"fmt"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/gour-dev/gour/adapters/cuda/internal/cu"
	"github.com/gour-dev/gour/ur/driver"
)

// Image-to-image copies through the surface units.
//
// cuMemcpy3DAsync between two CUDA arrays runs at a fraction of a device
// buffer copy of the same bytes, where a kernel that reads each pixel
// with suld and writes it with sust runs at nearly a buffer copy's speed
// (examples/imagecopy; docs/benchmarks.md, "Images on CUDA, and image
// copies by kernel"). So a copy between two
// images of one device, of the same type, with pixels of 4, 8 or 16 bytes,
// is such a kernel: raw bits, whatever the format. The PTX is written
// here and loaded once per device context, on the first copy that takes
// it; if the driver refuses it, copies stay on cuMemcpy3DAsync.
//
// GOUR_CUDA_IMAGE_COPY picks the path: auto (the default: the kernel for
// copies of at least imageCopyKernelMin bytes, so that small copies never
// pay the module's load), kernel (wherever it applies, as the tests use
// it) or driver (cuMemcpy3DAsync always).

// imageCopyKernelMin is the smallest copy auto gives the kernel.
const imageCopyKernelMin = 1 << 20

// imageCopyMode is GOUR_CUDA_IMAGE_COPY: "kernel" or "driver" (read as
// the OpenCL adapter reads GOUR_OPENCL_IMAGE_COPY: case and spaces aside),
// else "auto". It is read at each copy, a map lookup beside the copy's
// driver calls: a context of the Unified Runtime shares the device's
// primary context, so there is no later point of its own to read it at.
func imageCopyMode() string {
	switch m := strings.ToLower(strings.TrimSpace(os.Getenv("GOUR_CUDA_IMAGE_COPY"))); m {
	case "kernel", "driver":
		return m
	default:
		return "auto"
	}
}

// surfaceGeometry is how PTX's suld and sust address an image type: the
// geometry's name and its coordinate vector, from the byte offset along
// x (%x), the row (%y) and the slice or layer (%z).
var surfaceGeometry = []struct {
	typ          driver.ImageType
	name, coords string
}{
	{driver.Image1D, "1d", "{%x}"},
	{driver.Image2D, "2d", "{%x, %y}"},
	{driver.Image3D, "3d", "{%x, %y, %z, %z}"},
	{driver.Image1DArray, "a1d", "{%y, %x}"}, // a 1D array's layer is the region's y
	{driver.Image2DArray, "a2d", "{%z, %x, %y, %y}"},
}

// surfaceWidths are the pixel sizes the kernels copy, with the type of
// suld and sust and the 32-bit registers that hold one pixel.
var surfaceWidths = []struct {
	size      uint64
	vec, regs string
}{
	{4, ".b32", "{%v0}"},
	{8, ".v2.b32", "{%v0, %v1}"},
	{16, ".v4.b32", "{%v0, %v1, %v2, %v3}"},
}

// imageCopyKernelName is the entry point copying pixels of size bytes
// between images of type t, "" where there is none.
func imageCopyKernelName(t driver.ImageType, size uint64) string {
	for _, g := range surfaceGeometry {
		for _, w := range surfaceWidths {
			if g.typ == t && w.size == size {
				return fmt.Sprintf("gour_copy_image_%s_%d", g.name, size)
			}
		}
	}
	return ""
}

// imageCopyPTX is the module of every copy kernel. Each takes the two
// surface objects, the source and destination origins in pixels and the
// region, and copies the pixel of its thread (x, y, z) in the region.
func imageCopyPTX() string {
	var b strings.Builder
	b.WriteString(".version 7.0\n.target sm_52\n.address_size 64\n")
	for _, g := range surfaceGeometry {
		for _, w := range surfaceWidths {
			src := strings.NewReplacer("%x", "%sx", "%y", "%sy", "%z", "%sz").Replace(g.coords)
			dst := strings.NewReplacer("%x", "%dx", "%y", "%dy", "%z", "%dz").Replace(g.coords)
			fmt.Fprintf(&b, `
.visible .entry %s(.param .u64 src, .param .u64 dst,
	.param .u32 sx0, .param .u32 sy0, .param .u32 sz0,
	.param .u32 dx0, .param .u32 dy0, .param .u32 dz0,
	.param .u32 w, .param .u32 h, .param .u32 d)
{
	.reg .pred %%out;
	.reg .b32 %%x, %%y, %%z, %%a, %%b, %%w, %%h, %%d;
	.reg .b32 %%sx, %%sy, %%sz, %%dx, %%dy, %%dz;
	.reg .b32 %%v0, %%v1, %%v2, %%v3;
	.reg .b64 %%src, %%dst;
	mov.u32 %%a, %%ctaid.x; mov.u32 %%b, %%ntid.x; mov.u32 %%x, %%tid.x; mad.lo.u32 %%x, %%a, %%b, %%x;
	mov.u32 %%a, %%ctaid.y; mov.u32 %%b, %%ntid.y; mov.u32 %%y, %%tid.y; mad.lo.u32 %%y, %%a, %%b, %%y;
	mov.u32 %%z, %%ctaid.z;
	ld.param.u32 %%w, [w]; ld.param.u32 %%h, [h]; ld.param.u32 %%d, [d];
	setp.ge.u32 %%out, %%x, %%w;
	setp.ge.or.u32 %%out, %%y, %%h, %%out;
	setp.ge.or.u32 %%out, %%z, %%d, %%out;
	@%%out bra DONE;
	ld.param.u64 %%src, [src]; ld.param.u64 %%dst, [dst];
	ld.param.u32 %%sx, [sx0]; ld.param.u32 %%sy, [sy0]; ld.param.u32 %%sz, [sz0];
	ld.param.u32 %%dx, [dx0]; ld.param.u32 %%dy, [dy0]; ld.param.u32 %%dz, [dz0];
	add.u32 %%sx, %%sx, %%x; mul.lo.u32 %%sx, %%sx, %d; add.u32 %%sy, %%sy, %%y; add.u32 %%sz, %%sz, %%z;
	add.u32 %%dx, %%dx, %%x; mul.lo.u32 %%dx, %%dx, %d; add.u32 %%dy, %%dy, %%y; add.u32 %%dz, %%dz, %%z;
	suld.b.%s%s.trap %s, [%%src, %s];
	sust.b.%s%s.trap [%%dst, %s], %s;
DONE:
	ret;
}
`, imageCopyKernelName(g.typ, w.size), w.size, w.size, g.name, w.vec, w.regs, src, g.name, w.vec, dst, w.regs)
		}
	}
	return b.String()
}

// imageCopyKernelLaunches counts the copies made by a kernel, for tests
// to tell which path a copy took.
var imageCopyKernelLaunches atomic.Uint64

// imageCopier is a device context's module of copy kernels, loaded once.
type imageCopier struct {
	once sync.Once
	fns  map[string]cu.Function
	err  error
}

// imageCopyKernels loads the module on first use, the context current.
func (d *device) imageCopyKernels() (map[string]cu.Function, error) {
	c := &d.imageCopy
	c.once.Do(func() {
		if err := d.bindBusy(); err != nil {
			c.err = err
			return
		}
		defer d.unbindBusy()
		m, _, log, r := d.a.cu.ModuleLoadDataEx([]byte(imageCopyPTX()), true)
		if r != cu.Success {
			c.err = fmt.Errorf("%w: %s", cuError("cuModuleLoadDataEx (image copy kernels)", r), log)
			return
		}
		fns := map[string]cu.Function{}
		for _, g := range surfaceGeometry {
			for _, w := range surfaceWidths {
				name := imageCopyKernelName(g.typ, w.size)
				fn, r := d.a.cu.ModuleGetFunction(m, name)
				if r != cu.Success {
					c.err = cuError("cuModuleGetFunction "+name, r)
					d.a.cu.ModuleUnload(m)
					return
				}
				fns[name] = fn
			}
		}
		c.fns = fns
	})
	return c.fns, c.err
}

// imageCopyArgs are a copy kernel's parameters, on the heap for the
// launch (cu.Lib.LaunchKernel).
type imageCopyArgs struct {
	src, dst  cu.SurfObject
	so, do, r [3]uint32
	params    [11]unsafe.Pointer
}

// kernelImageCopy is the copy kernel for this copy, or 0 where the copy
// stays on cuMemcpy3DAsync: another mode, images of different types or
// devices, a pixel size without a kernel, a small copy under auto, or a
// module the driver refused.
func (q *queue) kernelImageCopy(src, dst driver.Mem, si, di *image, region [3]uint64) cu.Function {
	mode := imageCopyMode()
	if mode == "driver" || si.typ != di.typ || src.(*mem).dev != q.dev || dst.(*mem).dev != q.dev {
		return 0
	}
	name := imageCopyKernelName(si.typ, si.pixel)
	if name == "" {
		return 0
	}
	if mode == "auto" && region[0]*region[1]*region[2]*si.pixel < imageCopyKernelMin {
		return 0
	}
	fns, err := q.dev.imageCopyKernels()
	if err != nil {
		return 0
	}
	return fns[name]
}

// launchImageCopy enqueues fn over region: a thread a pixel, blocks of
// 32×8 (256 along x for a 1D image), the grid's z the region's.
func (q *queue) launchImageCopy(fn cu.Function, si, di *image, srcOrigin, dstOrigin, region [3]uint64, wait []driver.Event, wantEvent bool) (driver.Event, error) {
	a := &imageCopyArgs{src: si.surf, dst: di.surf}
	for i := range 3 {
		a.so[i], a.do[i], a.r[i] = uint32(srcOrigin[i]), uint32(dstOrigin[i]), uint32(region[i])
	}
	a.params = [11]unsafe.Pointer{unsafe.Pointer(&a.src), unsafe.Pointer(&a.dst),
		unsafe.Pointer(&a.so[0]), unsafe.Pointer(&a.so[1]), unsafe.Pointer(&a.so[2]),
		unsafe.Pointer(&a.do[0]), unsafe.Pointer(&a.do[1]), unsafe.Pointer(&a.do[2]),
		unsafe.Pointer(&a.r[0]), unsafe.Pointer(&a.r[1]), unsafe.Pointer(&a.r[2])}
	bx, by := uint32(32), uint32(8)
	if region[1] == 1 && region[2] == 1 {
		bx, by = 256, 1
	}
	gx, gy := (a.r[0]+bx-1)/bx, (a.r[1]+by-1)/by
	imageCopyKernelLaunches.Add(1)
	return q.enqueue("cuLaunchKernel (image copy)", false, wait, wantEvent, func(s cu.Stream) cu.Result {
		return q.cu.LaunchKernel(fn, gx, gy, a.r[2], bx, by, 1, 0, s, &a.params[0], nil)
	})
}
