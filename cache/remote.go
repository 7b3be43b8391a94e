package cache

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// EnvRemote names the remote tier: a URL such as
// redis://user:pass@host:6379/0 (rediss:// for TLS), with optional query
// parameters (see RemoteOptions and the store's package). Empty or unset:
// no remote tier.
const EnvRemote = "GOUR_CACHE_REMOTE"

// Remote is a store shared by many machines behind the disk cache: the
// remote tier. It keeps opaque values under names the cache makes (64
// hex digits), and build leases under the same names. An implementation
// namespaces both (a key prefix), must honour ctx's deadline in every
// method, and must be safe for concurrent use. Package cache/rediscache
// is the Redis implementation.
//
// The cache verifies everything Get returns as it verifies its files,
// so a store need not be trusted: a value that fails is deleted and
// rebuilt.
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
	// Release gives the lease of name up if token holds it. With
	// abandoned, the lease is replaced, for ttl, by a mark that says no
	// value is coming, so that waiters build at once instead of in turn.
	Release(ctx context.Context, name, token string, abandoned bool, ttl time.Duration) error
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

// RemoteOptions tune the remote tier. A zero field takes its value from
// the URL's query parameter (named in brackets), else the default.
type RemoteOptions struct {
	// Timeout bounds every remote operation [timeout], plus a transfer
	// allowance of 64 MiB/s for what it may carry: a Put of n bytes gets
	// n/(64 MiB/s) more, a lookup, which may bring an entry of up to
	// MaxEntrySize, MaxEntrySize/(64 MiB/s) more (1s with the default
	// 64 MiB), so that an entry that could be stored can be read. A hung
	// server costs a lookup that long: lower MaxEntrySize to bound it, or
	// raise Timeout on a link slower than 64 MiB/s. Default 300ms; at
	// least 1ms.
	Timeout time.Duration
	// MaxEntrySize: entries larger (their key, info and binary encoded)
	// are not sent [max_entry]. Default 64 MiB.
	MaxEntrySize int64
	// Wait bounds how long a miss waits for another machine's build of
	// the same key before building itself [wait]. Default 2 minutes.
	Wait time.Duration
	// LeaseTTL is the life of a build lease, renewed every third of it
	// while the build runs; a crashed builder's lease expires after it
	// [lease]. Default 10s; at least 100ms.
	LeaseTTL time.Duration
	// OffFor is how long the circuit breaker keeps the tier off after an
	// error [off_for]. Default 1 minute.
	OffFor time.Duration
}

// Defaults of RemoteOptions.
const (
	DefaultRemoteTimeout  = 300 * time.Millisecond
	DefaultRemoteMaxEntry = 64 << 20
	DefaultRemoteWait     = 2 * time.Minute
	DefaultRemoteLeaseTTL = 10 * time.Second
	DefaultRemoteOffFor   = time.Minute
)

// Minimums of RemoteOptions: a shorter lease cannot be renewed in time
// (nor set: Redis counts in milliseconds), a shorter timeout fails every
// operation.
const (
	MinRemoteTimeout  = time.Millisecond
	MinRemoteLeaseTTL = 100 * time.Millisecond
)

// RemoteOpener opens the store of a URL, less the query parameters the
// cache reads itself (those of RemoteOptions).
type RemoteOpener func(u *url.URL) (Remote, error)

var openers sync.Map // scheme → RemoteOpener

// RegisterRemote makes URLs of scheme open through open; package
// cache/rediscache registers "redis" and "rediss" when it is imported
// (package programmgr imports it).
func RegisterRemote(scheme string, open RemoteOpener) {
	openers.Store(strings.ToLower(scheme), open)
}

// RemoteParams are the URL query parameters the cache reads itself (those
// of RemoteOptions): a store's opener ignores them.
var RemoteParams = []string{"timeout", "max_entry", "wait", "lease", "off_for"}

