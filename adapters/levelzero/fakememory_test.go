package levelzero_test

import (
	"bytes"
	"context"
	"os"
	"strconv"
	"sync"
	"testing"
	"unsafe"

	"github.com/gour-dev/gour/adapters/levelzero/internal/ze"
	"github.com/gour-dev/gour/internal/dl"
	"github.com/gour-dev/gour/ur"
)

// This file tests the memory model (ur/driver/memory.go) over the fake
// driver, through package ur: USM allocations, pointer queries, USM
// commands, pointer arguments, markers, pools, sub-buffers, region copies
// and native wrapping. It runs in TestFakeDriverChild.

var (
	counterOnce sync.Once
	counterFn   uintptr
	counterErr  error
)

// fakeCounter reads one of the fake driver's call counters
// (gour_fake_counter in ze_fake_driver.c), for calls whose effect the
// test cannot see in memory.
func fakeCounter(t *testing.T, name string) uint64 {
	t.Helper()
	counterOnce.Do(func() {
		var lib *dl.Library
		if lib, counterErr = dl.Open(os.Getenv(envFakeDriver)); counterErr == nil {
			counterFn, counterErr = lib.Lookup("gour_fake_counter")
		}
	})
	must(t, "gour_fake_counter", counterErr)
	fn := counterFn
	s := dl.CString(name)
	f := dl.NewFrame()
	f.Args[0] = f.Ptr(0, unsafe.Pointer(&s[0]))
	r, _, _ := f.Call(fn)
	return uint64(r)
}

func fakeMemoryInfo(t *testing.T, dev *ur.Device) {
	info := dev.Info()
	want := ur.USMSupport{Device: true, Host: true, Shared: true, Via: "level_zero"}
	if info.USM != want {
		t.Errorf("USM = %+v, want %+v", info.USM, want)
	}
	if info.MemBaseAddrAlign != 1 {
		t.Errorf("MemBaseAddrAlign = %d, want 1 (byte)", info.MemBaseAddrAlign)
	}
	if info.HostUnifiedMemory {
		t.Error("HostUnifiedMemory on a device without ZE_DEVICE_PROPERTY_FLAG_INTEGRATED")
	}
}

// fakeUSMAlloc allocates each kind with an alignment and asks the driver
// about the allocation's first byte, a byte in its middle, and memory it
// did not allocate.
func fakeUSMAlloc(t *testing.T, ctx *ur.Context, dev *ur.Device) {
	frees := fakeCounter(t, "mem_free")
	for _, c := range []struct {
		kind ur.USMKind
		dev  *ur.Device
	}{{ur.USMDevice, dev}, {ur.USMHost, nil}, {ur.USMShared, dev}} {
		u, err := ctx.Alloc(c.kind, c.dev, 1000, 4096)
		must(t, "Alloc "+c.kind.String(), err)
		if u.Addr()%4096 != 0 || u.Kind() != c.kind || u.Size() != 1000 {
			t.Errorf("%s allocation at %#x, kind %v, %d bytes: want 4096-aligned, %v, 1000 bytes", c.kind, u.Addr(), u.Kind(), u.Size(), c.kind)
		}
		for _, addr := range []uintptr{u.Addr(), u.Ptr().Add(500).Addr()} {
			info, err := ctx.PointerInfo(addr)
			must(t, "PointerInfo", err)
			if info.Kind != c.kind || info.Device != c.dev || info.Base != u.Addr() || info.Size != 1000 {
				t.Errorf("PointerInfo(%#x) in a %s allocation at %#x = %+v", addr, c.kind, u.Addr(), info)
			}
		}
		must(t, "Free", u.Free())
	}
	if n := fakeCounter(t, "mem_free") - frees; n != 3 {
		t.Errorf("%d zeMemFree calls for 3 allocations", n)
	}
	var local [64]byte
	info, err := ctx.PointerInfo(uintptr(unsafe.Pointer(&local[0])))
	must(t, "PointerInfo of Go memory", err)
	if info != (ur.USMPointerInfo{}) {
		t.Errorf("PointerInfo of Go memory = %+v, want the zero USMUnknown", info)
	}
	if _, err := ctx.Alloc(ur.USMDevice, dev, 64, 3); err == nil {
		t.Error("an alignment of 3 bytes was accepted")
	}
}

