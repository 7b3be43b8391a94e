package opencl_test

import (
	"fmt"
	"sync"
	"testing"

	"github.com/gour-dev/gour/ur"
)

// TestOneKernelFromManyQueues launches one kernel from eight queues at
// once over grids of many widths, through every launch door (plain, with
// arguments, prepared, a replayed command buffer). PoCL before 6.0
// aborted such a process (its kernel module counts; poclguard.go); every
// result must be right.
func TestOneKernelFromManyQueues(t *testing.T) {
	f := newMemFixture(t)
	const src = `__kernel void fill_index(__global uint* x, uint n, uint add) {
	size_t i = get_global_id(0);
	if (i < n) x[i] = (uint)i + add;
}`
	prog, err := f.ctx.NewProgramFromSource(src)
	if err != nil {
		t.Fatal(err)
	}
	defer prog.Release()
	if err := prog.Build(""); err != nil {
		t.Fatal(err)
	}
	const phases, queues, rounds, most = 3, 8, 400, 64 * 2000
	for range phases { // each phase aborted an unguarded PoCL 3.1 one time in two
		var wg sync.WaitGroup
		errs := make(chan error, queues)
		for g := range queues {
			wg.Go(func() {
				errs <- launchFromQueue(f, prog, g, rounds, most)
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			if err != nil {
				t.Fatal(err)
			}
		}
	}
}

// launchFromQueue is one queue's share of TestOneKernelFromManyQueues.
func launchFromQueue(f *memFixture, prog *ur.Program, g, rounds, most int) error {
	q, err := f.ctx.NewQueue(f.dev, ur.QueueProperties{})
	if err != nil {
		return err
	}
	defer q.Release()
	k, err := prog.NewKernel("fill_index")
	if err != nil {
		return err
	}
	defer k.Release()
	buf, err := f.ctx.NewBuffer(ur.MemReadWrite, uint64(4*most))
	if err != nil {
		return err
	}
	defer buf.Release()
	for i := range rounds {
		n := 64 * (1 + (i*7+g*13)%(most/64))
		add := uint32(g*1000 + i)
		r := ur.Range1D(uint64(n)).WithLocal(64)
		switch i % 8 {
		case 0: // the kernel's own arguments, repeated: a prepared launch
			for a, arg := range []ur.Arg{ur.ArgBuffer(buf), ur.ArgOf(uint32(n)), ur.ArgOf(add)} {
				if err := k.SetArg(a, arg); err != nil {
					return err
				}
			}
			if err := q.Launch(k, r); err != nil {
				return err
			}
			if err := q.Launch(k, r); err != nil {
				return err
			}
		case 1: // a command buffer, replayed twice
			cb, err := f.ctx.NewCommandBuffer(f.dev, ur.CommandBufferOptions{})
			if err != nil {
				return err
			}
			if _, err := cb.AppendLaunch(k, r, ur.LaunchProperties{}, ur.ArgBuffer(buf), ur.ArgOf(uint32(n)), ur.ArgOf(add)); err != nil {
				cb.Release()
				return err
			}
			err = cb.Finalize()
			for range 2 {
				if err == nil {
					var ev *ur.Event
					if ev, err = q.EnqueueCommandBuffer(cb); err == nil {
						ev.Release()
					}
				}
			}
			if err := cb.Release(); err != nil {
				return err
			}
			if err != nil {
				return err
			}
		default: // arguments taken with the launch
			if err := q.Launch(k, r, ur.ArgBuffer(buf), ur.ArgOf(uint32(n)), ur.ArgOf(add)); err != nil {
				return err
			}
		}
		if i%5 == 4 {
			if err := q.Finish(); err != nil {
				return err
			}
		}
		if i%50 == 49 || i == rounds-1 {
			got := make([]byte, 4*n)
			if err := q.ReadBuffer(buf, 0, got); err != nil {
				return err
			}
			for j := range n {
				v := uint32(got[4*j]) | uint32(got[4*j+1])<<8 | uint32(got[4*j+2])<<16 | uint32(got[4*j+3])<<24
				if v != uint32(j)+add {
					return fmt.Errorf("queue %d, round %d: x[%d] = %d, want %d", g, i, j, v, uint32(j)+add)
				}
			}
		}
	}
	return q.Finish()
}
