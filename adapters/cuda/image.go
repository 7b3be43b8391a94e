package cuda

import (
	"encoding/binary"
	"unsafe"

	"github.com/gour-dev/gour/adapters/cuda/internal/cu"
	"github.com/gour-dev/gour/ur/driver"
)

// This file is images and samplers (driver.ImageContext, ImageQueue,
// SamplerKernel), as the Unified Runtime's CUDA adapter makes them.
//
// An image is a CUDA array (cuArray3DCreate) of the image's shape, layered
// for the array types, always made with CUDA_ARRAY3D_SURFACE_LDST, and a
// surface object on it (cuSurfObjectCreate) made with it. Both are the
// image's mem: a mem whose img is set, ptr 0, so that a buffer command
// given an image by mistake fails in the driver rather than touching
// memory. Reads, writes and copies, to and from host memory, device
// buffers and other images, are each one cuMemcpy3DAsync on the queue's
// stream.
//
// Kernel arguments, for CUDA C kernel authors:
//
//   - An image set with Kernel.SetArgMem is its surface object, 8 bytes:
//     declare cudaSurfaceObject_t and use surf1Dread, surf2Dread,
//     surf3Dread, surf1DLayeredread, surf2DLayeredread (and the writes).
//     Surface x coordinates are in bytes: x*sizeof(pixel). A surface reads
//     the stored bits, so UNORM and SNORM images read as the integers they
//     store (uchar4 for RGBA/UNORM_INT8); scale them in the kernel.
//   - A sampler set with Kernel.SetArgSampler is a 32-bit value: declare
//     unsigned int. Its bits are the Unified Runtime CUDA adapter's:
//     bit 0 normalized coordinates, bit 1 the filter mode (0 nearest, 1
//     linear), bits 2-4 the addressing mode (0 none, 1 clamp to edge, 2
//     clamp, 3 repeat, 4 mirrored repeat); gour sets bit 31 on every
//     sampler so that none is 0. CUDA has no sampler object apart from a
//     texture object, which binds one image to one sampler, while a
//     kernel takes the two as separate arguments: the kernel applies the
//     sampler's modes to surface reads itself, as SYCL's CUDA back end
//     does.
//
// Formats are what CUDA arrays store: 1, 2 or 4 channels (R, RG, RGBA;
// CUDA has no 3-channel array) of 8-, 16- or 32-bit integers, half or
// float, UNORM and SNORM stored as their integers.

var (
	_ driver.ImageContext  = (*context)(nil)
	_ driver.ImageQueue    = (*queue)(nil)
	_ driver.SamplerKernel = (*kernel)(nil)
)

// image is what a mem of an image holds besides the buffer's fields.
type image struct {
	arrays *cu.Arrays
	array  cu.Array
	surf   cu.SurfObject
	typ    driver.ImageType
	format driver.ImageFormat
	pixel  uint64
}

// imageOrders are the channel orders of CUDA arrays, by channel count.
var imageOrders = []driver.ChannelOrder{driver.ChannelR, driver.ChannelRG, driver.ChannelRGBA}

// imageTypes maps each channel type gour lists to the array format that
// stores it.
var imageTypes = []struct {
	t driver.ChannelType
	f cu.ArrayFormat
}{
	{driver.ChannelSnormInt8, cu.ArrayFormatInt8},
	{driver.ChannelSnormInt16, cu.ArrayFormatInt16},
	{driver.ChannelUnormInt8, cu.ArrayFormatUint8},
	{driver.ChannelUnormInt16, cu.ArrayFormatUint16},
	{driver.ChannelSignedInt8, cu.ArrayFormatInt8},
	{driver.ChannelSignedInt16, cu.ArrayFormatInt16},
	{driver.ChannelSignedInt32, cu.ArrayFormatInt32},
	{driver.ChannelUnsignedInt8, cu.ArrayFormatUint8},
	{driver.ChannelUnsignedInt16, cu.ArrayFormatUint16},
	{driver.ChannelUnsignedInt32, cu.ArrayFormatUint32},
	{driver.ChannelHalfFloat, cu.ArrayFormatHalf},
	{driver.ChannelFloat, cu.ArrayFormatFloat},
}

