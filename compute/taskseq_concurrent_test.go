package compute

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestConcurrentTaskSequencePipeline runs a pipeline a user would write,
// each invocation uploading its chunk, transforming it and reading it
// back, on every context with concurrency 3: the results come back in
// start order and right, invocations run on as many lanes as the
// concurrency (a Device's lanes are Devices of their own, the CPU its
// own lane), and the lanes are released with the sequence.
func TestConcurrentTaskSequencePipeline(t *testing.T) {
	f := newAffine(t)
	const chunks, chunk, capacity, concurrency = 24, 4096, 4, 3
	for _, ctx := range contexts(t) {
		t.Run(ctx.String(), func(t *testing.T) {
			var mu sync.Mutex
			lanes := map[Context]bool{}
			step := func(_ context.Context, lane Context, k int) (int32, error) {
				mu.Lock()
				lanes[lane] = true
				mu.Unlock()
				host := make([]int32, chunk)
				for i := range host {
					host[i] = int32(k + i)
				}
				in, err := FromSlice(lane, host)
				if err != nil {
					return 0, err
				}
				defer in.Release()
				out, err := Zeros[int32](lane, chunk)
				if err != nil {
					return 0, err
				}
				defer out.Release()
				if err := Transform(lane, f.With(3, int32(k)), out, in); err != nil {
					return 0, err
				}
				got, err := out.ToSlice()
				if err != nil {
					return 0, err
				}
				return got[chunk-1], nil
			}
			seq, err := NewConcurrentTaskSequence(ctx, step, capacity, concurrency)
			if err != nil {
				t.Fatal(err)
			}
			bg := context.Background()
			next := 0
			get := func() {
				v, err := seq.Get(bg)
				if err != nil {
					t.Fatalf("Get %d: %v", next, err)
				}
				if want := int32(3*(next+chunk-1) + next); v != want {
					t.Fatalf("invocation %d returned %d, want %d (results out of start order?)", next, v, want)
				}
				next++
			}
			for k := range chunks {
				if seq.Outstanding() == capacity {
					get()
				}
				if err := seq.Async(bg, k); err != nil {
					t.Fatal(err)
				}
				if n := seq.Outstanding(); n > capacity {
					t.Fatalf("%d outstanding, capacity %d", n, capacity)
				}
			}
			for next < chunks {
				get()
			}
			owned := append([]*Device(nil), seq.owned...)
			if err := seq.Release(bg); err != nil {
				t.Fatal(err)
			}
			_, isDevice := ctx.(*Device)
			switch {
			case isDevice && (len(lanes) < 1 || len(lanes) > concurrency || lanes[ctx] || len(owned) != concurrency):
				t.Errorf("a Device's sequence ran on %d lanes (the Device itself among them: %v) of %d made; want up to %d lanes of their own", len(lanes), lanes[ctx], len(owned), concurrency)
			case !isDevice && (len(lanes) != 1 || !lanes[ctx]):
				t.Errorf("the CPU's sequence ran on %d lanes, want the CPU itself", len(lanes))
			}
			for _, d := range owned {
				if err := d.checkOpen(); !errors.Is(err, ErrReleased) {
					t.Errorf("a lane after Release: %v, want ErrReleased", err)
				}
			}
		})
	}
}

// TestConcurrentTaskSequenceOverlaps: with concurrency n, n invocations
// run at once (each waits until all n have started), never more.
func TestConcurrentTaskSequenceOverlaps(t *testing.T) {
	const n = 3
	for _, ctx := range contexts(t) {
		t.Run(ctx.String(), func(t *testing.T) {
			var running, most atomic.Int32
			all := make(chan struct{})
			var once sync.Once
			step := func(goctx context.Context, _ Context, k int) (int, error) {
				r := running.Add(1)
				defer running.Add(-1)
				for {
					m := most.Load()
					if r <= m || most.CompareAndSwap(m, r) {
						break
					}
				}
				if r == n {
					once.Do(func() { close(all) })
				}
				select {
				case <-all:
				case <-time.After(10 * time.Second):
					return 0, errors.New("the other invocations never started")
				}
				return k, nil
			}
			seq, err := NewConcurrentTaskSequence(ctx, step, 2*n, n)
			if err != nil {
				t.Fatal(err)
			}
			defer seq.Release(context.Background())
			bg := context.Background()
			for k := range 2 * n {
				if err := seq.Async(bg, k); err != nil {
					t.Fatal(err)
				}
			}
			for k := range 2 * n {
				if v, err := seq.Get(bg); err != nil || v != k {
					t.Fatalf("Get = %d, %v; want %d", v, err, k)
				}
			}
			if m := most.Load(); m != n {
				t.Errorf("at most %d invocations ran at once, want %d", m, n)
			}
		})
	}
}

