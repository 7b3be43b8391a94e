package opencl_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"math"
	"testing"
	"time"
	"unsafe"

	"github.com/gour-dev/gour/adapters/opencl"
	"github.com/gour-dev/gour/adapters/opencl/internal/cl"
	"github.com/gour-dev/gour/internal/harness/testenv"
	"github.com/gour-dev/gour/ur"
	"github.com/gour-dev/gour/ur/driver"
)

// memFixture is a context and a queue on the first OpenCL device.
type memFixture struct {
	dev *ur.Device
	ctx *ur.Context
	q   *ur.Queue
}

func newMemFixture(t *testing.T) *memFixture {
	t.Helper()
	testenv.MustHaveAdapter(t, opencl.Name)
	sys, err := ur.Discover(ur.Config{Selector: "opencl:*"})
	if err != nil {
		t.Fatal(err)
	}
	if len(sys.Devices) == 0 {
		t.Skip("no OpenCL device selected")
	}
	f := &memFixture{dev: sys.Devices[0]}
	if f.ctx, err = ur.NewContext(f.dev); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.ctx.Release() })
	if f.q, err = f.ctx.NewQueue(f.dev, ur.QueueProperties{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.q.Release() })
	return f
}

// needUSM skips a test on a device without USM device allocations.
func (f *memFixture) needUSM(t *testing.T) ur.USMSupport {
	t.Helper()
	u := f.dev.Info().USM
	if !u.Device {
		t.Skipf("%s has no USM: %s", f.dev.Name(), u)
	}
	return u
}

// kinds returns the USM kinds the device has, each with the device to
// allocate it on.
func (f *memFixture) kinds(t *testing.T) []ur.USMKind {
	u := f.needUSM(t)
	kinds := []ur.USMKind{ur.USMDevice}
	if u.Host {
		kinds = append(kinds, ur.USMHost)
	}
	if u.Shared {
		kinds = append(kinds, ur.USMShared)
	}
	return kinds
}

func (f *memFixture) alloc(t *testing.T, kind ur.USMKind, size uint64) *ur.USM {
	t.Helper()
	dev := f.dev
	if kind == ur.USMHost {
		dev = nil
	}
	u, err := f.ctx.Alloc(kind, dev, size, 0)
	if err != nil {
		t.Fatalf("Alloc(%v, %d): %v", kind, size, err)
	}
	t.Cleanup(func() { u.Free() })
	return u
}

// kernel builds source and returns its kernel name.
func (f *memFixture) kernel(t *testing.T, source, name string) *ur.Kernel {
	t.Helper()
	prog, err := f.ctx.NewProgramFromSource(source)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { prog.Release() })
	if err := prog.Build(""); err != nil {
		t.Fatal(err)
	}
	k, err := prog.NewKernel(name)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { k.Release() })
	return k
}

func wait(t *testing.T, what string, ev *ur.Event, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	defer ev.Release()
	if err := ev.Wait(context.Background()); err != nil {
		t.Fatalf("%s: Wait: %v", what, err)
	}
}

// pattern returns n bytes that differ from their neighbours.
func pattern(n int, seed byte) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i*7) + seed
	}
	return b
}

