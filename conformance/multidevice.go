package conformance

import (
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/gour-dev/gour/ur"
)

// The cases of contexts over several devices and of sub-devices. Where
// the platform has one device, the device is split into two sub-devices
// (PoCL's CPU device splits equally), so that every multi-device path
// runs on a machine of one device too; a device that neither has a
// sibling nor splits skips with the reason.

// twoDevices returns two devices of f.Device's platform for a context of
// several devices: f.Device and another device of its platform where
// there is one, else two sub-devices of f.Device, released at cleanup.
func twoDevices(t *testing.T, f *Fixture) []*ur.Device {
	t.Helper()
	for _, d := range f.Device.Platform().Devices() {
		if d != f.Device {
			return []*ur.Device{f.Device, d}
		}
	}
	subs, why := splitInTwo(f.Device)
	if subs == nil {
		t.Skipf("one device on the platform, and it does not split into two sub-devices: %s", why)
	}
	for _, s := range subs {
		cleanup(t, s)
	}
	return subs[:2]
}

// splitInTwo splits d into at least two sub-devices, by the first kind it
// takes that makes two: equally, by counts, by affinity domain. It
// returns nil and the reason where d does not split.
func splitInTwo(d *ur.Device) ([]*ur.Device, string) {
	info := d.PartitionInfo()
	if info.MaxSubDevices < 2 || len(info.Kinds) == 0 {
		return nil, fmt.Sprintf("PartitionInfo = %+v", info)
	}
	units := d.Info().ComputeUnits
	var tries []ur.Partition
	for _, k := range info.Kinds {
		switch k {
		case ur.PartitionEqually:
			if units >= 2 {
				tries = append(tries, ur.Partition{Kind: k, Units: units / 2})
			}
		case ur.PartitionByCounts:
			if units >= 2 {
				tries = append(tries, ur.Partition{Kind: k, Counts: []uint32{units / 2, units - units/2}})
			}
		case ur.PartitionByAffinityDomain:
			tries = append(tries, ur.Partition{Kind: k, Domain: ur.AffinityNextPartitionable})
		}
	}
	why := fmt.Sprintf("%d compute units, PartitionInfo = %+v", units, info)
	for _, p := range tries {
		subs, err := d.Partition(p)
		if err != nil {
			why += fmt.Sprintf("; Partition(%v): %v", p, err)
			continue
		}
		if len(subs) >= 2 {
			return subs, ""
		}
		for _, s := range subs {
			s.Release()
		}
		why += fmt.Sprintf("; Partition(%v) made %d sub-device(s)", p, len(subs))
	}
	return nil, why
}

// partitionOrSkip partitions f.Device as p, skipping where the device
// does not take p's kind; the sub-devices are released at cleanup.
func partitionOrSkip(t *testing.T, f *Fixture, p ur.Partition) []*ur.Device {
	t.Helper()
	info := f.Device.PartitionInfo()
	if !slices.Contains(info.Kinds, p.Kind) {
		t.Skipf("device does not split %v (PartitionInfo = %+v)", p.Kind, info)
	}
	subs, err := f.Device.Partition(p)
	must(t, fmt.Sprintf("Partition(%v)", p), err)
	for _, s := range subs {
		cleanup(t, s)
	}
	if len(subs) == 0 {
		t.Fatalf("Partition(%v) made no sub-device", p)
	}
	return subs
}

// checkSubDevices checks what every sub-device of f.Device says about
// itself.
func checkSubDevices(t *testing.T, f *Fixture, subs []*ur.Device, kind ur.PartitionKind) {
	t.Helper()
	for i, s := range subs {
		if s.Parent() != f.Device {
			t.Errorf("sub-device %d: Parent() = %v, want %v", i, s.Parent(), f.Device)
		}
		if s.Root() != f.Device.Root() {
			t.Errorf("sub-device %d: Root() = %v, want %v", i, s.Root(), f.Device.Root())
		}
		if got := s.PartitionType().Kind; got != kind {
			t.Errorf("sub-device %d: PartitionType().Kind = %v, want %v", i, got, kind)
		}
		if s.Backend() != f.Backend || s.Platform() != f.Device.Platform() {
			t.Errorf("sub-device %d: backend %q platform %v, want those of its parent", i, s.Backend(), s.Platform())
		}
		if s.Info().Native == 0 || s.Info().Native == f.Device.Info().Native {
			t.Errorf("sub-device %d: Native = %#x, want a handle of its own (parent %#x)", i, s.Info().Native, f.Device.Info().Native)
		}
	}
	if f.Device.Parent() != nil || f.Device.PartitionType().Kind != ur.PartitionNone || f.Device.Root() != f.Device {
		t.Errorf("root device: Parent() = %v, PartitionType() = %v, Root() = %v; want nil, none, itself", f.Device.Parent(), f.Device.PartitionType(), f.Device.Root())
	}
}