// arrayFormat is the array format and channel count of f; ok is false for
// a format CUDA arrays cannot store.
func arrayFormat(f driver.ImageFormat) (format cu.ArrayFormat, channels uint32, ok bool) {
	switch f.Order {
	case driver.ChannelR:
		channels = 1
	case driver.ChannelRG:
		channels = 2
	case driver.ChannelRGBA:
		channels = 4
	default:
		return 0, 0, false
	}
	for _, t := range imageTypes {
		if t.t == f.Type {
			return t.f, channels, true
		}
	}
	return 0, 0, false
}

// imagesHere refuses images in a context of several devices: a CUDA array
// and its surface object belong to one device's context, and gour does
// not yet keep one per device.
func (c *context) imagesHere() error {
	if len(c.devs) > 1 {
		return driver.Errorf(driver.ResultUnsupportedFeature, "images in a CUDA context of %d devices (an array belongs to one device)", len(c.devs))
	}
	return nil
}

// SupportedImageFormats is every format arrayFormat takes, for every image
// type and access: surfaces read and write them all.
func (c *context) SupportedImageFormats(_ driver.MemFlags, _ driver.ImageType) ([]driver.ImageFormat, error) {
	if err := c.imagesHere(); err != nil {
		return nil, err
	}
	fs := make([]driver.ImageFormat, 0, len(imageOrders)*len(imageTypes))
	for _, o := range imageOrders {
		for _, t := range imageTypes {
			fs = append(fs, driver.ImageFormat{Order: o, Type: t.t})
		}
	}
	return fs, nil
}

// arrayDescriptor is the CUDA_ARRAY3D_DESCRIPTOR of an image: Height 0
// for 1D arrays, Depth 0 for 1D and 2D ones, Depth the layers of the
// array types.
func arrayDescriptor(f cu.ArrayFormat, channels uint32, d driver.ImageDesc) cu.Array3DDescriptor {
	a := cu.Array3DDescriptor{Width: d.Width, Format: f, NumChannels: channels, Flags: cu.Array3DSurfaceLDST}
	switch d.Type {
	case driver.Image1DArray:
		a.Depth, a.Flags = d.ArraySize, a.Flags|cu.Array3DLayered
	case driver.Image2D:
		a.Height = d.Height
	case driver.Image2DArray:
		a.Height, a.Depth, a.Flags = d.Height, d.ArraySize, a.Flags|cu.Array3DLayered
	case driver.Image3D:
		a.Height, a.Depth = d.Height, d.Depth
	}
	return a
}

// CUdevice_attribute values of the surface limits (cuda.h).
const (
	attrSurface1DWidth         cu.DeviceAttribute = 55
	attrSurface2DWidth         cu.DeviceAttribute = 56
	attrSurface2DHeight        cu.DeviceAttribute = 57
	attrSurface3DWidth         cu.DeviceAttribute = 58
	attrSurface3DHeight        cu.DeviceAttribute = 59
	attrSurface3DDepth         cu.DeviceAttribute = 60
	attrSurface1DLayeredWidth  cu.DeviceAttribute = 61
	attrSurface1DLayeredLayers cu.DeviceAttribute = 62
	attrSurface2DLayeredWidth  cu.DeviceAttribute = 63
	attrSurface2DLayeredHeight cu.DeviceAttribute = 64
	attrSurface2DLayeredLayers cu.DeviceAttribute = 65
)