func floats(b []byte) []float32 {
	out := make([]float32, len(b)/4)
	for i := range out {
		out[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return out
}

func floatBytes(v []float32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return b
}

// The device info of the memory model agrees with the driver's raw
// answers: the base address alignment in bytes, host-unified memory, and
// USM through Intel's extension or SVM as the device's capabilities say.
func TestMemoryDeviceInfo(t *testing.T) {
	f := newMemFixture(t)
	info := f.dev.Info()
	lib, err := cl.Load()
	if err != nil {
		t.Fatal(err)
	}
	d := cl.Device(info.Native)
	b, st := lib.DeviceInfo(d, cl.DeviceMemBaseAddrAlign)
	if st != cl.Success {
		t.Fatal(st)
	}
	if bits := uint64(cl.Uint32(b)); info.MemBaseAddrAlign != bits/8 || info.MemBaseAddrAlign == 0 {
		t.Errorf("MemBaseAddrAlign = %d bytes, want %d bits / 8", info.MemBaseAddrAlign, bits)
	}
	if b, st := lib.DeviceInfo(d, cl.DeviceHostUnifiedMemory); st == cl.Success && info.HostUnifiedMemory != (cl.Uint32(b) != 0) {
		t.Errorf("HostUnifiedMemory = %v, want %v", info.HostUnifiedMemory, cl.Uint32(b) != 0)
	}
	var svm uint64
	if b, st := lib.DeviceInfo(d, cl.DeviceSVMCapabilities); st == cl.Success {
		svm = cl.Uint64(b)
	}
	u := info.USM
	switch u.Via {
	case "cl_intel_unified_shared_memory":
		if !bytes.Contains([]byte(info.Extensions), []byte(u.Via)) {
			t.Errorf("USM via %s, which the device does not list", u.Via)
		}
	case "svm":
		fine := svm&cl.DeviceSVMFineGrainBuffer != 0
		if want := (ur.USMSupport{Device: true, Host: fine, Shared: fine, Via: "svm", Missing: u.Missing}); u != want {
			t.Errorf("USM = %+v, want %+v for SVM capabilities %#x", u, want, svm)
		}
	case "":
		if svm != 0 || u.Device || u.Missing == "" {
			t.Errorf("USM = %+v with SVM capabilities %#x", u, svm)
		}
	default:
		t.Errorf("USM via %q", u.Via)
	}
	t.Logf("%s: base address alignment %d bytes, host-unified %v, USM %s", f.dev.Name(), info.MemBaseAddrAlign, info.HostUnifiedMemory, u)
}

// Each USM kind the device has allocates, describes its base, middle and
// last byte, copies and fills round trip through it, and a prefetch (both
// ways) and every advice leave its contents alone. A Go pointer is
// USMUnknown, without an error.
func TestUSMKindsRoundTrip(t *testing.T) {
	f := newMemFixture(t)
	const n = 4096
	for _, kind := range f.kinds(t) {
		t.Run(kind.String(), func(t *testing.T) {
			u := f.alloc(t, kind, n)
			for _, off := range []uint64{0, n / 2, n - 1} {
				info, err := f.ctx.PointerInfo(u.Addr() + uintptr(off))
				if err != nil {
					t.Fatal(err)
				}
				if info.Kind != kind || info.Base != u.Addr() || info.Size != n {
					t.Errorf("PointerInfo(base+%d) = %+v, want kind %v, base %#x, %d bytes", off, info, kind, u.Addr(), n)
				}
				if wantDev := kind != ur.USMHost; (info.Device != nil) != wantDev || (wantDev && info.Device != f.dev) {
					t.Errorf("PointerInfo(base+%d).Device = %v, want the device: %v", off, info.Device, wantDev)
				}
			}
			goMem := make([]byte, 64)
			if info, err := f.ctx.PointerInfo(uintptr(unsafe.Pointer(&goMem[0]))); err != nil || info.Kind != ur.USMUnknown {
				t.Errorf("PointerInfo(Go memory) = %+v, %v; want USMUnknown, no error", info, err)
			}

			src := pattern(n, 1)
			if err := f.q.CopyToPtr(u.Ptr(), src); err != nil {
				t.Fatal(err)
			}
			// Fill the middle quarter with a 4-byte pattern.
			ev, err := f.q.EnqueueMemFill(u.Ptr().Add(n/4), []byte{1, 2, 3, 4}, n/4)
			wait(t, "EnqueueMemFill", ev, err)
			want := append([]byte(nil), src...)
			for i := n / 4; i < n/2; i++ {
				want[i] = byte(i%4 + 1)
			}
			// Copy the first 256 bytes over the last 256, within the allocation.
			ev, err = f.q.EnqueueMemcpy(u.Ptr().Add(n-256), u.Ptr(), 256)
			wait(t, "EnqueueMemcpy", ev, err)
			copy(want[n-256:], want[:256])
			for _, toHost := range []bool{false, true} {
				ev, err := f.q.EnqueuePrefetch(u.Ptr(), n, toHost)
				wait(t, "EnqueuePrefetch", ev, err)
			}
			for a := ur.AdviseReadMostly; a <= ur.AdviseClearAccessedByDevice; a++ {
				ev, err := f.q.EnqueueAdvise(u.Ptr().Add(64), 128, a)
				wait(t, "EnqueueAdvise", ev, err)
			}
			got := make([]byte, n)
			if err := f.q.CopyFromPtr(got, u.Ptr()); err != nil {
				t.Fatal(err)
			}
			diff(t, "contents", got, want)
			if kind != ur.USMDevice {
				// Host and shared memory are fine-grained: the host reads it as it is.
				host, err := ur.HostSlice[byte](u)
				if err != nil {
					t.Fatal(err)
				}
				diff(t, "HostSlice", host, want)
			}
		})
	}
}

// diff fails t at the first byte where got and want differ.
func diff(t *testing.T, what string, got, want []byte) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d bytes, want %d", what, len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("%s: byte %d = %d, want %d", what, i, got[i], want[i])
		}
	}
}

