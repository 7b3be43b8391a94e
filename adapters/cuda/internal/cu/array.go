package cu

import (
	"fmt"
	"sync"
	"unsafe"

	"github.com/gour-dev/gour/internal/dl"
)

// This file is CUDA arrays and surface objects, which the adapter's images
// are (cuArray3DCreate, cuSurfObjectCreate), and the stream-ordered
// allocation the image fill stages its pixels in (cuMemAllocAsync). Their
// entry points are resolved on first use, apart from Load's table: a driver
// without them still runs everything else.

// Array is a CUarray.
type Array uintptr

// SurfObject is a CUsurfObject (unsigned long long): what a kernel takes
// as a cudaSurfaceObject_t.
type SurfObject uint64

// ArrayFormat is a CUarray_format.
type ArrayFormat uint32

// Array formats (CUarray_format_enum): the channel types CUDA arrays have.
const (
	ArrayFormatUint8  ArrayFormat = 0x01 // CU_AD_FORMAT_UNSIGNED_INT8
	ArrayFormatUint16 ArrayFormat = 0x02 // CU_AD_FORMAT_UNSIGNED_INT16
	ArrayFormatUint32 ArrayFormat = 0x03 // CU_AD_FORMAT_UNSIGNED_INT32
	ArrayFormatInt8   ArrayFormat = 0x08 // CU_AD_FORMAT_SIGNED_INT8
	ArrayFormatInt16  ArrayFormat = 0x09 // CU_AD_FORMAT_SIGNED_INT16
	ArrayFormatInt32  ArrayFormat = 0x0a // CU_AD_FORMAT_SIGNED_INT32
	ArrayFormatHalf   ArrayFormat = 0x10 // CU_AD_FORMAT_HALF
	ArrayFormatFloat  ArrayFormat = 0x20 // CU_AD_FORMAT_FLOAT
)

// Flags of Array3DDescriptor (CUDA_ARRAY3D_*).
const (
	Array3DLayered     = 0x01 // CUDA_ARRAY3D_LAYERED: Depth counts layers
	Array3DSurfaceLDST = 0x02 // CUDA_ARRAY3D_SURFACE_LDST: surfaces may read and write it
)

// ResourceType is a CUresourcetype.
type ResourceType uint32

// ResourceTypeArray is CU_RESOURCE_TYPE_ARRAY.
const ResourceTypeArray ResourceType = 0x00

// Array3DDescriptor is CUDA_ARRAY3D_DESCRIPTOR (CUDA_ARRAY3D_DESCRIPTOR_v2),
// 40 bytes:
//
//	size_t Width;               // 0
//	size_t Height;              // 8: 0 for a 1D array (layered or not)
//	size_t Depth;               // 16: 0 unless 3D; the layers when LAYERED
//	CUarray_format Format;      // 24
//	unsigned int NumChannels;   // 28: 1, 2 or 4
//	unsigned int Flags;         // 32
//	                            // 36: 4 bytes of padding to size_t
type Array3DDescriptor struct {
	Width, Height, Depth uint64
	Format               ArrayFormat
	NumChannels          uint32
	Flags                uint32
	_                    uint32
}

// ResourceDesc is CUDA_RESOURCE_DESC (CUDA_RESOURCE_DESC_v1) for an array
// resource, 144 bytes:
//
//	CUresourcetype resType;   // 0
//	                          // 4: padding to the union's pointer alignment
//	union { ... } res;        // 8: 128 bytes (its largest member is int reserved[32]);
//	                          //    res.array.hArray is its first 8
//	unsigned int flags;       // 136: must be 0
//	                          // 140: padding to 8
type ResourceDesc struct {
	ResType ResourceType
	_       uint32
	Array   Array // res.array.hArray
	_       [120]byte
	Flags   uint32
	_       uint32
}

// Arrays is the entry points of this file.
type Arrays struct {
	array3DCreate     uintptr
	arrayDestroy      uintptr
	surfObjectCreate  uintptr
	surfObjectDestroy uintptr
	memAllocAsync     uintptr // optional, 11.2
}

var arrayTables sync.Map // *Lib → *Arrays or error

// Arrays resolves the array and surface entry points of l, once; an error
// names the one the driver lacks.
func (l *Lib) Arrays() (*Arrays, error) {
	if l == nil || l.lib == nil {
		return nil, fmt.Errorf("cu: no CUDA driver library loaded")
	}
	if v, ok := arrayTables.Load(l); ok {
		return arraysOf(v)
	}
	a := &Arrays{memAllocAsync: lookupFirst(l.lib, "cuMemAllocAsync")}
	var v any = a
	for _, s := range []struct {
		name string
		addr *uintptr
	}{
		{"cuArray3DCreate_v2", &a.array3DCreate},
		{"cuArrayDestroy", &a.arrayDestroy},
		{"cuSurfObjectCreate", &a.surfObjectCreate},
		{"cuSurfObjectDestroy", &a.surfObjectDestroy},
	} {
		if *s.addr = lookupFirst(l.lib, s.name); *s.addr == 0 {
			v = fmt.Errorf("cu: %s: symbol %s not found", l.lib.Name, s.name)
			break
		}
	}
	v, _ = arrayTables.LoadOrStore(l, v)
	return arraysOf(v)
}

func arraysOf(v any) (*Arrays, error) {
	if err, ok := v.(error); ok {
		return nil, err
	}
	return v.(*Arrays), nil
}

// Array3DCreate calls cuArray3DCreate_v2 in the current context; the
// driver reads *d during the call only.
func (a *Arrays) Array3DCreate(d *Array3DDescriptor) (Array, Result) {
	f := dl.NewFrame()
	f.Args = dl.Args{f.Out(0), f.Ptr(0, unsafe.Pointer(d))}
	r, out, _ := call(f, a.array3DCreate)
	return Array(out[0]), r
}

// ArrayDestroy calls cuArrayDestroy.
func (a *Arrays) ArrayDestroy(h Array) Result { return call1(a.arrayDestroy, uintptr(h)) }

// SurfObjectCreate calls cuSurfObjectCreate for the array h.
func (a *Arrays) SurfObjectCreate(h Array) (SurfObject, Result) {
	d := &ResourceDesc{ResType: ResourceTypeArray, Array: h}
	f := dl.NewFrame()
	f.Args = dl.Args{f.Out(0), f.Ptr(0, unsafe.Pointer(d))}
	r, out, _ := call(f, a.surfObjectCreate)
	return SurfObject(out[0]), r
}

// SurfObjectDestroy calls cuSurfObjectDestroy.
func (a *Arrays) SurfObjectDestroy(s SurfObject) Result {
	return call1(a.surfObjectDestroy, uintptr(s))
}

// HasMemAllocAsync reports whether cuMemAllocAsync (CUDA 11.2) is exported.
func (a *Arrays) HasMemAllocAsync() bool { return a.memAllocAsync != 0 }

// MemAllocAsync calls cuMemAllocAsync: size bytes from the device's
// current pool, in stream order; free with Lib.MemFreeAsync. NotSupported
// when missing.
func (a *Arrays) MemAllocAsync(size uintptr, s Stream) (DevicePtr, Result) {
	f := dl.NewFrame()
	f.Args = dl.Args{f.Out(0), size, uintptr(s)}
	r, out, _ := call(f, a.memAllocAsync)
	return DevicePtr(out[0]), r
}
