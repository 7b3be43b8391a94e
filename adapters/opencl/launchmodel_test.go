package opencl_test

import (
	"encoding/binary"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/gour-dev/gour/adapters/opencl"
	"github.com/gour-dev/gour/ur"
)

const launchModelSource = `
__kernel void fill_u32(__global uint* out, uint v) { out[get_global_id(0)] = v; }
__kernel void add_one(__global uint* a) { a[get_global_id(0)] += 1; }
__kernel void sum_local(__global const uint* in, __global uint* out, __local uint* tmp) {
	size_t l = get_local_id(0), n = get_local_size(0);
	tmp[l] = in[get_global_id(0)];
	barrier(CLK_LOCAL_MEM_FENCE);
	if (l == 0) { uint s = 0; for (size_t i = 0; i < n; i++) s += tmp[i]; out[get_group_id(0)] = s; }
}
typedef struct { uint a, b, c; } triple;
__kernel void fill_triple(__global uint* out, triple t) { out[get_global_id(0)] = t.a + t.b + t.c; }
`

type modelFixture struct {
	dev  *ur.Device
	ctx  *ur.Context
	q    *ur.Queue
	prog *ur.Program
}

func newModelFixture(tb testing.TB) *modelFixture {
	tb.Helper()
	f := &modelFixture{dev: firstOpenCLDevice(tb)}
	var err error
	if f.ctx, err = ur.NewContext(f.dev); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { f.ctx.Release() })
	if f.q, err = f.ctx.NewQueue(f.dev, ur.QueueProperties{}); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { f.q.Release() })
	if f.prog, err = f.ctx.NewProgramFromSource(launchModelSource); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { f.prog.Release() })
	if err := f.prog.Build(""); err != nil {
		tb.Fatal(err)
	}
	return f
}

func (f *modelFixture) kernel(tb testing.TB, name string) *ur.Kernel {
	tb.Helper()
	k, err := f.prog.NewKernel(name)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { k.Release() })
	return k
}

func (f *modelFixture) buffer(tb testing.TB, n int) *ur.Mem {
	tb.Helper()
	m, err := f.ctx.NewBufferFrom(ur.MemReadWrite, make([]byte, 4*n))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { m.Release() })
	return m
}

func (f *modelFixture) read(tb testing.TB, m *ur.Mem, n int) []uint32 {
	tb.Helper()
	b := make([]byte, 4*n)
	if err := f.q.ReadBuffer(m, 0, b); err != nil {
		tb.Fatal(err)
	}
	out := make([]uint32, n)
	for i := range out {
		out[i] = binary.LittleEndian.Uint32(b[4*i:])
	}
	return out
}

func wantAll(t *testing.T, what string, got []uint32, want uint32) {
	t.Helper()
	for i, v := range got {
		if v != want {
			t.Errorf("%s[%d] = %d, want %d", what, i, v, want)
			return
		}
	}
}

