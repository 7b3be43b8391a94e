package conformance

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/gour-dev/gour/ur"
)

// newFillEvent enqueues a fill of a fresh buffer on q and returns its
// event, released at cleanup.
func newFillEvent(t *testing.T, f *Fixture, q *ur.Queue) *ur.Event {
	t.Helper()
	m := f.Buffer(t, ur.MemReadWrite, 1<<16)
	ev, err := q.EnqueueFill(m, []byte{1, 2, 3, 4}, 0, 1<<16)
	must(t, "EnqueueFill", err)
	if ev == nil {
		t.Fatal("EnqueueFill returned no event")
	}
	return cleanup(t, ev)
}

func TestEventWait(t *testing.T) {
	forEachDevice(t, func(t *testing.T, f *Fixture) {
		ev := newFillEvent(t, f, f.Queue(t))
		must(t, "Wait(context.Background())", ev.Wait(context.Background()))
		if ev.Native() == 0 {
			t.Errorf("Native() = 0")
		}
	})
}

func TestEventWaitWithDeadline(t *testing.T) {
	forEachDevice(t, func(t *testing.T, f *Fixture) {
		ev := newFillEvent(t, f, f.Queue(t))
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		must(t, "Wait(context with a deadline)", ev.Wait(ctx))
		s, err := ev.Status()
		must(t, "Status", err)
		if s != ur.EventComplete {
			t.Errorf("Status() after Wait = %v, want complete", s)
		}
	})
}

func TestEventWaitCancelled(t *testing.T) {
	forEachDevice(t, func(t *testing.T, f *Fixture) {
		q := f.Queue(t)
		ev := newFillEvent(t, f, q)
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if err := ev.Wait(ctx); !errors.Is(err, context.Canceled) {
			t.Errorf("Wait(cancelled context) = %v, want context.Canceled", err)
		}
		// The command itself is unaffected.
		must(t, "Wait after the cancelled wait", ev.Wait(context.Background()))
	})
}

func TestEventStatusAfterWait(t *testing.T) {
	forEachDevice(t, func(t *testing.T, f *Fixture) {
		ev := newFillEvent(t, f, f.Queue(t))
		s, err := ev.Status()
		must(t, "Status before Wait", err)
		switch s {
		case ur.EventQueued, ur.EventSubmitted, ur.EventRunning, ur.EventComplete:
		default:
			t.Errorf("Status() before Wait = %d, not a known state", s)
		}
		must(t, "Wait", ev.Wait(t.Context()))
		s, err = ev.Status()
		must(t, "Status after Wait", err)
		if s != ur.EventComplete {
			t.Errorf("Status() after Wait = %v, want complete", s)
		}
	})
}

func TestEventProfiling(t *testing.T) {
	forEachDevice(t, func(t *testing.T, f *Fixture) {
		q := f.QueueIn(t, f.Context(t), ur.QueueProperties{Profiling: true})
		k := f.Kernel(t, "add_one")
		const n = 1 << 16
		must(t, "SetArgMem", k.SetArgMem(0, f.Buffer(t, ur.MemReadWrite, 4*n)))
		events := map[string]*ur.Event{"fill": newFillEvent(t, f, q)}
		kev, err := q.EnqueueLaunch(k, ur.Range1D(n), ur.LaunchOptions{})
		must(t, "EnqueueLaunch", err)
		events["kernel"] = cleanup(t, kev)
		for name, ev := range events {
			must(t, "Wait("+name+")", ev.Wait(t.Context()))
			p, err := ev.Profiling()
			must(t, "Profiling("+name+")", err)
			if !(p.Queued <= p.Submit && p.Submit <= p.Start && p.Start <= p.End) {
				t.Errorf("%s: timestamps out of order: queued %d, submit %d, start %d, end %d", name, p.Queued, p.Submit, p.Start, p.End)
			}
			if p.End == 0 {
				t.Errorf("%s: end timestamp is 0", name)
			}
		}
		// In order: the kernel starts after the fill ends.
		pf, _ := events["fill"].Profiling()
		pk, _ := events["kernel"].Profiling()
		if pk.Start < pf.End {
			t.Errorf("kernel started at %d, before the fill before it ended at %d", pk.Start, pf.End)
		}
	})
}

func TestEventProfilingNotAvailable(t *testing.T) {
	forEachDevice(t, func(t *testing.T, f *Fixture) {
		ev := newFillEvent(t, f, f.Queue(t))
		must(t, "Wait", ev.Wait(t.Context()))
		_, err := ev.Profiling()
		wantErr(t, "Profiling on a queue without profiling", err, ur.ErrProfilingInfoNotAvailable)
	})
}

