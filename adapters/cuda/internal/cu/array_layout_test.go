package cu

import (
	"testing"
	"unsafe"
)

// TestArrayLayouts checks the structs of array.go against cuda.h (CUDA
// 12.x and 13.0) on a 64-bit System V platform, where size_t, pointers,
// CUarray and CUdeviceptr are 8 bytes and enums and unsigned ints 4:
// CUDA_ARRAY3D_DESCRIPTOR_st (size_t Width, Height, Depth; CUarray_format
// Format; unsigned int NumChannels, Flags) is 3×8+3×4 = 36 bytes rounded
// up to its 8-byte alignment, 40; CUDA_RESOURCE_DESC_st (CUresourcetype
// resType; a union whose largest member is struct { int reserved[32]; },
// 128 bytes, aligned to 8 by its pointer members, so at 8; unsigned int
// flags at 8+128 = 136) is 140 rounded up to 144.
func TestArrayLayouts(t *testing.T) {
	var d Array3DDescriptor
	var r ResourceDesc
	for _, c := range []struct {
		name      string
		got, want uintptr
	}{
		{"sizeof(CUDA_ARRAY3D_DESCRIPTOR)", unsafe.Sizeof(d), 40},
		{"offsetof(CUDA_ARRAY3D_DESCRIPTOR, Height)", unsafe.Offsetof(d.Height), 8},
		{"offsetof(CUDA_ARRAY3D_DESCRIPTOR, Depth)", unsafe.Offsetof(d.Depth), 16},
		{"offsetof(CUDA_ARRAY3D_DESCRIPTOR, Format)", unsafe.Offsetof(d.Format), 24},
		{"offsetof(CUDA_ARRAY3D_DESCRIPTOR, NumChannels)", unsafe.Offsetof(d.NumChannels), 28},
		{"offsetof(CUDA_ARRAY3D_DESCRIPTOR, Flags)", unsafe.Offsetof(d.Flags), 32},

		{"sizeof(CUDA_RESOURCE_DESC)", unsafe.Sizeof(r), 144},
		{"offsetof(CUDA_RESOURCE_DESC, res.array.hArray)", unsafe.Offsetof(r.Array), 8},
		{"offsetof(CUDA_RESOURCE_DESC, flags)", unsafe.Offsetof(r.Flags), 136},

		{"sizeof(CUarray_format)", unsafe.Sizeof(d.Format), 4},
		{"sizeof(CUresourcetype)", unsafe.Sizeof(r.ResType), 4},
		{"sizeof(CUsurfObject)", unsafe.Sizeof(SurfObject(0)), 8},
	} {
		if c.got != c.want {
			t.Errorf("%s = %d, want %d", c.name, c.got, c.want)
		}
	}
}

// TestArrayConstantValues checks the constants of array.go against cuda.h
// (CUarray_format_enum, the CUDA_ARRAY3D_* defines, CUresourcetype_enum)
// and the memory type the copies name arrays with (CUmemorytype_enum).
func TestArrayConstantValues(t *testing.T) {
	for _, c := range []struct {
		name      string
		got, want uint32
	}{
		{"CU_AD_FORMAT_UNSIGNED_INT8", uint32(ArrayFormatUint8), 0x01},
		{"CU_AD_FORMAT_UNSIGNED_INT16", uint32(ArrayFormatUint16), 0x02},
		{"CU_AD_FORMAT_UNSIGNED_INT32", uint32(ArrayFormatUint32), 0x03},
		{"CU_AD_FORMAT_SIGNED_INT8", uint32(ArrayFormatInt8), 0x08},
		{"CU_AD_FORMAT_SIGNED_INT16", uint32(ArrayFormatInt16), 0x09},
		{"CU_AD_FORMAT_SIGNED_INT32", uint32(ArrayFormatInt32), 0x0a},
		{"CU_AD_FORMAT_HALF", uint32(ArrayFormatHalf), 0x10},
		{"CU_AD_FORMAT_FLOAT", uint32(ArrayFormatFloat), 0x20},
		{"CUDA_ARRAY3D_LAYERED", Array3DLayered, 0x01},
		{"CUDA_ARRAY3D_SURFACE_LDST", Array3DSurfaceLDST, 0x02},
		{"CU_RESOURCE_TYPE_ARRAY", uint32(ResourceTypeArray), 0x00},
		{"CU_MEMORYTYPE_ARRAY", uint32(MemoryTypeArray), 0x03},
	} {
		if c.got != c.want {
			t.Errorf("%s = %#x, want %#x", c.name, c.got, c.want)
		}
	}
}

// TestArraysWithoutLibrary: a Lib that was never loaded gives an error,
// not a panic.
func TestArraysWithoutLibrary(t *testing.T) {
	var l Lib
	if _, err := l.Arrays(); err == nil {
		t.Error("Arrays of an unloaded Lib: no error")
	}
}
