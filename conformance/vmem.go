package conformance

import (
	"bytes"
	"errors"
	"testing"

	"github.com/gour-dev/gour/ur"
)

// The cases of this file are the Unified Runtime CTS's urVirtualMem* and
// urPhysicalMem* tests. Devices without virtual memory check that every
// entry point says so, typed.

// vmemOrSkip returns the device's granularity, or skips the test on a
// device without virtual memory after checking the error is typed.
func vmemOrSkip(t *testing.T, f *Fixture, ctx *ur.Context) uint64 {
	t.Helper()
	g, err := ctx.VirtualMemGranularity(f.Device, false)
	if errors.Is(err, ur.ErrUnsupportedFeature) {
		t.Skipf("no virtual memory: %v", err)
	}
	if err != nil || g == 0 {
		t.Fatalf("granularity %d, %v", g, err)
	}
	return g
}

// TestVirtualMemUnsupported: on a device without virtual memory every
// entry point is ErrUnsupportedFeature and the device query says false.
func TestVirtualMemUnsupported(t *testing.T) {
	forEachDevice(t, func(t *testing.T, f *Fixture) {
		ctx := f.Context(t)
		if _, err := ctx.VirtualMemGranularity(f.Device, false); !errors.Is(err, ur.ErrUnsupportedFeature) {
			t.Skipf("the device has virtual memory (%v)", err)
		}
		if _, err := ctx.ReserveVirtualMem(0, 1<<21); !errors.Is(err, ur.ErrUnsupportedFeature) {
			t.Errorf("ReserveVirtualMem: %v", err)
		}
		if _, err := ctx.NewPhysicalMem(f.Device, 1<<21); !errors.Is(err, ur.ErrUnsupportedFeature) {
			t.Errorf("NewPhysicalMem: %v", err)
		}
		if ok, err := f.Device.QueryBool(ur.DeviceInfoVirtualMemorySupport); err != nil || ok {
			t.Errorf("VIRTUAL_MEMORY_SUPPORT = %v, %v; want false", ok, err)
		}
	})
}

// TestVirtualMemMapAndAccess reserves, maps, writes through a kernel's
// view (a USM fill), reads back, makes it read-only, unmaps.
func TestVirtualMemMapAndAccess(t *testing.T) {
	forEachDevice(t, func(t *testing.T, f *Fixture) {
		ctx := f.Context(t)
		g := vmemOrSkip(t, f, ctx)
		if rg, err := ctx.VirtualMemGranularity(f.Device, true); err != nil || rg < g {
			t.Errorf("recommended granularity %d < minimum %d (%v)", rg, g, err)
		}
		if ok, err := f.Device.QueryBool(ur.DeviceInfoVirtualMemorySupport); err != nil || !ok {
			t.Errorf("VIRTUAL_MEMORY_SUPPORT = %v, %v; want true", ok, err)
		}
		vm, err := ctx.ReserveVirtualMem(0, 4*g)
		if err != nil {
			t.Fatal(err)
		}
		defer vm.Release()
		if vm.Addr() == 0 || vm.Size() != 4*g || vm.Granularity() != g {
			t.Fatalf("range %#x of %d (granularity %d)", vm.Addr(), vm.Size(), vm.Granularity())
		}
		pm, err := ctx.NewPhysicalMem(f.Device, 2*g)
		if err != nil {
			t.Fatal(err)
		}
		defer pm.Release()
		if err := vm.Map(g, 2*g, pm, 0, ur.VirtualAccessReadWrite); err != nil {
			t.Fatal(err)
		}
		if vm.Mapped() != 2*g {
			t.Errorf("Mapped = %d", vm.Mapped())
		}
		q := f.Queue(t)
		p := vm.Ptr().Add(g)
		ev, err := q.EnqueueMemFill(p, []byte{0x5A}, 2*g)
		if err != nil {
			t.Fatal(err)
		}
		if ev != nil {
			ev.Release()
		}
		must(t, "Finish", q.Finish())
		got := make([]byte, 4096)
		must(t, "CopyFromPtr", q.CopyFromPtr(got, p.Add(2*g-4096)))
		if !bytes.Equal(got, bytes.Repeat([]byte{0x5A}, 4096)) {
			t.Error("the mapped memory does not hold what was filled")
		}
		if a, err := vm.Access(g); err != nil || a != ur.VirtualAccessReadWrite {
			t.Errorf("Access = %v, %v", a, err)
		}
		if err := vm.SetAccess(g, 2*g, ur.VirtualAccessReadOnly); err != nil {
			t.Fatal(err)
		}
		if a, err := vm.Access(2 * g); err != nil || a != ur.VirtualAccessReadOnly {
			t.Errorf("Access after SetAccess = %v, %v", a, err)
		}
		must(t, "CopyFromPtr read-only", q.CopyFromPtr(got, p))
		if err := vm.Unmap(g, 2*g); err != nil {
			t.Fatal(err)
		}
		if _, err := vm.Access(g); !errors.Is(err, ur.ErrInvalidValue) {
			t.Errorf("Access of an unmapped offset: %v", err)
		}
	})
}

