package ur

import (
	"errors"
	"sync"

	"github.com/gour-dev/gour/trace"
	"github.com/gour-dev/gour/ur/driver"
)

// The tracing layer's side of ur: each traced call is a span on a host
// track (trace/lanes.go), with the handles it names by id, a short form
// of its arguments and its result; a command of a queue that profiles is also a
// span on its queue's track, at its device times, read from its event
// when the queue finishes (Queue.Finish, Queue.Release, StopTrace).

// traced is a handle a traced call names.
type traced interface{ traceObj() *object }

func (c *Context) traceObj() *object {
	if c == nil {
		return nil
	}
	return &c.object
}
func (q *Queue) traceObj() *object {
	if q == nil {
		return nil
	}
	return &q.object
}
func (m *Mem) traceObj() *object {
	if m == nil {
		return nil
	}
	return &m.object
}
func (p *Program) traceObj() *object {
	if p == nil {
		return nil
	}
	return &p.object
}
func (k *Kernel) traceObj() *object {
	if k == nil {
		return nil
	}
	return &k.object
}
func (e *Event) traceObj() *object {
	if e == nil {
		return nil
	}
	return &e.object
}
func (u *USM) traceObj() *object {
	if u == nil {
		return nil
	}
	return &u.object
}
func (p *PreparedLaunch) traceObj() *object {
	if p == nil {
		return nil
	}
	return &p.object
}
func (l *ArgLaunch) traceObj() *object {
	if l == nil {
		return nil
	}
	return &l.object
}
func (cb *CommandBuffer) traceObj() *object {
	if cb == nil {
		return nil
	}
	return &cb.object
}

// tcall is a traced call in progress.
type tcall struct {
	r     *trace.Recorder
	op    string
	start int64
	args  trace.Args
}

// beginCall starts the record of op on handles h (nil ones are left out).
func beginCall(r *trace.Recorder, op string, h ...traced) tcall {
	c := tcall{r: r, op: op}
	keys := [...]string{"h0", "h1", "h2"}
	for i, x := range h {
		if i >= len(keys) {
			break
		}
		if o := x.traceObj(); o != nil {
			c.args.Uint(handleKey(x, keys[i]), o.traceID())
		}
	}
	c.start = r.Now()
	return c
}

func handleKey(x traced, dflt string) string {
	switch x.(type) {
	case *Context:
		return "context"
	case *Queue:
		return "queue"
	case *Mem:
		return "mem"
	case *Program:
		return "program"
	case *Kernel:
		return "kernel"
	case *Event:
		return "event"
	case *USM:
		return "usm"
	case *Device:
		return "device"
	case *Sampler:
		return "sampler"
	case *VirtualMem:
		return "virtual_mem"
	case *PhysicalMem:
		return "physical_mem"
	case *IPCEvent:
		return "ipc_event"
	}
	return dflt
}

// end ends the call with its error (nil: "ok").
func (c *tcall) end(err *error) {
	end := c.r.Now()
	res := "ok"
	if err != nil && *err != nil {
		res = resultName(*err)
	}
	c.args.Str("result", res)
	c.r.Complete("ur", c.op, c.start, end, &c.args)
}

// endNew ends a call that made handle h.
func (c *tcall) endNew(h traced, err *error) {
	if err == nil || *err == nil {
		if o := h.traceObj(); o != nil {
			c.args.Uint("new", o.traceID())
		}
	}
	c.end(err)
}

// endEvent ends a call that enqueued a command on q and returned its
// event ev (nil when the caller asked for none): the command goes on the
// queue's track once its device times are known.
func (c *tcall) endEvent(q *Queue, ev *Event, err *error) {
	if ev != nil && (err == nil || *err == nil) {
		c.args.Uint("event", ev.traceObj().traceID())
		c.end(err)
		commandEnqueued(c, q, ev, false)
		return
	}
	c.end(err)
}

func resultName(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Result.String()
	}
	return err.Error()
}

