package cuda_test

import (
	"errors"
	"sync"
	"testing"

	"github.com/gour-dev/gour/adapters/cuda"
	"github.com/gour-dev/gour/internal/harness/testenv"
	"github.com/gour-dev/gour/ur"
)

// TestOpenReportsWhyNotAvailable runs everywhere: without a CUDA driver or
// GPU, Open must say so with a reason, never panic.
func TestOpenReportsWhyNotAvailable(t *testing.T) {
	a, err := cuda.Open()
	if err == nil {
		t.Skipf("a CUDA driver and GPU are present (adapter %s)", a.Name())
	}
	if !errors.Is(err, ur.ErrAdapterNotAvailable) {
		t.Fatalf("Open: %v, want an error matching ur.ErrAdapterNotAvailable", err)
	}
	t.Logf("reported: %v", err)
}

const emptyKernelPTX = `
.version 7.0
.target sm_52
.address_size 64
.visible .entry empty(.param .u64 p) { ret; }
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

type fixture struct {
	dev  *ur.Device
	ctx  *ur.Context
	prog *ur.Program
}

func newFixture(tb testing.TB) *fixture {
	tb.Helper()
	testenv.MustHaveAdapter(tb, cuda.Name)
	sys, err := ur.Discover(ur.Config{Selector: "cuda:*"})
	if err != nil {
		tb.Fatal(err)
	}
	if len(sys.Devices) == 0 {
		tb.Skip("no CUDA device selected")
	}
	f := &fixture{dev: sys.Devices[0]}
	if f.ctx, err = ur.NewContext(f.dev); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { f.ctx.Release() })
	if f.prog, err = f.ctx.NewProgramFromIL([]byte(emptyKernelPTX)); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { f.prog.Release() })
	if err := f.prog.Build(""); err != nil {
		tb.Fatal(err)
	}
	return f
}

// queueAndKernel makes a queue and the kernel name of f.prog, released
// when tb ends.
func (f *fixture) queueAndKernel(tb testing.TB, name string) (*ur.Queue, *ur.Kernel) {
	tb.Helper()
	q, err := f.ctx.NewQueue(f.dev, ur.QueueProperties{})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { q.Release() })
	k, err := f.prog.NewKernel(name)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { k.Release() })
	return q, k
}

// BenchmarkLaunchEmpty is the launch whose cost scripts/bench compares with
// a C program calling cuLaunchKernel: one empty kernel, one block of 32
// threads, no event.
func BenchmarkLaunchEmpty(b *testing.B) {
	f := newFixture(b)
	q, k := f.queueAndKernel(b, "empty")
	if err := k.SetArgUint64(0, 0); err != nil {
		b.Fatal(err)
	}
	r := ur.Range1D(32)
	b.ReportAllocs()
	for b.Loop() {
		if err := q.Launch(k, r); err != nil {
			b.Fatal(err)
		}
	}
	if err := q.Finish(); err != nil {
		b.Fatal(err)
	}
}

// TestPTXHandsBackCubin builds from PTX, takes the binary, and checks that
// a program made from it (no JIT) runs the same kernel.
func TestPTXHandsBackCubin(t *testing.T) {
	f := newFixture(t)
	bins, err := f.prog.Binaries()
	if err != nil {
		t.Fatal(err)
	}
	if len(bins) != 1 || len(bins[0]) < 4 || string(bins[0][:4]) != "\x7fELF" {
		t.Fatalf("Binaries of a PTX program: %d binaries, want one ELF cubin", len(bins))
	}
	prog, err := f.ctx.NewProgramFromBinaries([]*ur.Device{f.dev}, bins)
	if err != nil {
		t.Fatal(err)
	}
	defer prog.Release()
	if err := prog.Build(""); err != nil {
		t.Fatal(err)
	}
	runAdd1(t, f, prog, 3)
}

// runAdd1 launches add1 launches times over 4096 floats and checks them.
func runAdd1(t testing.TB, f *fixture, prog *ur.Program, launches int) {
	q, err := f.ctx.NewQueue(f.dev, ur.QueueProperties{})
	if err != nil {
		t.Error(err)
		return
	}
	defer q.Release()
	k, err := prog.NewKernel("add1")
	if err != nil {
		t.Error(err)
		return
	}
	defer k.Release()
	const n = 4096
	y, err := f.ctx.NewBufferFrom(ur.MemReadWrite, make([]byte, n*4))
	if err != nil {
		t.Error(err)
		return
	}
	defer y.Release()
	for range launches {
		if err := k.SetArgMem(0, y); err != nil {
			t.Error(err)
			return
		}
		if err := q.Launch(k, ur.Range1D(n)); err != nil {
			t.Error(err)
			return
		}
	}
	out := make([]float32, n)
	if err := q.ReadBuffer(y, 0, ur.AsBytes(out)); err != nil {
		t.Error(err)
		return
	}
	for i, v := range out {
		if v != float32(launches) {
			t.Errorf("y[%d] = %v after %d launches", i, v, launches)
			return
		}
	}
}

// TestConcurrentLaunches: the CUDA current context is per OS thread, and
// goroutines move between threads. 32 goroutines launch on one context, and
// on two contexts at once, each with its own queue and kernel.
func TestConcurrentLaunches(t *testing.T) {
	f := newFixture(t)
	t.Run("one context", func(t *testing.T) {
		var wg sync.WaitGroup
		for range 32 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				runAdd1(t, f, f.prog, 20)
			}()
		}
		wg.Wait()
	})
	t.Run("two contexts", func(t *testing.T) {
		g := newFixture(t)
		var wg sync.WaitGroup
		for i := range 32 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if i%2 == 0 {
					runAdd1(t, f, f.prog, 20)
				} else {
					runAdd1(t, g, g.prog, 20)
				}
			}()
		}
		wg.Wait()
	})
}

// TestLaunchAllocatesNothing: setting a buffer argument and launching
// allocate nothing (no pooled frame either, so the race detector, which
// drops pooled items at random, need not skip it).
func TestLaunchAllocatesNothing(t *testing.T) {
	f := newFixture(t)
	q, k := f.queueAndKernel(t, "add1")
	y, err := f.ctx.NewBufferFrom(ur.MemReadWrite, make([]byte, 1024*4))
	if err != nil {
		t.Fatal(err)
	}
	defer y.Release()
	r := ur.Range1D(1024)
	allocs := testing.AllocsPerRun(200, func() {
		k.SetArgMem(0, y)
		q.Launch(k, r)
	})
	if err := q.Finish(); err != nil {
		t.Fatal(err)
	}
	if allocs != 0 {
		t.Errorf("SetArgMem + Launch: %v allocations, want 0", allocs)
	}
}
