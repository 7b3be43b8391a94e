package conformance

import (
	"encoding/binary"
	"errors"
	"fmt"
	"testing"
	"unsafe"

	"github.com/gour-dev/gour/ur"
)

// uintptrOf is the address of Go memory, for pointer queries.
func uintptrOf(p *byte) uintptr { return uintptr(unsafe.Pointer(p)) }

// usmKinds are the kinds of USM allocation, with whether the device has
// each.
func usmKinds(d *ur.Device) []struct {
	kind ur.USMKind
	has  bool
} {
	u := d.Info().USM
	return []struct {
		kind ur.USMKind
		has  bool
	}{{ur.USMDevice, u.Device}, {ur.USMHost, u.Host}, {ur.USMShared, u.Shared}}
}

// allocUSM allocates size bytes of kind in ctx, freed at cleanup.
func allocUSM(t testing.TB, f *Fixture, ctx *ur.Context, kind ur.USMKind, size uint64) *ur.USM {
	t.Helper()
	dev := f.Device
	if kind == ur.USMHost {
		dev = nil
	}
	u, err := ctx.Alloc(kind, dev, size, 0)
	if err != nil {
		t.Fatalf("Alloc(%s, %d bytes): %v", kind, size, err)
	}
	t.Cleanup(func() {
		if err := u.Free(); err != nil && !errors.Is(err, ur.ErrInvalidMemObject) {
			t.Errorf("Free at cleanup: %v", err)
		}
	})
	return u
}

// needUSM skips a case on a device without the kind, after checking that
// asking for it gives ErrUnsupportedFeature naming what is missing.
func needUSM(t *testing.T, f *Fixture, kind ur.USMKind) {
	t.Helper()
	for _, k := range usmKinds(f.Device) {
		if k.kind != kind || k.has {
			continue
		}
		dev := f.Device
		if kind == ur.USMHost {
			dev = nil
		}
		u, err := f.Context(t).Alloc(kind, dev, 4096, 0)
		if err == nil {
			u.Free()
			t.Fatalf("Alloc(%s) succeeded on a device whose DeviceInfo.USM says it has no %s USM", kind, kind)
		}
		wantErr(t, fmt.Sprintf("Alloc(%s)", kind), err, ur.ErrUnsupportedFeature)
		t.Skipf("%s has no %s USM (%s); Alloc says so with ErrUnsupportedFeature", f.Device.Name(), kind, f.Device.Info().USM.Missing)
	}
}

func u32s(b []byte) []uint32 {
	out := make([]uint32, len(b)/4)
	for i := range out {
		out[i] = binary.LittleEndian.Uint32(b[4*i:])
	}
	return out
}

func TestUSMAllocKinds(t *testing.T) {
	forEachDevice(t, func(t *testing.T, f *Fixture) {
		for _, k := range usmKinds(f.Device) {
			f.Run(t, k.kind.String(), func(t *testing.T) {
				needUSM(t, f, k.kind)
				ctx := f.Context(t)
				u := allocUSM(t, f, ctx, k.kind, 8192)
				if u.Size() != 8192 || u.Kind() != k.kind || u.Addr() == 0 || u.Context() != ctx {
					t.Errorf("allocation: size %d kind %s addr %#x: want 8192 bytes of %s memory at a non-zero address in the context",
						u.Size(), u.Kind(), u.Addr(), k.kind)
				}
				for _, off := range []uint64{0, 4096} {
					info, err := ctx.PointerInfo(u.Addr() + uintptr(off))
					must(t, "PointerInfo", err)
					if info.Kind != k.kind || info.Base != u.Addr() || info.Size < 8192 {
						t.Errorf("PointerInfo(base+%d) = %+v: want kind %s, base %#x, size at least 8192", off, info, k.kind, u.Addr())
					}
					if k.kind != ur.USMHost && info.Device != f.Device {
						t.Errorf("PointerInfo(base+%d).Device = %v, want %v", off, info.Device, f.Device)
					}
				}
				must(t, "Free", u.Free())
				wantErr(t, "second Free", u.Free(), ur.ErrInvalidMemObject)
			})
		}
		f.Run(t, "UnknownPointer", func(t *testing.T) {
			if !f.Device.Info().USM.Device && !f.Device.Info().USM.Host {
				t.Skip("no USM on this device")
			}
			var local [64]byte
			info, err := f.Context(t).PointerInfo(uintptrOf(&local[0]))
			must(t, "PointerInfo(Go memory)", err)
			if info.Kind != ur.USMUnknown {
				t.Errorf("PointerInfo of Go memory: kind %s, want unknown", info.Kind)
			}
		})
	})
}

