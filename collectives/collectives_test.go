package collectives_test

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gour-dev/gour/collectives"
	"github.com/gour-dev/gour/dtype"
	"github.com/gour-dev/gour/ur"
)

var allTypes = []dtype.Type{dtype.Int8, dtype.Uint8, dtype.Int32, dtype.Uint32, dtype.Int64,
	dtype.Uint64, dtype.Float16, dtype.Float32, dtype.Float64, dtype.BFloat16}

var allOps = []collectives.Op{collectives.Sum, collectives.Prod, collectives.Max, collectives.Min, collectives.Avg}

// backends are the backends a group of qs can run: the ring always, NCCL
// where the queues are CUDA's and NCCL loads.
func backends(qs []*ur.Queue) []collectives.Backend {
	out := []collectives.Backend{collectives.BackendRing}
	if qs[0].Device().Backend() == "cuda" && collectives.NCCLAvailable(false) == nil {
		out = append(out, collectives.BackendNCCL)
	}
	return out
}

func newGroup(t *testing.T, qs []*ur.Queue, opts ...collectives.Option) []*collectives.Communicator {
	t.Helper()
	comms, err := collectives.NewGroup(qs, opts...)
	if err != nil {
		t.Fatalf("NewGroup: %v", err)
	}
	t.Cleanup(func() {
		for _, c := range comms {
			c.Close()
		}
	})
	return comms
}

// finish waits for every queue: NCCL's operations are asynchronous.
func finish(t *testing.T, qs []*ur.Queue) {
	t.Helper()
	for _, q := range qs {
		if err := q.Finish(); err != nil {
			t.Fatalf("Finish: %v", err)
		}
	}
}

// TestCollectives runs every collective on a group of two ranks of one
// process, issued from one goroutine in Group as NCCL wants, and checks
// each result against the host's.
func TestCollectives(t *testing.T) {
	qs, what := rankQueues(t)
	t.Logf("ranks on %s", what)
	for _, b := range backends(qs) {
		t.Run(string(b), func(t *testing.T) {
			comms := newGroup(t, qs, collectives.WithBackend(b), collectives.WithTimeout(20*time.Second))
			if got := comms[0].Backend(); got != string(b) {
				t.Fatalf("Backend = %q, want %q", got, b)
			}
			for i, c := range comms {
				if c.Rank() != i || c.Size() != 2 || c.Queue() != qs[i] {
					t.Fatalf("communicator %d: rank %d of %d", i, c.Rank(), c.Size())
				}
			}
			const count = 1001 // blocks of unequal size
			t.Run("AllReduce", func(t *testing.T) {
				for _, dt := range allTypes {
					for _, op := range allOps {
						checkAllReduce(t, qs, comms, dt, op, count)
					}
				}
			})
			t.Run("ReduceScatter", func(t *testing.T) {
				for _, dt := range []dtype.Type{dtype.Float32, dtype.Int32, dtype.BFloat16} {
					for _, op := range []collectives.Op{collectives.Sum, collectives.Max, collectives.Avg} {
						checkReduceScatter(t, qs, comms, dt, op, 257)
					}
				}
			})
			t.Run("AllGather", func(t *testing.T) {
				for _, dt := range []dtype.Type{dtype.Float64, dtype.Uint8, dtype.Float16} {
					checkAllGather(t, qs, comms, dt, 333)
				}
			})
			t.Run("Broadcast", func(t *testing.T) {
				for root := range 2 {
					checkBroadcast(t, qs, comms, dtype.Int64, root, 500)
				}
			})
			t.Run("Reduce", func(t *testing.T) {
				for root := range 2 {
					checkReduce(t, qs, comms, dtype.Float32, collectives.Avg, root, 500)
				}
			})
			t.Run("SendRecv", func(t *testing.T) { checkSendRecv(t, qs, comms, dtype.Uint32, 300) })
			t.Run("InPlace", func(t *testing.T) {
				bufs := make([]*ur.USM, 2)
				for r := range 2 {
					bufs[r] = upload(t, qs[r], dtype.Float32, inputs(r, count), 0)
				}
				if err := collectives.Group(func() error {
					for r, c := range comms {
						if err := c.AllReduce(bufs[r].Ptr(), bufs[r].Ptr(), count, dtype.Float32, collectives.Sum); err != nil {
							return err
						}
					}
					return nil
				}); err != nil {
					t.Fatal(err)
				}
				finish(t, qs)
				want := make([]float64, count)
				for i := range want {
					want[i] = inputs(0, count)[i] + inputs(1, count)[i]
				}
				for r := range 2 {
					if i, ok := equal(download(t, qs[r], bufs[r].Ptr(), dtype.Float32, count), want); !ok {
						t.Errorf("rank %d: in-place AllReduce differs at %d", r, i)
					}
				}
			})
			t.Run("GoroutinePerRank", func(t *testing.T) {
				// Without Group: each rank's goroutine issues its own.
				send := make([]*ur.USM, 2)
				recv := make([]*ur.USM, 2)
				for r := range 2 {
					send[r] = upload(t, qs[r], dtype.Int32, inputs(r, count), 0)
					recv[r] = alloc(t, qs[r], count*4)
				}
				errs := make([]error, 2)
				var wg sync.WaitGroup
				for r, c := range comms {
					wg.Go(func() {
						for range 3 {
							if errs[r] = c.AllReduce(send[r].Ptr(), recv[r].Ptr(), count, dtype.Int32, collectives.Max); errs[r] != nil {
								return
							}
						}
					})
				}
				wg.Wait()
				if err := errors.Join(errs...); err != nil {
					t.Fatal(err)
				}
				finish(t, qs)
				want := make([]float64, count)
				for i := range want {
					want[i] = max(inputs(0, count)[i], inputs(1, count)[i])
				}
				for r := range 2 {
					if i, ok := equal(download(t, qs[r], recv[r].Ptr(), dtype.Int32, count), want); !ok {
						t.Errorf("rank %d differs at %d", r, i)
					}
				}
			})
		})
	}
}

