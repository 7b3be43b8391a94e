package ur

import (
	"sync/atomic"
	"unsafe"

	"github.com/gour-dev/gour/ur/driver"
)

// repeatLaunch is a Kernel's prepared launch for the launch it repeats: on
// a queue whose adapter can prepare launches (driver.LaunchPreparer), the
// second Queue.Launch in a row of the kernel over the same range on the
// same queue prepares it, and later ones make it directly (in
// Queue.launch), as a PreparedLaunch does, skipping the checks and the
// adapter's Launch; the guards stay. A prepared launch gone stale is
// prepared again at once (relaunch). One that failed enqueued nothing, so
// the launch then goes through the adapter, which makes the error. A
// kernel launched over ever-changing ranges never prepares, so
// Queue.Launch still allocates nothing; one that switches between
// launches replaces its prepared one only every replaceAfter launches
// through the adapter.
type repeatLaunch struct {
	q    *Queue
	r    NDRange
	call preparedCall
}

// repeats is the state a Kernel keeps for it.
type repeats struct {
	last   atomic.Uint64                // launchKey of the last launch made through the adapter
	slow   atomic.Uint32                // launches through the adapter since the last preparation
	launch atomic.Pointer[repeatLaunch] // the prepared repeat, or nil
}

// replaceAfter is how many launches through the adapter a kernel makes
// before a newly repeated launch may replace the prepared one, which its
// own launches never count: a kernel that switches between two launches
// then prepares seldom, not at every switch. (A prepared launch that
// fails is not prepared again any sooner: preparing would not help.)
const replaceAfter = 256

// noteLaunch records a launch made through the adapter and, when it is
// the same as the one before, prepares it for the next.
func (k *Kernel) noteLaunch(q *Queue, r *NDRange) {
	prep, ok := q.drv.(driver.LaunchPreparer)
	if !ok {
		return
	}
	key := launchKey(q, r)
	repeated := k.repeats.last.Swap(key) == key
	slow := k.repeats.slow.Add(1)
	if !repeated || k.repeats.launch.Load() != nil && slow < replaceAfter {
		return
	}
	k.repeats.slow.Store(0)
	pl, err := prep.PrepareLaunch(k.drv, *r)
	if err != nil || pl == nil {
		return // the adapter's launch keeps serving it, and saying what is wrong
	}
	k.repeats.launch.Store(&repeatLaunch{q: q, r: *r, call: *newPreparedCall(pl)})
}

// relaunch prepares the stale repeat c again and makes its launch,
// reporting whether it launched; when it did not, the caller launches
// through the adapter. A repeat that cannot be prepared again is dropped,
// leaving its launches to the adapter until they repeat once more.
func (k *Kernel) relaunch(c *repeatLaunch) bool {
	prep, _ := c.q.drv.(driver.LaunchPreparer) // it prepared c
	pl, err := prep.PrepareLaunch(k.drv, c.r)
	if err != nil || pl == nil {
		k.repeats.launch.CompareAndSwap(c, nil)
		return false
	}
	call := newPreparedCall(pl)
	k.repeats.launch.CompareAndSwap(c, &repeatLaunch{q: c.q, r: c.r, call: *call})
	return call.launch() == driver.Launched
}

// launchKey hashes a queue and a range. It only decides when to prepare:
// a repeat is made only for an exactly equal queue and range.
func launchKey(q *Queue, r *NDRange) uint64 {
	const prime = 0x100000001b3
	h := uint64(uintptr(unsafe.Pointer(q)))*prime ^ uint64(r.Dims)
	for i := range 3 {
		h = (h ^ r.Offset[i]) * prime
		h = (h ^ r.Global[i]) * prime
		h = (h ^ r.Local[i]) * prime
	}
	return h
}
