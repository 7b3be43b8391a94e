package cache

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gour-dev/gour/cache/signing"
	"github.com/gour-dev/gour/internal/harness/testenv"
)

// fakeRemote is an in-memory Remote: a store without a server, for the
// tier's own logic. Its hooks fail or slow operations.
type fakeRemote struct {
	mu     sync.Mutex
	vals   map[string][]byte
	leases map[string]string
	calls  map[string]int

	getDelay  time.Duration // Get takes this long (honouring ctx)
	getMisses bool          // Get finds nothing; Lease still returns values
	putErr    error         // Put and a Lease that would take the lease fail so
	closed    atomic.Int32
}

func newFakeRemote() *fakeRemote {
	return &fakeRemote{vals: map[string][]byte{}, leases: map[string]string{}, calls: map[string]int{}}
}

func (f *fakeRemote) count(op string) {
	f.mu.Lock()
	f.calls[op]++
	f.mu.Unlock()
}

func (f *fakeRemote) Get(ctx context.Context, name string) ([]byte, error) {
	f.count("get")
	if f.getDelay > 0 {
		select {
		case <-time.After(f.getDelay):
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.getMisses {
		return nil, nil
	}
	return f.vals[name], nil
}

func (f *fakeRemote) Put(ctx context.Context, name string, value []byte) error {
	f.count("put")
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.putErr != nil {
		return f.putErr
	}
	f.vals[name] = bytes.Clone(value)
	return nil
}

func (f *fakeRemote) Delete(ctx context.Context, name string, suffix []byte) error {
	f.count("delete")
	f.mu.Lock()
	defer f.mu.Unlock()
	if bytes.HasSuffix(f.vals[name], suffix) {
		delete(f.vals, name)
	}
	return nil
}

func (f *fakeRemote) Lease(ctx context.Context, name, token string, ttl time.Duration) ([]byte, LeaseState, error) {
	f.count("lease")
	if ttl <= 0 {
		return nil, 0, fmt.Errorf("fake: lease of %v", ttl)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if v := f.vals[name]; v != nil {
		return v, 0, nil
	}
	switch l := f.leases[name]; {
	case l == "" || l == token:
		if f.putErr != nil {
			return nil, 0, f.putErr
		}
		f.leases[name] = token
		return nil, LeaseAcquired, nil
	case l == "abandoned":
		return nil, LeaseAbandoned, nil
	}
	return nil, LeaseHeld, nil
}

func (f *fakeRemote) Renew(ctx context.Context, name, token string, ttl time.Duration) (bool, error) {
	f.count("renew")
	if ttl <= 0 {
		return false, fmt.Errorf("fake: renew for %v", ttl)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.leases[name] == token, nil
}

func (f *fakeRemote) Release(ctx context.Context, name, token string) error {
	f.count("release")
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.leases[name] == token {
		delete(f.leases, name)
	}
	return nil
}

func (f *fakeRemote) Abandon(ctx context.Context, name, token string, ttl time.Duration) error {
	f.count("release")
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.leases[name] == token {
		f.leases[name] = "abandoned"
	}
	return nil
}

func (f *fakeRemote) Close() error {
	f.closed.Add(1)
	return nil
}

// set stores the value of an entry of k, binary binFor(k, size).
func (f *fakeRemote) set(k Key, size int) {
	f.mu.Lock()
	f.vals[RemoteName(k)] = encodeRemote(RemoteName(k), k, binFor(k, size), testInfo, time.Now(), testSigner)
	f.mu.Unlock()
}

// testSigner signs the values of the tests' writers.
var testSigner = func() *signing.PrivateKey {
	k, err := signing.Generate("test-writer")
	if err != nil {
		panic(err)
	}
	return k
}()

// testKeys makes a member of the fleet that signs with testSigner.
func testKeys() *RemoteKeys { return &RemoteKeys{Signing: testSigner} }

// openRemoteTest opens a cache in dir with f as its remote tier; a zero
// Timeout is 10 s, so that only tests of timeouts depend on the
// machine's load.
func openRemoteTest(t testing.TB, dir string, f *fakeRemote, o RemoteOptions, mod func(*Config)) (*Cache, *testenv.LogRecorder) {
	t.Helper()
	if o.Timeout == 0 {
		o.Timeout = 10 * time.Second
	}
	c, rec := openTest(t, dir, func(cfg *Config) {
		cfg.Remote = f
		cfg.RemoteOptions = o
		cfg.RemoteKeys = testKeys()
		if mod != nil {
			mod(cfg)
		}
	})
	t.Cleanup(func() { c.Close() })
	return c, rec
}

// TestFlushWhileCopying: Flush (and Close) run while lookups start local
// copies of remote hits; no copy is left unwritten and nothing panics.
func TestFlushWhileCopying(t *testing.T) {
	f := newFakeRemote()
	const getters, perGetter = 8, 40
	for g := range getters {
		for i := range perGetter {
			f.set(key(fmt.Sprint(g, "-", i)), 2000)
		}
	}
	c, _ := openRemoteTest(t, t.TempDir(), f, RemoteOptions{}, nil)
	stop := make(chan struct{})
	var flushers sync.WaitGroup
	for range 4 {
		flushers.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
					c.Flush()
				}
			}
		})
	}
	var gets sync.WaitGroup
	for g := range getters {
		gets.Go(func() {
			for i := range perGetter {
				k := key(fmt.Sprint(g, "-", i))
				e, ok := c.Get(k)
				if !ok || !e.FromRemote() || !bytes.Equal(e.Binary, binFor(k, 2000)) {
					t.Errorf("Get %d-%d: ok %v, want a remote hit", g, i, ok)
				}
			}
		})
	}
	gets.Wait()
	close(stop)
	flushers.Wait()
	c.Flush()
	local, _ := openTest(t, c.root, nil)
	for g := range getters {
		for i := range perGetter {
			wantHit(t, local, key(fmt.Sprint(g, "-", i)), 2000)
		}
	}
}