const scaleSource = `__kernel void scale(__global float* p, float a) { p[get_global_id(0)] *= a; }`

// A kernel takes a pointer into the middle of each kind of USM allocation
// (SetArgPtr at an offset), through Launch and through a launch prepared
// before the argument changed: the bytes before the offset stay as they
// were.
func TestPointerArgumentAtOffset(t *testing.T) {
	f := newMemFixture(t)
	k := f.kernel(t, scaleSource, "scale")
	const n, skip = 1024, 16
	for _, kind := range f.kinds(t) {
		t.Run(kind.String(), func(t *testing.T) {
			u := f.alloc(t, kind, n*4)
			in := make([]float32, n)
			for i := range in {
				in[i] = float32(i)
			}
			if err := f.q.CopyToPtr(u.Ptr(), floatBytes(in)); err != nil {
				t.Fatal(err)
			}
			if err := k.SetArgPtr(0, u.Ptr().Add(skip*4)); err != nil {
				t.Fatal(err)
			}
			if err := k.SetArgFloat32(1, 2); err != nil {
				t.Fatal(err)
			}
			r := ur.Range1D(n - skip)
			if err := f.q.Launch(k, r); err != nil {
				t.Fatal(err)
			}
			p, err := f.q.PrepareLaunch(k, r)
			if err != nil {
				t.Fatal(err)
			}
			defer p.Release()
			if err := k.SetArgFloat32(1, 3); err != nil { // taken by the prepared launch
				t.Fatal(err)
			}
			if err := p.Launch(); err != nil {
				t.Fatal(err)
			}
			out := make([]byte, n*4)
			if err := f.q.CopyFromPtr(out, u.Ptr()); err != nil {
				t.Fatal(err)
			}
			for i, v := range floats(out) {
				want := float32(i)
				if i >= skip {
					want *= 6
				}
				if v != want {
					t.Fatalf("p[%d] = %v, want %v", i, v, want)
				}
			}
		})
	}
}

// A marker completes after the commands before it, a barrier after its
// wait list; both give events that the next commands can wait on.
func TestMarkerAndBarrier(t *testing.T) {
	f := newMemFixture(t)
	const n = 1 << 20
	m, err := f.ctx.NewBuffer(ur.MemReadWrite, n)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Release()
	fillEv, err := f.q.EnqueueFill(m, []byte{7}, 0, n)
	if err != nil {
		t.Fatal(err)
	}
	defer fillEv.Release()
	ev, err := f.q.EnqueueMarker()
	wait(t, "EnqueueMarker", ev, err)
	if st, err := fillEv.Status(); err != nil || st != ur.EventComplete {
		t.Errorf("the fill before the marker: %v, %v; want complete", st, err)
	}
	ev, err = f.q.EnqueueBarrier(fillEv)
	wait(t, "EnqueueBarrier", ev, err)
	got := make([]byte, n)
	if err := f.q.ReadBuffer(m, 0, got); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, bytes.Repeat([]byte{7}, n)) {
		t.Error("the buffer was not filled")
	}
}