// queueTrace is what the tracing layer keeps of a queue.
type queueTrace struct {
	profiles bool // the driver's queue profiles
	// The device clock's offset to the trace's, known to lie in [lo, hi]
	// from the enqueue calls' host times; set once anything is known.
	lo, hi  int64
	known   bool
	pending []pendingCmd
}

type pendingCmd struct {
	ev        *Event
	owned     bool // the layer's own event, released once read
	name      string
	args      trace.Args
	hostStart int64
	hostEnd   int64
}

var traceQueues struct {
	mu sync.Mutex
	m  map[*Queue]*queueTrace
}

// traceQueueProps returns the properties to make a queue with: profiling
// on while tracing, unless GOUR_TRACE_DEVICE=0.
func traceQueueProps(props QueueProperties) QueueProperties {
	if trace.Active() != nil && !traceNoDev.Load() {
		props.Profiling = true
	}
	return props
}

// queueMade records a new queue whose driver queue has drvProps.
func queueMade(q *Queue, drvProps QueueProperties) {
	r := trace.Active()
	if r == nil {
		return
	}
	name := "Queue #" + itoa(q.traceID())
	if q.device != nil {
		name += " (" + q.device.Name() + ")"
	}
	r.NameQueue(q.traceID(), name)
	traceQueues.mu.Lock()
	if traceQueues.m == nil {
		traceQueues.m = make(map[*Queue]*queueTrace)
	}
	traceQueues.m[q] = &queueTrace{profiles: drvProps.Profiling}
	traceQueues.mu.Unlock()
}

func itoa(v uint64) string {
	var b [20]byte
	i := len(b)
	for {
		i--
		b[i] = byte('0' + v%10)
		v /= 10
		if v == 0 {
			break
		}
	}
	return string(b[i:])
}

// queueProfiles reports whether the layer reads q's device times.
func queueProfiles(q *Queue) bool {
	traceQueues.mu.Lock()
	defer traceQueues.mu.Unlock()
	t := traceQueues.m[q]
	return t != nil && t.profiles
}

// maxPending is how many commands a queue keeps waiting for their device
// times before it looks for completed ones at the next enqueue.
const maxPending = 4096

// commandEnqueued keeps the event of a command of q for its device times,
// entered so that its driver event outlives a Release meanwhile; owned
// events are the layer's, released once read.
func commandEnqueued(c *tcall, q *Queue, ev *Event, owned bool) {
	if owned {
		ev.releasedNow() // the layer's own: no leak of the program's
	}
	traceQueues.mu.Lock()
	t := traceQueues.m[q]
	if t == nil || !t.profiles || !ev.life.enter() {
		traceQueues.mu.Unlock()
		if owned {
			ev.Release()
		}
		return
	}
	t.pending = append(t.pending, pendingCmd{ev: ev, owned: owned, name: c.op, args: c.args, hostStart: c.start, hostEnd: c.r.Now()})
	full := len(t.pending) >= maxPending
	traceQueues.mu.Unlock()
	if full {
		drainQueue(q, false)
	}
}

// drainQueue writes the device spans of q's completed commands; with
// all, it drops the others too (the queue is going away).
func drainQueue(q *Queue, all bool) {
	r := trace.Active()
	traceQueues.mu.Lock()
	t := traceQueues.m[q]
	if t == nil {
		traceQueues.mu.Unlock()
		return
	}
	list := t.pending
	t.pending = nil
	if all {
		delete(traceQueues.m, q)
	}
	traceQueues.mu.Unlock()
	var kept []pendingCmd
	for i := range list {
		p := &list[i]
		st, err := p.ev.drv.Status()
		if err == nil && st != driver.EventComplete && !all {
			kept = append(kept, *p)
			continue
		}
		if err == nil && st == driver.EventComplete && r != nil {
			if prof, err := p.ev.drv.Profiling(); err == nil && prof.End >= prof.Start && prof.End != 0 {
				writeDeviceSpan(r, q, t, p, prof)
			}
		}
		p.ev.life.leave()
		if p.owned {
			p.ev.Release()
		}
	}
	if len(kept) > 0 {
		traceQueues.mu.Lock()
		t.pending = append(kept, t.pending...)
		traceQueues.mu.Unlock()
	}
}

