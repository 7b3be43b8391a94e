package cuda

import (
	"bytes"
	ctxpkg "context"
	"errors"
	"runtime"
	"testing"
	"unsafe"

	"github.com/gour-dev/gour/adapters/cuda/internal/cu"
	"github.com/gour-dev/gour/internal/harness/testenv"
	"github.com/gour-dev/gour/ur/driver"
)

// These tests drive the memory model's driver interfaces directly, on the
// first CUDA device; they skip without one (or fail where
// UR_REQUIRE_ADAPTERS names cuda).

const memTestPTX = `
.version 7.0
.target sm_52
.address_size 64
.visible .entry add1(.param .u64 y) {
	.reg .b32 %r<5>;
	.reg .f32 %f<3>;
	.reg .b64 %rd<4>;
	ld.param.u64 %rd1, [y];
	cvta.to.global.u64 %rd1, %rd1;
	mov.u32 %r1, %ctaid.x;
	mov.u32 %r2, %ntid.x;
	mov.u32 %r3, %tid.x;
	mad.lo.s32 %r4, %r1, %r2, %r3;
	mul.wide.u32 %rd2, %r4, 4;
	add.s64 %rd3, %rd1, %rd2;
	ld.global.f32 %f1, [%rd3];
	add.f32 %f2, %f1, 0f3F800000;
	st.global.f32 [%rd3], %f2;
	ret;
}
.visible .entry spin(.param .u64 cycles) {
	.reg .pred %p;
	.reg .b64 %rd<5>;
	ld.param.u64 %rd1, [cycles];
	mov.u64 %rd2, %clock64;
wait:
	mov.u64 %rd3, %clock64;
	sub.s64 %rd4, %rd3, %rd2;
	setp.lt.s64 %p, %rd4, %rd1;
	@%p bra wait;
	ret;
}
`

type memFixture struct {
	a *adapter
	d *device
	c *context
	q *queue
}

func newMemFixture(t *testing.T) *memFixture {
	t.Helper()
	testenv.MustHaveAdapter(t, Name)
	da, err := Open()
	if err != nil {
		t.Skipf("CUDA not available: %v", err)
	}
	a := da.(*adapter)
	d := a.platform.devices[0].(*device)
	c := &context{dev: d}
	return &memFixture{a: a, d: d, c: c, q: newTestQueue(t, c)}
}

func newTestQueue(t *testing.T, c *context) *queue {
	t.Helper()
	dq, err := c.NewQueue(c.dev, driver.QueueProperties{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { dq.Release() })
	return dq.(*queue)
}

// alloc allocates USM of kind, freed when the test ends.
func (f *memFixture) alloc(t *testing.T, c *context, kind driver.USMKind, size uint64) uintptr {
	t.Helper()
	p, err := c.USMAlloc(kind, f.d, size, 0)
	if err != nil {
		t.Fatalf("USMAlloc(%v, %d): %v", kind, size, err)
	}
	t.Cleanup(func() {
		if err := c.USMFree(p); err != nil {
			t.Errorf("USMFree(%v): %v", kind, err)
		}
	})
	return p
}

// read copies n bytes at p into Go memory through q.
func read(t *testing.T, q *queue, p uintptr, n int) []byte {
	t.Helper()
	out := make([]byte, n)
	if _, err := q.USMCopy(uintptr(unsafe.Pointer(&out[0])), p, uint64(n), true, nil, false); err != nil {
		t.Fatalf("USMCopy to the host: %v", err)
	}
	runtime.KeepAlive(out)
	return out
}

// write copies b to p through q and waits.
func write(t *testing.T, q *queue, p uintptr, b []byte) {
	t.Helper()
	if _, err := q.USMCopy(p, uintptr(unsafe.Pointer(&b[0])), uint64(len(b)), true, nil, false); err != nil {
		t.Fatalf("USMCopy from the host: %v", err)
	}
	runtime.KeepAlive(b)
}

func (f *memFixture) kernel(t *testing.T, c *context, name string) *kernel {
	t.Helper()
	dp, err := c.NewProgramFromIL([]byte(memTestPTX))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { dp.Release() })
	if err := dp.Build(nil, ""); err != nil {
		t.Fatal(err)
	}
	dk, err := dp.NewKernel(name)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { dk.Release() })
	return dk.(*kernel)
}

func pattern(n int, seed byte) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i*7) + seed
	}
	return b
}

