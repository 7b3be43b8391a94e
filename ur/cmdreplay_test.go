package ur

import (
	"errors"
	"testing"

	"github.com/gour-dev/gour/ur/driver"
)

// flakyPrepQueue's prepared launches fail while fail is set, as a stale
// one does.
type flakyPrepQueue struct {
	prepQueue
	fail bool
}

func (q *flakyPrepQueue) PrepareArgLaunch(k driver.Kernel, r driver.NDRange, args []driver.LaunchArg, props driver.LaunchProperties) (driver.PreparedArgLaunch, error) {
	p, err := q.prepQueue.PrepareArgLaunch(k, r, args, props)
	if err != nil {
		return nil, err
	}
	return &flakyPrepared{p.(*preparedFake), q}, nil
}

type flakyPrepared struct {
	*preparedFake
	q *flakyPrepQueue
}

func (p *flakyPrepared) Launch() driver.LaunchStatus {
	if p.q.fail {
		return driver.LaunchStale
	}
	return p.preparedFake.Launch()
}

// An emulated command buffer's launches are prepared once per queue with
// the arguments recorded and replayed through the prepared launch, with
// no allocation; an update prepares that launch again; a launch whose
// prepared form fails goes through the adapter's launch with arguments;
// an adapter that prepares nothing is served by that launch.
func TestCommandBufferEmulatedReplay(t *testing.T) {
	const n = 100
	for _, prepared := range []bool{true, false} {
		k, _, q, aq, m := argSetup(t)
		var fq *flakyPrepQueue
		if prepared {
			fq = &flakyPrepQueue{}
			q.drv, aq = fq, &fq.argQueue
		}
		cb, err := q.ctx.NewCommandBuffer(q.device, CommandBufferOptions{Updatable: true})
		if err != nil {
			t.Fatal(err)
		}
		if !cb.Emulated() {
			t.Fatal("a context without command buffers gave a native one")
		}
		var first *Command
		for i := range n {
			c, err := cb.AppendLaunch(k, Range1D(64), LaunchProperties{}, ArgBuffer(m), ArgOf(uint32(i+1)))
			if err != nil {
				t.Fatal(err)
			}
			if i == 0 {
				first = c
			}
		}
		if err := cb.Finalize(); err != nil {
			t.Fatal(err)
		}
		replay := func() {
			t.Helper()
			ev, err := q.EnqueueCommandBuffer(cb)
			if err != nil {
				t.Fatal(err)
			}
			if ev != nil {
				ev.Release()
			}
		}
		want := func(what string, launches int64, sum uint64) {
			t.Helper()
			if gl, gs := aq.launches.Load(), aq.sum.Load(); gl != launches || gs != sum {
				t.Errorf("prepared %v, %s: %d launches summing %d, want %d summing %d", prepared, what, gl, gs, launches, sum)
			}
			aq.launches.Store(0)
			aq.sum.Store(0)
		}
		replay()
		want("the first replay", n, n*(n+1)/2)
		allocs := testing.AllocsPerRun(10, replay)
		if allocs > 1 && !raceEnabled {
			t.Errorf("prepared %v: a replay of %d launches allocates %v times, want at most 1", prepared, n, allocs)
		}
		want("11 replays", 11*n, 11*n*(n+1)/2)
		if prepared && fq.prepared != n {
			t.Errorf("the adapter prepared %d launches for 12 replays, want %d", fq.prepared, n)
		}
		if err := cb.UpdateLaunch(first, nil, ArgBuffer(m), ArgOf(uint32(1001))); err != nil {
			t.Fatal(err)
		}
		replay()
		want("after an update", n, n*(n+1)/2+1000)
		if prepared && fq.prepared != n+1 {
			t.Errorf("the adapter prepared %d launches after an update, want %d", fq.prepared, n+1)
		}
		if prepared {
			fq.fail = true
			replay()
			want("prepared launches failing", n, n*(n+1)/2+1000)
			fq.fail = false
			replay()
			want("prepared again", n, n*(n+1)/2+1000)
		}
		// The buffer's release leaves the adapter's launches alone; a
		// replay after it is refused.
		if err := cb.Release(); err != nil {
			t.Fatal(err)
		}
		if _, err := q.EnqueueCommandBuffer(cb); !errors.Is(err, ErrInvalidValue) {
			t.Errorf("a replay after Release: %v, want ErrInvalidValue", err)
		}
	}
}

// CommandBufferNative where the driver has none is ErrUnsupportedFeature;
// an unknown mode ErrInvalidValue.
func TestCommandBufferModes(t *testing.T) {
	_, _, q, _, _ := argSetup(t)
	if _, err := q.ctx.NewCommandBuffer(q.device, CommandBufferOptions{Mode: CommandBufferNative}); !errors.Is(err, ErrUnsupportedFeature) {
		t.Errorf("CommandBufferNative without driver command buffers: %v, want ErrUnsupportedFeature", err)
	}
	if _, err := q.ctx.NewCommandBuffer(q.device, CommandBufferOptions{Mode: 9}); !errors.Is(err, ErrInvalidValue) {
		t.Errorf("mode 9: %v, want ErrInvalidValue", err)
	}
	cb, err := q.ctx.NewCommandBuffer(q.device, CommandBufferOptions{Mode: CommandBufferEmulated})
	if err != nil {
		t.Fatal(err)
	}
	defer cb.Release()
	if !cb.Emulated() {
		t.Error("CommandBufferEmulated is not emulated")
	}
}
