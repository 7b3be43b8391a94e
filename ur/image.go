package ur

import (
	"encoding/binary"
	"math"
	"math/bits"
	"slices"

	"github.com/gour-dev/gour/trace"
	"github.com/gour-dev/gour/ur/driver"
)

// This file holds images and samplers, as the Unified Runtime's
// urMemImageCreate, urEnqueueMemImageRead/Write/Copy, the image↔buffer
// copies, image fills and urSamplerCreate. An image is a *Mem (kernels
// take it with Kernel.SetArgMem) with a pixel format and a shape; the
// image enqueues check regions in pixels against the shape before the
// adapter sees them. OpenCL has them (clCreateImage), CUDA as CUDA arrays
// with surface objects (kernels take an image as its cudaSurfaceObject_t
// and a sampler as a 32-bit unsigned int of the Unified Runtime's sampler
// bits), Level Zero as zeImageCreate's images and zeSamplerCreate's
// samplers. A buffer operation given an image is ErrInvalidMemObject.

// Image kinds, channel orders and types, samplers: the Unified Runtime's
// values (ur_mem_type_t, ur_image_channel_order_t,
// ur_image_channel_type_t, ur_sampler_addressing_mode_t,
// ur_sampler_filter_mode_t).
type (
	ImageType      = driver.ImageType
	ChannelOrder   = driver.ChannelOrder
	ChannelType    = driver.ChannelType
	ImageFormat    = driver.ImageFormat
	ImageDesc      = driver.ImageDesc
	AddressingMode = driver.AddressingMode
	FilterMode     = driver.FilterMode
	SamplerDesc    = driver.SamplerDesc
)

// Image types.
const (
	Image1D      = driver.Image1D
	Image2D      = driver.Image2D
	Image3D      = driver.Image3D
	Image1DArray = driver.Image1DArray
	Image2DArray = driver.Image2DArray
)

// Channel orders.
const (
	ChannelA         = driver.ChannelA
	ChannelR         = driver.ChannelR
	ChannelRG        = driver.ChannelRG
	ChannelRA        = driver.ChannelRA
	ChannelRGB       = driver.ChannelRGB
	ChannelRGBA      = driver.ChannelRGBA
	ChannelBGRA      = driver.ChannelBGRA
	ChannelARGB      = driver.ChannelARGB
	ChannelABGR      = driver.ChannelABGR
	ChannelIntensity = driver.ChannelIntensity
	ChannelLuminance = driver.ChannelLuminance
	ChannelRx        = driver.ChannelRx
	ChannelRGx       = driver.ChannelRGx
	ChannelRGBx      = driver.ChannelRGBx
	ChannelSRGBA     = driver.ChannelSRGBA
)

// Channel types.
const (
	ChannelSnormInt8     = driver.ChannelSnormInt8
	ChannelSnormInt16    = driver.ChannelSnormInt16
	ChannelUnormInt8     = driver.ChannelUnormInt8
	ChannelUnormInt16    = driver.ChannelUnormInt16
	ChannelUnormShort565 = driver.ChannelUnormShort565
	ChannelUnormShort555 = driver.ChannelUnormShort555
	ChannelInt101010     = driver.ChannelInt101010
	ChannelSignedInt8    = driver.ChannelSignedInt8
	ChannelSignedInt16   = driver.ChannelSignedInt16
	ChannelSignedInt32   = driver.ChannelSignedInt32
	ChannelUnsignedInt8  = driver.ChannelUnsignedInt8
	ChannelUnsignedInt16 = driver.ChannelUnsignedInt16
	ChannelUnsignedInt32 = driver.ChannelUnsignedInt32
	ChannelHalfFloat     = driver.ChannelHalfFloat
	ChannelFloat         = driver.ChannelFloat
)

// Addressing and filter modes.
const (
	AddressNone           = driver.AddressNone
	AddressClampToEdge    = driver.AddressClampToEdge
	AddressClamp          = driver.AddressClamp
	AddressRepeat         = driver.AddressRepeat
	AddressMirroredRepeat = driver.AddressMirroredRepeat
	FilterNearest         = driver.FilterNearest
	FilterLinear          = driver.FilterLinear
)

// imageInfo is what the front end keeps of an image.
type imageInfo struct {
	format ImageFormat
	desc   ImageDesc
	pixel  uint64
}

