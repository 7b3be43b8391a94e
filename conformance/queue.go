package conformance

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/gour-dev/gour/ur"
)

func TestQueueCreate(t *testing.T) {
	forEachDevice(t, func(t *testing.T, f *Fixture) {
		ctx := f.Context(t)
		q := f.QueueIn(t, ctx, ur.QueueProperties{})
		if q.Device() != f.Device {
			t.Errorf("Device() = %v, want %v", q.Device(), f.Device)
		}
		if q.Context() != ctx {
			t.Errorf("Context() is not the context the queue was made in")
		}
		if q.Native() == 0 {
			t.Errorf("Native() = 0")
		}
		must(t, "Finish on an empty queue", q.Finish())
	})
}

func TestQueueWithProfiling(t *testing.T) {
	forEachDevice(t, func(t *testing.T, f *Fixture) {
		q := f.QueueIn(t, f.Context(t), ur.QueueProperties{Profiling: true})
		m := f.Buffer(t, ur.MemReadWrite, 64)
		ev, err := q.EnqueueFill(m, []byte{1, 2, 3, 4}, 0, 64)
		must(t, "EnqueueFill", err)
		cleanup(t, ev)
		must(t, "Wait", ev.Wait(t.Context()))
		if _, err := ev.Profiling(); err != nil {
			t.Errorf("Profiling on a profiling queue: %v", err)
		}
	})
}

func TestQueueDeviceNotInContext(t *testing.T) {
	forEachDevice(t, func(t *testing.T, f *Fixture) {
		// Look for any other device: of this platform, or of any other.
		var other *ur.Device
		for _, a := range system(t).Adapters {
			for _, p := range a.Platforms() {
				for _, d := range p.Devices() {
					if d != f.Device && (d.Backend() != f.Backend || d.Index() != f.Device.Index()) {
						other = d
					}
				}
			}
		}
		if other == nil {
			t.Skip("only one device present: no device outside the context to try")
		}
		_, err := f.Context(t).NewQueue(other, ur.QueueProperties{})
		wantErr(t, "NewQueue(device not in context)", err, ur.ErrInvalidDevice)
	})
}

func TestQueueNilDevice(t *testing.T) {
	forEachDevice(t, func(t *testing.T, f *Fixture) {
		_, err := f.Context(t).NewQueue(nil, ur.QueueProperties{})
		wantErr(t, "NewQueue(nil)", err, ur.ErrInvalidNullHandle)
	})
}

func TestQueueFinishFlush(t *testing.T) {
	forEachDevice(t, func(t *testing.T, f *Fixture) {
		q := f.Queue(t)
		m := f.Buffer(t, ur.MemReadWrite, 4096)
		for i := range 8 {
			ev, err := q.EnqueueFill(m, []byte{byte(i)}, 0, 4096)
			must(t, "EnqueueFill", err)
			cleanup(t, ev)
		}
		must(t, "Flush", q.Flush())
		must(t, "Finish", q.Finish())
		got := make([]byte, 4096)
		must(t, "ReadBuffer", q.ReadBuffer(m, 0, got))
		for i, b := range got {
			if b != 7 {
				t.Fatalf("byte %d = %d after Finish, want 7 (the last fill)", i, b)
			}
		}
		must(t, "Flush on an idle queue", q.Flush())
		must(t, "Finish on an idle queue", q.Finish())
	})
}

func TestQueueUseAfterRelease(t *testing.T) {
	forEachDevice(t, func(t *testing.T, f *Fixture) {
		q, err := f.Context(t).NewQueue(f.Device, ur.QueueProperties{})
		must(t, "NewQueue", err)
		m := f.Buffer(t, ur.MemReadWrite, 64)
		must(t, "Release", q.Release())
		wantErr(t, "Finish", q.Finish(), ur.ErrInvalidQueue)
		wantErr(t, "Flush", q.Flush(), ur.ErrInvalidQueue)
		wantErr(t, "WriteBuffer", q.WriteBuffer(m, 0, make([]byte, 64)), ur.ErrInvalidQueue)
		_, err = q.EnqueueFill(m, []byte{0}, 0, 64)
		wantErr(t, "EnqueueFill", err, ur.ErrInvalidQueue)
		wantErr(t, "second Release", q.Release(), ur.ErrInvalidQueue)
	})
}

