package opencl

import (
	"regexp"
	"strconv"
	"sync"

	"github.com/gour-dev/gour/adapters/opencl/internal/cl"
)

// PoCL before 6.0 keeps one loaded kernel module per kernel, work-group
// size and specialisation (the grid's width, a zero offset) in a
// process-wide list, counts a launch's use of the module it found, and
// at the launch's end takes the count back from the first module of the
// same kernel and work-group size in the list — not necessarily the one
// the launch used (lib/CL/devices/common.c, pocl_release_dlhandle_cache).
// Two launches of one kernel in flight at once, on two queues, with grids
// of different widths, so take the count from the wrong module, and
// PoCL's assertion aborts the process: a program launching one kernel
// over growing sizes from eight queues aborted in three runs of three
// (PoCL 3.1), and the soak now and then. PoCL 6.0 counts by the module
// itself.
//
// Within one in-order queue the launches of a kernel run one after the
// other, each giving its count back before the next starts. So on such
// a PoCL the adapter keeps the launches of one kernel (by name) on one
// queue at a time: a launch on another queue than the kernel's last
// first waits for that queue to finish. A program that launches each
// kernel from one queue pays a lock; one that spreads a kernel over
// queues runs those launches one queue at a time.

// launchGuard orders the launches of one kernel name across queues.
type launchGuard struct {
	mu   sync.Mutex
	last *queue // the queue of the latest launch; nil: none in flight elsewhere
}

// launchGuards are the process's guards, by kernel name.
var launchGuards sync.Map // string → *launchGuard

// guardFor is the guard of kernel name.
func guardFor(name string) *launchGuard {
	if g, ok := launchGuards.Load(name); ok {
		return g.(*launchGuard)
	}
	g, _ := launchGuards.LoadOrStore(name, new(launchGuard))
	return g.(*launchGuard)
}

// enter takes g for a launch on q: where the kernel's latest launch went
// to another queue, that queue is finished first. A nil guard (a driver
// without the problem) does nothing.
func (g *launchGuard) enter(q *queue) {
	if g == nil {
		return
	}
	g.mu.Lock()
	if g.last != nil && g.last != q {
		// Its error, if any, is that queue's to report.
		g.last.lib.Finish(g.last.handle)
	}
}

// exit gives g back, with q as the kernel's queue if the launch was made.
func (g *launchGuard) exit(q *queue, st cl.Status) {
	if g == nil {
		return
	}
	if st == cl.Success {
		g.last = q
	}
	g.mu.Unlock()
}

// forgetQueue drops q from every guard before q is released.
func forgetQueue(q *queue) {
	launchGuards.Range(func(_, v any) bool {
		g := v.(*launchGuard)
		g.mu.Lock()
		if g.last == q {
			g.last = nil
		}
		g.mu.Unlock()
		return true
	})
}

// poclVersion finds PoCL's version in a platform's version string
// ("OpenCL 3.0 PoCL 3.1+debian  Linux, ...").
var poclVersion = regexp.MustCompile(`PoCL (\d+)\.`)

// guardsLaunches reports whether p is a PoCL whose kernel module counts
// need launchGuard: before 6.0, or of a version it does not say.
func (p *platform) guardsLaunches() bool {
	if !p.isPoCL() {
		return false
	}
	m := poclVersion.FindStringSubmatch(p.info.Version)
	if m == nil {
		return true
	}
	major, err := strconv.Atoi(m[1])
	return err != nil || major < 6
}

// guardsLaunches reports whether the context's launches need guards.
func (c *context) guardsLaunches() bool { return len(c.order) > 0 && c.order[0].p.guard }