func TestDevicePartitionEqually(t *testing.T) {
	forEachDevice(t, func(t *testing.T, f *Fixture) {
		info := f.Device.PartitionInfo()
		units := f.Device.Info().ComputeUnits
		per := max(units/max(info.MaxSubDevices, 1), 1)
		subs := partitionOrSkip(t, f, ur.Partition{Kind: ur.PartitionEqually, Units: per})
		checkSubDevices(t, f, subs, ur.PartitionEqually)
		if want := min(units/per, info.MaxSubDevices); uint32(len(subs)) != want {
			t.Errorf("Partition(equally(%d)) of %d compute units made %d sub-devices, want %d", per, units, len(subs), want)
		}
		for i, s := range subs {
			if got := s.Info().ComputeUnits; got != per {
				t.Errorf("sub-device %d has %d compute units, want %d", i, got, per)
			}
			if got := s.PartitionType().Units; got != per {
				t.Errorf("sub-device %d: PartitionType().Units = %d, want %d", i, got, per)
			}
		}
	})
}

func TestDevicePartitionByCounts(t *testing.T) {
	forEachDevice(t, func(t *testing.T, f *Fixture) {
		units := f.Device.Info().ComputeUnits
		counts := []uint32{units}
		if units >= 2 && f.Device.PartitionInfo().MaxSubDevices >= 2 {
			counts = []uint32{1, units - 1}
		}
		subs := partitionOrSkip(t, f, ur.Partition{Kind: ur.PartitionByCounts, Counts: counts})
		checkSubDevices(t, f, subs, ur.PartitionByCounts)
		if len(subs) != len(counts) {
			t.Fatalf("Partition(by-counts%v) made %d sub-devices, want %d", counts, len(subs), len(counts))
		}
		for i, s := range subs {
			if got := s.Info().ComputeUnits; got != counts[i] {
				t.Errorf("sub-device %d has %d compute units, want %d", i, got, counts[i])
			}
		}
	})
}

func TestDevicePartitionByAffinityDomain(t *testing.T) {
	forEachDevice(t, func(t *testing.T, f *Fixture) {
		subs := partitionOrSkip(t, f, ur.Partition{Kind: ur.PartitionByAffinityDomain, Domain: ur.AffinityNextPartitionable})
		checkSubDevices(t, f, subs, ur.PartitionByAffinityDomain)
	})
}

// A sub-device splits again where its driver lets it; its sub-devices
// have it as their parent and f.Device as their root.
func TestDevicePartitionNested(t *testing.T) {
	forEachDevice(t, func(t *testing.T, f *Fixture) {
		subs, why := splitInTwo(f.Device)
		if subs == nil {
			t.Skipf("device does not split into two: %s", why)
		}
		for _, s := range subs {
			cleanup(t, s)
		}
		s := subs[0]
		grand, why := splitInTwo(s)
		if grand == nil {
			t.Skipf("the sub-device does not split into two again: %s", why)
		}
		for _, g := range grand {
			cleanup(t, g)
			if g.Parent() != s || g.Root() != f.Device {
				t.Errorf("Parent() = %v, Root() = %v; want %v and %v", g.Parent(), g.Root(), s, f.Device)
			}
		}
	})
}