// openRemote resolves the remote tier's settings: cfg.Remote, else the
// URL of cfg.RemoteURL or GOUR_CACHE_REMOTE through a registered opener.
// A malformed URL or parameter is a *SettingError naming EnvRemote whose
// Value hides the password.
func (cfg Config) openRemote(getenv func(string) string) (Remote, RemoteOptions, string, error) {
	raw := strings.TrimSpace(cfg.RemoteURL)
	if raw == "" {
		raw = strings.TrimSpace(getenv(EnvRemote))
	}
	o := cfg.RemoteOptions
	if cfg.Remote == nil && (raw == "" || raw == "off" || raw == "none") {
		return nil, o, "", nil
	}
	var u *url.URL
	shown := "(set by the application)"
	if raw != "" && cfg.Remote == nil {
		var err error
		u, err = url.Parse(raw)
		if err != nil {
			return nil, o, "", &SettingError{Name: EnvRemote, Value: RedactURL(raw), Why: "not a URL; want redis://[user:password@]host:port[/db] or rediss://... for TLS"}
		}
		shown = u.Redacted()
		if u.Scheme == "" || u.Host == "" || u.Opaque != "" {
			return nil, o, "", &SettingError{Name: EnvRemote, Value: shown, Why: "want scheme://host:port, such as redis://host:6379/0 or rediss://... for TLS"}
		}
		q := u.Query()
		bad := func(p, why string) error {
			return &SettingError{Name: EnvRemote, Value: shown, Why: fmt.Sprintf("parameter %s=%q: %s", p, q.Get(p), why)}
		}
		for _, p := range RemoteParams {
			v := q.Get(p)
			if v == "" {
				continue
			}
			switch p {
			case "max_entry":
				n, why := readSize(v)
				if why != "" || n <= 0 {
					return nil, o, "", bad(p, "want a size above 0 (bytes, or a number with a unit K, M, G)")
				}
				if o.MaxEntrySize == 0 {
					o.MaxEntrySize = n
				}
			default:
				d, err := time.ParseDuration(v)
				if err != nil || d <= 0 {
					return nil, o, "", bad(p, "want a duration above 0, such as 300ms or 1m")
				}
				if least := map[string]time.Duration{"timeout": MinRemoteTimeout, "lease": MinRemoteLeaseTTL}[p]; d < least {
					return nil, o, "", bad(p, fmt.Sprintf("want at least %v", least))
				}
				f := map[string]*time.Duration{"timeout": &o.Timeout, "wait": &o.Wait, "lease": &o.LeaseTTL, "off_for": &o.OffFor}[p]
				if *f == 0 {
					*f = d
				}
			}
			q.Del(p)
		}
		u.RawQuery = q.Encode()
	}
	if o.Timeout < 0 || o.MaxEntrySize < 0 || o.Wait < 0 || o.LeaseTTL < 0 || o.OffFor < 0 {
		return nil, o, "", &SettingError{Name: EnvRemote, Value: shown, Why: "RemoteOptions hold a negative value"}
	}
	// The URL's values were checked above: one too short here is the
	// application's.
	if o.Timeout != 0 && o.Timeout < MinRemoteTimeout {
		return nil, o, "", &SettingError{Name: EnvRemote, Value: shown, Why: fmt.Sprintf("RemoteOptions.Timeout %v: want at least %v", o.Timeout, MinRemoteTimeout)}
	}
	if o.LeaseTTL != 0 && o.LeaseTTL < MinRemoteLeaseTTL {
		return nil, o, "", &SettingError{Name: EnvRemote, Value: shown, Why: fmt.Sprintf("RemoteOptions.LeaseTTL %v: want at least %v", o.LeaseTTL, MinRemoteLeaseTTL)}
	}
	if o.Timeout == 0 {
		o.Timeout = DefaultRemoteTimeout
	}
	if o.MaxEntrySize == 0 {
		o.MaxEntrySize = DefaultRemoteMaxEntry
	}
	if o.Wait == 0 {
		o.Wait = DefaultRemoteWait
	}
	if o.LeaseTTL == 0 {
		o.LeaseTTL = DefaultRemoteLeaseTTL
	}
	if o.OffFor == 0 {
		o.OffFor = DefaultRemoteOffFor
	}
	if cfg.Remote != nil {
		return cfg.Remote, o, shown, nil
	}
	v, ok := openers.Load(strings.ToLower(u.Scheme))
	if !ok {
		return nil, o, "", &SettingError{Name: EnvRemote, Value: shown,
			Why: fmt.Sprintf("no remote store for scheme %q in this program (redis and rediss come with package github.com/gour-dev/gour/cache/rediscache)", u.Scheme)}
	}
	r, err := v.(RemoteOpener)(u)
	if err != nil {
		var se *SettingError
		if errors.As(err, &se) {
			return nil, o, "", err
		}
		return nil, o, "", &SettingError{Name: EnvRemote, Value: shown, Why: err.Error()}
	}
	return r, o, shown, nil
}