// TestStoredAfterRemoteHit: Stored of a remote hit reports the local
// copy, waiting for it.
func TestStoredAfterRemoteHit(t *testing.T) {
	f := newFakeRemote()
	for i := range 10 {
		f.set(key(fmt.Sprint(i)), 50000)
	}
	c, _ := openRemoteTest(t, t.TempDir(), f, RemoteOptions{}, nil)
	for i := range 10 {
		e, ok := c.Get(key(fmt.Sprint(i)))
		if !ok || !e.FromRemote() {
			t.Fatalf("Get %d: no remote hit", i)
		}
		if !e.Stored() {
			t.Fatalf("Get %d: the remote hit's copy is not reported stored", i)
		}
	}
}

// TestRemoteReadAllowance: a lookup gets the transfer allowance of the
// largest entry the tier sends, as a Put of it does: an entry that takes
// longer than Timeout alone to arrive is a hit, not an error.
func TestRemoteReadAllowance(t *testing.T) {
	f := newFakeRemote()
	k := key("slow")
	f.set(k, 1000)
	f.getDelay = 300 * time.Millisecond // within 50ms + 64 MiB / (64 MiB/s)
	c, _ := openRemoteTest(t, t.TempDir(), f, RemoteOptions{Timeout: 50 * time.Millisecond}, nil)
	if e, ok := c.Get(k); !ok || !e.FromRemote() {
		t.Fatalf("Get: no remote hit; counters %+v", c.RemoteCounters())
	}
	if n := c.RemoteCounters().Errors; n != 0 || !c.RemoteOn() {
		t.Fatalf("%d errors, tier on %v", n, c.RemoteOn())
	}
}

// TestRemoteMinimums: a lease under 100ms or a timeout under 1ms, from
// the URL or from RemoteOptions, makes Open fail naming the parameter.
func TestRemoteMinimums(t *testing.T) {
	for _, tc := range []struct {
		url  string
		o    RemoteOptions
		want string
	}{
		{"fake://host:1?lease=99ms", RemoteOptions{}, "lease"},
		{"fake://host:1?lease=500us", RemoteOptions{}, "lease"},
		{"fake://host:1?timeout=999us", RemoteOptions{}, "timeout"},
		{"", RemoteOptions{LeaseTTL: 50 * time.Millisecond}, "RemoteOptions.LeaseTTL"},
		{"", RemoteOptions{Timeout: time.Microsecond}, "RemoteOptions.Timeout"},
	} {
		cfg := Config{Dir: t.TempDir(), RemoteURL: tc.url, RemoteOptions: tc.o, Getenv: env()}
		if tc.url == "" {
			cfg.Remote = newFakeRemote()
		}
		c, err := Open(cfg)
		var se *SettingError
		if !errors.As(err, &se) || se.Name != EnvRemote || !strings.Contains(se.Why, tc.want) {
			t.Errorf("%q %+v: %v, want a *SettingError naming %s", tc.url, tc.o, err, tc.want)
			if c != nil {
				c.Close()
			}
		}
	}
	// The least allowed work.
	f := newFakeRemote()
	c, _ := openRemoteTest(t, t.TempDir(), f, RemoteOptions{Timeout: MinRemoteTimeout, LeaseTTL: MinRemoteLeaseTTL}, nil)
	if !c.HasRemote() {
		t.Fatal("no remote tier")
	}
}

