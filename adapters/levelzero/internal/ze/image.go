package ze

import (
	"unsafe"

	"github.com/gour-dev/gour/internal/dl"
)

// This file binds Level Zero's images and samplers (zeImage*,
// zeSampler*, zeCommandListAppendImageCopy*, zeDeviceGetImageProperties).
// The entry points are looked up on each call, as virtual memory's: they
// are called per image and copy, not per launch, and a loader without
// them gives NotSupported.

// Image is a ze_image_handle_t.
type Image uintptr

// Sampler is a ze_sampler_handle_t.
type Sampler uintptr

// Structure types of images and samplers.
const (
	StructureTypeDeviceImageProperties StructureType = 0xa
	StructureTypeImageDesc             StructureType = 0x13
	StructureTypeImageProperties       StructureType = 0x14
	StructureTypeSamplerDesc           StructureType = 0x1f
)

// ImageType is ze_image_type_t.
type ImageType uint32

// Image types.
const (
	ImageType1D      ImageType = 0
	ImageType1DArray ImageType = 1
	ImageType2D      ImageType = 2
	ImageType2DArray ImageType = 3
	ImageType3D      ImageType = 4
)

// Image flags (ze_image_flag_t).
const (
	ImageFlagKernelWrite  = 1 << 0
	ImageFlagBiasUncached = 1 << 1
)

// ImageFormatLayout is ze_image_format_layout_t: the bits of each
// component, in memory order.
type ImageFormatLayout uint32

// Image format layouts (the media layouts, 14 and up, are left out).
const (
	ImageFormatLayout8           ImageFormatLayout = 0
	ImageFormatLayout16          ImageFormatLayout = 1
	ImageFormatLayout32          ImageFormatLayout = 2
	ImageFormatLayout8_8         ImageFormatLayout = 3
	ImageFormatLayout8_8_8_8     ImageFormatLayout = 4
	ImageFormatLayout16_16       ImageFormatLayout = 5
	ImageFormatLayout16_16_16_16 ImageFormatLayout = 6
	ImageFormatLayout32_32       ImageFormatLayout = 7
	ImageFormatLayout32_32_32_32 ImageFormatLayout = 8
	ImageFormatLayout10_10_10_2  ImageFormatLayout = 9
	ImageFormatLayout11_11_10    ImageFormatLayout = 10
	ImageFormatLayout5_6_5       ImageFormatLayout = 11
	ImageFormatLayout5_5_5_1     ImageFormatLayout = 12
	ImageFormatLayout4_4_4_4     ImageFormatLayout = 13
)

// ImageFormatType is ze_image_format_type_t.
type ImageFormatType uint32

// Image format types.
const (
	ImageFormatTypeUint  ImageFormatType = 0
	ImageFormatTypeSint  ImageFormatType = 1
	ImageFormatTypeUnorm ImageFormatType = 2
	ImageFormatTypeSnorm ImageFormatType = 3
	ImageFormatTypeFloat ImageFormatType = 4
)

// Swizzle is ze_image_format_swizzle_t: which channel a component of the
// layout holds.
type Swizzle uint32

// Swizzles.
const (
	SwizzleR    Swizzle = 0
	SwizzleG    Swizzle = 1
	SwizzleB    Swizzle = 2
	SwizzleA    Swizzle = 3
	Swizzle0    Swizzle = 4
	Swizzle1    Swizzle = 5
	SwizzleNone Swizzle = 6 // ZE_IMAGE_FORMAT_SWIZZLE_X: don't care
)

// ImageFormat is ze_image_format_t.
type ImageFormat struct {
	Layout ImageFormatLayout `c:"layout"`
	Type   ImageFormatType   `c:"type"`
	X      Swizzle           `c:"x"`
	Y      Swizzle           `c:"y"`
	Z      Swizzle           `c:"z"`
	W      Swizzle           `c:"w"`
}

// ImageDesc is ze_image_desc_t. Width is 64-bit, the other extents 32.
type ImageDesc struct {
	Stype       StructureType  `c:"stype"`
	PNext       unsafe.Pointer `c:"pNext"`
	Flags       uint32         `c:"flags"`
	Type        ImageType      `c:"type"`
	Format      ImageFormat    `c:"format"`
	Width       uint64         `c:"width"`
	Height      uint32         `c:"height"`
	Depth       uint32         `c:"depth"`
	ArrayLevels uint32         `c:"arraylevels"`
	MipLevels   uint32         `c:"miplevels"`
}

// Sampler filter flags of ImageProperties (ze_image_sampler_filter_flag_t).
const (
	ImageSamplerFilterFlagPoint  = 1 << 0
	ImageSamplerFilterFlagLinear = 1 << 1
)

