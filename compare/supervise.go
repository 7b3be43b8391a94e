package compare

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/gour-dev/gour/compare/record"
)

// The parent's side of the child processes (child.go is the child's): it
// starts a child for a device's remaining items, reads its output through
// the child kind's protocol, kills it past an item's timeout, records the
// item it was on when it hung or died, and starts the next child with
// what is left.

// protocol is a kind of child as its parent reads it: its mode, a reader
// of its output (a new one per child process), the name of a record, and
// the record of an item the child did not finish.
type protocol[R any] struct {
	mode   string
	reader func() lineReader[R]
	name   func(R) string
	// unfinished is the record of an item the child was killed on past
	// its timeout (timedOut) or that ended with the child, after took;
	// why says what happened.
	unfinished func(name string, timedOut bool, took time.Duration, why string) R
}

// lineReader reads one child's output line by line.
type lineReader[R any] interface {
	// line takes one line; when it completes an item, it returns the
	// item's record and true.
	line(l string) (R, bool)
	// flush returns the record of an item that the end of the output
	// completes, if any.
	flush() (R, bool)
	// running is the item the child works on, "" between items.
	running() string
}

// metricsProtocol reads a metrics child's metricLines.
var metricsProtocol = protocol[record.Metric]{
	mode:   childMetrics,
	reader: func() lineReader[record.Metric] { return &metricReader{} },
	name:   func(m record.Metric) string { return m.Name },
	unfinished: func(name string, timedOut bool, took time.Duration, why string) record.Metric {
		def, _ := lookupMetric(name)
		m := record.Metric{Name: name, Unit: def.Unit, Better: def.Better, Check: record.CheckError, Detail: why, Seconds: took.Seconds()}
		if timedOut {
			m.Check = record.CheckTimeout
		}
		return m
	},
}

// casesProtocol reads a conformance child's go test output.
var casesProtocol = protocol[record.Case]{
	mode:   childConformance,
	reader: func() lineReader[record.Case] { return newVerboseParser() },
	name:   func(c record.Case) string { return c.Name },
	unfinished: func(name string, timedOut bool, took time.Duration, why string) record.Case {
		c := record.Case{Name: name, Status: record.Fail, Duration: took.Seconds(), Reason: why}
		if timedOut {
			c.Status = record.Timeout
		}
		return c
	},
}

// metricReader reads metricLines.
type metricReader struct{ current string }

func (r *metricReader) line(l string) (record.Metric, bool) {
	var ml metricLine
	if json.Unmarshal([]byte(l), &ml) != nil {
		return record.Metric{}, false // not the protocol: a driver writing to stdout
	}
	switch {
	case ml.Start != "":
		r.current = ml.Start
	case ml.Metric != nil:
		r.current = ""
		return *ml.Metric, true
	}
	return record.Metric{}, false
}

func (r *metricReader) flush() (record.Metric, bool) { return record.Metric{}, false }
func (r *metricReader) running() string              { return r.current }

// A child starting up (finding its device, making its context, building
// its kernels) or between two items is allowed startAllowance, or the
// item timeout where that is longer: a short item timeout must not kill a
// child before it has begun (a driver's context takes seconds on some).
const startAllowance = time.Minute

// supervise runs names, the items of p's children, on cfg.Device in
// children, a new one after each that hangs or dies, and returns their
// records in the order of names. Each item has timeout from its start. It
// stops early when ctx ends, when a child ends before finishing any item
// (which then all fail with the child's error: the next child would fail
// the same way), or when a child finishes none of its items.
func supervise[R any](ctx context.Context, p protocol[R], cfg childConfig, names []string, timeout time.Duration, env []string, step func(string)) []R {
	results := make(map[string]R, len(names))
	done := func(r R) {
		results[p.name(r)] = r
		step(p.name(r))
	}
	remaining := slices.Clone(names)
	for len(remaining) > 0 && ctx.Err() == nil {
		cfg.Items = remaining
		progressed, err := superviseChild(ctx, p, cfg, timeout, env, done)
		if err != nil {
			for _, n := range remaining {
				if _, ok := results[n]; !ok {
					done(p.unfinished(n, false, 0, err.Error()))
				}
			}
			break
		}
		remaining = slices.DeleteFunc(remaining, func(n string) bool { _, ok := results[n]; return ok })
		if !progressed {
			break
		}
	}
	out := make([]R, 0, len(names))
	for _, n := range names {
		if r, ok := results[n]; ok {
			out = append(out, r)
		}
	}
	return out
}

