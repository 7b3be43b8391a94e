package rediscache_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/gour-dev/gour/cache"
	"github.com/gour-dev/gour/cache/rediscache"
	"github.com/gour-dev/gour/internal/harness/testenv"
)

// store opens a Store on url for inspecting the server.
func store(t testing.TB, url string) *rediscache.Store {
	t.Helper()
	s, err := rediscache.OpenURL(url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestHitAcrossMachines(t *testing.T) {
	srv := testenv.StartRedis(t)
	a := newMachine(t, srv.URL(""), cache.RemoteOptions{})
	b := newMachine(t, srv.URL(""), cache.RemoteOptions{})
	bld := &builder{size: 5000}
	k := key("shared")
	if a.getOrBuild(t, k, bld) {
		t.Fatal("machine a: first GetOrBuild came from a cache")
	}
	if !b.getOrBuild(t, k, bld) {
		t.Fatal("machine b: not served by the remote tier")
	}
	if n := bld.n.Load(); n != 1 {
		t.Fatalf("%d builds, want 1", n)
	}
	if !b.localHas(t, k) {
		t.Fatal("machine b: the remote hit was not written to its disk")
	}
	// b's disk serves it now: no remote lookup.
	before := b.c.RemoteCounters()
	if !b.getOrBuild(t, k, bld) {
		t.Fatal("machine b: second lookup missed")
	}
	if after := b.c.RemoteCounters(); after.Hits != before.Hits || after.Misses != before.Misses {
		t.Fatalf("the second lookup went to the remote tier: %+v → %+v", before, after)
	}
	// Get and Put go through the remote tier too.
	k2 := key("put")
	if err := a.c.Put(k2, binFor(k2, 300), info); err != nil {
		t.Fatal(err)
	}
	if e, ok := b.c.Get(k2); !ok || !bytes.Equal(e.Binary, binFor(k2, 300)) {
		t.Fatal("Get on machine b: no remote hit of a's Put")
	}
	st, err := store(t, srv.URL("")).Stats(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if st.Entries != 2 || st.Hits != 2 || st.Misses < 1 || st.Bytes < 5300 {
		t.Fatalf("server stats %+v: want 2 entries, 2 hits, misses", st)
	}
	if w := append(a.log.Messages(slog.LevelWarn), b.log.Messages(slog.LevelWarn)...); len(w) != 0 {
		t.Fatalf("warnings: %q", w)
	}
}

// TestSingleFlightMachines: eight machines miss one key at once; one
// builds, the others wait for its value.
func TestSingleFlightMachines(t *testing.T) {
	srv := testenv.StartRedis(t)
	bld := &builder{size: 20000, delay: 300 * time.Millisecond}
	k := key("flight")
	var ms []*machine
	for range 8 {
		ms = append(ms, newMachine(t, srv.URL(""), cache.RemoteOptions{}))
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	served := 0
	for _, m := range ms {
		wg.Go(func() {
			if m.getOrBuild(t, k, bld) {
				mu.Lock()
				served++
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if n := bld.n.Load(); n != 1 {
		var w []string
		for _, m := range ms {
			w = append(w, m.log.Messages(slog.LevelWarn)...)
		}
		t.Fatalf("%d builds across 8 machines, want 1; warnings: %q", n, w)
	}
	if served != 7 {
		t.Fatalf("%d machines served from the remote tier, want 7", served)
	}
	// One lookup each: one hit or one miss, a wait counted as a hit.
	var misses int64
	for i, m := range ms {
		c := m.c.RemoteCounters()
		if c.Hits+c.Misses != 1 || c.Waits > c.Hits {
			t.Errorf("machine %d: counters %+v, want one hit or one miss", i, c)
		}
		misses += c.Misses
	}
	if misses != 1 {
		t.Errorf("%d misses, want 1 (the builder's)", misses)
	}
	for i, m := range ms {
		if !m.localHas(t, k) {
			t.Fatalf("machine %d: not on its disk", i)
		}
	}
}

// TestAbandonedLease: a build that fails releases the lease as abandoned,
// so the waiters build at once instead of waiting for Wait.
func TestAbandonedLease(t *testing.T) {
	srv := testenv.StartRedis(t)
	o := cache.RemoteOptions{Wait: 20 * time.Second}
	a := newMachine(t, srv.URL(""), o)
	b := newMachine(t, srv.URL(""), o)
	k := key("abandon")
	started := make(chan struct{})
	failed := errors.New("build failed")
	done := make(chan error)
	go func() {
		_, _, err := a.c.GetOrBuild(context.Background(), k, info, func() ([]byte, error) {
			close(started)
			time.Sleep(300 * time.Millisecond)
			return nil, failed
		})
		done <- err
	}()
	<-started
	start := time.Now()
	bld := &builder{size: 100}
	if b.getOrBuild(t, k, bld) {
		t.Fatal("b: served from a cache")
	}
	if err := <-done; !errors.Is(err, failed) {
		t.Fatalf("a: %v, want the build's error", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("b waited %v for an abandoned lease", d)
	}
	if bld.n.Load() != 1 {
		t.Fatal("b did not build")
	}
}

// TestLeaseOwnership: only the holder renews or releases a lease; an
// expired lease is taken by the next.
func TestLeaseOwnership(t *testing.T) {
	srv := testenv.StartRedis(t)
	s := store(t, srv.URL(""))
	ctx := context.Background()
	name := cache.RemoteName(key("lease"))
	if _, st, err := s.Lease(ctx, name, "A", 300*time.Millisecond); err != nil || st != cache.LeaseAcquired {
		t.Fatalf("A: %v %v", st, err)
	}
	if _, st, err := s.Lease(ctx, name, "B", time.Second); err != nil || st != cache.LeaseHeld {
		t.Fatalf("B while A holds: %v %v", st, err)
	}
	if ok, err := s.Renew(ctx, name, "B", time.Second); err != nil || ok {
		t.Fatalf("B renewed A's lease: %v %v", ok, err)
	}
	if err := s.Release(ctx, name, "B"); err != nil {
		t.Fatal(err)
	}
	if _, st, _ := s.Lease(ctx, name, "B", time.Second); st != cache.LeaseHeld {
		t.Fatal("B's release removed A's lease")
	}
	if ok, err := s.Renew(ctx, name, "A", 300*time.Millisecond); err != nil || !ok {
		t.Fatalf("A could not renew: %v %v", ok, err)
	}
	time.Sleep(400 * time.Millisecond) // A crashed: its lease expires
	if _, st, _ := s.Lease(ctx, name, "B", time.Second); st != cache.LeaseAcquired {
		t.Fatalf("B after A's lease expired: %v", st)
	}
	if err := s.Release(ctx, name, "A"); err != nil {
		t.Fatal(err)
	}
	if _, st, _ := s.Lease(ctx, name, "C", time.Second); st != cache.LeaseHeld {
		t.Fatal("A's late release removed B's lease")
	}
	if err := s.Abandon(ctx, name, "B", time.Second); err != nil {
		t.Fatal(err)
	}
	if _, st, _ := s.Lease(ctx, name, "C", time.Second); st != cache.LeaseAbandoned {
		t.Fatalf("after an abandoning release: %v", st)
	}
	if err := s.Put(ctx, name, []byte("v")); err != nil {
		t.Fatal(err)
	}
	if v, _, _ := s.Lease(ctx, name, "C", time.Second); string(v) != "v" {
		t.Fatalf("Lease with a value stored: %q", v)
	}
}

// TestServerKilled: the server dies while 8 goroutines on 2 machines get
// and build 40 keys; every call succeeds with the right binary, each
// machine warns once.
func TestServerKilled(t *testing.T) {
	srv := testenv.StartRedis(t)
	o := cache.RemoteOptions{Timeout: 200 * time.Millisecond}
	ms := []*machine{newMachine(t, srv.URL(""), o), newMachine(t, srv.URL(""), o)}
	bld := &builder{size: 3000, delay: 5 * time.Millisecond}
	var wg sync.WaitGroup
	start := time.Now()
	for g := range 8 {
		wg.Go(func() {
			for i := range 40 {
				if g == 0 && i == 10 {
					srv.Kill()
				}
				ms[g%2].getOrBuild(t, key(fmt.Sprint(i)), bld)
			}
		})
	}
	wg.Wait()
	if d := time.Since(start); d > 10*time.Second {
		t.Fatalf("took %v", d)
	}
	for i, m := range ms {
		if w := m.log.Messages(slog.LevelWarn); len(w) != 1 || !strings.Contains(w[0], "tier off") {
			t.Errorf("machine %d: warnings %q, want one", i, w)
		}
		if m.c.RemoteOn() {
			t.Errorf("machine %d: the tier is still on", i)
		}
	}
	// Nothing lost: every key is on some machine's disk or builds again.
	for i := range 40 {
		k := key(fmt.Sprint(i))
		if !ms[0].localHas(t, k) && !ms[1].localHas(t, k) {
			t.Errorf("key %d is on neither disk", i)
		}
	}
}

// TestServerPaused: DEBUG SLEEP makes the server hang past the timeout;
// a lookup costs about one timeout (and the allowance for reading a 1
// MiB entry), then the tier is off.
func TestServerPaused(t *testing.T) {
	srv := testenv.StartRedis(t)
	o := cache.RemoteOptions{Timeout: 100 * time.Millisecond, MaxEntrySize: 1 << 20, OffFor: time.Hour}
	m := newMachine(t, srv.URL(""), o)
	bld := &builder{size: 1000}
	m.getOrBuild(t, key("warm"), bld) // connects
	if err := srv.Send("DEBUG", "SLEEP", "3"); err != nil {
		t.Fatal(err)
	}
	waitPaused(t, store(t, srv.URL("")))
	start := time.Now()
	for i := range 5 {
		m.getOrBuild(t, key(fmt.Sprint("paused", i)), bld)
	}
	if d := time.Since(start); d > time.Second {
		t.Fatalf("5 lookups took %v with a paused server (timeout 100ms)", d)
	}
	if w := m.log.Messages(slog.LevelWarn); len(w) != 1 {
		t.Fatalf("warnings %q, want one", w)
	}
	if c := m.c.RemoteCounters(); c.Errors != 1 {
		t.Fatalf("counters %+v: want one error", c)
	}
	if bld.n.Load() != 6 {
		t.Fatalf("%d builds, want 6", bld.n.Load())
	}
}

// TestBreakerRecovers: after OffFor the tier is tried again.
func TestBreakerRecovers(t *testing.T) {
	srv := testenv.StartRedis(t)
	o := cache.RemoteOptions{Timeout: 100 * time.Millisecond, MaxEntrySize: 1 << 20, OffFor: 300 * time.Millisecond}
	a := newMachine(t, srv.URL(""), o)
	b := newMachine(t, srv.URL(""), o)
	bld := &builder{size: 1000}
	s := store(t, srv.URL(""))
	if err := srv.Send("DEBUG", "SLEEP", "2"); err != nil {
		t.Fatal(err)
	}
	waitPaused(t, s)
	a.getOrBuild(t, key("x"), bld)
	if a.c.RemoteOn() {
		t.Fatal("tier on after a timeout")
	}
	waitServer(t, s)
	time.Sleep(o.OffFor + 200*time.Millisecond)
	a.getOrBuild(t, key("y"), bld)
	if !b.getOrBuild(t, key("y"), bld) {
		t.Fatal("the tier did not come back")
	}
	if w := a.log.Messages(slog.LevelWarn); len(w) != 1 {
		t.Fatalf("warnings %q", w)
	}
}

// waitPaused waits until the server, told to DEBUG SLEEP, stops answering.
func waitPaused(t *testing.T, s *rediscache.Store) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		err := s.Client().Ping(ctx).Err()
		cancel()
		if err != nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("the server does not pause")
		}
	}
}

// TestServerFull: with maxmemory and noeviction the server refuses
// writes; builds go on, stored entries are still served, one warning.
func TestServerFull(t *testing.T) {
	srv := testenv.StartRedis(t, "--maxmemory", "3mb", "--maxmemory-policy", "noeviction")
	a := newMachine(t, srv.URL(""), cache.RemoteOptions{})
	b := newMachine(t, srv.URL(""), cache.RemoteOptions{})
	bld := &builder{size: 200 << 10}
	a.getOrBuild(t, key("first"), bld)
	for i := range 30 {
		a.getOrBuild(t, key(fmt.Sprint(i)), bld)
	}
	if c := a.c.RemoteCounters(); c.Skipped == 0 || c.Stores == 0 {
		t.Fatalf("counters %+v: want stores, then skipped writes", c)
	}
	if !b.getOrBuild(t, key("first"), bld) {
		t.Fatal("b: a stored entry is not served by a full server")
	}
	n := bld.n.Load()
	b.getOrBuild(t, key("29"), bld)
	if bld.n.Load() != n+1 {
		t.Fatal("b: a key the full server could not take was not built")
	}
	// The lease the full server refuses is not an entry skipped.
	before := a.c.RemoteCounters().Skipped
	a.getOrBuild(t, key("one more"), bld)
	if d := a.c.RemoteCounters().Skipped - before; d != 1 {
		t.Fatalf("one entry not sent counted %d times", d)
	}
	if w := a.log.Messages(slog.LevelWarn); len(w) != 1 || !strings.Contains(w[0], "full") {
		t.Fatalf("warnings %q, want one about a full server", w)
	}
	if !a.c.RemoteOn() {
		t.Fatal("a full server turned the tier off")
	}
}

// TestBadValues: garbage, a truncated value, a flipped bit, a value of
// another key and a foreign (non-gour) value are misses, deleted and
// rebuilt.
func TestBadValues(t *testing.T) {
	srv := testenv.StartRedis(t)
	s := store(t, srv.URL(""))
	ctx := context.Background()
	a := newMachine(t, srv.URL(""), cache.RemoteOptions{})
	bld := &builder{size: 4000}
	good := key("good")
	a.getOrBuild(t, good, bld)
	v, err := s.Value(ctx, cache.RemoteName(good))
	if err != nil || v == nil {
		t.Fatal("no value stored", err)
	}
	flipped := bytes.Clone(v)
	flipped[len(flipped)-10] ^= 1
	flippedKey := bytes.Clone(v)
	flippedKey[100] ^= 1
	cases := map[string][]byte{
		"garbage":       []byte("garbage"),
		"empty":         {},
		"foreign":       []byte(`{"some":"other application's value"}`),
		"truncated":     v[:len(v)-1],
		"longer":        append(bytes.Clone(v), 0),
		"binary bit":    flipped,
		"record bit":    flippedKey,
		"another key's": v, // good's value under another name
		"header only":   v[:24],
	}
	for name, bad := range cases {
		t.Run(name, func(t *testing.T) {
			k := key("bad " + name)
			rn := cache.RemoteName(k)
			if err := s.Put(ctx, rn, bad); err != nil {
				t.Fatal(err)
			}
			b := newMachine(t, srv.URL(""), cache.RemoteOptions{})
			n := bld.n.Load()
			if b.getOrBuild(t, k, bld) {
				t.Fatal("served a bad value")
			}
			if bld.n.Load() != n+1 {
				t.Fatal("not rebuilt")
			}
			if c := b.c.RemoteCounters(); c.Corrupt != 1 {
				t.Fatalf("counters %+v: want one corrupt", c)
			}
			got, err := s.Value(ctx, rn)
			if err != nil || got == nil || bytes.Equal(got, bad) {
				t.Fatal("the bad value was not replaced")
			}
			if _, err := cache.VerifyRemote(rn, got); err != nil {
				t.Fatal("the new value:", err)
			}
			if !newMachine(t, srv.URL(""), cache.RemoteOptions{}).getOrBuild(t, k, bld) {
				t.Fatal("the rebuilt value is not served")
			}
		})
	}
}

// TestReject: a binary the driver refuses is removed from the remote
// tier as from the disk.
func TestReject(t *testing.T) {
	srv := testenv.StartRedis(t)
	a := newMachine(t, srv.URL(""), cache.RemoteOptions{})
	b := newMachine(t, srv.URL(""), cache.RemoteOptions{})
	bld := &builder{size: 1000}
	k := key("rejected")
	a.getOrBuild(t, k, bld)
	e, from, err := b.c.GetOrBuild(context.Background(), k, info, bld.build(k))
	if err != nil || !from {
		t.Fatal(from, err)
	}
	b.c.Reject(e)
	if v, _ := store(t, srv.URL("")).Value(context.Background(), cache.RemoteName(k)); v != nil {
		t.Fatal("the rejected entry is still on the server")
	}
	if b.getOrBuild(t, k, bld) {
		t.Fatal("served after Reject")
	}
}

// TestTooLarge: an entry above MaxEntrySize is not sent.
func TestTooLarge(t *testing.T) {
	srv := testenv.StartRedis(t)
	o := cache.RemoteOptions{MaxEntrySize: 10 << 10}
	a := newMachine(t, srv.URL(""), o)
	b := newMachine(t, srv.URL(""), o)
	small, large := &builder{size: 1000}, &builder{size: 20 << 10}
	a.getOrBuild(t, key("small"), small)
	a.getOrBuild(t, key("large"), large)
	if c := a.c.RemoteCounters(); c.Stores != 1 || c.Skipped != 1 {
		t.Fatalf("counters %+v: want 1 stored, 1 skipped", c)
	}
	if !b.getOrBuild(t, key("small"), small) || b.getOrBuild(t, key("large"), large) {
		t.Fatal("b: want the small entry from the remote tier, the large one built")
	}
}

// TestWrongPassword and TestTLSRefused: a server that refuses the
// connection costs one warning; every call succeeds.
func TestWrongPassword(t *testing.T) {
	srv := testenv.StartRedis(t, "--requirepass", "right")
	refused(t, srv.URL("wrong"), "WRONGPASS")
	m := newMachine(t, srv.URL("right"), cache.RemoteOptions{})
	m.getOrBuild(t, key("ok"), &builder{size: 10})
	if c := m.c.RemoteCounters(); c.Stores != 1 {
		t.Fatalf("with the right password: %+v", c)
	}
}

func TestTLSRefused(t *testing.T) {
	srv := testenv.StartRedis(t)
	refused(t, strings.Replace(srv.URL(""), "redis://", "rediss://", 1), "")
}

func refused(t *testing.T, url, want string) {
	t.Helper()
	// A TLS handshake with a plain server hangs until the deadline: a
	// lookup's, the timeout plus the allowance of a 1 MiB entry.
	m := newMachine(t, url, cache.RemoteOptions{Timeout: 200 * time.Millisecond, MaxEntrySize: 1 << 20})
	bld := &builder{size: 100}
	start := time.Now()
	for i := range 10 {
		if m.getOrBuild(t, key(fmt.Sprint(i)), bld) {
			t.Fatal("served from a cache")
		}
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Fatalf("10 calls took %v", d)
	}
	if bld.n.Load() != 10 {
		t.Fatalf("%d builds", bld.n.Load())
	}
	w := m.log.Messages(slog.LevelWarn)
	if len(w) != 1 || !strings.Contains(w[0], want) {
		t.Fatalf("warnings %q, want one saying %q", w, want)
	}
	if strings.Contains(w[0], "wrong@") || strings.Contains(w[0], ":wrong") {
		t.Fatalf("the warning shows the password: %q", w[0])
	}
}

// TestBadURL: malformed URLs are SettingErrors naming the variable, with
// the password hidden.
func TestBadURL(t *testing.T) {
	for _, u := range []string{
		"redis://user:secret@host:6379/x",
		"redis://:secret@host:6379/0?pool_size=many",
		"redis://host:6379/0?timeout=soon",
		"redis://host:6379/0?max_entry=-1",
		"redis://host:6379/0?lease=10ms",
		"redis://host:6379/0?timeout=100us",
		"redis://host:6379/0?prefix=",
		"redis://host:6379/0?prefix=a*",
		"redis://host:6379/0?unknown=1",
		"memcached://host:11211",
		"host:6379",
		"redis://",
		"://secret@x",
		"redis://us er:secret@ho st:6379",
	} {
		c, err := cache.Open(cache.Config{Dir: t.TempDir(), RemoteURL: u, Getenv: noEnv})
		var se *cache.SettingError
		if !errors.As(err, &se) || se.Name != cache.EnvRemote {
			t.Errorf("%q: %v (%T), want a *cache.SettingError for %s", u, err, err, cache.EnvRemote)
			if c != nil {
				c.Close()
			}
			continue
		}
		if strings.Contains(err.Error(), "secret") {
			t.Errorf("%q: the error shows the password: %v", u, err)
		}
	}
	// From the environment too.
	_, err := cache.Open(cache.Config{Dir: t.TempDir(), Getenv: func(v string) string {
		if v == cache.EnvRemote {
			return "redis://host:notaport"
		}
		return ""
	}})
	var se *cache.SettingError
	if !errors.As(err, &se) {
		t.Errorf("GOUR_CACHE_REMOTE with a bad port: %v", err)
	}
}

// TestNamespaces: two prefixes on one server are two caches; Clear of
// one leaves the other.
func TestNamespaces(t *testing.T) {
	srv := testenv.StartRedis(t)
	u1, u2 := srv.URL("")+"?prefix=one:", srv.URL("")+"?prefix=two:"
	a1, b2 := newMachine(t, u1, cache.RemoteOptions{}), newMachine(t, u2, cache.RemoteOptions{})
	bld := &builder{size: 100}
	a1.getOrBuild(t, key("k"), bld)
	if b2.getOrBuild(t, key("k"), bld) {
		t.Fatal("a cache of another prefix served the entry")
	}
	ctx := context.Background()
	n, err := store(t, u1).Clear(ctx)
	if err != nil || n != 1 {
		t.Fatalf("Clear: %d, %v", n, err)
	}
	if st, _ := store(t, u2).Stats(ctx); st.Entries != 1 {
		t.Fatalf("the other prefix lost its entry: %+v", st)
	}
}

// TestPrune: bad values go, then entries by age and size.
func TestPrune(t *testing.T) {
	srv := testenv.StartRedis(t)
	s := store(t, srv.URL(""))
	ctx := context.Background()
	m := newMachine(t, srv.URL(""), cache.RemoteOptions{})
	bld := &builder{size: 1000}
	for i := range 5 {
		m.getOrBuild(t, key(fmt.Sprint(i)), bld)
	}
	s.Put(ctx, cache.RemoteName(key("junk")), []byte("junk"))
	res, err := s.Prune(ctx, rediscache.PruneOptions{})
	if err != nil || res.Bad != 1 || res.Removed != 0 || res.Entries != 5 {
		t.Fatalf("prune: %+v %v", res, err)
	}
	var heads int
	err = s.Scan(ctx, func(it rediscache.Item) error {
		e, err := s.Head(ctx, it.Name)
		if err != nil || !strings.HasPrefix(e.Key.CompileOptions, "-cl-fast") || e.Binary != 1000 {
			return fmt.Errorf("head of %s: %+v %v", it.Name, e, err)
		}
		heads++
		return nil
	})
	if err != nil || heads != 5 {
		t.Fatal(heads, err)
	}
	// Two entries of 1000-byte binaries, signed, take 2764 bytes.
	res, err = s.Prune(ctx, rediscache.PruneOptions{MaxSize: 2800})
	if err != nil || res.Removed != 3 || res.Entries != 2 || res.Bytes > 2800 {
		t.Fatalf("prune --max-size: %+v %v", res, err)
	}
}

// TestNewPrefix: New refuses the prefixes OpenURL refuses: with an empty
// one Clear would unlink the whole database.
func TestNewPrefix(t *testing.T) {
	srv := testenv.StartRedis(t)
	opt := &redis.Options{Addr: srv.Addr()}
	for _, p := range []string{"", "a*", "a?", "[ab]", `a\`} {
		if s, err := rediscache.New(opt, p); !errors.Is(err, rediscache.ErrBadPrefix) {
			t.Errorf("New(%q): %v, want ErrBadPrefix", p, err)
			if s != nil {
				s.Close()
			}
		}
	}
	if _, err := srv.Do("SET", "someone-else", "x"); err != nil {
		t.Fatal(err)
	}
	s, err := rediscache.New(opt, "mine:")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	if err := s.Put(ctx, cache.RemoteName(key("k")), []byte("v")); err != nil {
		t.Fatal(err)
	}
	if n, err := s.Clear(ctx); err != nil || n != 1 {
		t.Fatalf("Clear: %d, %v", n, err)
	}
	if v, err := srv.Do("GET", "someone-else"); err != nil || v != "$1" {
		t.Fatalf("Clear removed a key outside its prefix: %q, %v", v, err)
	}
}

// TestLFUPolicy: under an LFU maxmemory-policy, where OBJECT IDLETIME
// fails, Stats, Scan and Prune work with idle times unknown (0).
func TestLFUPolicy(t *testing.T) {
	srv := testenv.StartRedis(t)
	if _, err := srv.Do("CONFIG", "SET", "maxmemory-policy", "allkeys-lfu"); err != nil {
		t.Fatal(err)
	}
	s := store(t, srv.URL(""))
	ctx := context.Background()
	m := newMachine(t, srv.URL(""), cache.RemoteOptions{})
	bld := &builder{size: 1000}
	for i := range 4 {
		m.getOrBuild(t, key(fmt.Sprint(i)), bld)
	}
	st, err := s.Stats(ctx)
	if err != nil || st.Entries != 4 || st.Bytes < 4000 {
		t.Fatalf("Stats: %+v, %v", st, err)
	}
	n := 0
	err = s.Scan(ctx, func(it rediscache.Item) error {
		if it.Idle != 0 || it.Size < 1000 {
			return fmt.Errorf("item %+v: want idle 0 (unknown), the value's size", it)
		}
		n++
		return nil
	})
	if err != nil || n != 4 {
		t.Fatalf("Scan: %d items, %v", n, err)
	}
	res, err := s.Prune(ctx, rediscache.PruneOptions{MaxSize: st.Bytes / 2, OlderThan: time.Nanosecond})
	if err != nil || res.Removed != 2 || res.Entries != 2 {
		t.Fatalf("Prune: %+v, %v", res, err)
	}
}

// pruneFixture stores n entries built by a machine and returns their names.
func pruneFixture(t *testing.T, url string, n int) []string {
	t.Helper()
	m := newMachine(t, url, cache.RemoteOptions{})
	bld := &builder{size: 1000}
	var names []string
	for i := range n {
		k := key(fmt.Sprint("prune", i))
		m.getOrBuild(t, k, bld)
		names = append(names, cache.RemoteName(k))
	}
	return names
}

// waitServer waits until a paused server answers again.
func waitServer(t *testing.T, s *rediscache.Store) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		err := s.Client().Ping(ctx).Err()
		cancel()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("the server does not answer:", err)
		}
	}
}

// TestPruneServerPaused: an entry Prune cannot read because the server
// hangs past the read timeout is not bad: Prune stops with the error and
// removes nothing.
func TestPruneServerPaused(t *testing.T) {
	srv := testenv.StartRedis(t)
	names := pruneFixture(t, srv.URL(""), 5)
	s := store(t, srv.URL("")+"?read_timeout=200ms")
	paused := false
	_, err := s.Prune(context.Background(), rediscache.PruneOptions{Remove: func(cache.RemoteEntry) bool {
		if !paused {
			// The next Head meets a server that sleeps past the timeout.
			paused = true
			if err := srv.Send("DEBUG", "SLEEP", "0.6"); err != nil {
				t.Fatal(err)
			}
			time.Sleep(100 * time.Millisecond)
		}
		return false
	}})
	if err == nil {
		t.Fatal("Prune: no error from a server that did not answer")
	}
	waitServer(t, s)
	for _, name := range names {
		if v, err := s.Value(context.Background(), name); err != nil || v == nil {
			t.Errorf("entry %s lost after a timeout: %v", name[:8], err)
		}
	}
}

// TestPruneRaces: an entry removed since the scan is skipped, not
// counted bad; a bad value replaced by a valid entry before its removal
// is kept.
func TestPruneRaces(t *testing.T) {
	srv := testenv.StartRedis(t)
	url := srv.URL("")
	names := pruneFixture(t, url, 4)
	s := store(t, url)
	ctx := context.Background()
	good, err := s.Value(ctx, names[0])
	if err != nil || good == nil {
		t.Fatal(good, err)
	}
	if err := s.Put(ctx, names[0], []byte("junk")); err != nil {
		t.Fatal(err)
	}
	// Whichever valid entry is read first removes the other two.
	first := ""
	rediscache.SetRemoveBadHook(t, func(name string) {
		if name == names[0] {
			if err := s.Put(ctx, name, good); err != nil {
				t.Error(err)
			}
		}
	})
	res, err := s.Prune(ctx, rediscache.PruneOptions{Remove: func(e cache.RemoteEntry) bool {
		if first == "" {
			first = cache.RemoteName(e.Key)
			var others []string
			for _, n := range names[1:] {
				if n != first {
					others = append(others, n)
				}
			}
			if n, err := s.Remove(ctx, others); err != nil || n != 2 {
				t.Errorf("Remove: %d, %v", n, err)
			}
		}
		return false
	}})
	// Entries counts the entries read: the first, not the value stored
	// over the bad one after it was read.
	if err != nil || res.Bad != 0 || res.Removed != 0 || res.Entries != 1 {
		t.Fatalf("Prune: %+v, %v; want no bad value, 1 entry", res, err)
	}
	if v, _ := s.Value(ctx, names[0]); !bytes.Equal(v, good) {
		t.Fatal("the entry stored over the bad value was removed")
	}
	// Without a race the bad value goes.
	rediscache.SetRemoveBadHook(t, nil)
	if err := s.Put(ctx, names[0], []byte{}); err != nil {
		t.Fatal(err)
	}
	res, err = s.Prune(ctx, rediscache.PruneOptions{})
	if err != nil || res.Bad != 1 || res.Entries != 1 {
		t.Fatalf("Prune: %+v, %v; want the empty value removed", res, err)
	}
	if v, err := s.Value(ctx, names[0]); v != nil || err != nil {
		t.Fatalf("the empty value is still there: %q, %v", v, err)
	}
}

// TestShortTTL: a lease of less than a millisecond is set for one, not
// refused by the server as PX 0.
func TestShortTTL(t *testing.T) {
	srv := testenv.StartRedis(t)
	s := store(t, srv.URL(""))
	ctx := context.Background()
	name := cache.RemoteName(key("short"))
	if _, st, err := s.Lease(ctx, name, "A", 500*time.Microsecond); err != nil || st != cache.LeaseAcquired {
		t.Fatalf("Lease: %v %v", st, err)
	}
	if _, err := s.Renew(ctx, name, "A", 500*time.Microsecond); err != nil {
		t.Fatalf("Renew: %v", err)
	}
	if err := s.Abandon(ctx, name, "A", 500*time.Microsecond); err != nil {
		t.Fatalf("Release: %v", err)
	}
}

// TestDeleteEmptySuffix: Delete with an empty suffix (the bad value read
// was empty) removes an empty value, not one stored since.
func TestDeleteEmptySuffix(t *testing.T) {
	srv := testenv.StartRedis(t)
	s := store(t, srv.URL(""))
	ctx := context.Background()
	name := cache.RemoteName(key("empty-suffix"))
	if err := s.Put(ctx, name, []byte("a value stored since")); err != nil {
		t.Fatal(err)
	}
	if err := s.Delete(ctx, name, nil); err != nil {
		t.Fatal(err)
	}
	if v, err := s.Get(ctx, name); err != nil || string(v) != "a value stored since" {
		t.Errorf("after Delete with an empty suffix: %q, %v; want the value kept", v, err)
	}
	if err := s.Put(ctx, name, []byte{}); err != nil {
		t.Fatal(err)
	}
	if err := s.Delete(ctx, name, nil); err != nil {
		t.Fatal(err)
	}
	if v, err := s.Get(ctx, name); err != nil || v != nil {
		t.Errorf("an empty value after Delete: %q, %v; want none", v, err)
	}
}

// TestWaitBound: a holder that keeps renewing its lease and never stores
// holds a waiter up for Wait and no longer; then the waiter builds.
func TestWaitBound(t *testing.T) {
	srv := testenv.StartRedis(t)
	const wait = 3 * time.Second
	a := newMachine(t, srv.URL(""), cache.RemoteOptions{LeaseTTL: time.Second})
	b := newMachine(t, srv.URL(""), cache.RemoteOptions{LeaseTTL: time.Second, Wait: wait})
	k := key("slow holder")
	started, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	free := func() { once.Do(func() { close(release) }) }
	defer free()
	done := make(chan error, 1)
	go func() {
		_, _, err := a.c.GetOrBuild(context.Background(), k, info, func() ([]byte, error) {
			close(started)
			<-release
			return binFor(k, 100), nil
		})
		done <- err
	}()
	<-started
	start := time.Now()
	bld := &builder{size: 100}
	if b.getOrBuild(t, k, bld) {
		t.Fatal("b: served from a cache while a still builds")
	}
	d := time.Since(start)
	free()
	if err := <-done; err != nil {
		t.Fatal("a:", err)
	}
	if bld.n.Load() != 1 {
		t.Fatalf("b built %d times, want 1", bld.n.Load())
	}
	// Three lease lives went by: only renewals kept b waiting.
	if d < wait {
		t.Fatalf("b built after %v, before Wait (%v): a's lease lapsed", d, wait)
	}
	if d > wait+20*time.Second {
		t.Fatalf("b waited %v, Wait is %v", d, wait)
	}
}

// TestBuildPanicReleasesLease: a build that panics while holding the
// lease releases it, marked abandoned, so that another machine builds at
// once; the machine's own build lock is free again.
func TestBuildPanicReleasesLease(t *testing.T) {
	srv := testenv.StartRedis(t)
	o := cache.RemoteOptions{Wait: time.Minute}
	a := newMachine(t, srv.URL(""), o)
	b := newMachine(t, srv.URL(""), o)
	k := key("panics")
	func() {
		defer func() {
			if r := recover(); r != "build crashed" {
				t.Fatalf("recovered %v, want the build's panic", r)
			}
		}()
		a.c.GetOrBuild(context.Background(), k, info, func() ([]byte, error) { panic("build crashed") })
	}()
	ctx := context.Background()
	if _, st, err := store(t, srv.URL("")).Lease(ctx, cache.RemoteName(k), "probe", time.Second); err != nil || st != cache.LeaseAbandoned {
		t.Fatalf("lease after the panic: %v, %v; want abandoned", st, err)
	}
	start := time.Now()
	bld := &builder{size: 100}
	if b.getOrBuild(t, k, bld) || bld.n.Load() != 1 {
		t.Fatal("b did not build")
	}
	if d := time.Since(start); d > 20*time.Second {
		t.Fatalf("b waited %v for a lease whose holder panicked", d)
	}
	tctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if _, _, err := a.c.GetOrBuild(tctx, k, info, bld.build(k)); err != nil {
		t.Fatalf("a again after its panic: %v", err)
	}
}