func TestMemoryDeviceInfo(t *testing.T) {
	f := newMemFixture(t)
	info, _ := f.d.Info()
	managed, _ := f.a.cu.DeviceGetAttribute(cu.DeviceAttributeManagedMemory, f.d.ordinal)
	integrated, _ := f.a.cu.DeviceGetAttribute(cu.DeviceAttributeIntegrated, f.d.ordinal)
	if info.MemBaseAddrAlign != 256 {
		t.Errorf("MemBaseAddrAlign = %d, want 256", info.MemBaseAddrAlign)
	}
	if !info.USM.Device || !info.USM.Host || info.USM.Shared != (managed != 0) || info.USM.Via != "cuda" {
		t.Errorf("USM = %+v; managed memory attribute %d", info.USM, managed)
	}
	if info.HostUnifiedMemory != (integrated != 0) {
		t.Errorf("HostUnifiedMemory = %v, integrated attribute %d", info.HostUnifiedMemory, integrated)
	}
}

// Each kind allocates, is what USMPointerInfo says it is (from its base and
// from inside it), and frees; Go memory is unknown without an error.
func TestMemoryUSMPointerInfo(t *testing.T) {
	f := newMemFixture(t)
	kinds := []driver.USMKind{driver.USMDevice, driver.USMHost}
	if f.d.managed {
		kinds = append(kinds, driver.USMShared)
	}
	const size = 3 << 20
	for _, kind := range kinds {
		p := f.alloc(t, f.c, kind, size)
		if p%usmAlign != 0 {
			t.Errorf("%v allocation %#x is not %d-byte aligned", kind, p, usmAlign)
		}
		for _, at := range []uintptr{p, p + 12345} {
			info, err := f.c.USMPointerInfo(at)
			if err != nil {
				t.Fatalf("USMPointerInfo(%v + %d): %v", kind, at-p, err)
			}
			if info.Kind != kind || info.Base != p || info.Size < size {
				t.Errorf("USMPointerInfo(%v + %d) = %+v, want kind %v, base %#x, size %d", kind, at-p, info, kind, p, size)
			}
			if wantDev := kind != driver.USMHost; (info.Device != nil) != wantDev || (wantDev && info.Device != driver.Device(f.d)) {
				t.Errorf("USMPointerInfo(%v).Device = %v", kind, info.Device)
			}
		}
	}
	goMem := make([]byte, 4096)
	info, err := f.c.USMPointerInfo(uintptr(unsafe.Pointer(&goMem[0])))
	if err != nil || info.Kind != driver.USMUnknown {
		t.Errorf("USMPointerInfo(Go memory) = %+v, %v; want unknown, no error", info, err)
	}
	runtime.KeepAlive(goMem)
}

func TestMemoryUSMAlignment(t *testing.T) {
	f := newMemFixture(t)
	f.alloc(t, f.c, driver.USMDevice, 1000)
	if p, err := f.c.USMAlloc(driver.USMDevice, f.d, 1000, 256); err != nil {
		t.Errorf("USMAlloc aligned to 256: %v", err)
	} else {
		f.c.USMFree(p)
	}
	_, err := f.c.USMAlloc(driver.USMHost, nil, 1000, 4096)
	if !errors.Is(err, driver.ResultUnsupportedAlignment) {
		t.Errorf("USMAlloc aligned to 4096 = %v, want UNSUPPORTED_ALIGNMENT", err)
	}
}

// Copies between every pair of kinds and Go memory, and fills of every
// pattern width, through USMCopy and USMFill.
func TestMemoryUSMCopyAndFill(t *testing.T) {
	f := newMemFixture(t)
	kinds := []driver.USMKind{driver.USMDevice, driver.USMHost}
	if f.d.managed {
		kinds = append(kinds, driver.USMShared)
	}
	const n = 1 << 16
	want := pattern(n, 1)
	for _, from := range kinds {
		for _, to := range kinds {
			src, dst := f.alloc(t, f.c, from, n), f.alloc(t, f.c, to, n)
			write(t, f.q, src, want)
			if _, err := f.q.USMCopy(dst, src, n, false, nil, false); err != nil {
				t.Fatalf("USMCopy %v to %v: %v", from, to, err)
			}
			if got := read(t, f.q, dst, n); !bytes.Equal(got, want) {
				t.Errorf("copy %v to %v: contents differ", from, to)
			}
		}
	}
	for _, kind := range kinds {
		p := f.alloc(t, f.c, kind, n)
		for _, width := range []int{1, 2, 4, 8, 16, 128} {
			pat := pattern(width, byte(width))
			ev, err := f.q.USMFill(p, pat, n, nil, true)
			if err != nil {
				t.Fatalf("USMFill(%v, %d-byte pattern): %v", kind, width, err)
			}
			if err := ev.Wait(ctxpkg.Background()); err != nil {
				t.Fatal(err)
			}
			ev.Release()
			got := read(t, f.q, p, n)
			for i := 0; i < n; i += width {
				if !bytes.Equal(got[i:i+width], pat) {
					t.Fatalf("fill of %v with a %d-byte pattern: bytes %d.. = %v, want %v", kind, width, i, got[i:i+width], pat)
				}
			}
		}
	}
}

