package opencl

import (
	"fmt"
	"math"
	"os"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"
	"weak"

	"github.com/gour-dev/gour/adapters/opencl/internal/cl"
	"github.com/gour-dev/gour/internal/dl"
	"github.com/gour-dev/gour/ur/driver"
)

// This file copies images with a kernel of the adapter's own where that
// beats clEnqueueCopyImage: NVIDIA's driver copies an 8192×8192 RGBA
// float image at 0.29 of the speed of a buffer copy of the same bytes,
// and a kernel reading and writing each pixel at 0.97 (H100). Elsewhere
// the driver's copy stays: PoCL's runs at 1.23 of a buffer copy, the
// kernel at 0.25.

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

// imageCopyModeOverride, when not 0, is the mode of contexts whose first
// image copy comes after it is set: tests force the kernel with it.
var imageCopyModeOverride atomic.Uint32

// adapterImageCopy is what an adapter finds once for image copies.
type adapterImageCopy struct {
	mode imageCopyMode
	// getImageInfo is clGetImageInfo, which internal/cl does not bind: the
	// driver's images carry no format, and the kernel depends on it. 0
	// where it cannot be found (the kernel is then never used).
	getImageInfo uintptr
}

var adapterImageCopies sync.Map // *adapter → *adapterImageCopy

func (a *adapter) imageCopy() *adapterImageCopy {
	if v, ok := adapterImageCopies.Load(a); ok {
		return v.(*adapterImageCopy)
	}
	ac := &adapterImageCopy{mode: parseImageCopyMode(os.Getenv(imageCopyEnv))}
	// A second handle on the loader already open; it lives as long as
	// the process, as the adapter does.
	if lib, err := dl.Open(a.lib.LibraryName()); err == nil {
		ac.getImageInfo, _ = lib.Lookup("clGetImageInfo")
	}
	v, _ := adapterImageCopies.LoadOrStore(a, ac)
	return v.(*adapterImageCopy)
}

// imageFormat returns img's format (clGetImageInfo, CL_IMAGE_FORMAT).
func (ac *adapterImageCopy) imageFormat(img cl.Mem) (driver.ImageFormat, bool) {
	if ac.getImageInfo == 0 {
		return driver.ImageFormat{}, false
	}
	const imageFormat = 0x1110 // CL_IMAGE_FORMAT
	fr := dl.NewFrame()
	fr.Args = dl.Args{uintptr(img), imageFormat, unsafe.Sizeof(cl.ImageFormat{}), fr.Out(0), 0}
	r, out, _ := fr.Call(ac.getImageInfo)
	if cl.Status(int32(r)) != cl.Success {
		return driver.ImageFormat{}, false
	}
	return fromCLFormat(cl.ImageFormat{Order: uint32(out[0]), Type: uint32(out[0] >> 32)})
}

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

// imageKindInfo is, for each kind, its cl_mem_object_type, OpenCL C type,
// the components of the int4 pixel position its coordinate takes (int,
// int2 or int4: the layer of a 1D array is .y, of a 2D array .z) and the
// dimensions of the range.
var imageKindInfo = [imageKinds]struct {
	memType      uint32
	clType, swiz string
	dims         uint32
}{
	kind1D:      {cl.MemObjectImage1D, "image1d_t", ".x", 1},
	kind1DArray: {cl.MemObjectImage1DArray, "image1d_array_t", ".xy", 2},
	kind2D:      {cl.MemObjectImage2D, "image2d_t", ".xy", 2},
	kind2DArray: {cl.MemObjectImage2DArray, "image2d_array_t", "", 3},
	kind3D:      {cl.MemObjectImage3D, "image3d_t", "", 3},
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
// its global id from src at so to dst at dso, with the sampler-less reads
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
			fmt.Fprintf(&b, `__kernel void %s(__read_only %s src, __write_only %s dst, int4 so, int4 dso) {
	int4 p = (int4)((int)get_global_id(0), (int)get_global_id(1), (int)get_global_id(2), 0);
	write_image%s(dst, (dso + p)%s, read_image%s(src, (so + p)%s));
}
`, copyKernelName(k, a), info.clType, info.clType, accessSuffix[a], info.swiz, accessSuffix[a], info.swiz)
		}
	}
	return b.String()
}

