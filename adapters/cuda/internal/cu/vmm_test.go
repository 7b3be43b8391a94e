package cu

import (
	"testing"
	"unsafe"
)

// TestVMMLayouts: the structs of the virtual memory API have cuda.h's
// sizes and offsets (x86-64).
func TestVMMLayouts(t *testing.T) {
	var p MemAllocationProp
	var a MemAccessDesc
	for _, c := range []struct {
		name      string
		got, want uintptr
	}{
		{"sizeof(CUmemAllocationProp)", unsafe.Sizeof(p), 32},
		{"offsetof(CUmemAllocationProp, location)", unsafe.Offsetof(p.LocationType), 8},
		{"offsetof(CUmemAllocationProp, win32HandleMetaData)", unsafe.Offsetof(p.Win32HandleMetaData), 16},
		{"offsetof(CUmemAllocationProp, allocFlags)", unsafe.Offsetof(p.CompressionType), 24},
		{"sizeof(CUmemAccessDesc)", unsafe.Sizeof(a), 12},
		{"offsetof(CUmemAccessDesc, flags)", unsafe.Offsetof(a.Flags), 8},
	} {
		if c.got != c.want {
			t.Errorf("%s = %d, want %d", c.name, c.got, c.want)
		}
	}
}
