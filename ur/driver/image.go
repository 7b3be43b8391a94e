package driver

// This file holds images and samplers (the Unified Runtime's
// urMemImageCreate, urEnqueueMemImage*, urSampler*): memory with a pixel
// format and one to three dimensions, read and written by kernels through
// the texture hardware, and samplers that say how kernels read them. The
// enumerators have the Unified Runtime's values. The front end checks
// formats, sizes and regions before an adapter sees them.

// ImageType is ur_mem_type_t's image kinds.
type ImageType uint32

// Image types.
const (
	Image2D      ImageType = 1
	Image3D      ImageType = 2
	Image2DArray ImageType = 3
	Image1D      ImageType = 4
	Image1DArray ImageType = 5
)

// ChannelOrder is ur_image_channel_order_t.
type ChannelOrder uint32

// Channel orders.
const (
	ChannelA ChannelOrder = iota
	ChannelR
	ChannelRG
	ChannelRA
	ChannelRGB
	ChannelRGBA
	ChannelBGRA
	ChannelARGB
	ChannelABGR
	ChannelIntensity
	ChannelLuminance
	ChannelRx
	ChannelRGx
	ChannelRGBx
	ChannelSRGBA
)

// ChannelType is ur_image_channel_type_t.
type ChannelType uint32

// Channel types.
const (
	ChannelSnormInt8 ChannelType = iota
	ChannelSnormInt16
	ChannelUnormInt8
	ChannelUnormInt16
	ChannelUnormShort565
	ChannelUnormShort555
	ChannelInt101010
	ChannelSignedInt8
	ChannelSignedInt16
	ChannelSignedInt32
	ChannelUnsignedInt8
	ChannelUnsignedInt16
	ChannelUnsignedInt32
	ChannelHalfFloat
	ChannelFloat
)

// ImageFormat is a pixel's channels and their type.
type ImageFormat struct {
	Order ChannelOrder
	Type  ChannelType
}

// ImageDesc is an image's shape: Width always; Height for 2D, 3D and 2D
// arrays; Depth for 3D; ArraySize for arrays. Pitches are of the host
// memory an image is made from (0: tight).
type ImageDesc struct {
	Type                 ImageType
	Width, Height, Depth uint64
	ArraySize            uint64
	RowPitch, SlicePitch uint64
}

// AddressingMode is ur_sampler_addressing_mode_t.
type AddressingMode uint32

// Addressing modes: what a read outside the image gives.
const (
	AddressNone AddressingMode = iota
	AddressClampToEdge
	AddressClamp
	AddressRepeat
	AddressMirroredRepeat
)

// FilterMode is ur_sampler_filter_mode_t.
type FilterMode uint32

// Filter modes.
const (
	FilterNearest FilterMode = iota
	FilterLinear
)

// SamplerDesc is how a sampler reads: normalized coordinates (0 to 1
// across the image) or pixel ones, addressing and filtering.
type SamplerDesc struct {
	Normalized bool
	Addressing AddressingMode
	Filter     FilterMode
}

// ImageContext is implemented by contexts with images and samplers.
type ImageContext interface {
	// SupportedImageFormats lists the formats of images of type t with
	// the access flags.
	SupportedImageFormats(flags MemFlags, t ImageType) ([]ImageFormat, error)
	// NewImage makes an image, holding a copy of host when it is not nil
	// (laid out with desc's pitches).
	NewImage(flags MemFlags, f ImageFormat, desc ImageDesc, host []byte) (Mem, error)
	NewSampler(desc SamplerDesc) (Sampler, error)
}

// Sampler is a sampler of an ImageContext.
type Sampler interface {
	Release() error
	Native() uintptr
}

// ImageRegion is a box of pixels: Origin and Region are {x, y, z} in
// pixels (z the slice or the layer of arrays; y the layer of 1D arrays);
// unused dimensions are 0 in Origin and 1 in Region.
type ImageRegion struct {
	Origin, Region [3]uint64
}

