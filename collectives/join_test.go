package collectives_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gour-dev/gour/collectives"
	"github.com/gour-dev/gour/collectives/redisrendezvous"
	"github.com/gour-dev/gour/dtype"
	"github.com/gour-dev/gour/internal/harness/testenv"
	"github.com/gour-dev/gour/ur"
)

// Multi-process tests re-execute the test binary as one rank each, with
// helperEnv set.
const (
	helperEnv = "GOUR_COLLECTIVES_HELPER"
	rankEnv   = "GOUR_TEST_RANK"
	nranksEnv = "GOUR_TEST_NRANKS"
	redisEnv  = "GOUR_TEST_REDIS"
	jobEnv    = "GOUR_TEST_JOB"
	modeEnv   = "GOUR_TEST_MODE"
)

// helperQueue is the queue of a rank process: CUDA device rank where
// there are enough, else the first device.
func helperQueue(rank, nranks int) (*ur.Queue, error) {
	devs, err := ur.Devices()
	if err != nil {
		return nil, err
	}
	var cuda []*ur.Device
	for _, d := range devs {
		if d.Backend() == "cuda" {
			cuda = append(cuda, d)
		}
	}
	d := devs[0]
	if len(cuda) >= nranks {
		d = cuda[rank]
	}
	ctx, err := ur.NewContext(d)
	if err != nil {
		return nil, err
	}
	return ctx.NewQueue(d, ur.QueueProperties{})
}

// runHelper is one rank: Connect through Redis, AllReduce, check, print.
func runHelper() int {
	rank, _ := strconv.Atoi(os.Getenv(rankEnv))
	nranks, _ := strconv.Atoi(os.Getenv(nranksEnv))
	fail := func(format string, args ...any) int {
		fmt.Fprintf(os.Stderr, "rank %d: "+format+"\n", append([]any{rank}, args...)...)
		return 1
	}
	q, err := helperQueue(rank, nranks)
	if err != nil {
		return fail("queue: %v", err)
	}
	rv, err := redisrendezvous.Open(os.Getenv(redisEnv), os.Getenv(jobEnv), redisrendezvous.Options{TTL: time.Minute})
	if err != nil {
		return fail("%v", err)
	}
	defer rv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	comm, err := collectives.Connect(ctx, rv, rank, nranks, q)
	if err != nil {
		return fail("Connect: %v", err)
	}
	defer comm.Close()
	if os.Getenv(modeEnv) == "die" {
		fmt.Println("JOINED")
		os.Exit(3) // a rank that crashes mid-run: no Close, no goodbye
	}
	const count = 1001
	b := encode(dtype.Float32, inputs(rank, count))
	u, err := q.Context().AllocDevice(q.Device(), uint64(len(b)))
	if err != nil {
		return fail("%v", err)
	}
	defer u.Free()
	if err := q.CopyToPtr(u.Ptr(), b); err != nil {
		return fail("%v", err)
	}
	if err := comm.AllReduce(u.Ptr(), u.Ptr(), count, dtype.Float32, collectives.Sum); err != nil {
		return fail("AllReduce: %v", err)
	}
	if err := q.CopyFromPtr(b, u.Ptr()); err != nil {
		return fail("%v", err)
	}
	got := decode(dtype.Float32, b)
	for i := range got {
		want := 0.0
		for r := range nranks {
			want += inputs(r, count)[i]
		}
		if got[i] != want {
			return fail("element %d = %v, want %v", i, got[i], want)
		}
	}
	fmt.Printf("OK %s\n", comm.Backend())
	return 0
}

// TestProcessesRedis: two processes, one rank each, find each other
// through a real redis-server and all-reduce.
func TestProcessesRedis(t *testing.T) {
	testenv.Devices(t)
	srv := testenv.StartRedis(t)
	job := fmt.Sprintf("test-%d-%d", os.Getpid(), time.Now().UnixNano())
	const n = 2
	outs := make([]string, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for r := range n {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), helperEnv+"=1", rankEnv+"="+strconv.Itoa(r), nranksEnv+"="+strconv.Itoa(n),
			redisEnv+"="+srv.URL(""), jobEnv+"="+job)
		cmd.Stderr = os.Stderr
		wg.Go(func() {
			out, err := cmd.Output()
			outs[r], errs[r] = strings.TrimSpace(string(out)), err
		})
	}
	wg.Wait()
	for r := range n {
		if errs[r] != nil || !strings.HasPrefix(outs[r], "OK ") {
			t.Errorf("rank %d: %q, %v", r, outs[r], errs[r])
		}
	}
	t.Logf("ranks: %q", outs)
}