func TestDevicePartitionBadInput(t *testing.T) {
	forEachDevice(t, func(t *testing.T, f *Fixture) {
		info := f.Device.PartitionInfo()
		units := f.Device.Info().ComputeUnits
		if len(info.Kinds) == 0 {
			_, err := f.Device.Partition(ur.Partition{Kind: ur.PartitionEqually, Units: 1})
			if !errors.Is(err, ur.ErrDevicePartitionFailed) && !errors.Is(err, ur.ErrUnsupportedFeature) {
				t.Errorf("Partition of a device that does not split: %v, want ErrDevicePartitionFailed or ErrUnsupportedFeature", err)
			}
			return
		}
		for _, tt := range []struct {
			p    ur.Partition
			want ur.Result
		}{
			{ur.Partition{Kind: ur.PartitionEqually}, ur.ErrInvalidValue},
			{ur.Partition{Kind: ur.PartitionEqually, Units: units + 1}, ur.ErrInvalidDevicePartitionCount},
			{ur.Partition{Kind: ur.PartitionByCounts}, ur.ErrInvalidValue},
			{ur.Partition{Kind: ur.PartitionByCounts, Counts: []uint32{units, 1}}, ur.ErrInvalidDevicePartitionCount},
			{ur.Partition{Kind: ur.PartitionByCounts, Counts: []uint32{0}}, ur.ErrInvalidDevicePartitionCount},
			{ur.Partition{Kind: ur.PartitionByCounts, Counts: make([]uint32, info.MaxSubDevices+1)}, ur.ErrInvalidDevicePartitionCount},
		} {
			if !slices.Contains(info.Kinds, tt.p.Kind) {
				continue
			}
			subs, err := f.Device.Partition(tt.p)
			for _, s := range subs {
				s.Release()
			}
			wantErr(t, fmt.Sprintf("Partition(%v)", tt.p), err, tt.want)
		}
		for _, k := range []ur.PartitionKind{ur.PartitionEqually, ur.PartitionByCounts, ur.PartitionByAffinityDomain} {
			if slices.Contains(info.Kinds, k) {
				continue
			}
			_, err := f.Device.Partition(ur.Partition{Kind: k, Units: 1, Counts: []uint32{1}, Domain: ur.AffinityNUMA})
			wantErr(t, fmt.Sprintf("Partition(%v), a kind the device does not list", k), err, ur.ErrDevicePartitionFailed)
		}
		_, err := (*ur.Device)(nil).Partition(ur.Partition{Kind: ur.PartitionEqually, Units: 1})
		wantErr(t, "Partition on a nil device", err, ur.ErrInvalidNullHandle)
	})
}

// A released sub-device can no longer make contexts; its sibling can.
func TestDevicePartitionRelease(t *testing.T) {
	forEachDevice(t, func(t *testing.T, f *Fixture) {
		subs, why := splitInTwo(f.Device)
		if subs == nil {
			t.Skipf("device does not split into two: %s", why)
		}
		for _, s := range subs[1:] {
			cleanup(t, s)
		}
		must(t, "Release of a sub-device", subs[0].Release())
		wantErr(t, "second Release", subs[0].Release(), ur.ErrInvalidDevice)
		_, err := ur.NewContext(subs[0])
		wantErr(t, "NewContext(released sub-device)", err, ur.ErrInvalidDevice)
		ctx, err := ur.NewContext(subs[1])
		must(t, "NewContext(its sibling)", err)
		cleanup(t, ctx)
		q := cleanup(t, mustQueue(t, ctx, subs[1]))
		must(t, "Finish", q.Finish())
	})
}

func mustQueue(t *testing.T, ctx *ur.Context, d *ur.Device) *ur.Queue {
	t.Helper()
	q, err := ctx.NewQueue(d, ur.QueueProperties{})
	must(t, "NewQueue("+d.Name()+")", err)
	return q
}

// multiContext is a context over two devices, a queue on each and the
// suite's kernels built for both.
type multiContext struct {
	devs []*ur.Device
	ctx  *ur.Context
	qs   []*ur.Queue
}

func newMultiContext(t *testing.T, f *Fixture) *multiContext {
	t.Helper()
	devs := twoDevices(t, f)
	ctx, err := ur.NewContext(devs...)
	must(t, "NewContext(two devices)", err)
	cleanup(t, ctx)
	m := &multiContext{devs: devs, ctx: ctx}
	for _, d := range devs {
		m.qs = append(m.qs, cleanup(t, mustQueue(t, ctx, d)))
	}
	return m
}

// program builds the suite's kernels for both devices.
func (m *multiContext) program(t *testing.T, f *Fixture) *ur.Program {
	t.Helper()
	p, err := f.DeviceCode(t).createProgram(m.ctx, f.Device, "kernels")
	must(t, "creating the kernels", err)
	cleanup(t, p)
	must(t, "Build for both devices", p.Build(""))
	return p
}

