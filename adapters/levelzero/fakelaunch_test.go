package levelzero_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"
	"unsafe"

	"github.com/gour-dev/gour/ur"
)

// This file tests the launch and queue model (ur/driver/launch.go) over
// the fake driver, through package ur: launches with their arguments,
// launch properties, out-of-order and priority queues, queue emptiness,
// completion callbacks, kernel attributes, program globals and command
// buffers. It runs in TestFakeDriverChild.

func u32s(b []byte) []uint32 { return unsafe.Slice((*uint32)(unsafe.Pointer(&b[0])), len(b)/4) }

// fakeLaunchArgs has 64 goroutines launch one kernel at once, each with
// its own arguments (a pointer into one allocation, or a buffer of its
// own, and a value), on four queues, and checks every result.
func fakeLaunchArgs(t *testing.T, ctx *ur.Context, dev *ur.Device, p *ur.Program) {
	const (
		workers  = 64
		n        = 256
		launches = 10
	)
	k, err := p.NewKernel("fill_u32")
	must(t, "NewKernel", err)
	defer k.Release()
	var qs [4]*ur.Queue
	for i := range qs {
		qs[i], err = ctx.NewQueue(dev, ur.QueueProperties{})
		must(t, "NewQueue", err)
		defer qs[i].Release()
	}
	u, err := ctx.AllocDevice(dev, workers*4*n)
	must(t, "AllocDevice", err)
	defer u.Free()
	bufs := make([]*ur.Mem, workers)
	for i := range bufs {
		bufs[i], err = ctx.NewBuffer(ur.MemReadWrite, 4*n)
		must(t, "NewBuffer", err)
		defer bufs[i].Release()
	}
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for g := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			q := qs[g%len(qs)]
			out := ur.ArgPtr(u.Ptr().Add(uint64(g) * 4 * n))
			if g%2 == 1 {
				out = ur.ArgBuffer(bufs[g])
			}
			for j := range launches {
				if err := q.Launch(k, ur.Range1D(n), out, ur.ArgOf(uint32(g*1000+j))); err != nil {
					errs <- fmt.Errorf("worker %d launch %d: %w", g, j, err)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	for _, q := range qs {
		must(t, "Finish", q.Finish())
	}
	all := make([]byte, workers*4*n)
	must(t, "CopyFromPtr", qs[0].CopyFromPtr(all, u.Ptr()))
	for g := range workers {
		got := u32s(all[g*4*n : (g+1)*4*n])
		if g%2 == 1 {
			b := make([]byte, 4*n)
			must(t, "ReadBuffer", qs[0].ReadBuffer(bufs[g], 0, b))
			got = u32s(b)
		}
		want := uint32(g*1000 + launches - 1)
		for i, v := range got {
			if v != want {
				t.Fatalf("worker %d: out[%d] = %d, want %d", g, i, v, want)
			}
		}
	}
	// The kernel's own arguments were never set: a plain launch of it
	// must still fail.
	if err := qs[0].Launch(k, ur.Range1D(n)); err == nil {
		t.Error("Launch of a kernel whose own arguments were never set succeeded after Launch with arguments")
	}
}

// fakeLaunchArgsPointer launches with a pointer argument into the middle
// of an allocation, with an event after a wait list, and checks the
// launch properties Level Zero refuses or maps.
func fakeLaunchArgsPointer(t *testing.T, ctx *ur.Context, dev *ur.Device, q *ur.Queue, p *ur.Program) {
	const n = 128
	k, err := p.NewKernel("iota")
	must(t, "NewKernel", err)
	defer k.Release()
	u, err := ctx.AllocShared(dev, 64+4*n)
	must(t, "AllocShared", err)
	defer u.Free()
	fill, err := q.EnqueueMemFill(u.Ptr(), []byte{0xee}, 64+4*n)
	must(t, "EnqueueMemFill", err)
	defer fill.Release()
	ev, err := q.EnqueueLaunch(k, ur.Range1D(n), ur.LaunchOptions{Wait: []*ur.Event{fill}}, ur.ArgPtr(u.Ptr().Add(64)))
	must(t, "EnqueueLaunch", err)
	must(t, "Wait", ev.Wait(context.Background()))
	must(t, "Release", ev.Release())
	out := make([]byte, 64+4*n)
	must(t, "CopyFromPtr", q.CopyFromPtr(out, u.Ptr()))
	if out[0] != 0xee || out[63] != 0xee {
		t.Errorf("iota through a pointer at offset 64 wrote before it: %v", out[:64])
	}
	for i, v := range u32s(out[64:]) {
		if v != uint32(i) {
			t.Fatalf("iota through a pointer at offset 64: out[%d] = %d", i, v)
		}
	}

	arg := []ur.Arg{ur.ArgPtr(u.Ptr())}
	for _, props := range []ur.LaunchProperties{{DynamicLocalMem: 1024}, {ClusterDims: [3]uint32{2, 1, 1}}} {
		if _, err := q.EnqueueLaunch(k, ur.Range1D(n), ur.LaunchOptions{Properties: props}, arg...); !errors.Is(err, ur.ErrUnsupportedFeature) {
			t.Errorf("launch properties %+v: %v, want ErrUnsupportedFeature", props, err)
		}
	}
	before := fakeCounter(t, "cooperative")
	ev, err = q.EnqueueLaunch(k, ur.Range1D(n).WithLocal(32), ur.LaunchOptions{Properties: ur.LaunchProperties{Cooperative: true}}, arg...)
	must(t, "cooperative EnqueueLaunch", err)
	must(t, "Release", ev.Release())
	if got := fakeCounter(t, "cooperative") - before; got != 1 {
		t.Errorf("%d cooperative launches reached the driver, want 1", got)
	}
}

// fakeOutOfOrder runs two independent launches, a barrier and a copy on
// an out-of-order queue; the fake driver sees no barrier between the
// launches (it would not tell), so the test checks the results and that
// the barrier orders the copy.
func fakeOutOfOrder(t *testing.T, ctx *ur.Context, dev *ur.Device, p *ur.Program) {
	const n = 64
	q, err := ctx.NewQueue(dev, ur.QueueProperties{OutOfOrder: true})
	must(t, "NewQueue OutOfOrder", err)
	defer q.Release()
	k, err := p.NewKernel("fill_u32")
	must(t, "NewKernel", err)
	defer k.Release()
	a, err := ctx.NewBuffer(ur.MemReadWrite, 4*n)
	must(t, "NewBuffer", err)
	defer a.Release()
	b, err := ctx.NewBuffer(ur.MemReadWrite, 4*n)
	must(t, "NewBuffer", err)
	defer b.Release()
	must(t, "Launch with arguments a", q.Launch(k, ur.Range1D(n), ur.ArgBuffer(a), ur.ArgOf(uint32(7))))
	must(t, "Launch with arguments b", q.Launch(k, ur.Range1D(n), ur.ArgBuffer(b), ur.ArgOf(uint32(9))))
	bar, err := q.EnqueueBarrier()
	must(t, "EnqueueBarrier", err)
	defer bar.Release()
	cp, err := q.EnqueueCopy(a, b, 0, 0, 4*n/2)
	must(t, "EnqueueCopy", err)
	must(t, "Wait", cp.Wait(context.Background()))
	must(t, "Release", cp.Release())
	must(t, "Finish", q.Finish())
	out := make([]byte, 4*n)
	must(t, "ReadBuffer", q.ReadBuffer(b, 0, out))
	for i, v := range u32s(out) {
		want := uint32(9)
		if i < n/2 {
			want = 7
		}
		if v != want {
			t.Fatalf("b[%d] = %d, want %d", i, v, want)
		}
	}
	empty, err := q.IsEmpty()
	must(t, "IsEmpty", err)
	if !empty {
		t.Error("an out-of-order queue after Finish is not empty")
	}
}

// fakePriorities creates queues of high, default and low priority and
// counts what reached the driver.
func fakePriorities(t *testing.T, ctx *ur.Context, dev *ur.Device) {
	var before [3]uint64
	for i := range before {
		before[i] = fakeCounter(t, fmt.Sprintf("priority:%d", i))
	}
	for _, prio := range []int{5, 1, 0, -1} {
		q, err := ctx.NewQueue(dev, ur.QueueProperties{Priority: prio})
		must(t, fmt.Sprintf("NewQueue priority %d", prio), err)
		must(t, "Release", q.Release())
	}
	// ze_command_queue_priority_t: 0 normal, 1 low, 2 high.
	want := [3]uint64{1, 1, 2}
	for i := range want {
		if got := fakeCounter(t, fmt.Sprintf("priority:%d", i)) - before[i]; got != want[i] {
			t.Errorf("%d immediate lists of ze_command_queue_priority_t %d, want %d", got, i, want[i])
		}
	}
}

// fakeQueueQueries asks IsEmpty and waits through OnComplete.
func fakeQueueQueries(t *testing.T, ctx *ur.Context, dev *ur.Device, p *ur.Program) {
	q, err := ctx.NewQueue(dev, ur.QueueProperties{})
	must(t, "NewQueue", err)
	defer q.Release()
	empty, err := q.IsEmpty()
	must(t, "IsEmpty", err)
	if !empty {
		t.Error("a new queue is not empty")
	}
	k, err := p.NewKernel("iota")
	must(t, "NewKernel", err)
	defer k.Release()
	m, err := ctx.NewBuffer(ur.MemReadWrite, 4*64)
	must(t, "NewBuffer", err)
	defer m.Release()
	ev, err := q.EnqueueLaunch(k, ur.Range1D(64), ur.LaunchOptions{}, ur.ArgBuffer(m))
	must(t, "EnqueueLaunch", err)
	done := make(chan ur.EventStatus, 1)
	must(t, "OnComplete", ev.OnComplete(func(st ur.EventStatus, err error) {
		if err != nil {
			t.Errorf("OnComplete: %v", err)
		}
		done <- st
	}))
	must(t, "Release", ev.Release())
	select {
	case st := <-done:
		if st != ur.EventComplete {
			t.Errorf("OnComplete with status %v", st)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("OnComplete never called")
	}
	for range 3 {
		empty, err = q.IsEmpty()
		must(t, "IsEmpty", err)
		if !empty {
			t.Error("the queue is not empty after its only launch completed")
		}
		must(t, "Launch with arguments", q.Launch(k, ur.Range1D(64), ur.ArgBuffer(m)))
	}
	must(t, "Finish", q.Finish())
}

// fakeKernelAttributes reads a kernel's attributes and suggested sizes.
func fakeKernelAttributes(t *testing.T, ctx *ur.Context, dev *ur.Device, q *ur.Queue, p *ur.Program) {
	k, err := p.NewKernel("fill_u32")
	must(t, "NewKernel", err)
	defer k.Release()
	a, err := k.Attributes(dev)
	must(t, "Attributes", err)
	// The fake's kernels: 16-wide sub-groups, at most 64 of them, 64
	// bytes of private memory; the device's sub-group sizes 8, 16, 32.
	want := ur.KernelAttrs{PrivateMemSize: 64, MaxWorkGroupSize: 1024, PreferredGroupMultiple: 16, SubGroupSizes: []uint32{8, 16, 32}}
	if fmt.Sprint(a) != fmt.Sprint(want) {
		t.Errorf("Attributes = %+v, want %+v", a, want)
	}
	for _, c := range []struct {
		r    ur.NDRange
		want [3]uint64
	}{
		{ur.Range1D(1 << 20), [3]uint64{256}},
		{ur.Range1D(1000), [3]uint64{8}},
		{ur.Range2D(64, 48), [3]uint64{64, 4}},
	} {
		local, err := k.SuggestLocalSize(dev, c.r, 0)
		must(t, "SuggestLocalSize", err)
		if local != c.want {
			t.Errorf("SuggestLocalSize(%v) = %v, want %v", c.r.Global, local, c.want)
		}
	}
	if _, err := k.SuggestLocalSize(dev, ur.Range1D(64), 256); !errors.Is(err, ur.ErrUnsupportedFeature) {
		t.Errorf("SuggestLocalSize with dynamic local memory: %v, want ErrUnsupportedFeature", err)
	}
	n, err := k.MaxCooperativeGroups(dev, [3]uint64{64, 1, 1}, 0)
	must(t, "MaxCooperativeGroups", err)
	if n != 1024 {
		t.Errorf("MaxCooperativeGroups(64) = %d, want 1024 (the fake's 64Ki items)", n)
	}
	// The kernel's own group size is untouched: a launch without a local
	// size still takes the driver's suggestion.
	m, err := ctx.NewBuffer(ur.MemReadWrite, 4*1000)
	must(t, "NewBuffer", err)
	defer m.Release()
	must(t, "Launch with arguments", q.Launch(k, ur.Range1D(1000), ur.ArgBuffer(m), ur.ArgOf(uint32(3))))
	must(t, "Finish", q.Finish())
}

// fakeProgramGlobal reads and writes the fake module's global variable.
func fakeProgramGlobal(t *testing.T, dev *ur.Device, q *ur.Queue, p *ur.Program) {
	g, err := p.Global(dev, "gour_global_counter")
	must(t, "Global", err)
	defer g.Free()
	if g.Size() != 4 {
		t.Errorf("the global's size is %d, want 4", g.Size())
	}
	must(t, "CopyToPtr", q.CopyToPtr(g.Ptr(), []byte{42, 0, 0, 0}))
	got := make([]byte, 4)
	must(t, "CopyFromPtr", q.CopyFromPtr(got, g.Ptr()))
	if got[0] != 42 {
		t.Errorf("the global reads %v, want 42", got)
	}
	if _, err := p.Global(dev, "no_such_global"); err == nil {
		t.Error("Global of an unknown name succeeded")
	}
}

// fakeCommandBuffer records launches, a copy and fills (a long pattern
// included) into a command buffer, replays it several times, after a
// wait list and with events, and updates its launches.
func fakeCommandBuffer(t *testing.T, ctx *ur.Context, dev *ur.Device, q *ur.Queue, p *ur.Program) {
	const n = 256
	fill, err := p.NewKernel("fill_u32")
	must(t, "NewKernel", err)
	defer fill.Release()
	inc, err := p.NewKernel("add_one")
	must(t, "NewKernel", err)
	defer inc.Release()
	a, err := ctx.NewBuffer(ur.MemReadWrite, 4*n)
	must(t, "NewBuffer", err)
	defer a.Release()
	b, err := ctx.NewBuffer(ur.MemReadWrite, 4*n)
	must(t, "NewBuffer", err)
	defer b.Release()
	u, err := ctx.AllocDevice(dev, 4*n)
	must(t, "AllocDevice", err)
	defer u.Free()
	v, err := ctx.AllocDevice(dev, 4*n)
	must(t, "AllocDevice", err)
	defer v.Free()

	cb, err := ctx.NewCommandBuffer(dev, ur.CommandBufferOptions{Updatable: true})
	must(t, "NewCommandBuffer", err)
	defer cb.Release()
	if cb.Emulated() {
		t.Fatal("the Level Zero command buffer is emulated")
	}
	setA, err := cb.AppendLaunch(fill, ur.Range1D(n), ur.LaunchProperties{}, ur.ArgBuffer(a), ur.ArgOf(uint32(5)))
	must(t, "AppendLaunch fill_u32", err)
	incA, err := cb.AppendLaunch(inc, ur.Range1D(n), ur.LaunchProperties{}, ur.ArgBuffer(a))
	must(t, "AppendLaunch add_one", err)
	_, err = cb.AppendCopy(a, b, 0, 0, 4*n)
	must(t, "AppendCopy", err)
	_, err = cb.AppendFill(b, []byte{1, 2, 3, 4}, 2*n, 2*n)
	must(t, "AppendFill", err)
	long := make([]byte, 32) // longer than the fake's 16-byte fills
	for i := range long {
		long[i] = byte(100 + i)
	}
	_, err = cb.AppendMemFill(u.Ptr(), long, 4*n)
	must(t, "AppendMemFill", err)
	_, err = cb.AppendMemcpy(v.Ptr(), u.Ptr(), 4*n)
	must(t, "AppendMemcpy", err)
	must(t, "Finalize", cb.Finalize())

	check := func(what string, wantA, wantAHigh uint32) {
		t.Helper()
		out := make([]byte, 4*n)
		must(t, "ReadBuffer", q.ReadBuffer(b, 0, out))
		for i, x := range u32s(out) {
			want := wantA
			switch {
			case i >= n/2:
				want = 0x04030201
			case i >= n/4:
				want = wantAHigh
			}
			if x != want {
				t.Fatalf("%s: b[%d] = %#x, want %#x", what, i, x, want)
			}
		}
		got := make([]byte, 4*n)
		must(t, "CopyFromPtr", q.CopyFromPtr(got, v.Ptr()))
		for i, x := range got {
			if x != long[i%len(long)] {
				t.Fatalf("%s: v[%d] = %d, want %d", what, i, x, long[i%len(long)])
			}
		}
	}
	execs := fakeCounter(t, "execute")
	var last *ur.Event
	for i := range 3 {
		// Undo the last replay, so that each replay is seen to run.
		must(t, "WriteBuffer", q.WriteBuffer(b, 0, make([]byte, 4*n)))
		must(t, "CopyToPtr", q.CopyToPtr(v.Ptr(), make([]byte, 4*n)))
		var wait []*ur.Event
		if last != nil {
			wait = append(wait, last)
		}
		ev, err := q.EnqueueCommandBuffer(cb, wait...)
		must(t, fmt.Sprintf("EnqueueCommandBuffer %d", i), err)
		must(t, "Wait", ev.Wait(context.Background()))
		if last != nil {
			must(t, "Release", last.Release())
		}
		last = ev
		check(fmt.Sprintf("replay %d", i), 6, 6)
	}
	must(t, "Release", last.Release())
	if got := fakeCounter(t, "execute") - execs; got != 3 {
		t.Errorf("%d executions for 3 replays", got)
	}

	// New arguments for the first launch, a smaller range for the second.
	must(t, "UpdateLaunch args", cb.UpdateLaunch(setA, nil, ur.ArgBuffer(a), ur.ArgOf(uint32(10))))
	half := ur.Range1D(n / 4)
	must(t, "UpdateLaunch range", cb.UpdateLaunch(incA, &half))
	ev, err := q.EnqueueCommandBuffer(cb)
	must(t, "EnqueueCommandBuffer after updates", err)
	must(t, "Release", ev.Release())
	check("after UpdateLaunch", 11, 10)

	// Launch properties Level Zero lacks are refused at recording.
	cb2, err := ctx.NewCommandBuffer(dev, ur.CommandBufferOptions{})
	must(t, "NewCommandBuffer", err)
	defer cb2.Release()
	if _, err := cb2.AppendLaunch(fill, ur.Range1D(n), ur.LaunchProperties{DynamicLocalMem: 64}, ur.ArgBuffer(a), ur.ArgOf(uint32(1))); !errors.Is(err, ur.ErrUnsupportedFeature) {
		t.Errorf("AppendLaunch with dynamic local memory: %v, want ErrUnsupportedFeature", err)
	}
	c, err := cb2.AppendLaunch(fill, ur.Range1D(n), ur.LaunchProperties{}, ur.ArgBuffer(a), ur.ArgOf(uint32(1)))
	must(t, "AppendLaunch", err)
	must(t, "Finalize", cb2.Finalize())
	if err := cb2.UpdateLaunch(c, nil, ur.ArgBuffer(a), ur.ArgOf(uint32(2))); err == nil {
		t.Error("UpdateLaunch on a buffer not made Updatable succeeded")
	}
	must(t, "Finish", q.Finish())
}
