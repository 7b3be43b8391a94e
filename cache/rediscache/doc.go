// Package rediscache is the Redis store of the persistent device code
// cache's remote tier (package cache, type Remote), through go-redis. It
// registers the URL schemes redis and rediss (TLS) with package cache
// when it is imported, so that GOUR_CACHE_REMOTE (or Config.RemoteURL)
// can name a server: a program that wants the remote tier imports it from
// its main package (`import _ "github.com/gour-dev/gour/cache/rediscache"`),
// or package all, which gour's commands import. The design is in
// docs/design.md, section "The persistent device code cache", The remote
// tier.
//
// # URL
//
//	redis://[user:password@]host:port[/db][?param=value&...]
//	rediss://...                                 the same over TLS
//
// Parameters: prefix (the key prefix, default "gour:v1:", so that several
// caches — or several gour versions — share one server; it may not be
// empty nor hold a glob character), the remote tier's own (timeout,
// max_entry, wait, lease, off_for: see cache.RemoteOptions), and those
// of go-redis (dial_timeout, pool_size, skip_verify, ...). Whatever the
// URL says, the client never retries (the remote tier prefers a miss to a
// wait), honours each operation's deadline, and speaks RESP2 without the
// identity and maintenance-notification handshakes. Importing the
// package silences go-redis's own log (redis.SetLogger): the remote tier
// reports a failure once, through the cache's logger, and traces the
// rest (SYCL_CACHE_TRACE=1).
//
// # Keys
//
//	<prefix>e:<name>   an entry: the cache's .src file then its .bin file, as on disk
//	<prefix>l:<name>   the build lease of name: its holder's random token, or
//	                   "abandoned:" and it once the holder gave up without storing
//	<prefix>stats      a hash: hits and misses of every client's lookups
//
// <name> is 64 hex digits, cache.RemoteName of the entry's key. Entries
// have no expiry: give the server a maxmemory and an LRU eviction policy
// (allkeys-lru), or prune it with urcache --remote. With noeviction a
// full server refuses writes (cache.ErrRemoteFull): lookups still work.
// An LFU policy works too, but Redis then keeps no idle times: Scan
// reports them as 0, and pruning by age or least recent use cannot
// choose.
//
// # Single flight
//
// The lease is taken by a Lua script that first returns the entry if
// there is one, else sets the lease to the caller's token with an expiry
// unless another holds it: one round trip per poll of a waiter. The
// holder renews it (a compare-and-PEXPIRE script) while it builds and
// releases it after, by compare-and-delete, so a holder whose lease
// expired and was taken by another never removes the other's. A crashed
// holder's lease expires.
//
// # Maintenance
//
// Stats, Scan, Head, Prune and Clear serve urcache. They walk the keys
// with SCAN, never KEYS, and remove with UNLINK. Prune removes a value as
// bad only when it has read it and it does not decode, and only if it is
// still the value read (RemoveIf); an error of the server or the
// connection stops it, so an entry it could not read is never lost.
package rediscache