// fakeUSMCommands copies, fills, prefetches and advises.
func fakeUSMCommands(t *testing.T, ctx *ur.Context, dev *ur.Device, q *ur.Queue) {
	const n = 1024
	d, err := ctx.AllocDevice(dev, n)
	must(t, "AllocDevice", err)
	defer d.Free()
	h, err := ctx.AllocHost(n)
	must(t, "AllocHost", err)
	defer h.Free()
	s, err := ctx.AllocShared(dev, n)
	must(t, "AllocShared", err)
	defer s.Free()
	hs, err := ur.HostSlice[byte](h)
	must(t, "HostSlice", err)
	ss, err := ur.HostSlice[byte](s)
	must(t, "HostSlice", err)

	src := make([]byte, n)
	for i := range src {
		src[i] = byte(i * 3)
	}
	must(t, "CopyToPtr", q.CopyToPtr(d.Ptr(), src))
	ev, err := q.EnqueueMemcpy(h.Ptr(), d.Ptr(), n)
	must(t, "EnqueueMemcpy", err)
	must(t, "Wait", ev.Wait(context.Background()))
	ev.Release()
	if !bytes.Equal(hs, src) {
		t.Error("host → device → host USM: data differs")
	}

	// A pattern the compute engine fills (4 bytes) and one it does not
	// (32 bytes: device copies double it), from an offset.
	for _, plen := range []int{4, 32} {
		clear(ss)
		pattern := make([]byte, plen)
		for i := range pattern {
			pattern[i] = byte(0x40 + plen + i)
		}
		ev, err := q.EnqueueMemFill(s.Ptr().Add(64), pattern, 512)
		must(t, "EnqueueMemFill", err)
		must(t, "Wait", ev.Wait(context.Background()))
		ev.Release()
		want := make([]byte, n)
		copy(want[64:], bytes.Repeat(pattern, 512/plen))
		if !bytes.Equal(ss, want) {
			t.Errorf("fill of 512 bytes at offset 64 with a %d-byte pattern: data differs", plen)
		}
	}
	got := make([]byte, 16)
	must(t, "CopyFromPtr", q.CopyFromPtr(got, s.Ptr().Add(64)))
	if !bytes.Equal(got, ss[64:80]) {
		t.Error("CopyFromPtr at an offset: data differs")
	}

	// Prefetches: shared memory to the device is one
	// zeCommandListAppendMemoryPrefetch; to the host, or of device
	// memory, only orders the queue. Each waits for an event.
	before := fakeCounter(t, "prefetch")
	marker, err := q.EnqueueMarker()
	must(t, "EnqueueMarker", err)
	for _, c := range []struct {
		p      ur.Ptr
		toHost bool
	}{{s.Ptr(), false}, {s.Ptr().Add(256), true}, {d.Ptr(), false}} {
		ev, err := q.EnqueuePrefetch(c.p, 256, c.toHost, marker)
		must(t, "EnqueuePrefetch", err)
		must(t, "Wait", ev.Wait(context.Background()))
		ev.Release()
	}
	marker.Release()
	if got := fakeCounter(t, "prefetch") - before; got != 1 {
		t.Errorf("%d prefetches reached the driver, want 1 (shared memory to the device)", got)
	}

	// Advice: each with its ze_memory_advice_t, on shared memory only.
	for _, c := range []struct {
		advice ur.USMAdvice
		ze     int // -1: none
	}{
		{ur.AdviseReadMostly, int(ze.MemoryAdviceSetReadMostly)},
		{ur.AdviseClearReadMostly, int(ze.MemoryAdviceClearReadMostly)},
		{ur.AdvisePreferDevice, int(ze.MemoryAdviceSetPreferredLocation)},
		{ur.AdvisePreferHost, int(ze.MemoryAdviceClearPreferredLocation)},
		{ur.AdviseAccessedByDevice, -1},
		{ur.AdviseClearAccessedByDevice, -1},
	} {
		var counts [8]uint64
		for i := range counts {
			counts[i] = fakeCounter(t, "advise:"+strconv.Itoa(i))
		}
		ev, err := q.EnqueueAdvise(s.Ptr().Add(128), 512, c.advice)
		must(t, "EnqueueAdvise", err)
		must(t, "Wait", ev.Wait(context.Background()))
		ev.Release()
		ev, err = q.EnqueueAdvise(d.Ptr(), 512, c.advice)
		must(t, "EnqueueAdvise on device memory", err)
		ev.Release()
		for i := range counts {
			want := counts[i]
			if i == c.ze {
				want++
			}
			if got := fakeCounter(t, "advise:"+strconv.Itoa(i)); got != want {
				t.Errorf("advice %d: ze_memory_advice_t %d given %d times, want %d", c.advice, i, got-counts[i], want-counts[i])
			}
		}
	}
	must(t, "Finish", q.Finish())
}

