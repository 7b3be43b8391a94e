package rediscache

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/gour-dev/gour/cache"
)

// The maintenance methods serve urcache. They walk the keys with SCAN
// (never KEYS, which blocks the server), a batch at a time, and need no
// short timeout: give them a context with the deadline you want.

// Stats are the totals of a store.
type Stats struct {
	Entries int64 // entries stored
	Bytes   int64 // their values' bytes
	Leases  int64 // build leases held now (or abandoned marks)
	Hits    int64 // lookups answered with a value, by every client since the counters were made
	Misses  int64 // lookups answered with none
}

// HitRate is Hits / (Hits + Misses), 0 without lookups.
func (s Stats) HitRate() float64 {
	if s.Hits+s.Misses == 0 {
		return 0
	}
	return float64(s.Hits) / float64(s.Hits+s.Misses)
}

// Item is an entry as Scan finds it.
type Item struct {
	Name string // the cache's name of the entry (without prefix)
	Size int64  // the value's bytes
	// Idle is the time since the value was last read or written (OBJECT
	// IDLETIME, in seconds); 0 when the server does not track it, as
	// under an LFU maxmemory-policy (allkeys-lfu, volatile-lfu).
	Idle time.Duration
}

// isReply reports whether err is the server's answer to a command (such
// as WRONGTYPE), not a failure to reach it.
func isReply(err error) bool {
	var re redis.Error
	return errors.As(err, &re)
}

// scan calls fn with every key matching the store's prefix and pattern,
// a batch at a time.
func (s *Store) scan(ctx context.Context, pattern string, fn func([]string) error) error {
	var cursor uint64
	for {
		keys, next, err := s.c.Scan(ctx, cursor, s.prefix+pattern, 500).Result()
		if err != nil {
			return err
		}
		if len(keys) > 0 {
			if err := fn(keys); err != nil {
				return err
			}
		}
		if next == 0 {
			return nil
		}
		cursor = next
	}
}

// Scan calls fn with every entry: its name, size and idle time.
func (s *Store) Scan(ctx context.Context, fn func(Item) error) error {
	return s.scan(ctx, "e:*", func(keys []string) error {
		pipe := s.c.Pipeline()
		lens := make([]*redis.IntCmd, len(keys))
		idle := make([]*redis.DurationCmd, len(keys))
		for i, k := range keys {
			lens[i] = pipe.StrLen(ctx, k)
			idle[i] = pipe.ObjectIdleTime(ctx, k)
		}
		// Exec's error is its first command's: each is checked on its own,
		// since OBJECT IDLETIME fails under an LFU policy.
		_, _ = pipe.Exec(ctx)
		for i, k := range keys {
			n, err := lens[i].Result()
			if err != nil {
				if isReply(err) {
					continue // not a string: not an entry the cache wrote
				}
				return err
			}
			d, err := idle[i].Result()
			if err != nil {
				d = 0 // not tracked (an LFU policy), or removed since the scan
			}
			if err := fn(Item{Name: strings.TrimPrefix(k, s.prefix+"e:"), Size: n, Idle: d}); err != nil {
				return err
			}
		}
		return nil
	})
}

// Stats counts the entries, their bytes and the leases, and reads the hit
// and miss counters.
func (s *Store) Stats(ctx context.Context) (Stats, error) {
	var st Stats
	err := s.Scan(ctx, func(it Item) error {
		st.Entries++
		st.Bytes += it.Size
		return nil
	})
	if err != nil {
		return st, err
	}
	if err := s.scan(ctx, "l:*", func(keys []string) error { st.Leases += int64(len(keys)); return nil }); err != nil {
		return st, err
	}
	m, err := s.c.HGetAll(ctx, s.stats()).Result()
	if err != nil {
		return st, err
	}
	st.Hits = atoi(m["hits"])
	st.Misses = atoi(m["misses"])
	return st, nil
}

func atoi(s string) int64 {
	var n int64
	for _, c := range s {
		if c < '0' || c > '9' {
			return n
		}
		n = n*10 + int64(c-'0')
	}
	return n
}

// ErrNoEntry is Head's error when name has no entry (it may have been
// removed since a Scan listed it).
var ErrNoEntry = errors.New("rediscache: no entry")

// BadValueError is Head's error for a value that is not a valid entry of
// its name: its head does not decode, or it is another key's entry. Any
// other error of Head is the server's or the connection's, and says
// nothing about the value.
type BadValueError struct {
	Name string
	Err  error
}

func (e *BadValueError) Error() string {
	return fmt.Sprintf("rediscache: value of %s is not a valid entry: %v", e.Name, e.Err)
}

func (e *BadValueError) Unwrap() error { return e.Err }

// Head reads the start of the entry of name, enough for
// cache.DecodeRemoteHead, without its binary. It fails with ErrNoEntry
// when there is none and a *BadValueError when the value is not a valid
// entry of name.
func (s *Store) Head(ctx context.Context, name string) (cache.RemoteEntry, error) {
	n := cache.RemoteHeadSize
	for range 2 {
		b, err := s.c.GetRange(ctx, s.entry(name), 0, int64(n-1)).Bytes()
		if err != nil {
			return cache.RemoteEntry{}, err
		}
		if len(b) == 0 {
			// GETRANGE answers a missing key as an empty value.
			m, err := s.c.Exists(ctx, s.entry(name)).Result()
			if err != nil {
				return cache.RemoteEntry{}, err
			}
			if m == 0 {
				return cache.RemoteEntry{}, ErrNoEntry
			}
		}
		e, need, err := cache.DecodeRemoteHead(name, b)
		if err != nil {
			return e, &BadValueError{Name: name, Err: err}
		}
		if need == 0 {
			return e, nil
		}
		if need <= len(b) || len(b) < n {
			return e, &BadValueError{Name: name, Err: errors.New("value shorter than its header says")}
		}
		n = need
	}
	// Replaced between the two reads, or a header that lies.
	return cache.RemoteEntry{}, &BadValueError{Name: name, Err: errors.New("value head keeps growing")}
}

