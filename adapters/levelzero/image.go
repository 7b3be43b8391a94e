package levelzero

import (
	"fmt"
	"math"
	"slices"
	"unsafe"

	"github.com/gour-dev/gour/adapters/levelzero/internal/ze"
	"github.com/gour-dev/gour/ur/driver"
)

// This file is images and samplers (driver.ImageContext, ImageQueue,
// SamplerKernel) with zeImageCreate, zeSamplerCreate and
// zeCommandListAppendImageCopy*. A Level Zero image belongs to one
// device: a context's images and samplers are made on its first device,
// as the Unified Runtime's own Level Zero adapter does. Kernels take an
// image or a sampler as the ze_image_handle_t or ze_sampler_handle_t
// value of its argument.
//
// Level Zero's copies between images and memory take tightly packed
// pixels only: host memory with other pitches goes through a packed copy
// on the host (a read with such pitches then waits for the queue). Level
// Zero has no image fill either: a fill writes a host buffer of the
// region's pixels, encoded from the color as the format stores them.

var (
	_ driver.ImageContext  = (*context)(nil)
	_ driver.ImageQueue    = (*queue)(nil)
	_ driver.SamplerKernel = (*kernel)(nil)
)

// image is what a mem that is an image keeps of it.
type image struct {
	handle ze.Image
	format driver.ImageFormat
	desc   driver.ImageDesc
	pixel  uint64
}

var zeImageTypes = map[driver.ImageType]ze.ImageType{
	driver.Image1D: ze.ImageType1D, driver.Image1DArray: ze.ImageType1DArray, driver.Image2D: ze.ImageType2D,
	driver.Image2DArray: ze.ImageType2DArray, driver.Image3D: ze.ImageType3D,
}

// orderSwizzles are the channels each order stores, in memory order, as
// the Unified Runtime's Level Zero adapter reads ze_image_format_t back
// (ze2urImageFormat). Orders with the channel count of
// driver.ImageFormat.PixelSize only: Rx is one channel there, RGx two.
// Intensity, luminance and sRGB have no Level Zero format.
var orderSwizzles = map[driver.ChannelOrder][]ze.Swizzle{
	driver.ChannelA:    {ze.SwizzleA},
	driver.ChannelR:    {ze.SwizzleR},
	driver.ChannelRx:   {ze.SwizzleR},
	driver.ChannelRG:   {ze.SwizzleR, ze.SwizzleG},
	driver.ChannelRGx:  {ze.SwizzleR, ze.SwizzleG},
	driver.ChannelRA:   {ze.SwizzleR, ze.SwizzleA},
	driver.ChannelRGB:  {ze.SwizzleR, ze.SwizzleG, ze.SwizzleB},
	driver.ChannelRGBx: {ze.SwizzleR, ze.SwizzleG, ze.SwizzleB},
	driver.ChannelRGBA: {ze.SwizzleR, ze.SwizzleG, ze.SwizzleB, ze.SwizzleA},
	driver.ChannelBGRA: {ze.SwizzleB, ze.SwizzleG, ze.SwizzleR, ze.SwizzleA},
	driver.ChannelARGB: {ze.SwizzleA, ze.SwizzleR, ze.SwizzleG, ze.SwizzleB},
	driver.ChannelABGR: {ze.SwizzleA, ze.SwizzleB, ze.SwizzleG, ze.SwizzleR},
}

// layouts are the layouts of 1, 2 and 4 channels of 8, 16 and 32 bits;
// Level Zero 1.4 has no three-channel layout but the packed ones.
var layouts = map[[2]int]ze.ImageFormatLayout{
	{1, 8}: ze.ImageFormatLayout8, {1, 16}: ze.ImageFormatLayout16, {1, 32}: ze.ImageFormatLayout32,
	{2, 8}: ze.ImageFormatLayout8_8, {2, 16}: ze.ImageFormatLayout16_16, {2, 32}: ze.ImageFormatLayout32_32,
	{4, 8}: ze.ImageFormatLayout8_8_8_8, {4, 16}: ze.ImageFormatLayout16_16_16_16, {4, 32}: ze.ImageFormatLayout32_32_32_32,
}