func TestEventWaitAll(t *testing.T) {
	forEachDevice(t, func(t *testing.T, f *Fixture) {
		q := f.Queue(t)
		var events []*ur.Event
		for range 5 {
			events = append(events, newFillEvent(t, f, q))
		}
		must(t, "WaitAll", ur.WaitAll(t.Context(), events...))
		for i, ev := range events {
			if s, err := ev.Status(); err != nil || s != ur.EventComplete {
				t.Errorf("event %d after WaitAll: status %v, %v; want complete", i, s, err)
			}
		}
		must(t, "WaitAll of nothing", ur.WaitAll(t.Context()))
	})
}

func TestEventWaitAllCancelled(t *testing.T) {
	forEachDevice(t, func(t *testing.T, f *Fixture) {
		ev := newFillEvent(t, f, f.Queue(t))
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if err := ur.WaitAll(ctx, ev); !errors.Is(err, context.Canceled) {
			t.Errorf("WaitAll(cancelled context) = %v, want context.Canceled", err)
		}
	})
}

func TestEventReleaseTwice(t *testing.T) {
	forEachDevice(t, func(t *testing.T, f *Fixture) {
		m := f.Buffer(t, ur.MemReadWrite, 64)
		ev, err := f.Queue(t).EnqueueFill(m, []byte{0}, 0, 64)
		must(t, "EnqueueFill", err)
		must(t, "Release", ev.Release())
		wantErr(t, "second Release", ev.Release(), ur.ErrInvalidEvent)
	})
}

func TestEventUseAfterRelease(t *testing.T) {
	forEachDevice(t, func(t *testing.T, f *Fixture) {
		m := f.Buffer(t, ur.MemReadWrite, 64)
		ev, err := f.Queue(t).EnqueueFill(m, []byte{0}, 0, 64)
		must(t, "EnqueueFill", err)
		must(t, "Release", ev.Release())
		wantErr(t, "Wait on a released event", ev.Wait(context.Background()), ur.ErrInvalidEvent)
		wantErr(t, "Wait(ctx with deadline) on a released event", ev.Wait(t.Context()), ur.ErrInvalidEvent)
		_, err = ev.Status()
		wantErr(t, "Status of a released event", err, ur.ErrInvalidEvent)
		_, err = ev.Profiling()
		wantErr(t, "Profiling of a released event", err, ur.ErrInvalidEvent)
	})
}

func TestEventNilHandle(t *testing.T) {
	forEachDevice(t, func(t *testing.T, f *Fixture) {
		var ev *ur.Event
		wantErr(t, "nil Event.Wait", ev.Wait(context.Background()), ur.ErrInvalidNullHandle)
		wantErr(t, "nil Event.Release", ev.Release(), ur.ErrInvalidNullHandle)
		wantErr(t, "WaitAll(nil)", ur.WaitAll(context.Background(), nil), ur.ErrInvalidNullHandle)
	})
}

// An event stays usable after its queue is released.
func TestEventOutlivesQueue(t *testing.T) {
	forEachDevice(t, func(t *testing.T, f *Fixture) {
		q, err := f.Context(t).NewQueue(f.Device, ur.QueueProperties{})
		must(t, "NewQueue", err)
		ev := newFillEvent(t, f, q)
		must(t, "Queue.Release", q.Release())
		must(t, "Wait after Queue.Release", ev.Wait(t.Context()))
		if s, err := ev.Status(); err != nil || s != ur.EventComplete {
			t.Errorf("Status after Queue.Release: %v, %v; want complete", s, err)
		}
	})
}

// In an in-order queue, once the last command is complete so are the
// others.
func TestEventInOrderCompletion(t *testing.T) {
	forEachDevice(t, func(t *testing.T, f *Fixture) {
		q := f.Queue(t)
		var events []*ur.Event
		for range 10 {
			events = append(events, newFillEvent(t, f, q))
		}
		must(t, "Wait(last)", events[len(events)-1].Wait(t.Context()))
		for i, ev := range events {
			if s, err := ev.Status(); err != nil || s != ur.EventComplete {
				t.Errorf("event %d after the last completed: %v, %v; want complete", i, s, err)
			}
		}
	})
}

// Non-blocking launches without events, finished with Queue.Finish.
func TestEventLaunchWithoutEvent(t *testing.T) {
	forEachDevice(t, func(t *testing.T, f *Fixture) {
		q := f.Queue(t)
		k := f.Kernel(t, "fill_u32")
		m := f.Buffer(t, ur.MemReadWrite, 4*256)
		must(t, "SetArgMem", k.SetArgMem(0, m))
		must(t, "SetArgUint32", k.SetArgUint32(1, 0xC0FFEE))
		must(t, "Launch", q.Launch(k, ur.Range1D(256)))
		must(t, "Finish", q.Finish())
		checkUint32s(t, "fill_u32", readUint32s(t, q, m, 256), func(int) uint32 { return 0xC0FFEE })
	})
}