// fakePointerLaunch runs iota on a pointer 64 bytes into a shared
// allocation; the fake driver refuses a launch whose items run past the
// allocation, so the offset must reach it.
func fakePointerLaunch(t *testing.T, ctx *ur.Context, dev *ur.Device, q *ur.Queue, p *ur.Program) {
	const n = 256
	k, err := p.NewKernel("iota")
	must(t, "NewKernel", err)
	defer k.Release()
	for _, kind := range []ur.USMKind{ur.USMShared, ur.USMDevice, ur.USMHost} {
		d := dev
		if kind == ur.USMHost {
			d = nil
		}
		u, err := ctx.Alloc(kind, d, 64+4*n, 0)
		must(t, "Alloc", err)
		ev, err := q.EnqueueMemFill(u.Ptr(), []byte{0xee}, 64+4*n)
		must(t, "EnqueueMemFill", err)
		ev.Release()
		must(t, "SetArgPtr", k.SetArgPtr(0, u.Ptr().Add(64)))
		must(t, "Launch", q.Launch(k, ur.Range1D(n)))
		out := make([]byte, 64+4*n)
		must(t, "CopyFromPtr", q.CopyFromPtr(out, u.Ptr()))
		if !bytes.Equal(out[:64], bytes.Repeat([]byte{0xee}, 64)) {
			t.Errorf("%s: iota on a pointer at offset 64 wrote before it", kind)
		}
		vals := unsafe.Slice((*uint32)(unsafe.Pointer(&out[64])), n)
		for i, v := range vals {
			if v != uint32(i) {
				t.Fatalf("%s: iota on a pointer at offset 64: out[%d] = %d", kind, i, v)
			}
		}
		if err := q.Launch(k, ur.Range1D(n+16)); err == nil {
			t.Errorf("%s: a launch past the allocation's end from offset 64 was accepted", kind)
		}
		must(t, "Finish", q.Finish())
		must(t, "Free", u.Free())
	}
}

// fakeMarkers waits across queues with a marker and a barrier.
func fakeMarkers(t *testing.T, ctx *ur.Context, dev *ur.Device, q *ur.Queue, p *ur.Program) {
	k, err := p.NewKernel("add_one")
	must(t, "NewKernel", err)
	defer k.Release()
	m, err := ctx.NewBufferFrom(ur.MemReadWrite, make([]byte, 4*64))
	must(t, "NewBufferFrom", err)
	defer m.Release()
	must(t, "SetArgMem", k.SetArgMem(0, m))
	q2, err := ctx.NewQueue(dev, ur.QueueProperties{})
	must(t, "NewQueue", err)
	defer q2.Release()
	e1, err := q.EnqueueLaunch(k, ur.Range1D(64), ur.LaunchOptions{})
	must(t, "EnqueueLaunch", err)
	defer e1.Release()
	m1, err := q2.EnqueueMarker(e1)
	must(t, "EnqueueMarker with a wait list", err)
	defer m1.Release()
	must(t, "Launch", q2.Launch(k, ur.Range1D(64)))
	m2, err := q2.EnqueueBarrier()
	must(t, "EnqueueBarrier", err)
	defer m2.Release()
	m3, err := q2.EnqueueMarker()
	must(t, "EnqueueMarker", err)
	defer m3.Release()
	must(t, "WaitAll", ur.WaitAll(context.Background(), m1, m2, m3))
	for _, e := range []*ur.Event{m1, m2, m3} {
		if st, err := e.Status(); err != nil || st != ur.EventComplete {
			t.Errorf("marker status %v, %v", st, err)
		}
	}
	out := make([]uint32, 64)
	must(t, "ReadBuffer", q2.ReadBuffer(m, 0, ur.AsBytes(out)))
	if out[0] != 2 || out[63] != 2 {
		t.Errorf("two add_one launches ordered by a marker gave %d, %d", out[0], out[63])
	}
}