// checkSurfaceSize checks an image's shape against the device's surface
// limits for its type, which the front end's checks (the 2D and 3D
// limits of DeviceInfoImage*) do not cover: the 1D ones and the layered
// ones' widths and heights. A limit the driver does not answer is not
// checked; cuArray3DCreate then decides.
func (d *device) checkSurfaceSize(desc driver.ImageDesc) error {
	type limit struct {
		attr cu.DeviceAttribute
		v    uint64
		what string
	}
	var ls []limit
	switch desc.Type {
	case driver.Image1D:
		ls = []limit{{attrSurface1DWidth, desc.Width, "width"}}
	case driver.Image1DArray:
		ls = []limit{{attrSurface1DLayeredWidth, desc.Width, "width"}, {attrSurface1DLayeredLayers, desc.ArraySize, "layers"}}
	case driver.Image2D:
		ls = []limit{{attrSurface2DWidth, desc.Width, "width"}, {attrSurface2DHeight, desc.Height, "height"}}
	case driver.Image2DArray:
		ls = []limit{{attrSurface2DLayeredWidth, desc.Width, "width"}, {attrSurface2DLayeredHeight, desc.Height, "height"},
			{attrSurface2DLayeredLayers, desc.ArraySize, "layers"}}
	case driver.Image3D:
		ls = []limit{{attrSurface3DWidth, desc.Width, "width"}, {attrSurface3DHeight, desc.Height, "height"}, {attrSurface3DDepth, desc.Depth, "depth"}}
	}
	for _, l := range ls {
		most, r := d.a.cu.DeviceGetAttribute(l.attr, d.ordinal)
		if r == cu.Success && most > 0 && l.v > uint64(most) {
			return driver.Errorf(driver.ResultInvalidImageSize, "%s %d exceeds the device's surface limit of %d (CUdevice_attribute %d)", l.what, l.v, most, l.attr)
		}
	}
	return nil
}

// NewImage makes the array and its surface object and, with host data,
// copies it in and waits for the copy, as NewBuffer does.
func (c *context) NewImage(_ driver.MemFlags, f driver.ImageFormat, desc driver.ImageDesc, host []byte) (driver.Mem, error) {
	if err := c.imagesHere(); err != nil {
		return nil, err
	}
	format, channels, ok := arrayFormat(f)
	if !ok {
		return nil, driver.Errorf(driver.ResultUnsupportedImageFormat, "CUDA arrays have no %v format (R, RG or RGBA of 8-, 16- or 32-bit integers, half or float)", f)
	}
	d := c.dev
	if err := d.checkSurfaceSize(desc); err != nil {
		return nil, err
	}
	arrays, err := d.a.cu.Arrays()
	if err != nil {
		return nil, driver.Errorf(driver.ResultUnsupportedFeature, "the CUDA driver has no arrays or surface objects: %v", err)
	}
	if err := d.bindBusy(); err != nil {
		return nil, err
	}
	defer d.unbindBusy()
	ad := arrayDescriptor(format, channels, desc)
	h, r := arrays.Array3DCreate(&ad)
	if err := check("cuArray3DCreate", r); err != nil {
		return nil, err
	}
	surf, r := arrays.SurfObjectCreate(h)
	if r != cu.Success {
		arrays.ArrayDestroy(h)
		return nil, cuError("cuSurfObjectCreate", r)
	}
	img := &image{arrays: arrays, array: h, surf: surf, typ: desc.Type, format: f, pixel: f.PixelSize()}
	ext := desc.Extent()
	if len(host) > 0 {
		// The legacy stream, which the queues' streams do not wait for:
		// wait for it here.
		p := img.hostCopy(true, [3]uint64{}, ext, desc.RowPitch, desc.SlicePitch, host)
		r := copyAll(d.a.cu, p, 0)
		if r == cu.Success {
			r = d.a.cu.StreamSynchronize(0)
		}
		if r != cu.Success {
			img.destroy()
			return nil, cuError("cuMemcpy3DAsync", r)
		}
	}
	return &mem{dev: d, size: ext[0] * ext[1] * ext[2] * img.pixel, img: img}, nil
}

// release destroys the surface object, then the array, after the device's
// work: CUDA does not say that either waits for the kernels and copies
// using it, as cuMemFree does for a buffer, so the release waits for the
// context first. The caller holds bindBusy.
func (img *image) release(l *cu.Lib) error {
	err := check("cuCtxSynchronize", l.CtxSynchronize())
	if err2 := img.destroy(); err == nil {
		err = err2
	}
	return err
}