func TestUSMAlignment(t *testing.T) {
	forEachDevice(t, func(t *testing.T, f *Fixture) {
		needUSM(t, f, ur.USMDevice)
		ctx := f.Context(t)
		for _, align := range []uint64{64, 4096} {
			u, err := ctx.Alloc(ur.USMDevice, f.Device, 1000, align)
			if errors.Is(err, ur.ErrUnsupportedAlignment) {
				t.Logf("alignment %d: %v", align, err)
				continue
			}
			must(t, fmt.Sprintf("Alloc aligned to %d", align), err)
			if u.Addr()%uintptr(align) != 0 {
				t.Errorf("Alloc aligned to %d gave %#x", align, u.Addr())
			}
			must(t, "Free", u.Free())
		}
		_, err := ctx.Alloc(ur.USMDevice, f.Device, 1000, 3)
		wantErr(t, "alignment 3", err, ur.ErrUnsupportedAlignment)
	})
}

func TestUSMBadSizes(t *testing.T) {
	forEachDevice(t, func(t *testing.T, f *Fixture) {
		needUSM(t, f, ur.USMDevice)
		ctx := f.Context(t)
		_, err := ctx.AllocDevice(f.Device, 0)
		wantErr(t, "AllocDevice(0)", err, ur.ErrInvalidUSMSize)
		if max := f.Device.Info().MaxMemAllocSize; max != 0 {
			_, err = ctx.AllocDevice(f.Device, max+1)
			wantErr(t, "AllocDevice(MaxMemAllocSize+1)", err, ur.ErrInvalidUSMSize)
		}
		_, err = ctx.AllocDevice(f.Device, 1<<62)
		wantErr(t, "AllocDevice(4 EiB)", err, ur.ErrInvalidUSMSize)
		_, err = ctx.Alloc(ur.USMHost, f.Device, 64, 0)
		wantErr(t, "host allocation with a device", err, ur.ErrInvalidValue)
		_, err = ctx.AllocDevice(nil, 64)
		wantErr(t, "device allocation without a device", err, ur.ErrInvalidNullHandle)
	})
}

func TestUSMCopyAndFill(t *testing.T) {
	forEachDevice(t, func(t *testing.T, f *Fixture) {
		for _, k := range usmKinds(f.Device) {
			f.Run(t, k.kind.String(), func(t *testing.T) {
				needUSM(t, f, k.kind)
				const size = 1 << 16
				ctx, q := f.Context(t), f.Queue(t)
				a := allocUSM(t, f, ctx, k.kind, size)
				b := allocUSM(t, f, ctx, k.kind, size)
				want := pattern(size, 3)
				must(t, "CopyToPtr", q.CopyToPtr(a.Ptr(), want))
				// b = a, then bytes [1024, 3072) of b = 0xabcd0123 repeated.
				ev, err := q.EnqueueMemcpy(b.Ptr(), a.Ptr(), size)
				must(t, "EnqueueMemcpy", err)
				ev2, err := q.EnqueueMemFill(b.Ptr().Add(1024), []byte{0x23, 0x01, 0xcd, 0xab}, 2048, ev)
				must(t, "EnqueueMemFill", err)
				must(t, "Wait", ev2.Wait(t.Context()))
				ev.Release()
				ev2.Release()
				for i := 1024; i < 3072; i += 4 {
					binary.LittleEndian.PutUint32(want[i:], 0xabcd0123)
				}
				got := make([]byte, size)
				ev3, err := q.EnqueueCopyFromPtr(got, b.Ptr())
				must(t, "EnqueueCopyFromPtr", err)
				must(t, "Wait", ev3.Wait(t.Context()))
				ev3.Release()
				if i := firstDiff(got, want); i >= 0 {
					t.Errorf("after copy and fill, byte %d = %#x, want %#x", i, got[i], want[i])
				}
			})
		}
	})
}

