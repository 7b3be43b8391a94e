package cu

import (
	"testing"
	"unsafe"
)

// TestMemoryLayouts checks the structs passed to the driver against cuda.h
// of CUDA 12.8 and 13.0, as the bindgen output of cudarc quotes it
// (CUmemPoolProps_st: allocType, handleTypes, location, void
// *win32SecurityAttributes, size_t maxSize, unsigned short usage, unsigned
// char reserved[54]; CUmemLocation_st: CUmemLocationType type, int id;
// CUDA_MEMCPY3D_st: eleven source fields of size_t, CUmemorytype,
// pointers and handles, the same for the destination, then WidthInBytes,
// Height, Depth), on a 64-bit System V platform.
func TestMemoryLayouts(t *testing.T) {
	var p MemPoolProps
	var m Memcpy3D
	var loc MemLocation
	for _, c := range []struct {
		name      string
		got, want uintptr
	}{
		{"sizeof(CUmemLocation)", unsafe.Sizeof(loc), 8},
		{"offsetof(CUmemLocation, id)", unsafe.Offsetof(loc.ID), 4},

		{"sizeof(CUmemPoolProps)", unsafe.Sizeof(p), 88},
		{"offsetof(CUmemPoolProps, handleTypes)", unsafe.Offsetof(p.HandleTypes), 4},
		{"offsetof(CUmemPoolProps, location)", unsafe.Offsetof(p.Location), 8},
		{"offsetof(CUmemPoolProps, win32SecurityAttributes)", unsafe.Offsetof(p.Win32SecurityAttributes), 16},
		{"offsetof(CUmemPoolProps, maxSize)", unsafe.Offsetof(p.MaxSize), 24},
		{"offsetof(CUmemPoolProps, usage)", unsafe.Offsetof(p.Usage), 32},
		{"offsetof(CUmemPoolProps, reserved)", unsafe.Offsetof(p.Reserved), 34},

		{"sizeof(CUDA_MEMCPY3D)", unsafe.Sizeof(m), 200},
		{"offsetof(CUDA_MEMCPY3D, srcY)", unsafe.Offsetof(m.SrcY), 8},
		{"offsetof(CUDA_MEMCPY3D, srcZ)", unsafe.Offsetof(m.SrcZ), 16},
		{"offsetof(CUDA_MEMCPY3D, srcLOD)", unsafe.Offsetof(m.SrcLOD), 24},
		{"offsetof(CUDA_MEMCPY3D, srcMemoryType)", unsafe.Offsetof(m.SrcMemoryType), 32},
		{"offsetof(CUDA_MEMCPY3D, srcHost)", unsafe.Offsetof(m.SrcHost), 40},
		{"offsetof(CUDA_MEMCPY3D, srcDevice)", unsafe.Offsetof(m.SrcDevice), 48},
		{"offsetof(CUDA_MEMCPY3D, srcArray)", unsafe.Offsetof(m.SrcArray), 56},
		{"offsetof(CUDA_MEMCPY3D, reserved0)", unsafe.Offsetof(m.Reserved0), 64},
		{"offsetof(CUDA_MEMCPY3D, srcPitch)", unsafe.Offsetof(m.SrcPitch), 72},
		{"offsetof(CUDA_MEMCPY3D, srcHeight)", unsafe.Offsetof(m.SrcHeight), 80},
		{"offsetof(CUDA_MEMCPY3D, dstXInBytes)", unsafe.Offsetof(m.DstXInBytes), 88},
		{"offsetof(CUDA_MEMCPY3D, dstY)", unsafe.Offsetof(m.DstY), 96},
		{"offsetof(CUDA_MEMCPY3D, dstZ)", unsafe.Offsetof(m.DstZ), 104},
		{"offsetof(CUDA_MEMCPY3D, dstLOD)", unsafe.Offsetof(m.DstLOD), 112},
		{"offsetof(CUDA_MEMCPY3D, dstMemoryType)", unsafe.Offsetof(m.DstMemoryType), 120},
		{"offsetof(CUDA_MEMCPY3D, dstHost)", unsafe.Offsetof(m.DstHost), 128},
		{"offsetof(CUDA_MEMCPY3D, dstDevice)", unsafe.Offsetof(m.DstDevice), 136},
		{"offsetof(CUDA_MEMCPY3D, dstArray)", unsafe.Offsetof(m.DstArray), 144},
		{"offsetof(CUDA_MEMCPY3D, reserved1)", unsafe.Offsetof(m.Reserved1), 152},
		{"offsetof(CUDA_MEMCPY3D, dstPitch)", unsafe.Offsetof(m.DstPitch), 160},
		{"offsetof(CUDA_MEMCPY3D, dstHeight)", unsafe.Offsetof(m.DstHeight), 168},
		{"offsetof(CUDA_MEMCPY3D, WidthInBytes)", unsafe.Offsetof(m.WidthInBytes), 176},
		{"offsetof(CUDA_MEMCPY3D, Height)", unsafe.Offsetof(m.Height), 184},
		{"offsetof(CUDA_MEMCPY3D, Depth)", unsafe.Offsetof(m.Depth), 192},
	} {
		if c.got != c.want {
			t.Errorf("%s = %d, want %d", c.name, c.got, c.want)
		}
	}
}

