package cache

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gour-dev/gour/cache/signing"
)

// Remote is a store shared by many machines behind the disk cache: the
// remote tier. It keeps opaque values under names the cache makes (64
// hex digits), and build leases under the same names. An implementation
// namespaces both (a key prefix), must honour ctx's deadline in every
// method, and must be safe for concurrent use. Package cache/rediscache
// is the Redis implementation.
//
// The store is not trusted: the cache verifies everything Get and Lease
// return as it verifies its files, and accepts a value only when a key it
// trusts signed it (RemoteKeys). A value that fails verification is
// deleted and rebuilt; one of an untrusted signer is a miss.
type Remote interface {
	// Get returns the value stored under name, or nil and no error when
	// there is none. The store may count hits and misses.
	Get(ctx context.Context, name string) ([]byte, error)
	// Put stores value under name, replacing any value there.
	Put(ctx context.Context, name string, value []byte) error
	// Delete removes the value of name if it ends with suffix (the whole
	// value, or the binary an entry ends with), so that a value stored
	// since by someone else is kept; an empty suffix removes only an
	// empty value.
	Delete(ctx context.Context, name string, suffix []byte) error
	// Lease returns the value of name if one is stored (not counted as a
	// hit or miss). Else it tries to take the build lease of name for
	// token, for ttl, and returns LeaseAcquired when it did, LeaseHeld
	// when another holder has it, LeaseAbandoned when the last holder
	// gave up without storing a value. One round trip.
	Lease(ctx context.Context, name, token string, ttl time.Duration) ([]byte, LeaseState, error)
	// Renew extends the lease of name to ttl from now if token still
	// holds it, and reports whether it did.
	Renew(ctx context.Context, name, token string, ttl time.Duration) (bool, error)
	// Release gives the lease of name up if token holds it, once its
	// holder has stored a value.
	Release(ctx context.Context, name, token string) error
	// Abandon replaces the lease of name, if token holds it, by a mark
	// that says no value is coming, for ttl, so that waiters build at
	// once instead of in turn.
	Abandon(ctx context.Context, name, token string, ttl time.Duration) error
	// Close releases the store's connections.
	Close() error
}

// LeaseState is the answer of Remote.Lease.
type LeaseState int

const (
	LeaseAcquired  LeaseState = iota // the caller holds the lease
	LeaseHeld                        // another process holds it and is building
	LeaseAbandoned                   // its last holder gave up without storing a value
)

// ErrRemoteFull is wrapped by a Remote's error when the store refuses a
// write for lack of memory (Redis's OOM with maxmemory-policy
// noeviction). Reads go on; writes are skipped with one warning.
var ErrRemoteFull = errors.New("cache: the remote store is full")

// remoteTier is the remote tier of a Cache: the store, its settings,
// its keys and the circuit breaker.
type remoteTier struct {
	r         Remote
	o         RemoteOptions
	keys      RemoteKeys
	url       string // for messages, the password hidden
	c         *Cache
	off       atomic.Int64 // Unix nanoseconds until which the tier is off
	trip      sync.Once    // the one warning
	full      sync.Once    // the one warning about a full store
	refused   sync.Once    // the one warning about an untrusted value
	closeOnce sync.Once

	hits, misses, stores, corrupt, untrusted, errs, waits, skipped atomic.Int64
	nanos                                                          atomic.Int64 // in operations
}

// RemoteCounters are this process's counts of remote-tier events.
type RemoteCounters struct {
	Hits    int64 // lookups served by the remote tier (and written to disk)
	Misses  int64 // lookups the remote tier could not serve; each lookup is one hit or one miss
	Stores  int64 // entries sent
	Corrupt int64 // values that failed verification, their signature included (and were deleted)
	// Untrusted counts values refused because no trusted key signed them:
	// unsigned, or signed by another key. They are neither written to
	// disk nor deleted.
	Untrusted int64
	Errors    int64 // operations that failed or timed out (each turns the tier off for a while)
	Waits     int64 // hits that came after waiting for another machine's build (counted in Hits too)
	Skipped   int64 // entries not sent: larger than MaxEntrySize, or the store full
	// Time is the time spent in remote operations (waits between polls
	// for another machine's build not included).
	Time time.Duration
}