// TestRenewTickerGuard: the renewal ticker of a lease too short to tick
// (which Open refuses) does not panic.
func TestRenewTickerGuard(t *testing.T) {
	f := newFakeRemote()
	c, _ := openRemoteTest(t, t.TempDir(), f, RemoteOptions{}, nil)
	c.remote.o.LeaseTTL = 2 // nanoseconds: LeaseTTL/3 is 0
	k := key("tiny lease")
	e, from, err := c.GetOrBuild(context.Background(), k, testInfo, func() ([]byte, error) {
		time.Sleep(20 * time.Millisecond)
		return binFor(k, 100), nil
	})
	if err != nil || from || !bytes.Equal(e.Binary, binFor(k, 100)) {
		t.Fatalf("GetOrBuild: %v %v", from, err)
	}
}

// TestOpenClosesUnusedRemote: Open closes a Config.Remote it does not
// keep — persistence off, or Open failing — and Close closes one it
// keeps, once.
func TestOpenClosesUnusedRemote(t *testing.T) {
	off := false
	f := newFakeRemote()
	c, err := Open(Config{Dir: t.TempDir(), Persistent: &off, Remote: f, Getenv: env()})
	if err != nil || c.HasRemote() {
		t.Fatalf("Open: %v, remote %v", err, c != nil && c.HasRemote())
	}
	if n := f.closed.Load(); n != 1 {
		t.Fatalf("persistence off: the store closed %d times, want 1", n)
	}
	f = newFakeRemote()
	bad := int64(-1)
	if _, err := Open(Config{Dir: t.TempDir(), MaxSize: &bad, Remote: f, Getenv: env()}); err == nil {
		t.Fatal("Open with a negative MaxSize succeeded")
	}
	if n := f.closed.Load(); n != 1 {
		t.Fatalf("Open failed: the store closed %d times, want 1", n)
	}
	f = newFakeRemote()
	c, err = Open(Config{Dir: t.TempDir(), Remote: f, RemoteKeys: testKeys(), Getenv: env()})
	if err != nil || !c.HasRemote() {
		t.Fatalf("Open: %v", err)
	}
	if n := f.closed.Load(); n != 0 {
		t.Fatalf("a store in use closed %d times by Open", n)
	}
	c.Close()
	c.Close()
	if n := f.closed.Load(); n != 1 {
		t.Fatalf("Close twice: the store closed %d times, want 1", n)
	}
}

// checkRemoteOnly checks that c, its disk off, serves and feeds the
// remote tier f: Get and GetOrBuild hit what f holds, a build and a Put
// are sent, nothing is reported stored on disk.
func checkRemoteOnly(t *testing.T, c *Cache, f *fakeRemote, tag string) {
	t.Helper()
	if c.Enabled() || !c.Usable() {
		t.Fatalf("Enabled %v, Usable %v; want the disk off, the cache usable", c.Enabled(), c.Usable())
	}
	held := key(tag + " held")
	f.set(held, 700)
	e, ok := c.Get(held)
	if !ok || !e.FromRemote() || !bytes.Equal(e.Binary, binFor(held, 700)) || e.Stored() {
		t.Fatalf("Get: ok %v; want a remote hit not stored on disk", ok)
	}
	builds := 0
	e, from, err := c.GetOrBuild(context.Background(), held, testInfo, func() ([]byte, error) { builds++; return nil, errors.New("built") })
	if err != nil || !from || !e.FromRemote() || builds != 0 {
		t.Fatalf("GetOrBuild of a stored key: from %v, %v, %d builds", from, err, builds)
	}
	built := key(tag + " built")
	e, from, err = c.GetOrBuild(context.Background(), built, testInfo, func() ([]byte, error) { builds++; return binFor(built, 300), nil })
	if err != nil || from || builds != 1 || e.Stored() {
		t.Fatalf("GetOrBuild of a new key: from %v, %v, %d builds", from, err, builds)
	}
	put := key(tag + " put")
	if err := c.Put(put, binFor(put, 400), testInfo); !errors.Is(err, ErrDisabled) {
		t.Fatalf("Put: %v, want ErrDisabled", err)
	}
	other, _ := openRemoteTest(t, t.TempDir(), f, RemoteOptions{}, nil)
	for _, k := range []Key{built, put} {
		if e, ok := other.Get(k); !ok || !e.FromRemote() {
			t.Fatalf("%s: not sent to the remote tier", k.CompileOptions)
		}
	}
}

