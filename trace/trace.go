package trace

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// Process ids of the trace: the host's goroutines and the device queues.
const (
	HostPID   = 1
	DevicePID = 2
)

// Options configures a Recorder.
type Options struct {
	// FlushInterval is how often pending events go to the file; 0 means
	// 200 ms.
	FlushInterval time.Duration
	// Warn receives the recorder's warnings (a failed write); nil means
	// os.Stderr.
	Warn io.Writer
}

// flushAt is how many pending bytes make the next event write them.
const flushAt = 256 << 10

// Recorder writes one trace file. Its methods may be called from any
// goroutine.
type Recorder struct {
	start time.Time
	path  string
	warn  io.Writer

	mu      sync.Mutex
	f       *os.File
	buf     []byte
	written int64 // bytes on disk up to the last whole event (the trailer follows)
	events  int64
	failed  bool // a write failed: events are dropped
	closed  bool
	lanes   []lane // the host's tracks (lanes.go)
	queues  map[uint64]bool

	dropped atomic.Int64
	stop    chan struct{}
	done    chan struct{}
}

var active atomic.Pointer[Recorder]

// Active returns the recorder that Start made and Stop has not stopped,
// or nil: one atomic load.
func Active() *Recorder { return active.Load() }

// ErrActive is Start's error while a recorder is active.
var ErrActive = errors.New("trace: a trace is already being recorded")

// Start creates the trace file at path and makes its recorder the active
// one. A path that cannot be created is an error and nothing is recorded.
func Start(path string, opts Options) (*Recorder, error) {
	r, err := Create(path, opts)
	if err != nil {
		return nil, err
	}
	if !active.CompareAndSwap(nil, r) {
		r.Close()
		os.Remove(path)
		return nil, ErrActive
	}
	return r, nil
}

// Stop makes no recorder active and closes the one that was, if any.
func Stop() error {
	r := active.Swap(nil)
	if r == nil {
		return nil
	}
	return r.Close()
}

// Create creates a trace file at path without making it active.
func Create(path string, opts Options) (*Recorder, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o644)
	if err != nil {
		return nil, fmt.Errorf("trace: %w", err)
	}
	r := &Recorder{
		start:  time.Now(),
		path:   path,
		warn:   opts.Warn,
		f:      f,
		queues: make(map[uint64]bool),
		stop:   make(chan struct{}),
		done:   make(chan struct{}),
	}
	if r.warn == nil {
		r.warn = os.Stderr
	}
	r.buf = append(r.buf, '[')
	r.meta(HostPID, 0, "process_name", "host: "+progName())
	r.meta(HostPID, 0, "process_sort_index", "")
	r.meta(DevicePID, 0, "process_name", "device queues")
	r.flushLocked()
	if r.failed {
		f.Close()
		return nil, fmt.Errorf("trace: cannot write %s", path)
	}
	every := opts.FlushInterval
	if every <= 0 {
		every = 200 * time.Millisecond
	}
	go r.flusher(every)
	return r, nil
}

func progName() string {
	if len(os.Args) == 0 {
		return "?"
	}
	return os.Args[0]
}

// Path returns the trace file's path.
func (r *Recorder) Path() string { return r.path }

// Now returns the time since the trace started, in nanoseconds: the
// clock of every event.
func (r *Recorder) Now() int64 { return int64(time.Since(r.start)) }

// Since converts a time.Time to the trace's clock.
func (r *Recorder) Since(t time.Time) int64 { return int64(t.Sub(r.start)) }

// Events returns how many events were written or are pending, and how many
// were dropped after a write failed.
func (r *Recorder) Events() (written, dropped int64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.events, r.dropped.Load()
}

func (r *Recorder) flusher(every time.Duration) {
	defer close(r.done)
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-r.stop:
			return
		case <-t.C:
			r.mu.Lock()
			r.flushLocked()
			r.mu.Unlock()
		}
	}
}

// Flush writes the pending events to the file.
func (r *Recorder) Flush() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.flushLocked()
	if r.failed {
		return fmt.Errorf("trace: writing %s failed", r.path)
	}
	return nil
}

// trailer closes the array after the last event written: each flush
// writes it after its events and the next flush writes over it, so that
// the file is a complete trace after every flush, also where the program
// exits without Stop (Go has no exit hook) and loses only the events of
// its last interval.
const trailer = "\n]\n"

// flushLocked writes r.buf, which holds whole events only, and the
// trailer after them, over the previous trailer. A write that fails (a
// full disk) is cut back to the last whole event, so the file stays a
// valid unterminated array, and the recorder stops recording.
func (r *Recorder) flushLocked() {
	if r.failed || r.f == nil || len(r.buf) == 0 { // Create's flush wrote the first trailer
		r.buf = r.buf[:0]
		return
	}
	out := append(r.buf, trailer...)
	r.buf = r.buf[:0]
	if _, err := r.f.WriteAt(out, r.written); err != nil {
		r.failed = true
		r.f.Truncate(r.written)
		fmt.Fprintf(r.warn, "gour: trace %s: %v; recording stops here (the file ends at the last whole event; `urtrace repair %s` closes it)\n", r.path, err, r.path)
		return
	}
	r.written += int64(len(out) - len(trailer))
}