// zeFormat is f as a ze_image_format_t; ok is false for a format Level
// Zero cannot describe. Components the order lacks read 0 (x, y, z) or 1
// (w); padding (the x of RGBx) is "don't care".
func zeFormat(f driver.ImageFormat) (zf ze.ImageFormat, ok bool) {
	sw, known := orderSwizzles[f.Order]
	if !known || f.PixelSize() == 0 {
		return zf, false
	}
	swz := [4]ze.Swizzle{ze.Swizzle0, ze.Swizzle0, ze.Swizzle0, ze.Swizzle1}
	copy(swz[:], sw)
	switch f.Type {
	case driver.ChannelUnormShort565:
		zf.Layout, zf.Type = ze.ImageFormatLayout5_6_5, ze.ImageFormatTypeUnorm
	case driver.ChannelUnormShort555:
		zf.Layout, zf.Type, swz[3] = ze.ImageFormatLayout5_5_5_1, ze.ImageFormatTypeUnorm, ze.SwizzleNone
	case driver.ChannelInt101010:
		zf.Layout, zf.Type, swz[3] = ze.ImageFormatLayout10_10_10_2, ze.ImageFormatTypeUnorm, ze.SwizzleNone
	default:
		var bits int
		zf.Type, bits = zeChannelType(f.Type)
		if zf.Layout, ok = layouts[[2]int{len(sw), bits}]; !ok {
			return zf, false
		}
	}
	zf.X, zf.Y, zf.Z, zf.W = swz[0], swz[1], swz[2], swz[3]
	return zf, true
}

// zeChannelType is the type and bits of a channel type that is not packed.
func zeChannelType(t driver.ChannelType) (ze.ImageFormatType, int) {
	switch t {
	case driver.ChannelSnormInt8:
		return ze.ImageFormatTypeSnorm, 8
	case driver.ChannelSnormInt16:
		return ze.ImageFormatTypeSnorm, 16
	case driver.ChannelUnormInt8:
		return ze.ImageFormatTypeUnorm, 8
	case driver.ChannelUnormInt16:
		return ze.ImageFormatTypeUnorm, 16
	case driver.ChannelSignedInt8:
		return ze.ImageFormatTypeSint, 8
	case driver.ChannelSignedInt16:
		return ze.ImageFormatTypeSint, 16
	case driver.ChannelSignedInt32:
		return ze.ImageFormatTypeSint, 32
	case driver.ChannelUnsignedInt8:
		return ze.ImageFormatTypeUint, 8
	case driver.ChannelUnsignedInt16:
		return ze.ImageFormatTypeUint, 16
	case driver.ChannelUnsignedInt32:
		return ze.ImageFormatTypeUint, 32
	case driver.ChannelHalfFloat:
		return ze.ImageFormatTypeFloat, 16
	}
	return ze.ImageFormatTypeFloat, 32
}

// zeImageDesc is the ze_image_desc_t of an image; dimensions a type does
// not use are 1.
func zeImageDesc(flags driver.MemFlags, zf ze.ImageFormat, d driver.ImageDesc) (*ze.ImageDesc, error) {
	desc := &ze.ImageDesc{Type: zeImageTypes[d.Type], Format: zf, Width: d.Width, Height: 1, Depth: 1}
	if flags != driver.MemReadOnly {
		desc.Flags = ze.ImageFlagKernelWrite
	}
	h, dep, layers := uint64(1), uint64(1), uint64(0)
	switch d.Type {
	case driver.Image2D:
		h = d.Height
	case driver.Image2DArray:
		h, layers = d.Height, d.ArraySize
	case driver.Image3D:
		h, dep = d.Height, d.Depth
	case driver.Image1DArray:
		layers = d.ArraySize
	}
	if h > math.MaxUint32 || dep > math.MaxUint32 || layers > math.MaxUint32 {
		return nil, driver.Errorf(driver.ResultInvalidImageSize, "ze_image_desc_t takes 32-bit heights, depths and layer counts: %dx%dx%d, %d layers", d.Width, d.Height, d.Depth, d.ArraySize)
	}
	desc.Height, desc.Depth, desc.ArrayLevels = uint32(h), uint32(dep), uint32(layers)
	return desc, nil
}

type formatsKey struct {
	readOnly bool
	t        driver.ImageType
}