// imageCopier is a context's copy kernels, built on the first copy that
// wants them.
type imageCopier struct {
	lib      *cl.Lib
	ac       *adapterImageCopy
	ctx      cl.Context
	mode     imageCopyMode
	nvidia   bool // the context's platform is NVIDIA's
	writes3D bool // every device of the context lists cl_khr_3d_image_writes

	once    sync.Once
	built   bool // the program and every kernel were made; false after a failure
	program cl.Program
	kernels [imageKinds][pixelAccesses]cl.Kernel

	// mu is held from the first clSetKernelArg to clEnqueueNDRangeKernel:
	// a kernel's arguments are state, shared by the context's queues.
	// Copies big enough for the kernel take long on the device, so
	// holding it over two enqueues costs nothing measurable.
	mu   sync.Mutex
	args *imageCopyArgs
}

// imageCopyArgs are the kernel arguments and range sizes, in the heap
// for C.
type imageCopyArgs struct {
	srcOrigin, dstOrigin [4]int32
	global               [3]uintptr
}

// imageCopiers holds each context's copier under a weak key, so that it
// neither keeps the context alive nor outlives it (see imageCopier).
var imageCopiers sync.Map // weak.Pointer[context] → *imageCopier

// imageCopier returns c's copier, made on first use with the mode the
// adapter read from the environment.
func (c *context) imageCopier() *imageCopier {
	key := weak.Make(c)
	if v, ok := imageCopiers.Load(key); ok {
		return v.(*imageCopier)
	}
	ac := c.a.imageCopy()
	ic := &imageCopier{lib: c.a.lib, ac: ac, ctx: c.handle, mode: ac.mode, writes3D: len(c.order) > 0, args: new(imageCopyArgs)}
	if m := imageCopyModeOverride.Load(); m != 0 {
		ic.mode = imageCopyMode(m)
	}
	for _, d := range c.order {
		ic.nvidia = ic.nvidia || strings.Contains(d.p.info.Vendor, "NVIDIA") || strings.Contains(d.p.info.Name, "NVIDIA")
		ic.writes3D = ic.writes3D && d.hasExtension("cl_khr_3d_image_writes")
	}
	v, loaded := imageCopiers.LoadOrStore(key, ic)
	if !loaded {
		// The program holds a reference to the cl_context, so it must go
		// for the context to be destroyed: it goes with the Go context,
		// once nothing refers to it (its Release, in queuefeatures.go,
		// knows nothing of the copier). Enqueued copies keep their
		// kernels alive in OpenCL, so they finish first.
		runtime.AddCleanup(c, func(ic *imageCopier) {
			imageCopiers.Delete(key)
			ic.release()
		}, ic)
	}
	return v.(*imageCopier)
}

// build makes the program and its kernels once; a failure is kept, and
// the driver's copy used from then on.
func (ic *imageCopier) build() bool {
	ic.once.Do(func() {
		p, st := ic.lib.CreateProgramWithSource(ic.ctx, imageCopySource(ic.writes3D))
		if st != cl.Success {
			return
		}
		ic.program = p
		if ic.lib.BuildProgram(p, nil, "") != cl.Success {
			ic.release()
			return
		}
		for k := range imageKinds {
			if k == kind3D && !ic.writes3D {
				continue
			}
			for a := range pixelAccesses {
				h, st := ic.lib.CreateKernel(p, copyKernelName(k, a))
				if st != cl.Success {
					ic.release()
					return
				}
				ic.kernels[k][a] = h
			}
		}
		ic.built = true
	})
	return ic.built
}

// release releases the kernels and the program.
func (ic *imageCopier) release() {
	for k := range ic.kernels {
		for a, h := range ic.kernels[k] {
			if h != 0 {
				ic.lib.ReleaseKernel(h)
				ic.kernels[k][a] = 0
			}
		}
	}
	if ic.program != 0 {
		ic.lib.ReleaseProgram(ic.program)
		ic.program = 0
	}
}

