package conformance

import (
	"bytes"
	"errors"
	"runtime"
	"testing"

	"github.com/gour-dev/gour/ur"
)

func TestMemorySubBuffer(t *testing.T) {
	forEachDevice(t, func(t *testing.T, f *Fixture) {
		align := f.Device.Info().MemBaseAddrAlign
		if align == 0 {
			align = 1
		}
		off := 2 * max(align, 256)
		parent := f.Buffer(t, ur.MemReadWrite, off+8192)
		q := f.Queue(t)
		ev, err := q.EnqueueFill(parent, []byte{0xee, 0xee, 0xee, 0xee}, 0, parent.Size())
		must(t, "EnqueueFill", err)
		ev.Release()
		view, err := parent.SubBuffer(off, 4096)
		if errors.Is(err, ur.ErrUnsupportedFeature) {
			t.Skipf("no sub-buffers: %v", err)
		}
		must(t, "SubBuffer", err)
		defer view.Release()
		if p, o := view.Parent(); p != parent || o != off || view.Size() != 4096 {
			t.Errorf("view: parent %p at %d, size %d; want %p at %d, 4096", p, o, view.Size(), parent, off)
		}
		kern := f.Kernel(t, "iota")
		must(t, "SetArgMem(view)", kern.SetArgMem(0, view))
		must(t, "Launch", q.Launch(kern, ur.Range1D(1024)))
		got := make([]byte, parent.Size())
		must(t, "ReadBuffer(parent)", q.ReadBuffer(parent, 0, got))
		for i, v := range u32s(got) {
			want := uint32(0xeeeeeeee)
			if j := uint64(i) * 4; j >= off && j < off+4096 {
				want = uint32((j - off) / 4)
			}
			if v != want {
				t.Fatalf("parent word %d = %#x, want %#x: the view starts at byte %d", i, v, want, off)
			}
		}
		// A view of a view is a view of the parent at the summed offset.
		inner, err := view.SubBuffer(max(align, 256), 256)
		must(t, "SubBuffer of a view", err)
		if p, o := inner.Parent(); p != parent || o != off+max(align, 256) {
			t.Errorf("view of a view: parent %p at %d, want %p at %d", p, o, parent, off+max(align, 256))
		}
		must(t, "Release", inner.Release())
		_, err = parent.SubBuffer(off, 1<<40)
		wantErr(t, "view past the end", err, ur.ErrInvalidSize)
		if align > 1 {
			_, err = parent.SubBuffer(align+align/2, 64)
			wantErr(t, "misaligned view", err, ur.ErrMisalignedSubBufferOffset)
		}
		// The view keeps its parent's memory: releasing the parent first
		// leaves the view usable.
		must(t, "Release(parent)", parent.Release())
		back := make([]byte, 16)
		must(t, "ReadBuffer(view) after the parent's release", q.ReadBuffer(view, 0, back))
		if w := u32s(back); w[3] != 3 {
			t.Errorf("view word 3 = %d after the parent's release, want 3", w[3])
		}
	})
}

// rectPattern is a 3D block of bytes where each byte says where it is.
func rectPattern(size int) []byte {
	b := make([]byte, size)
	for i := range b {
		b[i] = byte(i*31 + i/251)
	}
	return b
}

// wantRect checks that dst holds src's region, copied with the given
// origins and pitches, and nothing else of src.
func wantRect(t *testing.T, what string, dst, src []byte, r ur.Rect, dstBefore []byte) {
	t.Helper()
	want := bytes.Clone(dstBefore)
	for z := uint64(0); z < r.Region[2]; z++ {
		for y := uint64(0); y < r.Region[1]; y++ {
			for x := uint64(0); x < r.Region[0]; x++ {
				s := (r.SrcOrigin[2]+z)*r.SrcSlicePitch + (r.SrcOrigin[1]+y)*r.SrcRowPitch + r.SrcOrigin[0] + x
				d := (r.DstOrigin[2]+z)*r.DstSlicePitch + (r.DstOrigin[1]+y)*r.DstRowPitch + r.DstOrigin[0] + x
				want[d] = src[s]
			}
		}
	}
	if i := firstDiff(dst, want); i >= 0 {
		t.Errorf("%s: byte %d = %#x, want %#x", what, i, dst[i], want[i])
	}
}