// A USM pointer argument is stored where a prepared launch reads it: the
// prepared launch stays valid and takes the new pointer.
func TestMemorySetArgPointer(t *testing.T) {
	f := newMemFixture(t)
	k := f.kernel(t, f.c, "add1")
	const n = 1024
	p1, p2 := f.alloc(t, f.c, driver.USMDevice, n*4), f.alloc(t, f.c, driver.USMDevice, n*4)
	for _, p := range []uintptr{p1, p2} {
		if _, err := f.q.USMFill(p, []byte{0, 0, 0, 0}, n*4, nil, false); err != nil {
			t.Fatal(err)
		}
	}
	if err := k.SetArgPointer(0, p1); err != nil {
		t.Fatal(err)
	}
	r := driver.NDRange{Dims: 1, Global: [3]uint64{n}, Local: [3]uint64{128}}
	pl, err := f.q.PrepareLaunch(k, r)
	if err != nil {
		t.Fatal(err)
	}
	if st := pl.Launch(); st != driver.Launched {
		t.Fatalf("prepared launch on p1: %v", st)
	}
	if err := k.SetArgPointer(0, p2); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if st := pl.Launch(); st != driver.Launched {
			t.Fatalf("prepared launch after SetArgPointer(p2): %v, want Launched", st)
		}
	}
	if err := f.q.Finish(); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		p    uintptr
		want float32
	}{{p1, 1}, {p2, 2}} {
		got := read(t, f.q, c.p, n*4)
		v := unsafe.Slice((*float32)(unsafe.Pointer(&got[0])), n)
		for i := range v {
			if v[i] != c.want {
				t.Fatalf("y[%d] = %v, want %v", i, v[i], c.want)
			}
		}
	}
}

func TestMemoryPrefetchAndAdvise(t *testing.T) {
	f := newMemFixture(t)
	if !f.d.managed {
		t.Skip("no managed memory")
	}
	t.Logf("prefetch migrates (concurrent managed access): %v", f.d.prefetch)
	const n = 1 << 20
	p := f.alloc(t, f.c, driver.USMShared, n)
	for _, a := range []driver.USMAdvice{driver.AdviseReadMostly, driver.AdviseClearReadMostly, driver.AdvisePreferDevice,
		driver.AdvisePreferHost, driver.AdviseAccessedByDevice, driver.AdviseClearAccessedByDevice} {
		ev, err := f.q.USMAdvise(p, n, a, true)
		if err != nil {
			t.Errorf("USMAdvise(%d): %v", a, err)
			continue
		}
		ev.Wait(ctxpkg.Background())
		ev.Release()
	}
	// On device memory, which does not migrate, both are markers.
	dev := f.alloc(t, f.c, driver.USMDevice, n)
	if ev, err := f.q.USMPrefetch(dev, n, false, nil, true); err != nil {
		t.Errorf("USMPrefetch(device memory) = %v, want a marker", err)
	} else {
		ev.Release()
	}
	if _, err := f.q.USMAdvise(dev, n, driver.AdviseReadMostly, false); err != nil {
		t.Errorf("USMAdvise(device memory) = %v, want nothing done", err)
	}
	if _, err := f.q.USMAdvise(p, n, driver.USMAdvice(99), false); !errors.Is(err, driver.ResultInvalidEnumeration) {
		t.Errorf("USMAdvise(99) = %v, want INVALID_ENUMERATION", err)
	}
	want := pattern(n, 3)
	write(t, f.q, p, want)
	for _, toHost := range []bool{false, true} {
		ev, err := f.q.USMPrefetch(p, n, toHost, nil, true)
		if err != nil {
			t.Fatalf("USMPrefetch(toHost %v): %v", toHost, err)
		}
		if err := ev.Wait(ctxpkg.Background()); err != nil {
			t.Fatal(err)
		}
		ev.Release()
	}
	// Managed memory is host-addressable: read it in place. (p is CUDA's
	// memory, outside Go's heap: converting the address is safe.)
	if got := unsafe.Slice(*(**byte)(unsafe.Pointer(&p)), n); !bytes.Equal(got, want) {
		t.Error("shared memory changed across prefetches")
	}
}

