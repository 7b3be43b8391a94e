package rediscache

import (
	"context"
	"crypto/sha1"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/gour-dev/gour/cache"
	"github.com/gour-dev/gour/internal/redisopt"
)

// DefaultPrefix namespaces the keys of a store whose URL sets no prefix.
const DefaultPrefix = "gour:v1:"

func init() {
	open := func(u *url.URL) (cache.Remote, error) { return OpenURL(u.String()) }
	cache.RegisterRemote("redis", open)
	cache.RegisterRemote("rediss", open)
	// go-redis logs failed dials on its own; the remote tier says what
	// happened once, through the cache's logger, and traces the rest.
	redis.SetLogger(quiet{})
}

type quiet struct{}

func (quiet) Printf(context.Context, string, ...any) {}

// Store is a cache.Remote on a Redis server. Its keys are
//
//	<prefix>e:<name>   an entry: the cache's .src file then its .bin file
//	<prefix>l:<name>   a build lease: the holder's token, or "abandoned:" and it
//	<prefix>stats      a hash: hits and misses of Get, over every client
type Store struct {
	c      *redis.Client
	prefix string
	url    string // the password hidden
}

// URLError is a malformed store URL; Value hides the password.
type URLError struct {
	Value string
	Why   string
}

func (e *URLError) Error() string { return fmt.Sprintf("rediscache: %q: %s", e.Value, e.Why) }

// OpenURL makes a Store of a URL, redis://[user:password@]host:port[/db]
// or rediss://... for TLS, with optional query parameters: prefix (the
// key prefix, default "gour:v1:") and go-redis's own (dial_timeout,
// pool_size, skip_verify, ...). It does not connect: the first
// operation does.
func OpenURL(raw string) (*Store, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return nil, &URLError{Value: cache.RedactURL(raw), Why: "not a URL"}
	}
	shown := u.Redacted()
	if u.Scheme != "redis" && u.Scheme != "rediss" {
		return nil, &URLError{Value: shown, Why: "want scheme redis:// or rediss:// (TLS)"}
	}
	if u.Host == "" {
		return nil, &URLError{Value: shown, Why: "no host"}
	}
	q := u.Query()
	prefix := DefaultPrefix
	if q.Has("prefix") {
		prefix = q.Get("prefix")
		q.Del("prefix")
	}
	if why := checkPrefix(prefix); why != "" {
		return nil, &URLError{Value: shown, Why: why}
	}
	u.RawQuery = q.Encode()
	opt, err := redis.ParseURL(u.String())
	if err != nil {
		return nil, &URLError{Value: shown, Why: strings.TrimPrefix(err.Error(), "redis: ")}
	}
	s, err := New(opt, prefix)
	if err != nil {
		return nil, &URLError{Value: shown, Why: err.Error()}
	}
	s.url = shown
	return s, nil
}

// ErrBadPrefix is wrapped by New's error for a key prefix it refuses.
var ErrBadPrefix = errors.New("rediscache: bad key prefix")

// checkPrefix says why prefix cannot namespace a store ("" if it can):
// the maintenance methods SCAN and UNLINK prefix*, so an empty prefix
// would take every key of the database, and a glob character others'.
func checkPrefix(prefix string) string {
	if prefix == "" {
		return "empty prefix: every key of the database would be the cache's"
	}
	if strings.ContainsAny(prefix, "*?[]\\") {
		return "prefix holds a glob character (* ? [ ] \\)"
	}
	return ""
}

// New makes a Store of go-redis options and a key prefix (DefaultPrefix,
// or one of its own). It sets what the remote tier needs: no retries of
// commands or dials, context deadlines honoured, RESP2, no identity or
// maintenance-notification handshake. A prefix that is empty or holds a
// glob character is an error wrapping ErrBadPrefix.
func New(opt *redis.Options, prefix string) (*Store, error) {
	if why := checkPrefix(prefix); why != "" {
		return nil, fmt.Errorf("%w %q: %s", ErrBadPrefix, prefix, why)
	}
	o := redisopt.Strict(opt)
	if o.PoolTimeout == 0 {
		o.PoolTimeout = time.Second
	}
	if o.MinIdleConns == 0 {
		// go-redis dials it in the background now, so that the first
		// lookup, usually a new process's first GetKernel, does not
		// wait for a dial.
		o.MinIdleConns = 1
	}
	return &Store{c: redis.NewClient(o), prefix: prefix, url: o.Addr}, nil
}

// Client is the store's go-redis client.
func (s *Store) Client() *redis.Client { return s.c }

// Prefix is the store's key prefix.
func (s *Store) Prefix() string { return s.prefix }

// String is the store's URL, its password hidden.
func (s *Store) String() string { return s.url }

// Close closes the store's connections.
func (s *Store) Close() error { return s.c.Close() }

func (s *Store) entry(name string) string { return s.prefix + "e:" + name }
func (s *Store) lease(name string) string { return s.prefix + "l:" + name }
func (s *Store) stats() string            { return s.prefix + "stats" }

