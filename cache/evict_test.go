package cache

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// fakeClock is a clock the test moves; every reading advances it by a
// millisecond so that stamps are ordered.
type fakeClock struct{ ns atomic.Int64 }

func newClock(t time.Time) *fakeClock {
	c := &fakeClock{}
	c.ns.Store(t.UnixNano())
	return c
}
func (f *fakeClock) now() time.Time          { return time.Unix(0, f.ns.Add(int64(time.Millisecond))) }
func (f *fakeClock) advance(d time.Duration) { f.ns.Add(int64(d)) }

func entrySize(t *testing.T, c *Cache) int64 {
	t.Helper()
	var total int64
	for _, e := range c.scan() {
		total += e.size
	}
	return total
}

// intel/llvm BasicEviction: past the limit, least recently used entries
// go until the cache is at half the limit; the size file follows.
func TestBasicEviction(t *testing.T) {
	c := mustOpen(t, t.TempDir())
	clock := newClock(time.Now())
	c.now = clock.now
	put(t, c, key("0"), 10000)
	one := entrySize(t, c)
	c.s.maxSize = 5*one + one/2
	for i := 1; i < 5; i++ {
		put(t, c, key(strconv.Itoa(i)), 10000)
	}
	wantHit(t, c, key("0"), 10000) // 0 becomes the most recently used
	if got := entrySize(t, c); got != 5*one {
		t.Fatalf("before eviction: %d bytes, want %d", got, 5*one)
	}
	put(t, c, key("5"), 10000) // 6 entries > limit → down to half: 2 entries
	for _, k := range []string{"0", "5"} {
		wantHit(t, c, key(k), 10000)
	}
	for _, k := range []string{"1", "2", "3", "4"} {
		wantMiss(t, c, key(k))
	}
	if got := entrySize(t, c); got > c.s.maxSize/2 {
		t.Errorf("after eviction %d bytes, limit/2 = %d", got, c.s.maxSize/2)
	}
	if n, ok := c.readSizeFile(); !ok || n != entrySize(t, c) {
		t.Errorf("cache_size.txt says %d (%v), the entries take %d", n, ok, entrySize(t, c))
	}
	if got := c.Counters().Evictions; got != 4 {
		t.Errorf("Evictions = %d", got)
	}
	// The evicted entries' directories are gone.
	if _, err := os.Stat(leafOf(c, key("1"))); !os.IsNotExist(err) {
		t.Errorf("evicted leaf left: %v", err)
	}
}

func TestEvictionDisabled(t *testing.T) {
	yes := true
	max := int64(1)
	c, _ := openTest(t, t.TempDir(), func(cfg *Config) { cfg.EvictionDisabled, cfg.MaxSize = &yes, &max })
	for i := 0; i < 4; i++ {
		put(t, c, key(strconv.Itoa(i)), 1000)
	}
	for i := 0; i < 4; i++ {
		wantHit(t, c, key(strconv.Itoa(i)), 1000)
	}
}

// SYCL_CACHE_THRESHOLD: entries unused for that many days go at the next
// sweep.
func TestThresholdEviction(t *testing.T) {
	c, _ := openTest(t, t.TempDir(), func(cfg *Config) { cfg.Getenv = env(EnvThreshold, "2") })
	clock := newClock(time.Now().Add(time.Hour))
	c.now = clock.now
	put(t, c, key("old"), 100)
	put(t, c, key("used"), 100)
	clock.advance(24 * time.Hour)
	put(t, c, key("new"), 100)
	clock.advance(24 * time.Hour)
	wantHit(t, c, key("used"), 100)
	clock.advance(12 * time.Hour) // old: 60 h unused, new: 36 h, used: 12 h
	c.sweepEvery = 0
	put(t, c, key("trigger"), 100) // the store runs the sweep
	wantMiss(t, c, key("old"))
	for _, k := range []string{"used", "new", "trigger"} {
		wantHit(t, c, key(k), 100)
	}
	// Sweeps are rate-limited by the last_sweep marker.
	c.sweepEvery = time.Hour
	clock.advance(5 * 24 * time.Hour)
	if err := os.Chtimes(filepath.Join(c.vdir, sweepMarkName), time.Now(), c.now()); err != nil {
		t.Fatal(err)
	}
	put(t, c, key("trigger2"), 100)
	wantHit(t, c, key("new"), 100)
}

