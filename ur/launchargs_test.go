package ur

import (
	"bytes"
	"errors"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/gour-dev/gour/ur/driver"
)

// argQueue is an adapter queue with argument launches; it records the
// value argument of fill_u32 of each launch.
type argQueue struct {
	countingQueue
	launches atomic.Int64
	sum      atomic.Uint64
}

func (q *argQueue) LaunchWithArgs(_ driver.Kernel, _ driver.NDRange, args []driver.LaunchArg, _ driver.LaunchProperties, _ []driver.Event, _ bool) (driver.Event, error) {
	q.launches.Add(1)
	q.sum.Add(args[1].Bits)
	return nil, nil
}

// fakeMem is an adapter buffer.
type fakeMem struct{ driver.Mem }

func argSetup(t *testing.T) (*Kernel, *fakeKernel, *Queue, *argQueue, *Mem) {
	k, fk, q, _, m := fakeKernelSetup(t, "fill_u32", map[string]driver.KernelInfo{"fill_u32": fillU32})
	m.drv = fakeMem{}
	aq := &argQueue{}
	q.drv = aq
	return k, fk, q, aq, m
}

// A launch with arguments reaches the adapter without touching the
// kernel's own arguments, allocating nothing.
func TestLaunchArgsLeavesTheKernelAlone(t *testing.T) {
	k, fk, q, aq, m := argSetup(t)
	allocs := testing.AllocsPerRun(100, func() {
		if err := q.Launch(k, Range1D(64), ArgBuffer(m), ArgOf(uint32(7))); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 && !raceEnabled {
		t.Errorf("Launch with arguments allocates %v times per launch, want 0", allocs)
	}
	u := &USM{object: object{adapter: k.adapter}, ctx: k.ctx, kind: USMDevice, addr: 0x1000, size: 64}
	allocs = testing.AllocsPerRun(100, func() {
		if err := q.Launch(k, Range1D(64), ArgPtr(u.Ptr().Add(16)), ArgOf(uint32(7))); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 && !raceEnabled {
		t.Errorf("Launch with arguments on a pointer allocates %v times per launch, want 0", allocs)
	}
	if fk.sets != 0 {
		t.Errorf("the kernel's arguments were set %d times", fk.sets)
	}
	if n := aq.launches.Load(); n != 202 {
		t.Errorf("%d launches reached the adapter, want 202", n)
	}
}

// Kernel.SetArg sets the kernel's own arguments from launch Args, checked
// as the typed setters check them.
func TestKernelSetArg(t *testing.T) {
	k, fk, _, _, m := argSetup(t)
	if err := k.SetArg(0, ArgBuffer(m)); err != nil {
		t.Fatal(err)
	}
	if err := k.SetArg(1, ArgOf(uint32(0x01020304))); err != nil {
		t.Fatal(err)
	}
	if fk.sets != 2 || !bytes.Equal(fk.last, []byte{4, 3, 2, 1}) {
		t.Errorf("after two SetArg: %d sets, last value % x; want 2 and 04 03 02 01", fk.sets, fk.last)
	}
	for _, c := range []struct {
		name  string
		index int
		arg   Arg
		want  Result
	}{
		{"a value of the wrong size", 1, ArgOf(uint64(7)), ErrInvalidKernelArgumentSize},
		{"an index past the end", 2, ArgOf(uint32(7)), ErrInvalidKernelArgumentIndex},
		{"a zero Arg", 1, Arg{}, ErrInvalidKernelArgs},
	} {
		if err := k.SetArg(c.index, c.arg); ResultOf(err) != c.want {
			t.Errorf("%s: %v, want %v", c.name, err, c.want)
		}
	}
	var nilKernel *Kernel
	if err := nilKernel.SetArg(0, ArgOf(uint32(1))); ResultOf(err) != ErrInvalidNullHandle {
		t.Errorf("SetArg on a nil kernel: %v, want ErrInvalidNullHandle", err)
	}
}

// Arguments are checked against what the driver reports, by count, kind
// and size, and a freed pointer or released buffer is refused.
func TestLaunchArgsChecks(t *testing.T) {
	k, _, q, aq, m := argSetup(t)
	other := &Mem{object: object{adapter: m.adapter}, ctx: &Context{object: object{adapter: m.adapter}}, size: 64}
	u := &USM{object: object{adapter: m.adapter}, ctx: k.ctx, kind: USMDevice, addr: 0x1000, size: 64, owned: false}
	released := &Mem{object: object{adapter: m.adapter}, ctx: k.ctx, size: 64}
	released.Release()
	freed := &USM{object: object{adapter: m.adapter}, ctx: k.ctx, kind: USMDevice, addr: 0x2000, size: 64}
	freed.Free()
	for _, tt := range []struct {
		what string
		args []Arg
		code Result
		want []string
	}{
		{"too few", []Arg{ArgBuffer(m)}, ErrInvalidKernelArgs, []string{"takes 2 arguments", "gives 1"}},
		{"value for a buffer", []Arg{ArgOf(uint32(1)), ArgOf(uint32(1))}, ErrInvalidKernelArgumentSize, []string{"argument 0"}},
		{"wrong size", []Arg{ArgBuffer(m), ArgOf(uint64(1))}, ErrInvalidKernelArgumentSize, []string{"argument 1", "8 bytes"}},
		{"buffer of another context", []Arg{ArgBuffer(other), ArgOf(uint32(1))}, ErrInvalidContext, []string{"argument 0"}},
		{"released buffer", []Arg{ArgBuffer(released), ArgOf(uint32(1))}, ErrInvalidMemObject, nil},
		{"freed pointer", []Arg{ArgPtr(freed.Ptr()), ArgOf(uint32(1))}, ErrInvalidMemObject, []string{"freed"}},
		{"pointer past the end", []Arg{ArgPtr(u.Ptr().Add(64)), ArgOf(uint32(1))}, ErrInvalidSize, []string{"argument 0"}},
		{"zero Arg", []Arg{{}, ArgOf(uint32(1))}, ErrInvalidKernelArgs, []string{"ArgOf"}},
	} {
		err := q.Launch(k, Range1D(64), tt.args...)
		wantArgError(t, tt.what, err, tt.code, tt.want...)
	}
	if n := aq.launches.Load(); n != 0 {
		t.Errorf("%d bad launches reached the adapter", n)
	}
	if err := q.Launch(k, Range1D(64), ArgPtr(u.Ptr().Add(16)), ArgOf(uint32(3))); err != nil {
		t.Errorf("a pointer into the middle: %v", err)
	}
	// The checks leave every buffer as they found it: none stays entered.
	if refs := m.life.refs.Load(); refs != 0 {
		t.Errorf("the buffer is left entered %d times", refs/2)
	}
	_, err := q.EnqueueLaunch(k, Range1D(64), LaunchOptions{Properties: LaunchProperties{ClusterDims: [3]uint32{2, 0, 1}}}, ArgBuffer(m), ArgOf(uint32(1)))
	wantArgError(t, "half-set cluster dimensions", err, ErrInvalidValue, "cluster")
}

// Many goroutines launch one kernel with their own arguments; every
// launch reaches the adapter with its own value. Run under -race.
func TestLaunchArgsConcurrent(t *testing.T) {
	k, _, q, aq, m := argSetup(t)
	const goroutines, each = 64, 200
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Go(func() {
			for range each {
				if err := q.Launch(k, Range1D(64), ArgBuffer(m), ArgOf(uint32(g))); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	var want uint64
	for g := range goroutines {
		want += uint64(g) * each
	}
	if got := aq.sum.Load(); got != want || aq.launches.Load() != goroutines*each {
		t.Errorf("%d launches summing %d, want %d summing %d", aq.launches.Load(), got, goroutines*each, want)
	}
}

// Without argument launches in the adapter, the front end sets the
// arguments and launches under the kernel's lock: slower, still right.
func TestLaunchArgsWithoutAdapterSupport(t *testing.T) {
	k, fk, q, cq, m := fakeKernelSetup(t, "fill_u32", map[string]driver.KernelInfo{"fill_u32": fillU32})
	m.drv = fakeMem{}
	if err := q.Launch(k, Range1D(64), ArgBuffer(m), ArgOf(uint32(7))); err != nil {
		t.Fatal(err)
	}
	if fk.sets != 2 || cq.launches != 1 {
		t.Errorf("%d arguments set and %d launches, want 2 and 1", fk.sets, cq.launches)
	}
	_, err := q.EnqueueLaunch(k, Range1D(64), LaunchOptions{Properties: LaunchProperties{DynamicLocalMem: 1024}}, ArgBuffer(m), ArgOf(uint32(1)))
	wantArgError(t, "properties without adapter support", err, ErrUnsupportedFeature)
}

// BenchmarkLaunchArgs is the front end's cost of a launch with a pointer
// and a value, over an adapter that does nothing.
func BenchmarkLaunchArgs(b *testing.B) {
	k, _, q, _, _ := argSetup(&testing.T{})
	u := &USM{object: object{adapter: k.adapter}, ctx: k.ctx, kind: USMDevice, addr: 0x1000, size: 64}
	r := Range1D(128)
	r.Local[0] = 128
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if err := q.Launch(k, r, ArgPtr(u.Ptr()), ArgOf(uint32(i))); err != nil {
			b.Fatal(err)
		}
	}
}

// Launch is one door for both argument models: without arguments it
// launches the kernel with its own (SetArg*), through the adapter's
// Launch; with them, through the adapter's argument launch. A launch with
// properties takes its arguments with it, and says so when given none.
func TestLaunchOneDoorTwoModels(t *testing.T) {
	k, _, q, aq, m := argSetup(t)
	if err := errors.Join(k.SetArgMem(0, m), k.SetArgUint32(1, 5)); err != nil {
		t.Fatal(err)
	}
	if err := q.Launch(k, Range1D(64)); err != nil {
		t.Fatal(err)
	}
	if aq.countingQueue.launches != 1 || aq.launches.Load() != 0 {
		t.Errorf("Launch without arguments: %d kernel launches, %d argument launches; want 1 and 0", aq.countingQueue.launches, aq.launches.Load())
	}
	if err := q.Launch(k, Range1D(64), ArgBuffer(m), ArgOf(uint32(7))); err != nil {
		t.Fatal(err)
	}
	if aq.countingQueue.launches != 1 || aq.launches.Load() != 1 || aq.sum.Load() != 7 {
		t.Errorf("Launch with arguments: %d kernel launches, %d argument launches summing %d; want 1, 1, 7", aq.countingQueue.launches, aq.launches.Load(), aq.sum.Load())
	}
	_, err := q.EnqueueLaunch(k, Range1D(64), LaunchOptions{Properties: LaunchProperties{DynamicLocalMem: 64}})
	wantArgError(t, "properties without arguments", err, ErrInvalidKernelArgs, "takes 2 arguments", "properties")
}
