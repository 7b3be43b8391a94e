package opencl

import (
	"unsafe"

	"github.com/gour-dev/gour/adapters/opencl/internal/cl"
	"github.com/gour-dev/gour/ur/driver"
)

// This file is images and samplers (driver.ImageContext, ImageQueue,
// SamplerKernel) with OpenCL 1.2's clCreateImage, clEnqueue*Image and
// clCreateSampler. An image is a cl_mem, so kernels take it as a buffer.
// Image copies may go through a kernel instead (imagecopy.go).

var (
	_ driver.ImageContext  = (*context)(nil)
	_ driver.ImageQueue    = (*queue)(nil)
	_ driver.SamplerKernel = (*kernel)(nil)
)

var clOrders = [...]uint32{
	driver.ChannelA: 0x10B1, driver.ChannelR: 0x10B0, driver.ChannelRG: 0x10B2, driver.ChannelRA: 0x10B3,
	driver.ChannelRGB: 0x10B4, driver.ChannelRGBA: 0x10B5, driver.ChannelBGRA: 0x10B6, driver.ChannelARGB: 0x10B7,
	driver.ChannelABGR: 0x10C3, driver.ChannelIntensity: 0x10B8, driver.ChannelLuminance: 0x10B9,
	driver.ChannelRx: 0x10BA, driver.ChannelRGx: 0x10BB, driver.ChannelRGBx: 0x10BC, driver.ChannelSRGBA: 0x10C1,
}

// clTypes are CL_SNORM_INT8 (0x10D0) to CL_FLOAT (0x10DE), in the Unified
// Runtime's order.
const clTypeBase = 0x10D0

var clImageTypes = map[driver.ImageType]uint32{
	driver.Image1D: cl.MemObjectImage1D, driver.Image2D: cl.MemObjectImage2D, driver.Image3D: cl.MemObjectImage3D,
	driver.Image1DArray: cl.MemObjectImage1DArray, driver.Image2DArray: cl.MemObjectImage2DArray,
}

func toCLFormat(f driver.ImageFormat) cl.ImageFormat {
	return cl.ImageFormat{Order: clOrders[f.Order], Type: clTypeBase + uint32(f.Type)}
}

func fromCLFormat(f cl.ImageFormat) (driver.ImageFormat, bool) {
	if f.Type < clTypeBase || f.Type > clTypeBase+uint32(driver.ChannelFloat) {
		return driver.ImageFormat{}, false
	}
	for o, v := range clOrders {
		if v == f.Order {
			return driver.ImageFormat{Order: driver.ChannelOrder(o), Type: driver.ChannelType(f.Type - clTypeBase)}, true
		}
	}
	return driver.ImageFormat{}, false
}

func (c *context) SupportedImageFormats(flags driver.MemFlags, t driver.ImageType) ([]driver.ImageFormat, error) {
	fs, st := c.a.lib.SupportedImageFormats(c.handle, accessFlags(flags), clImageTypes[t])
	if err := check("clGetSupportedImageFormats", st); err != nil {
		return nil, err
	}
	var out []driver.ImageFormat
	for _, f := range fs {
		if g, ok := fromCLFormat(f); ok {
			out = append(out, g)
		}
	}
	return out, nil
}