// TestConcurrentTaskSequenceBadInput: a concurrency below one is
// ErrInvalid; one above the capacity runs capacity lanes; arrays of the
// Device used on a lane give ErrWrongContext, through Get.
func TestConcurrentTaskSequenceBadInput(t *testing.T) {
	id := func(_ context.Context, _ Context, k int) (int, error) { return k, nil }
	if _, err := NewConcurrentTaskSequence(NewCPU(1), id, 2, 0); !errors.Is(err, ErrInvalid) {
		t.Errorf("concurrency 0: %v, want ErrInvalid", err)
	}
	for _, d := range deviceContexts(t) {
		seq, err := NewConcurrentTaskSequence(d, id, 2, 8)
		if err != nil {
			t.Fatal(err)
		}
		if len(seq.owned) != 2 {
			t.Errorf("concurrency 8 over capacity 2 made %d lanes, want 2", len(seq.owned))
		}
		if err := seq.Release(context.Background()); err != nil {
			t.Fatal(err)
		}
		x, err := FromSlice(d, []int32{1, 2, 3})
		if err != nil {
			t.Fatal(err)
		}
		defer x.Release()
		f := newAffine(t)
		use := must[*TaskSequence[int, int]](t)(NewConcurrentTaskSequence(d, func(_ context.Context, lane Context, _ int) (int, error) {
			return 0, Transform(lane, f.With(1, 1), x, x)
		}, 2, 2))
		defer use.Release(context.Background())
		bg := context.Background()
		if err := use.Async(bg, 0); err != nil {
			t.Fatal(err)
		}
		if _, err := use.Get(bg); !errors.Is(err, ErrWrongContext) {
			t.Errorf("the Device's array on a lane: %v, want ErrWrongContext", err)
		}
	}
}

// TestDeviceFence: a Device's fence marks only where work it enqueued
// may still run: none after a read back, one after a launch, always on
// a queue others may use (UR was called).
func TestDeviceFence(t *testing.T) {
	f := newAffine(t)
	for _, d := range deviceContexts(t) {
		lane, err := d.newLane()
		if err != nil {
			t.Fatal(err)
		}
		defer lane.Release()
		x, err := FromSlice(lane, []int32{1, 2, 3})
		if err != nil {
			t.Fatal(err)
		}
		defer x.Release()
		fence := func(what string, want bool) {
			t.Helper()
			ev, err := lane.fence()
			if err != nil {
				t.Fatal(err)
			}
			if (ev != nil) != want {
				t.Errorf("%s: marker %v, want %v", what, ev != nil, want)
			}
			if ev != nil {
				if err := ev.Wait(context.Background()); err != nil {
					t.Fatal(err)
				}
				ev.Release()
			}
		}
		if err := Transform(lane, f.With(2, 1), x, x); err != nil {
			t.Fatal(err)
		}
		fence("after a Transform", true)
		if err := Transform(lane, f.With(2, 1), x, x); err != nil {
			t.Fatal(err)
		}
		got, err := x.ToSlice()
		if err != nil {
			t.Fatal(err)
		}
		if got[2] != 15 {
			t.Fatalf("x[2] = %d, want 15", got[2])
		}
		fence("after reading back", false)
		if err := lane.Wait(); err != nil {
			t.Fatal(err)
		}
		fence("after Wait", false)
		lane.UR()
		fence("after UR gave the queue away", true)
	}
}

// TestConcurrentTaskSequenceRelease: Release with several invocations
// running cancels each one's goctx, waits for all of them, drops what
// was never collected, releases the lanes, and leaves later calls
// ErrReleased.
func TestConcurrentTaskSequenceRelease(t *testing.T) {
	const n = 3
	for _, ctx := range contexts(t) {
		t.Run(ctx.String(), func(t *testing.T) {
			var started, returned atomic.Int32
			running := make(chan struct{}, n)
			step := func(goctx context.Context, _ Context, k int) (int, error) {
				started.Add(1)
				running <- struct{}{}
				<-goctx.Done()
				time.Sleep(10 * time.Millisecond) // Release must wait for this
				returned.Add(1)
				return k, goctx.Err()
			}
			seq, err := NewConcurrentTaskSequence(ctx, step, 2*n, n)
			if err != nil {
				t.Fatal(err)
			}
			bg := context.Background()
			for k := range 2 * n {
				if err := seq.Async(bg, k); err != nil {
					t.Fatal(err)
				}
			}
			for range n {
				<-running
			}
			owned := append([]*Device(nil), seq.owned...)
			if err := seq.Release(bg); err != nil {
				t.Fatal(err)
			}
			if s, r := started.Load(), returned.Load(); s != n || r != n {
				t.Errorf("Release returned with %d of %d started invocations returned (want %d running at once, the rest never run)", r, s, n)
			}
			if _, err := seq.Get(bg); !errors.Is(err, ErrReleased) {
				t.Errorf("Get after Release: %v, want ErrReleased", err)
			}
			if err := seq.Async(bg, 0); !errors.Is(err, ErrReleased) {
				t.Errorf("Async after Release: %v, want ErrReleased", err)
			}
			for _, d := range owned {
				if err := d.checkOpen(); !errors.Is(err, ErrReleased) {
					t.Errorf("a lane after Release: %v, want ErrReleased", err)
				}
			}
		})
	}
}