// destroy destroys the surface object and the array. The caller holds
// the device's context.
func (img *image) destroy() error {
	err := check("cuSurfObjectDestroy", img.arrays.SurfObjectDestroy(img.surf))
	if err2 := check("cuArrayDestroy", img.arrays.ArrayDestroy(img.array)); err == nil {
		err = err2
	}
	return err
}

// arg is the 8 bytes a kernel takes for m: a buffer's device address, an
// image's surface object.
func (m *mem) arg() cu.DevicePtr {
	if m.img != nil {
		return cu.DevicePtr(m.img.surf)
	}
	return m.ptr
}

// arrayBox turns a box as the front end counts it ({x, y, z}, y the layer
// of a 1D array) into the array's coordinates, where the layer of any
// layered array is z.
func (img *image) arrayBox(origin, region [3]uint64) (o, r [3]uint64) {
	if img.typ == driver.Image1DArray {
		return [3]uint64{origin[0], 0, origin[1]}, [3]uint64{region[0], 1, region[1]}
	}
	return origin, region
}

// copy3D is a CUDA_MEMCPY3D with the image as source or destination over
// the box; the other side is the caller's to fill.
func (img *image) copy3D(toImage bool, origin, region [3]uint64) (*cu.Memcpy3D, [3]uint64) {
	o, r := img.arrayBox(origin, region)
	p := &cu.Memcpy3D{WidthInBytes: r[0] * img.pixel, Height: r[1], Depth: r[2]}
	if toImage {
		p.DstMemoryType, p.DstArray = cu.MemoryTypeArray, uintptr(img.array)
		p.DstXInBytes, p.DstY, p.DstZ = o[0]*img.pixel, o[1], o[2]
	} else {
		p.SrcMemoryType, p.SrcArray = cu.MemoryTypeArray, uintptr(img.array)
		p.SrcXInBytes, p.SrcY, p.SrcZ = o[0]*img.pixel, o[1], o[2]
	}
	return p, r
}

// hostCopy is a copy between a box of an image and host memory laid out
// with the pitches. CUDA counts a slice in rows (its height), so a slice
// pitch that is not a whole number of rows is a copy a slice (copyAll).
type hostCopy struct {
	p      *cu.Memcpy3D
	toHost bool
	host   []byte
	row    uint64
	slice  uint64
	depth  uint64
}

// hostCopy describes a copy between the box of the image and host memory
// laid out with the pitches; toImage says the direction.
func (img *image) hostCopy(toImage bool, origin, region [3]uint64, rowPitch, slicePitch uint64, host []byte) *hostCopy {
	p, r := img.copy3D(toImage, origin, region)
	if rowPitch == 0 {
		rowPitch = r[0] * img.pixel
	}
	return &hostCopy{p: p, toHost: !toImage, host: host, row: rowPitch, slice: slicePitch, depth: r[2]}
}

// copyAll makes the copy on stream s.
func copyAll(l *cu.Lib, c *hostCopy, s cu.Stream) cu.Result {
	return c.each(func(p *cu.Memcpy3D) cu.Result { return l.Memcpy3DAsync(p, s) })
}

// each calls do with the copy's CUDA_MEMCPY3D: once, or once a slice
// (p.Depth 1, the host address and the array's z advanced), stopping at
// the first failure.
func (c *hostCopy) each(do func(p *cu.Memcpy3D) cu.Result) cu.Result {
	p := c.p
	base := uintptr(unsafe.Pointer(unsafe.SliceData(c.host)))
	setHost := func(off, height uint64) {
		if c.toHost {
			p.DstMemoryType, p.DstHost, p.DstPitch, p.DstHeight = cu.MemoryTypeHost, base+uintptr(off), c.row, height
		} else {
			p.SrcMemoryType, p.SrcHost, p.SrcPitch, p.SrcHeight = cu.MemoryTypeHost, base+uintptr(off), c.row, height
		}
	}
	if c.depth == 1 || c.slice%c.row == 0 {
		setHost(0, max(c.slice/c.row, p.Height))
		return do(p)
	}
	z := &p.DstZ // the array's z of the box
	if c.toHost {
		z = &p.SrcZ
	}
	depth, z0 := p.Depth, *z
	p.Depth = 1
	for i := range depth {
		setHost(i*c.slice, p.Height)
		*z = z0 + i
		if r := do(p); r != cu.Success {
			return r
		}
	}
	return cu.Success
}

