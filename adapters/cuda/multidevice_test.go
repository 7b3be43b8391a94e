package cuda_test

import (
	"context"
	"testing"

	"github.com/gour-dev/gour/adapters/cuda"
	"github.com/gour-dev/gour/internal/harness/testenv"
	"github.com/gour-dev/gour/ur"
)

// twoGPUs returns two CUDA devices, skipping where there are fewer.
func twoGPUs(tb testing.TB) []*ur.Device {
	tb.Helper()
	testenv.MustHaveAdapter(tb, cuda.Name)
	sys, err := ur.Discover(ur.Config{Selector: "cuda:*"})
	if err != nil {
		tb.Fatal(err)
	}
	if len(sys.Devices) < 2 {
		tb.Skipf("%d CUDA device(s): the case needs two", len(sys.Devices))
	}
	return sys.Devices[:2]
}

// A context of two GPUs: a PTX program built for both, its kernel run on
// each GPU's queue over one buffer, each launch after the other GPU's
// event; the buffer is managed memory both reach.
func TestTwoGPUContext(t *testing.T) {
	devs := twoGPUs(t)
	ctx, err := ur.NewContext(devs...)
	if err != nil {
		t.Fatal(err)
	}
	defer ctx.Release()
	prog, err := ctx.NewProgramFromIL([]byte(emptyKernelPTX))
	if err != nil {
		t.Fatal(err)
	}
	defer prog.Release()
	if err := prog.Build(""); err != nil {
		t.Fatal(err)
	}
	k, err := prog.NewKernel("add1")
	if err != nil {
		t.Fatal(err)
	}
	defer k.Release()
	var qs []*ur.Queue
	for _, d := range devs {
		q, err := ctx.NewQueue(d, ur.QueueProperties{})
		if err != nil {
			t.Fatal(err)
		}
		defer q.Release()
		qs = append(qs, q)
	}
	const n, rounds = 1 << 20, 6
	buf, err := ctx.NewBufferFrom(ur.MemReadWrite, ur.AsBytes(make([]float32, n)))
	if err != nil {
		t.Fatal(err)
	}
	defer buf.Release()
	if err := k.SetArgMem(0, buf); err != nil {
		t.Fatal(err)
	}
	var ev *ur.Event
	for i := range rounds {
		var wait []*ur.Event
		if ev != nil {
			wait = append(wait, ev)
		}
		next, err := qs[i%2].EnqueueLaunch(k, ur.Range1D(n).WithLocal(256), ur.LaunchOptions{Wait: wait})
		if err != nil {
			t.Fatalf("round %d on GPU %d: %v", i, i%2, err)
		}
		if ev != nil {
			ev.Release()
		}
		ev = next
	}
	if err := ev.Wait(context.Background()); err != nil {
		t.Fatal(err)
	}
	ev.Release()
	out := make([]float32, n)
	if err := qs[0].ReadBuffer(buf, 0, ur.AsBytes(out)); err != nil {
		t.Fatal(err)
	}
	for i, v := range out {
		if v != rounds {
			t.Fatalf("element %d = %v after %d rounds alternating between the GPUs, want %d", i, v, rounds, rounds)
		}
	}
}

// BenchmarkPeerCopy copies 1 GiB from one GPU's memory to the other's
// with Queue.EnqueuePeerCopy (cuMemcpyPeerAsync) after EnablePeerAccess,
// for the bandwidth PyTorch's device-to-device copy is compared with.
func BenchmarkPeerCopy(b *testing.B) {
	devs := twoGPUs(b)
	const size = 1 << 30
	var ctxs []*ur.Context
	var bufs []*ur.USM
	for _, d := range devs {
		ctx, err := ur.NewContext(d)
		if err != nil {
			b.Fatal(err)
		}
		defer ctx.Release()
		u, err := ctx.AllocDevice(d, size)
		if err != nil {
			b.Fatal(err)
		}
		defer u.Free()
		ctxs, bufs = append(ctxs, ctx), append(bufs, u)
	}
	for i, j := range []int{1, 0} {
		if err := devs[i].EnablePeerAccess(devs[j]); err != nil {
			b.Logf("EnablePeerAccess(%d→%d): %v", i, j, err)
		}
	}
	q, err := ctxs[0].NewQueue(devs[0], ur.QueueProperties{})
	if err != nil {
		b.Fatal(err)
	}
	defer q.Release()
	path, err := q.PeerCopyPath(bufs[1].Ptr(), bufs[0].Ptr())
	if err != nil {
		b.Fatal(err)
	}
	b.Logf("path: %v", path)
	copyOnce := func() {
		ev, err := q.EnqueuePeerCopy(bufs[1].Ptr(), bufs[0].Ptr(), size)
		if err != nil {
			b.Fatal(err)
		}
		if err := ev.Wait(context.Background()); err != nil {
			b.Fatal(err)
		}
		ev.Release()
	}
	copyOnce() // warm up
	b.SetBytes(size)
	b.ResetTimer()
	for b.Loop() {
		copyOnce()
	}
}