func imageOf(m *Mem) (imageInfo, bool) {
	if m.image == nil {
		return imageInfo{}, false
	}
	return *m.image, true
}

func (c *Context) imageContext(op string) (driver.ImageContext, error) {
	ic, ok := c.drv.(driver.ImageContext)
	if !ok {
		return nil, newError(ErrUnsupportedFeature, op, c.adapter.name, "the %s adapter has no images in gour", c.adapter.name)
	}
	for _, d := range c.devices {
		if ok, err := d.QueryBool(DeviceInfoImageSupported); err == nil && !ok {
			return nil, newError(ErrUnsupportedFeature, op, c.adapter.name, "device %q has no images (UR_DEVICE_INFO_IMAGE_SUPPORTED is false)", d.Name())
		}
	}
	return ic, nil
}

// SupportedImageFormats lists the formats the context's devices take for
// images of type t with the access flags (urMemImageGetInfo's formats;
// clGetSupportedImageFormats).
func (c *Context) SupportedImageFormats(flags MemFlags, t ImageType) (rv []ImageFormat, rerr error) {
	const op = "Context.SupportedImageFormats"
	if t := trace.Active(); t != nil {
		tc := beginCall(t, op, c)
		defer tc.end(&rerr)
	}

	if err := c.enter(op); err != nil {
		return nil, err
	}
	defer c.life.leave()
	ic, err := c.imageContext(op)
	if err != nil {
		return nil, err
	}
	if err := checkImageFlags(op, c.adapter.name, flags, t); err != nil {
		return nil, err
	}
	fs, err := ic.SupportedImageFormats(flags, t)
	return fs, wrapError(err, op, c.adapter.name)
}

func checkImageFlags(op, adapter string, flags MemFlags, t ImageType) error {
	switch flags {
	case MemReadWrite, MemReadOnly, MemWriteOnly:
	default:
		return newError(ErrInvalidValue, op, adapter, "flags %#x: want exactly one of MemReadWrite, MemReadOnly, MemWriteOnly", uint32(flags))
	}
	if t < Image2D || t > Image1DArray {
		return newError(ErrInvalidImageFormatDescriptor, op, adapter, "image type %d is not an image type", uint32(t))
	}
	return nil
}

// imageLimits are the device queries that bound each dimension.
func (c *Context) checkImageLimits(op string, d ImageDesc) error {
	limit := func(q DeviceQuery, v uint64, what string) error {
		for _, dev := range c.devices {
			if max, err := dev.QueryUint(q); err == nil && max != 0 && v > max {
				return newError(ErrInvalidImageSize, op, c.adapter.name, "%s %d exceeds %s's %d (%s)", what, v, dev.Name(), max, q)
			}
		}
		return nil
	}
	var err error
	switch d.Type {
	case Image2D, Image2DArray:
		err = firstErr(limit(DeviceInfoImage2DMaxWidth, d.Width, "width"), limit(DeviceInfoImage2DMaxHeight, d.Height, "height"))
	case Image3D:
		err = firstErr(limit(DeviceInfoImage3DMaxWidth, d.Width, "width"), limit(DeviceInfoImage3DMaxHeight, d.Height, "height"),
			limit(DeviceInfoImage3DMaxDepth, d.Depth, "depth"))
	case Image1D, Image1DArray:
		err = limit(DeviceInfoImage2DMaxWidth, d.Width, "width")
	}
	if err == nil && (d.Type == Image1DArray || d.Type == Image2DArray) {
		err = limit(DeviceInfoImageMaxArraySize, d.ArraySize, "array size")
	}
	return err
}

func firstErr(errs ...error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}