func TestQueueNilHandle(t *testing.T) {
	forEachDevice(t, func(t *testing.T, f *Fixture) {
		var q *ur.Queue
		wantErr(t, "nil Queue.Finish", q.Finish(), ur.ErrInvalidNullHandle)
		wantErr(t, "nil Queue.Release", q.Release(), ur.ErrInvalidNullHandle)
	})
}

func TestQueueSeveralOnOneDevice(t *testing.T) {
	forEachDevice(t, func(t *testing.T, f *Fixture) {
		q1, q2 := f.Queue(t), f.Queue(t)
		m := f.Buffer(t, ur.MemReadWrite, 1024)
		must(t, "WriteBuffer on queue 1", q1.WriteBuffer(m, 0, pattern(1024, 5)))
		must(t, "Finish queue 1", q1.Finish())
		got := make([]byte, 1024)
		must(t, "ReadBuffer on queue 2", q2.ReadBuffer(m, 0, got))
		if string(got) != string(pattern(1024, 5)) {
			t.Errorf("data written on one queue reads back differently on another")
		}
	})
}

func TestQueueInOrder(t *testing.T) {
	forEachDevice(t, func(t *testing.T, f *Fixture) {
		q := f.Queue(t)
		const n = 1 << 16
		a, b := f.Buffer(t, ur.MemReadWrite, n), f.Buffer(t, ur.MemReadWrite, n)
		// fill a, copy a→b, fill a again, copy b→a: an in-order queue ends
		// with a holding the first fill.
		for _, step := range []func() (*ur.Event, error){
			func() (*ur.Event, error) { return q.EnqueueFill(a, []byte{0x11}, 0, n) },
			func() (*ur.Event, error) { return q.EnqueueCopy(a, b, 0, 0, n) },
			func() (*ur.Event, error) { return q.EnqueueFill(a, []byte{0x22}, 0, n) },
			func() (*ur.Event, error) { return q.EnqueueCopy(b, a, 0, 0, n) },
		} {
			ev, err := step()
			must(t, "enqueue", err)
			cleanup(t, ev)
		}
		got := make([]byte, n)
		must(t, "ReadBuffer", q.ReadBuffer(a, 0, got))
		for i, v := range got {
			if v != 0x11 {
				t.Fatalf("byte %d = %#x, want 0x11: commands ran out of order", i, v)
			}
		}
	})
}

// A Release racing calls on the same queue never crashes: each call either
// works or fails with ErrInvalidQueue.
func TestQueueReleaseRacesCalls(t *testing.T) {
	forEachDevice(t, func(t *testing.T, f *Fixture) {
		q, err := f.Context(t).NewQueue(f.Device, ur.QueueProperties{})
		must(t, "NewQueue", err)
		const workers = 4
		bufs := make([]*ur.Mem, workers)
		for i := range bufs {
			bufs[i] = f.Buffer(t, ur.MemReadWrite, 1<<12)
		}
		start := make(chan struct{})
		var wg sync.WaitGroup
		errs := make(chan error, workers)
		for w := range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				for i := 0; ; i++ {
					ev, err := q.EnqueueFill(bufs[w], []byte{byte(i)}, 0, 1<<12)
					if err != nil {
						if !errors.Is(err, ur.ErrInvalidQueue) {
							errs <- fmt.Errorf("worker %d, call %d: %w", w, i, err)
						}
						return
					}
					if err := ev.Wait(context.Background()); err != nil {
						errs <- fmt.Errorf("worker %d: Wait: %w", w, err)
					}
					ev.Release()
				}
			}()
		}
		close(start)
		time.Sleep(20 * time.Millisecond)
		must(t, "Release while in use", q.Release())
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Error(err)
		}
		wantErr(t, "Finish after Release", q.Finish(), ur.ErrInvalidQueue)
	})
}