func TestMemoryPool(t *testing.T) {
	f := newMemFixture(t)
	if !f.d.pools {
		t.Skip("no memory pools")
	}
	dp, err := f.c.NewPool(f.d, driver.PoolProperties{ReleaseThreshold: 64 << 20})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := dp.Release(); err != nil {
			t.Errorf("pool Release: %v", err)
		}
	}()
	if dp.Native() == 0 {
		t.Error("pool Native is 0")
	}
	const n = 1 << 20
	busy := f.d.busy.Load()
	ptr, ev, err := f.q.AllocAsync(dp, n, nil, true)
	if err != nil {
		t.Fatal(err)
	}
	if ev == nil {
		t.Fatal("AllocAsync with wantEvent returned no event")
	}
	ev.Release()
	want := pattern(n, 5)
	write(t, f.q, ptr, want)
	if got := read(t, f.q, ptr, n); !bytes.Equal(got, want) {
		t.Error("pool memory: contents differ")
	}
	reserved, used, err := dp.Usage()
	if err != nil || reserved < n || used < n {
		t.Errorf("Usage with 1 MiB out = %d reserved, %d used, %v", reserved, used, err)
	}
	if _, err := f.q.FreeAsync(ptr, nil, false); err != nil {
		t.Fatal(err)
	}
	if err := f.q.Finish(); err != nil {
		t.Fatal(err)
	}
	if _, used, _ := dp.Usage(); used != 0 {
		t.Errorf("Usage after the free: %d used, want 0", used)
	}
	if err := dp.Trim(0); err != nil {
		t.Fatal(err)
	}
	if reserved, _, _ := dp.Usage(); reserved != 0 {
		t.Errorf("Usage after Trim(0): %d reserved, want 0", reserved)
	}
	if err := dp.SetReleaseThreshold(^uint64(0)); err != nil {
		t.Error(err)
	}
	if b := f.d.busy.Load(); b != busy {
		t.Errorf("busy count %d after stream-ordered calls, was %d", b, busy)
	}
	// The stream-ordered pair is a hot path: no Go allocation.
	allocs := testing.AllocsPerRun(100, func() {
		p, _, err := f.q.AllocAsync(dp, 4096, nil, false)
		if err == nil {
			_, err = f.q.FreeAsync(p, nil, false)
		}
		if err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Errorf("AllocAsync+FreeAsync: %v allocations, want 0", allocs)
	}
	f.q.Finish()
}

// A marker completes after the commands before it, or after its wait list.
func TestMemoryMarker(t *testing.T) {
	f := newMemFixture(t)
	k := f.kernel(t, f.c, "spin")
	if err := k.SetArgValue(0, (*[8]byte)(unsafe.Pointer(&[]uint64{200_000_000}[0]))[:]); err != nil {
		t.Fatal(err)
	}
	one := driver.NDRange{Dims: 1, Global: [3]uint64{1}, Local: [3]uint64{1}}
	if _, err := f.q.Launch(k, one, nil, false); err != nil {
		t.Fatal(err)
	}
	m, err := f.q.Marker(nil, false)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Release()
	if st, _ := m.Status(); st == driver.EventComplete {
		t.Error("marker complete while a long kernel before it runs")
	}
	if err := m.Wait(ctxpkg.Background()); err != nil {
		t.Fatal(err)
	}

	// On another queue, after an event of the first.
	spinEv, err := f.q.Launch(k, one, nil, true)
	if err != nil {
		t.Fatal(err)
	}
	defer spinEv.Release()
	q2 := newTestQueue(t, f.c)
	m2, err := q2.Marker([]driver.Event{spinEv}, true)
	if err != nil {
		t.Fatal(err)
	}
	defer m2.Release()
	if st, _ := m2.Status(); st == driver.EventComplete {
		t.Error("marker complete before the event it waits for")
	}
	if err := m2.Wait(ctxpkg.Background()); err != nil {
		t.Fatal(err)
	}
	if st, _ := spinEv.Status(); st != driver.EventComplete {
		t.Errorf("the waited-for event is %v after the marker completed", st)
	}
}

