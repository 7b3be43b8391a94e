package collectives_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/gour-dev/gour/collectives"
	"github.com/gour-dev/gour/dtype"
	"github.com/gour-dev/gour/internal/harness/testenv"
	"github.com/gour-dev/gour/ur"
)

// nQueues returns n queues of the first device, each in a context of its
// own: the ring takes any queues, so rings longer than two run anywhere.
func nQueues(t *testing.T, n int) []*ur.Queue {
	t.Helper()
	d := testenv.Devices(t)[0]
	qs := make([]*ur.Queue, n)
	for i := range qs {
		ctx, err := ur.NewContext(d)
		if err != nil {
			t.Fatal(err)
		}
		q, err := ctx.NewQueue(d, ur.QueueProperties{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { q.Release(); ctx.Release() })
		qs[i] = q
	}
	return qs
}

// checkRing runs every collective on comms (one per queue of qs, any
// number of ranks) from one goroutine in Group, and checks them.
func checkRing(t *testing.T, qs []*ur.Queue, comms []*collectives.Communicator) {
	t.Helper()
	n := len(comms)
	const count = 1001
	in := make([][]float64, n)
	for r := range n {
		in[r] = inputs(r, n*count)
	}
	reduced := func(dt dtype.Type, op collectives.Op, i int) float64 {
		vals := make([]float64, n)
		for r := range n {
			vals[r] = in[r][i]
		}
		return combine(dt, op, vals...)
	}
	for _, tc := range []struct {
		dt dtype.Type
		op collectives.Op
	}{{dtype.Float32, collectives.Sum}, {dtype.Int32, collectives.Max}, {dtype.Float64, collectives.Avg}, {dtype.Int64, collectives.Min}} {
		// AllReduce of count (blocks of unequal size).
		send, recv := make([]*ur.USM, n), make([]*ur.USM, n)
		for r := range n {
			send[r] = upload(t, qs[r], tc.dt, in[r][:count], 0)
			recv[r] = alloc(t, qs[r], count*tc.dt.Size())
		}
		inGroup(t, comms, func(r int, c *collectives.Communicator) error {
			return c.AllReduce(send[r].Ptr(), recv[r].Ptr(), count, tc.dt, tc.op)
		})
		for r := range n {
			got := download(t, qs[r], recv[r].Ptr(), tc.dt, count)
			for i := range got {
				if want := reduced(tc.dt, tc.op, i); got[i] != want {
					t.Fatalf("%d ranks: AllReduce %v %v: rank %d element %d = %v, want %v", n, tc.dt, tc.op, r, i, got[i], want)
				}
			}
		}
		// ReduceScatter of n blocks of count.
		for r := range n {
			send[r] = upload(t, qs[r], tc.dt, in[r], 0)
		}
		inGroup(t, comms, func(r int, c *collectives.Communicator) error {
			return c.ReduceScatter(send[r].Ptr(), recv[r].Ptr(), count, tc.dt, tc.op)
		})
		for r := range n {
			got := download(t, qs[r], recv[r].Ptr(), tc.dt, count)
			for i := range got {
				if want := reduced(tc.dt, tc.op, r*count+i); got[i] != want {
					t.Fatalf("%d ranks: ReduceScatter %v %v: rank %d element %d = %v, want %v", n, tc.dt, tc.op, r, i, got[i], want)
				}
			}
		}
	}
	// AllGather, Broadcast from the last rank, Reduce to rank 1, and a
	// shift around the ring with Send and Recv (with more than one rank).
	dt := dtype.Float32
	send, recv := make([]*ur.USM, n), make([]*ur.USM, n)
	for r := range n {
		send[r] = upload(t, qs[r], dt, in[r][:count], 0)
		recv[r] = alloc(t, qs[r], n*count*dt.Size())
	}
	inGroup(t, comms, func(r int, c *collectives.Communicator) error {
		return c.AllGather(send[r].Ptr(), recv[r].Ptr(), count, dt)
	})
	for r := range n {
		got := download(t, qs[r], recv[r].Ptr(), dt, n*count)
		for p := range n {
			if i, ok := equal(got[p*count:(p+1)*count], in[p][:count]); !ok {
				t.Fatalf("%d ranks: AllGather: rank %d, block %d differs at %d", n, r, p, i)
			}
		}
	}
	root := n - 1
	inGroup(t, comms, func(r int, c *collectives.Communicator) error {
		return c.Broadcast(send[r].Ptr(), recv[r].Ptr(), count, dt, root)
	})
	for r := range n {
		if i, ok := equal(download(t, qs[r], recv[r].Ptr(), dt, count), in[root][:count]); !ok {
			t.Fatalf("%d ranks: Broadcast from %d: rank %d differs at %d", n, root, r, i)
		}
	}
	to := 1 % n
	inGroup(t, comms, func(r int, c *collectives.Communicator) error {
		return c.Reduce(send[r].Ptr(), recv[r].Ptr(), count, dt, collectives.Sum, to)
	})
	got := download(t, qs[to], recv[to].Ptr(), dt, count)
	for i := range got {
		if want := reduced(dt, collectives.Sum, i); got[i] != want {
			t.Fatalf("%d ranks: Reduce to %d: element %d = %v, want %v", n, to, i, got[i], want)
		}
	}
	if n == 1 {
		return // no peer to send to
	}
	inGroup(t, comms, func(r int, c *collectives.Communicator) error {
		if err := c.Send(send[r].Ptr(), count, dt, (r+1)%n); err != nil {
			return err
		}
		return c.Recv(recv[r].Ptr(), count, dt, (r+n-1)%n)
	})
	for r := range n {
		if i, ok := equal(download(t, qs[r], recv[r].Ptr(), dt, count), in[(r+n-1)%n][:count]); !ok {
			t.Fatalf("%d ranks: rank %d received from %d: differs at %d", n, r, (r+n-1)%n, i)
		}
	}
}

// TestRingRanks: rings of one, three and four ranks in one process.
func TestRingRanks(t *testing.T) {
	for _, n := range []int{1, 3, 4} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			qs := nQueues(t, n)
			checkRing(t, qs, newGroup(t, qs, collectives.WithBackend(collectives.BackendRing), collectives.WithTimeout(20*time.Second)))
		})
	}
}

