package ur

import (
	"sync/atomic"
	"unsafe"

	"github.com/gour-dev/gour/ur/driver"
)

// A Kernel keeps one prepared launch for the launch it sees repeated, for
// each of Queue.Launch's two argument models: repeatLaunch for launches
// with the kernel's own arguments, on adapters that prepare launches
// (driver.LaunchPreparer: CUDA, OpenCL), and argTable for launches with
// arguments, on adapters that prepare those (driver.ArgLaunchPreparer:
// CUDA). Both follow one policy (repeatCount) and one concurrency scheme,
// atomic pointers with no lock:
//
//   - the second launch in a row over the same range on the same queue
//     with no wait list, event or properties, made through the adapter,
//     prepares it; later ones make it directly, as PrepareLaunch's and
//     PrepareLaunchArgs's handles do, skipping the checks already made (the
//     guards stay, and every argument is still checked);
//   - a kernel launched over ever-changing ranges never prepares, so a
//     launch still allocates nothing; one that switches between launches
//     replaces its prepared one only every replaceAfter launches through
//     the adapter;
//   - a prepared launch that fails enqueued nothing: the launch then goes
//     through the adapter, which makes the error.
//
// A repeatLaunch never changes once made, so any number of goroutines
// launch it at once (a Load). An argTable holds the driver's argument
// table, which a launch writes: a launch takes it out of the kernel (a
// Swap with nil) and puts it back after (a CompareAndSwap, so that a table
// prepared meanwhile wins); another goroutine launching meanwhile finds
// none and goes through the adapter.
type repeats struct {
	launch   atomic.Pointer[repeatLaunch]
	launches repeatCount
	args     atomic.Pointer[argTable]
	argCalls repeatCount
}

// replaceAfter is how many launches through the adapter a kernel makes
// before a newly repeated launch may replace the prepared one, which its
// own launches never count: a kernel that switches between two launches
// then prepares seldom, not at every switch. (A prepared launch that
// fails is not prepared again any sooner: preparing would not help.)
const replaceAfter = 256

// repeatCount is the policy: which launch through the adapter prepares.
type repeatCount struct {
	last atomic.Uint64 // launchKey of the last launch made through the adapter
	slow atomic.Uint32 // launches through the adapter since the last preparation
}

// due records a launch through the adapter and reports whether to prepare
// it: it repeats the one before, and none is prepared (held is false) or
// replaceAfter launches went through the adapter since the last.
func (c *repeatCount) due(key uint64, held bool) bool {
	repeated := c.last.Swap(key) == key
	slow := c.slow.Add(1)
	if !repeated || held && slow < replaceAfter {
		return false
	}
	c.slow.Store(0)
	return true
}

// repeatLaunch is a prepared launch with the kernel's own arguments.
type repeatLaunch struct {
	q    *Queue
	r    NDRange
	call preparedCall
}

// noteLaunch records a launch with the kernel's own arguments made through
// the adapter and, when it is the same as the one before, prepares it for
// the next.
func (k *Kernel) noteLaunch(q *Queue, r *NDRange) {
	prep, ok := q.drv.(driver.LaunchPreparer)
	if !ok || !k.repeats.launches.due(launchKey(q, r), k.repeats.launch.Load() != nil) {
		return
	}
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

// argTable is a prepared launch with arguments: the driver's table and the
// values it holds, so that a launch writes only the arguments that
// changed (docs/benchmarks.md, "Repeated launches with arguments, before a
// GPU run"). It holds values, not the arguments' memory, which stays the
// caller's to free: every argument is checked before the table is used. A
// value passed by bytes (ArgBytes) is never kept: the caller may change
// its slice.
type argTable struct {
	q    *Queue
	r    NDRange
	pl   driver.PreparedArgLaunch
	call *driver.NativeCall // pl's one C call, or nil
	args []driver.LaunchArg // what pl's table holds
}

// launchArgTable makes k's launch of args over r on q through its prepared
// table and reports true, or reports false having enqueued nothing, for
// the adapter's launch: none prepared for this queue and range, the table
// in another goroutine's hands, an argument it cannot take, or a launch
// that did not go (whose error the adapter makes).
func (k *Kernel) launchArgTable(q *Queue, r *NDRange, args []driver.LaunchArg) bool {
	t := k.repeats.args.Swap(nil)
	if t == nil {
		return false
	}
	ok := t.launch(q, r, args)
	if t.pl != nil {
		k.repeats.args.CompareAndSwap(nil, t)
	}
	return ok
}

// launch is launchArgTable with the table in hand; it drops its driver
// table (pl nil) when the table no longer says what it holds.
func (t *argTable) launch(q *Queue, r *NDRange, args []driver.LaunchArg) bool {
	if t.q != q || t.r != *r || len(t.args) != len(args) {
		return false
	}
	for i := range args {
		if sameArg(&t.args[i], &args[i]) {
			continue
		}
		if args[i].Bytes != nil || t.pl.SetArg(i, args[i]) != nil {
			t.pl = nil
			return false
		}
		t.args[i] = args[i]
	}
	if t.call != nil {
		return t.call.Launch() == driver.Launched
	}
	return t.pl.Launch() == driver.Launched
}

// noteArgLaunch records k's launch of args over r on q, made through the
// adapter, and prepares a table for it when it repeats the one before.
func (k *Kernel) noteArgLaunch(q *Queue, r *NDRange, args []driver.LaunchArg) {
	prep, ok := q.drv.(driver.ArgLaunchPreparer)
	if !ok || !k.repeats.argCalls.due(launchKey(q, r), k.repeats.args.Load() != nil) {
		return
	}
	for i := range args {
		if args[i].Bytes != nil {
			return
		}
	}
	pl, err := prep.PrepareArgLaunch(k.drv, *r, args, driver.LaunchProperties{})
	if err != nil || pl == nil {
		return // the adapter's launch keeps serving it, and saying what is wrong
	}
	k.repeats.args.Store(&argTable{q: q, r: *r, pl: pl, call: pl.Native(), args: append([]driver.LaunchArg(nil), args...)})
}

// sameArg reports whether b is the value a holds in a table: the same
// kind, size, bits, buffer and pointer, neither by bytes.
func sameArg(a, b *driver.LaunchArg) bool {
	return a.Kind == b.Kind && a.Size == b.Size && a.Bits == b.Bits && a.Mem == b.Mem && a.Ptr == b.Ptr && a.Bytes == nil && b.Bytes == nil
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
