package conformance

import (
	"errors"
	"slices"
	"testing"

	"github.com/gour-dev/gour/ur"
)

// The cases of access between devices: peer access queries, enabling it,
// kernels on one device using another's memory, and copies between the
// memory of two devices or two contexts, direct or staged.

func TestPeerAccessQuery(t *testing.T) {
	forEachDevice(t, func(t *testing.T, f *Fixture) {
		self, err := f.Device.PeerAccess(f.Device)
		must(t, "PeerAccess(itself)", err)
		if !self.Supported || self.Via != "same-device" {
			t.Errorf("PeerAccess(itself) = %+v, want supported, same-device", self)
		}
		must(t, "EnablePeerAccess(itself)", f.Device.EnablePeerAccess(f.Device))
		_, err = f.Device.PeerAccess(nil)
		wantErr(t, "PeerAccess(nil)", err, ur.ErrInvalidNullHandle)
		wantErr(t, "EnablePeerAccess(nil)", f.Device.EnablePeerAccess(nil), ur.ErrInvalidNullHandle)
		_, err = (*ur.Device)(nil).PeerAccess(f.Device)
		wantErr(t, "PeerAccess on a nil device", err, ur.ErrInvalidNullHandle)

		devs := twoDevices(t, f)
		a, b := devs[0], devs[1]
		pa, err := a.PeerAccess(b)
		must(t, "PeerAccess", err)
		t.Logf("%s → %s: %+v", a.Name(), b.Name(), pa)
		if pa.Via == "" {
			t.Errorf("PeerAccess = %+v: Via is empty", pa)
		}
		if a.Root() == b.Root() && !pa.Supported {
			t.Errorf("sub-devices of one device: PeerAccess = %+v, want supported", pa)
		}
		if !pa.Supported {
			if pa.Via != "host" {
				t.Errorf("PeerAccess = %+v: no direct path, want Via \"host\"", pa)
			}
			wantErr(t, "EnablePeerAccess without a direct path", a.EnablePeerAccess(b), ur.ErrUnsupportedFeature)
			return
		}
		must(t, "EnablePeerAccess", a.EnablePeerAccess(b))
		must(t, "EnablePeerAccess again", a.EnablePeerAccess(b))
		must(t, "DisablePeerAccess", a.DisablePeerAccess(b))
		must(t, "DisablePeerAccess again", a.DisablePeerAccess(b))
	})
}

// A kernel on one device of a context writes another device's USM
// memory, where the pair has a direct path (enabled first).
func TestPeerKernelUsesPeerMemory(t *testing.T) {
	forEachDevice(t, func(t *testing.T, f *Fixture) {
		m := newMultiContext(t, f)
		a, b := m.devs[0], m.devs[1]
		if !a.Info().USM.Device {
			t.Skipf("no USM device memory: %s", a.Info().USM)
		}
		pa, err := b.PeerAccess(a)
		must(t, "PeerAccess", err)
		if !pa.Supported {
			t.Skipf("%s cannot reach the memory of %s directly (%+v)", b.Name(), a.Name(), pa)
		}
		must(t, "EnablePeerAccess", b.EnablePeerAccess(a))
		t.Cleanup(func() { b.DisablePeerAccess(a) })
		const n = 1024
		u, err := m.ctx.AllocDevice(a, n*4)
		must(t, "AllocDevice", err)
		t.Cleanup(func() { u.Free() })
		in := make([]uint32, n)
		for i := range in {
			in[i] = uint32(i * 5)
		}
		must(t, "CopyToPtr on the owner's queue", m.qs[0].CopyToPtr(u.Ptr(), ur.AsBytes(in)))
		p := m.program(t, f)
		k, err := p.NewKernel("add_one")
		must(t, "NewKernel(add_one)", err)
		cleanup(t, k)
		must(t, "SetArgPtr", k.SetArgPtr(0, u.Ptr()))
		must(t, "Launch on the peer", m.qs[1].Launch(k, ur.Range1D(n)))
		must(t, "Finish", m.qs[1].Finish())
		out := make([]uint32, n)
		must(t, "CopyFromPtr", m.qs[0].CopyFromPtr(ur.AsBytes(out), u.Ptr()))
		checkUint32s(t, "the owner's memory after the peer's kernel", out, func(i int) uint32 { return uint32(i*5) + 1 })
	})
}