// checkDesc checks the shape: the dimensions its type uses are positive,
// the others 0 (or 1).
func checkDesc(op, adapter string, d ImageDesc) error {
	bad := func(what string) error {
		return newError(ErrInvalidImageSize, op, adapter, "%s for a %s image: %dx%dx%d, %d layers", what, imageTypeName(d.Type), d.Width, d.Height, d.Depth, d.ArraySize)
	}
	unused := func(v uint64) bool { return v <= 1 }
	if d.Width == 0 {
		return bad("zero width")
	}
	switch d.Type {
	case Image1D:
		if !unused(d.Height) || !unused(d.Depth) || d.ArraySize > 1 {
			return bad("a height, depth or layers")
		}
	case Image1DArray:
		if d.ArraySize == 0 || !unused(d.Height) || !unused(d.Depth) {
			return bad("no layers, or a height or depth")
		}
	case Image2D:
		if d.Height == 0 || !unused(d.Depth) || d.ArraySize > 1 {
			return bad("zero height, or a depth or layers")
		}
	case Image2DArray:
		if d.Height == 0 || d.ArraySize == 0 || !unused(d.Depth) {
			return bad("zero height or layers, or a depth")
		}
	case Image3D:
		if d.Height == 0 || d.Depth == 0 || d.ArraySize > 1 {
			return bad("zero height or depth, or layers")
		}
	}
	return nil
}

func imageTypeName(t ImageType) string {
	switch t {
	case Image1D:
		return "1D"
	case Image1DArray:
		return "1D array"
	case Image2D:
		return "2D"
	case Image2DArray:
		return "2D array"
	case Image3D:
		return "3D"
	}
	return "unknown"
}

// hostLayout fills zero pitches for a box of region pixels and returns
// them with the bytes the host memory must have; a pitch smaller than
// the data is ErrInvalidValue.
func hostLayout(op, adapter string, t ImageType, pixel uint64, region [3]uint64, rowPitch, slicePitch uint64) (row, slice, need uint64, err error) {
	overflow := func() (uint64, uint64, uint64, error) {
		return 0, 0, 0, newError(ErrInvalidSize, op, adapter, "a layout of %v pixels with pitches %d and %d overflows", region, rowPitch, slicePitch)
	}
	rowBytes, ok := mulOK(region[0], pixel)
	if !ok {
		return overflow()
	}
	rows, slices := region[1], region[2]
	if t == Image1DArray { // layers are slices of one row
		rows, slices = 1, region[1]
	}
	if rowPitch == 0 {
		rowPitch = rowBytes
	}
	rowsBytes, ok := mulOK(rowPitch, rows)
	if !ok {
		return overflow()
	}
	if slicePitch == 0 {
		slicePitch = rowsBytes
	}
	if rowPitch < rowBytes || slicePitch < rowsBytes {
		return 0, 0, 0, newError(ErrInvalidValue, op, adapter, "row pitch %d or slice pitch %d smaller than the data (%d bytes a row, %d rows)", rowPitch, slicePitch, rowBytes, rows)
	}
	last, ok1 := mulOK(slices-1, slicePitch)
	inner, ok2 := mulOK(rows-1, rowPitch)
	need = last + inner + rowBytes
	if !ok1 || !ok2 || need < last || need < inner {
		return overflow()
	}
	return rowPitch, slicePitch, need, nil
}

// NewImage makes an image of format and shape (urMemImageCreate), holding
// a copy of host when it is not nil, laid out with desc's pitches (0:
// tight). Bad input is typed: flags ErrInvalidValue; an unknown format
// ErrInvalidImageFormatDescriptor; a format the devices lack
// ErrUnsupportedImageFormat, naming it; dimensions 0 where the type uses
// them, set where it does not, or past the devices' limits
// ErrInvalidImageSize; host memory too small ErrInvalidHostPtr.
func (c *Context) NewImage(flags MemFlags, format ImageFormat, desc ImageDesc, host []byte) (rh *Mem, rerr error) {
	const op = "Context.NewImage"
	if t := trace.Active(); t != nil {
		tc := beginCall(t, op, c)
		defer endNewOf(&tc, &rh, &rerr)
	}

	if err := c.enter(op); err != nil {
		return nil, err
	}
	defer c.life.leave()
	ic, err := c.imageContext(op)
	if err != nil {
		return nil, err
	}
	if err := checkImageFlags(op, c.adapter.name, flags, desc.Type); err != nil {
		return nil, err
	}
	pixel := format.PixelSize()
	if pixel == 0 {
		return nil, newError(ErrInvalidImageFormatDescriptor, op, c.adapter.name, "%v is no image format", format)
	}
	if err := checkDesc(op, c.adapter.name, desc); err != nil {
		return nil, err
	}
	if err := c.checkImageLimits(op, desc); err != nil {
		return nil, err
	}
	if fs, err := ic.SupportedImageFormats(flags, desc.Type); err == nil && !slices.Contains(fs, format) {
		return nil, newError(ErrUnsupportedImageFormat, op, c.adapter.name, "the devices have no %s %s images", imageTypeName(desc.Type), format)
	}
	ext := desc.Extent()
	if host != nil {
		row, slice, need, err := hostLayout(op, c.adapter.name, desc.Type, pixel, ext, desc.RowPitch, desc.SlicePitch)
		if err != nil {
			return nil, err
		}
		if uint64(len(host)) < need {
			return nil, newError(ErrInvalidHostPtr, op, c.adapter.name, "%d bytes of host memory for an image of %d", len(host), need)
		}
		desc.RowPitch, desc.SlicePitch = row, slice
	} else if desc.RowPitch != 0 || desc.SlicePitch != 0 {
		return nil, newError(ErrInvalidValue, op, c.adapter.name, "pitches without host memory")
	}
	drv, err := ic.NewImage(flags, format, desc, host)
	if err != nil {
		return nil, c.wrap(err, op)
	}
	size := ext[0] * ext[1] * ext[2] * pixel // within the devices' limits, or the driver refused it
	m := &Mem{object: object{adapter: c.adapter}, ctx: c, drv: drv, size: size, flags: flags,
		image: &imageInfo{format: format, desc: desc, pixel: pixel}}
	m.created("Mem")
	m.life.free = drv.Release
	return m, nil
}