// imageOf is the image of m; a buffer is INVALID_MEM_OBJECT (the front
// end refuses one before the adapter sees it).
func imageOf(m driver.Mem) (*image, error) {
	if mm, ok := m.(*mem); ok && mm.img != nil {
		return mm.img, nil
	}
	return nil, driver.Errorf(driver.ResultInvalidMemObject, "a buffer where an image goes")
}

// bufferOf is the device address of a buffer; an image is
// INVALID_MEM_OBJECT.
func bufferOf(m driver.Mem) (cu.DevicePtr, error) {
	if mm, ok := m.(*mem); ok && mm.img == nil {
		return mm.ptr, nil
	}
	return 0, driver.Errorf(driver.ResultInvalidMemObject, "an image where a buffer goes")
}

func (q *queue) ReadImage(img driver.Mem, blocking bool, r driver.ImageRegion, rowPitch, slicePitch uint64, dst []byte, wait []driver.Event, wantEvent bool) (driver.Event, error) {
	im, err := imageOf(img)
	if err != nil {
		return nil, err
	}
	c := im.hostCopy(false, r.Origin, r.Region, rowPitch, slicePitch, dst)
	return q.enqueue("cuMemcpy3DAsync", blocking, wait, wantEvent, func(s cu.Stream) cu.Result { return copyAll(q.cu, c, s) })
}

func (q *queue) WriteImage(img driver.Mem, blocking bool, r driver.ImageRegion, rowPitch, slicePitch uint64, src []byte, wait []driver.Event, wantEvent bool) (driver.Event, error) {
	im, err := imageOf(img)
	if err != nil {
		return nil, err
	}
	c := im.hostCopy(true, r.Origin, r.Region, rowPitch, slicePitch, src)
	return q.enqueue("cuMemcpy3DAsync", blocking, wait, wantEvent, func(s cu.Stream) cu.Result { return copyAll(q.cu, c, s) })
}

// CopyImage is a copy kernel where one applies (imagecopy.go), else
// array-to-array cuMemcpy3DAsync; the front end checked that the formats
// match. Between a 1D array, whose layers are the array's z,
// and another type, whose rows are its y, it is a copy a row.
func (q *queue) CopyImage(src, dst driver.Mem, srcOrigin [3]uint64, d driver.ImageRegion, wait []driver.Event, wantEvent bool) (driver.Event, error) {
	si, err := imageOf(src)
	if err != nil {
		return nil, err
	}
	di, err := imageOf(dst)
	if err != nil {
		return nil, err
	}
	if fn := q.kernelImageCopy(src, dst, si, di, d.Region); fn != 0 {
		return q.launchImageCopy(fn, si, di, srcOrigin, d.Origin, d.Region, wait, wantEvent)
	}
	ps := imageCopies(si, di, srcOrigin, d.Origin, d.Region)
	return q.enqueue("cuMemcpy3DAsync", false, wait, wantEvent, func(s cu.Stream) cu.Result {
		for _, p := range ps {
			if r := q.cu.Memcpy3DAsync(p, s); r != cu.Success {
				return r
			}
		}
		return cu.Success
	})
}