// SupportedImageFormats asks zeImageGetProperties of every format Level
// Zero can describe, on every device of the context, once per context.
func (c *context) SupportedImageFormats(flags driver.MemFlags, t driver.ImageType) ([]driver.ImageFormat, error) {
	key := formatsKey{flags == driver.MemReadOnly, t}
	c.mu.Lock()
	fs, ok := c.imageFormats[key]
	c.mu.Unlock()
	if ok {
		return slices.Clone(fs), nil
	}
	fs = []driver.ImageFormat{}
	for o := driver.ChannelA; o <= driver.ChannelSRGBA; o++ {
		for ct := driver.ChannelSnormInt8; ct <= driver.ChannelFloat; ct++ {
			f := driver.ImageFormat{Order: o, Type: ct}
			zf, ok := zeFormat(f)
			if !ok {
				continue
			}
			desc, err := zeImageDesc(flags, zf, driver.ImageDesc{Type: t, Width: 1, Height: 1, Depth: 1, ArraySize: 1})
			if err != nil {
				return nil, err
			}
			all := true
			for _, d := range c.devices {
				// A driver may refuse a format it cannot describe with
				// another code than UNSUPPORTED_IMAGE_FORMAT: only a lost
				// device, no memory or no entry point fails the listing.
				switch _, r := c.ze.ImageGetProperties(d.handle, desc); r {
				case ze.Success:
				case ze.NotSupported, ze.ErrorUninitialized, ze.ErrorDeviceLost, ze.ErrorOutOfHostMemory, ze.ErrorOutOfDeviceMemory:
					return nil, ipcCheck("zeImageGetProperties", r)
				default:
					all = false
				}
			}
			if all {
				fs = append(fs, f)
			}
		}
	}
	c.mu.Lock()
	if c.imageFormats == nil {
		c.imageFormats = map[formatsKey][]driver.ImageFormat{}
	}
	c.imageFormats[key] = fs
	c.mu.Unlock()
	return slices.Clone(fs), nil
}

// NewImage is zeImageCreate on the context's first device, then, with
// host data, a copy from it on the context's synchronous list.
func (c *context) NewImage(flags driver.MemFlags, f driver.ImageFormat, d driver.ImageDesc, host []byte) (driver.Mem, error) {
	zf, ok := zeFormat(f)
	if !ok {
		return nil, driver.Errorf(driver.ResultUnsupportedImageFormat, "Level Zero has no image format for %v", f)
	}
	desc, err := zeImageDesc(flags, zf, d)
	if err != nil {
		return nil, err
	}
	dev := c.devices[0]
	h, r := c.ze.ImageCreate(c.handle, dev.handle, desc)
	switch r {
	case ze.Success:
	case ze.ErrorUnsupportedImageFormat:
		return nil, driver.Errorf(driver.ResultUnsupportedImageFormat, "the device has no %v images of format %v (ZE_RESULT_ERROR_UNSUPPORTED_IMAGE_FORMAT)", d.Type, f)
	case ze.ErrorUnsupportedSize, ze.ErrorInvalidSize:
		e := zeError("zeImageCreate", r)
		e.Result = driver.ResultInvalidImageSize
		e.Message += " for an image of " + imageSize(d)
		return nil, e
	default:
		return nil, ipcCheck("zeImageCreate", r)
	}
	img := &image{handle: h, format: f, desc: d, pixel: f.PixelSize()}
	ext := d.Extent()
	m := &mem{c: c, size: ext[0] * ext[1] * ext[2] * img.pixel, image: img}
	c.retain()
	if len(host) > 0 {
		all := driver.ImageRegion{Region: ext}
		region := zeRegion(all)
		src, _ := img.packed(all.Region, d.RowPitch, d.SlicePitch, host)
		c.mu.Lock()
		l, err := c.initList(dev)
		if err == nil {
			err = check("zeCommandListAppendImageCopyFromMemory", c.ze.CommandListAppendImageCopyFromHost(l, h, unsafe.Pointer(&src[0]), region, 0, nil))
		}
		c.mu.Unlock()
		if err != nil {
			c.ze.ImageDestroy(h)
			c.unref()
			return nil, err
		}
	}
	return m, nil
}

func imageSize(d driver.ImageDesc) string {
	ext := d.Extent()
	return fmt.Sprintf("%dx%dx%d pixels", ext[0], ext[1], ext[2])
}