// Every kind of argument given with the launch; the kernel's own
// arguments are left unset.
func TestLaunchArgsKinds(t *testing.T) {
	f := newModelFixture(t)
	out := f.buffer(t, 64)
	if err := f.q.Launch(f.kernel(t, "fill_u32"), ur.Range1D(64), ur.ArgBuffer(out), ur.ArgOf(uint32(7))); err != nil {
		t.Fatal(err)
	}
	wantAll(t, "fill_u32", f.read(t, out, 64), 7)

	tb := make([]byte, 12)
	for i, v := range []uint32{1, 20, 300} {
		binary.LittleEndian.PutUint32(tb[4*i:], v)
	}
	if err := f.q.Launch(f.kernel(t, "fill_triple"), ur.Range1D(64), ur.ArgBuffer(out), ur.ArgBytes(tb)); err != nil {
		t.Fatal(err)
	}
	wantAll(t, "fill_triple", f.read(t, out, 64), 321)

	in := f.buffer(t, 64)
	if err := f.q.Launch(f.kernel(t, "fill_u32"), ur.Range1D(64), ur.ArgBuffer(in), ur.ArgOf(uint32(2))); err != nil {
		t.Fatal(err)
	}
	if err := f.q.Launch(f.kernel(t, "sum_local"), ur.Range1D(64).WithLocal(16), ur.ArgBuffer(in), ur.ArgBuffer(out), ur.ArgLocalMem(4*16)); err != nil {
		t.Fatal(err)
	}
	wantAll(t, "sum_local", f.read(t, out, 4), 32)

	u, err := f.ctx.AllocDevice(f.dev, 4*128)
	if errors.Is(err, ur.ErrUnsupportedFeature) {
		t.Logf("no USM: %v", err)
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	defer u.Free()
	if err := f.q.Launch(f.kernel(t, "fill_u32"), ur.Range1D(64), ur.ArgPtr(u.Ptr().Add(4*64)), ur.ArgOf(uint32(5))); err != nil {
		t.Fatal(err)
	}
	b := make([]byte, 4*128)
	if err := f.q.CopyFromPtr(b, u.Ptr()); err != nil {
		t.Fatal(err)
	}
	if v, w := binary.LittleEndian.Uint32(b[4*64:]), binary.LittleEndian.Uint32(b[4*127:]); v != 5 || w != 5 {
		t.Errorf("fill_u32 through a pointer with an offset: %d, %d, want 5", v, w)
	}
}

// Launch properties OpenCL has no mapping for are refused, typed.
func TestLaunchArgsProperties(t *testing.T) {
	f := newModelFixture(t)
	k, out := f.kernel(t, "fill_u32"), f.buffer(t, 16)
	args := []ur.Arg{ur.ArgBuffer(out), ur.ArgOf(uint32(1))}
	for _, p := range []ur.LaunchProperties{{Cooperative: true}, {ClusterDims: [3]uint32{2, 1, 1}}, {DynamicLocalMem: 1024}} {
		_, err := f.q.EnqueueLaunch(k, ur.Range1D(16), ur.LaunchOptions{Properties: p}, args...)
		if !errors.Is(err, ur.ErrUnsupportedFeature) {
			t.Errorf("EnqueueLaunch with %+v: %v, want ErrUnsupportedFeature", p, err)
		}
	}
}

// 64 goroutines launch one kernel with arguments of their own, in both
// modes; every result is right.
func TestLaunchArgsConcurrentModes(t *testing.T) {
	for _, locked := range []bool{false, true} {
		t.Run(fmt.Sprintf("locked=%v", locked), func(t *testing.T) {
			defer opencl.SetArgLaunchLocked(locked)()
			f := newModelFixture(t)
			const goroutines, launches, n = 64, 20, 256
			k := f.kernel(t, "fill_u32")
			outs := make([]*ur.Mem, goroutines)
			for g := range outs {
				outs[g] = f.buffer(t, n)
			}
			var wg sync.WaitGroup
			for g := range goroutines {
				wg.Go(func() {
					for i := range launches {
						if err := f.q.Launch(k, ur.Range1D(n), ur.ArgBuffer(outs[g]), ur.ArgOf(uint32(g*1000+i))); err != nil {
							t.Errorf("goroutine %d: %v", g, err)
							return
						}
					}
				})
			}
			wg.Wait()
			for g := range goroutines {
				wantAll(t, fmt.Sprintf("goroutine %d", g), f.read(t, outs[g], n), uint32(g*1000+launches-1))
			}
		})
	}
}

func TestLaunchArgsAllocatesNothing(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	for _, locked := range []bool{false, true} {
		defer opencl.SetArgLaunchLocked(locked)()
		f := newModelFixture(t)
		k, out := f.kernel(t, "fill_u32"), f.buffer(t, 64)
		v := uint32(0)
		var err error
		allocs := testing.AllocsPerRun(200, func() {
			v++
			if e := f.q.Launch(k, ur.Range1D(64), ur.ArgBuffer(out), ur.ArgOf(v)); e != nil {
				err = e
			}
		})
		if err != nil {
			t.Fatal(err)
		}
		if allocs != 0 {
			t.Errorf("locked=%v: Launch with arguments makes %v allocations, want 0", locked, allocs)
		}
		f.q.Finish()
	}
}

func benchmarkLaunchArgs(b *testing.B, locked, parallel bool) {
	defer opencl.SetArgLaunchLocked(locked)()
	f := newModelFixture(b)
	k := f.kernel(b, "fill_u32")
	r := ur.Range1D(64)
	if !parallel {
		out := f.buffer(b, 64)
		b.ReportAllocs()
		b.ResetTimer()
		for i := range b.N {
			if err := f.q.Launch(k, r, ur.ArgBuffer(out), ur.ArgOf(uint32(i))); err != nil {
				b.Fatal(err)
			}
			if i%256 == 255 {
				f.q.Finish()
			}
		}
		f.q.Finish()
		return
	}
	var mu sync.Mutex
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		mu.Lock()
		out, err := f.ctx.NewBuffer(ur.MemReadWrite, 4*64)
		mu.Unlock()
		if err != nil {
			b.Error(err)
			return
		}
		defer out.Release()
		i := 0
		for pb.Next() {
			if err := f.q.Launch(k, r, ur.ArgBuffer(out), ur.ArgOf(uint32(i))); err != nil {
				b.Error(err)
				return
			}
			if i++; i%256 == 0 {
				f.q.Finish()
			}
		}
	})
	f.q.Finish()
}

