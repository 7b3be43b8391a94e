package supervise

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"time"

	"github.com/gour-dev/gour/ur"
)

// EnvWorker is set to "1" in a worker's environment; ServeIfWorker serves
// jobs where it is set.
const EnvWorker = "GOUR_SUPERVISE_WORKER"

// Handler runs one job in the worker process. An error that matches
// ur.ErrDeviceLost ends the worker after its result is sent: the device is
// of no more use to the process.
type Handler func(ctx context.Context, job []byte) ([]byte, error)

// ErrWorkerExited matches the error of a job whose worker died before
// answering: a crash in the driver, an os.Exit, a signal, or a kill
// after the job's context ended.
var ErrWorkerExited = errors.New("supervise: the worker exited")

// JobError is a job's error as the worker's Handler returned it, carried
// across the process boundary: its text and its gour result code, so that
// errors.Is(err, ur.ErrDeviceLost) holds on the Supervisor's side.
type JobError struct {
	Result  ur.Result // ur.ResultOf of the Handler's error
	Message string    // its Error()
}

func (e *JobError) Error() string { return "supervise: job failed: " + e.Message }

// Is makes errors.Is(err, ur.ErrX) true for the code the worker's error
// carried.
func (e *JobError) Is(target error) bool {
	r, ok := target.(ur.Result)
	return ok && r == e.Result
}

// Config says how to start a worker.
type Config struct {
	// Command makes the command of a new worker; nil runs the program
	// itself (os.Args[0] with its arguments). The Supervisor adds
	// EnvWorker=1 to its environment (os.Environ() when Env is nil) and
	// the two pipes of the protocol.
	Command func() *exec.Cmd
	// Stderr receives the workers' standard output and error; nil is
	// os.Stderr.
	Stderr io.Writer
}

// Supervisor sends jobs to a worker process, one at a time, and replaces
// the worker when it loses its device or dies. Its methods are safe for
// concurrent use; jobs queue for the one worker (use several Supervisors
// for several devices).
type Supervisor struct {
	cfg    Config
	mu     sync.Mutex
	w      *worker // nil until the first job, and after the worker ended
	starts int
	closed bool
}

// New returns a Supervisor; its first job starts the first worker.
func New(cfg Config) *Supervisor {
	if cfg.Stderr == nil {
		cfg.Stderr = os.Stderr
	}
	return &Supervisor{cfg: cfg}
}

// worker is one child process and its ends of the pipes.
type worker struct {
	cmd  *exec.Cmd
	jobs *os.File      // the Supervisor writes jobs here (the worker's fd 3)
	out  *bufio.Reader // and reads results here (the worker's fd 4)
	outF *os.File

	waitOnce sync.Once
	waitErr  error
}

// wait reaps the worker once, for whichever of Do's goroutines gets there
// first, and returns how it ended.
func (w *worker) wait() error {
	w.waitOnce.Do(func() { w.waitErr = w.cmd.Wait() })
	return w.waitErr
}

// Do runs job in the worker, starting one if there is none, and returns
// the Handler's result. A Handler error comes back as a *JobError; after
// one matching ur.ErrDeviceLost the worker is gone and the next Do starts
// a new one. A worker that dies during the job gives ErrWorkerExited, and
// one still running when ctx ends is killed (a kernel that hangs) and Do
// returns ctx's error: either way the next Do starts a new worker. Do does
// not run a job again: a job that faulted the device may fault it again,
// and whether to retry is the caller's call.
func (s *Supervisor) Do(ctx context.Context, job []byte) ([]byte, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, errors.New("supervise: Do after Close")
	}
	if s.w == nil {
		w, err := s.start()
		if err != nil {
			return nil, err
		}
		s.w = w
	}
	w := s.w
	type answer struct {
		res []byte
		err error
		end bool // the worker ends after this answer
	}
	done := make(chan answer, 1)
	go func() {
		res, err, end := w.exchange(job)
		done <- answer{res, err, end}
	}()
	select {
	case a := <-done:
		if a.end {
			s.stop()
		}
		return a.res, a.err
	case <-ctx.Done():
		_ = w.cmd.Process.Kill() // ends exchange, which reaps it
		<-done
		s.stop()
		return nil, fmt.Errorf("supervise: job abandoned and its worker killed: %w", context.Cause(ctx))
	}
}

// Starts reports how many workers the Supervisor has started: one more
// than the number of restarts.
func (s *Supervisor) Starts() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.starts
}

// Close ends the worker, if any: its job pipe closes and it exits.
func (s *Supervisor) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	if s.w == nil {
		return nil
	}
	w := s.w
	s.w = nil
	w.jobs.Close() // the worker sees EOF and returns
	err := w.wait()
	w.outF.Close()
	return err
}