func inGroup(t *testing.T, comms []*collectives.Communicator, f func(r int, c *collectives.Communicator) error) {
	t.Helper()
	if err := collectives.Group(func() error {
		for r, c := range comms {
			if err := f(r, c); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}

func checkAllReduce(t *testing.T, qs []*ur.Queue, comms []*collectives.Communicator, dt dtype.Type, op collectives.Op, count int) {
	t.Helper()
	send, recv := make([]*ur.USM, 2), make([]*ur.USM, 2)
	for r := range 2 {
		send[r] = upload(t, qs[r], dt, inputs(r, count), 0)
		recv[r] = alloc(t, qs[r], count*dt.Size())
	}
	inGroup(t, comms, func(r int, c *collectives.Communicator) error {
		return c.AllReduce(send[r].Ptr(), recv[r].Ptr(), count, dt, op)
	})
	finish(t, qs)
	want := make([]float64, count)
	a, b := inputs(0, count), inputs(1, count)
	for i := range want {
		want[i] = decode(dt, encode(dt, []float64{combine(dt, op, a[i], b[i])}))[0]
	}
	for r := range 2 {
		got := download(t, qs[r], recv[r].Ptr(), dt, count)
		if i, ok := equal(got, want); !ok {
			t.Errorf("AllReduce %v %v: rank %d: element %d = %v, want %v", dt, op, r, i, got[i], want[i])
		}
	}
}

func checkReduceScatter(t *testing.T, qs []*ur.Queue, comms []*collectives.Communicator, dt dtype.Type, op collectives.Op, count int) {
	t.Helper()
	send, recv := make([]*ur.USM, 2), make([]*ur.USM, 2)
	for r := range 2 {
		send[r] = upload(t, qs[r], dt, inputs(r, 2*count), 0)
		recv[r] = alloc(t, qs[r], count*dt.Size())
	}
	inGroup(t, comms, func(r int, c *collectives.Communicator) error {
		return c.ReduceScatter(send[r].Ptr(), recv[r].Ptr(), count, dt, op)
	})
	finish(t, qs)
	a, b := inputs(0, 2*count), inputs(1, 2*count)
	for r := range 2 {
		want := make([]float64, count)
		for i := range want {
			want[i] = decode(dt, encode(dt, []float64{combine(dt, op, a[r*count+i], b[r*count+i])}))[0]
		}
		got := download(t, qs[r], recv[r].Ptr(), dt, count)
		if i, ok := equal(got, want); !ok {
			t.Errorf("ReduceScatter %v %v: rank %d: element %d = %v, want %v", dt, op, r, i, got[i], want[i])
		}
	}
}

func checkAllGather(t *testing.T, qs []*ur.Queue, comms []*collectives.Communicator, dt dtype.Type, count int) {
	t.Helper()
	send, recv := make([]*ur.USM, 2), make([]*ur.USM, 2)
	for r := range 2 {
		send[r] = upload(t, qs[r], dt, inputs(r, count), 0)
		recv[r] = alloc(t, qs[r], 2*count*dt.Size())
	}
	inGroup(t, comms, func(r int, c *collectives.Communicator) error {
		return c.AllGather(send[r].Ptr(), recv[r].Ptr(), count, dt)
	})
	finish(t, qs)
	want := append(inputs(0, count), inputs(1, count)...)
	for r := range 2 {
		if i, ok := equal(download(t, qs[r], recv[r].Ptr(), dt, 2*count), want); !ok {
			t.Errorf("AllGather %v: rank %d differs at %d", dt, r, i)
		}
	}
}

func checkBroadcast(t *testing.T, qs []*ur.Queue, comms []*collectives.Communicator, dt dtype.Type, root, count int) {
	t.Helper()
	recv := make([]*ur.USM, 2)
	send := upload(t, qs[root], dt, inputs(root, count), 0)
	for r := range 2 {
		recv[r] = alloc(t, qs[r], count*dt.Size())
	}
	inGroup(t, comms, func(r int, c *collectives.Communicator) error {
		var s ur.Ptr
		if r == root {
			s = send.Ptr()
		}
		return c.Broadcast(s, recv[r].Ptr(), count, dt, root)
	})
	finish(t, qs)
	for r := range 2 {
		if i, ok := equal(download(t, qs[r], recv[r].Ptr(), dt, count), inputs(root, count)); !ok {
			t.Errorf("Broadcast from %d: rank %d differs at %d", root, r, i)
		}
	}
}

func checkReduce(t *testing.T, qs []*ur.Queue, comms []*collectives.Communicator, dt dtype.Type, op collectives.Op, root, count int) {
	t.Helper()
	send := make([]*ur.USM, 2)
	for r := range 2 {
		send[r] = upload(t, qs[r], dt, inputs(r, count), 0)
	}
	recv := alloc(t, qs[root], count*dt.Size())
	inGroup(t, comms, func(r int, c *collectives.Communicator) error {
		var p ur.Ptr
		if r == root {
			p = recv.Ptr()
		}
		return c.Reduce(send[r].Ptr(), p, count, dt, op, root)
	})
	finish(t, qs)
	a, b := inputs(0, count), inputs(1, count)
	want := make([]float64, count)
	for i := range want {
		want[i] = combine(dt, op, a[i], b[i])
	}
	if i, ok := equal(download(t, qs[root], recv.Ptr(), dt, count), want); !ok {
		t.Errorf("Reduce to %d differs at %d", root, i)
	}
}

func checkSendRecv(t *testing.T, qs []*ur.Queue, comms []*collectives.Communicator, dt dtype.Type, count int) {
	t.Helper()
	send, recv := make([]*ur.USM, 2), make([]*ur.USM, 2)
	for r := range 2 {
		send[r] = upload(t, qs[r], dt, inputs(r, count), 0)
		recv[r] = alloc(t, qs[r], count*dt.Size())
	}
	// Both ways at once: in one group, as with NCCL.
	inGroup(t, comms, func(r int, c *collectives.Communicator) error {
		if err := c.Send(send[r].Ptr(), count, dt, 1-r); err != nil {
			return err
		}
		return c.Recv(recv[r].Ptr(), count, dt, 1-r)
	})
	finish(t, qs)
	for r := range 2 {
		if i, ok := equal(download(t, qs[r], recv[r].Ptr(), dt, count), inputs(1-r, count)); !ok {
			t.Errorf("rank %d received from %d: differs at %d", r, 1-r, i)
		}
	}
}

// TestArguments: what a rank can tell alone is refused before any
// communication, with a typed error; the communicator stays usable.
func TestArguments(t *testing.T) {
	qs, _ := rankQueues(t)
	comms := newGroup(t, qs, collectives.WithBackend(collectives.BackendRing), collectives.WithTimeout(5*time.Second))
	c := comms[0]
	own := alloc(t, qs[0], 400)
	other := alloc(t, qs[1], 400)
	freed, err := qs[0].Context().AllocDevice(qs[0].Device(), 400)
	if err != nil {
		t.Fatal(err)
	}
	freed.Free()
	cases := []struct {
		name string
		err  error
		kind error
		ur   error
	}{
		{"nil send", c.AllReduce(ur.Ptr{}, own.Ptr(), 10, dtype.Float32, collectives.Sum), collectives.ErrInvalidPointer, nil},
		{"freed", c.AllReduce(freed.Ptr(), own.Ptr(), 10, dtype.Float32, collectives.Sum), collectives.ErrInvalidPointer, ur.ErrInvalidMemObject},
		{"other context", c.AllReduce(other.Ptr(), own.Ptr(), 10, dtype.Float32, collectives.Sum), collectives.ErrInvalidPointer, ur.ErrInvalidContext},
		{"past the end", c.AllReduce(own.Ptr(), own.Ptr().Add(8), 100, dtype.Float32, collectives.Sum), collectives.ErrInvalidPointer, ur.ErrInvalidSize},
		{"AllGather recv too small", c.AllGather(own.Ptr(), own.Ptr(), 60, dtype.Float32), collectives.ErrInvalidPointer, ur.ErrInvalidSize},
		{"type", c.AllReduce(own.Ptr(), own.Ptr(), 10, 0, collectives.Sum), collectives.ErrInvalidArgument, nil},
		{"op", c.AllReduce(own.Ptr(), own.Ptr(), 10, dtype.Float32, 99), collectives.ErrInvalidArgument, nil},
		{"count", c.AllReduce(own.Ptr(), own.Ptr(), -1, dtype.Float32, collectives.Sum), collectives.ErrInvalidArgument, nil},
		{"root", c.Broadcast(own.Ptr(), own.Ptr(), 10, dtype.Float32, 2), collectives.ErrInvalidArgument, nil},
		{"peer is self", c.Send(own.Ptr(), 10, dtype.Float32, 0), collectives.ErrInvalidArgument, nil},
	}
	for _, tc := range cases {
		var e *collectives.Error
		if !errors.Is(tc.err, tc.kind) || !errors.As(tc.err, &e) || e.Rank != 0 {
			t.Errorf("%s: %v; want a *collectives.Error of rank 0 carrying %v", tc.name, tc.err, tc.kind)
		}
		if tc.ur != nil && !errors.Is(tc.err, tc.ur) {
			t.Errorf("%s: %v; want it to carry %v", tc.name, tc.err, tc.ur)
		}
	}
	if err := c.Err(); err != nil {
		t.Errorf("Err after refused arguments = %v", err)
	}
}

// TestMismatch: ranks that disagree on a collective find out on its
// first message, with ErrMismatch naming both calls, and the
// communicators are aborted rather than left out of step.
func TestMismatch(t *testing.T) {
	qs, _ := rankQueues(t)
	for _, tc := range []struct {
		name string
		call [2]func(c *collectives.Communicator, p ur.Ptr) error
	}{
		{"counts", [2]func(*collectives.Communicator, ur.Ptr) error{
			func(c *collectives.Communicator, p ur.Ptr) error {
				return c.AllReduce(p, p, 100, dtype.Float32, collectives.Sum)
			},
			func(c *collectives.Communicator, p ur.Ptr) error {
				return c.AllReduce(p, p, 200, dtype.Float32, collectives.Sum)
			},
		}},
		{"collectives", [2]func(*collectives.Communicator, ur.Ptr) error{
			func(c *collectives.Communicator, p ur.Ptr) error {
				return c.AllReduce(p, p, 100, dtype.Float32, collectives.Sum)
			},
			func(c *collectives.Communicator, p ur.Ptr) error {
				return c.Broadcast(p, p, 100, dtype.Float32, 0)
			},
		}},
		{"types", [2]func(*collectives.Communicator, ur.Ptr) error{
			func(c *collectives.Communicator, p ur.Ptr) error { return c.AllGather(p, p, 10, dtype.Int32) },
			func(c *collectives.Communicator, p ur.Ptr) error { return c.AllGather(p, p, 10, dtype.Float32) },
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			comms := newGroup(t, qs, collectives.WithBackend(collectives.BackendRing), collectives.WithTimeout(10*time.Second))
			bufs := []*ur.USM{alloc(t, qs[0], 1024), alloc(t, qs[1], 1024)}
			errs := make([]error, 2)
			start := time.Now()
			var wg sync.WaitGroup
			for r := range 2 {
				wg.Go(func() { errs[r] = tc.call[r](comms[r], bufs[r].Ptr()) })
			}
			wg.Wait()
			if d := time.Since(start); d > 5*time.Second {
				t.Errorf("the mismatch took %v to be found", d)
			}
			mismatches := 0
			for r, err := range errs {
				switch {
				case errors.Is(err, collectives.ErrMismatch):
					mismatches++
					if !strings.Contains(err.Error(), "rank") {
						t.Errorf("rank %d: %v does not name the ranks' calls", r, err)
					}
				case errors.Is(err, collectives.ErrAborted): // its peer found out first and aborted
				default:
					t.Errorf("rank %d: %v; want ErrMismatch or ErrAborted", r, err)
				}
			}
			if mismatches == 0 {
				t.Errorf("no rank reported ErrMismatch: %v", errs)
			}
			for r, c := range comms {
				if c.Err() == nil {
					t.Errorf("rank %d: Err = nil after the mismatch", r)
				}
				if err := c.AllReduce(bufs[r].Ptr(), bufs[r].Ptr(), 1, dtype.Float32, collectives.Sum); !errors.Is(err, collectives.ErrAborted) {
					t.Errorf("rank %d: an operation after the mismatch = %v, want ErrAborted", r, err)
				}
			}
		})
	}
}

// TestPeerNeverComes: a rank whose peer never calls fails with
// ErrTimeout after the communicator's timeout, and the peer's next call
// sees the abort instead of hanging.
func TestPeerNeverComes(t *testing.T) {
	qs, _ := rankQueues(t)
	comms := newGroup(t, qs, collectives.WithBackend(collectives.BackendRing), collectives.WithTimeout(200*time.Millisecond))
	buf := alloc(t, qs[0], 64)
	start := time.Now()
	err := comms[0].AllReduce(buf.Ptr(), buf.Ptr(), 16, dtype.Float32, collectives.Sum)
	if d := time.Since(start); !errors.Is(err, collectives.ErrTimeout) || d > 3*time.Second {
		t.Fatalf("AllReduce alone = %v after %v; want ErrTimeout after about 200ms", err, d)
	}
	buf1 := alloc(t, qs[1], 64)
	if err := comms[1].AllReduce(buf1.Ptr(), buf1.Ptr(), 16, dtype.Float32, collectives.Sum); !errors.Is(err, collectives.ErrAborted) {
		t.Errorf("the late rank's AllReduce = %v, want ErrAborted", err)
	}
}

// TestNCCLAbsent: without NCCL (CI) its absence is a *LibraryError
// naming the library when NCCL is asked for, and the automatic choice is
// the ring; with NCCL, communicators of CUDA queues are NCCL's.
func TestNCCLAbsent(t *testing.T) {
	qs, _ := rankQueues(t)
	err := collectives.NCCLAvailable(false)
	if err == nil {
		v, _ := collectives.NCCLVersion()
		t.Logf("NCCL %d is here", v)
		if qs[0].Device().Backend() != "cuda" {
			_, err := collectives.NewGroup(qs, collectives.WithBackend(collectives.BackendNCCL))
			if !errors.Is(err, collectives.ErrUnsupported) {
				t.Errorf("NewGroup(NCCL) on %s queues = %v, want ErrUnsupported", qs[0].Device().Backend(), err)
			}
		}
		return
	}
	var le *collectives.LibraryError
	if !errors.Is(err, collectives.ErrLibraryUnavailable) || !errors.As(err, &le) || le.Library == "" || le.Reason == "" {
		t.Fatalf("NCCLAvailable = %v; want a *LibraryError carrying ErrLibraryUnavailable", err)
	}
	t.Logf("without NCCL: %v", err)
	if _, err := collectives.NewGroup(qs, collectives.WithBackend(collectives.BackendNCCL)); !errors.Is(err, collectives.ErrLibraryUnavailable) {
		t.Errorf("NewGroup(NCCL) = %v, want ErrLibraryUnavailable", err)
	}
	if _, err := collectives.NewUniqueID(collectives.WithBackend(collectives.BackendNCCL)); !errors.Is(err, collectives.ErrLibraryUnavailable) {
		t.Errorf("NewUniqueID(NCCL) = %v, want ErrLibraryUnavailable", err)
	}
	if _, err := collectives.NCCLVersion(); !errors.Is(err, collectives.ErrLibraryUnavailable) {
		t.Errorf("NCCLVersion = %v, want ErrLibraryUnavailable", err)
	}
	comms := newGroup(t, qs)
	if comms[0].Backend() != "ring" {
		t.Errorf("Backend = %q without NCCL, want ring", comms[0].Backend())
	}
	id, err := collectives.NewUniqueID()
	if err != nil || id.Backend() != collectives.BackendRing {
		t.Errorf("NewUniqueID = %v, %v; want a ring id", id, err)
	}
}

// TestUniqueID: an id survives its text and binary forms.
func TestUniqueID(t *testing.T) {
	id, err := collectives.NewUniqueID(collectives.WithBackend(collectives.BackendRing))
	if err != nil {
		t.Fatal(err)
	}
	back, err := collectives.ParseUniqueID(id.String())
	if err != nil || back != id {
		t.Errorf("ParseUniqueID(String) = %v, %v", back, err)
	}
	other, _ := collectives.NewUniqueID(collectives.WithBackend(collectives.BackendRing))
	if other == id {
		t.Error("two ids are equal")
	}
	if _, err := collectives.ParseUniqueID("00ff"); !errors.Is(err, collectives.ErrInvalidArgument) {
		t.Errorf("ParseUniqueID(junk) = %v", err)
	}
	if _, err := collectives.NewUniqueID(collectives.WithBackend("mpi")); !errors.Is(err, collectives.ErrInvalidArgument) {
		t.Errorf("NewUniqueID(mpi) = %v", err)
	}
}

// TestHalf: the host's half-precision conversions round to nearest even
// and keep infinities, NaN and subnormals.
func TestHalf(t *testing.T) {
	for _, tc := range []struct {
		f    float32
		bits uint16
	}{{0, 0}, {1, 0x3c00}, {-2, 0xc000}, {65504, 0x7bff}, {1e6, 0x7c00}, {6.103515625e-05, 0x0400}, {5.960464477539063e-08, 0x0001}, {1 + 1.0/2048, 0x3c00}, {1 + 3.0/2048, 0x3c02}} {
		if got := dtype.Float16Bits(tc.f); got != tc.bits {
			t.Errorf("Float16Bits(%v) = %#04x, want %#04x", tc.f, got, tc.bits)
		}
	}
	for b := range uint32(0x7c00) {
		if got := dtype.Float16Bits(dtype.Float16From(uint16(b))); got != uint16(b) {
			t.Fatalf("Float16 %#04x round-trips to %#04x", b, got)
		}
	}
	if v := dtype.Float16From(0x7e00); v == v {
		t.Error("Float16 NaN is not NaN")
	}
	if got := dtype.BFloat16Bits(1 + 1.0/256); got != 0x3f80 {
		t.Errorf("BFloat16Bits(1+2^-8) = %#04x, want 0x3f80 (ties to even)", got)
	}
	if got := dtype.BFloat16From(0x4040); got != 3 {
		t.Errorf("BFloat16Value(0x4040) = %v", got)
	}
}

// TestErrorText: errors say the operation, the rank, the backend and why.
func TestErrorText(t *testing.T) {
	e := &collectives.Error{Op: "AllReduce", Rank: 1, Backend: "ring", Kind: collectives.ErrMismatch, Message: "rank 0 called X"}
	if got := e.Error(); got != "collectives: AllReduce (rank 1, ring): ranks disagree: rank 0 called X" {
		t.Errorf("Error() = %q", got)
	}
	le := &collectives.LibraryError{Library: "libnccl.so.2", Reason: "it does not load", Err: fmt.Errorf("not found")}
	if !errors.Is(le, collectives.ErrLibraryUnavailable) || !strings.Contains(le.Error(), "libnccl.so.2") {
		t.Errorf("LibraryError = %v", le)
	}
}