// cache_size.txt: kept by every store and removal, rebuilt when bad.
func TestSizeFile(t *testing.T) {
	c := mustOpen(t, t.TempDir())
	for i := 0; i < 3; i++ {
		put(t, c, key(strconv.Itoa(i)), 1000*(i+1))
	}
	check := func(when string) {
		t.Helper()
		if n, ok := c.readSizeFile(); !ok || n != entrySize(t, c) {
			t.Errorf("%s: cache_size.txt says %d (%v), entries take %d", when, n, ok, entrySize(t, c))
		}
	}
	check("after stores")
	e, _ := c.Get(key("1"))
	c.Reject(e)
	check("after a reject")
	// A file changed behind the cache's back makes the total drift; the
	// next sweep (or size eviction) rewrites it from a scan.
	os.Truncate(filepath.Join(leafOf(c, key("2")), "0.bin"), 100)
	c.Get(key("2"))
	c.Prune(PruneOptions{})
	check("after a bad entry and a sweep")
	p := filepath.Join(c.vdir, sizeFileName)
	for _, junk := range []string{"garbage", "", "-5\n", "99999999999999999999999\n"} {
		os.WriteFile(p, []byte(junk), 0o600)
		put(t, c, key("x"+junk), 10)
		check(fmt.Sprintf("after %q", junk))
	}
	os.Remove(p)
	put(t, c, key("y"), 10)
	check("after removal")
}

// intel/llvm ConcurentReadWriteCache{Small,Medium,Big}Item: many
// goroutines store and read one key; nobody reads a corrupt binary.
func TestConcurrentReadWriteSameKey(t *testing.T) {
	for _, tc := range []struct{ size, workers int }{{128, 64}, {10240, 32}, {1 << 20, 8}} {
		t.Run(strconv.Itoa(tc.size), func(t *testing.T) {
			dir := t.TempDir()
			k := key("shared")
			want := binFor(k, tc.size)
			var wg sync.WaitGroup
			var bad atomic.Int32
			for i := 0; i < tc.workers; i++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					c, _ := openTest(t, dir, nil) // one Cache per worker, as processes
					c.Put(k, want, testInfo)
					if e, ok := c.Get(k); ok && !bytes.Equal(e.Binary, want) {
						bad.Add(1)
					}
				}()
			}
			wg.Wait()
			if bad.Load() != 0 {
				t.Fatal("corrupt binary read")
			}
			wantHit(t, mustOpen(t, dir), k, tc.size)
		})
	}
}

// Concurrent readers and writers of many keys with eviction running all
// the time: a hit is always the right binary, and the cache stays sound.
func TestConcurrentReadWriteWithEviction(t *testing.T) {
	dir := t.TempDir()
	probe := mustOpen(t, dir)
	put(t, probe, key("probe"), 2000)
	one := entrySize(t, probe)
	max := 6 * one
	const workers, ops, keys = 8, 150, 24
	var wg sync.WaitGroup
	var hits, wrong atomic.Int32
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			c, _ := openTest(t, dir, func(cfg *Config) { cfg.MaxSize = &max })
			c.sweepEvery = 50 * time.Millisecond
			r := rand.New(rand.NewPCG(uint64(w), 1))
			for i := 0; i < ops; i++ {
				k := key(strconv.Itoa(r.IntN(keys)))
				size := 1000 + 50*len(k.CompileOptions)
				if r.IntN(3) == 0 {
					c.Put(k, binFor(k, size), testInfo)
					continue
				}
				if e, ok := c.Get(k); ok {
					hits.Add(1)
					if !bytes.Equal(e.Binary, binFor(k, size)) {
						wrong.Add(1)
					}
				}
			}
		}(w)
	}
	wg.Wait()
	if wrong.Load() != 0 {
		t.Fatalf("%d wrong binaries served", wrong.Load())
	}
	if hits.Load() == 0 {
		t.Fatal("no hits: the test tested nothing")
	}
	c := mustOpen(t, dir)
	res, err := c.Verify(false)
	if err != nil || len(res.Problems) != 0 {
		t.Fatalf("verify: %v %+v", err, res.Problems)
	}
	if total := entrySize(t, c); total > max+2*one {
		t.Errorf("cache holds %d bytes, limit %d", total, max)
	}
	if !c.Enabled() {
		t.Fatal(c.Err())
	}
}