func TestUSMKernelPointerWithOffset(t *testing.T) {
	forEachDevice(t, func(t *testing.T, f *Fixture) {
		for _, k := range usmKinds(f.Device) {
			f.Run(t, k.kind.String(), func(t *testing.T) {
				needUSM(t, f, k.kind)
				const n, skip = 256, 16
				ctx, q := f.Context(t), f.Queue(t)
				u := allocUSM(t, f, ctx, k.kind, 4*(n+skip))
				ev, err := q.EnqueueMemFill(u.Ptr(), []byte{0xff, 0xff, 0xff, 0xff}, u.Size())
				must(t, "EnqueueMemFill", err)
				ev.Release()
				kern := f.Kernel(t, "iota")
				must(t, "SetArgPtr", kern.SetArgPtr(0, u.Ptr().Add(4*skip)))
				must(t, "Launch", q.Launch(kern, ur.Range1D(n)))
				got := make([]byte, u.Size())
				must(t, "CopyFromPtr", q.CopyFromPtr(got, u.Ptr()))
				for i, v := range u32s(got) {
					want := uint32(0xffffffff)
					if i >= skip {
						want = uint32(i - skip)
					}
					if v != want {
						t.Fatalf("word %d = %#x, want %#x (the kernel's pointer starts at word %d)", i, v, want, skip)
					}
				}
				if k.kind == ur.USMDevice {
					_, err := ur.HostSlice[uint32](u)
					wantErr(t, "HostSlice of device memory", err, ur.ErrInvalidMemObject)
					return
				}
				// Host-accessible memory: read and write it in Go.
				s, err := ur.HostSlice[uint32](u)
				must(t, "HostSlice", err)
				if len(s) != n+skip || s[skip+7] != 7 {
					t.Fatalf("HostSlice: %d elements, [%d] = %d: want %d elements, 7", len(s), skip+7, s[skip+7], n+skip)
				}
				for i := range s {
					s[i] = 1000
				}
				add := f.Kernel(t, "add_one")
				must(t, "SetArgPtr", add.SetArgPtr(0, u.Ptr()))
				must(t, "Launch", q.Launch(add, ur.Range1D(n+skip)))
				must(t, "Finish", q.Finish())
				if s[0] != 1001 || s[n+skip-1] != 1001 {
					t.Errorf("after add_one on host-written memory: %d, %d, want 1001", s[0], s[n+skip-1])
				}
			})
		}
	})
}

func TestUSMBadPointers(t *testing.T) {
	forEachDevice(t, func(t *testing.T, f *Fixture) {
		needUSM(t, f, ur.USMDevice)
		ctx, q := f.Context(t), f.Queue(t)
		u := allocUSM(t, f, ctx, ur.USMDevice, 4096)
		buf := make([]byte, 4096)
		f.Run(t, "PastTheEnd", func(t *testing.T) {
			wantErr(t, "copy past the end", q.CopyToPtr(u.Ptr().Add(8), buf), ur.ErrInvalidSize)
			_, err := q.EnqueueMemFill(u.Ptr().Add(4096), []byte{0}, 1)
			wantErr(t, "fill at the end", err, ur.ErrInvalidSize)
			_, err = q.EnqueueMemcpy(u.Ptr(), u.Ptr().Add(1024), 2048)
			wantErr(t, "overlapping copy", err, ur.ErrOverlappingRegions)
			_, err = q.EnqueueMemFill(u.Ptr(), []byte{1, 2, 3}, 6)
			wantErr(t, "3-byte pattern", err, ur.ErrInvalidValue)
		})
		f.Run(t, "NilPointer", func(t *testing.T) {
			wantErr(t, "copy to the nil Ptr", q.CopyToPtr(ur.Ptr{}, buf), ur.ErrInvalidNullPointer)
			kern := f.Kernel(t, "iota")
			wantErr(t, "SetArgPtr(nil Ptr)", kern.SetArgPtr(0, ur.Ptr{}), ur.ErrInvalidNullPointer)
		})
		f.Run(t, "Freed", func(t *testing.T) {
			v := allocUSM(t, f, ctx, ur.USMDevice, 4096)
			kern := f.Kernel(t, "iota")
			must(t, "SetArgPtr", kern.SetArgPtr(0, v.Ptr()))
			must(t, "Free", v.Free())
			wantErrSaying(t, "launch on freed memory", q.Launch(kern, ur.Range1D(16)), ur.ErrInvalidMemObject, "argument 0", "freed")
			wantErr(t, "copy to freed memory", q.CopyToPtr(v.Ptr(), buf[:16]), ur.ErrInvalidMemObject)
			wantErr(t, "SetArgPtr(freed)", kern.SetArgPtr(0, v.Ptr()), ur.ErrInvalidMemObject)
			// Replacing the argument makes the kernel launchable again.
			must(t, "SetArgPtr", kern.SetArgPtr(0, u.Ptr()))
			must(t, "Launch", q.Launch(kern, ur.Range1D(16)))
			must(t, "Finish", q.Finish())
		})
		f.Run(t, "FreePointer", func(t *testing.T) {
			v := allocUSM(t, f, ctx, ur.USMDevice, 4096)
			wantErr(t, "FreePointer(middle)", ctx.FreePointer(v.Addr()+16), ur.ErrInvalidMemObject)
			var local [8]byte
			wantErr(t, "FreePointer(Go memory)", ctx.FreePointer(uintptrOf(&local[0])), ur.ErrInvalidMemObject)
			other := f.NewContext(t)
			wantErr(t, "FreePointer in another context", other.FreePointer(v.Addr()), ur.ErrInvalidContext)
			must(t, "FreePointer", ctx.FreePointer(v.Addr()))
			wantErr(t, "FreePointer twice", ctx.FreePointer(v.Addr()), ur.ErrInvalidMemObject)
			wantErr(t, "Free after FreePointer", v.Free(), ur.ErrInvalidMemObject)
		})
		f.Run(t, "OtherContext", func(t *testing.T) {
			other := f.NewContext(t)
			oq := f.QueueIn(t, other, ur.QueueProperties{})
			wantErr(t, "copy on another context's queue", oq.CopyToPtr(u.Ptr(), buf[:16]), ur.ErrInvalidContext)
		})
		// Ptr.Check answers as the commands do, for layers that hand raw
		// addresses to a vendor library.
		f.Run(t, "Check", func(t *testing.T) {
			must(t, "Check", u.Ptr().Check(ctx, 4096))
			must(t, "Check(size 0)", u.Ptr().Add(4095).Check(ctx, 0))
			wantErr(t, "Check past the end", u.Ptr().Add(8).Check(ctx, 4096), ur.ErrInvalidSize)
			wantErr(t, "Check of the nil Ptr", ur.Ptr{}.Check(ctx, 1), ur.ErrInvalidNullPointer)
			wantErr(t, "Check with a nil context", u.Ptr().Check(nil, 1), ur.ErrInvalidNullHandle)
			wantErr(t, "Check in another context", u.Ptr().Check(f.NewContext(t), 1), ur.ErrInvalidContext)
			v := allocUSM(t, f, ctx, ur.USMDevice, 64)
			must(t, "Free", v.Free())
			wantErr(t, "Check of freed memory", v.Ptr().Check(ctx, 1), ur.ErrInvalidMemObject)
		})
	})
}