// RedactURL hides what looks like a password in a remote tier's URL,
// also one that does not parse as a URL, for errors and logs.
func RedactURL(s string) string {
	if i := strings.LastIndex(s, "@"); i >= 0 {
		if j := strings.Index(s, "://"); j >= 0 && j < i {
			return s[:j+3] + "xxxxx" + s[i:]
		}
		return "xxxxx" + s[i:]
	}
	return s
}

// remoteTier is the remote tier of a Cache: the store, its settings and
// the circuit breaker.
type remoteTier struct {
	r         Remote
	o         RemoteOptions
	url       string // for messages, the password hidden
	c         *Cache
	off       atomic.Int64 // Unix nanoseconds until which the tier is off
	trip      sync.Once    // the one warning
	full      sync.Once    // the one warning about a full store
	closeOnce sync.Once

	hits, misses, stores, corrupt, errs, waits, skipped atomic.Int64
	nanos                                               atomic.Int64 // in operations
}

// RemoteCounters are this process's counts of remote-tier events.
type RemoteCounters struct {
	Hits    int64 // lookups served by the remote tier (and written to disk)
	Misses  int64 // lookups the remote tier could not serve; each lookup is one hit or one miss
	Stores  int64 // entries sent
	Corrupt int64 // values that failed verification (and were deleted)
	Errors  int64 // operations that failed or timed out (each turns the tier off for a while)
	Waits   int64 // hits that came after waiting for another machine's build (counted in Hits too)
	Skipped int64 // entries not sent: larger than MaxEntrySize, or the store full
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
		Errors: t.errs.Load(), Waits: t.waits.Load(), Skipped: t.skipped.Load(),
		Time: time.Duration(t.nanos.Load())}
}

// HasRemote reports whether the cache has a remote tier (which may be
// off for a while after an error).
func (c *Cache) HasRemote() bool { return c.remote != nil }

// RemoteOn reports whether the remote tier is configured and not turned
// off by the circuit breaker now.
func (c *Cache) RemoteOn() bool { return c.remote != nil && c.remote.on() }

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

// remoteName is the name of k in the remote store: the hex SHA-256 of
// its four directory names, so the same on every machine.
func remoteName(h hashFunc, k Key) string {
	rel := leafRel(h, k)
	sum := sha256.Sum256([]byte("gour.cache.v1.remote\x00" + rel[0] + rel[1] + rel[2] + rel[3]))
	return hex.EncodeToString(sum[:])
}

// RemoteName returns the name an entry of k has in a remote store (the
// store adds its prefix).
func RemoteName(k Key) string { return remoteName(sha256Hash, k) }

// encodeRemote returns the remote value of an entry: its .src file then
// its .bin file, exactly as on disk.
func encodeRemote(k Key, bin []byte, info Info, created time.Time) []byte {
	var nonce [nonceSize]byte
	_, _ = rand.Read(nonce[:])
	binFile := encodeBin(nonce, bin)
	src := encodeSrc(&srcRecord{Nonce: nonce, Created: created, BinLen: uint64(len(bin)),
		BinCRC: binary.LittleEndian.Uint32(binFile[12:]), Key: k, Info: info})
	return append(src, binFile...)
}

// splitRemote splits a remote value into its .src and .bin files, by the
// .src header's payload length.
func splitRemote(v []byte) (src, bin []byte, err error) {
	if len(v) < headerSize {
		return nil, nil, badf("remote value of %d bytes, shorter than a header", len(v))
	}
	n := binary.LittleEndian.Uint64(v[16:])
	if n > maxSrcPayload || n > uint64(len(v)-headerSize) {
		return nil, nil, badf("remote value: record length %d, value holds %d", n, len(v)-headerSize)
	}
	return v[:headerSize+n], v[headerSize+n:], nil
}