// A kernel launched on a sub-buffer at the base address alignment touches
// only that part of the parent. A misaligned offset fails with
// ErrMisalignedSubBufferOffset: in the front end, and in the adapter for
// CL_MISALIGNED_SUB_BUFFER_OFFSET.
func TestSubBuffer(t *testing.T) {
	f := newMemFixture(t)
	align := f.dev.Info().MemBaseAddrAlign
	if align < 8 {
		align = 8
	}
	const n = 4096
	parent, err := f.ctx.NewBufferFrom(ur.MemReadWrite, make([]byte, n))
	if err != nil {
		t.Fatal(err)
	}
	defer parent.Release()
	const size = 256
	view, err := parent.SubBuffer(align, size)
	if err != nil {
		t.Fatal(err)
	}
	defer view.Release()
	k := f.kernel(t, addOneSource, "add1")
	if err := k.SetArgMem(0, view); err != nil {
		t.Fatal(err)
	}
	if err := f.q.Launch(k, ur.Range1D(size/4)); err != nil {
		t.Fatal(err)
	}
	out := make([]byte, n)
	if err := f.q.ReadBuffer(parent, 0, out); err != nil {
		t.Fatal(err)
	}
	for i, v := range floats(out) {
		want := float32(0)
		if off := uint64(4 * i); off >= align && off < align+size {
			want = 1
		}
		if v != want {
			t.Fatalf("parent[%d] = %v, want %v", i, v, want)
		}
	}
	if f.dev.Info().MemBaseAddrAlign > 4 {
		if _, err := parent.SubBuffer(4, size); !errors.Is(err, ur.ErrMisalignedSubBufferOffset) {
			t.Errorf("SubBuffer at 4: %v, want ErrMisalignedSubBufferOffset", err)
		}
	}
}

// The adapter maps CL_MISALIGNED_SUB_BUFFER_OFFSET itself, for a caller
// that skips the front end's check.
func TestSubBufferMisalignedInTheDriver(t *testing.T) {
	testenv.MustHaveAdapter(t, opencl.Name)
	a, err := opencl.Open()
	if err != nil {
		t.Fatal(err)
	}
	platforms, _ := a.Platforms()
	var dev driver.Device
	for _, p := range platforms {
		if devs, _ := p.Devices(); len(devs) > 0 {
			dev = devs[0]
			break
		}
	}
	info, _ := dev.Info()
	if info.MemBaseAddrAlign <= 4 {
		t.Skipf("base address alignment %d: no misaligned offset", info.MemBaseAddrAlign)
	}
	ctx, err := a.NewContext([]driver.Device{dev})
	if err != nil {
		t.Fatal(err)
	}
	defer ctx.Release()
	m, err := ctx.NewBuffer(driver.MemReadWrite, 4096, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Release()
	_, err = m.(driver.SubBufferMem).NewSubBuffer(driver.MemReadWrite, 4, 64)
	var de *driver.Error
	if !errors.As(err, &de) || de.Result != driver.ResultMisalignedSubBufferOffset || de.NativeName != "CL_MISALIGNED_SUB_BUFFER_OFFSET" {
		t.Errorf("NewSubBuffer at 4 = %v, want MISALIGNED_SUB_BUFFER_OFFSET from CL_MISALIGNED_SUB_BUFFER_OFFSET", err)
	}
}

// rectRef is what a rectangular copy does, in Go; r's pitches are filled.
func rectRef(dst, src []byte, r ur.Rect) {
	for z := uint64(0); z < r.Region[2]; z++ {
		for y := uint64(0); y < r.Region[1]; y++ {
			s := r.SrcOrigin[0] + (r.SrcOrigin[1]+y)*r.SrcRowPitch + (r.SrcOrigin[2]+z)*r.SrcSlicePitch
			d := r.DstOrigin[0] + (r.DstOrigin[1]+y)*r.DstRowPitch + (r.DstOrigin[2]+z)*r.DstSlicePitch
			copy(dst[d:d+r.Region[0]], src[s:s+r.Region[0]])
		}
	}
}

// rects are the copies every operand pair runs: a 3D copy with different
// pitches on each side (row by row when emulated), a 2D one, and a packed
// one whose rows and slices are contiguous on both sides (one copy when
// emulated). Operands are 4096 bytes.
var rects = []ur.Rect{
	{SrcOrigin: [3]uint64{3, 1, 1}, DstOrigin: [3]uint64{5, 2, 0}, Region: [3]uint64{11, 4, 3},
		SrcRowPitch: 32, SrcSlicePitch: 256, DstRowPitch: 48, DstSlicePitch: 320},
	{SrcOrigin: [3]uint64{0, 3, 0}, DstOrigin: [3]uint64{7, 0, 0}, Region: [3]uint64{20, 9, 1},
		SrcRowPitch: 64, DstRowPitch: 40},
	{SrcOrigin: [3]uint64{0, 0, 1}, DstOrigin: [3]uint64{0, 0, 2}, Region: [3]uint64{16, 8, 4}},
}

// filled fills zero pitches as the front end does, for rectRef.
func filled(r ur.Rect) ur.Rect {
	if r.SrcRowPitch == 0 {
		r.SrcRowPitch = r.Region[0]
	}
	if r.SrcSlicePitch == 0 {
		r.SrcSlicePitch = r.SrcRowPitch * r.Region[1]
	}
	if r.DstRowPitch == 0 {
		r.DstRowPitch = r.Region[0]
	}
	if r.DstSlicePitch == 0 {
		r.DstSlicePitch = r.DstRowPitch * r.Region[1]
	}
	return r
}

// rectSide is one kind of operand of a rectangular copy, made with its
// contents and read back.
type rectSide struct {
	name string
	make func(t *testing.T, f *memFixture, contents []byte) (ur.RectOperand, func() []byte)
}

const rectBytes = 4096

var bufferSide = rectSide{"buffer", func(t *testing.T, f *memFixture, contents []byte) (ur.RectOperand, func() []byte) {
	m, err := f.ctx.NewBufferFrom(ur.MemReadWrite, contents)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Release() })
	return ur.OnBuffer(m), func() []byte {
		out := make([]byte, rectBytes)
		if err := f.q.ReadBuffer(m, 0, out); err != nil {
			t.Fatal(err)
		}
		return out
	}
}}

