package compute

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// affineSources is out = in0 * p0 + p1 over int32: applied in sequence,
// the result tells the order of the applications.
var affineSources = map[string]string{
	"opencl": `__kernel void affine(__global int* out, __global const int* in0, int p0, int p1, ulong n) {
	size_t i = get_global_id(0);
	if (i < n) out[i] = in0[i] * p0 + p1;
}`,
	"cuda": `extern "C" __global__ void affine(int* out, const int* in0, int p0, int p1, unsigned long long n) {
	unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) out[i] = in0[i] * p0 + p1;
}`,
}

func newAffine(t testing.TB) *SourceFunc[int32] {
	f, err := NewFunc("affine", 1, func(out []int32, ins [][]int32, p []int32, lo, hi int) {
		for i := lo; i < hi; i++ {
			out[i] = ins[0][i]*p[0] + p[1]
		}
	}, affineSources)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// TestTaskSequenceOrder runs a = 3a + k for k = 0..N-1 as N invocations
// with capacity 4, collecting as it goes: the final value and each
// invocation's result (a sum over the array) tell the order on the host
// and on the device.
func TestTaskSequenceOrder(t *testing.T) {
	affine := newAffine(t)
	for _, ctx := range contexts(t) {
		t.Run(ctx.String(), func(t *testing.T) {
			const n, N = 1000, 20
			a := must[*Array[int32]](t)(Zeros[int32](ctx, n))
			defer a.Release()
			var ran []int
			seq, err := NewTaskSequence(ctx, func(_ context.Context, c Context, k int) (int32, error) {
				ran = append(ran, k) // one worker: no lock needed
				if err := ForEach(c, affine.With(3, int32(k)), a); err != nil {
					return 0, err
				}
				return Reduce(c, a, Sum[int32]())
			}, 4)
			if err := err; err != nil {
				t.Fatal(err)
			}
			defer seq.Release(context.Background())
			bg := context.Background()
			var want int32
			got := 0
			for k := range N {
				if seq.Outstanding() == seq.Capacity() {
					r := must[int32](t)(seq.Get(bg))
					got++
					_ = r
				}
				if err := seq.Async(bg, k); err != nil {
					t.Fatal(err)
				}
			}
			var results []int32
			for seq.Outstanding() > 0 {
				results = append(results, must[int32](t)(seq.Get(bg)))
			}
			for k := range N {
				want = 3*want + int32(k)
			}
			if len(results) == 0 || results[len(results)-1] != want*n {
				t.Errorf("last result %v, want %d", results, want*n)
			}
			vals := must[[]int32](t)(a.ToSlice())
			if vals[0] != want || vals[n-1] != want {
				t.Errorf("a = %d ... %d, want %d", vals[0], vals[n-1], want)
			}
			for i, k := range ran {
				if i != k {
					t.Fatalf("invocations ran in order %v", ran)
				}
			}
			if got+len(results) != N {
				t.Errorf("%d results for %d invocations", got+len(results), N)
			}
		})
	}
}

func TestTaskSequenceResultsInStartOrder(t *testing.T) {
	ctx := NewCPU(2)
	seq := must[*TaskSequence[int, string]](t)(NewTaskSequence(ctx, func(_ context.Context, _ Context, k int) (string, error) {
		return fmt.Sprint(k), nil
	}, 8))
	defer seq.Release(context.Background())
	bg := context.Background()
	for k := range 8 {
		if err := seq.Async(bg, k); err != nil {
			t.Fatal(err)
		}
	}
	for k := range 8 {
		if got := must[string](t)(seq.Get(bg)); got != fmt.Sprint(k) {
			t.Fatalf("Get %d = %q", k, got)
		}
	}
	if _, err := seq.Get(bg); !errors.Is(err, ErrInvalid) {
		t.Errorf("Get with nothing outstanding: %v", err)
	}
}

func TestTaskSequenceCapacity(t *testing.T) {
	gate := make(chan struct{})
	seq := must[*TaskSequence[int, int]](t)(NewTaskSequence(NewCPU(1), func(_ context.Context, _ Context, k int) (int, error) {
		<-gate
		return k, nil
	}, 3))
	defer seq.Release(context.Background())
	bg := context.Background()
	for k := range 3 {
		if err := seq.Async(bg, k); err != nil {
			t.Fatal(err)
		}
	}
	if seq.Outstanding() != 3 {
		t.Errorf("Outstanding = %d", seq.Outstanding())
	}
	short, cancel := context.WithTimeout(bg, 20*time.Millisecond)
	defer cancel()
	if err := seq.Async(short, 3); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Async past capacity: %v, want DeadlineExceeded", err)
	}
	// A Get giving up keeps its invocation for the next Get.
	short2, cancel2 := context.WithTimeout(bg, 20*time.Millisecond)
	defer cancel2()
	if _, err := seq.Get(short2); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Get of a blocked invocation: %v", err)
	}
	// Async waits for a Get to free a slot.
	started := make(chan error)
	go func() { started <- seq.Async(bg, 3) }()
	select {
	case err := <-started:
		t.Fatalf("Async past capacity returned %v without waiting", err)
	case <-time.After(20 * time.Millisecond):
	}
	close(gate)
	if got := must[int](t)(seq.Get(bg)); got != 0 {
		t.Errorf("first Get = %d", got)
	}
	if err := <-started; err != nil {
		t.Fatal(err)
	}
	for k := 1; k < 4; k++ {
		if got := must[int](t)(seq.Get(bg)); got != k {
			t.Errorf("Get = %d, want %d", got, k)
		}
	}
}

