package cu

import (
	"testing"
	"unsafe"
)

// TestPointerQueriesOnDevice runs the pointer queries the adapter's
// USMPointerInfo and USMFree rely on against each kind of memory, and
// reports which prefetch and advice entry points the driver has.
func TestPointerQueriesOnDevice(t *testing.T) {
	g := setup(t)
	l := g.l
	t.Logf("cuMemPrefetchAsync_v2: %v, cuMemAdvise_v2: %v, pools: %v, cuStreamGetCtx: %v",
		l.memPrefetchLocation, l.memAdviseLocation, l.HasMemPools(), l.HasStreamGetCtx())
	attrs := []PointerAttribute{PointerAttributeMemoryType, PointerAttributeIsManaged, PointerAttributeDeviceOrdinal}

	// Go memory is unknown to CUDA: cuPointerGetAttributes succeeds with
	// zeros, cuPointerGetAttribute refuses it.
	goMem := make([]byte, 4096)
	v, r := l.PointerGetAttributes(attrs, DevicePtr(uintptr(unsafe.Pointer(&goMem[0]))))
	if r != Success || v[0] != 0 || v[1] != 0 {
		t.Errorf("PointerGetAttributes(Go memory) = %v, %v; want zeros, success", v, r)
	}
	if _, r := l.PointerGetAttribute(PointerAttributeMemoryType, DevicePtr(uintptr(unsafe.Pointer(&goMem[0])))); r != InvalidValue {
		t.Errorf("PointerGetAttribute(Go memory) = %v, want %v", r, InvalidValue)
	}

	const size = 1 << 20
	dev, r := l.MemAlloc(size)
	if r != Success {
		t.Fatalf("MemAlloc: %v", r)
	}
	defer l.MemFree(dev)
	host, r := l.MemHostAlloc(size, MemHostAllocPortable|MemHostAllocDeviceMap)
	if r != Success {
		t.Fatalf("MemHostAlloc: %v", r)
	}
	defer l.MemFreeHost(host)
	managed, r := l.MemAllocManaged(size, MemAttachGlobal)
	if r != Success {
		t.Fatalf("MemAllocManaged: %v", r)
	}
	defer l.MemFree(managed)

	for _, c := range []struct {
		name    string
		p       DevicePtr
		typ     MemoryType
		managed bool
	}{
		{"device", dev, MemoryTypeDevice, false},
		{"host", DevicePtr(host), MemoryTypeHost, false},
		{"managed", managed, MemoryTypeDevice, true},
	} {
		v, r := l.PointerGetAttributes(attrs, c.p+100)
		if r != Success {
			t.Errorf("%s: PointerGetAttributes: %v", c.name, r)
			continue
		}
		t.Logf("%s: memory type %d, managed %d, ordinal %d", c.name, v[0], v[1], int32(v[2]))
		if (v[1] != 0) != c.managed || (!c.managed && MemoryType(v[0]) != c.typ) {
			t.Errorf("%s: memory type %d, managed %d; want type %d, managed %v", c.name, v[0], v[1], c.typ, c.managed)
		}
		if base, n, r := l.MemGetAddressRange(c.p + 100); r != Success || base != c.p || n != size {
			rv, r2 := l.PointerGetAttributes([]PointerAttribute{PointerAttributeRangeStartAddr, PointerAttributeRangeSize}, c.p+100)
			t.Logf("%s: MemGetAddressRange = %#x, %d, %v; range attributes %#x, %d, %v", c.name, base, n, r, rv[0], rv[1], r2)
			if r2 != Success || DevicePtr(rv[0]) != c.p || rv[1] != size {
				t.Errorf("%s: neither MemGetAddressRange nor the range attributes give the allocation", c.name)
			}
		}
	}
}