// fakePool allocates from a pool, which the front end keeps for Level
// Zero (no native pools), on a queue.
func fakePool(t *testing.T, ctx *ur.Context, dev *ur.Device, q *ur.Queue) {
	pool, err := ctx.NewPool(dev, ur.PoolOptions{ReleaseThreshold: 1 << 20})
	must(t, "NewPool", err)
	for i := range 3 {
		u, err := q.AllocAsync(pool, 1000)
		must(t, "AllocAsync", err)
		ev, err := q.EnqueueMemFill(u.Ptr(), []byte{byte(i + 1)}, 1000)
		must(t, "EnqueueMemFill", err)
		ev.Release()
		got := make([]byte, 1000)
		must(t, "CopyFromPtr", q.CopyFromPtr(got, u.Ptr()))
		if !bytes.Equal(got, bytes.Repeat([]byte{byte(i + 1)}, 1000)) {
			t.Errorf("pool allocation %d: data differs", i)
		}
		must(t, "FreeAsync", q.FreeAsync(u))
	}
	must(t, "Finish", q.Finish())
	must(t, "Pool.Release", pool.Release())
}

// fakeSubBuffer launches on a view of a buffer and checks that only the
// view's bytes changed.
func fakeSubBuffer(t *testing.T, ctx *ur.Context, q *ur.Queue, p *ur.Program) {
	k, err := p.NewKernel("iota")
	must(t, "NewKernel", err)
	defer k.Release()
	m, err := ctx.NewBufferFrom(ur.MemReadWrite, bytes.Repeat([]byte{0x77}, 4096))
	must(t, "NewBufferFrom", err)
	defer m.Release()
	sub, err := m.SubBuffer(1000, 1024) // any byte: MemBaseAddrAlign is 1
	must(t, "SubBuffer", err)
	must(t, "SetArgMem", k.SetArgMem(0, sub))
	must(t, "Launch", q.Launch(k, ur.Range1D(256)))
	out := make([]byte, 4096)
	must(t, "ReadBuffer", q.ReadBuffer(m, 0, out))
	want := bytes.Repeat([]byte{0x77}, 4096)
	for i := range uint32(256) {
		copy(want[1000+4*i:], ur.AsBytes([]uint32{i}))
	}
	if !bytes.Equal(out, want) {
		t.Error("iota on a sub-buffer at offset 1000: the parent's bytes differ")
	}
	part := make([]byte, 8)
	must(t, "ReadBuffer of the view", q.ReadBuffer(sub, 4, part))
	if !bytes.Equal(part, want[1004:1012]) {
		t.Error("ReadBuffer of the sub-buffer: data differs")
	}
	frees := fakeCounter(t, "mem_free")
	must(t, "sub-buffer Release", sub.Release())
	if fakeCounter(t, "mem_free") != frees {
		t.Error("releasing a sub-buffer freed memory")
	}
}

