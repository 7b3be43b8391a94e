package opencl_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/gour-dev/gour/ur"
)

// commandBufferModes are the ways a command buffer is recorded that the
// command buffer tests run in.
var commandBufferModes = []struct {
	name string
	mode ur.CommandBufferMode
}{{"native", ur.CommandBufferNative}, {"emulated", ur.CommandBufferEmulated}, {"auto", ur.CommandBufferAuto}}

func forCommandBufferModes(t *testing.T, test func(*testing.T, ur.CommandBufferMode)) {
	for _, m := range commandBufferModes {
		t.Run(m.name, func(t *testing.T) { test(t, m.mode) })
	}
}

// isPoCL reports whether the fixture's device is PoCL's, whose native
// command buffers replay slower than the launches one by one.
func isPoCL(f *modelFixture) bool {
	return strings.Contains(f.dev.Platform().Info().Name, "Portable Computing Language")
}

// checkCommandBufferMode checks that cb was recorded as mode asks: auto
// emulates on PoCL, as measured.
func checkCommandBufferMode(t *testing.T, f *modelFixture, cb *ur.CommandBuffer, mode ur.CommandBufferMode) {
	t.Helper()
	switch mode {
	case ur.CommandBufferEmulated:
		if !cb.Emulated() {
			t.Fatal("CommandBufferEmulated gave a native command buffer")
		}
	case ur.CommandBufferAuto:
		if isPoCL(f) && !cb.Emulated() {
			t.Fatal("PoCL's native command buffers replay slower than the launches one by one, but auto chose them")
		}
	}
}

// The same commands give the same results recorded natively, emulated and
// as chosen, as made one by one: values that differ per launch, launches
// over offsets and ranges of their own, a local-memory argument, fills
// and copies between them, replayed twice.
func TestCommandBufferModesAgree(t *testing.T) {
	f := newModelFixture(t)
	const n = 256
	fill, add, sum := f.kernel(t, "fill_u32"), f.kernel(t, "add_one"), f.kernel(t, "sum_local")
	type rec interface {
		launch(k *ur.Kernel, r ur.NDRange, args ...ur.Arg)
		fill(m *ur.Mem, v byte, off, size uint64)
		copy(src, dst *ur.Mem, off, size uint64)
	}
	script := func(x rec, a, b, out *ur.Mem) {
		for i := range 40 {
			r := ur.Range1D(uint64(n - 4*i))
			r.Offset[0] = uint64(2 * i)
			x.launch(fill, r, ur.ArgBuffer(a), ur.ArgOf(uint32(i*7)))
			x.launch(add, ur.Range1D(uint64(n/2+i)), ur.ArgBuffer(a))
		}
		x.fill(b, 5, 16, 64)
		x.copy(a, b, 128, 256)
		r := ur.Range1D(n)
		r.Local[0] = 64
		x.launch(sum, r, ur.ArgBuffer(a), ur.ArgBuffer(out), ur.ArgLocalMem(64*4))
		x.launch(add, ur.Range1D(n), ur.ArgBuffer(b))
	}
	run := func(mode string) [][]uint32 {
		a, b, out := f.buffer(t, n), f.buffer(t, n), f.buffer(t, n)
		if mode == "one by one" {
			for range 2 {
				script(oneByOne{t, f.q}, a, b, out)
			}
		} else {
			var m ur.CommandBufferMode
			for _, x := range commandBufferModes {
				if x.name == mode {
					m = x.mode
				}
			}
			cb, err := f.ctx.NewCommandBuffer(f.dev, ur.CommandBufferOptions{Mode: m})
			if err != nil {
				t.Fatal(err)
			}
			defer cb.Release()
			checkCommandBufferMode(t, f, cb, m)
			script(recorder{t, cb}, a, b, out)
			if err := cb.Finalize(); err != nil {
				t.Fatal(err)
			}
			for range 2 {
				ev, err := f.q.EnqueueCommandBuffer(cb)
				if err != nil {
					t.Fatal(err)
				}
				ev.Release()
			}
		}
		return [][]uint32{f.read(t, a, n), f.read(t, b, n), f.read(t, out, n)}
	}
	want := run("one by one")
	for _, m := range commandBufferModes {
		got := run(m.name)
		for i := range want {
			if fmt.Sprint(got[i]) != fmt.Sprint(want[i]) {
				t.Errorf("%s: buffer %d is %v, one by one %v", m.name, i, got[i], want[i])
			}
		}
	}
}

type oneByOne struct {
	t *testing.T
	q *ur.Queue
}

func (x oneByOne) launch(k *ur.Kernel, r ur.NDRange, args ...ur.Arg) {
	if err := x.q.Launch(k, r, args...); err != nil {
		x.t.Fatal(err)
	}
}

func (x oneByOne) fill(m *ur.Mem, v byte, off, size uint64) {
	ev, err := x.q.EnqueueFill(m, []byte{v}, off, size)
	if err != nil {
		x.t.Fatal(err)
	}
	ev.Release()
}