// zeRegion is a box as a ze_image_region_t, on the heap for C. The front
// end has checked it lies in an image, whose extents are 32-bit.
func zeRegion(r driver.ImageRegion) *ze.ImageRegion {
	return &ze.ImageRegion{OriginX: uint32(r.Origin[0]), OriginY: uint32(r.Origin[1]), OriginZ: uint32(r.Origin[2]),
		Width: uint32(r.Region[0]), Height: uint32(r.Region[1]), Depth: uint32(r.Region[2])}
}

// hostBox is how a box of pixels lies in host memory: rows of rowBytes,
// rows of a slice rowPitch apart, slices slicePitch apart. A 1D array's
// layers are its slices, of one row.
type hostBox struct {
	rowBytes, rows, slices uint64
	rowPitch, slicePitch   uint64
}

func (img *image) box(region [3]uint64, rowPitch, slicePitch uint64) hostBox {
	b := hostBox{rowBytes: region[0] * img.pixel, rows: region[1], slices: region[2], rowPitch: rowPitch, slicePitch: slicePitch}
	if img.desc.Type == driver.Image1DArray {
		b.rows, b.slices = 1, region[1]
	}
	if b.rowPitch == 0 {
		b.rowPitch = b.rowBytes
	}
	if b.slicePitch == 0 {
		b.slicePitch = b.rowPitch * b.rows
	}
	return b
}

// tight reports whether the box is packed as Level Zero's copies take it.
func (b hostBox) tight() bool {
	return (b.rows == 1 || b.rowPitch == b.rowBytes) && (b.slices == 1 || b.slicePitch == b.rowBytes*b.rows)
}

// copyBox copies the box's rows between host memory laid out as b and
// packed memory: to packed when pack is set, from it otherwise.
func (b hostBox) copyBox(packed, host []byte, pack bool) {
	for z := range b.slices {
		for y := range b.rows {
			p := packed[(z*b.rows+y)*b.rowBytes:][:b.rowBytes]
			h := host[z*b.slicePitch+y*b.rowPitch:][:b.rowBytes]
			if pack {
				copy(p, h)
			} else {
				copy(h, p)
			}
		}
	}
}

// packed returns host's pixels of the box tightly packed: host itself
// when it is, a copy otherwise (tight false).
func (img *image) packed(region [3]uint64, rowPitch, slicePitch uint64, host []byte) (out []byte, tight bool) {
	b := img.box(region, rowPitch, slicePitch)
	if b.tight() {
		return host, true
	}
	out = make([]byte, b.rowBytes*b.rows*b.slices)
	b.copyBox(out, host, true)
	return out, false
}

// sampler is a ze_sampler_handle_t of the context's first device.
type sampler struct {
	c      *context
	handle ze.Sampler
}

// Release waits for the context's queues, as Level Zero requires that
// the device no longer uses a sampler it destroys.
func (s *sampler) Release() error {
	err := s.c.quiesce()
	if err2 := check("zeSamplerDestroy", s.c.ze.SamplerDestroy(s.handle)); err == nil {
		err = err2
	}
	if err2 := s.c.unref(); err == nil {
		err = err2
	}
	return err
}

func (s *sampler) Native() uintptr { return uintptr(s.handle) }

// zeAddressModes maps the Unified Runtime's addressing modes: its clamp
// to edge is Level Zero's clamp, its clamp (to the border color) Level
// Zero's clamp to border.
var zeAddressModes = [...]ze.SamplerAddressMode{
	driver.AddressNone: ze.SamplerAddressModeNone, driver.AddressClampToEdge: ze.SamplerAddressModeClamp,
	driver.AddressClamp: ze.SamplerAddressModeClampToBorder, driver.AddressRepeat: ze.SamplerAddressModeRepeat,
	driver.AddressMirroredRepeat: ze.SamplerAddressModeMirror,
}