// peerContexts is two contexts for copies between contexts: of two
// devices where the platform has two (or the device splits), else of the
// one device twice, a queue in each.
func peerContexts(t *testing.T, f *Fixture, sameDevice bool) (devs []*ur.Device, ctxs []*ur.Context, qs []*ur.Queue) {
	t.Helper()
	devs = []*ur.Device{f.Device, f.Device}
	if !sameDevice {
		devs = twoDevices(t, f)
	}
	for _, d := range devs {
		ctx, err := ur.NewContext(d)
		must(t, "NewContext("+d.Name()+")", err)
		ctxs = append(ctxs, cleanup(t, ctx))
		qs = append(qs, cleanup(t, mustQueue(t, ctx, d)))
	}
	return devs, ctxs, qs
}

// wantPath checks the path the queue says a copy takes: one command
// between contexts where the adapter has it (CUDA), staged elsewhere.
func wantPath(t *testing.T, q *ur.Queue, dst, src ur.Ptr, sameDevice bool) ur.CopyPath {
	t.Helper()
	path, err := q.PeerCopyPath(dst, src)
	must(t, "PeerCopyPath", err)
	t.Logf("path: %v", path)
	switch {
	case path == ur.CopyStaged:
		if q.Device().Backend() == "cuda" {
			t.Errorf("CUDA copies between contexts in one command, not %v", path)
		}
	case sameDevice && path != ur.CopyDirect:
		t.Errorf("a copy within one device's memory: path %v, want direct", path)
	}
	return path
}

func testPeerCopyUSM(t *testing.T, f *Fixture, sameDevice bool) {
	devs, ctxs, qs := peerContexts(t, f, sameDevice)
	for _, d := range devs {
		if !d.Info().USM.Device {
			t.Skipf("no USM device memory on %s: %s", d.Name(), d.Info().USM)
		}
	}
	const n = 1 << 16
	src, err := ctxs[0].AllocDevice(devs[0], n)
	must(t, "AllocDevice (source)", err)
	t.Cleanup(func() { src.Free() })
	dst, err := ctxs[1].AllocDevice(devs[1], n)
	must(t, "AllocDevice (destination)", err)
	t.Cleanup(func() { dst.Free() })
	data := pattern(n, 11)
	must(t, "CopyToPtr", qs[0].CopyToPtr(src.Ptr(), data))
	must(t, "CopyToPtr (clear)", qs[1].CopyToPtr(dst.Ptr(), make([]byte, n)))
	// From the source's queue, then back the other way from the
	// destination's, half each.
	wantPath(t, qs[0], dst.Ptr(), src.Ptr(), sameDevice)
	ev, err := qs[0].EnqueuePeerCopy(dst.Ptr(), src.Ptr(), n/2)
	must(t, "EnqueuePeerCopy on the source's queue", err)
	cleanup(t, ev)
	must(t, "Wait", ev.Wait(t.Context()))
	ev2, err := qs[1].EnqueuePeerCopy(dst.Ptr().Add(n/2), src.Ptr().Add(n/2), n/2)
	must(t, "EnqueuePeerCopy on the destination's queue", err)
	cleanup(t, ev2)
	must(t, "Wait", ev2.Wait(t.Context()))
	got := make([]byte, n)
	must(t, "CopyFromPtr", qs[1].CopyFromPtr(got, dst.Ptr()))
	if !slices.Equal(got, data) {
		t.Errorf("the destination differs from the source after the peer copy")
	}
	// Checks: size 0, past the end, nil, a queue of neither context.
	_, err = qs[0].EnqueuePeerCopy(dst.Ptr(), src.Ptr(), 0)
	wantErr(t, "EnqueuePeerCopy of 0 bytes", err, ur.ErrInvalidSize)
	_, err = qs[0].EnqueuePeerCopy(dst.Ptr().Add(1), src.Ptr(), n)
	wantErr(t, "EnqueuePeerCopy past the end", err, ur.ErrInvalidSize)
	_, err = qs[0].EnqueuePeerCopy(ur.Ptr{}, src.Ptr(), 4)
	wantErr(t, "EnqueuePeerCopy to the nil Ptr", err, ur.ErrInvalidNullPointer)
	other, err := ur.NewContext(devs[0])
	must(t, "NewContext", err)
	cleanup(t, other)
	oq := cleanup(t, mustQueue(t, other, devs[0]))
	_, err = oq.EnqueuePeerCopy(dst.Ptr(), src.Ptr(), 4)
	wantErr(t, "EnqueuePeerCopy on a queue of a third context", err, ur.ErrInvalidContext)
}