// RemoteCounters returns this process's counts of the remote tier (zero
// without one).
func (c *Cache) RemoteCounters() RemoteCounters {
	t := c.remote
	if t == nil {
		return RemoteCounters{}
	}
	return RemoteCounters{Hits: t.hits.Load(), Misses: t.misses.Load(), Stores: t.stores.Load(), Corrupt: t.corrupt.Load(),
		Untrusted: t.untrusted.Load(), Errors: t.errs.Load(), Waits: t.waits.Load(), Skipped: t.skipped.Load(),
		Time: time.Duration(t.nanos.Load())}
}

// HasRemote reports whether the cache has a remote tier (which may be
// off for a while after an error).
func (c *Cache) HasRemote() bool { return c.remote != nil }

// RemoteOn reports whether the remote tier is configured and not turned
// off by the circuit breaker now.
func (c *Cache) RemoteOn() bool { return c.remote != nil && c.remote.on() }

// RemoteWrites reports whether the remote tier stores what this process
// builds: false for a read-only member of the fleet (no signing key) and
// without a remote tier.
func (c *Cache) RemoteWrites() bool { return c.remote != nil && c.remote.writes() }

// writes reports whether this member stores values, takes build leases
// and deletes bad values: it signs, or its store takes unsigned values.
func (t *remoteTier) writes() bool { return t.keys.Signing != nil || t.keys.Unsigned }

func (t *remoteTier) on() bool { return time.Now().UnixNano() >= t.off.Load() }

// do runs one remote operation that carries up to size bytes under the
// timeout plus size/(64 MiB/s), and trips the breaker on its error. A
// full store does not trip it.
func (t *remoteTier) do(ctx context.Context, op string, size int64, f func(context.Context) error) error {
	if !t.on() {
		return errRemoteOff
	}
	d := t.o.Timeout + time.Duration(float64(size)/(64<<20)*float64(time.Second))
	start := time.Now()
	octx, cancel := context.WithTimeout(ctx, d)
	err := f(octx)
	cancel()
	t.nanos.Add(int64(time.Since(start)))
	if err == nil {
		return nil
	}
	if ctx.Err() != nil { // the caller gave up: says nothing of the store
		return err
	}
	if errors.Is(err, ErrRemoteFull) {
		t.full.Do(func() {
			t.c.s.log.Warn("gour: remote device code cache is full; storing nothing there, still reading it",
				"remote", t.url, "op", op, "err", err)
		})
		t.c.trace("remote full", "op", op, "err", err)
		return err
	}
	t.errs.Add(1)
	t.off.Store(time.Now().Add(t.o.OffFor).UnixNano())
	first := false
	t.trip.Do(func() { first = true })
	if first {
		t.c.s.log.Warn("gour: remote device code cache tier off for a while after an error; continuing with the local cache",
			"remote", t.url, "op", op, "err", err, "off_for", t.o.OffFor)
	} else {
		t.c.trace("remote error: tier off", "op", op, "err", err, "for", t.o.OffFor)
	}
	return err
}

var errRemoteOff = errors.New("cache: remote tier off")

// verdict is what the remote tier made of a value it read.
type verdict int

const (
	absent    verdict = iota // no value
	accepted                 // verified and signed by a trusted key
	refused                  // well formed, but no trusted key signed it: left in place
	corrupted                // failed verification: deleted, if this member writes
)

// get looks name up in the remote tier: the entry, verified, or nil and
// why not. The caller counts the lookup's hit or miss, once however many
// reads it takes.
func (t *remoteTier) get(ctx context.Context, name string, k Key) (*Entry, verdict) {
	var v []byte
	err := t.do(ctx, "get", t.o.MaxEntrySize, func(ctx context.Context) (err error) {
		v, err = t.r.Get(ctx, name)
		return err
	})
	if err != nil || v == nil {
		return nil, absent
	}
	return t.accept(ctx, name, k, v)
}