// decodeRemote verifies a remote value as readSlot verifies an entry's
// files: both headers and checksums, the .bin tied to the .src, and,
// with k, the full key.
func decodeRemote(v []byte, k *Key) (*Entry, error) {
	srcB, binB, err := splitRemote(v)
	if err != nil {
		return nil, err
	}
	rec, err := decodeSrc(srcB)
	if err != nil {
		return nil, err
	}
	if k != nil && !rec.Key.Equal(*k) {
		return nil, badf("remote value of another key")
	}
	nonce, bin, crc, err := decodeBin(binB)
	switch {
	case err != nil:
		return nil, fmt.Errorf(".bin: %w", err)
	case nonce != rec.Nonce || crc != rec.BinCRC || uint64(len(bin)) != rec.BinLen:
		return nil, badf(".bin belongs to another .src")
	}
	return &Entry{Key: rec.Key, Info: rec.Info, Binary: bin, Created: rec.Created}, nil
}

// RemoteEntry describes a value of a remote store, for listings.
type RemoteEntry struct {
	Key     Key
	Info    Info
	Created time.Time
	Binary  int64 // the binary's length
}

// DecodeRemoteHead decodes the head of a remote value — at least its
// record, RemoteHeadSize bytes suffice for most — without its binary, and
// checks that name is the key's (when name is not empty). need is above
// zero when head is too short: it is how many bytes are needed.
func DecodeRemoteHead(name string, head []byte) (e RemoteEntry, need int, err error) {
	if len(head) < headerSize {
		return e, headerSize, nil
	}
	n := binary.LittleEndian.Uint64(head[16:])
	if n > maxSrcPayload {
		return e, 0, badf("record length %d", n)
	}
	if uint64(len(head)) < headerSize+n {
		return e, int(headerSize + n), nil
	}
	rec, err := decodeSrc(head[:headerSize+n])
	if err != nil {
		return e, 0, err
	}
	if name != "" && RemoteName(rec.Key) != name {
		return e, 0, badf("value under the name of another key")
	}
	return RemoteEntry{Key: rec.Key, Info: rec.Info, Created: rec.Created, Binary: int64(rec.BinLen)}, 0, nil
}

// RemoteHeadSize is enough bytes of a remote value for DecodeRemoteHead
// with all but huge keys.
const RemoteHeadSize = 16 << 10

// VerifyRemote checks a whole remote value under name.
func VerifyRemote(name string, v []byte) error {
	e, err := decodeRemote(v, nil)
	if err != nil {
		return err
	}
	if RemoteName(e.Key) != name {
		return badf("value under the name of another key")
	}
	return nil
}

// get looks name up in the remote tier: the entry, verified, or nil. The
// caller counts the lookup's hit or miss, once however many reads it
// takes.
func (t *remoteTier) get(ctx context.Context, name string, k Key) *Entry {
	var v []byte
	err := t.do(ctx, "get", t.o.MaxEntrySize, func(ctx context.Context) (err error) {
		v, err = t.r.Get(ctx, name)
		return err
	})
	if err != nil || v == nil {
		return nil
	}
	return t.accept(ctx, name, k, v)
}

// accept verifies a value read under name; one that fails is deleted
// (if it is still the one read) and is a miss.
func (t *remoteTier) accept(ctx context.Context, name string, k Key, v []byte) *Entry {
	e, err := decodeRemote(v, &k)
	if err != nil {
		t.corrupt.Add(1)
		t.c.trace("remote: bad value deleted", "name", name[:16], "why", err)
		_ = t.do(ctx, "delete", int64(len(v)), func(ctx context.Context) error { return t.r.Delete(ctx, name, v) })
		return nil
	}
	e.remote = true
	t.c.trace("remote hit", "name", name[:16], "bytes", len(e.Binary))
	return e
}