// ImageQueue is implemented by queues of ImageContext contexts. Host
// memory is laid out with rowPitch and slicePitch, which the front end
// fills when 0.
type ImageQueue interface {
	ReadImage(img Mem, blocking bool, r ImageRegion, rowPitch, slicePitch uint64, dst []byte, wait []Event, wantEvent bool) (Event, error)
	WriteImage(img Mem, blocking bool, r ImageRegion, rowPitch, slicePitch uint64, src []byte, wait []Event, wantEvent bool) (Event, error)
	CopyImage(src, dst Mem, srcOrigin [3]uint64, dst2 ImageRegion, wait []Event, wantEvent bool) (Event, error)
	// FillImage fills the region with one pixel: four float32, int32 or
	// uint32 values, as the channel type reads.
	FillImage(img Mem, color [16]byte, r ImageRegion, wait []Event, wantEvent bool) (Event, error)
	CopyImageToBuffer(src Mem, r ImageRegion, dst Mem, dstOffset uint64, wait []Event, wantEvent bool) (Event, error)
	CopyBufferToImage(src Mem, srcOffset uint64, dst Mem, r ImageRegion, wait []Event, wantEvent bool) (Event, error)
}

// SamplerKernel is implemented by kernels of ImageContext contexts.
// Images are set as any memory argument (Kernel.SetArgMem).
type SamplerKernel interface {
	SetArgSampler(index uint32, s Sampler) error
}

var channelOrderNames = [...]string{"A", "R", "RG", "RA", "RGB", "RGBA", "BGRA", "ARGB", "ABGR", "INTENSITY",
	"LUMINANCE", "RX", "RGX", "RGBX", "SRGBA"}

var channelTypeNames = [...]string{"SNORM_INT8", "SNORM_INT16", "UNORM_INT8", "UNORM_INT16", "UNORM_SHORT_565",
	"UNORM_SHORT_555", "INT_101010", "SIGNED_INT8", "SIGNED_INT16", "SIGNED_INT32", "UNSIGNED_INT8",
	"UNSIGNED_INT16", "UNSIGNED_INT32", "HALF_FLOAT", "FLOAT"}

// String is the Unified Runtime's name without its prefix: "RGBA".
func (o ChannelOrder) String() string {
	if int(o) < len(channelOrderNames) {
		return channelOrderNames[o]
	}
	return "ChannelOrder(" + itoa(uint64(o)) + ")"
}

// String is the Unified Runtime's name without its prefix: "FLOAT".
func (t ChannelType) String() string {
	if int(t) < len(channelTypeNames) {
		return channelTypeNames[t]
	}
	return "ChannelType(" + itoa(uint64(t)) + ")"
}

// String names the format: "RGBA/FLOAT".
func (f ImageFormat) String() string { return f.Order.String() + "/" + f.Type.String() }

// Valid reports whether the format's order and type are known.
func (f ImageFormat) Valid() bool {
	return int(f.Order) < len(channelOrderNames) && int(f.Type) < len(channelTypeNames)
}

// PixelSize is the bytes of one pixel of the format; 0 for a format that
// is not Valid or combines a packed type with an order of other than
// three or four channels.
func (f ImageFormat) PixelSize() uint64 {
	if !f.Valid() {
		return 0
	}
	switch f.Type {
	case ChannelUnormShort565, ChannelUnormShort555:
		if f.Order == ChannelRGB || f.Order == ChannelRGBx {
			return 2
		}
		return 0
	case ChannelInt101010:
		if f.Order == ChannelRGB || f.Order == ChannelRGBx {
			return 4
		}
		return 0
	}
	var channels uint64
	switch f.Order {
	case ChannelA, ChannelR, ChannelIntensity, ChannelLuminance, ChannelRx:
		channels = 1
	case ChannelRG, ChannelRA, ChannelRGx:
		channels = 2
	case ChannelRGB, ChannelRGBx:
		channels = 3
	default:
		channels = 4
	}
	var size uint64
	switch f.Type {
	case ChannelSnormInt8, ChannelUnormInt8, ChannelSignedInt8, ChannelUnsignedInt8:
		size = 1
	case ChannelSnormInt16, ChannelUnormInt16, ChannelSignedInt16, ChannelUnsignedInt16, ChannelHalfFloat:
		size = 2
	default:
		size = 4
	}
	return channels * size
}

func itoa(v uint64) string {
	if v == 0 {
		return "0"
	}
	var b [20]byte
	i := len(b)
	for v > 0 {
		i--
		b[i] = byte('0' + v%10)
		v /= 10
	}
	return string(b[i:])
}