func TestTaskSequenceErrors(t *testing.T) {
	for _, ctx := range contexts(t) {
		t.Run(ctx.String(), func(t *testing.T) {
			a := must[*Array[float32]](t)(Zeros[float32](ctx, 10))
			b := must[*Array[float32]](t)(Zeros[float32](ctx, 11))
			defer a.Release()
			defer b.Release()
			boom := errors.New("boom")
			seq := must[*TaskSequence[int, int]](t)(NewTaskSequence(ctx, func(_ context.Context, c Context, k int) (int, error) {
				switch k % 4 {
				case 1:
					return 0, boom
				case 2:
					return 0, Copy(c, a, b) // shape mismatch
				case 3:
					panic("task bug")
				}
				return k, Fill(c, a, float32(k))
			}, 2))
			defer seq.Release(context.Background())
			bg := context.Background()
			for k := range 8 {
				if seq.Outstanding() == seq.Capacity() {
					checkTaskResult(t, seq, k-2, boom)
				}
				if err := seq.Async(bg, k); err != nil {
					t.Fatal(err)
				}
			}
			checkTaskResult(t, seq, 6, boom)
			checkTaskResult(t, seq, 7, boom)
		})
	}
}

func checkTaskResult(t *testing.T, seq *TaskSequence[int, int], k int, boom error) {
	t.Helper()
	got, err := seq.Get(context.Background())
	switch k % 4 {
	case 0:
		if err != nil || got != k {
			t.Errorf("invocation %d: %d, %v", k, got, err)
		}
	case 1:
		if !errors.Is(err, boom) {
			t.Errorf("invocation %d: %v, want boom", k, err)
		}
	case 2:
		if !errors.Is(err, ErrShape) {
			t.Errorf("invocation %d: %v, want ErrShape", k, err)
		}
	case 3:
		if err == nil {
			t.Errorf("invocation %d panicked, yet no error", k)
		}
	}
}

