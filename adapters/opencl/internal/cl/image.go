package cl

import (
	"unsafe"

	"github.com/gour-dev/gour/internal/dl"
)

// This file binds images and samplers (OpenCL 1.2). The entry points are
// looked up on each call: images are made and copied far less often than
// kernels launch, and a loader lacking one gives InvalidOperation.

// ImageFormat is cl_image_format.
type ImageFormat struct {
	Order, Type uint32
}

// ImageDesc is cl_image_desc (72 bytes on 64-bit hosts).
type ImageDesc struct {
	Type                            uint32
	_                               uint32
	Width, Height, Depth, ArraySize uintptr
	RowPitch, SlicePitch            uintptr
	NumMipLevels, NumSamples        uint32
	Buffer                          Mem
}

// Memory object types (cl_mem_object_type).
const (
	MemObjectImage2D      = 0x10F1
	MemObjectImage3D      = 0x10F2
	MemObjectImage2DArray = 0x10F3
	MemObjectImage1D      = 0x10F4
	MemObjectImage1DArray = 0x10F5
)

func (l *Lib) sym(name string) uintptr {
	fn, err := l.lib.Lookup(name)
	if err != nil {
		return 0
	}
	return fn
}

// CreateImage calls clCreateImage.
func (l *Lib) CreateImage(c Context, flags uint64, f *ImageFormat, d *ImageDesc, host unsafe.Pointer) (Mem, Status) {
	fn := l.sym("clCreateImage")
	if fn == 0 {
		return 0, InvalidOperation
	}
	fr := dl.NewFrame()
	fr.Args = dl.Args{uintptr(c), uintptr(flags), fr.Ptr(0, unsafe.Pointer(f)), fr.Ptr(1, unsafe.Pointer(d)), fr.Ptr(2, host), fr.Out(0)}
	r, out, _ := fr.Call(fn)
	if st := Status(int32(out[0])); st != Success {
		return 0, st
	}
	return Mem(r), Success
}

// SupportedImageFormats calls clGetSupportedImageFormats twice: the count,
// then the formats.
func (l *Lib) SupportedImageFormats(c Context, flags uint64, imageType uint32) ([]ImageFormat, Status) {
	fn := l.sym("clGetSupportedImageFormats")
	if fn == 0 {
		return nil, InvalidOperation
	}
	var n uint32
	fr := dl.NewFrame()
	fr.Args = dl.Args{uintptr(c), uintptr(flags), uintptr(imageType), 0, 0, fr.Ptr(0, unsafe.Pointer(&n))}
	r, _, _ := fr.Call(fn)
	if st := status(r); st != Success || n == 0 {
		return nil, st
	}
	fs := make([]ImageFormat, n)
	fr = dl.NewFrame()
	fr.Args = dl.Args{uintptr(c), uintptr(flags), uintptr(imageType), uintptr(n), fr.Ptr(0, unsafe.Pointer(&fs[0])), 0}
	r, _, _ = fr.Call(fn)
	return fs, status(r)
}

// EnqueueReadImage calls clEnqueueReadImage, or clEnqueueWriteImage with
// write set.
func (l *Lib) EnqueueReadWriteImage(write bool, q Queue, img Mem, blocking bool, origin, region *[3]uintptr, rowPitch, slicePitch uintptr, host unsafe.Pointer, waitList []Event, event *Event) Status {
	name := "clEnqueueReadImage"
	if write {
		name = "clEnqueueWriteImage"
	}
	fn := l.sym(name)
	if fn == 0 {
		return InvalidOperation
	}
	fr := dl.NewFrame()
	fr.Args = dl.Args{uintptr(q), uintptr(img), clBool(blocking), fr.Ptr(0, unsafe.Pointer(origin)), fr.Ptr(1, unsafe.Pointer(region)),
		rowPitch, slicePitch, fr.Ptr(2, host), uintptr(len(waitList)), fr.Ptr(3, dl.First(waitList)), fr.Ptr(4, unsafe.Pointer(event))}
	r, _, _ := fr.Call(fn)
	return status(r)
}