// fakeCopyRect copies 2D and 3D regions between buffers, USM and host
// memory, and checks every byte of the destinations.
func fakeCopyRect(t *testing.T, ctx *ur.Context, dev *ur.Device, q *ur.Queue) {
	const size = 4096
	src := make([]byte, size)
	for i := range src {
		src[i] = byte(i*7 + 1)
	}
	// expect is the destination after copying r from src over fill.
	expect := func(r ur.Rect) []byte {
		out := bytes.Repeat([]byte{0xee}, size)
		for z := range r.Region[2] {
			for y := range r.Region[1] {
				for x := range r.Region[0] {
					s := (r.SrcOrigin[0] + x) + (r.SrcOrigin[1]+y)*r.SrcRowPitch + (r.SrcOrigin[2]+z)*r.SrcSlicePitch
					d := (r.DstOrigin[0] + x) + (r.DstOrigin[1]+y)*r.DstRowPitch + (r.DstOrigin[2]+z)*r.DstSlicePitch
					out[d] = src[s]
				}
			}
		}
		return out
	}
	check := func(what string, got, want []byte) {
		t.Helper()
		for i := range want {
			if got[i] != want[i] {
				t.Errorf("%s: byte %d = %#x, want %#x", what, i, got[i], want[i])
				return
			}
		}
	}
	rect2D := ur.Rect{
		SrcOrigin: [3]uint64{3, 2, 0}, DstOrigin: [3]uint64{5, 1, 0},
		Region:      [3]uint64{10, 6, 1},
		SrcRowPitch: 32, DstRowPitch: 24,
	}
	rect3D := ur.Rect{
		SrcOrigin: [3]uint64{1, 1, 1}, DstOrigin: [3]uint64{2, 0, 2},
		Region:      [3]uint64{7, 3, 4},
		SrcRowPitch: 16, SrcSlicePitch: 80,
		DstRowPitch: 12, DstSlicePitch: 48,
	}

	sb, err := ctx.NewBufferFrom(ur.MemReadOnly, src)
	must(t, "NewBufferFrom", err)
	defer sb.Release()
	db, err := ctx.NewBufferFrom(ur.MemReadWrite, bytes.Repeat([]byte{0xee}, size))
	must(t, "NewBufferFrom", err)
	defer db.Release()
	ds, err := ctx.AllocShared(dev, size)
	must(t, "AllocShared", err)
	defer ds.Free()
	dss, err := ur.HostSlice[byte](ds)
	must(t, "HostSlice", err)

	for _, r := range []ur.Rect{rect2D, rect3D} {
		what := "2D"
		if r.Region[2] > 1 {
			what = "3D"
		}
		// Buffer to buffer, after an event.
		must(t, "WriteBuffer", q.WriteBuffer(db, 0, bytes.Repeat([]byte{0xee}, size)))
		ev, err := q.EnqueueCopyRect(ur.OnBuffer(db), ur.OnBuffer(sb), r)
		must(t, "EnqueueCopyRect", err)
		must(t, "Wait", ev.Wait(context.Background()))
		ev.Release()
		got := make([]byte, size)
		must(t, "ReadBuffer", q.ReadBuffer(db, 0, got))
		check(what+" buffer to buffer", got, expect(r))

		// Buffer to a USM pointer.
		for i := range dss {
			dss[i] = 0xee
		}
		must(t, "CopyRect", q.CopyRect(ur.OnPtr(ds.Ptr()), ur.OnBuffer(sb), r))
		check(what+" buffer to pointer", dss, expect(r))

		// Host memory to a buffer.
		must(t, "WriteBuffer", q.WriteBuffer(db, 0, bytes.Repeat([]byte{0xee}, size)))
		must(t, "CopyRect", q.CopyRect(ur.OnBuffer(db), ur.OnHost(src), r))
		must(t, "ReadBuffer", q.ReadBuffer(db, 0, got))
		check(what+" host to buffer", got, expect(r))
	}
}