// BenchmarkLaunchArgsClonePool and BenchmarkLaunchArgsLocked compare the
// two ways argument launches share the adapter's kernels (doc.go has the
// figures).
func BenchmarkLaunchArgsClonePool(b *testing.B) {
	b.Run("serial", func(b *testing.B) { benchmarkLaunchArgs(b, false, false) })
	b.Run("parallel", func(b *testing.B) { benchmarkLaunchArgs(b, false, true) })
}

func BenchmarkLaunchArgsLocked(b *testing.B) {
	b.Run("serial", func(b *testing.B) { benchmarkLaunchArgs(b, true, false) })
	b.Run("parallel", func(b *testing.B) { benchmarkLaunchArgs(b, true, true) })
}

// 1000 tiny launches recorded into a command buffer, replayed many times;
// fills, copies, wait lists, a later SetArg on the kernel and a release
// while a replay may run: natively, emulated, and as chosen
// (cmdreplay_test.go).
func TestCommandBufferReplay(t *testing.T) {
	forCommandBufferModes(t, testCommandBufferReplay)
}

func testCommandBufferReplay(t *testing.T, mode ur.CommandBufferMode) {
	f := newModelFixture(t)
	const n, launches, replays = 64, 1000, 20
	a, b := f.buffer(t, n), f.buffer(t, n)
	cb, err := f.ctx.NewCommandBuffer(f.dev, ur.CommandBufferOptions{Mode: mode})
	if err != nil {
		t.Fatal(err)
	}
	if cb.Emulated() && mode == ur.CommandBufferNative {
		t.Fatal("PoCL has cl_khr_command_buffer, but the buffer is emulated")
	}
	checkCommandBufferMode(t, f, cb, mode)
	add := f.kernel(t, "add_one")
	if _, err := cb.AppendFill(a, []byte{3, 0, 0, 0}, 0, 4*n); err != nil {
		t.Fatal(err)
	}
	for range launches {
		if _, err := cb.AppendLaunch(add, ur.Range1D(n), ur.LaunchProperties{}, ur.ArgBuffer(a)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := cb.AppendCopy(a, b, 0, 0, 4*n); err != nil {
		t.Fatal(err)
	}
	if err := cb.Finalize(); err != nil {
		t.Fatal(err)
	}
	// The kernel's own arguments changing after the recording changes
	// nothing recorded.
	other := f.buffer(t, n)
	if err := add.SetArgMem(0, other); err != nil {
		t.Fatal(err)
	}
	var prev *ur.Event
	for i := range replays {
		var wait []*ur.Event
		if prev != nil {
			wait = append(wait, prev)
		}
		ev, err := f.q.EnqueueCommandBuffer(cb, wait...)
		if err != nil {
			t.Fatal(err)
		}
		if prev != nil {
			prev.Release()
		}
		prev = ev
		if i%5 == 4 {
			wantAll(t, fmt.Sprintf("replay %d", i), f.read(t, b, n), 3+launches)
		}
	}
	if err := prev.Wait(t.Context()); err != nil {
		t.Fatal(err)
	}
	prev.Release()
	wantAll(t, "the kernel's own buffer", f.read(t, other, n), 0)

	// Replays on a queue the buffer was not recorded for: a profiling
	// one, and an out-of-order one.
	for _, props := range []ur.QueueProperties{{Profiling: true}, {OutOfOrder: true}} {
		q2, err := f.ctx.NewQueue(f.dev, props)
		if err != nil {
			t.Fatal(err)
		}
		if err := q2.WriteBuffer(b, 0, make([]byte, 4*n)); err != nil {
			t.Fatal(err)
		}
		ev, err := q2.EnqueueCommandBuffer(cb)
		if err != nil {
			t.Fatalf("%+v: %v", props, err)
		}
		if err := ev.Wait(t.Context()); err != nil {
			t.Fatal(err)
		}
		ev.Release()
		q2.Finish()
		q2.Release()
		wantAll(t, fmt.Sprintf("replay on a %+v queue", props), f.read(t, b, n), 3+launches)
	}

	ev, err := f.q.EnqueueCommandBuffer(cb)
	if err != nil {
		t.Fatal(err)
	}
	if err := cb.Release(); err != nil {
		t.Fatal(err)
	}
	if err := ev.Wait(t.Context()); err != nil {
		t.Fatal(err)
	}
	ev.Release()
	wantAll(t, "after a replay whose buffer was released", f.read(t, b, n), 3+launches)
}

func TestCommandBufferUpdate(t *testing.T) {
	forCommandBufferModes(t, testCommandBufferUpdate)
}

func testCommandBufferUpdate(t *testing.T, mode ur.CommandBufferMode) {
	f := newModelFixture(t)
	const n = 64
	a, b := f.buffer(t, n), f.buffer(t, n)
	cb, err := f.ctx.NewCommandBuffer(f.dev, ur.CommandBufferOptions{Updatable: true, Mode: mode})
	if err != nil {
		t.Fatal(err)
	}
	defer cb.Release()
	fill := f.kernel(t, "fill_u32")
	c, err := cb.AppendLaunch(fill, ur.Range1D(n), ur.LaunchProperties{}, ur.ArgBuffer(a), ur.ArgOf(uint32(1)))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cb.AppendLaunch(f.kernel(t, "add_one"), ur.Range1D(n), ur.LaunchProperties{}, ur.ArgBuffer(a)); err != nil {
		t.Fatal(err)
	}
	if err := cb.Finalize(); err != nil {
		t.Fatal(err)
	}
	run := func() {
		ev, err := f.q.EnqueueCommandBuffer(cb)
		if err != nil {
			t.Fatal(err)
		}
		ev.Wait(t.Context())
		ev.Release()
	}
	run()
	wantAll(t, "a", f.read(t, a, n), 2)
	if err := cb.UpdateLaunch(c, nil, ur.ArgBuffer(a), ur.ArgOf(uint32(10))); err != nil {
		t.Fatal(err)
	}
	run()
	wantAll(t, "a after the update", f.read(t, a, n), 11)
	half := ur.Range1D(n / 2)
	if err := cb.UpdateLaunch(c, &half, ur.ArgBuffer(b), ur.ArgOf(uint32(4))); err != nil {
		t.Fatal(err)
	}
	run()
	got := f.read(t, b, n)
	if got[0] != 4 || got[n/2-1] != 4 || got[n/2] != 0 {
		t.Errorf("b after the update to half of it: %v", got)
	}
	wantAll(t, "a after the second update", f.read(t, a, n), 12)
}

func TestCommandBufferUSM(t *testing.T) {
	forCommandBufferModes(t, testCommandBufferUSM)
}

func testCommandBufferUSM(t *testing.T, mode ur.CommandBufferMode) {
	f := newModelFixture(t)
	u, err := f.ctx.AllocDevice(f.dev, 256)
	if errors.Is(err, ur.ErrUnsupportedFeature) {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	defer u.Free()
	cb, err := f.ctx.NewCommandBuffer(f.dev, ur.CommandBufferOptions{Mode: mode})
	if err != nil {
		t.Fatal(err)
	}
	defer cb.Release()
	_, err = cb.AppendMemFill(u.Ptr(), []byte{9}, 128)
	if errors.Is(err, ur.ErrUnsupportedFeature) {
		t.Logf("AppendMemFill: %v", err)
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cb.AppendMemcpy(u.Ptr().Add(128), u.Ptr(), 128); err != nil {
		t.Fatal(err)
	}
	if err := cb.Finalize(); err != nil {
		t.Fatal(err)
	}
	ev, err := f.q.EnqueueCommandBuffer(cb)
	if err != nil {
		t.Fatal(err)
	}
	ev.Wait(t.Context())
	ev.Release()
	got := make([]byte, 256)
	if err := f.q.CopyFromPtr(got, u.Ptr()); err != nil {
		t.Fatal(err)
	}
	if got[0] != 9 || got[255] != 9 {
		t.Errorf("USM after a recorded fill and copy: %v", got)
	}
}

func TestQueueFeaturesOpenCL(t *testing.T) {
	f := newModelFixture(t)
	k, out := f.kernel(t, "fill_u32"), f.buffer(t, 1<<16)
	ev, err := f.q.EnqueueLaunch(k, ur.Range1D(1<<16), ur.LaunchOptions{}, ur.ArgBuffer(out), ur.ArgOf(uint32(1)))
	if err != nil {
		t.Fatal(err)
	}
	const callbacks = 100
	done := make(chan ur.EventStatus, callbacks)
	for range callbacks {
		if err := ev.OnComplete(func(st ur.EventStatus, err error) {
			if err != nil {
				t.Error(err)
			}
			done <- st
		}); err != nil {
			t.Fatal(err)
		}
	}
	ev.Release()
	for range callbacks {
		select {
		case st := <-done:
			if st != ur.EventComplete {
				t.Errorf("status %v", st)
			}
		case <-time.After(30 * time.Second):
			t.Fatal("callback never ran")
		}
	}
	if err := f.q.Finish(); err != nil {
		t.Fatal(err)
	}
	// A drained queue reads as empty once the driver has retired Empty's
	// marker, which PoCL does on a thread of its own: within emptyPoll on
	// an idle machine, later on cores other work holds (a CI run's other
	// packages): each call's own marker too. So: soon.
	deadline := time.Now().Add(10 * time.Second)
	for empty := false; !empty; {
		var err error
		if empty, err = f.q.IsEmpty(); err != nil {
			t.Fatal(err)
		}
		if !empty && time.Now().After(deadline) {
			t.Fatal("IsEmpty after Finish = false for 10 s")
		}
	}
	// A queue with a long launch in it is not empty, and says so at once.
	slow := f.kernel(t, "fill_u32")
	for range 20 {
		if err := f.q.Launch(slow, ur.Range1D(1<<16), ur.ArgBuffer(out), ur.ArgOf(uint32(2))); err != nil {
			t.Fatal(err)
		}
	}
	t0 := time.Now()
	empty, err := f.q.IsEmpty()
	t.Logf("IsEmpty of a busy queue: %v, %v, in %v", empty, err, time.Since(t0))
	if err := f.q.Finish(); err != nil {
		t.Fatal(err)
	}
	if _, err := f.ctx.NewQueue(f.dev, ur.QueueProperties{Priority: 1}); err == nil {
		t.Log("queue priorities accepted")
	} else if !errors.Is(err, ur.ErrUnsupportedFeature) {
		t.Errorf("NewQueue(Priority 1): %v, want ErrUnsupportedFeature or success", err)
	}
}

func TestKernelAttributesOpenCL(t *testing.T) {
	f := newModelFixture(t)
	k := f.kernel(t, "sum_local")
	a, err := k.Attributes(f.dev)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%+v", a)
	if a.MaxWorkGroupSize == 0 || a.MaxDynamicLocalMem == 0 {
		t.Errorf("attributes %+v", a)
	}
	for _, g := range []uint64{1 << 20, 1021, 1000, 8 * 1009, 7} {
		l, err := k.SuggestLocalSize(f.dev, ur.Range1D(g), 0)
		if err != nil {
			t.Fatal(err)
		}
		if l[0] == 0 || g%l[0] != 0 || l[0] > a.MaxWorkGroupSize {
			t.Errorf("SuggestLocalSize(%d) = %v", g, l)
		}
		t.Logf("SuggestLocalSize(%d) = %v", g, l[0])
	}
	if _, err := k.MaxCooperativeGroups(f.dev, [3]uint64{64, 1, 1}, 0); !errors.Is(err, ur.ErrUnsupportedFeature) {
		t.Errorf("MaxCooperativeGroups: %v, want ErrUnsupportedFeature", err)
	}
	if _, err := f.prog.Global(f.dev, "x"); !errors.Is(err, ur.ErrUnsupportedFeature) {
		t.Logf("Global: %v", err)
	}
}

// The work-group size chosen without cl_khr_suggested_local_work_size: a
// divisor of the global size within the limits, a multiple of the
// preferred multiple where one is at least half as large; 1 for a prime
// past the limit.
func TestChooseLocalSize(t *testing.T) {
	for _, c := range []struct {
		dims        uint32
		global      [3]uint64
		limit, mult uint64
		want        [3]uint64
	}{
		{1, [3]uint64{1 << 20, 1, 1}, 4096, 8, [3]uint64{4096, 1, 1}},
		{1, [3]uint64{1000, 1, 1}, 256, 8, [3]uint64{200, 1, 1}},
		{1, [3]uint64{4099, 1, 1}, 4096, 8, [3]uint64{1, 1, 1}},
		{1, [3]uint64{8072, 1, 1}, 4096, 8, [3]uint64{4036, 1, 1}},
		{1, [3]uint64{96, 1, 1}, 64, 32, [3]uint64{32, 1, 1}},
		{2, [3]uint64{64, 64, 1}, 256, 8, [3]uint64{64, 4, 1}},
	} {
		r := ur.NDRange{Dims: c.dims, Global: c.global}
		if got := opencl.ChooseLocalSize(r, c.limit, c.mult, [3]uint64{4096, 4096, 4096}); got != c.want {
			t.Errorf("chooseLocalSize(%v, %d, %d) = %v, want %v", c.global, c.limit, c.mult, got, c.want)
		}
	}
}