var hostSide = rectSide{"host", func(t *testing.T, f *memFixture, contents []byte) (ur.RectOperand, func() []byte) {
	b := append([]byte(nil), contents...)
	return ur.OnHost(b), func() []byte { return b }
}}

func usmSide(kind ur.USMKind) rectSide {
	return rectSide{"usm-" + kind.String(), func(t *testing.T, f *memFixture, contents []byte) (ur.RectOperand, func() []byte) {
		u := f.alloc(t, kind, rectBytes)
		if err := f.q.CopyToPtr(u.Ptr(), contents); err != nil {
			t.Fatal(err)
		}
		return ur.OnPtr(u.Ptr()), func() []byte {
			out := make([]byte, rectBytes)
			if err := f.q.CopyFromPtr(out, u.Ptr()); err != nil {
				t.Fatal(err)
			}
			return out
		}
	}}
}

// Rectangular copies between every pair of buffers, host memory and the
// USM kinds the device has match the Go reference byte by byte, blocking
// and not; a buffer and device USM give ErrUnsupportedFeature, as OpenCL
// has no call between them.
func TestCopyRect(t *testing.T) {
	f := newMemFixture(t)
	sides := []rectSide{bufferSide, hostSide}
	if f.dev.Info().USM.Device {
		for _, k := range f.kinds(t) {
			sides = append(sides, usmSide(k))
		}
	}
	for _, dst := range sides {
		for _, src := range sides {
			if dst.name == "host" && src.name == "host" {
				continue // the front end refuses: a copy in Go
			}
			t.Run(dst.name+"<-"+src.name, func(t *testing.T) {
				unsupported := (dst.name == "buffer" && src.name == "usm-device") || (dst.name == "usm-device" && src.name == "buffer")
				for i, r := range rects {
					srcBytes, dstBytes := pattern(rectBytes, 1), pattern(rectBytes, 100)
					so, _ := src.make(t, f, srcBytes)
					do, read := dst.make(t, f, dstBytes)
					blocking := i%2 == 0
					var err error
					if blocking {
						err = f.q.CopyRect(do, so, r)
					} else {
						var ev *ur.Event
						if ev, err = f.q.EnqueueCopyRect(do, so, r); err == nil {
							wait(t, "EnqueueCopyRect", ev, nil)
						}
					}
					if unsupported {
						if !errors.Is(err, ur.ErrUnsupportedFeature) {
							t.Fatalf("rect %d: %v, want ErrUnsupportedFeature", i, err)
						}
						continue
					}
					if err != nil {
						t.Fatalf("rect %d: %v", i, err)
					}
					want := append([]byte(nil), dstBytes...)
					rectRef(want, srcBytes, filled(r))
					diff(t, "rect "+string(rune('0'+i)), read(), want)
				}
			})
		}
	}
}