func (c *context) NewSampler(d driver.SamplerDesc) (driver.Sampler, error) {
	desc := &ze.SamplerDesc{AddressMode: zeAddressModes[d.Addressing], FilterMode: ze.SamplerFilterModeNearest}
	if d.Filter == driver.FilterLinear {
		desc.FilterMode = ze.SamplerFilterModeLinear
	}
	if d.Normalized {
		desc.IsNormalized = 1
	}
	h, r := c.ze.SamplerCreate(c.handle, c.devices[0].handle, desc)
	if err := ipcCheck("zeSamplerCreate", r); err != nil {
		return nil, err
	}
	c.retain()
	return &sampler{c: c, handle: h}, nil
}

// SetArgSampler passes the ze_sampler_handle_t as the argument's value.
func (k *kernel) SetArgSampler(index uint32, s driver.Sampler) error {
	k.mu.Lock()
	defer k.mu.Unlock()
	if index >= k.numArgs {
		return driver.Errorf(driver.ResultInvalidKernelArgumentIndex, "argument %d: kernel %s takes %d", index, k.name, k.numArgs)
	}
	k.memArgs[index] = uintptr(s.(*sampler).handle)
	return k.setArg(index, unsafe.Sizeof(uintptr(0)), unsafe.Pointer(&k.memArgs[index]))
}