// ImageInfo is the format and shape of an image; ok is false for a
// buffer.
func (m *Mem) ImageInfo() (format ImageFormat, desc ImageDesc, ok bool) {
	if m == nil {
		return ImageFormat{}, ImageDesc{}, false
	}
	info, ok := imageOf(m)
	return info.format, info.desc, ok
}

// useImage enters an image argument of the queue's context; on nil
// error the caller must leave it.
func (q *Queue) useImage(op string, m *Mem) (imageInfo, error) {
	if err := q.useMem(op, m); err != nil {
		return imageInfo{}, err
	}
	info, ok := imageOf(m)
	if !ok {
		m.life.leave()
		return imageInfo{}, newError(ErrInvalidMemObject, op, q.adapter.name, "a buffer, not an image")
	}
	return info, nil
}

// checkBox checks a box of pixels lies in the image and has no empty
// dimension, and that the unused dimensions of the image's type are
// origin 0 and region 1.
func (q *Queue) checkBox(op string, info imageInfo, origin, region [3]uint64) error {
	ext := info.desc.Extent()
	for i := range 3 {
		if region[i] == 0 {
			return newError(ErrInvalidSize, op, q.adapter.name, "region %v has an empty dimension", region)
		}
		if origin[i] > ext[i] || region[i] > ext[i]-origin[i] {
			return newError(ErrInvalidSize, op, q.adapter.name, "box at %v of %v is outside the %s image of %v pixels", origin, region, imageTypeName(info.desc.Type), ext)
		}
	}
	return nil
}

func (q *Queue) imageQueue(op string) (driver.ImageQueue, error) {
	iq, ok := q.drv.(driver.ImageQueue)
	if !ok {
		return nil, newError(ErrUnsupportedFeature, op, q.adapter.name, "the %s adapter has no images in gour", q.adapter.name)
	}
	return iq, nil
}

// enterImage enters the queue and an image of its context for op, and
// gives the adapter's image queue and the image's format and shape; on
// nil error the caller must leave both.
func (q *Queue) enterImage(op string, img *Mem) (driver.ImageQueue, imageInfo, error) {
	if err := q.enter(op); err != nil {
		return nil, imageInfo{}, err
	}
	iq, err := q.imageQueue(op)
	if err != nil {
		q.life.leave()
		return nil, imageInfo{}, err
	}
	info, err := q.useImage(op, img)
	if err != nil {
		q.life.leave()
		return nil, imageInfo{}, err
	}
	return iq, info, nil
}