// Close writes the pending events and the closing bracket and closes the
// file. It may be called more than once.
func (r *Recorder) Close() error {
	active.CompareAndSwap(r, nil)
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return nil
	}
	r.closed = true
	close(r.stop)
	r.flushLocked()
	failed := r.failed
	err := r.f.Close()
	r.f = nil
	r.mu.Unlock()
	<-r.done
	if failed {
		return fmt.Errorf("trace: writing %s failed; `urtrace repair` closes what was written", r.path)
	}
	if err != nil {
		return fmt.Errorf("trace: %w", err)
	}
	return nil
}

func (r *Recorder) addLocked(ev []byte) {
	if r.failed || r.closed {
		r.dropped.Add(1)
		return
	}
	r.buf = append(r.buf, ",\n"[boolInt(r.events == 0):]...)
	r.buf = append(r.buf, ev...)
	r.events++
	if len(r.buf) >= flushAt {
		r.flushLocked()
	}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// meta appends a metadata event naming a process or thread (sort index
// events take no name). The caller holds r.mu or owns r.
func (r *Recorder) meta(pid int, tid int64, kind, name string) {
	var buf [256]byte
	b := append(buf[:0], `{"ph":"M","name":"`...)
	b = append(b, kind...)
	b = append(b, `","pid":`...)
	b = strconv.AppendInt(b, int64(pid), 10)
	b = append(b, `,"tid":`...)
	b = strconv.AppendInt(b, tid, 10)
	if kind == "process_sort_index" || kind == "thread_sort_index" {
		b = append(b, `,"args":{"sort_index":`...)
		b = strconv.AppendInt(b, int64(pid), 10)
		b = append(b, `}}`...)
	} else {
		b = append(b, `,"args":{"name":`...)
		b = appendString(b, name)
		b = append(b, `}}`...)
	}
	r.addLocked(b)
}

// NameQueue names the device track of queue id (process 2, thread id).
func (r *Recorder) NameQueue(id uint64, name string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.queues[id] {
		return
	}
	r.queues[id] = true
	r.meta(DevicePID, int64(id), "thread_name", name)
}

// Args is a short form of an event's arguments, built without allocating:
// a fixed buffer of JSON members. What does not fit is cut.
type Args struct {
	b [224]byte
	n int
}

func (a *Args) key(k string) bool {
	need := len(k) + 4
	if a.n+need > len(a.b)-16 {
		return false
	}
	if a.n > 0 {
		a.b[a.n] = ','
		a.n++
	}
	a.b[a.n] = '"'
	a.n++
	a.n += copy(a.b[a.n:], k)
	a.n += copy(a.b[a.n:], `":`)
	return true
}

// Uint adds a number.
func (a *Args) Uint(k string, v uint64) {
	if !a.key(k) {
		return
	}
	var tmp [20]byte
	s := strconv.AppendUint(tmp[:0], v, 10)
	if a.n+len(s) > len(a.b) {
		return
	}
	a.n += copy(a.b[a.n:], s)
}

// Int adds a signed number.
func (a *Args) Int(k string, v int64) {
	if v >= 0 {
		a.Uint(k, uint64(v))
		return
	}
	if !a.key(k) {
		return
	}
	var tmp [21]byte
	s := strconv.AppendInt(tmp[:0], v, 10)
	a.n += copy(a.b[a.n:], s)
}

// Str adds a string, cut to what fits.
func (a *Args) Str(k, v string) {
	if !a.key(k) {
		return
	}
	room := len(a.b) - a.n - 2
	if len(v)*2 > room { // quoting may double a byte; keep it simple
		v = v[:max(0, room/2-3)] + "..."
	}
	var tmp [len(Args{}.b)]byte
	s := appendString(tmp[:0], v)
	if a.n+len(s) > len(a.b) {
		return
	}
	a.n += copy(a.b[a.n:], s)
}

// Complete records an event from start to end (trace clock, ns) on a
// host track (lanes.go). args may be nil.
func (r *Recorder) Complete(cat, name string, start, end int64, args *Args) {
	var head, tail [512]byte
	h := r.appendHead(head[:0], cat, name, "X", start, HostPID)
	t := append(tail[:0], `,"dur":`...)
	t = appendMicros(t, max(end-start, 0))
	t = appendArgs(t, args)
	t = append(t, '}')
	r.addHost(h, t, start, max(end, start))
}

// Queue records a command that ran on a device queue's track from start
// to end (trace clock, ns).
func (r *Recorder) Queue(queue uint64, cat, name string, start, end int64, args *Args) {
	r.CompleteOn(DevicePID, int64(queue), cat, name, start, end, args)
}

// Instant records a point event on a host track.
func (r *Recorder) Instant(cat, name string, args *Args) {
	var head, tail [512]byte
	now := r.Now()
	h := r.appendHead(head[:0], cat, name, "i", now, HostPID)
	t := append(tail[:0], `,"s":"t"`...)
	t = appendArgs(t, args)
	t = append(t, '}')
	r.addHost(h, t, now, now)
}

// CompleteOn records a complete event on any track: a device queue's,
// or a host track chosen by the caller.
func (r *Recorder) CompleteOn(pid int, tid int64, cat, name string, start, end int64, args *Args) {
	var buf [512]byte
	b := r.appendHead(buf[:0], cat, name, "X", start, pid)
	b = strconv.AppendInt(b, tid, 10)
	b = append(b, `,"dur":`...)
	b = appendMicros(b, max(end-start, 0))
	b = appendArgs(b, args)
	b = append(b, '}')
	r.mu.Lock()
	if pid == HostPID {
		for int64(len(r.lanes)) < tid {
			r.lanes = append(r.lanes, lane{})
			r.meta(HostPID, int64(len(r.lanes)), "thread_name", hostTrackName(int64(len(r.lanes))))
		}
	}
	r.addLocked(b)
	r.mu.Unlock()
}

// addHost adds a host event from start to end, head ending in its
// "tid": and tail the rest, on the lane laneOf picks.
func (r *Recorder) addHost(head, tail []byte, start, end int64) {
	r.mu.Lock()
	tid, isNew := r.laneOf(start, end)
	if isNew {
		r.meta(HostPID, tid, "thread_name", hostTrackName(tid))
	}
	ev := strconv.AppendInt(head, tid, 10)
	r.addLocked(append(ev, tail...))
	r.mu.Unlock()
}

// hostTrackName names host track tid.
func hostTrackName(tid int64) string { return "host " + strconv.FormatInt(tid, 10) }

// appendHead appends an event's fields up to its "tid": (its value the
// caller's to append).
func (r *Recorder) appendHead(b []byte, cat, name, ph string, ts int64, pid int) []byte {
	b = append(b, `{"name":`...)
	b = appendString(b, name)
	b = append(b, `,"cat":"`...)
	b = append(b, cat...)
	b = append(b, `","ph":"`...)
	b = append(b, ph...)
	b = append(b, `","ts":`...)
	b = appendMicros(b, ts)
	b = append(b, `,"pid":`...)
	b = strconv.AppendInt(b, int64(pid), 10)
	return append(b, `,"tid":`...)
}

func appendArgs(b []byte, a *Args) []byte {
	if a == nil || a.n == 0 {
		return b
	}
	b = append(b, `,"args":{`...)
	b = append(b, a.b[:a.n]...)
	return append(b, '}')
}

// appendMicros writes ns as microseconds with three decimals.
func appendMicros(b []byte, ns int64) []byte {
	if ns < 0 {
		b = append(b, '-')
		ns = -ns
	}
	b = strconv.AppendInt(b, ns/1000, 10)
	frac := ns % 1000
	b = append(b, '.', byte('0'+frac/100), byte('0'+frac/10%10), byte('0'+frac%10))
	return b
}

// appendString appends s as a JSON string.
func appendString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"' || c == '\\':
			b = append(b, '\\', c)
		case c < 0x20:
			b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&15])
		default:
			b = append(b, c)
		}
	}
	return append(b, '"')
}