// Scripts. HINCRBY goes through pcall: a full server (maxmemory with
// noeviction) refuses it, and a lookup must not fail for a counter.
var (
	// countScript counts a lookup; it runs in the GET's pipeline (one
	// round trip) rather than around the GET, which would copy the value
	// through Lua.
	countScript = `
if redis.call('EXISTS', KEYS[1]) == 1 then redis.pcall('HINCRBY', KEYS[2], 'hits', 1) else redis.pcall('HINCRBY', KEYS[2], 'misses', 1) end
return 0`
	// deleteScript deletes a key whose value ends with ARGV[1] bytes of
	// SHA-1 ARGV[2]; with ARGV[3] = '1', whose value is exactly those.
	deleteScript = redis.NewScript(`
local v = redis.call('GET', KEYS[1])
if not v then return 0 end
local n = tonumber(ARGV[1])
if #v < n or (ARGV[3] == '1' and #v ~= n) then return 0 end
local s = v
if n < #v then s = string.sub(v, #v - n + 1) end
if redis.sha1hex(s) ~= ARGV[2] then return 0 end
return redis.call('DEL', KEYS[1])`)
	leaseScript = redis.NewScript(`
local v = redis.call('GET', KEYS[1])
if v then return {1, v} end
local l = redis.call('GET', KEYS[2])
if not l then
	redis.call('SET', KEYS[2], ARGV[1], 'PX', ARGV[2])
	return {0, 'acquired'}
end
if l == ARGV[1] then return {0, 'acquired'} end
if string.sub(l, 1, 10) == 'abandoned:' then return {0, 'abandoned'} end
return {0, 'held'}`)
	renewScript = redis.NewScript(`
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 0`)
	releaseScript = redis.NewScript(`
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
return redis.call('DEL', KEYS[1])`)
	// abandonScript falls back to deleting the lease when a full server
	// refuses the mark: waiters then take the lease in turn.
	abandonScript = redis.NewScript(`
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
local r = redis.pcall('SET', KEYS[1], 'abandoned:' .. ARGV[1], 'PX', ARGV[2])
if type(r) == 'table' and r.err then redis.call('DEL', KEYS[1]) end
return 1`)
)

// fullErr maps Redis's out-of-memory refusal to cache.ErrRemoteFull.
func fullErr(err error) error {
	if err != nil && strings.Contains(err.Error(), "OOM command not allowed") {
		return fmt.Errorf("%w: %w", cache.ErrRemoteFull, err)
	}
	return err
}

// Get returns the entry stored under name (nil when none) and counts a
// hit or a miss in the stats hash.
func (s *Store) Get(ctx context.Context, name string) ([]byte, error) {
	pipe := s.c.Pipeline()
	get := pipe.Get(ctx, s.entry(name))
	pipe.Eval(ctx, countScript, []string{s.entry(name), s.stats()})
	_, _ = pipe.Exec(ctx)
	v, err := get.Bytes()
	if errors.Is(err, redis.Nil) {
		return nil, nil
	}
	return v, err
}

// Put stores value under name.
func (s *Store) Put(ctx context.Context, name string, value []byte) error {
	return fullErr(s.c.Set(ctx, s.entry(name), value, 0).Err())
}

// Delete removes the entry of name if its value ends with suffix.
func (s *Store) Delete(ctx context.Context, name string, suffix []byte) error {
	// An empty suffix stands for an empty value, not for any.
	_, err := s.deleteIf(ctx, name, suffix, len(suffix) == 0)
	return err
}

// deleteIf deletes the entry of name if its value ends with suffix (is
// suffix, with exact), and reports whether it did.
func (s *Store) deleteIf(ctx context.Context, name string, suffix []byte, exact bool) (bool, error) {
	sum := sha1.Sum(suffix)
	flag := "0"
	if exact {
		flag = "1"
	}
	n, err := deleteScript.Run(ctx, s.c, []string{s.entry(name)}, len(suffix), hex.EncodeToString(sum[:]), flag).Int64()
	return n == 1, err
}

// Lease returns the entry of name if there is one, else tries to take its
// build lease for token.
func (s *Store) Lease(ctx context.Context, name, token string, ttl time.Duration) ([]byte, cache.LeaseState, error) {
	v, err := leaseScript.Run(ctx, s.c, []string{s.entry(name), s.lease(name)}, token, px(ttl)).Slice()
	if err != nil {
		return nil, 0, fullErr(err)
	}
	if len(v) != 2 {
		return nil, 0, fmt.Errorf("rediscache: lease script answered %d values", len(v))
	}
	str, _ := v[1].(string)
	if n, _ := v[0].(int64); n == 1 {
		return []byte(str), 0, nil
	}
	switch str {
	case "acquired":
		return nil, cache.LeaseAcquired, nil
	case "abandoned":
		return nil, cache.LeaseAbandoned, nil
	}
	return nil, cache.LeaseHeld, nil
}

// Renew extends the lease of name if token holds it.
func (s *Store) Renew(ctx context.Context, name, token string, ttl time.Duration) (bool, error) {
	n, err := renewScript.Run(ctx, s.c, []string{s.lease(name)}, token, px(ttl)).Int64()
	return n == 1, err
}

// Release gives the lease of name up if token holds it.
func (s *Store) Release(ctx context.Context, name, token string) error {
	return releaseScript.Run(ctx, s.c, []string{s.lease(name)}, token).Err()
}

// Abandon replaces the lease of name, if token holds it, by a mark that
// says no value is coming, for ttl.
func (s *Store) Abandon(ctx context.Context, name, token string, ttl time.Duration) error {
	return abandonScript.Run(ctx, s.c, []string{s.lease(name)}, token, px(ttl)).Err()
}

// px is ttl in whole milliseconds for SET PX and PEXPIRE, at least 1:
// Redis refuses 0 ("invalid expire time").
func px(ttl time.Duration) int64 {
	return int64(max((ttl+time.Millisecond-1)/time.Millisecond, 1))
}

var _ cache.Remote = (*Store)(nil)