// TestMemLocationByValue: a CUmemLocation passed by value is one register,
// type in the low 32 bits and id in the high ones, as its bytes lie in
// memory on a little-endian machine.
func TestMemLocationByValue(t *testing.T) {
	loc := MemLocation{Type: MemLocationTypeDevice, ID: 3}
	if got, want := loc.word(), uintptr(1)|uintptr(3)<<32; got != want {
		t.Errorf("word(device 3) = %#x, want %#x", got, want)
	}
	if got := *(*uintptr)(unsafe.Pointer(&loc)); got != loc.word() {
		t.Errorf("word = %#x, but the struct's bytes read %#x", loc.word(), got)
	}
	host := MemLocation{Type: MemLocationTypeHost, ID: -1}
	if got, want := host.word(), uintptr(2)|uintptr(0xffffffff)<<32; got != want {
		t.Errorf("word(host, id -1) = %#x, want %#x", got, want)
	}
	if host.device() != DeviceCPU || loc.device() != 3 {
		t.Errorf("device() = %d, %d; want CU_DEVICE_CPU (-1), 3", host.device(), loc.device())
	}
}

// TestMemoryConstantValues checks the memory model's constants against
// cuda.h (CUDA 12.x and 13.0: CUmemorytype_enum, CUpointer_attribute_enum,
// CUmem_advise_enum, CUmemLocationType_enum, CUmemPool_attribute_enum, the
// CU_MEMHOSTALLOC_*, CU_MEMHOSTREGISTER_* and CU_MEM_ATTACH_* macros,
// CU_DEVICE_CPU).
func TestMemoryConstantValues(t *testing.T) {
	for _, c := range []struct {
		name      string
		got, want int64
	}{
		{"CU_MEMORYTYPE_HOST", int64(MemoryTypeHost), 1},
		{"CU_MEMORYTYPE_DEVICE", int64(MemoryTypeDevice), 2},
		{"CU_MEMORYTYPE_UNIFIED", int64(MemoryTypeUnified), 4},
		{"CU_POINTER_ATTRIBUTE_MEMORY_TYPE", int64(PointerAttributeMemoryType), 2},
		{"CU_POINTER_ATTRIBUTE_IS_MANAGED", int64(PointerAttributeIsManaged), 8},
		{"CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL", int64(PointerAttributeDeviceOrdinal), 9},
		{"CU_POINTER_ATTRIBUTE_RANGE_START_ADDR", int64(PointerAttributeRangeStartAddr), 11},
		{"CU_POINTER_ATTRIBUTE_RANGE_SIZE", int64(PointerAttributeRangeSize), 12},
		{"CU_MEMHOSTALLOC_PORTABLE", MemHostAllocPortable, 1},
		{"CU_MEMHOSTALLOC_DEVICEMAP", MemHostAllocDeviceMap, 2},
		{"CU_MEMHOSTREGISTER_PORTABLE", MemHostRegisterPortable, 1},
		{"CU_MEM_ATTACH_GLOBAL", MemAttachGlobal, 1},
		{"CU_DEVICE_CPU", int64(DeviceCPU), -1},
		{"CU_MEM_ADVISE_SET_READ_MOSTLY", int64(AdviseSetReadMostly), 1},
		{"CU_MEM_ADVISE_SET_PREFERRED_LOCATION", int64(AdviseSetPreferredLocation), 3},
		{"CU_MEM_ADVISE_UNSET_ACCESSED_BY", int64(AdviseUnsetAccessedBy), 6},
		{"CU_MEM_LOCATION_TYPE_DEVICE", int64(MemLocationTypeDevice), 1},
		{"CU_MEM_LOCATION_TYPE_HOST", int64(MemLocationTypeHost), 2},
		{"CU_MEM_ALLOCATION_TYPE_PINNED", MemAllocationTypePinned, 1},
		{"CU_MEMPOOL_ATTR_RELEASE_THRESHOLD", int64(MemPoolAttrReleaseThreshold), 4},
		{"CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT", int64(MemPoolAttrReservedMemCurrent), 5},
		{"CU_MEMPOOL_ATTR_USED_MEM_CURRENT", int64(MemPoolAttrUsedMemCurrent), 7},
		{"CU_DEVICE_ATTRIBUTE_INTEGRATED", int64(DeviceAttributeIntegrated), 18},
		{"CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY", int64(DeviceAttributeManagedMemory), 83},
		{"CU_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS", int64(DeviceAttributeConcurrentManagedAccess), 89},
		{"CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED", int64(DeviceAttributeMemoryPoolsSupported), 115},
	} {
		if c.got != c.want {
			t.Errorf("%s = %d, want %d", c.name, c.got, c.want)
		}
	}
}