// EnqueueReadImage copies a box of the image, origin and region in
// pixels ({x, y, z}; y the layer of a 1D array, z that of a 2D array),
// into dst laid out with the pitches (0: tight) (urEnqueueMemImageRead).
// Blocking waits and returns no event; otherwise dst holds the pixels
// once the event completes.
func (q *Queue) EnqueueReadImage(img *Mem, blocking bool, origin, region [3]uint64, rowPitch, slicePitch uint64, dst []byte, wait ...*Event) (rh *Event, rerr error) {
	const op = "Queue.EnqueueReadImage"
	if t := trace.Active(); t != nil {
		tc := beginCall(t, op, q, img)
		defer tc.endEventOf(q, &rh, &rerr)
	}

	return q.imageTransfer(op, false, img, blocking, origin, region, rowPitch, slicePitch, dst, wait)
}

// EnqueueWriteImage copies src, laid out with the pitches, into a box of
// the image (urEnqueueMemImageWrite). src must not change until the event
// completes.
func (q *Queue) EnqueueWriteImage(img *Mem, blocking bool, origin, region [3]uint64, rowPitch, slicePitch uint64, src []byte, wait ...*Event) (rh *Event, rerr error) {
	const op = "Queue.EnqueueWriteImage"
	if t := trace.Active(); t != nil {
		tc := beginCall(t, op, q, img)
		defer tc.endEventOf(q, &rh, &rerr)
	}

	return q.imageTransfer(op, true, img, blocking, origin, region, rowPitch, slicePitch, src, wait)
}

func (q *Queue) imageTransfer(op string, write bool, img *Mem, blocking bool, origin, region [3]uint64, rowPitch, slicePitch uint64, host []byte, wait []*Event) (*Event, error) {
	iq, info, err := q.enterImage(op, img)
	if err != nil {
		return nil, err
	}
	defer q.life.leave()
	defer img.life.leave()
	if err := q.checkBox(op, info, origin, region); err != nil {
		return nil, err
	}
	row, slice, need, err := hostLayout(op, q.adapter.name, info.desc.Type, info.pixel, region, rowPitch, slicePitch)
	if err != nil {
		return nil, err
	}
	if uint64(len(host)) < need {
		return nil, newError(ErrInvalidSize, op, q.adapter.name, "%d bytes of host memory for %d", len(host), need)
	}
	dw, err := q.useWaitList(op, wait)
	if err != nil {
		return nil, err
	}
	defer leaveEvents(wait)
	r := driver.ImageRegion{Origin: origin, Region: region}
	var ev driver.Event
	if write {
		ev, err = iq.WriteImage(img.drv, blocking, r, row, slice, host, dw, !blocking)
	} else {
		ev, err = iq.ReadImage(img.drv, blocking, r, row, slice, host, dw, !blocking)
	}
	if blocking {
		host = nil
	}
	return q.finishEnqueue(op, ev, err, host)
}

// EnqueueCopyImage copies a box of pixels between two images of one
// format (urEnqueueMemImageCopy); a format mismatch is
// ErrInvalidImageFormatDescriptor.
func (q *Queue) EnqueueCopyImage(src, dst *Mem, srcOrigin, dstOrigin, region [3]uint64, wait ...*Event) (rh *Event, rerr error) {
	const op = "Queue.EnqueueCopyImage"
	if t := trace.Active(); t != nil {
		tc := beginCall(t, op, q, src, dst)
		defer tc.endEventOf(q, &rh, &rerr)
	}

	iq, si, err := q.enterImage(op, src)
	if err != nil {
		return nil, err
	}
	defer q.life.leave()
	defer src.life.leave()
	di, err := q.useImage(op, dst)
	if err != nil {
		return nil, err
	}
	defer dst.life.leave()
	if si.format != di.format {
		return nil, newError(ErrInvalidImageFormatDescriptor, op, q.adapter.name, "copy from %s to %s pixels", si.format, di.format)
	}
	if err := firstErr(q.checkBox(op, si, srcOrigin, region), q.checkBox(op, di, dstOrigin, region)); err != nil {
		return nil, err
	}
	dw, err := q.useWaitList(op, wait)
	if err != nil {
		return nil, err
	}
	defer leaveEvents(wait)
	ev, err := iq.CopyImage(src.drv, dst.drv, srcOrigin, driver.ImageRegion{Origin: dstOrigin, Region: region}, dw, true)
	return q.finishEnqueue(op, ev, err, nil)
}

// FillColorFloat is a fill color for images of normalized, half or float
// channels.
func FillColorFloat(r, g, b, a float32) [16]byte {
	var c [16]byte
	for i, v := range []float32{r, g, b, a} {
		binary.NativeEndian.PutUint32(c[4*i:], math.Float32bits(v))
	}
	return c
}