// superviseChild runs one child on cfg.Items, giving done each record, and
// reports whether it finished an item. The error is why a child that
// finished none ended between items (or failed to start).
func superviseChild[R any](ctx context.Context, p protocol[R], cfg childConfig, timeout time.Duration, env []string, done func(R)) (progressed bool, err error) {
	c, err := startChild(ctx, p.mode, cfg, env)
	if err != nil {
		return false, err
	}
	rd := p.reader()
	// started is when the current item started or, between items, when
	// the last line came: an item has timeout from its start, and a
	// child silent between items (stuck starting up) is killed too.
	started := time.Now()
	for {
		limit := timeout
		if rd.running() == "" {
			limit = max(timeout, startAllowance)
		}
		line, err := c.next(started.Add(limit))
		if err != nil { // the output ended: the last item's record may be complete
			if r, ok := rd.flush(); ok {
				done(r)
				progressed = true
			}
			switch current := rd.running(); {
			case err == io.EOF:
			case current != "":
				why := err.Error()
				if err == errTimeout {
					why = fmt.Sprintf("no result within %v: the process running it was killed", timeout)
				}
				done(p.unfinished(current, err == errTimeout, time.Since(started), why))
				progressed = true
			case !progressed:
				if err == errTimeout {
					err = fmt.Errorf("the child process printed nothing for %v and was killed", limit)
				}
				return false, err
			}
			return progressed, nil
		}
		before := rd.running()
		if r, ok := rd.line(line); ok {
			done(r)
			progressed = true
		}
		if now := rd.running(); now == "" || now != before {
			started = time.Now()
		}
	}
}

// child is one child process whose stdout is read line by line, with a
// timeout on each item it works on.
type child struct {
	lines  chan string
	done   chan error
	stderr *tailBuffer
	cancel context.CancelFunc
}

func startChild(ctx context.Context, mode string, cfg childConfig, env []string) (*child, error) {
	ctx, cancel := context.WithCancel(ctx)
	cmd := childCommand(ctx, mode, cfg, env)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		cancel()
		return nil, err
	}
	c := &child{lines: make(chan string, 64), done: make(chan error, 1), stderr: &tailBuffer{max: 8 << 10}, cancel: cancel}
	cmd.Stderr = c.stderr
	if err := cmd.Start(); err != nil {
		cancel()
		return nil, err
	}
	go func() {
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 64<<10), 16<<20)
		for sc.Scan() {
			c.lines <- sc.Text()
		}
		close(c.lines)
		c.done <- cmd.Wait()
	}()
	return c, nil
}

// errTimeout is what next returns when an item ran past its timeout: the
// child has been killed.
var errTimeout = errors.New("timed out")

// next returns the child's next line; at the end, io.EOF or how the child
// failed. With a deadline (not zero) it kills the child's process group
// and returns errTimeout when no line comes before the deadline. The
// deadline is the item's, not the line's: a case that keeps printing its
// sub-tests is bounded all the same.
func (c *child) next(deadline time.Time) (string, error) {
	var expire <-chan time.Time
	if !deadline.IsZero() {
		t := time.NewTimer(time.Until(deadline))
		defer t.Stop()
		expire = t.C
	}
	select {
	case line, ok := <-c.lines:
		if ok {
			return line, nil
		}
		if err := <-c.done; err != nil {
			c.cancel()
			if tail := lastLines(c.stderr.String(), 4); tail != "" {
				return "", fmt.Errorf("the child process ended: %v: %s", err, tail)
			}
			return "", fmt.Errorf("the child process ended: %v", err)
		}
		c.cancel()
		return "", io.EOF
	case <-expire:
		c.cancel()
		for range c.lines { // until the killed group's output closes, or WaitDelay
		}
		<-c.done
		return "", errTimeout
	}
}

// childWaitDelay is how long a killed child's output is read after it died.
const childWaitDelay = 5 * time.Second

// childExecutable is the program children run: this one.
var childExecutable = os.Executable

// childCommand returns the command that runs a child of mode with cfg,
// env added to this process's environment.
func childCommand(ctx context.Context, mode string, cfg childConfig, env []string) *exec.Cmd {
	exe, err := childExecutable()
	if err != nil {
		exe = os.Args[0]
	}
	data, _ := json.Marshal(cfg)
	cmd := exec.CommandContext(ctx, exe)
	cmd.Env = append(os.Environ(), envChild+"="+mode, envConfig+"="+string(data))
	cmd.Env = append(cmd.Env, env...)
	killGroupOnCancel(cmd)
	// Once the child is killed, its output may still be held open by a
	// process it started that outlived it; stop waiting for that after a
	// while rather than for as long as that process lives.
	cmd.WaitDelay = childWaitDelay
	return cmd
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	buf []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if over := len(t.buf) - t.max; over > 0 {
		t.buf = t.buf[over:]
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.buf)
}

// lastLines returns the last n non-empty lines of s, joined by " | ".
func lastLines(s string, n int) string {
	var lines []string
	for l := range strings.SplitSeq(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			lines = append(lines, l)
		}
	}
	return strings.Join(lines[max(0, len(lines)-n):], " | ")
}