// Native handles made outside gour wrap in both ownership settings: not
// owned takes a reference of its own, which Release gives back; owned
// takes over the caller's, which Release drops. The wrapped handles work:
// a buffer written through a wrapped queue in a wrapped context reads
// back.
func TestWrapNativeHandles(t *testing.T) {
	f := newMemFixture(t)
	lib, err := cl.Load()
	if err != nil {
		t.Fatal(err)
	}
	d := cl.Device(f.dev.Info().Native)
	b, _ := lib.DeviceInfo(d, cl.DevicePlatform)
	h, st := lib.CreateContext([]uintptr{cl.ContextPlatform, cl.Uintptr(b)}, []cl.Device{d})
	if st != cl.Success {
		t.Fatal(st)
	}
	defer lib.ReleaseContext(h)
	refs := func(info func(param uint32) ([]byte, cl.Status), param uint32) uint32 {
		t.Helper()
		b, st := info(param)
		if st != cl.Success {
			t.Fatal(st)
		}
		return cl.Uint32(b)
	}
	ctxRefs := func() uint32 {
		return refs(func(p uint32) ([]byte, cl.Status) { return lib.ContextInfo(h, p) }, cl.ContextReferenceCount)
	}
	q, st := lib.CreateCommandQueue(h, d, 0)
	if st != cl.Success {
		t.Fatal(st)
	}
	defer lib.ReleaseCommandQueue(q)
	m, st := lib.CreateBuffer(h, cl.MemReadWrite, 256, nil)
	if st != cl.Success {
		t.Fatal(st)
	}
	defer lib.ReleaseMemObject(m)
	queueRefs := func() uint32 {
		return refs(func(p uint32) ([]byte, cl.Status) { return lib.QueueInfo(q, p) }, cl.QueueReferenceCount)
	}
	memRefs := func() uint32 {
		return refs(func(p uint32) ([]byte, cl.Status) { return lib.MemInfo(m, p) }, cl.MemReferenceCount)
	}
	// PoCL keeps a queue's last command's event, which holds the queue:
	// one command first, so that the counts compared include it.
	warm := make([]byte, 256)
	if st := lib.EnqueueWriteBuffer(q, m, true, 0, 256, unsafe.Pointer(&warm[0]), nil, nil); st != cl.Success {
		t.Fatal(st)
	}

	counts := func() [3]uint32 { return [3]uint32{ctxRefs(), queueRefs(), memRefs()} }
	// PoCL's worker thread drops a finished command's hold on its queue a
	// moment after a blocking call returns, so the queue's count can read one
	// high for that moment: counts are taken once they have settled.
	settled := func(want *[3]uint32) [3]uint32 {
		lib.Finish(q)
		last := counts()
		for deadline := time.Now().Add(2 * time.Second); time.Now().Before(deadline); {
			time.Sleep(5 * time.Millisecond)
			got := counts()
			if (want != nil && got == *want) || (want == nil && got == last) {
				return got
			}
			last = got
		}
		return last
	}

	for _, owned := range []bool{false, true} {
		before := settled(nil)
		if owned {
			// The references the wrappers take over.
			lib.RetainContext(h)
			lib.RetainCommandQueue(q)
			lib.RetainMemObject(m)
		}
		held := [3]uint32{ctxRefs(), queueRefs(), memRefs()}
		wc, err := ur.WrapContext(uintptr(h), owned, f.dev)
		if err != nil {
			t.Fatal(err)
		}
		wq, err := wc.WrapQueue(uintptr(q), f.dev, owned)
		if err != nil {
			t.Fatal(err)
		}
		wm, err := wc.WrapBuffer(uintptr(m), 256, owned)
		if err != nil {
			t.Fatal(err)
		}
		wrapped := [3]uint32{ctxRefs(), queueRefs(), memRefs()}
		want := before
		for i := range want {
			want[i]++ // one reference each: taken (not owned) or given (owned)
		}
		if wrapped != want || held != map[bool][3]uint32{false: before, true: want}[owned] {
			t.Errorf("owned %v: references before %v, held %v, wrapped %v; want %v wrapped", owned, before, held, wrapped, want)
		}
		data := pattern(256, 9)
		if err := wq.WriteBuffer(wm, 0, data); err != nil {
			t.Fatal(err)
		}
		got := make([]byte, 256)
		if err := wq.ReadBuffer(wm, 0, got); err != nil {
			t.Fatal(err)
		}
		diff(t, "wrapped buffer", got, data)
		wm.Release()
		wq.Release()
		wc.Release()
		if after := settled(&before); after != before {
			t.Errorf("owned %v: references after Release %v, want %v", owned, after, before)
		}
	}

	// A buffer wraps only in its own context, and only for its size.
	if _, err := f.ctx.WrapBuffer(uintptr(m), 256, false); !errors.Is(err, ur.ErrInvalidContext) {
		t.Errorf("WrapBuffer of another context's cl_mem: %v, want ErrInvalidContext", err)
	}
	wc, err := ur.WrapContext(uintptr(h), false, f.dev)
	if err != nil {
		t.Fatal(err)
	}
	defer wc.Release()
	if _, err := wc.WrapBuffer(uintptr(m), 512, false); !errors.Is(err, ur.ErrInvalidBufferSize) {
		t.Errorf("WrapBuffer of 512 bytes of a 256-byte cl_mem: %v, want ErrInvalidBufferSize", err)
	}
}