// Span is a timed region on a host track, from Begin to
// End. The zero Span (no recorder active) records nothing.
type Span struct {
	r     *Recorder
	start int64
	cat   string
	name  string
}

// Begin starts a span of category cat (such as "cache" or "programmgr")
// when a recorder is active: one atomic load when none is.
func Begin(cat, name string) Span {
	r := active.Load()
	if r == nil {
		return Span{}
	}
	return Span{r: r, start: r.Now(), cat: cat, name: name}
}

// On reports whether the span records.
func (s Span) On() bool { return s.r != nil }

// End ends the span. kv are argument pairs, key then value.
func (s Span) End(kv ...string) {
	if s.r == nil {
		return
	}
	var a Args
	for i := 0; i+1 < len(kv); i += 2 {
		a.Str(kv[i], kv[i+1])
	}
	s.r.Complete(s.cat, s.name, s.start, s.r.Now(), &a)
}

// Mark records a point event of category cat on a host track when a recorder is active: one atomic load when none is. kv are
// key, value pairs as log/slog takes them; values are formatted with fmt
// only when recording.
func Mark(cat, name string, kv ...any) {
	r := active.Load()
	if r == nil {
		return
	}
	var a Args
	for i := 0; i+1 < len(kv); i += 2 {
		k, _ := kv[i].(string)
		a.Str(k, fmt.Sprint(kv[i+1]))
	}
	r.Instant(cat, name, &a)
}