func (s *Supervisor) start() (*worker, error) {
	var cmd *exec.Cmd
	if s.cfg.Command != nil {
		cmd = s.cfg.Command()
	} else {
		cmd = exec.Command(os.Args[0], os.Args[1:]...)
	}
	if cmd.Env == nil {
		cmd.Env = os.Environ()
	}
	cmd.Env = append(cmd.Env, EnvWorker+"=1")
	cmd.Stdout, cmd.Stderr = s.cfg.Stderr, s.cfg.Stderr
	jobsR, jobsW, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("supervise: %w", err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		jobsR.Close()
		jobsW.Close()
		return nil, fmt.Errorf("supervise: %w", err)
	}
	cmd.ExtraFiles = []*os.File{jobsR, outW} // fds 3 and 4
	err = cmd.Start()
	jobsR.Close() // the worker's ends
	outW.Close()
	if err != nil {
		jobsW.Close()
		outR.Close()
		return nil, fmt.Errorf("supervise: starting a worker: %w", err)
	}
	s.starts++
	return &worker{cmd: cmd, jobs: jobsW, out: bufio.NewReader(outR), outF: outR}, nil
}

// stop kills and reaps the current worker.
func (s *Supervisor) stop() {
	w := s.w
	s.w = nil
	if w == nil {
		return
	}
	w.jobs.Close()
	_ = w.cmd.Process.Kill() // it may have exited already
	_ = w.wait()             // a killed worker's status says nothing more
	w.outF.Close()
}

// Answers: a status byte, then a length-prefixed payload (the result, or
// the error's text after its result code).
const (
	statusOK   byte = 0
	statusErr  byte = 1
	statusLost byte = 2 // an error with ur.ErrDeviceLost: the worker exits after it
)

// exchange sends job and reads the answer; end says the worker is done
// (it lost its device, or died).
func (w *worker) exchange(job []byte) (res []byte, err error, end bool) {
	if err := writeFrame(w.jobs, job); err != nil {
		return nil, w.exited(err), true
	}
	status, err := w.out.ReadByte()
	if err != nil {
		return nil, w.exited(err), true
	}
	payload, err := readFrame(w.out)
	if err != nil {
		return nil, w.exited(err), true
	}
	switch status {
	case statusOK:
		return payload, nil, false
	case statusErr, statusLost:
		if len(payload) < 4 {
			return nil, fmt.Errorf("supervise: malformed error from the worker"), true
		}
		je := &JobError{Result: ur.Result(int32(binary.LittleEndian.Uint32(payload))), Message: string(payload[4:])}
		return nil, je, status == statusLost
	}
	return nil, fmt.Errorf("supervise: unknown answer %d from the worker", status), true
}

// exited is the error of a worker whose pipe broke: it died.
func (w *worker) exited(ioErr error) error {
	// It died, or closed its pipe and is exiting: give it a moment to
	// end by itself, so that its own exit status is what is reported.
	kill := time.AfterFunc(5*time.Second, func() { _ = w.cmd.Process.Kill() })
	werr := w.wait()
	kill.Stop()
	if werr == nil {
		werr = ioErr
	}
	return fmt.Errorf("%w during the job: %v", ErrWorkerExited, werr)
}

func writeFrame(w io.Writer, b []byte) error {
	var n [4]byte
	binary.LittleEndian.PutUint32(n[:], uint32(len(b)))
	if _, err := w.Write(n[:]); err != nil {
		return err
	}
	_, err := w.Write(b)
	return err
}

func readFrame(r io.Reader) ([]byte, error) {
	var n [4]byte
	if _, err := io.ReadFull(r, n[:]); err != nil {
		return nil, err
	}
	b := make([]byte, binary.LittleEndian.Uint32(n[:]))
	_, err := io.ReadFull(r, b)
	return b, err
}

// ServeIfWorker serves jobs with h and exits the process when it is a
// worker (EnvWorker is set); elsewhere it returns at once. Call it first
// in main, or in TestMain.
func ServeIfWorker(h Handler) {
	if os.Getenv(EnvWorker) != "1" {
		return
	}
	os.Exit(serve(context.Background(), h, os.NewFile(3, "supervise-jobs"), os.NewFile(4, "supervise-results")))
}

// serve answers the jobs read from in until in ends (exit status 0) or a
// job loses the device (status 3, after its answer).
func serve(ctx context.Context, h Handler, in io.Reader, out io.Writer) int {
	br := bufio.NewReader(in)
	for {
		job, err := readFrame(br)
		if err != nil {
			return 0 // the Supervisor closed the pipe, or went away
		}
		res, herr := h(ctx, job)
		status, payload := statusOK, res
		if herr != nil {
			status = statusErr
			if errors.Is(herr, ur.ErrDeviceLost) {
				status = statusLost
			}
			payload = binary.LittleEndian.AppendUint32(nil, uint32(int32(ur.ResultOf(herr))))
			payload = append(payload, herr.Error()...)
		}
		if _, err := out.Write([]byte{status}); err != nil {
			return 1
		}
		if err := writeFrame(out, payload); err != nil {
			return 1
		}
		if status == statusLost {
			return 3
		}
	}
}
