package ze

import (
	"unsafe"

	"github.com/gour-dev/gour/internal/dl"
)

// This file binds Level Zero's virtual memory (zeVirtualMem*,
// zePhysicalMem*). The entry points are looked up on each call: they are
// called per reservation and mapping, not per launch. A loader without
// them gives NotSupported.

// PhysicalMem is a ze_physical_mem_handle_t.
type PhysicalMem uintptr

// PhysicalMemDesc is ze_physical_mem_desc_t.
type PhysicalMemDesc struct {
	Stype StructureType  `c:"stype"`
	PNext unsafe.Pointer `c:"pNext"`
	Flags uint32         `c:"flags"`
	Size  uintptr        `c:"size"`
}

// StructureTypePhysicalMemDesc is ZE_STRUCTURE_TYPE_PHYSICAL_MEM_DESC.
const StructureTypePhysicalMemDesc StructureType = 0x20

// Memory access attributes (ze_memory_access_attribute_t).
const (
	MemoryAccessNone      = 0
	MemoryAccessReadWrite = 1
	MemoryAccessReadOnly  = 2
)

func (l *Lib) sym(name string) uintptr {
	fn, err := l.lib.Lookup(name)
	if err != nil {
		return 0
	}
	return fn
}

// VirtualMemQueryPageSize calls zeVirtualMemQueryPageSize.
func (l *Lib) VirtualMemQueryPageSize(c Context, d Device, size uint64) (uint64, Result) {
	f := dl.NewFrame()
	f.Args = dl.Args{uintptr(c), uintptr(d), uintptr(size), f.Out(0)}
	r, out := call(f, l.sym("zeVirtualMemQueryPageSize"))
	return out[0], r
}

// VirtualMemReserve calls zeVirtualMemReserve.
func (l *Lib) VirtualMemReserve(c Context, start uintptr, size uint64) (uintptr, Result) {
	f := dl.NewFrame()
	f.Args = dl.Args{uintptr(c), start, uintptr(size), f.Out(0)}
	r, out := call(f, l.sym("zeVirtualMemReserve"))
	return uintptr(out[0]), r
}

// VirtualMemFree calls zeVirtualMemFree.
func (l *Lib) VirtualMemFree(c Context, ptr uintptr, size uint64) Result {
	f := dl.NewFrame()
	f.Args = dl.Args{uintptr(c), ptr, uintptr(size)}
	r, _ := call(f, l.sym("zeVirtualMemFree"))
	return r
}

// PhysicalMemCreate calls zePhysicalMemCreate.
func (l *Lib) PhysicalMemCreate(c Context, d Device, size uint64) (PhysicalMem, Result) {
	desc := &PhysicalMemDesc{Stype: StructureTypePhysicalMemDesc, Size: uintptr(size)}
	f := dl.NewFrame()
	f.Args = dl.Args{uintptr(c), uintptr(d), f.Ptr(0, unsafe.Pointer(desc)), f.Out(0)}
	r, out := call(f, l.sym("zePhysicalMemCreate"))
	return PhysicalMem(out[0]), r
}

// PhysicalMemDestroy calls zePhysicalMemDestroy.
func (l *Lib) PhysicalMemDestroy(c Context, p PhysicalMem) Result {
	f := dl.NewFrame()
	f.Args = dl.Args{uintptr(c), uintptr(p)}
	r, _ := call(f, l.sym("zePhysicalMemDestroy"))
	return r
}

// VirtualMemMap calls zeVirtualMemMap.
func (l *Lib) VirtualMemMap(c Context, ptr uintptr, size uint64, p PhysicalMem, offset uint64, access uint32) Result {
	f := dl.NewFrame()
	f.Args = dl.Args{uintptr(c), ptr, uintptr(size), uintptr(p), uintptr(offset), uintptr(access)}
	r, _ := call(f, l.sym("zeVirtualMemMap"))
	return r
}

// VirtualMemUnmap calls zeVirtualMemUnmap.
func (l *Lib) VirtualMemUnmap(c Context, ptr uintptr, size uint64) Result {
	f := dl.NewFrame()
	f.Args = dl.Args{uintptr(c), ptr, uintptr(size)}
	r, _ := call(f, l.sym("zeVirtualMemUnmap"))
	return r
}

// VirtualMemSetAccessAttribute calls zeVirtualMemSetAccessAttribute.
func (l *Lib) VirtualMemSetAccessAttribute(c Context, ptr uintptr, size uint64, access uint32) Result {
	f := dl.NewFrame()
	f.Args = dl.Args{uintptr(c), ptr, uintptr(size), uintptr(access)}
	r, _ := call(f, l.sym("zeVirtualMemSetAccessAttribute"))
	return r
}