// accept checks a value read under name: its signer against the trusted
// keys, its signature, then the entry as on disk. A value that fails is
// deleted (if it is still the one read, and this member writes); one
// that no trusted key signed is left for its writer and refused.
func (t *remoteTier) accept(ctx context.Context, name string, k Key, v []byte) (*Entry, verdict) {
	signer, sig, body, err := unseal(v)
	if err == nil && signer == nil && !t.keys.Unsigned {
		// Unsigned: refused if it is an entry, corrupt if it is not one
		// at all (garbage, another application's value).
		_, err = decodeRemote(body, nil)
	}
	if err == nil && !t.keys.Trusts(signer) {
		t.untrusted.Add(1)
		by := "unsigned"
		if signer != nil {
			by = "signed by " + signing.Fingerprint(signer)
		}
		t.refused.Do(func() {
			t.c.s.log.Warn("gour: remote device code cache holds a value no trusted key signed; treating it as absent",
				"remote", t.url, "name", name[:16], "value", by, "trusted", EnvTrustedKeys)
		})
		t.c.trace("remote: untrusted value refused", "name", name[:16], "value", by)
		return nil, refused
	}
	var e *Entry
	if err == nil {
		if signer != nil && !verifySignature(name, signer, sig, body) {
			err = badf("signature of %s does not verify", signing.Fingerprint(signer))
		} else {
			e, err = decodeRemote(body, &k)
		}
	}
	if err != nil {
		t.corrupt.Add(1)
		if !t.writes() {
			t.c.trace("remote: bad value", "name", name[:16], "why", err)
			return nil, corrupted
		}
		t.c.trace("remote: bad value deleted", "name", name[:16], "why", err)
		_ = t.do(ctx, "delete", int64(len(v)), func(ctx context.Context) error { return t.r.Delete(ctx, name, v) })
		return nil, corrupted
	}
	e.remote = true
	t.c.trace("remote hit", "name", name[:16], "bytes", len(e.Binary))
	return e, accepted
}

// put sends an entry, signed, unless this member does not write; it
// reports whether it is stored.
func (t *remoteTier) put(ctx context.Context, name string, k Key, bin []byte, info Info) bool {
	if !t.writes() {
		return false
	}
	size := srcSize(k, info) + headerSize + nonceSize + len(bin)
	if t.keys.Signing != nil {
		size += sigHeadSize
	}
	if int64(size) > t.o.MaxEntrySize {
		t.skipped.Add(1)
		t.c.trace("remote: not sent, larger than the limit", "name", name[:16], "bytes", len(bin), "limit", t.o.MaxEntrySize)
		return false
	}
	v := encodeRemote(name, k, bin, info, t.c.now(), t.keys.Signing)
	if err := t.do(ctx, "put", int64(len(v)), func(ctx context.Context) error { return t.r.Put(ctx, name, v) }); err != nil {
		if errors.Is(err, ErrRemoteFull) {
			t.skipped.Add(1)
		}
		return false
	}
	t.stores.Add(1)
	t.c.trace("remote store", "name", name[:16], "bytes", len(v))
	return true
}

// remoteFill serves a miss of the disk from the remote tier, writing a
// hit to disk when toDisk is set.
func (c *Cache) remoteFill(ctx context.Context, k Key, toDisk bool) *Entry {
	t := c.remote
	if t == nil || !t.on() {
		return nil
	}
	e, _ := t.get(ctx, remoteName(c.hash, k), k)
	if e == nil {
		t.misses.Add(1)
		return nil
	}
	t.hits.Add(1)
	if toDisk {
		c.copyLocal(k, e, nil)
	}
	return e
}