func TestTaskSequenceReleaseOutstanding(t *testing.T) {
	for _, ctx := range contexts(t) {
		t.Run(ctx.String(), func(t *testing.T) {
			a := must[*Array[float32]](t)(Zeros[float32](ctx, 1000))
			defer a.Release()
			var ran atomic.Int32
			running := make(chan struct{}, 1)
			seq := must[*TaskSequence[int, int]](t)(NewTaskSequence(ctx, func(goctx context.Context, c Context, k int) (int, error) {
				ran.Add(1)
				if err := Fill(c, a, float32(k)); err != nil {
					return 0, err
				}
				running <- struct{}{}
				<-goctx.Done() // runs until the sequence is released
				return k, goctx.Err()
			}, 4))
			bg := context.Background()
			for k := range 4 {
				if err := seq.Async(bg, k); err != nil {
					t.Fatal(err)
				}
			}
			<-running
			getErr := make(chan error)
			go func() { _, err := seq.Get(bg); getErr <- err }()
			if err := seq.Release(bg); err != nil {
				t.Fatal(err)
			}
			if n := ran.Load(); n != 1 {
				t.Errorf("%d invocations ran; Release should cancel the 3 not started", n)
			}
			if err := <-getErr; err == nil {
				t.Error("a Get racing Release got no error")
			}
			if err := seq.Async(bg, 9); !errors.Is(err, ErrReleased) {
				t.Errorf("Async after Release: %v", err)
			}
			if _, err := seq.Get(bg); !errors.Is(err, ErrReleased) {
				t.Errorf("Get after Release: %v", err)
			}
			if err := seq.Release(bg); err != nil {
				t.Errorf("second Release: %v", err)
			}
			// The context still works.
			if err := Fill(ctx, a, 2); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestManyTaskSequences runs 16 sequences at once on each context, each
// with its own arrays and a producer and a consumer goroutine.
func TestManyTaskSequences(t *testing.T) {
	affine := newAffine(t)
	for _, ctx := range contexts(t) {
		t.Run(ctx.String(), func(t *testing.T) {
			const seqs, N, n = 16, 25, 777
			var wg sync.WaitGroup
			errs := make(chan error, 2*seqs)
			for s := range seqs {
				a, err := Zeros[int32](ctx, n)
				if err != nil {
					t.Fatal(err)
				}
				defer a.Release()
				seq, err := NewTaskSequence(ctx, func(_ context.Context, c Context, k int32) (int32, error) {
					if err := ForEach(c, affine.With(1, k), a); err != nil {
						return 0, err
					}
					return Reduce(c, a, Max[int32]())
				}, 1+s%4)
				if err != nil {
					t.Fatal(err)
				}
				defer seq.Release(context.Background())
				wg.Add(2)
				go func() {
					defer wg.Done()
					for k := range int32(N) {
						if err := seq.Async(context.Background(), k+int32(s)); err != nil {
							errs <- err
							return
						}
					}
				}()
				go func() {
					defer wg.Done()
					var want int32
					for k := range int32(N) {
						want += k + int32(s)
						var got int32
						var err error
						for {
							got, err = seq.Get(context.Background())
							if !errors.Is(err, ErrInvalid) { // not yet started
								break
							}
							time.Sleep(100 * time.Microsecond)
						}
						if err != nil || got != want {
							errs <- fmt.Errorf("sequence %d invocation %d: %d, %v; want %d", s, k, got, err, want)
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
		})
	}
}

// Release called by the running invocation's function cancels the
// sequence without waiting for itself.
func TestTaskSequenceReleaseFromTask(t *testing.T) {
	for _, ctx := range contexts(t) {
		t.Run(ctx.String(), func(t *testing.T) {
			var (
				seq     *TaskSequence[int, int]
				ran     atomic.Int32
				inside  = make(chan error, 1)
				issued  = make(chan struct{}) // the three Asyncs are in: Release must not refuse one
				timeout = time.After(10 * time.Second)
			)
			seq = must[*TaskSequence[int, int]](t)(NewTaskSequence(ctx, func(goctx context.Context, _ Context, k int) (int, error) {
				ran.Add(1)
				if k == 1 {
					<-issued
					err := seq.Release(goctx)
					if err == nil && goctx.Err() == nil {
						err = errors.New("goctx not cancelled by Release")
					}
					if err == nil && !errors.Is(seq.Async(context.Background(), 5), ErrReleased) {
						err = errors.New("Async after Release gave no ErrReleased")
					}
					inside <- err
				}
				return k, nil
			}, 4))
			bg := context.Background()
			for k := range 3 {
				if err := seq.Async(bg, k); err != nil {
					t.Fatal(err)
				}
			}
			close(issued)
			select {
			case err := <-inside:
				if err != nil {
					t.Fatal(err)
				}
			case <-timeout:
				t.Fatal("Release called by an invocation did not return")
			}
			// A Release on another goroutine waits for the worker to finish.
			outside := make(chan error, 1)
			go func() { outside <- seq.Release(bg) }()
			select {
			case err := <-outside:
				if err != nil {
					t.Fatal(err)
				}
			case <-timeout:
				t.Fatal("Release after a Release by an invocation did not return")
			}
			select {
			case <-seq.done:
			default:
				t.Error("Release returned before the sequence's goroutine")
			}
			if n := ran.Load(); n != 2 {
				t.Errorf("%d invocations ran, want 2 (the one after the releasing one is cancelled)", n)
			}
			if _, err := seq.Get(bg); !errors.Is(err, ErrReleased) {
				t.Errorf("Get after Release: %v", err)
			}
		})
	}
}

// The mark on an invocation's goctx is its own sequence's: released by
// an invocation of another sequence, a sequence waits for its running
// invocation; released by its own invocation, with a context made from
// the invocation's goctx, it does not wait for it.
func TestTaskSequenceReleaseMarker(t *testing.T) {
	ctx, bg := NewCPU(1), context.Background()
	running := make(chan struct{})
	other := must[*TaskSequence[int, int]](t)(NewTaskSequence(ctx, func(goctx context.Context, _ Context, _ int) (int, error) {
		close(running)
		<-goctx.Done()
		time.Sleep(50 * time.Millisecond) // a Release not waiting returns meanwhile
		return 0, nil
	}, 1))
	if err := other.Async(bg, 0); err != nil {
		t.Fatal(err)
	}
	<-running
	var seq *TaskSequence[int, int]
	inside := make(chan error, 1)
	seq = must[*TaskSequence[int, int]](t)(NewTaskSequence(ctx, func(goctx context.Context, _ Context, _ int) (int, error) {
		err := other.Release(goctx)
		select {
		case <-other.done:
		default:
			err = errors.New("Release of another sequence returned before its invocation")
		}
		own, cancel := context.WithTimeout(goctx, time.Minute)
		defer cancel()
		if err == nil {
			err = seq.Release(own)
		}
		inside <- err
		return 0, nil
	}, 1))
	if err := seq.Async(bg, 0); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-inside:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("an invocation releasing its own sequence waited for itself")
	}
	if err := seq.Release(bg); err != nil {
		t.Fatal(err)
	}
}

// Release gives up waiting when its context ends, leaving the sequence
// released; it finishes when its invocation returns.
func TestTaskSequenceReleaseGivesUp(t *testing.T) {
	gate, running := make(chan struct{}), make(chan struct{})
	seq := must[*TaskSequence[int, int]](t)(NewTaskSequence(NewCPU(1), func(context.Context, Context, int) (int, error) {
		close(running)
		<-gate // deaf to the cancellation
		return 0, nil
	}, 2))
	bg := context.Background()
	for k := range 2 {
		if err := seq.Async(bg, k); err != nil {
			t.Fatal(err)
		}
	}
	<-running
	short, cancel := context.WithTimeout(bg, 20*time.Millisecond)
	defer cancel()
	if err := seq.Release(short); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Release of a sequence whose invocation does not return: %v, want DeadlineExceeded", err)
	}
	if err := seq.Async(bg, 2); !errors.Is(err, ErrReleased) {
		t.Errorf("Async after a Release that gave up: %v, want ErrReleased", err)
	}
	close(gate)
	if err := seq.Release(bg); err != nil {
		t.Fatal(err)
	}
	if _, err := seq.Get(bg); !errors.Is(err, ErrReleased) {
		t.Errorf("Get after Release: %v, want ErrReleased", err)
	}
}

// A Get that took its invocation's return and then gave up waiting for
// the invocation's device work leaves the invocation to the next Get,
// which returns it without waiting again for the return it took.
func TestTaskSequenceGetGivesUpOnDeviceWork(t *testing.T) {
	f := newAffine(t)
	bg := context.Background()
	for _, d := range deviceContexts(t) {
		const n, passes = 1 << 24, 64 // 8 GiB moved: longer than a Get's 100 µs on any device
		x := must[*Array[int32]](t)(Zeros[int32](d, n))
		defer x.Release()
		seq := must[*TaskSequence[int, int]](t)(NewTaskSequence(d, func(_ context.Context, ctx Context, k int) (int, error) {
			for range passes {
				if err := Transform(ctx, f.With(1, 1), x, x); err != nil {
					return 0, err
				}
			}
			return k, nil // no read-back: the worker records a marker
		}, 2))
		defer seq.Release(bg)
		if err := seq.Async(bg, 7); err != nil {
			t.Fatal(err)
		}
		// Take the invocation as Get does and wait for its return, so
		// that the next Get finds the token and then waits on the marker.
		seq.getMu.Lock()
		tk := <-seq.results
		seq.head = tk
		seq.getMu.Unlock()
		for len(tk.done) == 0 {
			time.Sleep(100 * time.Microsecond)
		}
		short, cancel := context.WithTimeout(bg, 100*time.Microsecond)
		got, err := seq.Get(short)
		cancel()
		switch {
		case errors.Is(err, context.DeadlineExceeded):
			if !tk.returned || seq.head != tk {
				t.Fatalf("%s: a Get that gave up on the marker left returned %v, head kept %v", devName(d), tk.returned, seq.head == tk)
			}
			long, cancel := context.WithTimeout(bg, 30*time.Second)
			got, err = seq.Get(long)
			cancel()
			if err != nil || got != 7 {
				t.Fatalf("%s: the Get after one that gave up: %d, %v; want 7", devName(d), got, err)
			}
		case err != nil || got != 7:
			t.Fatalf("%s: Get: %d, %v; want 7", devName(d), got, err)
		default:
			t.Logf("%s: the device finished %d passes before a 100 µs Get gave up", devName(d), passes)
		}
		xs := must[[]int32](t)(x.ToSlice())
		if xs[0] != passes || xs[n-1] != passes {
			t.Errorf("%s: x = %d … %d after the invocation, want %d", devName(d), xs[0], xs[n-1], passes)
		}
	}
}
