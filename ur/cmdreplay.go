package ur

import (
	"github.com/gour-dev/gour/ur/driver"
)

// The replay of an emulated command buffer. Its launches were checked and
// their arguments put in the adapter's form when recorded; at the first
// replay on a queue each is checked against the queue once more (its
// work-group size on the device) and prepared with its arguments bound —
// driver.ReplayPreparer (OpenCL: a cl_kernel of its own with the
// arguments set) or driver.ArgLaunchPreparer (CUDA: the kernelParams
// table) — so that a replay is a loop of one driver call per launch, the
// NativeCall made inline: no checks, no argument setting, no lock, no
// allocation and no event per launch. The last command makes the replay's
// event; a wait list is waited for by the first. A launch that could not
// be prepared, or whose prepared call fails, goes through the adapter's
// LaunchWithArgs, which makes the error. Copies and fills go through the
// ordinary enqueues. On an out-of-order queue each command waits for the
// one before, through events.

// replayPlan is an emulated buffer's launches prepared for one queue.
type replayPlan struct {
	q     *Queue
	steps []replayStep // one per command; launches only
}

type replayStep struct {
	ready  bool // checked on the queue, prepared where the adapter can
	native *driver.NativeCall
	pl     driver.PreparedArgLaunch
	rel    driver.ReplayLaunch // pl where it must be released
}

func (p *replayPlan) drop(i int) error {
	s := &p.steps[i]
	var err error
	if s.rel != nil {
		err = s.rel.Release()
	}
	*s = replayStep{}
	return err
}

func (p *replayPlan) release() error {
	var err error
	for i := range p.steps {
		if e := p.drop(i); err == nil {
			err = e
		}
	}
	return err
}

// maxReplayPlans is how many queues an emulated buffer keeps its launches
// prepared for; a replay on one more drops the plan least recently used.
const maxReplayPlans = 4

// planFor returns cb's plan for q, made where it has none. The caller
// holds cb.mu.
func (cb *CommandBuffer) planFor(q *Queue) (*replayPlan, error) {
	for i, p := range cb.plans {
		if p.q == q {
			if i > 0 { // most recently used first
				copy(cb.plans[1:i+1], cb.plans[:i])
				cb.plans[0] = p
			}
			return p, nil
		}
	}
	if len(cb.plans) == maxReplayPlans {
		last := cb.plans[len(cb.plans)-1]
		cb.plans = cb.plans[:len(cb.plans)-1]
		if err := last.release(); err != nil {
			return nil, err
		}
	}
	p := &replayPlan{q: q, steps: make([]replayStep, len(cb.cmds))}
	cb.plans = append([]*replayPlan{p}, cb.plans...)
	return p, nil
}

// dropPlans releases every plan; dropStep the prepared launch of command
// i in each. The caller holds cb.mu.
func (cb *CommandBuffer) dropPlans() error {
	var err error
	for _, p := range cb.plans {
		if e := p.release(); err == nil {
			err = e
		}
	}
	cb.plans = nil
	return err
}

func (cb *CommandBuffer) dropStep(i int) error {
	var err error
	for _, p := range cb.plans {
		if e := p.drop(i); err == nil {
			err = e
		}
	}
	return err
}

// prepare checks launch c on q and prepares it into s.
func (q *Queue) prepareStep(op string, c *Command, s *replayStep) error {
	r, props := c.r, c.props
	if err := q.checkArgLaunch(op, c.kernel, &r, &props, len(c.args)); err != nil {
		return err
	}
	// An adapter that cannot prepare the launch leaves it to
	// LaunchWithArgs, which makes the error where there is one.
	if rp, ok := q.drv.(driver.ReplayPreparer); ok {
		if l, err := rp.PrepareReplay(c.kernel.drv, r, c.dargs, props); err == nil && l != nil {
			s.pl, s.rel = l, l
		}
	} else if ap, ok := q.drv.(driver.ArgLaunchPreparer); ok {
		if l, err := ap.PrepareArgLaunch(c.kernel.drv, r, c.dargs, props); err == nil && l != nil {
			s.pl = l
		}
	}
	if s.pl != nil {
		s.native = s.pl.Native()
	}
	s.ready = true
	return nil
}