// Value reads the whole value of name without counting a lookup.
func (s *Store) Value(ctx context.Context, name string) ([]byte, error) {
	b, err := s.c.Get(ctx, s.entry(name)).Bytes()
	if errors.Is(err, redis.Nil) {
		return nil, nil
	}
	return b, err
}

// RemoveIf deletes the entry of name if its value is still value, so that
// a value stored since by someone else is kept; it reports whether it
// did.
func (s *Store) RemoveIf(ctx context.Context, name string, value []byte) (bool, error) {
	return s.deleteIf(ctx, name, value, true)
}

// testHookRemoveBad, when set, runs between Prune's read of a bad value
// and its removal (tests).
var testHookRemoveBad func(name string)

// removeBad removes the value of name, which Head found bad, if it is
// still bad and still the value read; it reports whether it did and the
// bytes it held. kept is a valid entry stored meanwhile, left in place.
func (s *Store) removeBad(ctx context.Context, name string) (removed bool, size int64, kept *Item, err error) {
	v, err := s.Value(ctx, name)
	if err != nil || v == nil {
		return false, 0, nil, err
	}
	if _, need, err := cache.DecodeRemoteHead(name, v); err == nil && need == 0 {
		return false, 0, &Item{Name: name, Size: int64(len(v))}, nil
	}
	if testHookRemoveBad != nil {
		testHookRemoveBad(name)
	}
	removed, err = s.RemoveIf(ctx, name, v)
	return removed, int64(len(v)), nil, err
}

// Remove deletes the entries of names; it returns how many were there.
func (s *Store) Remove(ctx context.Context, names []string) (int64, error) {
	var n int64
	for len(names) > 0 {
		batch := names[:min(len(names), 500)]
		names = names[len(batch):]
		keys := make([]string, len(batch))
		for i, name := range batch {
			keys[i] = s.entry(name)
		}
		d, err := s.c.Unlink(ctx, keys...).Result()
		n += d
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

// PruneOptions say what Prune removes besides bad values. Idle times
// need a server that tracks them (Item.Idle): under an LFU
// maxmemory-policy every entry's is 0, so OlderThan removes nothing and
// MaxSize removes entries in no useful order.
type PruneOptions struct {
	// MaxSize: remove the longest idle entries until the values take at
	// most this many bytes (0: no limit).
	MaxSize int64
	// OlderThan: remove entries idle for longer (0: none).
	OlderThan time.Duration
	// Remove, if set, selects entries to remove by their record.
	Remove func(cache.RemoteEntry) bool
}

// PruneResult is what Prune did.
type PruneResult struct {
	Removed int64 // entries removed by size, age or Remove
	Bad     int64 // values removed because they are not valid entries of their name
	Freed   int64 // bytes removed
	Entries int64 // entries left
	Bytes   int64 // bytes left
}

// Prune removes values that are not valid entries (their head does not
// decode, or belongs to another name), then entries by age, by Remove,
// and by size, the longest idle first. A bad value is removed only if it
// is still the value read, so that an entry stored meanwhile is kept; an
// entry removed since the scan is skipped. An error of the server or the
// connection stops Prune before it removes anything by age, Remove or
// size, and is returned: an entry it could not read is never judged bad.
func (s *Store) Prune(ctx context.Context, o PruneOptions) (PruneResult, error) {
	var res PruneResult
	var keep []Item
	var drop []string
	var freed int64
	err := s.Scan(ctx, func(it Item) error {
		e, err := s.Head(ctx, it.Name)
		var bad *BadValueError
		switch {
		case errors.Is(err, ErrNoEntry):
			return nil // removed since the scan
		case errors.As(err, &bad):
			removed, n, kept, err := s.removeBad(ctx, it.Name)
			if removed {
				res.Bad++
				freed += n
			}
			if kept != nil {
				keep = append(keep, *kept)
			}
			return err
		case err != nil:
			return err
		case o.OlderThan > 0 && it.Idle > o.OlderThan, o.Remove != nil && o.Remove(e):
			drop = append(drop, it.Name)
			freed += it.Size
		default:
			keep = append(keep, it)
		}
		return nil
	})
	res.Freed = freed
	if err != nil {
		return res, err
	}
	var total int64
	for _, it := range keep {
		total += it.Size
	}
	if o.MaxSize > 0 && total > o.MaxSize {
		sort.Slice(keep, func(i, j int) bool { return keep[i].Idle > keep[j].Idle })
		for len(keep) > 0 && total > o.MaxSize {
			drop = append(drop, keep[0].Name)
			total -= keep[0].Size
			freed += keep[0].Size
			keep = keep[1:]
		}
	}
	nd, err := s.Remove(ctx, drop)
	res.Removed = nd
	res.Freed = freed
	res.Entries, res.Bytes = int64(len(keep)), total
	return res, err
}

// Clear removes every key of the store's prefix: entries, leases and the
// counters. It returns the number of entries removed.
func (s *Store) Clear(ctx context.Context) (int64, error) {
	var entries int64
	err := s.scan(ctx, "*", func(keys []string) error {
		for _, k := range keys {
			if strings.HasPrefix(k, s.prefix+"e:") {
				entries++
			}
		}
		return s.c.Unlink(ctx, keys...).Err()
	})
	return entries, err
}