// put sends an entry; it reports whether it is stored.
func (t *remoteTier) put(ctx context.Context, name string, k Key, bin []byte, info Info) bool {
	if int64(srcSize(k, info)+headerSize+nonceSize+len(bin)) > t.o.MaxEntrySize {
		t.skipped.Add(1)
		t.c.trace("remote: not sent, larger than the limit", "name", name[:16], "bytes", len(bin), "limit", t.o.MaxEntrySize)
		return false
	}
	v := encodeRemote(k, bin, info, t.c.now())
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
// hit to disk when store is set; the write takes over held (see
// copyLocal).
func (c *Cache) remoteFill(ctx context.Context, k Key, store bool, held *lockHandoff) *Entry {
	t := c.remote
	if t == nil || !t.on() {
		return nil
	}
	e := t.get(ctx, remoteName(c.hash, k), k)
	if e == nil {
		t.misses.Add(1)
		return nil
	}
	t.hits.Add(1)
	if store {
		c.copyLocal(k, e, held)
	}
	return e
}

// copyLocal writes e, a hit of the remote tier, to the local disk on a
// goroutine of its own, so that the write overlaps the caller's load of
// the binary: writing a 1 MB binary and the cache's bookkeeping took
// about 2 ms of a 7 ms remote hit on the H100 machine, whose local hit
// took 3 ms. Reject of e waits for its write, Flush and Close for all. A
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
// tier, then a build under the fleet's lease for k, stored to the remote
// tier and, when GetOrBuild holds the leaf's build.lock (held, which the
// local copy of a remote hit takes over), to disk. fromCache reports a
// binary read from the remote tier.
func (c *Cache) remoteOrBuild(ctx context.Context, k Key, info Info, held *lockHandoff, build func() ([]byte, error)) (*Entry, bool, error) {
	store := held != nil
	t := c.remote
	if t == nil || !t.on() {
		return c.buildAndStore(ctx, k, info, store, nil, build)
	}
	name := remoteName(c.hash, k)
	// One lookup, one count: a hit whether the value was there or came
	// while waiting, else a miss.
	served := false
	defer func() {
		if served {
			t.hits.Add(1)
		} else {
			t.misses.Add(1)
		}
	}()
	if e := t.get(ctx, name, k); e != nil {
		served = true
		if store {
			c.copyLocal(k, e, held)
		}
		return e, true, nil
	}
	var tok [16]byte
	_, _ = rand.Read(tok[:])
	token := hex.EncodeToString(tok[:])
	deadline := time.Now().Add(t.o.Wait)
	poll := 5 * time.Millisecond
	for bad := 0; ; {
		var v []byte
		var st LeaseState
		err := t.do(ctx, "lease", t.o.MaxEntrySize, func(ctx context.Context) (err error) {
			v, st, err = t.r.Lease(ctx, name, token, t.o.LeaseTTL)
			return err
		})
		switch {
		case err != nil:
			if ctx.Err() != nil {
				return nil, false, ctx.Err()
			}
			return c.buildAndStore(ctx, k, info, store, nil, build)
		case v != nil:
			// Stored by another machine since our lookup.
			if e := t.accept(ctx, name, k, v); e != nil {
				served = true
				t.waits.Add(1)
				c.counts.waits.Add(1)
				if store {
					c.copyLocal(k, e, held)
				}
				return e, true, nil
			}
			if bad++; bad > 2 {
				return c.buildAndStore(ctx, k, info, store, nil, build)
			}
			continue // deleted: try for the lease
		case st == LeaseAcquired:
			c.trace("remote lease taken; building", "name", name[:16])
			return c.buildAndStore(ctx, k, info, store, &lease{name: name, token: token}, build)
		case st == LeaseAbandoned:
			c.trace("remote lease abandoned by its holder; building", "name", name[:16])
			return c.buildAndStore(ctx, k, info, store, nil, build)
		}
		if time.Now().After(deadline) {
			c.trace("remote: waited too long for another machine's build; building", "name", name[:16], "waited", t.o.Wait)
			return c.buildAndStore(ctx, k, info, store, nil, build)
		}
		if poll == 5*time.Millisecond {
			c.trace("remote: another machine builds; waiting", "name", name[:16])
		}
		select {
		case <-ctx.Done():
			return nil, false, ctx.Err()
		case <-time.After(poll):
		}
		poll = min(2*poll, 100*time.Millisecond)
	}
}

// lease is a build lease this process holds.
type lease struct{ name, token string }

// buildAndStore builds k, stores it to disk (when store is set) and to
// the remote tier. With l, it renews the lease while the build runs and
// releases it after — also when build fails or panics — marking it
// abandoned when nothing was sent.
func (c *Cache) buildAndStore(ctx context.Context, k Key, info Info, store bool, l *lease, build func() ([]byte, error)) (*Entry, bool, error) {
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
			_ = t.r.Release(rctx, l.name, l.token, !sent, t.o.LeaseTTL)
			cancel()
		}()
	}
	e, _, err := c.buildOnly(k, info, build)
	if err != nil {
		return nil, false, err
	}
	if store {
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
	if t == nil || !t.on() || e == nil {
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