func TestUSMPrefetchAndAdvise(t *testing.T) {
	forEachDevice(t, func(t *testing.T, f *Fixture) {
		needUSM(t, f, ur.USMShared)
		ctx, q := f.Context(t), f.Queue(t)
		u := allocUSM(t, f, ctx, ur.USMShared, 1<<20)
		for _, a := range []ur.USMAdvice{ur.AdviseReadMostly, ur.AdviseClearReadMostly, ur.AdvisePreferDevice, ur.AdviseAccessedByDevice} {
			ev, err := q.EnqueueAdvise(u.Ptr(), u.Size(), a)
			must(t, fmt.Sprintf("EnqueueAdvise(%d)", a), err)
			must(t, "Wait", ev.Wait(t.Context()))
			ev.Release()
		}
		_, err := q.EnqueueAdvise(u.Ptr(), u.Size(), 99)
		wantErr(t, "advice 99", err, ur.ErrInvalidEnumeration)
		s, err := ur.HostSlice[uint32](u)
		must(t, "HostSlice", err)
		clear(s) // new memory may hold anything
		s[12345] = 42
		ev, err := q.EnqueuePrefetch(u.Ptr(), u.Size(), false)
		must(t, "EnqueuePrefetch", err)
		kern := f.Kernel(t, "add_one")
		must(t, "SetArgPtr", kern.SetArgPtr(0, u.Ptr()))
		ev2, err := q.EnqueueLaunch(kern, ur.Range1D(uint64(len(s))), ur.LaunchOptions{Wait: []*ur.Event{ev}})
		must(t, "EnqueueLaunch", err)
		ev3, err := q.EnqueuePrefetch(u.Ptr(), u.Size(), true, ev2)
		must(t, "EnqueuePrefetch to host", err)
		must(t, "Wait", ev3.Wait(t.Context()))
		for _, e := range []*ur.Event{ev, ev2, ev3} {
			e.Release()
		}
		if s[12345] != 43 || s[0] != 1 {
			t.Errorf("after prefetch, add_one, prefetch back: s[12345] = %d, s[0] = %d, want 43, 1", s[12345], s[0])
		}
	})
}