// TestZeroLibMemoryCalls: the memory model's entry points on a table
// without them answer NotSupported, never calling address zero.
func TestZeroLibMemoryCalls(t *testing.T) {
	var l Lib
	if l.HasMemPools() || l.HasMemPrefetch() || l.HasMemAdvise() || l.HasStreamGetCtx() {
		t.Error("zero Lib reports optional memory entry points")
	}
	var props MemPoolProps
	var cp Memcpy3D
	for name, r := range map[string]Result{
		"MemFreeHost":       l.MemFreeHost(0),
		"MemHostRegister":   l.MemHostRegister(0, 0, 0),
		"MemHostUnregister": l.MemHostUnregister(0),
		"MemcpyAsync":       l.MemcpyAsync(0, 0, 0, 0),
		"Memcpy3DAsync":     l.Memcpy3DAsync(&cp, 0),
		"MemPrefetchAsync":  l.MemPrefetchAsync(0, 0, MemLocation{}, 0),
		"MemAdvise":         l.MemAdvise(0, 0, AdviseSetReadMostly, MemLocation{}),
		"MemPoolDestroy":    l.MemPoolDestroy(0),
		"MemPoolTrimTo":     l.MemPoolTrimTo(0, 0),
		"MemFreeAsync":      l.MemFreeAsync(0, 0),
		"MemPoolSetAttr":    l.MemPoolSetAttribute(0, MemPoolAttrReleaseThreshold, 0),
	} {
		if r != NotSupported {
			t.Errorf("%s on a zero Lib = %v, want %v", name, r, NotSupported)
		}
	}
	if _, r := l.MemPoolCreate(&props); r != NotSupported {
		t.Errorf("MemPoolCreate = %v", r)
	}
	if _, r := l.MemAllocFromPoolAsync(0, 0, 0); r != NotSupported {
		t.Errorf("MemAllocFromPoolAsync = %v", r)
	}
	if _, r := l.PointerGetAttributes([]PointerAttribute{PointerAttributeMemoryType}, 0); r != NotSupported {
		t.Errorf("PointerGetAttributes = %v", r)
	}
	if _, r := l.PointerGetAttributes(nil, 0); r != InvalidValue {
		t.Errorf("PointerGetAttributes(no attributes) = %v, want %v", r, InvalidValue)
	}
	if _, _, r := l.MemGetAddressRange(0); r != NotSupported {
		t.Errorf("MemGetAddressRange = %v", r)
	}
	if _, r := l.StreamGetCtx(0); r != NotSupported {
		t.Errorf("StreamGetCtx = %v", r)
	}
	if _, r := l.CtxGetDevice(); r != NotSupported {
		t.Errorf("CtxGetDevice = %v", r)
	}
}