// TestRemoteWithoutDisk: the remote tier goes on when the disk cache is
// off — unusable at Open, or turned off later by a failed write — but
// not with SYCL_CACHE_PERSISTENT=0.
func TestRemoteWithoutDisk(t *testing.T) {
	t.Run("unusable at open", func(t *testing.T) {
		file := filepath.Join(t.TempDir(), "file")
		if err := os.WriteFile(file, nil, 0o600); err != nil {
			t.Fatal(err)
		}
		f := newFakeRemote()
		c, rec := openRemoteTest(t, file, f, RemoteOptions{}, nil)
		if rec.Count(slog.LevelWarn) != 1 {
			t.Fatalf("warnings %q, want one", rec.Messages(slog.LevelWarn))
		}
		checkRemoteOnly(t, c, f, "open")
	})
	t.Run("turned off later", func(t *testing.T) {
		f := newFakeRemote()
		c, _ := openRemoteTest(t, t.TempDir(), f, RemoteOptions{}, nil)
		c.fail("store", errors.New("no space left on device"))
		checkRemoteOnly(t, c, f, "later")
	})
	t.Run("persistence off", func(t *testing.T) {
		opened := 0
		RegisterRemote("counting", func(*url.URL) (Remote, error) { opened++; return newFakeRemote(), nil })
		off := false
		c, err := Open(Config{Dir: t.TempDir(), Persistent: &off, RemoteURL: "counting://host:1", Getenv: env()})
		if err != nil || c.HasRemote() || c.Usable() || opened != 0 {
			t.Fatalf("Open: %v; remote %v, usable %v, store opened %d times", err, c.HasRemote(), c.Usable(), opened)
		}
	})
}

// TestRemoteCounters: each lookup counts one hit or one miss, also when
// the value comes while waiting; Skipped counts entries not sent, not
// the lease a full store refuses on the way.
func TestRemoteCounters(t *testing.T) {
	f := newFakeRemote()
	c, _ := openRemoteTest(t, t.TempDir(), f, RemoteOptions{}, nil)
	want := func(what string, w RemoteCounters) {
		t.Helper()
		got := c.RemoteCounters()
		got.Time = 0
		if got != w {
			t.Fatalf("%s: counters %+v, want %+v", what, got, w)
		}
	}
	bld := func(k Key) func() ([]byte, error) { return func() ([]byte, error) { return binFor(k, 100), nil } }
	ctx := context.Background()

	c.GetOrBuild(ctx, key("built"), testInfo, bld(key("built")))
	want("a miss, built and sent", RemoteCounters{Misses: 1, Stores: 1})

	// The first read misses, the lease loop finds the value.
	f.mu.Lock()
	f.getMisses = true
	f.mu.Unlock()
	f.set(key("came"), 100)
	if _, from, err := c.GetOrBuild(ctx, key("came"), testInfo, bld(key("came"))); !from || err != nil {
		t.Fatalf("GetOrBuild: from %v, %v", from, err)
	}
	want("a value found while waiting", RemoteCounters{Misses: 1, Stores: 1, Hits: 1, Waits: 1})
	f.mu.Lock()
	f.getMisses = false
	f.mu.Unlock()

	c.Get(key("absent"))
	want("a Get that misses", RemoteCounters{Misses: 2, Stores: 1, Hits: 1, Waits: 1})

	f.mu.Lock()
	f.putErr = fmt.Errorf("fake: %w", ErrRemoteFull)
	f.mu.Unlock()
	c.GetOrBuild(ctx, key("full"), testInfo, bld(key("full")))
	want("a store full", RemoteCounters{Misses: 3, Stores: 1, Hits: 1, Waits: 1, Skipped: 1})
	if !c.RemoteOn() {
		t.Fatal("a full store turned the tier off")
	}
}