func TestMemoryHostRegister(t *testing.T) {
	f := newMemFixture(t)
	const page, n = 4096, 64 << 10
	buf := make([]byte, n+page)
	off := (page - uintptr(unsafe.Pointer(&buf[0]))%page) % page
	host := buf[off : off+n]
	p := uintptr(unsafe.Pointer(&host[0]))
	if err := f.c.HostRegister(p, n); err != nil {
		t.Fatal(err)
	}
	if info, err := f.c.USMPointerInfo(p); err != nil || info.Kind != driver.USMHost {
		t.Errorf("USMPointerInfo(registered) = %+v, %v; want host", info, err)
	}
	dev := f.alloc(t, f.c, driver.USMDevice, n)
	want := pattern(n, 9)
	write(t, f.q, dev, want)
	ev, err := f.q.USMCopy(p, dev, n, false, nil, true)
	if err != nil {
		t.Fatal(err)
	}
	ev.Wait(ctxpkg.Background())
	ev.Release()
	if !bytes.Equal(host, want) {
		t.Error("asynchronous copy into registered memory: contents differ")
	}
	if err := f.c.HostUnregister(p); err != nil {
		t.Fatal(err)
	}
	if info, _ := f.c.USMPointerInfo(p); info.Kind != driver.USMUnknown {
		t.Errorf("USMPointerInfo after HostUnregister = %v, want unknown", info.Kind)
	}
	runtime.KeepAlive(buf)
}

func TestMemorySubBuffer(t *testing.T) {
	f := newMemFixture(t)
	const n = 4096
	parent, err := f.c.NewBuffer(driver.MemReadWrite, n, make([]byte, n))
	if err != nil {
		t.Fatal(err)
	}
	defer parent.Release()
	sub, err := parent.(*mem).NewSubBuffer(driver.MemReadWrite, 512, 256)
	if err != nil {
		t.Fatal(err)
	}
	if sub.Size() != 256 || sub.Native() != parent.Native()+512 {
		t.Errorf("sub-buffer: size %d, address parent+%d", sub.Size(), sub.Native()-parent.Native())
	}
	if _, err := f.q.FillBuffer(sub, []byte{0xab}, 0, 256, nil, false); err != nil {
		t.Fatal(err)
	}
	if err := sub.Release(); err != nil {
		t.Fatal(err)
	}
	got := make([]byte, n) // read after the view's release: the parent lives
	if _, err := f.q.ReadBuffer(parent, true, 0, got, nil, false); err != nil {
		t.Fatal(err)
	}
	for i, b := range got {
		if want := byte(0); i >= 512 && i < 768 {
			want = 0xab
			if b != want {
				t.Fatalf("byte %d = %#x, want %#x", i, b, want)
			}
		} else if b != want {
			t.Fatalf("byte %d = %#x outside the sub-buffer, want 0", i, b)
		}
	}
}

// rectRef copies a rectangle between two byte slices as CopyRect does.
func rectRef(dst, src []byte, r driver.Rect) {
	for z := range r.Region[2] {
		for y := range r.Region[1] {
			s := (r.SrcOrigin[2]+z)*r.SrcSlicePitch + (r.SrcOrigin[1]+y)*r.SrcRowPitch + r.SrcOrigin[0]
			d := (r.DstOrigin[2]+z)*r.DstSlicePitch + (r.DstOrigin[1]+y)*r.DstRowPitch + r.DstOrigin[0]
			copy(dst[d:d+r.Region[0]], src[s:s+r.Region[0]])
		}
	}
}