// fakeNative wraps the handles of the fake driver: gour's own without
// ownership (releasing the wrapper must destroy nothing), and handles made
// by another user of the loader with ownership (releasing destroys them).
func fakeNative(t *testing.T, ctx *ur.Context, dev *ur.Device, q *ur.Queue, p *ur.Program) {
	// iota runs on m through q, with a kernel of ctx: gour's, or one built
	// in a wrapped context.
	iota := func(what string, ctx *ur.Context, q *ur.Queue, m *ur.Mem) {
		t.Helper()
		prog := p
		if ctx != p.Context() {
			prog = fakeProgram(t, ctx, dev, "kernels.spv")
			defer prog.Release()
		}
		k, err := prog.NewKernel("iota")
		must(t, what+": NewKernel", err)
		defer k.Release()
		must(t, what+": SetArgMem", k.SetArgMem(0, m))
		must(t, what+": Launch", q.Launch(k, ur.Range1D(64)))
		out := make([]uint32, 64)
		must(t, what+": ReadBuffer", q.ReadBuffer(m, 0, ur.AsBytes(out)))
		for i, v := range out {
			if v != uint32(i) {
				t.Fatalf("%s: out[%d] = %d", what, i, v)
			}
		}
	}
	counts := func() [3]uint64 {
		return [3]uint64{fakeCounter(t, "context_destroy"), fakeCounter(t, "list_destroy"), fakeCounter(t, "mem_free")}
	}

	// Borrowed: gour's own context, queue and memory, wrapped again.
	u, err := ctx.AllocDevice(dev, 256)
	must(t, "AllocDevice", err)
	before := counts()
	wctx, err := ur.WrapContext(ctx.Native(), false, dev)
	must(t, "WrapContext", err)
	wq, err := ctx.WrapQueue(q.Native(), dev, false)
	must(t, "WrapQueue", err)
	wm, err := ctx.WrapBuffer(u.Addr(), 256, false)
	must(t, "WrapBuffer", err)
	iota("borrowed queue and buffer", ctx, wq, wm)
	wm2, err := wctx.NewBuffer(ur.MemReadWrite, 256)
	must(t, "NewBuffer in the wrapped context", err)
	wq2, err := wctx.NewQueue(dev, ur.QueueProperties{})
	must(t, "NewQueue in the wrapped context", err)
	iota("wrapped context", wctx, wq2, wm2)
	must(t, "Release", wm2.Release())
	must(t, "Release", wq2.Release())
	must(t, "Release", wm.Release())
	must(t, "Release", wq.Release())
	must(t, "Release", wctx.Release())
	after := counts()
	if after[0] != before[0] || after[1] != before[1]+1 || after[2] != before[2]+1 {
		t.Errorf("releasing borrowed wrappers destroyed %d contexts, %d lists and freed %d allocations; want 0, 1 (the wrapped context's own queue), 1 (its own buffer)",
			after[0]-before[0], after[1]-before[1], after[2]-before[2])
	}
	iota("the original queue after its wrapper's release", ctx, q, freshBuffer(t, ctx))
	must(t, "Free", u.Free())

	// Owned: handles another user of the loader made.
	l, err := ze.Load()
	must(t, "ze.Load", err)
	drivers, r := l.DriverGet()
	if r != ze.Success || len(drivers) != 1 {
		t.Fatalf("zeDriverGet: %v, %d drivers", r, len(drivers))
	}
	devh := ze.Device(dev.Info().Native)
	ch, r := l.ContextCreateEx(drivers[0], []ze.Device{devh})
	if r != ze.Success {
		t.Fatalf("zeContextCreateEx: %v", r)
	}
	lh, r := l.CommandListCreateImmediate(ch, devh, &ze.CommandQueueDesc{Ordinal: 1, Mode: ze.CommandQueueModeAsynchronous})
	if r != ze.Success {
		t.Fatalf("zeCommandListCreateImmediate: %v", r)
	}
	ptr, r := l.MemAllocDevice(ch, devh, 256, 0, 0)
	if r != ze.Success {
		t.Fatalf("zeMemAllocDevice: %v", r)
	}
	before = counts()
	octx, err := ur.WrapContext(uintptr(ch), true, dev)
	must(t, "WrapContext owned", err)
	oq, err := octx.WrapQueue(uintptr(lh), dev, true)
	must(t, "WrapQueue owned", err)
	om, err := octx.WrapBuffer(ptr, 256, true)
	must(t, "WrapBuffer owned", err)
	iota("owned wrappers", octx, oq, om)
	must(t, "Context.Release", octx.Release()) // the context goes with the last of them
	if c := counts(); c[0] != before[0] {
		t.Error("the owned context was destroyed before its queue and buffer")
	}
	must(t, "Mem.Release", om.Release())
	must(t, "Queue.Release", oq.Release())
	after = counts()
	if after != [3]uint64{before[0] + 1, before[1] + 1, before[2] + 1} {
		t.Errorf("releasing owned wrappers destroyed %d contexts, %d lists and freed %d allocations; want 1 each",
			after[0]-before[0], after[1]-before[1], after[2]-before[2])
	}
}

// freshBuffer is a new buffer of ctx, released with the test.
func freshBuffer(t *testing.T, ctx *ur.Context) *ur.Mem {
	m, err := ctx.NewBuffer(ur.MemReadWrite, 256)
	must(t, "NewBuffer", err)
	t.Cleanup(func() { m.Release() })
	return m
}