// FillColorUint is a fill color for images of unsigned integer channels;
// FillColorInt for signed ones.
func FillColorUint(r, g, b, a uint32) [16]byte {
	var c [16]byte
	for i, v := range []uint32{r, g, b, a} {
		binary.NativeEndian.PutUint32(c[4*i:], v)
	}
	return c
}

// FillColorInt is a fill color for images of signed integer channels.
func FillColorInt(r, g, b, a int32) [16]byte {
	return FillColorUint(uint32(r), uint32(g), uint32(b), uint32(a))
}

// EnqueueFillImage fills a box of the image with one color
// (urEnqueueMemImageFill; FillColorFloat, FillColorInt, FillColorUint).
func (q *Queue) EnqueueFillImage(img *Mem, color [16]byte, origin, region [3]uint64, wait ...*Event) (rh *Event, rerr error) {
	const op = "Queue.EnqueueFillImage"
	if t := trace.Active(); t != nil {
		tc := beginCall(t, op, q, img)
		defer tc.endEventOf(q, &rh, &rerr)
	}

	iq, info, err := q.enterImage(op, img)
	if err != nil {
		return nil, err
	}
	defer q.life.leave()
	defer img.life.leave()
	if err := q.checkBox(op, info, origin, region); err != nil {
		return nil, err
	}
	dw, err := q.useWaitList(op, wait)
	if err != nil {
		return nil, err
	}
	defer leaveEvents(wait)
	ev, err := iq.FillImage(img.drv, color, driver.ImageRegion{Origin: origin, Region: region}, dw, true)
	return q.finishEnqueue(op, ev, err, nil)
}

// EnqueueCopyImageToBuffer copies a box of the image into the buffer at
// dstOffset, pixels tightly packed.
func (q *Queue) EnqueueCopyImageToBuffer(src *Mem, origin, region [3]uint64, dst *Mem, dstOffset uint64, wait ...*Event) (rh *Event, rerr error) {
	const op = "Queue.EnqueueCopyImageToBuffer"
	if t := trace.Active(); t != nil {
		tc := beginCall(t, op, q, src, dst)
		defer tc.endEventOf(q, &rh, &rerr)
	}

	return q.imageBufferCopy(op, true, src, origin, region, dst, dstOffset, wait)
}

// EnqueueCopyBufferToImage copies tightly packed pixels from the buffer
// at srcOffset into a box of the image.
func (q *Queue) EnqueueCopyBufferToImage(src *Mem, srcOffset uint64, dst *Mem, origin, region [3]uint64, wait ...*Event) (rh *Event, rerr error) {
	const op = "Queue.EnqueueCopyBufferToImage"
	if t := trace.Active(); t != nil {
		tc := beginCall(t, op, q, src, dst)
		defer tc.endEventOf(q, &rh, &rerr)
	}

	return q.imageBufferCopy(op, false, dst, origin, region, src, srcOffset, wait)
}

func (q *Queue) imageBufferCopy(op string, toBuffer bool, img *Mem, origin, region [3]uint64, buf *Mem, offset uint64, wait []*Event) (*Event, error) {
	iq, info, err := q.enterImage(op, img)
	if err != nil {
		return nil, err
	}
	defer q.life.leave()
	defer img.life.leave()
	if err := q.useMem(op, buf); err != nil {
		return nil, err
	}
	defer buf.life.leave()
	if _, isImage := imageOf(buf); isImage {
		return nil, newError(ErrInvalidMemObject, op, q.adapter.name, "an image where a buffer goes")
	}
	if err := q.checkBox(op, info, origin, region); err != nil {
		return nil, err
	}
	bytes, ok1 := mulOK(region[0], region[1])
	bytes, ok2 := mulOK(bytes, region[2])
	bytes, ok3 := mulOK(bytes, info.pixel)
	if !ok1 || !ok2 || !ok3 || offset > buf.size || bytes > buf.size-offset {
		return nil, newError(ErrInvalidSize, op, q.adapter.name, "%d bytes at %d are outside the buffer's %d", bytes, offset, buf.size)
	}
	dw, err := q.useWaitList(op, wait)
	if err != nil {
		return nil, err
	}
	defer leaveEvents(wait)
	r := driver.ImageRegion{Origin: origin, Region: region}
	var ev driver.Event
	if toBuffer {
		ev, err = iq.CopyImageToBuffer(img.drv, r, buf.drv, offset, dw, true)
	} else {
		ev, err = iq.CopyBufferToImage(buf.drv, offset, img.drv, r, dw, true)
	}
	return q.finishEnqueue(op, ev, err, nil)
}