func TestMemoryCopyRect(t *testing.T) {
	f := newMemFixture(t)
	const size = 4096
	srcData := pattern(size, 11)
	buf, err := f.c.NewBuffer(driver.MemReadWrite, size, srcData)
	if err != nil {
		t.Fatal(err)
	}
	defer buf.Release()
	devPtr := f.alloc(t, f.c, driver.USMDevice, size)
	write(t, f.q, devPtr, srcData)
	for _, c := range []struct {
		name string
		r    driver.Rect
	}{
		{"whole slices", driver.Rect{SrcOrigin: [3]uint64{3, 2, 1}, DstOrigin: [3]uint64{1, 1, 0}, Region: [3]uint64{13, 5, 3},
			SrcRowPitch: 32, SrcSlicePitch: 256, DstRowPitch: 20, DstSlicePitch: 140}},
		{"slice pitch not a whole number of rows", driver.Rect{SrcOrigin: [3]uint64{0, 1, 2}, DstOrigin: [3]uint64{5, 0, 1}, Region: [3]uint64{9, 4, 3},
			SrcRowPitch: 24, SrcSlicePitch: 100, DstRowPitch: 16, DstSlicePitch: 70}},
	} {
		for _, src := range []struct {
			name string
			op   driver.RectOperand
		}{{"buffer", driver.RectOperand{Mem: buf}}, {"device pointer", driver.RectOperand{Ptr: devPtr}}} {
			want := make([]byte, size)
			rectRef(want, srcData, c.r)
			// To Go memory (a unified pointer to pageable memory).
			got := make([]byte, size)
			if _, err := f.q.CopyRect(driver.RectOperand{Ptr: uintptr(unsafe.Pointer(&got[0]))}, src.op, c.r, true, nil, false); err != nil {
				t.Fatalf("%s, %s to host: %v", c.name, src.name, err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%s, %s to host: contents differ", c.name, src.name)
			}
			// To a buffer.
			dst, err := f.c.NewBuffer(driver.MemReadWrite, size, make([]byte, size))
			if err != nil {
				t.Fatal(err)
			}
			if _, err := f.q.CopyRect(driver.RectOperand{Mem: dst}, src.op, c.r, true, nil, false); err != nil {
				t.Fatalf("%s, %s to a buffer: %v", c.name, src.name, err)
			}
			if _, err := f.q.ReadBuffer(dst, true, 0, got, nil, false); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%s, %s to a buffer: contents differ", c.name, src.name)
			}
			dst.Release()
		}
	}
}

func TestMemoryFreeMemory(t *testing.T) {
	f := newMemFixture(t)
	free, total, err := f.d.FreeMemory()
	if err != nil {
		t.Fatal(err)
	}
	if free == 0 || free > total || total != f.d.info.GlobalMemSize {
		t.Errorf("FreeMemory = %d free of %d; global memory %d", free, total, f.d.info.GlobalMemSize)
	}
}

func TestMemoryNativeHandles(t *testing.T) {
	f := newMemFixture(t)
	l := f.a.cu
	// The primary context, with and without the reference its maker took.
	dc, err := f.a.ContextFromNative(uintptr(f.d.ctx), []driver.Device{f.d}, false)
	if err != nil || dc.Native() != uintptr(f.d.ctx) {
		t.Fatalf("ContextFromNative(primary) = %v, %v", dc, err)
	}
	dc.Release()
	retained, r := l.DevicePrimaryCtxRetain(f.d.ordinal)
	if r != cu.Success {
		t.Fatal(r)
	}
	if dc, err = f.a.ContextFromNative(uintptr(retained), []driver.Device{f.d}, true); err != nil {
		t.Fatal(err)
	}
	if err := dc.Release(); err != nil {
		t.Errorf("releasing an owned primary context: %v", err)
	}

	// A stream and a device pointer made outside the adapter.
	f.d.bind()
	s, r := l.StreamCreate(cu.StreamNonBlocking)
	ptr, r2 := l.MemAlloc(4096)
	unbind()
	if r != cu.Success || r2 != cu.Success {
		t.Fatal(r, r2)
	}
	dq, err := f.c.QueueFromNative(uintptr(s), f.d, false)
	if err != nil {
		t.Fatal(err)
	}
	mb, err := f.c.BufferFromNative(uintptr(ptr), 4096, false)
	if err != nil {
		t.Fatal(err)
	}
	q := dq.(*queue)
	if _, err := q.FillBuffer(mb, []byte{1, 2, 3, 4}, 0, 4096, nil, false); err != nil {
		t.Fatal(err)
	}
	got := read(t, q, uintptr(ptr), 4096)
	if !bytes.Equal(got[:8], []byte{1, 2, 3, 4, 1, 2, 3, 4}) {
		t.Errorf("fill through wrapped handles: %v", got[:8])
	}
	if err := mb.Release(); err != nil {
		t.Fatal(err)
	}
	if err := dq.Release(); err != nil {
		t.Fatal(err)
	}
	f.d.bind()
	if r := l.StreamSynchronize(s); r != cu.Success {
		t.Errorf("a stream wrapped without ownership is gone after Release: %v", r)
	}
	r, r2 = l.StreamDestroy(s), l.MemFree(ptr)
	unbind()
	if r != cu.Success || r2 != cu.Success {
		t.Errorf("a handle wrapped without ownership was freed by Release: cuStreamDestroy %v, cuMemFree %v", r, r2)
	}
	// With ownership, Release frees them.
	f.d.bind()
	s, _ = l.StreamCreate(cu.StreamNonBlocking)
	ptr, _ = l.MemAlloc(4096)
	unbind()
	if dq, err = f.c.QueueFromNative(uintptr(s), f.d, true); err != nil {
		t.Fatal(err)
	}
	if mb, err = f.c.BufferFromNative(uintptr(ptr), 4096, true); err != nil {
		t.Fatal(err)
	}
	if err := dq.Release(); err != nil {
		t.Error(err)
	}
	if err := mb.Release(); err != nil {
		t.Error(err)
	}
	if _, err := f.c.QueueFromNative(0, f.d, false); !errors.Is(err, driver.ResultInvalidValue) {
		t.Errorf("QueueFromNative(NULL stream) = %v, want INVALID_VALUE", err)
	}
}