// ImageProperties is ze_image_properties_t.
type ImageProperties struct {
	Stype              StructureType  `c:"stype"`
	PNext              unsafe.Pointer `c:"pNext"`
	SamplerFilterFlags uint32         `c:"samplerFilterFlags"`
}

// DeviceImageProperties is ze_device_image_properties_t: a maximum of 0
// means no images of that kind.
type DeviceImageProperties struct {
	Stype               StructureType  `c:"stype"`
	PNext               unsafe.Pointer `c:"pNext"`
	MaxImageDims1D      uint32         `c:"maxImageDims1D"`
	MaxImageDims2D      uint32         `c:"maxImageDims2D"`
	MaxImageDims3D      uint32         `c:"maxImageDims3D"`
	MaxImageBufferSize  uint64         `c:"maxImageBufferSize"`
	MaxImageArraySlices uint32         `c:"maxImageArraySlices"`
	MaxSamplers         uint32         `c:"maxSamplers"`
	MaxReadImageArgs    uint32         `c:"maxReadImageArgs"`
	MaxWriteImageArgs   uint32         `c:"maxWriteImageArgs"`
}

// ImageRegion is ze_image_region_t, in pixels. For 1D and 2D images
// depth is 1; y is the layer of a 1D array, z that of a 2D array.
type ImageRegion struct {
	OriginX uint32 `c:"originX"`
	OriginY uint32 `c:"originY"`
	OriginZ uint32 `c:"originZ"`
	Width   uint32 `c:"width"`
	Height  uint32 `c:"height"`
	Depth   uint32 `c:"depth"`
}

// SamplerAddressMode is ze_sampler_address_mode_t.
type SamplerAddressMode uint32

// Sampler address modes.
const (
	SamplerAddressModeNone          SamplerAddressMode = 0
	SamplerAddressModeRepeat        SamplerAddressMode = 1
	SamplerAddressModeClamp         SamplerAddressMode = 2 // to the edge
	SamplerAddressModeClampToBorder SamplerAddressMode = 3
	SamplerAddressModeMirror        SamplerAddressMode = 4
)

// SamplerFilterMode is ze_sampler_filter_mode_t.
type SamplerFilterMode uint32

// Sampler filter modes.
const (
	SamplerFilterModeNearest SamplerFilterMode = 0
	SamplerFilterModeLinear  SamplerFilterMode = 1
)

// SamplerDesc is ze_sampler_desc_t.
type SamplerDesc struct {
	Stype        StructureType      `c:"stype"`
	PNext        unsafe.Pointer     `c:"pNext"`
	AddressMode  SamplerAddressMode `c:"addressMode"`
	FilterMode   SamplerFilterMode  `c:"filterMode"`
	IsNormalized uint8              `c:"isNormalized"`
}

// DeviceGetImageProperties calls zeDeviceGetImageProperties.
func (l *Lib) DeviceGetImageProperties(dev Device) (*DeviceImageProperties, Result) {
	p := &DeviceImageProperties{Stype: StructureTypeDeviceImageProperties}
	f := dl.NewFrame()
	f.Args = dl.Args{uintptr(dev), f.Ptr(0, unsafe.Pointer(p))}
	r, _ := call(f, l.sym("zeDeviceGetImageProperties"))
	return p, r
}

// ImageGetProperties calls zeImageGetProperties: ErrorUnsupportedImageFormat
// (or another error) when the device has no images of desc's format and
// type.
func (l *Lib) ImageGetProperties(dev Device, desc *ImageDesc) (*ImageProperties, Result) {
	desc.Stype = StructureTypeImageDesc
	p := &ImageProperties{Stype: StructureTypeImageProperties}
	f := dl.NewFrame()
	f.Args = dl.Args{uintptr(dev), f.Ptr(0, unsafe.Pointer(desc)), f.Ptr(1, unsafe.Pointer(p))}
	r, _ := call(f, l.sym("zeImageGetProperties"))
	return p, r
}

// ImageCreate calls zeImageCreate.
func (l *Lib) ImageCreate(c Context, dev Device, desc *ImageDesc) (Image, Result) {
	desc.Stype = StructureTypeImageDesc
	f := dl.NewFrame()
	f.Args = dl.Args{uintptr(c), uintptr(dev), f.Ptr(0, unsafe.Pointer(desc)), f.Out(0)}
	r, out := call(f, l.sym("zeImageCreate"))
	return Image(out[0]), r
}

// ImageDestroy calls zeImageDestroy.
func (l *Lib) ImageDestroy(img Image) Result {
	return call1(l.sym("zeImageDestroy"), uintptr(img))
}

