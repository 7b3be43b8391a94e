package ur

import (
	"log/slog"
	"sync/atomic"
)

// lifetime guards a handle against use after release without a lock.
//
// Every call on a handle enters (refs += 2) and leaves (refs -= 2);
// Release sets the low bit. The driver object is freed by whoever brings
// the count to exactly "released, no callers": Release itself when the
// handle is idle, else the last call to leave. So a Release that races a
// launch never frees the object under the launch, and use after Release
// is an error instead of a crash.
type lifetime struct {
	refs  atomic.Int64
	freed atomic.Bool
	free  func() error
}

const releasedBit = 1

// enter reports whether the handle is still live; on true the caller must
// call leave.
func (l *lifetime) enter() bool {
	if l.refs.Add(2)&releasedBit == 0 {
		return true
	}
	l.undoEnter()
	return false
}

// undoEnter is enter's way out of a released handle. Kept out of line,
// it leaves enter small enough to inline into every call's fast path.
//
//go:noinline
func (l *lifetime) undoEnter() { l.leave() }

// released reports whether Release has been called.
func (l *lifetime) released() bool { return l.refs.Load()&releasedBit != 0 }

func (l *lifetime) leave() {
	if l.refs.Add(-2) == releasedBit {
		l.finish()
	}
}

// release marks the handle released. It returns false if it already was,
// and the driver's error when the object was freed at once.
func (l *lifetime) release() (bool, error) {
	for {
		old := l.refs.Load()
		if old&releasedBit != 0 {
			return false, nil
		}
		if l.refs.CompareAndSwap(old, old|releasedBit) {
			if old == 0 {
				return true, l.finish()
			}
			return true, nil
		}
	}
}

func (l *lifetime) finish() error {
	if !l.freed.CompareAndSwap(false, true) || l.free == nil {
		return nil
	}
	err := l.free()
	if err != nil {
		slog.Debug("ur: deferred release failed", "err", err)
	}
	return err
}