// replay enqueues an emulated buffer's commands, the first after the wait
// list, and returns the last one's event (a marker's for an empty
// buffer). The caller holds cb.mu.
func (q *Queue) replay(op string, cb *CommandBuffer, wait []*Event) (*Event, error) {
	n := len(cb.cmds)
	if n == 0 {
		return q.EnqueueMarker(wait...)
	}
	if q.props.OutOfOrder {
		return q.replayChained(op, cb.cmds, wait)
	}
	plan, err := cb.planFor(q)
	if err != nil {
		return nil, q.ctx.wrap(err, op)
	}
	for i, c := range cb.cmds {
		if c.kind == cmdLaunch {
			s := &plan.steps[i]
			if !s.ready {
				if err := q.prepareStep(op, c, s); err != nil {
					return nil, err
				}
			}
			if (i > 0 || len(wait) == 0) && i < n-1 && s.pl != nil {
				// The hot path: one call, its result the only check.
				var st driver.LaunchStatus
				if s.native != nil {
					st = s.native.Launch() // a direct call, not through the interface
				} else {
					st = s.pl.Launch()
				}
				if st == driver.Launched {
					continue
				}
				// Gone stale, or failed having enqueued nothing: prepared
				// again at the next replay; this one goes through the
				// adapter's launch, which makes the error.
				if err := plan.drop(i); err != nil {
					return nil, q.ctx.wrap(err, op)
				}
			}
		}
		var w []*Event
		if i == 0 {
			w = wait
		}
		ev, err := q.replayOne(op, c, w, i == n-1)
		if err != nil {
			return nil, err
		}
		if i == n-1 {
			return ev, nil
		}
	}
	panic("unreachable")
}

// replayChained replays on an out-of-order queue: each command waits for
// the event of the one before.
func (q *Queue) replayChained(op string, cmds []*Command, wait []*Event) (*Event, error) {
	var last *Event
	for i, c := range cmds {
		w := wait
		if i > 0 {
			w = []*Event{last}
		}
		ev, err := q.replayOne(op, c, w, true)
		if last != nil {
			last.Release()
		}
		if err != nil {
			return nil, err
		}
		last = ev
	}
	return last, nil
}

// replayOne enqueues one recorded command after wait, through the
// adapter's launch with arguments for a launch (the arguments as
// recorded, already checked), through the ordinary enqueues otherwise.
// Its event, where wantEvent, is returned; otherwise none is asked for
// where the enqueue can do without.
func (q *Queue) replayOne(op string, c *Command, wait []*Event, wantEvent bool) (*Event, error) {
	var ev *Event
	var err error
	switch c.kind {
	case cmdLaunch:
		al, ok := q.drv.(driver.ArgLauncher)
		if !ok {
			return q.launchArgs(op, c.kernel, &c.r, c.props, c.args, wait, wantEvent)
		}
		return q.enqueueAfter(op, wait, func(dw []driver.Event) (driver.Event, error) {
			return al.LaunchWithArgs(c.kernel.drv, c.r, c.dargs, c.props, dw, wantEvent)
		})
	case cmdCopy:
		ev, err = q.EnqueueCopy(c.mems[0], c.mems[1], c.offsets[0], c.offsets[1], c.size, wait...)
	case cmdFill:
		ev, err = q.EnqueueFill(c.mems[0], c.pattern, c.offsets[0], c.size, wait...)
	case cmdMemcpy:
		ev, err = q.EnqueueMemcpy(c.ptrs[0], c.ptrs[1], c.size, wait...)
	case cmdMemFill:
		ev, err = q.EnqueueMemFill(c.ptrs[0], c.pattern, c.size, wait...)
	}
	if err == nil && !wantEvent && ev != nil {
		ev.Release()
		ev = nil
	}
	return ev, err
}