// writeDeviceSpan puts a command on its queue's track. The device clock
// is mapped to the trace's by an offset the host times of the enqueue
// calls bound: the command was queued (or submitted, or started) no
// earlier than the call began, and queued no later than it returned.
func writeDeviceSpan(r *trace.Recorder, q *Queue, t *queueTrace, p *pendingCmd, prof driver.Profiling) {
	traceQueues.mu.Lock()
	mark := prof.Queued
	upper := mark != 0
	if mark == 0 {
		mark = prof.Submit
	}
	if mark == 0 {
		mark = prof.Start
	}
	lo := p.hostStart - int64(mark)
	hi := p.hostEnd - int64(mark)
	if !t.known {
		t.lo, t.hi, t.known = lo, hi, true
		if !upper {
			t.hi = lo
		}
	} else {
		t.lo = max(t.lo, lo)
		if upper {
			t.hi = min(t.hi, hi)
		}
		t.hi = max(t.hi, t.lo)
	}
	off := t.lo
	traceQueues.mu.Unlock()
	p.args.Uint("queued_ns", uint64(max(int64(prof.Start)-int64(mark), 0)))
	r.Queue(q.traceID(), "device", p.name, int64(prof.Start)+off, int64(prof.End)+off, &p.args)
}

// drainAll drains every queue, dropping the commands not complete.
func drainAll() {
	traceQueues.mu.Lock()
	qs := make([]*Queue, 0, len(traceQueues.m))
	for q := range traceQueues.m {
		qs = append(qs, q)
	}
	traceQueues.mu.Unlock()
	for _, q := range qs {
		drainQueue(q, true)
	}
}

// traceRelease records a Release.
func traceRelease(r *trace.Recorder, op string, o *object, start int64, err *error) {
	c := tcall{r: r, op: op, start: start}
	c.args.Uint("id", o.traceID())
	c.end(err)
}

// launchArgs adds a launch's kernel and range to a call's arguments.
func (c *tcall) launchArgs(k *Kernel, r *NDRange) {
	if k != nil {
		c.args.Str("name", k.name)
	}
	if r != nil {
		c.args.Uint("global", r.Global[0]*max(r.Global[1], 1)*max(r.Global[2], 1))
		c.args.Uint("local", r.Local[0]*max(r.Local[1], 1)*max(r.Local[2], 1))
	}
}

// launchTraced is Queue.Launch and EnqueueLaunch while tracing: a Launch
// on a queue that profiles is made with an event of the layer's, for its
// device times.
//
//go:noinline
func (q *Queue) launchTraced(t *trace.Recorder, op string, k *Kernel, r *NDRange, wait []*Event, wantEvent bool) (*Event, error) {
	c := beginCall(t, op, q, k)
	c.launchArgs(k, r)
	if wantEvent {
		ev, err := q.launch(op, k, r, wait, true, true, nil)
		c.endEvent(q, ev, &err)
		return ev, err
	}
	if q != nil && queueProfiles(q) {
		ev, err := q.launch(op, k, r, wait, true, true, nil)
		c.end(&err)
		if err == nil {
			commandEnqueued(&c, q, ev, true)
		}
		return nil, err
	}
	_, err := q.launch(op, k, r, wait, false, true, nil)
	c.end(&err)
	return nil, err
}

// launchTraced is PreparedLaunch.Launch while tracing, p entered and its
// queue and kernel live: the same launch, in a span.
//
//go:noinline
func (p *PreparedLaunch) launchTraced(t *trace.Recorder) error {
	c := beginCall(t, opPreparedLaunch, p.q, p.k)
	c.launchArgs(p.k, &p.r)
	var err error
	if pc := p.call.Load(); pc != nil {
		st := pc.launch()
		if st != driver.Launched {
			err = p.launchSlowly(st)
		}
	} else {
		err = p.launchSlowly(driver.LaunchFailed)
	}
	c.end(&err)
	return err
}

