package opencl

import (
	"fmt"
	"math"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/gour-dev/gour/adapters/opencl/internal/cl"
	"github.com/gour-dev/gour/ur/driver"
)

// This file copies images with a kernel of the adapter's own where that
// beats clEnqueueCopyImage: NVIDIA's driver copies an image at a fraction
// of the speed of a buffer copy of the same bytes, and a kernel reading
// and writing each pixel at nearly a buffer copy's. Elsewhere the
// driver's copy stays: PoCL's beats such a kernel (docs/benchmarks.md,
// "Images on CUDA, and image copies by kernel").

// imageCopyEnv names the environment variable that picks how CopyImage
// copies: "auto" (the default), "kernel" or "driver".
const imageCopyEnv = "GOUR_OPENCL_IMAGE_COPY"

// imageCopyMode is imageCopyEnv's value.
type imageCopyMode uint32

const (
	// imageCopyAuto: the kernel on NVIDIA's platform for regions of at
	// least imageCopyMinBytes, the driver's copy elsewhere.
	imageCopyAuto imageCopyMode = iota + 1
	// imageCopyKernel: the kernel wherever the format and image types
	// allow it, for tests and measurements.
	imageCopyKernel
	// imageCopyDriver: clEnqueueCopyImage always.
	imageCopyDriver
)

// imageCopyMinBytes is the smallest region auto copies with the kernel:
// below it the driver's copy is quick anyway, and a small copy never pays
// for building the program.
const imageCopyMinBytes = 1 << 20

func parseImageCopyMode(s string) imageCopyMode {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "kernel":
		return imageCopyKernel
	case "driver":
		return imageCopyDriver
	}
	return imageCopyAuto
}

// imageCopyBuilds and imageCopyKernelLaunches count the programs built
// and the copies made by a kernel, for tests to tell which path a copy
// took.
var imageCopyBuilds, imageCopyKernelLaunches atomic.Uint64

// imageKind is an image type the kernels copy, indexing their table.
type imageKind uint8

const (
	kind1D imageKind = iota
	kind1DArray
	kind2D
	kind2DArray
	kind3D
	imageKinds
)

// imageKindInfo is, for each kind, its OpenCL C type,
// the components of the int4 pixel position its coordinate takes (int,
// int2 or int4: the layer of a 1D array is .y, of a 2D array .z) and the
// dimensions of the range.
var imageKindInfo = [imageKinds]struct {
	clType, swiz string
	dims         uint32
}{
	kind1D:      {"image1d_t", ".x", 1},
	kind1DArray: {"image1d_array_t", ".xy", 2},
	kind2D:      {"image2d_t", ".xy", 2},
	kind2DArray: {"image2d_array_t", "", 3},
	kind3D:      {"image3d_t", "", 3},
}

// pixelAccess is the read_image*/write_image* pair a channel type's
// copy goes through.
type pixelAccess uint8

const (
	accessF pixelAccess = iota
	accessI
	accessUI
	pixelAccesses
	accessNone = pixelAccesses
)

var accessSuffix = [pixelAccesses]string{accessF: "f", accessI: "i", accessUI: "ui"}

// exactAccess is the access that round-trips every value of a channel
// type bit for bit; accessNone for the others, which keep the driver's
// copy: signed normalized values have two encodings of -1, packed types
// are not read and written per channel, and half floats go through float,
// which quiets signalling NaNs (PoCL 3.1 turns 0x7c01 into 0x7e01; the
// read_imageh that would not convert needs cl_khr_fp16, which neither
// PoCL nor NVIDIA has).
func exactAccess(t driver.ChannelType) pixelAccess {
	switch t {
	case driver.ChannelFloat, driver.ChannelUnormInt8, driver.ChannelUnormInt16:
		return accessF
	case driver.ChannelSignedInt8, driver.ChannelSignedInt16, driver.ChannelSignedInt32:
		return accessI
	case driver.ChannelUnsignedInt8, driver.ChannelUnsignedInt16, driver.ChannelUnsignedInt32:
		return accessUI
	}
	return accessNone
}

// exactOrder reports whether a kernel copies every byte of a pixel of
// order o: sRGB is converted on reading and writing, padding channels
// (Rx, RGx, RGBx) are not written, and intensity and luminance replicate
// one channel, so those keep the driver's copy too.
func exactOrder(o driver.ChannelOrder) bool {
	switch o {
	case driver.ChannelA, driver.ChannelR, driver.ChannelRG, driver.ChannelRA, driver.ChannelRGBA,
		driver.ChannelBGRA, driver.ChannelARGB, driver.ChannelABGR:
		return true
	}
	return false
}

func copyKernelName(k imageKind, a pixelAccess) string {
	return "gour_copy_" + strings.TrimSuffix(imageKindInfo[k].clType, "_t") + "_" + accessSuffix[a]
}

