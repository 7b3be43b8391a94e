package ur

import (
	"sync"

	"github.com/gour-dev/gour/ur/driver"
)

// repeatArgs is a Kernel's prepared launch with arguments for the
// Queue.LaunchArgs it repeats, as repeatLaunch is for Queue.Launch: on a
// queue whose adapter prepares launches with arguments
// (driver.ArgLaunchPreparer: CUDA), the second LaunchArgs in a row of the
// kernel over the same range on the same queue, with no wait list, event
// or launch properties, prepares it, and later ones write the arguments
// that changed into its table and launch it: one driver call, where the
// adapter would lay out every argument again (docs/benchmarks.md,
// "Repeated launches with arguments, before a GPU run"). Every argument is
// still checked by launchArgs first and compared with the table's before
// the launch, so the table launches only values the call passed: it
// holds values, not the arguments' memory, which stays the caller's to
// free. One goroutine uses it at a time; another launching the kernel
// meanwhile goes through the adapter. A value passed by bytes (ArgBytes)
// is never kept: the caller may change its slice.
type repeatArgs struct {
	mu   sync.Mutex
	last uint64 // launchKey of the last launch through the adapter
	slow uint32 // launches through the adapter since the last preparation
	q    *Queue
	r    NDRange
	pl   driver.PreparedArgLaunch // nil until prepared
	call *driver.NativeCall       // pl's one C call, or nil
	args []driver.LaunchArg       // what pl's table holds
}

// launch makes the kernel's launch of args over r on q through the
// prepared table and reports true, or reports false having enqueued
// nothing, for the adapter's launch: none prepared for this queue and
// range, the table in use by another goroutine, an argument it cannot
// take, or a launch that did not go (whose error the adapter makes).
func (ra *repeatArgs) launch(q *Queue, r *NDRange, args []driver.LaunchArg) bool {
	if !ra.mu.TryLock() {
		return false
	}
	defer ra.mu.Unlock()
	if ra.pl == nil || ra.q != q || ra.r != *r || len(ra.args) != len(args) {
		return false
	}
	for i := range args {
		if sameArg(&ra.args[i], &args[i]) {
			continue
		}
		if args[i].Bytes != nil || ra.pl.SetArg(i, args[i]) != nil {
			ra.pl = nil // the table no longer says what it holds
			return false
		}
		ra.args[i] = args[i]
	}
	if ra.call != nil {
		return ra.call.Launch() == driver.Launched
	}
	return ra.pl.Launch() == driver.Launched
}

// note records k's launch of args over r on q, made through the adapter,
// and prepares it when it repeats the one before (and the kernel has no
// prepared launch, or has made replaceAfter launches through the adapter
// since, as repeatLaunch does).
func (ra *repeatArgs) note(k *Kernel, q *Queue, r *NDRange, args []driver.LaunchArg) {
	prep, ok := q.drv.(driver.ArgLaunchPreparer)
	if !ok || !ra.mu.TryLock() {
		return
	}
	defer ra.mu.Unlock()
	key := launchKey(q, r)
	repeated := ra.last == key
	ra.last = key
	ra.slow++
	if !repeated || ra.pl != nil && ra.slow < replaceAfter {
		return
	}
	for i := range args {
		if args[i].Bytes != nil {
			return
		}
	}
	ra.slow = 0
	pl, err := prep.PrepareArgLaunch(k.drv, *r, args, driver.LaunchProperties{})
	if err != nil || pl == nil {
		return // the adapter's launch keeps serving it, and saying what is wrong
	}
	ra.q, ra.r, ra.pl, ra.call = q, *r, pl, pl.Native()
	ra.args = append(ra.args[:0], args...)
}

// sameArg reports whether b is the value a holds in a table: the same
// kind, size, bits, buffer and pointer, neither by bytes.
func sameArg(a, b *driver.LaunchArg) bool {
	return a.Kind == b.Kind && a.Size == b.Size && a.Bits == b.Bits && a.Mem == b.Mem && a.Ptr == b.Ptr && a.Bytes == nil && b.Bytes == nil
}