// TestJoinRing: two ranks of the ring in this process join over TCP
// through a LocalRendezvous, then all-reduce and broadcast.
func TestJoinRing(t *testing.T) {
	qs, _ := rankQueues(t)
	rv := collectives.NewLocalRendezvous()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	comms := make([]*collectives.Communicator, 2)
	errs := make([]error, 2)
	var wg sync.WaitGroup
	for r := range 2 {
		wg.Go(func() {
			comms[r], errs[r] = collectives.Connect(ctx, rv, r, 2, qs[r], collectives.WithBackend(collectives.BackendRing))
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
	const count = 4097
	checkAllReduce(t, qs, comms, dtype.Float32, collectives.Sum, count)
	checkBroadcast(t, qs, comms, dtype.Int32, 1, count)
	checkSendRecv(t, qs, comms, dtype.Float64, 100)
	// Closing one rank aborts the other's next wait at once.
	comms[0].Close()
	buf := alloc(t, qs[1], 64)
	start := time.Now()
	if err := comms[1].AllReduce(buf.Ptr(), buf.Ptr(), 16, dtype.Float32, collectives.Sum); !errors.Is(err, collectives.ErrAborted) || time.Since(start) > 5*time.Second {
		t.Errorf("AllReduce after the peer closed = %v after %v, want ErrAborted at once", err, time.Since(start))
	}
}

// settle waits for the goroutine count to fall back to at most base.
func settle(base int) int {
	n := runtime.NumGoroutine()
	for deadline := time.Now().Add(2 * time.Second); n > base && time.Now().Before(deadline); n = runtime.NumGoroutine() {
		time.Sleep(10 * time.Millisecond)
	}
	return n
}

// TestNeverJoins: a rank whose peer never joins gets ErrTimeout within
// the deadline, naming the missing rank, and leaves no goroutine behind:
// rank 0 waiting to be dialled, rank 1 waiting for rank 0's address, and
// a rank waiting for the id.
func TestNeverJoins(t *testing.T) {
	qs, _ := rankQueues(t)
	id, err := collectives.NewUniqueID(collectives.WithBackend(collectives.BackendRing))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		join func(ctx context.Context) error
	}{
		{"rank 0 alone", func(ctx context.Context) error {
			_, err := collectives.Join(ctx, id, 0, 2, qs[0], collectives.WithRendezvous(collectives.NewLocalRendezvous()))
			return err
		}},
		{"rank 1 alone", func(ctx context.Context) error {
			_, err := collectives.Join(ctx, id, 1, 2, qs[1], collectives.WithRendezvous(collectives.NewLocalRendezvous()))
			return err
		}},
		{"no id", func(ctx context.Context) error {
			_, err := collectives.Connect(ctx, collectives.NewLocalRendezvous(), 1, 2, qs[1])
			return err
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			base := runtime.NumGoroutine()
			ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
			defer cancel()
			start := time.Now()
			err := tc.join(ctx)
			if d := time.Since(start); !errors.Is(err, collectives.ErrTimeout) || d > 2*time.Second {
				t.Fatalf("= %v after %v; want ErrTimeout at the 300ms deadline", err, d)
			}
			if tc.name != "no id" && !strings.Contains(err.Error(), "never joined") {
				t.Errorf("%v does not name the missing rank", err)
			}
			if n := settle(base); n > base {
				t.Errorf("%d goroutines after the timeout, %d before", n, base)
			}
		})
	}
	if _, err := collectives.Join(context.Background(), id, 0, 2, qs[0]); !errors.Is(err, collectives.ErrInvalidArgument) {
		t.Errorf("Join of the ring without a rendezvous = %v, want ErrInvalidArgument", err)
	}
}

// TestRedisRendezvous: keys are namespaced per job and expire; a job's
// key published twice with another value is refused; a wait for a key
// never published ends at the deadline with ErrTimeout, leaving no
// goroutine.
func TestRedisRendezvous(t *testing.T) {
	srv := testenv.StartRedis(t)
	rv, err := redisrendezvous.Open(srv.URL(""), "job-a", redisrendezvous.Options{TTL: 30 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer rv.Close()
	other, err := redisrendezvous.Open(srv.URL(""), "job-b", redisrendezvous.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	ctx := context.Background()
	if err := rv.Publish(ctx, "id", []byte("one")); err != nil {
		t.Fatal(err)
	}
	if err := rv.Publish(ctx, "id", []byte("one")); err != nil {
		t.Errorf("publishing the same value again = %v", err)
	}
	if err := rv.Publish(ctx, "id", []byte("two")); !errors.Is(err, collectives.ErrRendezvous) {
		t.Errorf("publishing another value = %v, want ErrRendezvous", err)
	}
	if v, err := rv.Wait(ctx, "id"); err != nil || string(v) != "one" {
		t.Errorf("Wait = %q, %v", v, err)
	}
	ttl, err := srv.Do("PTTL", rv.Key("id"))
	if n, _ := strconv.Atoi(strings.TrimPrefix(ttl, ":")); err != nil || n <= 0 || n > 30000 {
		t.Errorf("PTTL %s = %q, %v; want the key to expire within 30s", rv.Key("id"), ttl, err)
	}
	base := runtime.NumGoroutine()
	short, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	if _, err := other.Wait(short, "id"); !errors.Is(err, collectives.ErrTimeout) || time.Since(start) > 2*time.Second {
		t.Errorf("another job's Wait = %v after %v; want ErrTimeout at 200ms (jobs do not share keys)", err, time.Since(start))
	}
	if n := settle(base); n > base {
		t.Errorf("%d goroutines after the timeout, %d before", n, base)
	}
	// A late publisher is seen promptly.
	go func() {
		time.Sleep(50 * time.Millisecond)
		other.Publish(ctx, "late", []byte("x"))
	}()
	start = time.Now()
	if v, err := other.Wait(ctx, "late"); err != nil || string(v) != "x" || time.Since(start) > time.Second {
		t.Errorf("Wait for a late key = %q, %v after %v", v, err, time.Since(start))
	}
	if err := rv.Clear(ctx); err != nil {
		t.Fatal(err)
	}
	if err := rv.Publish(ctx, "id", []byte("two")); err != nil {
		t.Errorf("Publish after Clear = %v", err)
	}
	if _, err := redisrendezvous.Open(srv.URL(""), "bad*job", redisrendezvous.Options{}); !errors.Is(err, collectives.ErrInvalidArgument) {
		t.Errorf("a job name with a glob character = %v", err)
	}
}

// TestNCCLNeverJoins: with NCCL, a rank whose peer never joins gets
// ErrTimeout at the deadline and its communicator is aborted, not left
// waiting (Join's non-blocking NCCL set-up).
func TestNCCLNeverJoins(t *testing.T) {
	qs, _ := rankQueues(t)
	if qs[0].Device().Backend() != "cuda" {
		t.Skipf("NCCL runs on CUDA queues, not %s", qs[0].Device().Backend())
	}
	if err := collectives.NCCLAvailable(true); err != nil {
		t.Skipf("%v", err)
	}
	id, err := collectives.NewUniqueID(collectives.WithBackend(collectives.BackendNCCL))
	if err != nil {
		t.Fatal(err)
	}
	base := runtime.NumGoroutine()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	start := time.Now()
	_, err = collectives.Join(ctx, id, 0, 2, qs[0])
	if d := time.Since(start); !errors.Is(err, collectives.ErrTimeout) || d > 5*time.Second {
		t.Fatalf("Join alone = %v after %v; want ErrTimeout at the 2s deadline", err, d)
	}
	if n := settle(base); n > base {
		t.Errorf("%d goroutines after the timeout, %d before", n, base)
	}
}

// TestPeerDies: a rank process that dies after joining the ring makes
// the survivor's next operation fail at once with ErrAborted, not wait
// for the timeout.
func TestPeerDies(t *testing.T) {
	qs, _ := rankQueues(t)
	srv := testenv.StartRedis(t)
	job := fmt.Sprintf("die-%d-%d", os.Getpid(), time.Now().UnixNano())
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), helperEnv+"=1", rankEnv+"=1", nranksEnv+"=2", redisEnv+"="+srv.URL(""), jobEnv+"="+job,
		modeEnv+"=die", collectives.EnvBackend+"=ring")
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	rv, err := redisrendezvous.Open(srv.URL(""), job, redisrendezvous.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer rv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	comm, err := collectives.Connect(ctx, rv, 0, 2, qs[0], collectives.WithBackend(collectives.BackendRing), collectives.WithTimeout(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	defer comm.Close()
	buf := alloc(t, qs[0], 4096)
	start := time.Now()
	err = comm.AllReduce(buf.Ptr(), buf.Ptr(), 1024, dtype.Float32, collectives.Sum)
	if d := time.Since(start); !errors.Is(err, collectives.ErrAborted) || d > 10*time.Second {
		t.Fatalf("AllReduce with a dead peer = %v after %v; want ErrAborted at once", err, d)
	}
	t.Logf("%v", err)
}
