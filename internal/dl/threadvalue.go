package dl

import (
	"sync"
	"unsafe"
)

// ThreadValue is a value a C library keeps per OS thread, such as CUDA's
// current context, together with the C function int set(value) that
// changes it.
//
// A goroutine may move between OS threads at any moment, so a call that
// depends on the value must set it on the thread that makes the call, in
// the same switch to C ([CallAfter]). Setting it every time costs a C call
// each time; ThreadValue instead remembers, in a pthread key (C
// thread-local storage, read in a few nanoseconds), what it last set on
// each thread, and sets it only when that differs — as the CUDA runtime
// keeps the current device of each thread.
//
// The record only knows what went through this ThreadValue: other code on
// the same thread (another library, a direct call of set) can change the
// value behind its back. CallWith therefore reports when it trusted the
// record, so that a caller whose call then fails can try again with force,
// and code that must not run with a stale value uses Set.
type ThreadValue struct {
	set uintptr
	// tls is a copy of the setter's pthread key, kept in the same cache
	// line as set for the launch path; get is zero where this platform or
	// libc offers no pthread keys, and every call then sets the value.
	tls threadKey
}

// threadKey is one pthread key with the libc functions that read and
// write it.
type threadKey struct {
	key, get, put uintptr
}

var (
	threadKeysMu sync.Mutex
	// threadKeys holds one key per set function for the life of the
	// process: pthread keys are a limited resource (PTHREAD_KEYS_MAX), and
	// two ThreadValues of one function must share their record.
	threadKeys = map[uintptr]*threadKey{}
)

// NewThreadValue returns the ThreadValue that set changes.
func NewThreadValue(set uintptr) *ThreadValue {
	threadKeysMu.Lock()
	defer threadKeysMu.Unlock()
	k, ok := threadKeys[set]
	if !ok {
		k = newThreadKey()
		threadKeys[set] = k
	}
	t := &ThreadValue{set: set}
	if k != nil {
		t.tls = *k
	}
	return t
}

// newThreadKey creates a pthread key, or returns nil where libc or the
// platform does not allow it (then values are set on every call).
func newThreadKey() *threadKey {
	if !threadRecords {
		return nil
	}
	var k threadKey
	var create uintptr
	for _, name := range []string{"libc.so.6", "libpthread.so.0"} {
		lib, err := Open(name)
		if err != nil {
			continue
		}
		if lib.Resolve([]Symbol{
			{Name: "pthread_key_create", Addr: &create},
			{Name: "pthread_getspecific", Addr: &k.get},
			{Name: "pthread_setspecific", Addr: &k.put},
		}) == nil {
			break
		}
		create = 0
	}
	if create == 0 {
		return nil
	}
	f := NewFrame()
	f.Args = Args{f.Out(0), 0} // pthread_key_create(&key, no destructor)
	r, out, _ := f.Call(create)
	if int32(r) != 0 {
		return nil
	}
	k.key = uintptr(*(*uint32)(unsafe.Pointer(&out[0]))) // pthread_key_t is an unsigned int
	return &k
}

// Set calls set(v) on the calling OS thread and records v for it. The
// caller locks its goroutine to the thread (runtime.LockOSThread) for as
// long as it relies on the value. It returns set's result.
func (t *ThreadValue) Set(v uintptr) uintptr {
	r, _, _ := t.callWith(v, 0, nil, true)
	return r
}

// CallWith calls fn(args...) on an OS thread whose value is v, making v
// current first unless the thread's record says it is already, all in one
// switch to C. force ignores the record. It returns fn's result with ok
// true, or set's non-zero result with ok false; trusted says the record
// was trusted and set not called.
func (t *ThreadValue) CallWith(v, fn uintptr, args *Args, force bool) (result uintptr, ok, trusted bool) {
	return t.callWith(v, fn, args, force)
}