func TestMemoryCopyRect(t *testing.T) {
	forEachDevice(t, func(t *testing.T, f *Fixture) {
		q := f.Queue(t)
		// A 3D source of 8 slices × 16 rows × 64 bytes, copied as a region
		// of 3 slices × 5 rows × 20 bytes into a differently laid out
		// destination.
		r := ur.Rect{
			SrcOrigin: [3]uint64{4, 2, 1}, DstOrigin: [3]uint64{8, 1, 2},
			Region:      [3]uint64{20, 5, 3},
			SrcRowPitch: 64, SrcSlicePitch: 64 * 16,
			DstRowPitch: 48, DstSlicePitch: 48 * 12,
		}
		src := rectPattern(64 * 16 * 8)
		dstSize := 48 * 12 * 6
		zero := make([]byte, dstSize)
		f.Run(t, "HostToBuffer", func(t *testing.T) {
			dst := f.BufferFrom(t, ur.MemReadWrite, zero)
			err := q.CopyRect(ur.OnBuffer(dst), ur.OnHost(src), r)
			if errors.Is(err, ur.ErrUnsupportedFeature) {
				t.Skipf("no rectangular copies: %v", err)
			}
			must(t, "CopyRect", err)
			got := make([]byte, dstSize)
			must(t, "ReadBuffer", q.ReadBuffer(dst, 0, got))
			wantRect(t, "host to buffer", got, src, r, zero)
		})
		f.Run(t, "BufferToBufferToHost", func(t *testing.T) {
			sb := f.BufferFrom(t, ur.MemReadOnly, src)
			dst := f.BufferFrom(t, ur.MemReadWrite, zero)
			ev, err := q.EnqueueCopyRect(ur.OnBuffer(dst), ur.OnBuffer(sb), r)
			if errors.Is(err, ur.ErrUnsupportedFeature) {
				t.Skipf("no rectangular copies: %v", err)
			}
			must(t, "EnqueueCopyRect", err)
			ev.Release()
			got := make([]byte, dstSize)
			must(t, "ReadBuffer", q.ReadBuffer(dst, 0, got))
			wantRect(t, "buffer to buffer", got, src, r, zero)
			// Back to the host, packed: the region alone.
			packed := make([]byte, 20*5*3)
			back := ur.Rect{SrcOrigin: r.DstOrigin, Region: r.Region, SrcRowPitch: 48, SrcSlicePitch: 48 * 12}
			must(t, "CopyRect to host", q.CopyRect(ur.OnHost(packed), ur.OnBuffer(dst), back))
			back.DstRowPitch, back.DstSlicePitch = 20, 100
			wantRect(t, "buffer to packed host", packed, got, back, make([]byte, len(packed)))
		})
		f.Run(t, "PointerToPointer", func(t *testing.T) {
			needUSM(t, f, ur.USMDevice)
			ctx := f.Context(t)
			a := allocUSM(t, f, ctx, ur.USMDevice, uint64(len(src)))
			b := allocUSM(t, f, ctx, ur.USMDevice, uint64(dstSize))
			must(t, "CopyToPtr", q.CopyToPtr(a.Ptr(), src))
			must(t, "CopyToPtr", q.CopyToPtr(b.Ptr(), zero))
			must(t, "CopyRect", q.CopyRect(ur.OnPtr(b.Ptr()), ur.OnPtr(a.Ptr()), r))
			got := make([]byte, dstSize)
			must(t, "CopyFromPtr", q.CopyFromPtr(got, b.Ptr()))
			wantRect(t, "pointer to pointer", got, src, r, zero)
		})
		f.Run(t, "BadRegions", func(t *testing.T) {
			dst := f.Buffer(t, ur.MemReadWrite, uint64(dstSize))
			big := r
			big.Region[2] = 7 // 7 slices from slice 2 end past the destination's 6
			wantErr(t, "region past the end", q.CopyRect(ur.OnBuffer(dst), ur.OnHost(src), big), ur.ErrInvalidSize)
			short := r
			short.DstRowPitch = 10
			wantErr(t, "row pitch shorter than a row", q.CopyRect(ur.OnBuffer(dst), ur.OnHost(src), short), ur.ErrInvalidValue)
			empty := r
			empty.Region[1] = 0
			wantErr(t, "empty region", q.CopyRect(ur.OnBuffer(dst), ur.OnHost(src), empty), ur.ErrInvalidSize)
			over := ur.Rect{Region: [3]uint64{64, 2, 1}, DstOrigin: [3]uint64{32, 0, 0}}
			wantErr(t, "overlap in one buffer", q.CopyRect(ur.OnBuffer(dst), ur.OnBuffer(dst), over), ur.ErrOverlappingRegions)
			wantErr(t, "host to host", q.CopyRect(ur.OnHost(zero), ur.OnHost(src), r), ur.ErrInvalidValue)
		})
	})
}

// A non-blocking transfer keeps Go memory alive until it completes, even
// when the caller drops every reference to it and releases the event at
// once: the garbage collector runs while the copies are in flight.
func TestMemoryAsyncTransferKeepsHostMemory(t *testing.T) {
	forEachDevice(t, func(t *testing.T, f *Fixture) {
		const size, copies = 4 << 20, 8
		q := f.Queue(t)
		bufs := make([]*ur.Mem, copies)
		for i := range bufs {
			bufs[i] = f.Buffer(t, ur.MemReadWrite, size)
			src := pattern(size, byte(i))
			ev, err := q.EnqueueWrite(bufs[i], 0, src)
			must(t, "EnqueueWrite", err)
			must(t, "Release", ev.Release())
		}
		reads := make([]*ur.Event, copies)
		for i := range bufs {
			dst := make([]byte, size) // dropped: only the queue holds it
			var err error
			reads[i], err = q.EnqueueRead(bufs[i], 0, dst)
			must(t, "EnqueueRead", err)
		}
		runtime.GC()
		runtime.GC()
		must(t, "Finish", q.Finish())
		for _, e := range reads {
			e.Release()
		}
		for i := range bufs {
			got := make([]byte, size)
			must(t, "ReadBuffer", q.ReadBuffer(bufs[i], 0, got))
			if j := firstDiff(got, pattern(size, byte(i))); j >= 0 {
				t.Fatalf("buffer %d differs at byte %d from what its released, dropped write sent", i, j)
			}
		}
	})
}