func (x oneByOne) copy(src, dst *ur.Mem, off, size uint64) {
	ev, err := x.q.EnqueueCopy(src, dst, off, off, size)
	if err != nil {
		x.t.Fatal(err)
	}
	ev.Release()
}

type recorder struct {
	t  *testing.T
	cb *ur.CommandBuffer
}

func (x recorder) launch(k *ur.Kernel, r ur.NDRange, args ...ur.Arg) {
	if _, err := x.cb.AppendLaunch(k, r, ur.LaunchProperties{}, args...); err != nil {
		x.t.Fatal(err)
	}
}

func (x recorder) fill(m *ur.Mem, v byte, off, size uint64) {
	if _, err := x.cb.AppendFill(m, []byte{v}, off, size); err != nil {
		x.t.Fatal(err)
	}
}

func (x recorder) copy(src, dst *ur.Mem, off, size uint64) {
	if _, err := x.cb.AppendCopy(src, dst, off, off, size); err != nil {
		x.t.Fatal(err)
	}
}

// An emulated buffer replayed on one queue, then another, then the first
// again, with an update between: each queue's launches prepared anew.
func TestCommandBufferEmulatedQueues(t *testing.T) {
	f := newModelFixture(t)
	const n = 64
	a := f.buffer(t, n)
	cb, err := f.ctx.NewCommandBuffer(f.dev, ur.CommandBufferOptions{Mode: ur.CommandBufferEmulated, Updatable: true})
	if err != nil {
		t.Fatal(err)
	}
	defer cb.Release()
	c, err := cb.AppendLaunch(f.kernel(t, "fill_u32"), ur.Range1D(n), ur.LaunchProperties{}, ur.ArgBuffer(a), ur.ArgOf(uint32(1)))
	if err != nil {
		t.Fatal(err)
	}
	add := f.kernel(t, "add_one")
	for range 3 {
		if _, err := cb.AppendLaunch(add, ur.Range1D(n), ur.LaunchProperties{}, ur.ArgBuffer(a)); err != nil {
			t.Fatal(err)
		}
	}
	if err := cb.Finalize(); err != nil {
		t.Fatal(err)
	}
	q2, err := f.ctx.NewQueue(f.dev, ur.QueueProperties{})
	if err != nil {
		t.Fatal(err)
	}
	defer q2.Release()
	for i, q := range []*ur.Queue{f.q, q2, f.q, q2} {
		if i == 2 {
			if err := cb.UpdateLaunch(c, nil, ur.ArgBuffer(a), ur.ArgOf(uint32(10))); err != nil {
				t.Fatal(err)
			}
		}
		ev, err := q.EnqueueCommandBuffer(cb)
		if err != nil {
			t.Fatal(err)
		}
		if err := ev.Wait(t.Context()); err != nil {
			t.Fatal(err)
		}
		ev.Release()
		want := uint32(4)
		if i >= 2 {
			want = 13
		}
		wantAll(t, fmt.Sprintf("replay %d", i), f.read(t, a, n), want)
	}
}

// BenchmarkCommandBufferReplay times a buffer of 1000 small launches
// replayed, natively and emulated, against the same launches one by one
// (Launch with arguments), per launch (ns/launch); on a busy machine run the test
// binary several times, which interleaves them, rather than -count.
func BenchmarkCommandBufferReplay(b *testing.B) {
	const n, launches = 128, 1000
	f := newModelFixture(b)
	k := f.kernel(b, "fill_u32")
	a := f.buffer(b, n)
	// One work-group, as urbench graph launches; a first launch outside
	// the timing, for PoCL compiles a kernel for its work-group size then.
	r := ur.Range1D(n)
	r.Local[0] = n
	if err := f.q.Launch(k, r, ur.ArgBuffer(a), ur.ArgOf(uint32(0))); err != nil {
		b.Fatal(err)
	}
	f.q.Finish()
	b.Run("one-by-one", func(b *testing.B) {
		for b.Loop() {
			for i := range launches {
				if err := f.q.Launch(k, r, ur.ArgBuffer(a), ur.ArgOf(uint32(i))); err != nil {
					b.Fatal(err)
				}
			}
			f.q.Finish()
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*launches), "ns/launch")
	})
	for _, m := range commandBufferModes[:2] {
		b.Run(m.name, func(b *testing.B) {
			cb, err := f.ctx.NewCommandBuffer(f.dev, ur.CommandBufferOptions{Mode: m.mode})
			if err != nil {
				b.Skip(err)
			}
			defer cb.Release()
			for i := range launches {
				if _, err := cb.AppendLaunch(k, r, ur.LaunchProperties{}, ur.ArgBuffer(a), ur.ArgOf(uint32(i))); err != nil {
					b.Fatal(err)
				}
			}
			if err := cb.Finalize(); err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				ev, err := f.q.EnqueueCommandBuffer(cb)
				if err != nil {
					b.Fatal(err)
				}
				ev.Release()
				f.q.Finish()
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*launches), "ns/launch")
		})
	}
}