// imageCopySource is the OpenCL C of the copy kernels, one per image kind
// (3D with writes3D only) and access. Each work-item copies the pixel at
// its global id, when inside the region n (the range is rounded up to
// whole work-groups), from src at so to dst at dso, with the sampler-less reads
// of OpenCL 1.2, which take integer coordinates and filter nothing.
func imageCopySource(writes3D bool) string {
	var b strings.Builder
	if writes3D {
		b.WriteString("#pragma OPENCL EXTENSION cl_khr_3d_image_writes : enable\n")
	}
	for k := range imageKinds {
		if k == kind3D && !writes3D {
			continue
		}
		info := imageKindInfo[k]
		for a := range pixelAccesses {
			fmt.Fprintf(&b, `__kernel void %s(__read_only %s src, __write_only %s dst, int4 so, int4 dso, int4 n) {
	int4 p = (int4)((int)get_global_id(0), (int)get_global_id(1), (int)get_global_id(2), 0);
	if (p.x >= n.x || p.y >= n.y || p.z >= n.z) return;
	write_image%s(dst, (dso + p)%s, read_image%s(src, (so + p)%s));
}
`, copyKernelName(k, a), info.clType, info.clType, accessSuffix[a], info.swiz, accessSuffix[a], info.swiz)
		}
	}
	return b.String()
}

// imageMeta is what a copy needs to know of an image, kept when it is
// made (NewImage): an image from a native handle has none, and its
// copies stay on the driver.
type imageMeta struct {
	format driver.ImageFormat
	kind   imageKind
	// readable and writable: a kernel may take the image as __read_only
	// (not made write-only) and __write_only (not made read-only).
	readable, writable bool
}

// imageKindOf is the kind of an image type.
var imageKindOf = map[driver.ImageType]imageKind{
	driver.Image1D: kind1D, driver.Image1DArray: kind1DArray, driver.Image2D: kind2D,
	driver.Image2DArray: kind2DArray, driver.Image3D: kind3D,
}

// imageCopier is a context's copy kernels, set up on the first image copy
// and built on the first that wants them; Context.Release releases them.
type imageCopier struct {
	setup    sync.Once
	mode     imageCopyMode
	nvidia   bool // the context's platform is NVIDIA's
	writes3D bool // every device of the context lists cl_khr_3d_image_writes

	build sync.Once
	built bool // the program and every kernel were made; false after a failure
	// driverLocal: a kernel takes fewer work-items a group than
	// copyLocal's on some device, so the driver picks the groups.
	driverLocal bool
	program     cl.Program
	kernels     [imageKinds][pixelAccesses]cl.Kernel

	// mu is held from the first clSetKernelArg to clEnqueueNDRangeKernel:
	// a kernel's arguments are state, shared by the context's queues.
	// Copies big enough for the kernel take long on the device, so
	// holding it over two enqueues costs nothing measurable.
	mu   sync.Mutex
	args imageCopyArgs
}

// imageCopyArgs are the kernel's origin arguments and the range's sizes,
// in the copier, which lives in the heap, for C.
type imageCopyArgs struct {
	srcOrigin, dstOrigin, region [4]int32
	global, local                [3]uintptr
}

// copyLocal is the work-group shape of a copy of dims dimensions: rows of
// 32 pixels, 8 rows a group, which NVIDIA's driver runs at about twice
// the speed of its own choice of groups (docs/benchmarks.md, "Images on
// CUDA, and image copies by kernel").
func copyLocal(dims uint32) [3]uintptr {
	if dims == 1 {
		return [3]uintptr{256, 1, 1}
	}
	return [3]uintptr{32, 8, 1}
}

// imageCopier returns c's copier, its mode read from the environment on
// the context's first copy.
func (c *context) imageCopier() *imageCopier {
	ic := &c.copier
	ic.setup.Do(func() {
		ic.mode = parseImageCopyMode(os.Getenv(imageCopyEnv))
		ic.writes3D = len(c.order) > 0
		for _, d := range c.order {
			ic.nvidia = ic.nvidia || strings.Contains(d.p.info.Vendor, "NVIDIA") || strings.Contains(d.p.info.Name, "NVIDIA")
			ic.writes3D = ic.writes3D && d.hasExtension("cl_khr_3d_image_writes")
		}
	})
	return ic
}

// kernelsOf makes the program and its kernels in c once; a failure is
// kept, and the driver's copy used from then on.
func (ic *imageCopier) kernelsOf(c *context) bool {
	ic.build.Do(func() {
		lib := c.a.lib
		p, st := lib.CreateProgramWithSource(c.handle, imageCopySource(ic.writes3D))
		if st != cl.Success {
			return
		}
		ic.program = p
		imageCopyBuilds.Add(1)
		if lib.BuildProgram(p, nil, "") != cl.Success {
			ic.release(lib)
			return
		}
		for k := range imageKinds {
			if k == kind3D && !ic.writes3D {
				continue
			}
			for a := range pixelAccesses {
				h, st := lib.CreateKernel(p, copyKernelName(k, a))
				if st != cl.Success {
					ic.release(lib)
					return
				}
				ic.kernels[k][a] = h
				for _, d := range c.order {
					if b, st := lib.KernelWorkGroupInfo(h, d.handle, cl.KernelWorkGroupSize); st != cl.Success || cl.Uintptr(b) < 256 {
						ic.driverLocal = true
					}
				}
			}
		}
		ic.built = true
	})
	return ic.built
}