func (c *context) NewImage(flags driver.MemFlags, f driver.ImageFormat, d driver.ImageDesc, host []byte) (driver.Mem, error) {
	clFlags := accessFlags(flags)
	var hostPtr unsafe.Pointer
	if len(host) > 0 {
		clFlags |= cl.MemCopyHostPtr
		hostPtr = unsafe.Pointer(&host[0])
	}
	format := toCLFormat(f)
	desc := cl.ImageDesc{Type: clImageTypes[d.Type], Width: uintptr(d.Width), Height: uintptr(d.Height), Depth: uintptr(d.Depth),
		ArraySize: uintptr(d.ArraySize)}
	oneSlice := d.Type == driver.Image1D || d.Type == driver.Image2D
	if len(host) > 0 {
		desc.RowPitch, desc.SlicePitch = uintptr(d.RowPitch), uintptr(d.SlicePitch)
		if oneSlice {
			desc.SlicePitch = 0 // defined for arrays and 3D images only
		}
	}
	h, st := c.a.lib.CreateImage(c.handle, clFlags, &format, &desc, hostPtr)
	switch st {
	case cl.Success:
		m := &mem{lib: c.a.lib, handle: h, size: uint64(len(host)), oneSlice: oneSlice}
		if kind, ok := imageKindOf[d.Type]; ok {
			m.image = &imageMeta{format: f, kind: kind, readable: flags&driver.MemWriteOnly == 0, writable: flags&driver.MemReadOnly == 0}
		}
		return m, nil
	case cl.ImageFormatNotSupported:
		return nil, driver.Errorf(driver.ResultUnsupportedImageFormat, "the device has no %v images of this format (CL_IMAGE_FORMAT_NOT_SUPPORTED)", f)
	case cl.InvalidImageFormatDescriptor:
		return nil, driver.Errorf(driver.ResultInvalidImageFormatDescriptor, "CL_INVALID_IMAGE_FORMAT_DESCRIPTOR for %v", f)
	case cl.InvalidImageSize:
		return nil, driver.Errorf(driver.ResultInvalidImageSize, "CL_INVALID_IMAGE_SIZE: %dx%dx%d (%d layers)", d.Width, d.Height, d.Depth, d.ArraySize)
	case cl.InvalidOperation:
		return nil, driver.Errorf(driver.ResultUnsupportedFeature, "the device or loader has no images (clCreateImage, OpenCL 1.2)")
	}
	return nil, check("clCreateImage", st)
}

// sampler is a cl_sampler.
type sampler struct {
	lib    *cl.Lib
	handle cl.Sampler // in the struct: SetArgSampler passes its address
}

func (s *sampler) Release() error  { return check("clReleaseSampler", s.lib.ReleaseSampler(s.handle)) }
func (s *sampler) Native() uintptr { return uintptr(s.handle) }

func (c *context) NewSampler(d driver.SamplerDesc) (driver.Sampler, error) {
	h, st := c.a.lib.CreateSampler(c.handle, d.Normalized, 0x1130+uint32(d.Addressing), 0x1140+uint32(d.Filter))
	if st == cl.InvalidOperation {
		return nil, driver.Errorf(driver.ResultUnsupportedFeature, "the device has no samplers (no image support)")
	}
	if err := check("clCreateSampler", st); err != nil {
		return nil, err
	}
	return &sampler{lib: c.a.lib, handle: h}, nil
}

func (k *kernel) SetArgSampler(index uint32, s driver.Sampler) error {
	ss := s.(*sampler)
	return check("clSetKernelArg", k.lib.SetKernelArg(k.handle, index, unsafe.Sizeof(ss.handle), unsafe.Pointer(&ss.handle)))
}

// imageBoxes are the origin and region arrays the enqueues read, in the
// heap for C.
type imageBoxes struct {
	origin, origin2, region [3]uintptr
}

func boxes(origin, origin2, region [3]uint64) *imageBoxes {
	b := new(imageBoxes)
	for i := range 3 {
		b.origin[i], b.origin2[i], b.region[i] = uintptr(origin[i]), uintptr(origin2[i]), uintptr(region[i])
	}
	return b
}

// hostSlicePitch is the slice pitch clEnqueueReadImage and
// clEnqueueWriteImage take for the front end's: OpenCL says it "must be 0
// if image is a 1D or 2D image" (the front end fills it for every type),
// and NVIDIA's driver (580) refuses any other value with CL_INVALID_VALUE,
// where PoCL accepts it.
func hostSlicePitch(img *mem, slicePitch uint64) uintptr {
	if img.oneSlice {
		return 0
	}
	return uintptr(slicePitch)
}