// kindOf is img's imageKind (CL_MEM_TYPE), and whether a kernel may read
// it (readable) or write it (!readable), given its CL_MEM_FLAGS.
func (ic *imageCopier) kindOf(img cl.Mem, readable bool) (imageKind, bool) {
	b, st := ic.lib.MemInfo(img, cl.MemType)
	if st != cl.Success {
		return 0, false
	}
	t := cl.Uint32(b)
	k := kind1D
	for k < imageKinds && imageKindInfo[k].memType != t {
		k++
	}
	if k == imageKinds {
		return 0, false
	}
	b, st = ic.lib.MemInfo(img, cl.MemFlags)
	if st != cl.Success {
		return 0, false
	}
	denied := uint64(cl.MemReadOnly) // a __write_only argument refuses read-only images
	if readable {
		denied = cl.MemWriteOnly
	}
	return k, cl.Uint64(b)&denied == 0
}

// kernelFor returns the kernel copying r from src to dst, or false where
// the driver's copy is to be used: by the mode, for a format or image
// types the kernels do not copy exactly, or where the program cannot be
// built.
func (ic *imageCopier) kernelFor(src, dst cl.Mem, srcOrigin [3]uint64, r driver.ImageRegion) (cl.Kernel, imageKind, bool) {
	if ic.mode == imageCopyDriver || ic.mode == imageCopyAuto && !ic.nvidia {
		return 0, 0, false
	}
	f, ok := ic.ac.imageFormat(src)
	if !ok || !exactOrder(f.Order) {
		return 0, 0, false
	}
	a := exactAccess(f.Type)
	if a == accessNone {
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
	sk, ok := ic.kindOf(src, true)
	if !ok {
		return 0, 0, false
	}
	dk, ok := ic.kindOf(dst, false)
	if !ok || dk != sk || sk == kind3D && !ic.writes3D || !ic.build() {
		return 0, 0, false
	}
	return ic.kernels[sk][a], sk, true
}

// copyImageKernel enqueues the copy through a kernel and reports true, or
// reports false having enqueued nothing, for the driver's copy.
func (q *queue) copyImageKernel(src, dst *mem, srcOrigin [3]uint64, r driver.ImageRegion, wait []driver.Event, wantEvent bool) (driver.Event, bool, error) {
	ic := q.ctx.imageCopier()
	k, kind, ok := ic.kernelFor(src.handle, dst.handle, srcOrigin, r)
	if !ok {
		return nil, false, nil
	}
	ic.mu.Lock()
	defer ic.mu.Unlock()
	args := ic.args
	for i := range 3 {
		args.srcOrigin[i], args.dstOrigin[i] = int32(srcOrigin[i]), int32(r.Origin[i])
		args.global[i] = uintptr(r.Region[i])
	}
	// A failure to set an argument leaves nothing enqueued: the driver's
	// copy still can, and the caller never sees it.
	if ic.lib.SetKernelArg(k, 0, unsafe.Sizeof(src.handle), unsafe.Pointer(&src.handle)) != cl.Success ||
		ic.lib.SetKernelArg(k, 1, unsafe.Sizeof(dst.handle), unsafe.Pointer(&dst.handle)) != cl.Success ||
		ic.lib.SetKernelArg(k, 2, unsafe.Sizeof(args.srcOrigin), unsafe.Pointer(&args.srcOrigin)) != cl.Success ||
		ic.lib.SetKernelArg(k, 3, unsafe.Sizeof(args.dstOrigin), unsafe.Pointer(&args.dstOrigin)) != cl.Success {
		return nil, false, nil
	}
	e, ev := q.newEvent(wantEvent)
	// The local size is the driver's to choose.
	st := q.lib.EnqueueNDRangeKernel(q.handle, k, imageKindInfo[kind].dims, nil, &args.global[0], nil, waitList(wait), ev)
	ret, err := result("clEnqueueNDRangeKernel (image copy)", e, st)
	return ret, true, err
}