// The hot USM calls allocate nothing at the driver level: setting a
// pointer argument, and a copy or fill without a wait list or an event.
func TestUSMHotPathsAllocateNothing(t *testing.T) {
	testenv.MustHaveAdapter(t, opencl.Name)
	if raceEnabled {
		t.Skip("the race detector makes sync.Pool drop frames")
	}
	a, err := opencl.Open()
	if err != nil {
		t.Fatal(err)
	}
	platforms, _ := a.Platforms()
	devs, _ := platforms[0].Devices()
	dev := devs[0]
	if info, _ := dev.Info(); !info.USM.Device {
		t.Skipf("no USM: %s", info.USM)
	}
	ctx, err := a.NewContext([]driver.Device{dev})
	if err != nil {
		t.Fatal(err)
	}
	defer ctx.Release()
	q, err := ctx.NewQueue(dev, driver.QueueProperties{})
	if err != nil {
		t.Fatal(err)
	}
	defer q.Release()
	prog, err := ctx.NewProgramFromSource(addOneSource)
	if err != nil {
		t.Fatal(err)
	}
	defer prog.Release()
	if err := prog.Build([]driver.Device{dev}, ""); err != nil {
		t.Fatal(err)
	}
	k, err := prog.NewKernel("add1")
	if err != nil {
		t.Fatal(err)
	}
	defer k.Release()
	usm := ctx.(driver.USMContext)
	src, err := usm.USMAlloc(driver.USMDevice, dev, 4096, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer usm.USMFree(src)
	dst, err := usm.USMAlloc(driver.USMDevice, dev, 4096, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer usm.USMFree(dst)
	uq, pk := q.(driver.USMQueue), k.(driver.PointerKernel)
	pat := []byte{1, 2, 3, 4}
	for name, fn := range map[string]func() error{
		"SetArgPointer": func() error { return pk.SetArgPointer(0, dst+64) },
		"USMCopy": func() error {
			_, err := uq.USMCopy(dst, src, 4096, false, nil, false)
			return err
		},
		"USMFill": func() error {
			_, err := uq.USMFill(dst, pat, 4096, nil, false)
			return err
		},
	} {
		var callErr error
		allocs := testing.AllocsPerRun(100, func() {
			if err := fn(); err != nil {
				callErr = err
			}
		})
		if callErr != nil {
			t.Fatalf("%s: %v", name, callErr)
		}
		if allocs != 0 {
			t.Errorf("%s: %v allocs, want 0", name, allocs)
		}
	}
	if err := q.Finish(); err != nil {
		t.Fatal(err)
	}
}

// Alignments past what the driver gives (PoCL's clSVMAlloc refuses more
// than its largest data type's) are honoured: the pointer is aligned, its
// info names it as the base, and the memory round trips and frees.
func TestUSMLargeAlignment(t *testing.T) {
	f := newMemFixture(t)
	for _, kind := range f.kinds(t) {
		for _, align := range []uint64{64, 4096, 1 << 16} {
			dev := f.dev
			if kind == ur.USMHost {
				dev = nil
			}
			u, err := f.ctx.Alloc(kind, dev, 1000, align)
			if err != nil {
				t.Fatalf("%v aligned to %d: %v", kind, align, err)
			}
			if u.Addr()%uintptr(align) != 0 {
				t.Errorf("%v aligned to %d: %#x", kind, align, u.Addr())
			}
			if info, err := f.ctx.PointerInfo(u.Addr() + 999); err != nil || info.Base != u.Addr() || info.Size != 1000 {
				t.Errorf("%v aligned to %d: PointerInfo(last byte) = %+v, %v; want base %#x, 1000 bytes", kind, align, info, err, u.Addr())
			}
			data := pattern(1000, byte(align))
			got := make([]byte, 1000)
			if err := f.q.CopyToPtr(u.Ptr(), data); err != nil {
				t.Fatal(err)
			}
			if err := f.q.CopyFromPtr(got, u.Ptr()); err != nil {
				t.Fatal(err)
			}
			diff(t, "aligned allocation", got, data)
			if err := u.Free(); err != nil {
				t.Errorf("%v aligned to %d: Free: %v", kind, align, err)
			}
		}
	}
}

// TestUSMFreeWhileInUse frees device memory at once after enqueuing a
// fill of it, the queue not waited for: the free waits for the fill, as
// CUDA's and Intel's frees do, so the driver never writes into memory it
// has handed back (SVM's clSVMFree alone let PoCL's fill corrupt its
// heap). Allocations made after it come back whole.
func TestUSMFreeWhileInUse(t *testing.T) {
	f := newMemFixture(t)
	if !f.dev.Info().USM.Device {
		t.Skip("no device USM")
	}
	const size = 1 << 20
	for i := range 20 {
		u, err := f.ctx.AllocDevice(f.dev, size)
		if err != nil {
			t.Fatal(err)
		}
		ev, err := f.q.EnqueueMemFill(u.Ptr(), []byte{byte(i)}, size)
		if err != nil {
			t.Fatal(err)
		}
		ev.Release()
		if err := u.Free(); err != nil {
			t.Fatal(err)
		}
	}
	u, err := f.ctx.AllocDevice(f.dev, size)
	if err != nil {
		t.Fatal(err)
	}
	defer u.Free()
	ev, err := f.q.EnqueueMemFill(u.Ptr(), []byte{0x5a}, size)
	if err != nil {
		t.Fatal(err)
	}
	ev.Release()
	got := make([]byte, size)
	ev, err = f.q.EnqueueCopyFromPtr(got, u.Ptr())
	if err != nil {
		t.Fatal(err)
	}
	if err := ev.Wait(context.Background()); err != nil {
		t.Fatal(err)
	}
	ev.Release()
	if i := bytes.IndexFunc(got, func(r rune) bool { return r != 0x5a }); i >= 0 {
		t.Errorf("byte %d of a new allocation filled with 0x5a is %#x", i, got[i])
	}
}