// endNewOf ends a call that made the handle *h.
func endNewOf[T traced](c *tcall, h *T, err *error) { c.endNew(*h, err) }

// endEventOf ends an enqueue on q that returned the event *ev.
func (c *tcall) endEventOf(q *Queue, ev **Event, err *error) { c.endEvent(q, *ev, err) }

// endFinish ends Queue.Finish: the queue's commands are done, so their
// device times are read.
func (c *tcall) endFinish(q *Queue, err *error) {
	c.end(err)
	if q != nil {
		drainQueue(q, false)
	}
}

func (p *Pool) traceObj() *object {
	if p == nil {
		return nil
	}
	return &p.object
}

// launchArgsTraced is Queue.Launch with arguments while tracing.
//
//go:noinline
func (q *Queue) launchArgsTraced(t *trace.Recorder, k *Kernel, r *NDRange, args []Arg) error {
	const op = opLaunch
	c := beginCall(t, op, q, k)
	c.launchArgs(k, r)
	if q != nil && queueProfiles(q) {
		ev, err := q.launchArgs(op, k, r, LaunchProperties{}, args, nil, true)
		c.end(&err)
		if err == nil {
			commandEnqueued(&c, q, ev, true)
		}
		return err
	}
	_, err := q.launchArgs(op, k, r, LaunchProperties{}, args, nil, false)
	c.end(&err)
	return err
}

// launchTraced is ArgLaunch.Launch while tracing, l entered and what it
// holds live: the same launch, in a span.
//
//go:noinline
func (l *ArgLaunch) launchTraced(t *trace.Recorder) error {
	c := beginCall(t, opArgLaunch, l.q, l.k)
	c.launchArgs(l.k, &l.r)
	var err error
	switch {
	case l.native != nil && l.native.Launch() == driver.Launched:
	case l.native == nil && l.drv != nil && l.drv.Launch() == driver.Launched:
	default:
		err = l.launchSlowly()
	}
	c.end(&err)
	return err
}

func (d *Device) traceObj() *object {
	if d == nil {
		return nil
	}
	return &d.object
}
func (s *Sampler) traceObj() *object {
	if s == nil {
		return nil
	}
	return &s.object
}
func (v *VirtualMem) traceObj() *object {
	if v == nil {
		return nil
	}
	return &v.object
}
func (p *PhysicalMem) traceObj() *object {
	if p == nil {
		return nil
	}
	return &p.object
}

// The hot paths' traced calls, out of line so that the untraced ones
// keep their open-coded defers and allocate nothing.

// allocAsyncTraced is Queue.AllocAsync while tracing.
//
//go:noinline
func (q *Queue) allocAsyncTraced(t *trace.Recorder, pool *Pool, size uint64) (*USM, error) {
	c := beginCall(t, "Queue.AllocAsync", q, pool)
	c.args.Uint("bytes", size)
	u, err := q.allocAsync(pool, size)
	c.endNew(u, &err)
	return u, err
}

// freeAsyncTraced is Queue.FreeAsync while tracing.
//
//go:noinline
func (q *Queue) freeAsyncTraced(t *trace.Recorder, u *USM) error {
	c := beginCall(t, "Queue.FreeAsync", q, u)
	err := q.freeAsync(u)
	c.end(&err)
	return err
}

// setArgPtrTraced is Kernel.SetArgPtr while tracing.
//
//go:noinline
func (k *Kernel) setArgPtrTraced(t *trace.Recorder, index int, p Ptr) error {
	c := beginCall(t, "Kernel.SetArgPtr", k, p.u)
	c.args.Uint("index", uint64(index))
	err := k.setArgPtr(index, p)
	c.end(&err)
	return err
}

// setArgTraced is ArgLaunch.SetArg while tracing.
//
//go:noinline
func (l *ArgLaunch) setArgTraced(t *trace.Recorder, i int, a *Arg) error {
	c := beginCall(t, "ArgLaunch.SetArg", l)
	c.args.Uint("index", uint64(i))
	err := l.setArg(i, *a, true)
	c.end(&err)
	return err
}