// SamplerCreate calls zeSamplerCreate.
func (l *Lib) SamplerCreate(c Context, dev Device, desc *SamplerDesc) (Sampler, Result) {
	desc.Stype = StructureTypeSamplerDesc
	f := dl.NewFrame()
	f.Args = dl.Args{uintptr(c), uintptr(dev), f.Ptr(0, unsafe.Pointer(desc)), f.Out(0)}
	r, out := call(f, l.sym("zeSamplerCreate"))
	return Sampler(out[0]), r
}

// SamplerDestroy calls zeSamplerDestroy.
func (l *Lib) SamplerDestroy(s Sampler) Result {
	return call1(l.sym("zeSamplerDestroy"), uintptr(s))
}

// CommandListAppendImageCopy calls zeCommandListAppendImageCopy: all of
// src into dst, of the same format and size.
func (l *Lib) CommandListAppendImageCopy(cl CommandList, dst, src Image, signal Event, wait []Event) Result {
	f := dl.NewFrame()
	f.Args = dl.Args{uintptr(cl), uintptr(dst), uintptr(src), uintptr(signal), uintptr(uint32(len(wait))), f.Ptr(0, dl.First(wait))}
	r, _ := call(f, l.sym("zeCommandListAppendImageCopy"))
	return r
}

// CommandListAppendImageCopyRegion calls
// zeCommandListAppendImageCopyRegion: a box of src into a box of dst of
// the same extent. The regions are read during the call.
func (l *Lib) CommandListAppendImageCopyRegion(cl CommandList, dst, src Image, dstRegion, srcRegion *ImageRegion, signal Event, wait []Event) Result {
	f := dl.NewFrame()
	f.Args = dl.Args{uintptr(cl), uintptr(dst), uintptr(src), f.Ptr(0, unsafe.Pointer(dstRegion)), f.Ptr(1, unsafe.Pointer(srcRegion)),
		uintptr(signal), uintptr(uint32(len(wait))), f.Ptr(2, dl.First(wait))}
	r, _ := call(f, l.sym("zeCommandListAppendImageCopyRegion"))
	return r
}

// CommandListAppendImageCopyToMemory calls
// zeCommandListAppendImageCopyToMemory: a box of src to the device
// address dst, its pixels tightly packed.
func (l *Lib) CommandListAppendImageCopyToMemory(cl CommandList, dst uintptr, src Image, region *ImageRegion, signal Event, wait []Event) Result {
	return l.imageToMemory(cl, dst, nil, src, region, signal, wait)
}

// CommandListAppendImageCopyToHost is CommandListAppendImageCopyToMemory
// to host memory, which is written when the copy executes and must stay
// referenced until then.
func (l *Lib) CommandListAppendImageCopyToHost(cl CommandList, dst unsafe.Pointer, src Image, region *ImageRegion, signal Event, wait []Event) Result {
	return l.imageToMemory(cl, uintptr(dst), dst, src, region, signal, wait)
}

func (l *Lib) imageToMemory(cl CommandList, dst uintptr, host unsafe.Pointer, src Image, region *ImageRegion, signal Event, wait []Event) Result {
	f := dl.NewFrame()
	f.Ptr(3, host)
	f.Args = dl.Args{uintptr(cl), dst, uintptr(src), f.Ptr(0, unsafe.Pointer(region)), uintptr(signal), uintptr(uint32(len(wait))), f.Ptr(1, dl.First(wait))}
	r, _ := call(f, l.sym("zeCommandListAppendImageCopyToMemory"))
	return r
}

// CommandListAppendImageCopyFromMemory calls
// zeCommandListAppendImageCopyFromMemory: tightly packed pixels at the
// device address src into a box of dst.
func (l *Lib) CommandListAppendImageCopyFromMemory(cl CommandList, dst Image, src uintptr, region *ImageRegion, signal Event, wait []Event) Result {
	return l.imageFromMemory(cl, dst, src, nil, region, signal, wait)
}

// CommandListAppendImageCopyFromHost is
// CommandListAppendImageCopyFromMemory from host memory, which is read
// when the copy executes and must stay referenced until then.
func (l *Lib) CommandListAppendImageCopyFromHost(cl CommandList, dst Image, src unsafe.Pointer, region *ImageRegion, signal Event, wait []Event) Result {
	return l.imageFromMemory(cl, dst, uintptr(src), src, region, signal, wait)
}

func (l *Lib) imageFromMemory(cl CommandList, dst Image, src uintptr, host unsafe.Pointer, region *ImageRegion, signal Event, wait []Event) Result {
	f := dl.NewFrame()
	f.Ptr(3, host)
	f.Args = dl.Args{uintptr(cl), uintptr(dst), src, f.Ptr(0, unsafe.Pointer(region)), uintptr(signal), uintptr(uint32(len(wait))), f.Ptr(1, dl.First(wait))}
	r, _ := call(f, l.sym("zeCommandListAppendImageCopyFromMemory"))
	return r
}