// TestVirtualMemGrowInPlace maps chunk after chunk at the end of a range:
// what earlier chunks hold stays where it is.
func TestVirtualMemGrowInPlace(t *testing.T) {
	forEachDevice(t, func(t *testing.T, f *Fixture) {
		ctx := f.Context(t)
		g := vmemOrSkip(t, f, ctx)
		const chunks = 4
		vm, err := ctx.ReserveVirtualMem(0, chunks*g)
		if err != nil {
			t.Fatal(err)
		}
		defer vm.Release()
		q := f.Queue(t)
		base := vm.Addr()
		for i := range chunks {
			pm, err := ctx.NewPhysicalMem(f.Device, g)
			if err != nil {
				t.Fatal(err)
			}
			defer pm.Release()
			if err := vm.Map(uint64(i)*g, g, pm, 0, ur.VirtualAccessReadWrite); err != nil {
				t.Fatal(err)
			}
			ev, err := q.EnqueueMemFill(vm.Ptr().Add(uint64(i)*g), []byte{byte(i + 1)}, g)
			if err != nil {
				t.Fatal(err)
			}
			if ev != nil {
				ev.Release()
			}
		}
		must(t, "Finish", q.Finish())
		if vm.Addr() != base {
			t.Fatal("the range moved")
		}
		for i := range chunks {
			b := make([]byte, 1)
			must(t, "CopyFromPtr", q.CopyFromPtr(b, vm.Ptr().Add(uint64(i)*g+g/2)))
			if b[0] != byte(i+1) {
				t.Errorf("chunk %d holds %d", i, b[0])
			}
		}
	})
}

// TestVirtualMemBadInput: sizes off the granularity, regions outside,
// overlapping mappings, an unmap of no mapping, bad access flags, memory
// of another context, nil handles.
func TestVirtualMemBadInput(t *testing.T) {
	forEachDevice(t, func(t *testing.T, f *Fixture) {
		ctx := f.Context(t)
		g := vmemOrSkip(t, f, ctx)
		vm, err := ctx.ReserveVirtualMem(0, 2*g)
		if err != nil {
			t.Fatal(err)
		}
		defer vm.Release()
		pm, err := ctx.NewPhysicalMem(f.Device, g)
		if err != nil {
			t.Fatal(err)
		}
		defer pm.Release()
		check := func(name string, err error, want ur.Result) {
			t.Helper()
			if !errors.Is(err, want) {
				t.Errorf("%s: %v, want %v", name, err, want)
			}
		}
		_, err = ctx.ReserveVirtualMem(0, g+1)
		check("reserve off the granularity", err, ur.ErrInvalidSize)
		_, err = ctx.ReserveVirtualMem(0, 0)
		check("reserve 0", err, ur.ErrInvalidSize)
		_, err = ctx.NewPhysicalMem(f.Device, g/2)
		check("physical off the granularity", err, ur.ErrInvalidSize)
		_, err = ctx.NewPhysicalMem(nil, g)
		check("physical on a nil device", err, ur.ErrInvalidNullHandle)
		check("map off the granularity", vm.Map(1, g, pm, 0, ur.VirtualAccessReadWrite), ur.ErrInvalidValue)
		check("map past the range", vm.Map(2*g, g, pm, 0, ur.VirtualAccessReadWrite), ur.ErrInvalidSize)
		check("map past the memory", vm.Map(0, 2*g, pm, 0, ur.VirtualAccessReadWrite), ur.ErrInvalidSize)
		check("map with bad access", vm.Map(0, g, pm, 0, 7), ur.ErrInvalidEnumeration)
		check("map nil memory", vm.Map(0, g, nil, 0, ur.VirtualAccessReadWrite), ur.ErrInvalidNullHandle)
		if err := vm.Map(0, g, pm, 0, ur.VirtualAccessReadWrite); err != nil {
			t.Fatal(err)
		}
		check("overlapping map", vm.Map(0, g, pm, 0, ur.VirtualAccessReadWrite), ur.ErrInvalidValue)
		check("unmap of no mapping", vm.Unmap(g, g), ur.ErrInvalidValue)
		check("set access of no mapping", vm.SetAccess(g, g, ur.VirtualAccessReadOnly), ur.ErrInvalidValue)
		other := f.NewContext(t)
		opm, err := other.NewPhysicalMem(f.Device, g)
		if err != nil {
			t.Fatal(err)
		}
		defer opm.Release()
		check("map memory of another context", vm.Map(g, g, opm, 0, ur.VirtualAccessReadWrite), ur.ErrInvalidContext)
		if err := vm.Unmap(0, g); err != nil {
			t.Fatal(err)
		}
		var nilVM *ur.VirtualMem
		check("nil range", nilVM.Map(0, g, pm, 0, ur.VirtualAccessReadWrite), ur.ErrInvalidNullHandle)
		if nilVM.Addr() != 0 || !nilVM.Ptr().IsNil() {
			t.Error("a nil range has an address")
		}
	})
}