// release releases the kernels and the program, if any: the program
// holds a reference to the cl_context. Enqueued copies keep their kernels
// alive in OpenCL, so they finish first.
func (ic *imageCopier) release(lib *cl.Lib) {
	for k := range ic.kernels {
		for a, h := range ic.kernels[k] {
			if h != 0 {
				lib.ReleaseKernel(h)
				ic.kernels[k][a] = 0
			}
		}
	}
	if ic.program != 0 {
		lib.ReleaseProgram(ic.program)
		ic.program = 0
	}
	ic.built = false
}

// kernelFor returns the kernel copying r from src to dst, or false where
// the driver's copy is to be used: by the mode, for a format or image
// types the kernels do not copy exactly, or where the program cannot be
// built.
func (ic *imageCopier) kernelFor(c *context, src, dst *mem, srcOrigin [3]uint64, r driver.ImageRegion) (cl.Kernel, imageKind, bool) {
	if ic.mode == imageCopyDriver || ic.mode == imageCopyAuto && !ic.nvidia {
		return 0, 0, false
	}
	si, di := src.image, dst.image
	if si == nil || di == nil || si.kind != di.kind || !si.readable || !di.writable || si.kind == kind3D && !ic.writes3D {
		return 0, 0, false
	}
	f := si.format
	a := exactAccess(f.Type)
	if !exactOrder(f.Order) || a == accessNone {
		return 0, 0, false
	}
	n := r.Region[0] * r.Region[1] * r.Region[2]
	if n == 0 || ic.mode == imageCopyAuto && n*f.PixelSize() < imageCopyMinBytes {
		return 0, 0, false
	}
	for i := range 3 {
		if max(srcOrigin[i], r.Origin[i])+r.Region[i] > math.MaxInt32 {
			return 0, 0, false
		}
	}
	if !ic.kernelsOf(c) {
		return 0, 0, false
	}
	return ic.kernels[si.kind][a], si.kind, true
}

// copyImageKernel enqueues the copy through a kernel and reports true, or
// reports false having enqueued nothing, for the driver's copy.
func (q *queue) copyImageKernel(src, dst *mem, srcOrigin [3]uint64, r driver.ImageRegion, wait []driver.Event, wantEvent bool) (driver.Event, bool, error) {
	ic := q.ctx.imageCopier()
	k, kind, ok := ic.kernelFor(q.ctx, src, dst, srcOrigin, r)
	if !ok {
		return nil, false, nil
	}
	ic.mu.Lock()
	defer ic.mu.Unlock()
	args := &ic.args
	dims := imageKindInfo[kind].dims
	local := copyLocal(dims)
	for i := range 3 {
		args.srcOrigin[i], args.dstOrigin[i], args.region[i] = int32(srcOrigin[i]), int32(r.Origin[i]), int32(r.Region[i])
		args.global[i], args.local[i] = uintptr(r.Region[i]), local[i]
		if !ic.driverLocal {
			args.global[i] = (args.global[i] + local[i] - 1) / local[i] * local[i]
		}
	}
	var localPtr *uintptr
	if !ic.driverLocal {
		localPtr = &args.local[0]
	}
	// A failure to set an argument leaves nothing enqueued: the driver's
	// copy still can, and the caller never sees it.
	if q.lib.SetKernelArg(k, 0, unsafe.Sizeof(src.handle), unsafe.Pointer(&src.handle)) != cl.Success ||
		q.lib.SetKernelArg(k, 1, unsafe.Sizeof(dst.handle), unsafe.Pointer(&dst.handle)) != cl.Success ||
		q.lib.SetKernelArg(k, 2, unsafe.Sizeof(args.srcOrigin), unsafe.Pointer(&args.srcOrigin)) != cl.Success ||
		q.lib.SetKernelArg(k, 3, unsafe.Sizeof(args.dstOrigin), unsafe.Pointer(&args.dstOrigin)) != cl.Success ||
		q.lib.SetKernelArg(k, 4, unsafe.Sizeof(args.region), unsafe.Pointer(&args.region)) != cl.Success {
		return nil, false, nil
	}
	imageCopyKernelLaunches.Add(1)
	e, ev := q.newEvent(wantEvent)
	var g *launchGuard
	if q.ctx.guardsLaunches() {
		g = guardFor("gour_copy") // every copy kernel: their launches are rare
	}
	g.enter(q)
	st := q.lib.EnqueueNDRangeKernel(q.handle, k, dims, nil, &args.global[0], localPtr, waitList(wait), ev)
	g.exit(q, st)
	ret, err := q.result("clEnqueueNDRangeKernel (image copy)", e, st)
	return ret, true, err
}