func (q *queue) ReadImage(dm driver.Mem, blocking bool, r driver.ImageRegion, rowPitch, slicePitch uint64, dst []byte, wait []driver.Event, wantEvent bool) (driver.Event, error) {
	img := dm.(*mem).image
	b := img.box(r.Region, rowPitch, slicePitch)
	tmp := dst
	if !b.tight() {
		tmp = make([]byte, b.rowBytes*b.rows*b.slices)
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	cmd, err := q.begin(wait, wantEvent)
	if err != nil {
		return nil, err
	}
	res := q.ze.CommandListAppendImageCopyToHost(q.list, unsafe.Pointer(&tmp[0]), img.handle, zeRegion(r), cmd.signal, cmd.wait)
	ev, err := q.end("zeCommandListAppendImageCopyToMemory", cmd, res, tmp)
	if err != nil || b.tight() {
		return q.blocking(blocking, ev, err)
	}
	// The pixels are unpacked into dst once the copy is done: the read
	// waits, whether or not it blocks.
	if err := q.sync(); err != nil {
		if ev != nil {
			ev.(*event).free()
		}
		return nil, err
	}
	b.copyBox(tmp, dst, false)
	return ev, nil
}

func (q *queue) WriteImage(dm driver.Mem, blocking bool, r driver.ImageRegion, rowPitch, slicePitch uint64, src []byte, wait []driver.Event, wantEvent bool) (driver.Event, error) {
	img := dm.(*mem).image
	p, _ := img.packed(r.Region, rowPitch, slicePitch, src)
	q.mu.Lock()
	defer q.mu.Unlock()
	cmd, err := q.begin(wait, wantEvent)
	if err != nil {
		return nil, err
	}
	res := q.ze.CommandListAppendImageCopyFromHost(q.list, img.handle, unsafe.Pointer(&p[0]), zeRegion(r), cmd.signal, cmd.wait)
	ev, err := q.end("zeCommandListAppendImageCopyFromMemory", cmd, res, p)
	return q.blocking(blocking, ev, err)
}

// CopyImage is zeCommandListAppendImageCopy for a copy of a whole image
// onto another of its size, zeCommandListAppendImageCopyRegion otherwise.
func (q *queue) CopyImage(src, dst driver.Mem, srcOrigin [3]uint64, d driver.ImageRegion, wait []driver.Event, wantEvent bool) (driver.Event, error) {
	si, di := src.(*mem).image, dst.(*mem).image
	whole := srcOrigin == [3]uint64{} && d.Origin == [3]uint64{} && d.Region == si.desc.Extent() && d.Region == di.desc.Extent()
	q.mu.Lock()
	defer q.mu.Unlock()
	cmd, err := q.begin(wait, wantEvent)
	if err != nil {
		return nil, err
	}
	if whole {
		res := q.ze.CommandListAppendImageCopy(q.list, di.handle, si.handle, cmd.signal, cmd.wait)
		return q.end("zeCommandListAppendImageCopy", cmd, res, nil)
	}
	sr := zeRegion(driver.ImageRegion{Origin: srcOrigin, Region: d.Region})
	res := q.ze.CommandListAppendImageCopyRegion(q.list, di.handle, si.handle, zeRegion(d), sr, cmd.signal, cmd.wait)
	return q.end("zeCommandListAppendImageCopyRegion", cmd, res, nil)
}

// FillImage copies the region's pixels from the host: Level Zero has no
// image fill.
func (q *queue) FillImage(dm driver.Mem, color [16]byte, r driver.ImageRegion, wait []driver.Event, wantEvent bool) (driver.Event, error) {
	img := dm.(*mem).image
	px, err := driver.EncodePixel(img.format, color)
	if err != nil {
		return nil, err
	}
	n := r.Region[0] * r.Region[1] * r.Region[2]
	pat := make([]byte, n*uint64(len(px)))
	for i := uint64(0); i < n; i++ {
		copy(pat[i*uint64(len(px)):], px)
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	cmd, err := q.begin(wait, wantEvent)
	if err != nil {
		return nil, err
	}
	res := q.ze.CommandListAppendImageCopyFromHost(q.list, img.handle, unsafe.Pointer(&pat[0]), zeRegion(r), cmd.signal, cmd.wait)
	return q.end("zeCommandListAppendImageCopyFromMemory", cmd, res, pat)
}

func (q *queue) CopyImageToBuffer(src driver.Mem, r driver.ImageRegion, dst driver.Mem, dstOffset uint64, wait []driver.Event, wantEvent bool) (driver.Event, error) {
	img := src.(*mem).image
	q.mu.Lock()
	defer q.mu.Unlock()
	cmd, err := q.begin(wait, wantEvent)
	if err != nil {
		return nil, err
	}
	res := q.ze.CommandListAppendImageCopyToMemory(q.list, dst.(*mem).ptr+uintptr(dstOffset), img.handle, zeRegion(r), cmd.signal, cmd.wait)
	return q.end("zeCommandListAppendImageCopyToMemory", cmd, res, nil)
}

func (q *queue) CopyBufferToImage(src driver.Mem, srcOffset uint64, dst driver.Mem, r driver.ImageRegion, wait []driver.Event, wantEvent bool) (driver.Event, error) {
	img := dst.(*mem).image
	q.mu.Lock()
	defer q.mu.Unlock()
	cmd, err := q.begin(wait, wantEvent)
	if err != nil {
		return nil, err
	}
	res := q.ze.CommandListAppendImageCopyFromMemory(q.list, img.handle, src.(*mem).ptr+uintptr(srcOffset), zeRegion(r), cmd.signal, cmd.wait)
	return q.end("zeCommandListAppendImageCopyFromMemory", cmd, res, nil)
}

// imageQuery answers the image queries from zeDeviceGetImageProperties.
func (d *device) imageQuery(q driver.DeviceQuery) (any, error) {
	p, r := d.p.a.ze.DeviceGetImageProperties(d.handle)
	if r == ze.NotSupported || r == ze.ErrorUnsupportedFeature {
		if q == driver.DeviceInfoImageSupported {
			return false, nil
		}
		return nil, driver.Unanswered(q, "no zeDeviceGetImageProperties")
	}
	if err := check("zeDeviceGetImageProperties", r); err != nil {
		return nil, err
	}
	switch q {
	case driver.DeviceInfoImageSupported:
		return p.MaxImageDims2D > 0, nil
	case driver.DeviceInfoImage2DMaxWidth, driver.DeviceInfoImage2DMaxHeight:
		return uint64(p.MaxImageDims2D), nil
	case driver.DeviceInfoImage3DMaxWidth, driver.DeviceInfoImage3DMaxHeight, driver.DeviceInfoImage3DMaxDepth:
		return uint64(p.MaxImageDims3D), nil
	case driver.DeviceInfoImageMaxArraySize:
		return uint64(p.MaxImageArraySlices), nil
	case driver.DeviceInfoImageMaxBufferSize:
		return p.MaxImageBufferSize, nil
	case driver.DeviceInfoMaxSamplers:
		return p.MaxSamplers, nil
	case driver.DeviceInfoMaxReadImageArgs:
		return p.MaxReadImageArgs, nil
	case driver.DeviceInfoMaxWriteImageArgs, driver.DeviceInfoMaxReadWriteImageArgs:
		return p.MaxWriteImageArgs, nil
	}
	return nil, driver.Unanswered(q, "not an image query")
}