// kernel is the suite's kernel of that name, built for both devices.
func (m *multiContext) kernel(t *testing.T, f *Fixture, name string) *ur.Kernel {
	t.Helper()
	k, err := m.program(t, f).NewKernel(name)
	must(t, "NewKernel("+name+")", err)
	return cleanup(t, k)
}

func TestMultiDeviceContext(t *testing.T) {
	forEachDevice(t, func(t *testing.T, f *Fixture) {
		m := newMultiContext(t, f)
		if got := m.ctx.Devices(); !slices.Equal(got, m.devs) {
			t.Errorf("Devices() = %v, want %v", got, m.devs)
		}
		for i, q := range m.qs {
			if q.Device() != m.devs[i] || q.Context() != m.ctx {
				t.Errorf("queue %d: Device() = %v, Context() = %v", i, q.Device(), q.Context())
			}
			must(t, "Finish", q.Finish())
		}
	})
}

// A program built in a context of two devices is built for both, has a
// binary and a log for each, and its kernel runs on each device's queue.
func TestMultiDeviceProgram(t *testing.T) {
	forEachDevice(t, func(t *testing.T, f *Fixture) {
		m := newMultiContext(t, f)
		p := m.program(t, f)
		devs, err := p.Devices()
		must(t, "Program.Devices", err)
		if !slices.Equal(devs, m.devs) {
			t.Errorf("Program.Devices() = %v, want %v", devs, m.devs)
		}
		for _, d := range m.devs {
			if _, err := p.BuildLog(d); err != nil {
				t.Errorf("BuildLog(%s): %v", d.Name(), err)
			}
		}
		bins, err := p.Binaries()
		must(t, "Binaries", err)
		if len(bins) != len(m.devs) {
			t.Fatalf("Binaries() gives %d binaries for %d devices", len(bins), len(m.devs))
		}
		// The binaries load back for both devices at once.
		pb, err := m.ctx.NewProgramFromBinaries(m.devs, bins)
		must(t, "NewProgramFromBinaries(both devices)", err)
		cleanup(t, pb)
		must(t, "Build of the binaries", pb.Build(""))
		k, err := pb.NewKernel("iota")
		must(t, "NewKernel(iota)", err)
		cleanup(t, k)
		const n = 1024
		for i, q := range m.qs {
			buf := f.BufferIn(t, m.ctx, ur.MemReadWrite, n*4)
			must(t, "SetArgMem", k.SetArgMem(0, buf))
			must(t, fmt.Sprintf("Launch on device %d", i), q.Launch(k, ur.Range1D(n)))
			checkUint32s(t, fmt.Sprintf("iota on device %d", i), readUint32s(t, q, buf, n), func(i int) uint32 { return uint32(i) })
		}
	})
}

// A buffer of the context is one buffer for both devices: written through
// one device's queue, changed by a kernel on the other, read back through
// the first; the order between the queues comes from events.
func TestMultiDeviceBufferAcrossQueues(t *testing.T) {
	forEachDevice(t, func(t *testing.T, f *Fixture) {
		m := newMultiContext(t, f)
		k := m.kernel(t, f, "add_one")
		const n = 4096
		in := make([]uint32, n)
		for i := range in {
			in[i] = uint32(i * 3)
		}
		buf := f.BufferIn(t, m.ctx, ur.MemReadWrite, n*4)
		write, err := m.qs[0].EnqueueWrite(buf, 0, ur.AsBytes(in))
		must(t, "EnqueueWrite on device 0", err)
		cleanup(t, write)
		must(t, "SetArgMem", k.SetArgMem(0, buf))
		launch, err := m.qs[1].EnqueueLaunch(k, ur.Range1D(n), ur.LaunchOptions{Wait: []*ur.Event{write}})
		must(t, "EnqueueLaunch on device 1 after device 0's write", err)
		cleanup(t, launch)
		out := make([]uint32, n)
		read, err := m.qs[0].EnqueueRead(buf, 0, ur.AsBytes(out), launch)
		must(t, "EnqueueRead on device 0 after device 1's kernel", err)
		cleanup(t, read)
		must(t, "Wait", read.Wait(t.Context()))
		checkUint32s(t, "after the kernel on the other device", out, func(i int) uint32 { return uint32(i*3) + 1 })
	})
}