func TestUSMPool(t *testing.T) {
	forEachDevice(t, func(t *testing.T, f *Fixture) {
		needUSM(t, f, ur.USMDevice)
		ctx, q := f.Context(t), f.Queue(t)
		pool, err := ctx.NewPool(f.Device, ur.PoolOptions{ReleaseThreshold: 8 << 20})
		must(t, "NewPool", err)
		defer pool.Release()
		const n = 1 << 18 // 1 MiB of uint32
		for round := range 3 {
			u, err := q.AllocAsync(pool, 4*n)
			must(t, "AllocAsync", err)
			kern := f.Kernel(t, "iota")
			must(t, "SetArgPtr", kern.SetArgPtr(0, u.Ptr()))
			must(t, "Launch", q.Launch(kern, ur.Range1D(n)))
			got := make([]byte, 4*n)
			must(t, "CopyFromPtr", q.CopyFromPtr(got, u.Ptr()))
			if w := u32s(got); w[n-1] != n-1 || w[5] != 5 {
				t.Fatalf("round %d: iota on pool memory gave [5] = %d, [%d] = %d", round, w[5], n-1, w[n-1])
			}
			reserved, used, err := pool.Usage()
			must(t, "Usage", err)
			if used < 4*n || reserved < used {
				t.Errorf("round %d: Usage = %d reserved, %d used; want at least %d used, reserved ≥ used", round, reserved, used, 4*n)
			}
			must(t, "FreeAsync", q.FreeAsync(u))
			wantErr(t, "FreeAsync twice", q.FreeAsync(u), ur.ErrInvalidMemObject)
		}
		must(t, "Finish", q.Finish())
		must(t, "Trim", pool.Trim(0))
		reserved, used, err := pool.Usage()
		must(t, "Usage", err)
		if used != 0 || reserved != 0 {
			t.Errorf("after every free, Finish and Trim(0): %d reserved, %d used, want 0 and 0", reserved, used)
		}
		f.Run(t, "BadUse", func(t *testing.T) {
			plain := allocUSM(t, f, ctx, ur.USMDevice, 64)
			wantErr(t, "FreeAsync of a plain allocation", q.FreeAsync(plain), ur.ErrInvalidValue)
			_, err := q.AllocAsync(pool, 0)
			wantErr(t, "AllocAsync(0)", err, ur.ErrInvalidUSMSize)
			other := f.NewContext(t)
			oq := f.QueueIn(t, other, ur.QueueProperties{})
			_, err = oq.AllocAsync(pool, 64)
			wantErr(t, "AllocAsync on another context's queue", err, ur.ErrInvalidValue)
		})
		f.Run(t, "FreeOnAnotherQueue", func(t *testing.T) {
			q2 := f.Queue(t)
			u, err := q.AllocAsync(pool, 4096)
			must(t, "AllocAsync", err)
			must(t, "CopyToPtr", q.CopyToPtr(u.Ptr(), make([]byte, 4096)))
			must(t, "FreeAsync on the second queue", q2.FreeAsync(u))
			must(t, "Finish", q2.Finish())
		})
	})
}

func TestUSMSharedAcrossQueuesAfterMarker(t *testing.T) {
	forEachDevice(t, func(t *testing.T, f *Fixture) {
		needUSM(t, f, ur.USMDevice)
		ctx := f.Context(t)
		q1, q2 := f.Queue(t), f.Queue(t)
		u := allocUSM(t, f, ctx, ur.USMDevice, 4096)
		kern := f.Kernel(t, "fill_u32")
		must(t, "SetArgPtr", kern.SetArgPtr(0, u.Ptr()))
		must(t, "SetArgUint32", kern.SetArgUint32(1, 77))
		must(t, "Launch", q1.Launch(kern, ur.Range1D(1024)))
		mark, err := q1.EnqueueMarker()
		if errors.Is(err, ur.ErrUnsupportedFeature) {
			t.Skipf("no markers: %v", err)
		}
		must(t, "EnqueueMarker", err)
		defer mark.Release()
		got := make([]byte, 4096)
		ev, err := q2.EnqueueCopyFromPtr(got, u.Ptr(), mark)
		must(t, "EnqueueCopyFromPtr after the marker", err)
		must(t, "Wait", ev.Wait(t.Context()))
		ev.Release()
		if w := u32s(got); w[0] != 77 || w[1023] != 77 {
			t.Errorf("the second queue read %d, %d before the first queue's fill: want 77", w[0], w[1023])
		}
		bar, err := q1.EnqueueBarrier()
		must(t, "EnqueueBarrier", err)
		must(t, "Wait", bar.Wait(t.Context()))
		bar.Release()
	})
}