// Another context of the device is wrapped without ownership, and what is
// made from the wrapper lives in it.
func TestMemoryNativeOtherContext(t *testing.T) {
	f := newMemFixture(t)
	other := createContext(t, f.d)
	if _, err := f.a.ContextFromNative(uintptr(other), []driver.Device{f.d}, true); !errors.Is(err, driver.ResultUnsupportedFeature) {
		t.Errorf("ContextFromNative(another context, owned) = %v, want UNSUPPORTED_FEATURE", err)
	}
	dc, err := f.a.ContextFromNative(uintptr(other), []driver.Device{f.d}, false)
	if err != nil {
		t.Fatal(err)
	}
	c := dc.(*context)
	if c.dev.busyCount() != &f.d.busy {
		t.Error("the view does not share the device's busy count")
	}
	q := newTestQueue(t, c)
	p := f.alloc(t, c, driver.USMDevice, 4096)
	f.d.bind()
	pc, r := f.a.cu.PointerGetAttribute(cu.PointerAttributeContext, cu.DevicePtr(p))
	unbind()
	if r != cu.Success || cu.Context(pc) != other {
		t.Errorf("an allocation of the wrapped context belongs to %#x (%v), want %#x", pc, r, other)
	}
	want := pattern(4096, 13)
	write(t, q, p, want)
	if got := read(t, q, p, 4096); !bytes.Equal(got, want) {
		t.Error("copies in the wrapped context: contents differ")
	}
	k := f.kernel(t, c, "add1")
	if err := k.SetArgPointer(0, p); err != nil {
		t.Fatal(err)
	}
	if _, err := q.Launch(k, driver.NDRange{Dims: 1, Global: [3]uint64{1024}, Local: [3]uint64{256}}, nil, false); err != nil {
		t.Fatal(err)
	}
	if err := q.Finish(); err != nil {
		t.Fatal(err)
	}
}

// createContext makes a context of d with cuCtxCreate, destroyed when the
// test ends (after the test's other cleanups, registered later).
func createContext(t *testing.T, d *device) cu.Context {
	t.Helper()
	raw := rawContextCalls(t)
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var args [12]uintptr
	out := new(uintptr)
	if raw.createV4 { // cuCtxCreate_v4(CUcontext *, CUctxCreateParams *, unsigned, CUdevice)
		args = [12]uintptr{uintptr(unsafe.Pointer(out)), 0, 0, uintptr(d.ordinal)}
	} else { // cuCtxCreate_v2(CUcontext *, unsigned, CUdevice)
		args = [12]uintptr{uintptr(unsafe.Pointer(out)), 0, uintptr(d.ordinal)}
	}
	if r := rawCall(raw.create, args); r != 0 {
		t.Fatalf("cuCtxCreate: CUDA error %d", r)
	}
	ctx := *out
	// cuCtxCreate pushed it: pop it so the thread is as it was.
	d.a.cu.CtxPopCurrent()
	t.Cleanup(func() {
		if r := rawCall(raw.destroy, [12]uintptr{ctx}); r != 0 {
			t.Errorf("cuCtxDestroy: CUDA error %d", r)
		}
	})
	return cu.Context(ctx)
}