// Temporary files of crashed writers, halves of entries and empty
// directories are swept; an entry in use is not touched.
func TestPruneSweeps(t *testing.T) {
	c := mustOpen(t, t.TempDir())
	put(t, c, key("a"), 100)
	put(t, c, key("b"), 100)
	put(t, c, key("gone"), 100)
	la, lb := leafOf(c, key("a")), leafOf(c, key("b"))
	os.WriteFile(filepath.Join(la, tempPrefix+"0.bin-dead"), []byte("half"), 0o600)
	os.WriteFile(filepath.Join(la, "1.bin"), []byte("orphan"), 0o600) // a crash between the renames
	os.WriteFile(filepath.Join(c.vdir, tempPrefix+sizeFileName+"-dead"), []byte("1"), 0o600)
	os.Remove(filepath.Join(leafOf(c, key("gone")), "0.src"))
	// b is being written by another process.
	l, _ := c.tryLock(filepath.Join(lb, dataLockName), true)
	os.WriteFile(filepath.Join(lb, tempPrefix+"1.bin-live"), []byte("live"), 0o600)
	res, err := c.Prune(PruneOptions{})
	l.unlock()
	if err != nil {
		t.Fatal(err)
	}
	if res.Busy != 1 || res.Removed != 0 {
		t.Errorf("result %+v", res)
	}
	if got := files(t, la); strings.Join(got, " ") != "0.bin 0.src 0.use" {
		t.Errorf("a's leaf: %v", got)
	}
	if _, err := os.Stat(filepath.Join(lb, tempPrefix+"1.bin-live")); err != nil {
		t.Error("swept a live temporary file")
	}
	if _, err := os.Stat(leafOf(c, key("gone"))); !os.IsNotExist(err) {
		t.Error("empty leaf left")
	}
	if len(findFiles(t, c.vdir, tempPrefix+sizeFileName)) != 0 {
		t.Error("size temp left")
	}
	wantHit(t, c, key("a"), 100)
	wantHit(t, c, key("b"), 100)
	// Age, size and predicate pruning.
	clock := newClock(time.Now())
	c.now = clock.now
	for i := 0; i < 4; i++ {
		put(t, c, key(strconv.Itoa(i)), 1000)
		clock.advance(time.Hour)
	}
	res, _ = c.Prune(PruneOptions{OlderThan: 150 * time.Minute})
	if res.Removed != 4 { // a, b (real time, hours before), 0, 1
		t.Errorf("age prune removed %d", res.Removed)
	}
	res, _ = c.Prune(PruneOptions{Remove: func(e EntryStat) bool { return strings.HasSuffix(e.Key.CompileOptions, "=3") }})
	if res.Removed != 1 || res.Entries != 1 {
		t.Errorf("predicate prune %+v", res)
	}
	wantHit(t, c, key("2"), 1000)
	res, _ = c.Prune(PruneOptions{MaxSize: 1})
	if res.Removed != 1 || res.Entries != 0 {
		t.Errorf("size prune %+v", res)
	}
	if des, _ := os.ReadDir(c.vdir); len(des) > 4 {
		t.Errorf("version directory not empty: %v", des)
	}
}

func TestListStatsVerifyClear(t *testing.T) {
	c := mustOpen(t, t.TempDir())
	for i := 0; i < 3; i++ {
		put(t, c, key(strconv.Itoa(i)), 1000)
	}
	list, err := c.List()
	if err != nil || len(list) != 3 {
		t.Fatalf("List: %v %d", err, len(list))
	}
	for _, e := range list {
		if e.Key.Device != testDevice || e.BinarySize != 1000 || e.Info.Kernels[1] != "scale" || e.LastUse.IsZero() || e.DeviceDir == "" {
			t.Errorf("entry %+v", e)
		}
	}
	st, err := c.Stats()
	if err != nil || st.Entries != 3 || st.Devices != 1 || st.Bytes != st.TrackedBytes || st.Bytes == 0 {
		t.Errorf("Stats %+v %v", st, err)
	}
	os.Truncate(filepath.Join(leafOf(c, key("1")), "0.bin"), 500)
	os.WriteFile(filepath.Join(c.vdir, "stray"), nil, 0o600)
	res, _ := c.Verify(false)
	if res.Entries != 3 || res.Good != 2 || len(res.Problems) != 2 {
		t.Errorf("Verify %+v", res)
	}
	res, _ = c.Verify(true)
	if len(res.Problems) != 2 || !res.Problems[0].Removed && !res.Problems[1].Removed {
		t.Errorf("Verify(repair) %+v", res)
	}
	res, _ = c.Verify(false)
	if res.Good != 2 || len(res.Problems) != 1 { // the stray file is reported, not removed
		t.Errorf("after repair %+v", res)
	}
	pr, err := c.Clear()
	if err != nil || pr.Removed != 2 || pr.Entries != 0 {
		t.Errorf("Clear %+v %v", pr, err)
	}
	if list, _ := c.List(); len(list) != 0 {
		t.Errorf("after Clear: %d entries", len(list))
	}
	if n, ok := c.readSizeFile(); !ok || n != 0 {
		t.Errorf("size after Clear %d", n)
	}
}

// Eviction racing a reader (which the DPC++ cache got wrong): the reader
// holds the entry's lock shared between reading the .src and the .bin; an
// eviction at that moment skips the entry, so the reader never sees half
// of it.
func TestEvictionWhileReading(t *testing.T) {
	dir := t.TempDir()
	reader, evictor := mustOpen(t, dir), mustOpen(t, dir)
	k := key("k")
	put(t, reader, k, 5000)
	var removed int
	reader.testHook = func(p string) error {
		if p == "read:between" {
			removed, _ = evictor.evict(0)
		}
		return nil
	}
	wantHit(t, reader, k, 5000)
	reader.testHook = nil
	if removed != 0 {
		t.Fatalf("evicted an entry being read")
	}
	if n, _ := evictor.evict(0); n != 1 {
		t.Fatalf("evicted %d, want 1", n)
	}
	wantMiss(t, reader, k)
}