// imageCopies are the CUDA_MEMCPY3D of an image-to-image copy.
func imageCopies(si, di *image, srcOrigin, dstOrigin, region [3]uint64) []*cu.Memcpy3D {
	one := func(so, do, r [3]uint64) *cu.Memcpy3D {
		p, _ := di.copy3D(true, do, r)
		o, _ := si.arrayBox(so, r)
		p.SrcMemoryType, p.SrcArray = cu.MemoryTypeArray, uintptr(si.array)
		p.SrcXInBytes, p.SrcY, p.SrcZ = o[0]*si.pixel, o[1], o[2]
		return p
	}
	if (si.typ == driver.Image1DArray) == (di.typ == driver.Image1DArray) {
		return []*cu.Memcpy3D{one(srcOrigin, dstOrigin, region)}
	}
	// region[2] is 1: a 1D array's boxes have no z.
	ps := make([]*cu.Memcpy3D, region[1])
	for i := range region[1] {
		ps[i] = one([3]uint64{srcOrigin[0], srcOrigin[1] + i, srcOrigin[2]}, [3]uint64{dstOrigin[0], dstOrigin[1] + i, dstOrigin[2]},
			[3]uint64{region[0], 1, 1})
	}
	return ps
}

// bufferSide fills the device-memory side of p: pixels tightly packed at
// ptr, rows of the box's width, slices of its height.
func bufferSide(p *cu.Memcpy3D, toImage bool, ptr cu.DevicePtr, r [3]uint64) {
	if toImage {
		p.SrcMemoryType, p.SrcDevice, p.SrcPitch, p.SrcHeight = cu.MemoryTypeDevice, ptr, p.WidthInBytes, r[1]
	} else {
		p.DstMemoryType, p.DstDevice, p.DstPitch, p.DstHeight = cu.MemoryTypeDevice, ptr, p.WidthInBytes, r[1]
	}
}

func (q *queue) CopyImageToBuffer(src driver.Mem, r driver.ImageRegion, dst driver.Mem, dstOffset uint64, wait []driver.Event, wantEvent bool) (driver.Event, error) {
	return q.imageBuffer(false, src, r, dst, dstOffset, wait, wantEvent)
}

func (q *queue) CopyBufferToImage(src driver.Mem, srcOffset uint64, dst driver.Mem, r driver.ImageRegion, wait []driver.Event, wantEvent bool) (driver.Event, error) {
	return q.imageBuffer(true, dst, r, src, srcOffset, wait, wantEvent)
}

// imageBuffer is one cuMemcpy3DAsync between the box of the image and
// the buffer at offset, pixels tightly packed.
func (q *queue) imageBuffer(toImage bool, img driver.Mem, r driver.ImageRegion, buf driver.Mem, offset uint64, wait []driver.Event, wantEvent bool) (driver.Event, error) {
	im, err := imageOf(img)
	if err != nil {
		return nil, err
	}
	ptr, err := bufferOf(buf)
	if err != nil {
		return nil, err
	}
	p, box := im.copy3D(toImage, r.Origin, r.Region)
	bufferSide(p, toImage, ptr+cu.DevicePtr(offset), box)
	return q.enqueue("cuMemcpy3DAsync", false, wait, wantEvent, func(s cu.Stream) cu.Result { return q.cu.Memcpy3DAsync(p, s) })
}