// EnqueueCopyImage calls clEnqueueCopyImage.
func (l *Lib) EnqueueCopyImage(q Queue, src, dst Mem, srcOrigin, dstOrigin, region *[3]uintptr, waitList []Event, event *Event) Status {
	fn := l.sym("clEnqueueCopyImage")
	if fn == 0 {
		return InvalidOperation
	}
	fr := dl.NewFrame()
	fr.Args = dl.Args{uintptr(q), uintptr(src), uintptr(dst), fr.Ptr(0, unsafe.Pointer(srcOrigin)), fr.Ptr(1, unsafe.Pointer(dstOrigin)),
		fr.Ptr(2, unsafe.Pointer(region)), uintptr(len(waitList)), fr.Ptr(3, dl.First(waitList)), fr.Ptr(4, unsafe.Pointer(event))}
	r, _, _ := fr.Call(fn)
	return status(r)
}

// EnqueueFillImage calls clEnqueueFillImage.
func (l *Lib) EnqueueFillImage(q Queue, img Mem, color *[16]byte, origin, region *[3]uintptr, waitList []Event, event *Event) Status {
	fn := l.sym("clEnqueueFillImage")
	if fn == 0 {
		return InvalidOperation
	}
	fr := dl.NewFrame()
	fr.Args = dl.Args{uintptr(q), uintptr(img), fr.Ptr(0, unsafe.Pointer(color)), fr.Ptr(1, unsafe.Pointer(origin)), fr.Ptr(2, unsafe.Pointer(region)),
		uintptr(len(waitList)), fr.Ptr(3, dl.First(waitList)), fr.Ptr(4, unsafe.Pointer(event))}
	r, _, _ := fr.Call(fn)
	return status(r)
}

// EnqueueCopyImageToBuffer calls clEnqueueCopyImageToBuffer.
func (l *Lib) EnqueueCopyImageToBuffer(q Queue, src, dst Mem, origin, region *[3]uintptr, dstOffset uintptr, waitList []Event, event *Event) Status {
	fn := l.sym("clEnqueueCopyImageToBuffer")
	if fn == 0 {
		return InvalidOperation
	}
	fr := dl.NewFrame()
	fr.Args = dl.Args{uintptr(q), uintptr(src), uintptr(dst), fr.Ptr(0, unsafe.Pointer(origin)), fr.Ptr(1, unsafe.Pointer(region)),
		dstOffset, uintptr(len(waitList)), fr.Ptr(2, dl.First(waitList)), fr.Ptr(3, unsafe.Pointer(event))}
	r, _, _ := fr.Call(fn)
	return status(r)
}

// EnqueueCopyBufferToImage calls clEnqueueCopyBufferToImage.
func (l *Lib) EnqueueCopyBufferToImage(q Queue, src, dst Mem, srcOffset uintptr, origin, region *[3]uintptr, waitList []Event, event *Event) Status {
	fn := l.sym("clEnqueueCopyBufferToImage")
	if fn == 0 {
		return InvalidOperation
	}
	fr := dl.NewFrame()
	fr.Args = dl.Args{uintptr(q), uintptr(src), uintptr(dst), srcOffset, fr.Ptr(0, unsafe.Pointer(origin)), fr.Ptr(1, unsafe.Pointer(region)),
		uintptr(len(waitList)), fr.Ptr(2, dl.First(waitList)), fr.Ptr(3, unsafe.Pointer(event))}
	r, _, _ := fr.Call(fn)
	return status(r)
}

// Sampler is a cl_sampler.
type Sampler uintptr

// CreateSampler calls clCreateSampler (deprecated in 2.0 but everywhere).
func (l *Lib) CreateSampler(c Context, normalized bool, addressing, filter uint32) (Sampler, Status) {
	fn := l.sym("clCreateSampler")
	if fn == 0 {
		return 0, InvalidOperation
	}
	fr := dl.NewFrame()
	fr.Args = dl.Args{uintptr(c), clBool(normalized), uintptr(addressing), uintptr(filter), fr.Out(0)}
	r, out, _ := fr.Call(fn)
	if st := Status(int32(out[0])); st != Success {
		return 0, st
	}
	return Sampler(r), Success
}

// ReleaseSampler calls clReleaseSampler.
func (l *Lib) ReleaseSampler(s Sampler) Status {
	fn := l.sym("clReleaseSampler")
	if fn == 0 {
		return InvalidOperation
	}
	return call1(fn, uintptr(s))
}