// TestJoinRingThree: three ranks join over TCP (rank 1 both dials and
// accepts), in the order 2, 0, 1, and run every collective.
func TestJoinRingThree(t *testing.T) {
	const n = 3
	qs := nQueues(t, n)
	rv := collectives.NewLocalRendezvous()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	comms := make([]*collectives.Communicator, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i, r := range []int{2, 0, 1} {
		wg.Go(func() {
			time.Sleep(time.Duration(i) * 20 * time.Millisecond)
			comms[r], errs[r] = collectives.Connect(ctx, rv, r, n, qs[r], collectives.WithBackend(collectives.BackendRing))
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		for _, c := range comms {
			c.Close()
		}
	})
	checkRing(t, qs, comms)
}

// TestGroupError: an error from Group's function discards the ring's
// operations issued in it, which never start; the communicators go on.
func TestGroupError(t *testing.T) {
	qs := nQueues(t, 2)
	comms := newGroup(t, qs, collectives.WithBackend(collectives.BackendRing), collectives.WithTimeout(5*time.Second))
	bufs := []*ur.USM{upload(t, qs[0], dtype.Int32, []float64{1, 2}, 0), upload(t, qs[1], dtype.Int32, []float64{10, 20}, 0)}
	boom := errors.New("boom")
	err := collectives.Group(func() error {
		if err := comms[0].AllReduce(bufs[0].Ptr(), bufs[0].Ptr(), 2, dtype.Int32, collectives.Sum); err != nil {
			return err
		}
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("Group = %v, want fn's error", err)
	}
	if got := download(t, qs[0], bufs[0].Ptr(), dtype.Int32, 2); got[0] != 1 {
		t.Errorf("the discarded AllReduce ran: %v", got)
	}
	// Nested groups are one group.
	if err := collectives.Group(func() error {
		return collectives.Group(func() error {
			for r, c := range comms {
				if err := c.AllReduce(bufs[r].Ptr(), bufs[r].Ptr(), 2, dtype.Int32, collectives.Sum); err != nil {
					return err
				}
			}
			return nil
		})
	}); err != nil {
		t.Fatal(err)
	}
	for r := range 2 {
		if got := download(t, qs[r], bufs[r].Ptr(), dtype.Int32, 2); got[0] != 11 || got[1] != 22 {
			t.Errorf("rank %d after the nested group: %v, want [11 22]", r, got)
		}
	}
	// Abort ends the communicator: Err says so, operations refuse.
	comms[0].Abort()
	if err := comms[0].Err(); !errors.Is(err, collectives.ErrAborted) {
		t.Errorf("Err after Abort = %v", err)
	}
	if err := comms[0].AllReduce(bufs[0].Ptr(), bufs[0].Ptr(), 2, dtype.Int32, collectives.Sum); !errors.Is(err, collectives.ErrAborted) {
		t.Errorf("AllReduce after Abort = %v", err)
	}
}