func (q *queue) ReadImage(img driver.Mem, blocking bool, r driver.ImageRegion, rowPitch, slicePitch uint64, dst []byte, wait []driver.Event, wantEvent bool) (driver.Event, error) {
	e, ev := q.newEvent(wantEvent)
	b := boxes(r.Origin, [3]uint64{}, r.Region)
	m := img.(*mem)
	st := q.lib.EnqueueReadWriteImage(false, q.handle, m.handle, blocking, &b.origin, &b.region,
		uintptr(rowPitch), hostSlicePitch(m, slicePitch), unsafe.Pointer(&dst[0]), waitList(wait), ev)
	return q.waitedResult("clEnqueueReadImage", e, st, blocking)
}

func (q *queue) WriteImage(img driver.Mem, blocking bool, r driver.ImageRegion, rowPitch, slicePitch uint64, src []byte, wait []driver.Event, wantEvent bool) (driver.Event, error) {
	e, ev := q.newEvent(wantEvent)
	b := boxes(r.Origin, [3]uint64{}, r.Region)
	m := img.(*mem)
	st := q.lib.EnqueueReadWriteImage(true, q.handle, m.handle, blocking, &b.origin, &b.region,
		uintptr(rowPitch), hostSlicePitch(m, slicePitch), unsafe.Pointer(&src[0]), waitList(wait), ev)
	return q.waitedResult("clEnqueueWriteImage", e, st, blocking)
}

// CopyImage is a kernel of the adapter's own where that is faster than
// the driver's copy and copies every byte (imagecopy.go), else
// clEnqueueCopyImage.
func (q *queue) CopyImage(src, dst driver.Mem, srcOrigin [3]uint64, d driver.ImageRegion, wait []driver.Event, wantEvent bool) (driver.Event, error) {
	if e, ok, err := q.copyImageKernel(src.(*mem), dst.(*mem), srcOrigin, d, wait, wantEvent); ok {
		return e, err
	}
	e, ev := q.newEvent(wantEvent)
	b := boxes(srcOrigin, d.Origin, d.Region)
	st := q.lib.EnqueueCopyImage(q.handle, src.(*mem).handle, dst.(*mem).handle, &b.origin, &b.origin2, &b.region, waitList(wait), ev)
	return q.result("clEnqueueCopyImage", e, st)
}

func (q *queue) FillImage(img driver.Mem, color [16]byte, r driver.ImageRegion, wait []driver.Event, wantEvent bool) (driver.Event, error) {
	e, ev := q.newEvent(wantEvent)
	b := boxes(r.Origin, [3]uint64{}, r.Region)
	c := new([16]byte)
	*c = color
	st := q.lib.EnqueueFillImage(q.handle, img.(*mem).handle, c, &b.origin, &b.region, waitList(wait), ev)
	return q.result("clEnqueueFillImage", e, st)
}

func (q *queue) CopyImageToBuffer(src driver.Mem, r driver.ImageRegion, dst driver.Mem, dstOffset uint64, wait []driver.Event, wantEvent bool) (driver.Event, error) {
	e, ev := q.newEvent(wantEvent)
	b := boxes(r.Origin, [3]uint64{}, r.Region)
	st := q.lib.EnqueueCopyImageToBuffer(q.handle, src.(*mem).handle, dst.(*mem).handle, &b.origin, &b.region, uintptr(dstOffset), waitList(wait), ev)
	return q.result("clEnqueueCopyImageToBuffer", e, st)
}

func (q *queue) CopyBufferToImage(src driver.Mem, srcOffset uint64, dst driver.Mem, r driver.ImageRegion, wait []driver.Event, wantEvent bool) (driver.Event, error) {
	e, ev := q.newEvent(wantEvent)
	b := boxes(r.Origin, [3]uint64{}, r.Region)
	st := q.lib.EnqueueCopyBufferToImage(q.handle, src.(*mem).handle, dst.(*mem).handle, uintptr(srcOffset), &b.origin, &b.region, waitList(wait), ev)
	return q.result("clEnqueueCopyBufferToImage", e, st)
}