func TestMemoryRegisterHost(t *testing.T) {
	forEachDevice(t, func(t *testing.T, f *Fixture) {
		ctx, q := f.Context(t), f.Queue(t)
		mem := ur.PageAlignedBytes(1 << 20)
		reg, err := ctx.RegisterHost(mem)
		if errors.Is(err, ur.ErrUnsupportedFeature) {
			if f.Backend == "cuda" { // cuMemHostRegister
				t.Fatalf("RegisterHost on %s: %v", f.Backend, err)
			}
			// Level Zero's core API has no way to page-lock memory it did
			// not allocate; some OpenCL devices neither.
			t.Skipf("no page-locking of Go memory here: %v", err)
		}
		must(t, "RegisterHost", err)
		copy(mem, pattern(len(mem), 5))
		buf := f.Buffer(t, ur.MemReadWrite, uint64(len(mem)))
		ev, err := q.EnqueueWrite(buf, 0, reg.Bytes())
		must(t, "EnqueueWrite from registered memory", err)
		must(t, "Wait", ev.Wait(t.Context()))
		ev.Release()
		got := make([]byte, len(mem))
		must(t, "ReadBuffer", q.ReadBuffer(buf, 0, got))
		if i := firstDiff(got, mem); i >= 0 {
			t.Errorf("copy from registered memory differs at byte %d", i)
		}
		must(t, "Release", reg.Release())
		wantErr(t, "Release twice", reg.Release(), ur.ErrInvalidValue)
		_, err = ctx.RegisterHost(mem[1:4097])
		wantErr(t, "RegisterHost of unaligned memory", err, ur.ErrInvalidValue)
	})
}

func TestMemoryWrapNative(t *testing.T) {
	forEachDevice(t, func(t *testing.T, f *Fixture) {
		ctx, q := f.Context(t), f.Queue(t)
		orig := f.BufferFrom(t, ur.MemReadWrite, make([]byte, 4096))
		wrapped, err := ctx.WrapBuffer(orig.Native(), 4096, false)
		if errors.Is(err, ur.ErrUnsupportedFeature) {
			t.Skipf("no native wrapping: %v", err)
		}
		must(t, "WrapBuffer", err)
		wq, err := ctx.WrapQueue(q.Native(), f.Device, false)
		must(t, "WrapQueue", err)
		kern := f.Kernel(t, "iota")
		must(t, "SetArgMem(wrapped)", kern.SetArgMem(0, wrapped))
		must(t, "Launch on the wrapped queue", wq.Launch(kern, ur.Range1D(1024)))
		must(t, "Finish", wq.Finish())
		must(t, "Release(wrapped queue)", wq.Release())
		must(t, "Release(kernel)", kern.Release())
		must(t, "Release(wrapped buffer)", wrapped.Release())
		// Not owned: the originals are still good.
		got := make([]byte, 4096)
		must(t, "ReadBuffer(original) on the original queue", q.ReadBuffer(orig, 0, got))
		if w := u32s(got); w[1000] != 1000 {
			t.Errorf("word 1000 = %d after a launch on the wrapped handles, want 1000", w[1000])
		}
		wctx, err := ur.WrapContext(ctx.Native(), false, f.Device)
		must(t, "WrapContext", err)
		m, err := wctx.NewBufferFrom(ur.MemReadOnly, []byte{1, 2, 3, 4})
		must(t, "NewBufferFrom in the wrapped context", err)
		must(t, "Release", m.Release())
		must(t, "Release(wrapped context)", wctx.Release())
		_, err = ctx.WrapBuffer(0, 64, false)
		wantErr(t, "WrapBuffer(0)", err, ur.ErrInvalidNullHandle)
	})
}

func TestDeviceMemoryFacts(t *testing.T) {
	forEachDevice(t, func(t *testing.T, f *Fixture) {
		info := f.Device.Info()
		u := info.USM
		if (u.Device || u.Host || u.Shared) != (u.Via != "") {
			t.Errorf("USM %+v: Via must name the mechanism exactly when some kind is offered", u)
		}
		if !(u.Device && u.Host && u.Shared) && u.Missing == "" {
			t.Errorf("USM %+v: a device without some kind must say what is missing", u)
		}
		if a := info.MemBaseAddrAlign; a&(a-1) != 0 {
			t.Errorf("MemBaseAddrAlign %d is not a power of two", a)
		}
		free, total, err := f.Device.FreeMemory()
		if errors.Is(err, ur.ErrUnsupportedFeature) {
			t.Logf("FreeMemory: %v", err)
			return
		}
		must(t, "FreeMemory", err)
		if total == 0 || free > total {
			t.Errorf("FreeMemory = %d free of %d: want free ≤ total, total > 0", free, total)
		}
	})
}