// Sampler says how kernels read images (urSamplerCreate); a kernel takes
// it with Kernel.SetArgSampler.
type Sampler struct {
	object
	ctx  *Context
	drv  driver.Sampler
	desc SamplerDesc
}

// NewSampler makes a sampler (urSamplerCreate); an unknown addressing or
// filter mode is ErrInvalidEnumeration.
func (c *Context) NewSampler(desc SamplerDesc) (rh *Sampler, rerr error) {
	const op = "Context.NewSampler"
	if t := trace.Active(); t != nil {
		tc := beginCall(t, op, c)
		defer endNewOf(&tc, &rh, &rerr)
	}

	if err := c.enter(op); err != nil {
		return nil, err
	}
	defer c.life.leave()
	ic, err := c.imageContext(op)
	if err != nil {
		return nil, err
	}
	if desc.Addressing > AddressMirroredRepeat || desc.Filter > FilterLinear {
		return nil, newError(ErrInvalidEnumeration, op, c.adapter.name, "addressing %d, filter %d", desc.Addressing, desc.Filter)
	}
	drv, err := ic.NewSampler(desc)
	if err != nil {
		return nil, c.wrap(err, op)
	}
	s := &Sampler{object: object{adapter: c.adapter}, ctx: c, drv: drv, desc: desc}
	s.created("Sampler")
	s.life.free = drv.Release
	return s, nil
}

func (s *Sampler) enter(op string) error {
	if s == nil {
		return nilHandle("Sampler", op)
	}
	return s.object.enter("Sampler", ErrInvalidSampler, op)
}

// Release frees the sampler. A kernel it was set on must be given
// another before its next launch.
func (s *Sampler) Release() error {
	if s == nil {
		return nilHandle("Sampler", "Sampler.Release")
	}
	return s.release("Sampler", ErrInvalidSampler)
}

// Desc is how the sampler reads (urSamplerGetInfo).
func (s *Sampler) Desc() SamplerDesc {
	if s.enter("Sampler.Desc") != nil {
		return SamplerDesc{}
	}
	defer s.life.leave()
	return s.desc
}

// Context is the sampler's context.
func (s *Sampler) Context() *Context {
	if s.enter("Sampler.Context") != nil {
		return nil
	}
	defer s.life.leave()
	return s.ctx
}

// Native is the driver's handle (cl_sampler); 0 for a nil or released
// sampler.
func (s *Sampler) Native() uintptr {
	if s.enter("Sampler.Native") != nil {
		return 0
	}
	defer s.life.leave()
	return s.drv.Native()
}

// SetArgSampler sets a sampler argument (sampler_t).
func (k *Kernel) SetArgSampler(index int, s *Sampler) (rerr error) {
	const op = "Kernel.SetArgSampler"
	if t := trace.Active(); t != nil {
		tc := beginCall(t, op, k, s)
		defer tc.end(&rerr)
	}

	if err := k.enter(op); err != nil {
		return err
	}
	defer k.life.leave()
	if err := k.checkIndex(op, index); err != nil {
		return err
	}
	if err := s.enter(op); err != nil {
		return err
	}
	defer s.life.leave()
	if s.ctx != k.ctx {
		return newError(ErrInvalidContext, op, k.adapter.name, "sampler belongs to another context")
	}
	sk, ok := k.drv.(driver.SamplerKernel)
	if !ok {
		return newError(ErrUnsupportedFeature, op, k.adapter.name, "the %s adapter's kernels take no samplers", k.adapter.name)
	}
	if err := sk.SetArgSampler(uint32(index), s.drv); err != nil {
		return wrapError(err, op, k.adapter.name)
	}
	k.args.markSet(index)
	return nil
}

// mulOK is a*b and whether it did not overflow.
func mulOK(a, b uint64) (uint64, bool) {
	hi, lo := bits.Mul64(a, b)
	return lo, hi == 0
}
