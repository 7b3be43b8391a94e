package supervise_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gour-dev/gour/supervise"
	"github.com/gour-dev/gour/ur"
)

// The test binary is its own worker: TestMain serves jobs with
// testHandler where the Supervisor started it.
func TestMain(m *testing.M) {
	supervise.ServeIfWorker(testHandler)
	os.Exit(m.Run())
}

// testHandler stands in for device work. Its jobs:
//
//	"pid"     answers the worker's process id
//	"fault"   fails as a faulting kernel does: ur.ErrDeviceLost, the
//	          driver's code in the text
//	"bad"     fails with an ordinary error (ur.ErrInvalidValue), which
//	          leaves the worker running
//	"crash"   exits the process, as a driver that aborts does
//	"hang"    never answers, as a kernel that never ends
func testHandler(_ context.Context, job []byte) ([]byte, error) {
	switch string(job) {
	case "pid":
		return []byte(strconv.Itoa(os.Getpid())), nil
	case "fault":
		return nil, &ur.Error{Result: ur.ErrDeviceLost, Op: "Queue.Finish", Adapter: "cuda",
			Native: 700, NativeName: "CUDA_ERROR_ILLEGAL_ADDRESS", Message: "cuStreamSynchronize failed"}
	case "bad":
		return nil, &ur.Error{Result: ur.ErrInvalidValue, Op: "Queue.Launch", Message: "a bad range"}
	case "crash":
		os.Exit(7)
	case "hang":
		select {}
	}
	return nil, errors.New("unknown job " + string(job))
}

// newSupervisor returns a Supervisor whose workers' output goes to the
// test log, closed at cleanup.
func newSupervisor(t *testing.T) *supervise.Supervisor {
	t.Helper()
	var out bytes.Buffer
	s := supervise.New(supervise.Config{Stderr: &out})
	t.Cleanup(func() {
		s.Close()
		if out.Len() > 0 {
			t.Logf("workers' output:\n%s", out.String())
		}
	})
	return s
}

func pidOf(t *testing.T, s *supervise.Supervisor) string {
	t.Helper()
	out, err := s.Do(context.Background(), []byte("pid"))
	if err != nil {
		t.Fatalf("Do(pid): %v", err)
	}
	if _, err := strconv.Atoi(string(out)); err != nil || string(out) == strconv.Itoa(os.Getpid()) {
		t.Fatalf("Do(pid) = %q, want a worker's process id", out)
	}
	return string(out)
}

// TestDeviceLostRestartsTheWorker: a job that loses the device returns an
// error matching ur.ErrDeviceLost with the driver's code in its text; the
// worker is replaced and the next job succeeds, in a new process.
func TestDeviceLostRestartsTheWorker(t *testing.T) {
	s := newSupervisor(t)
	first := pidOf(t, s)
	if again := pidOf(t, s); again != first {
		t.Fatalf("a second job ran in worker %s, want the same worker %s", again, first)
	}

	_, err := s.Do(context.Background(), []byte("fault"))
	var je *supervise.JobError
	if !errors.Is(err, ur.ErrDeviceLost) || !errors.As(err, &je) || !strings.Contains(je.Message, "CUDA_ERROR_ILLEGAL_ADDRESS") {
		t.Fatalf("Do(fault) = %v, want a *JobError matching ErrDeviceLost naming the driver's code", err)
	}
	next := pidOf(t, s)
	if next == first {
		t.Errorf("the job after the fault ran in the faulted worker %s, want a new one", first)
	}
	if n := s.Starts(); n != 2 {
		t.Errorf("Starts = %d, want 2", n)
	}
}

// TestOrdinaryErrorKeepsTheWorker: an error that is not a lost device
// comes back with its code, and the worker stays.
func TestOrdinaryErrorKeepsTheWorker(t *testing.T) {
	s := newSupervisor(t)
	first := pidOf(t, s)
	if _, err := s.Do(context.Background(), []byte("bad")); !errors.Is(err, ur.ErrInvalidValue) || errors.Is(err, ur.ErrDeviceLost) {
		t.Fatalf("Do(bad) = %v, want ErrInvalidValue", err)
	}
	if next := pidOf(t, s); next != first {
		t.Errorf("after an ordinary error the job ran in worker %s, want the same worker %s", next, first)
	}
}

// TestWorkerDeathRestartsTheWorker: a worker that dies in a job gives
// ErrWorkerExited, and the next job gets a new worker.
func TestWorkerDeathRestartsTheWorker(t *testing.T) {
	s := newSupervisor(t)
	first := pidOf(t, s)
	if _, err := s.Do(context.Background(), []byte("crash")); !errors.Is(err, supervise.ErrWorkerExited) || !strings.Contains(err.Error(), "exit status 7") {
		t.Fatalf("Do(crash) = %v, want ErrWorkerExited with the exit status", err)
	}
	if next := pidOf(t, s); next == first {
		t.Errorf("the job after the crash ran in the dead worker %s", first)
	}
}

// TestHungJobKillsTheWorker: a job still running when its context ends is
// abandoned, its worker killed, and the next job gets a new worker.
func TestHungJobKillsTheWorker(t *testing.T) {
	s := newSupervisor(t)
	first := pidOf(t, s)
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	if _, err := s.Do(ctx, []byte("hang")); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Do(hang) = %v, want context.DeadlineExceeded", err)
	}
	if next := pidOf(t, s); next == first {
		t.Errorf("the job after the hang ran in the killed worker %s", first)
	}
}

// TestCloseThenDo: Close ends the worker, and a Supervisor closed takes
// no more jobs.
func TestCloseThenDo(t *testing.T) {
	s := supervise.New(supervise.Config{})
	pidOf(t, s)
	if err := s.Close(); err != nil {
		t.Errorf("Close: %v (the worker should exit 0 at the end of its jobs)", err)
	}
	if _, err := s.Do(context.Background(), []byte("pid")); err == nil {
		t.Error("Do after Close succeeded, want an error")
	}
}