// An event of one device's queue in the wait list of the other's: a chain
// of kernels alternating between the devices sees each step.
func TestMultiDeviceEventChain(t *testing.T) {
	forEachDevice(t, func(t *testing.T, f *Fixture) {
		m := newMultiContext(t, f)
		k := m.kernel(t, f, "add_one")
		const n, steps = 256, 8
		buf := f.BufferIn(t, m.ctx, ur.MemReadWrite, n*4)
		ev, err := m.qs[0].EnqueueFill(buf, ur.AsBytes([]uint32{100}), 0, n*4)
		must(t, "EnqueueFill", err)
		must(t, "SetArgMem", k.SetArgMem(0, buf))
		for i := range steps {
			next, err := m.qs[(i+1)%2].EnqueueLaunch(k, ur.Range1D(n), ur.LaunchOptions{Wait: []*ur.Event{ev}})
			must(t, fmt.Sprintf("step %d", i), err)
			ev.Release()
			ev = next
		}
		must(t, "Wait for the last step", ev.Wait(t.Context()))
		ev.Release()
		checkUint32s(t, "after the chain", readUint32s(t, m.qs[0], buf, n), func(int) uint32 { return 100 + steps })
	})
}

// A copy between two buffers of the context on one device's queue, of
// data the other device wrote.
func TestMultiDeviceCopy(t *testing.T) {
	forEachDevice(t, func(t *testing.T, f *Fixture) {
		m := newMultiContext(t, f)
		const n = 1 << 16
		data := pattern(n, 5)
		src := f.BufferIn(t, m.ctx, ur.MemReadWrite, n)
		dst := f.BufferIn(t, m.ctx, ur.MemReadWrite, n)
		must(t, "WriteBuffer on device 0", m.qs[0].WriteBuffer(src, 0, data))
		cp, err := m.qs[1].EnqueueCopy(src, dst, 0, 0, n)
		must(t, "EnqueueCopy on device 1", err)
		cleanup(t, cp)
		must(t, "Wait", cp.Wait(t.Context()))
		got := make([]byte, n)
		must(t, "ReadBuffer on device 0", m.qs[0].ReadBuffer(dst, 0, got))
		if !slices.Equal(got, data) {
			t.Errorf("the copy differs from the data")
		}
	})
}

// USM device memory of each device of the context: a kernel on each
// fills its own, and a copy on one device's queue moves the other's.
func TestMultiDeviceUSM(t *testing.T) {
	forEachDevice(t, func(t *testing.T, f *Fixture) {
		m := newMultiContext(t, f)
		for _, d := range m.devs {
			if !d.Info().USM.Device {
				t.Skipf("no USM device memory on %s: %s", d.Name(), d.Info().USM)
			}
		}
		k := m.kernel(t, f, "fill_u32")
		const n = 1024
		var allocs []*ur.USM
		for i, d := range m.devs {
			u, err := m.ctx.AllocDevice(d, n*4)
			must(t, "AllocDevice on "+d.Name(), err)
			t.Cleanup(func() { u.Free() })
			if u.Device() != d {
				t.Errorf("allocation on %s: Device() = %v", d.Name(), u.Device())
			}
			info, err := m.ctx.PointerInfo(u.Addr())
			must(t, "PointerInfo", err)
			if info.Kind != ur.USMDevice || info.Device != d {
				t.Errorf("PointerInfo of the allocation on %s = %+v", d.Name(), info)
			}
			must(t, "SetArgPtr", k.SetArgPtr(0, u.Ptr()))
			must(t, "SetArgUint32", k.SetArgUint32(1, uint32(1000+i)))
			step := fmt.Sprintf("on device %d of the context (%s), with its own memory", i, d.Name())
			must(t, "Launch "+step, m.qs[i].Launch(k, ur.Range1D(n)))
			must(t, "Finish "+step, m.qs[i].Finish())
			allocs = append(allocs, u)
		}
		// Device 0's queue copies device 1's memory into its own.
		ev, err := m.qs[0].EnqueueMemcpy(allocs[0].Ptr(), allocs[1].Ptr(), n*4)
		must(t, "EnqueueMemcpy from device 1's memory on device 0's queue", err)
		cleanup(t, ev)
		must(t, "Wait", ev.Wait(t.Context()))
		out := make([]uint32, n)
		must(t, "CopyFromPtr", m.qs[0].CopyFromPtr(ur.AsBytes(out), allocs[0].Ptr()))
		checkUint32s(t, "device 0's memory after the copy", out, func(int) uint32 { return 1001 })
	})
}