// FillImage writes the pixel over the box in two steps on the stream:
// memsets repeat it over a scratch buffer of the box's bytes, tightly
// packed, and one cuMemcpy3DAsync copies that into the array. CUDA has no
// memset of arrays, and a fill kernel would need a module per device
// (NVRTC, which may be absent, or hand-written PTX); this uses only the
// memsets and copies buffers already use, for twice the box's bytes of
// device bandwidth and the box's bytes of scratch. The scratch comes
// from the stream-ordered allocator (cuMemAllocAsync, cuMemFreeAsync)
// where the device has it, so the fill neither waits nor makes others
// wait; without it the fill allocates with cuMemAlloc and waits for the
// copy before freeing.
func (q *queue) FillImage(dimg driver.Mem, color [16]byte, r driver.ImageRegion, wait []driver.Event, wantEvent bool) (driver.Event, error) {
	img, err := imageOf(dimg)
	if err != nil {
		return nil, err
	}
	pattern, err := driver.EncodePixel(img.format, color)
	if err != nil {
		return nil, err
	}
	p, box := img.copy3D(true, r.Origin, r.Region)
	size := box[0] * box[1] * box[2] * img.pixel
	d := q.dev
	if img.arrays.HasMemAllocAsync() && d.pools {
		return q.enqueue("cuMemcpy3DAsync", false, wait, wantEvent, func(s cu.Stream) cu.Result {
			ptr, res := img.arrays.MemAllocAsync(uintptr(size), s)
			if res != cu.Success {
				return res
			}
			res = memsetPattern(q.cu, ptr, pattern, size, s)
			if res == cu.Success {
				bufferSide(p, true, ptr, box)
				res = q.cu.Memcpy3DAsync(p, s)
			}
			if r2 := q.cu.MemFreeAsync(ptr, s); res == cu.Success {
				res = r2
			}
			return res
		})
	}
	if err := d.bindBusy(); err != nil {
		return nil, err
	}
	ptr, res := d.a.cu.MemAlloc(uintptr(size))
	d.unbindBusy()
	if err := check("cuMemAlloc", res); err != nil {
		return nil, err
	}
	bufferSide(p, true, ptr, box)
	ev, err := q.enqueue("cuMemcpy3DAsync", true, wait, wantEvent, func(s cu.Stream) cu.Result {
		if res := memsetPattern(q.cu, ptr, pattern, size, s); res != cu.Success {
			return res
		}
		return q.cu.Memcpy3DAsync(p, s)
	})
	if err := d.bindBusy(); err != nil {
		return ev, err // the scratch leaks with the context unusable
	}
	defer d.unbindBusy()
	if err2 := check("cuMemFree", d.a.cu.MemFree(ptr)); err == nil && err2 != nil {
		return ev, err2
	}
	return ev, err
}

// memsetPattern repeats pattern (1, 2, 4, 8 or 16 bytes) over size bytes
// at ptr on stream s: the memset of its width, or one strided 32-bit
// memset a word, as the buffer fill does.
func memsetPattern(l *cu.Lib, ptr cu.DevicePtr, pattern []byte, size uint64, s cu.Stream) cu.Result {
	switch n := uint64(len(pattern)); n {
	case 1:
		return l.MemsetD8Async(ptr, pattern[0], uintptr(size), s)
	case 2:
		return l.MemsetD16Async(ptr, binary.LittleEndian.Uint16(pattern), uintptr(size/2), s)
	case 4:
		return l.MemsetD32Async(ptr, binary.LittleEndian.Uint32(pattern), uintptr(size/4), s)
	default:
		for w := uint64(0); w < n; w += 4 {
			if r := l.MemsetD2D32Async(ptr+cu.DevicePtr(w), uintptr(n), binary.LittleEndian.Uint32(pattern[w:]), 1, uintptr(size/n), s); r != cu.Success {
				return r
			}
		}
		return cu.Success
	}
}

// sampler is a CUDA "sampler": the packed properties a kernel takes as an
// unsigned int (see the file comment). It owns nothing.
type sampler struct{ props uint32 }

// samplerValid is set in every sampler's properties, so that none is 0.
const samplerValid = 1 << 31

func (c *context) NewSampler(d driver.SamplerDesc) (driver.Sampler, error) {
	props := uint32(samplerValid) | uint32(d.Filter&1)<<1 | uint32(d.Addressing&7)<<2
	if d.Normalized {
		props |= 1
	}
	return &sampler{props: props}, nil
}

func (s *sampler) Release() error  { return nil }
func (s *sampler) Native() uintptr { return uintptr(s.props) }

// SetArgSampler sets the sampler's 32-bit properties as argument index,
// which the kernel declares unsigned int.
func (k *kernel) SetArgSampler(index uint32, s driver.Sampler) error {
	ss, ok := s.(*sampler)
	if !ok {
		return driver.Errorf(driver.ResultInvalidSampler, "not a CUDA sampler")
	}
	b, err := k.argBytes(index, 4)
	if err != nil {
		return err
	}
	binary.LittleEndian.PutUint32(b, ss.props)
	k.setLocal(int(index), 0)
	return nil
}