// copyLocal writes e, a hit of the remote tier, to the local disk on a
// goroutine of its own, so that the write overlaps the caller's load of
// the binary: writing a binary and the cache's bookkeeping took a large
// share of a remote hit (docs/benchmarks.md, "The remote cache tier on
// the H100"). Reject of e waits for its write, Flush and Close for all. A
// process that exits before the write is done leaves no copy, and its
// next run reads the remote tier again. The write takes over held, the
// leaf's build.lock that GetOrBuild holds, and releases it when done, so
// that the machine's other processes waiting for it find the copy on disk
// and do not read the remote tier again.
func (c *Cache) copyLocal(k Key, e *Entry, held *lockHandoff) {
	done := make(chan struct{})
	e.copying = done
	c.copyMu.Lock()
	if c.copies == nil {
		c.copies = map[chan struct{}]struct{}{}
	}
	c.copies[done] = struct{}{}
	c.copyMu.Unlock()
	l := held.take()
	go func() {
		defer func() {
			c.copyMu.Lock()
			delete(c.copies, done)
			c.copyMu.Unlock()
			close(done)
		}()
		defer l.unlock()
		if ref, existed, err := c.putCopy(k, e.Binary, e.Info); err == nil && !existed {
			e.ref = ref
		}
	}()
}

// Flush waits until the local copies of remote hits that started before
// it are written; copies that lookups start meanwhile do not hold it up.
func (c *Cache) Flush() {
	c.copyMu.Lock()
	pending := make([]chan struct{}, 0, len(c.copies))
	for done := range c.copies {
		pending = append(pending, done)
	}
	c.copyMu.Unlock()
	for _, done := range pending {
		<-done
	}
}

// lockHandoff is a held lock that another goroutine may take over.
type lockHandoff struct{ l *heldLock }

// take returns the lock, for the caller to release; nil once taken (or
// for a nil h).
func (h *lockHandoff) take() *heldLock {
	if h == nil {
		return nil
	}
	l := h.l
	h.l = nil
	return l
}

// remoteOrBuild is GetOrBuild's way past a miss of the disk: the remote
// tier, then a build — under the fleet's lease for k when this process
// takes it — stored to the remote tier and, when GetOrBuild holds the
// leaf's build.lock (held, which the local copy of a remote hit takes
// over), to disk. fromCache reports a binary read from the remote tier.
func (c *Cache) remoteOrBuild(ctx context.Context, k Key, info Info, held *lockHandoff, build func() ([]byte, error)) (*Entry, bool, error) {
	var l *lease
	if t := c.remote; t != nil && t.on() {
		e, taken, err := t.serveOrLease(ctx, c, remoteName(c.hash, k), k)
		if err != nil {
			return nil, false, err
		}
		if e != nil {
			if held != nil {
				c.copyLocal(k, e, held)
			}
			return e, true, nil
		}
		l = taken
	}
	return c.buildAndStore(ctx, k, info, held != nil, l, build)
}

// serveOrLease looks name up and, on a miss, waits for another machine's
// build of it: it returns the entry when one is stored in time, else the
// build lease when this process took it, else neither (build without a
// lease: the store failed, the lease was abandoned, the wait ran out, a
// value no trusted key signed is in the way, or this member does not
// write and so takes no lease). It counts one hit or one miss.
func (t *remoteTier) serveOrLease(ctx context.Context, c *Cache, name string, k Key) (e *Entry, l *lease, err error) {
	defer func() {
		if e != nil {
			t.hits.Add(1)
		} else {
			t.misses.Add(1)
		}
	}()
	e, v := t.get(ctx, name, k)
	if e != nil || v == refused || !t.writes() {
		// A refused value is as good as none, and the lease script sees
		// it as stored: build, and replace it with a trusted one.
		return e, nil, nil
	}
	var tok [16]byte
	_, _ = rand.Read(tok[:])
	token := hex.EncodeToString(tok[:])
	deadline := time.Now().Add(t.o.Wait)
	poll := 5 * time.Millisecond
	for bad := 0; ; {
		var val []byte
		var st LeaseState
		err := t.do(ctx, "lease", t.o.MaxEntrySize, func(ctx context.Context) (err error) {
			val, st, err = t.r.Lease(ctx, name, token, t.o.LeaseTTL)
			return err
		})
		switch {
		case err != nil:
			return nil, nil, ctx.Err()
		case val != nil:
			// Stored by another machine since our lookup.
			e, v := t.accept(ctx, name, k, val)
			if e != nil {
				t.waits.Add(1)
				c.counts.waits.Add(1)
				return e, nil, nil
			}
			if bad++; v == refused || bad > 2 {
				return nil, nil, nil
			}
			continue // deleted: try for the lease
		case st == LeaseAcquired:
			c.trace("remote lease taken; building", "name", name[:16])
			return nil, &lease{name: name, token: token}, nil
		case st == LeaseAbandoned:
			c.trace("remote lease abandoned by its holder; building", "name", name[:16])
			return nil, nil, nil
		}
		if time.Now().After(deadline) {
			c.trace("remote: waited too long for another machine's build; building", "name", name[:16], "waited", t.o.Wait)
			return nil, nil, nil
		}
		if poll == 5*time.Millisecond {
			c.trace("remote: another machine builds; waiting", "name", name[:16])
		}
		select {
		case <-ctx.Done():
			return nil, nil, ctx.Err()
		case <-time.After(poll):
		}
		poll = min(2*poll, 100*time.Millisecond)
	}
}

