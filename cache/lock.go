package cache

import (
	"context"
	"errors"
	"os"
	"sync"
	"time"

	"github.com/gofrs/flock"
)

// Lock files. Every leaf directory holds two, created on first use and
// removed only by cleanupLeaf while it holds both:
//
//	lock        the entry data: shared while reading, exclusive while
//	            writing or removing an entry of the directory
//	build.lock  held exclusively by GetOrBuild from its second lookup to
//	            the end of its store: N processes missing one key build
//	            it once
//
// The version directory holds size.lock (cache_size.txt) and sweep.lock
// (one sweep at a time). All are flock(2) locks through gofrs/flock: the
// kernel drops them when their holder dies, so a crash never leaves a
// lock behind. A lock file can be unlinked while another process has it
// open; acquire therefore checks, once it holds the lock, that the path
// still names the file it locked, and starts again if not.
const (
	dataLockName  = "lock"
	buildLockName = "build.lock"
	sizeLockName  = "size.lock"
	sweepLockName = "sweep.lock"
)

// ErrBusy is returned by Put when the entry stayed locked by another
// process (a writer, a reader or an evictor) longer than Put waits. The
// cache stays enabled; nothing was stored.
var ErrBusy = errors.New("cache: entry is busy")

const (
	minBackoff = 500 * time.Microsecond
	maxBackoff = 10 * time.Millisecond
)

// heldLock is an acquired lock; release it with unlock.
type heldLock struct{ f *flock.Flock }

func (l *heldLock) unlock() {
	if l != nil && l.f != nil {
		_ = l.f.Unlock()
	}
}

// acquire takes the lock at path, exclusive or shared, waiting until the
// deadline (zero: no deadline; tryOnce: try once) or until ctx ends.
// It fails with ErrBusy when the lock stayed taken, and with the open
// error (e.g. the directory does not exist) when the file cannot be
// opened or created. On a read-only cache it creates no lock file: a
// missing one fails with the open error (fs.ErrNotExist).
//
// Something other than a regular file where the lock file belongs — a
// directory, a link, a FIFO, a socket — is removed once and the lock file
// made again: no lock on it is ever accepted (a link or a socket cannot
// be opened, a directory cannot be opened as a lock file, a FIFO is
// refused once opened), so left there it would keep the entry from ever
// being cached. (Two processes removing one such thing at the same
// instant could leave one of them holding a lock on a lock file the other
// just unlinked: a window of a few system calls, which needs the debris
// to open it.)
func (c *Cache) acquire(ctx context.Context, path string, exclusive bool, deadline time.Time) (*heldLock, error) {
	backoff := minBackoff
	healed := false
	done := ctx.Done()
	flags := os.O_CREATE | os.O_RDONLY | oNoFollow | oNonblock
	if c.ReadOnly() {
		flags &^= os.O_CREATE
	}
	for {
		f := flock.New(path, flock.SetFlag(flags), flock.SetPermissions(c.filePerm))
		var ok bool
		var err error
		if exclusive {
			ok, err = f.TryLock()
		} else {
			ok, err = f.TryRLock()
		}
		if err != nil {
			if !healed && c.removeInTheWay(path) {
				healed = true
				continue
			}
			if isLoop(err) || inTheWay(path) {
				return nil, badf("lock file %s is not a regular file", path)
			}
			return nil, err
		}
		if ok {
			held, herr := f.Stat()
			now, lerr := os.Lstat(path)
			if herr == nil && lerr == nil && os.SameFile(held, now) {
				if held.Mode().IsRegular() {
					return &heldLock{f: f}, nil
				}
				_ = f.Unlock() // a FIFO (say), opened and locked
				if !healed && c.removeInTheWay(path) {
					healed = true
					continue
				}
				return nil, badf("lock file %s is not a regular file", path)
			}
			// The file was unlinked (and maybe replaced) while we waited:
			// the lock we hold protects nothing. Start again.
			_ = f.Unlock()
			continue
		}
		if !deadline.IsZero() && time.Now().After(deadline) {
			return nil, ErrBusy
		}
		t := time.NewTimer(backoff)
		select {
		case <-done:
			t.Stop()
			return nil, ctx.Err()
		case <-t.C:
		}
		if backoff *= 2; backoff > maxBackoff {
			backoff = maxBackoff
		}
	}
}

// removeInTheWay removes what is at path if it is not a regular file,
// never following a link, and reports whether it did. A read-only cache
// removes nothing.
func (c *Cache) removeInTheWay(path string) bool {
	if c.ReadOnly() {
		return false
	}
	fi, err := os.Lstat(path)
	if err != nil || fi.Mode().IsRegular() {
		return false
	}
	if err := removePath(path, fi); err != nil {
		return false
	}
	c.trace("removed what was in the way of a lock file", "path", path, "was", describe(fi.Mode()))
	return true
}

// tryOnce is a deadline already past: acquire tries once.
var tryOnce = time.Unix(1, 0)

// tryLock takes a lock only if it is free now.
func (c *Cache) tryLock(path string, exclusive bool) (*heldLock, error) {
	return c.acquire(context.Background(), path, exclusive, tryOnce)
}

// keyGate serializes GetOrBuild per key inside one process, so that only
// one goroutine per key waits on the build lock file and the others wait
// on a channel (which a context can interrupt).
type keyGate struct {
	mu    sync.Mutex
	gates map[string]*gate
}

type gate struct {
	ch   chan struct{} // capacity 1: a token means "free"
	refs int
}

func (g *keyGate) enter(ctx context.Context, key string) (func(), error) {
	g.mu.Lock()
	if g.gates == nil {
		g.gates = make(map[string]*gate)
	}
	e := g.gates[key]
	if e == nil {
		e = &gate{ch: make(chan struct{}, 1)}
		e.ch <- struct{}{}
		g.gates[key] = e
	}
	e.refs++
	g.mu.Unlock()
	leave := func() {
		g.mu.Lock()
		if e.refs--; e.refs == 0 {
			delete(g.gates, key)
		}
		g.mu.Unlock()
	}
	select {
	case <-e.ch:
		return func() { e.ch <- struct{}{}; leave() }, nil
	case <-ctx.Done():
		leave()
		return nil, ctx.Err()
	}
}