// USM memory of one device in two contexts: one command on CUDA, staged
// through host memory where the adapter has no copy between contexts.
func TestPeerCopyUSMAcrossContexts(t *testing.T) {
	forEachDevice(t, func(t *testing.T, f *Fixture) { testPeerCopyUSM(t, f, true) })
}

// USM memory of two devices, each in a context of its own.
func TestPeerCopyUSMBetweenDevices(t *testing.T) {
	forEachDevice(t, func(t *testing.T, f *Fixture) { testPeerCopyUSM(t, f, false) })
}

// Buffers of two contexts, of one device and of two.
func TestPeerCopyBuffer(t *testing.T) {
	forEachDevice(t, func(t *testing.T, f *Fixture) {
		for _, same := range []bool{true, false} {
			name := "two-devices"
			if same {
				name = "one-device"
			}
			f.Run(t, name, func(t *testing.T) {
				_, ctxs, qs := peerContexts(t, f, same)
				const n = 1 << 15
				data := pattern(n, 3)
				src := f.BufferIn(t, ctxs[0], ur.MemReadWrite, n)
				dst := f.BufferIn(t, ctxs[1], ur.MemReadWrite, n)
				must(t, "WriteBuffer", qs[0].WriteBuffer(src, 0, data))
				ev, err := qs[1].EnqueuePeerCopyBuffer(dst, 64, src, 0, n-64)
				must(t, "EnqueuePeerCopyBuffer", err)
				cleanup(t, ev)
				must(t, "Wait", ev.Wait(t.Context()))
				got := make([]byte, n-64)
				must(t, "ReadBuffer", qs[1].ReadBuffer(dst, 64, got))
				if !slices.Equal(got, data[:n-64]) {
					t.Errorf("the destination differs from the source after the peer copy")
				}
				_, err = qs[1].EnqueuePeerCopyBuffer(dst, 65, src, 0, n-64)
				wantErr(t, "EnqueuePeerCopyBuffer past the end", err, ur.ErrInvalidSize)
			})
		}
	})
}

// Within one context of two devices, a peer copy is the context's USM
// copy, and its path is direct or the driver's.
func TestPeerCopyInOneContext(t *testing.T) {
	forEachDevice(t, func(t *testing.T, f *Fixture) {
		m := newMultiContext(t, f)
		for _, d := range m.devs {
			if !d.Info().USM.Device {
				t.Skipf("no USM device memory on %s: %s", d.Name(), d.Info().USM)
			}
		}
		const n = 4096
		a, err := m.ctx.AllocDevice(m.devs[0], n)
		must(t, "AllocDevice", err)
		t.Cleanup(func() { a.Free() })
		b, err := m.ctx.AllocDevice(m.devs[1], n)
		must(t, "AllocDevice", err)
		t.Cleanup(func() { b.Free() })
		path, err := m.qs[0].PeerCopyPath(b.Ptr(), a.Ptr())
		must(t, "PeerCopyPath", err)
		if path == ur.CopyStaged {
			t.Errorf("a copy within one context: path %v, want direct or driver", path)
		}
		data := pattern(n, 7)
		must(t, "CopyToPtr", m.qs[0].CopyToPtr(a.Ptr(), data))
		ev, err := m.qs[1].EnqueuePeerCopy(b.Ptr(), a.Ptr(), n)
		must(t, "EnqueuePeerCopy", err)
		cleanup(t, ev)
		must(t, "Wait", ev.Wait(t.Context()))
		got := make([]byte, n)
		must(t, "CopyFromPtr", m.qs[1].CopyFromPtr(got, b.Ptr()))
		if !slices.Equal(got, data) {
			t.Errorf("the copy differs from the data")
		}
		_, err = m.qs[0].PeerCopyPath(ur.Ptr{}, a.Ptr())
		if !errors.Is(err, ur.ErrInvalidNullPointer) {
			t.Errorf("PeerCopyPath(nil Ptr) = %v, want ErrInvalidNullPointer", err)
		}
	})
}