// lease is a build lease this process holds.
type lease struct{ name, token string }

// buildAndStore builds k, stores it to disk (toDisk) and to the remote
// tier. With l, it renews the lease while the build runs and releases it
// after — also when build fails or panics — abandoning it when nothing
// was sent.
func (c *Cache) buildAndStore(ctx context.Context, k Key, info Info, toDisk bool, l *lease, build func() ([]byte, error)) (*Entry, bool, error) {
	t := c.remote
	sent := false
	if l != nil {
		stop := make(chan struct{})
		var wg sync.WaitGroup
		wg.Add(1)
		go func() {
			defer wg.Done()
			// Open keeps LeaseTTL at 100ms or more; a ticker panics
			// on anything not positive.
			tick := time.NewTicker(max(t.o.LeaseTTL/3, time.Millisecond))
			defer tick.Stop()
			for {
				select {
				case <-stop:
					return
				case <-tick.C:
					_ = t.do(context.Background(), "renew", 0, func(ctx context.Context) error {
						_, err := t.r.Renew(ctx, l.name, l.token, t.o.LeaseTTL)
						return err
					})
				}
			}
		}()
		defer func() {
			close(stop)
			wg.Wait()
			// Released even when the tier is off: the lease is ours.
			rctx, cancel := context.WithTimeout(context.Background(), t.o.Timeout)
			if sent {
				_ = t.r.Release(rctx, l.name, l.token)
			} else {
				_ = t.r.Abandon(rctx, l.name, l.token, t.o.LeaseTTL)
			}
			cancel()
		}()
	}
	e, _, err := c.buildOnly(k, info, build)
	if err != nil {
		return nil, false, err
	}
	if toDisk {
		if ref, existed, err := c.put(k, e.Binary, info); err == nil && !existed {
			e.ref = ref
		}
	}
	if t != nil && t.on() {
		sent = t.put(ctx, remoteName(c.hash, k), k, e.Binary, info)
	}
	return e, false, nil
}

// remoteReject deletes the remote copy of a rejected entry if it holds
// the same binary.
func (c *Cache) remoteReject(e *Entry) {
	t := c.remote
	if t == nil || !t.on() || !t.writes() || e == nil {
		return
	}
	name := remoteName(c.hash, e.Key)
	_ = t.do(context.Background(), "delete", 0, func(ctx context.Context) error { return t.r.Delete(ctx, name, e.Binary) })
	c.trace("remote reject", "name", name[:16])
}

// Close waits for the local copies of remote hits (Flush) and closes the
// remote tier's store, if any. The disk cache needs no closing; Close may
// be called more than once.
func (c *Cache) Close() error {
	c.Flush()
	t := c.remote
	if t == nil {
		return nil
	}
	var err error
	t.closeOnce.Do(func() { err = t.r.Close() })
	return err
}
