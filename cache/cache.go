package cache

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gour-dev/gour/internal/fileowner"
	"github.com/gour-dev/gour/trace"
)

// ErrDisabled is returned by Put and the maintenance methods of a cache
// that is off (Err says why).
var ErrDisabled = errors.New("cache: the persistent cache is disabled")

// ErrNotCacheable is returned by Put for an entry the settings keep out
// of the cache: an image size outside [MinImageSize, MaxImageSize], a key
// or binary larger than the file format allows, or options holding a NUL
// byte.
var ErrNotCacheable = errors.New("cache: entry not cacheable")

// ErrReadOnly is returned by Put, Prune, Clear and Verify(true) on a
// read-only cache (see ReadOnly), which still serves what it holds.
var ErrReadOnly = errors.New("cache: the persistent cache is read-only")

// errRootGone says the cache root vanished during the run.
var errRootGone = errors.New("cache root is gone")

// Cache is a persistent device code cache rooted at one directory. Its
// methods are safe for concurrent use by goroutines and by processes
// sharing the directory.
type Cache struct {
	s        settings
	root     string // the cache root
	vdir     string // root/<format-version>
	dirPerm  os.FileMode
	filePerm os.FileMode
	hash     hashFunc

	off      atomic.Bool
	readOnly atomic.Bool
	whyMu    sync.Mutex
	why      error // why off
	roWhy    error // why read-only
	gates    keyGate
	counts   counters
	remote   *remoteTier // nil: no remote tier

	// copies are the local copies of remote hits being written
	// (copyLocal), each closed when done. Not a WaitGroup: copies start
	// on lookups while Flush waits, which a WaitGroup forbids.
	copyMu sync.Mutex
	copies map[chan struct{}]struct{}

	// hidden are entries Reject could not remove from a read-only cache:
	// this process serves them no more.
	hiddenMu sync.Mutex
	hidden   map[string]os.FileInfo // .src path → the .src rejected

	// Tuning; tests shorten them.
	readWait   time.Duration // Get waits this long for a writer of the entry
	writeWait  time.Duration // Put waits this long for readers of the entry
	sizeWait   time.Duration // waits for cache_size.txt
	sweepEvery time.Duration // minimum time between automatic sweeps; <0: never
	vdirTemps  time.Duration // temp files in the version directory older than this are swept
	now        func() time.Time

	// testHook, when set, runs at named points of a write; an error it
	// returns is the write's error, and it may block (crash tests).
	testHook func(point string) error
}

// testOpenHook becomes the testHook of every Cache opened (tests).
var testOpenHook func(point string) error

type counters struct {
	hits, misses, stores, builds, waits, evictions, rejects, corrupt atomic.Int64
}

// Counters are this process's counts of cache events.
type Counters struct {
	Hits      int64 // lookups served from disk
	Misses    int64 // lookups that found no valid entry
	Stores    int64 // entries written
	Builds    int64 // builds GetOrBuild ran
	Waits     int64 // GetOrBuild calls served after waiting for another builder
	Evictions int64 // entries removed by size or age eviction
	Rejects   int64 // entries removed by Reject
	Corrupt   int64 // bad entries found (and removed)
}

// Open resolves cfg (a nil field reads its environment variable) and
// opens the cache. It fails only for a malformed setting (a
// *SettingError naming the variable). A cache that cannot be used — no
// directory configured, a root that cannot be created, a root owned by
// another user or writable by others without AllowShared — is returned
// disabled, after one slog warning: the caller goes on without it. A
// root that exists but cannot be written — on a read-only file system,
// or not writable by this user — is returned read-only, after one slog
// warning: it serves hits and stores nothing. SYCL_CACHE_PERSISTENT=0
// disables the cache without a warning.
func Open(cfg Config) (c *Cache, err error) {
	if cfg.Remote != nil {
		// The Cache owns cfg.Remote: one it does not keep, because Open
		// fails or the tier is off, is closed here.
		defer func() {
			if c == nil || c.remote == nil {
				cfg.Remote.Close()
			}
		}()
	}
	s, err := cfg.resolve()
	if err != nil {
		return nil, err
	}
	getenv := cfg.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	var remote *remoteTier
	if s.persistent {
		rs, err := cfg.openRemote(getenv)
		if err != nil {
			return nil, err
		}
		remote = newRemoteTier(cfg, rs, getenv, s.log)
	}
	c = &Cache{
		s:          s,
		root:       s.dir,
		vdir:       filepath.Join(s.dir, versionDir),
		dirPerm:    0o700,
		filePerm:   0o600,
		hash:       sha256Hash,
		readWait:   500 * time.Millisecond,
		writeWait:  5 * time.Second,
		sizeWait:   10 * time.Second,
		sweepEvery: time.Hour,
		vdirTemps:  10 * time.Minute,
		now:        time.Now,
	}
	if s.allowShared {
		c.dirPerm, c.filePerm = 0o770, 0o660
	}
	c.testHook = testOpenHook
	if remote != nil {
		remote.c = c
		c.remote = remote
	}
	switch {
	case !s.persistent:
		c.off.Store(true)
		c.why = fmt.Errorf("%w (%s=0)", ErrDisabled, EnvPersistent)
	case s.dir == "":
		c.fail("open", errors.New(s.dirWhy))
	default:
		ro, err := c.prepare()
		switch {
		case err != nil:
			c.fail("open", err)
		case ro != nil:
			c.goReadOnly("open", ro)
		}
	}
	return c, nil
}

// prepare makes the root and version directories, checks who owns them
// and that they can be written. When the root exists but the file system
// refuses writes (read-only, or not this user's to write), it returns the
// refusal as ro: the cache can still be read.
func (c *Cache) prepare() (ro, err error) {
	if err := os.MkdirAll(c.root, c.dirPerm); err != nil {
		return nil, err
	}
	// The root itself may be a link (~/.cache → /data/...); what is
	// inside it never is followed.
	fi, err := os.Stat(c.root)
	if err != nil {
		return nil, err
	}
	if err := c.checkOwner(c.root, fi); err != nil {
		return nil, err
	}
	if err := c.mkdir(c.vdir); err != nil && !errors.Is(err, fs.ErrExist) {
		if !isReadOnlyFS(err) {
			return nil, err
		}
		ro = err
	}
	fi, err = os.Lstat(c.vdir)
	switch {
	case err == nil:
		if err := c.checkOwner(c.vdir, fi); err != nil {
			return nil, err
		}
	case ro != nil && isNotExist(err):
		return ro, nil // a read-only root without entries: every lookup misses
	default:
		return nil, err
	}
	if ro != nil {
		return ro, nil
	}
	// Probe: a read-only or full file system refuses this.
	if err := c.probe(); err != nil {
		if isReadOnlyFS(err) {
			return err, nil
		}
		return nil, err
	}
	return nil, nil
}

// probe writes and removes a temporary file in the version directory.
func (c *Cache) probe() error {
	if err := c.hook("probe"); err != nil {
		return err
	}
	f, err := os.CreateTemp(c.vdir, tempPrefix+"probe-")
	if err != nil {
		return err
	}
	_, werr := f.Write([]byte{0})
	cerr := f.Close()
	os.Remove(f.Name())
	if werr != nil {
		return werr
	}
	return cerr
}

// checkOwner refuses a directory that is not a directory, or, without
// AllowShared, one owned by another user than this one or root, or
// writable by group or others. (Root can replace this user's files
// anyway, so a directory only root can write adds no one: a pre-warmed
// cache shipped in an image is often root's.)
func (c *Cache) checkOwner(path string, fi os.FileInfo) error {
	if !fi.IsDir() {
		return fmt.Errorf("%s is not a directory", path)
	}
	if c.s.allowShared {
		return nil
	}
	if uid, ok := fileowner.Of(fi); ok && uid != fileowner.Me() && uid != 0 {
		return fmt.Errorf("%s is owned by user %d, not by this user %d (set %s=1 to share a cache)", path, uid, fileowner.Me(), EnvAllowShared)
	}
	if fi.Mode().Perm()&0o022 != 0 {
		return fmt.Errorf("%s is writable by group or others (mode %v; set %s=1 to share a cache)", path, fi.Mode().Perm(), EnvAllowShared)
	}
	return nil
}

// fail turns the cache off for the rest of the run, with one warning.
func (c *Cache) fail(op string, err error) {
	if err == nil {
		err = errors.New("unknown error")
	}
	c.whyMu.Lock()
	first := !c.off.Load()
	if first {
		c.why = fmt.Errorf("%w: %s: %w", ErrDisabled, op, err)
		c.off.Store(true)
	}
	c.whyMu.Unlock()
	if first {
		c.s.log.Warn("gour: persistent device code cache disabled; continuing without it",
			"dir", c.root, "op", op, "err", err)
	}
}

// goReadOnly makes the cache read-only for the rest of the run, with one
// warning: it goes on serving hits and stops writing.
func (c *Cache) goReadOnly(op string, err error) {
	c.whyMu.Lock()
	first := !c.readOnly.Load() && !c.off.Load()
	if first {
		c.roWhy = fmt.Errorf("%w: %s: %w", ErrReadOnly, op, err)
		c.readOnly.Store(true)
	}
	c.whyMu.Unlock()
	if first {
		c.s.log.Warn("gour: persistent device code cache is read-only; serving its entries, storing nothing",
			"dir", c.root, "op", op, "err", err)
	}
}

// writeFailed handles a failed write: a read-only or forbidden file
// system makes the cache read-only, anything else (a full disk, a
// deleted root) turns it off.
func (c *Cache) writeFailed(op string, err error) {
	if isReadOnlyFS(err) && !errors.Is(err, errRootGone) {
		c.goReadOnly(op, err)
		return
	}
	c.fail(op, err)
}

// readOnlyErr is the error of a write refused by a read-only cache.
func (c *Cache) readOnlyErr() error {
	c.whyMu.Lock()
	defer c.whyMu.Unlock()
	return c.roWhy
}

// Enabled reports whether the disk cache is in use (a read-only cache
// is). It turns false for the rest of the run when the directory becomes
// unusable. A remote tier goes on without it: see Usable.
func (c *Cache) Enabled() bool { return !c.off.Load() }

// Usable reports whether Get and GetOrBuild can serve anything: the disk
// cache is enabled, or a remote tier is configured, which serves (and
// takes builds) without the disk when the directory is unusable or
// becomes so — a full disk does not also lose the fleet's cache. Only
// SYCL_CACHE_PERSISTENT=0 turns both off. A caller that skips the cache
// should ask this, not Enabled.
func (c *Cache) Usable() bool { return c.Enabled() || c.remote != nil }

// ReadOnly reports whether the cache serves hits but writes nothing: its
// root is on a read-only file system or cannot be written by this user
// (found at Open, or when a write fails so). A read-only cache records
// no use, evicts and sweeps nothing, and leaves bad entries in place;
// Put, Prune, Clear and Verify(true) fail with ErrReadOnly.
func (c *Cache) ReadOnly() bool { return c.readOnly.Load() }

// Err says why the cache is disabled; nil while it is enabled.
func (c *Cache) Err() error {
	if c.Enabled() {
		return nil
	}
	c.whyMu.Lock()
	defer c.whyMu.Unlock()
	return c.why
}

// Dir returns the cache root ("" when none is configured).
func (c *Cache) Dir() string { return c.root }

// Counters returns this process's counts.
func (c *Cache) Counters() Counters {
	k := &c.counts
	return Counters{
		Hits: k.hits.Load(), Misses: k.misses.Load(), Stores: k.stores.Load(), Builds: k.builds.Load(),
		Waits: k.waits.Load(), Evictions: k.evictions.Load(), Rejects: k.rejects.Load(), Corrupt: k.corrupt.Load(),
	}
}

func (c *Cache) hook(point string) error {
	if c.testHook == nil {
		return nil
	}
	return c.testHook(point)
}

func (c *Cache) trace(op string, args ...any) {
	trace.Mark("cache", op, args...) // on the timeline of a gour trace
	if c.s.trace {
		c.s.log.Info("gour: persistent cache "+op, args...)
	}
}

// Cacheable reports whether an entry of this image size is cached at all
// (SYCL_CACHE_MIN/MAX_DEVICE_IMAGE_SIZE).
func (c *Cache) Cacheable(info Info) bool {
	return info.ImageSize >= c.s.minImage && info.ImageSize <= c.s.maxImage
}

func (c *Cache) cacheable(k Key, bin []byte, info Info) error {
	if !c.Cacheable(info) {
		return fmt.Errorf("%w: image size %d outside [%d, %d]", ErrNotCacheable, info.ImageSize, c.s.minImage, c.s.maxImage)
	}
	if !k.validOptions() {
		return fmt.Errorf("%w: options with a NUL byte", ErrNotCacheable)
	}
	if srcSize(k, info) > headerSize+maxSrcPayload {
		return fmt.Errorf("%w: key of %d bytes", ErrNotCacheable, srcSize(k, info))
	}
	if int64(len(bin)) > maxBinPayload-nonceSize {
		return fmt.Errorf("%w: binary of %d bytes", ErrNotCacheable, len(bin))
	}
	return nil
}

// Entry is a binary found in (or stored to) the cache.
type Entry struct {
	Key     Key
	Info    Info
	Binary  []byte
	Created time.Time
	ref     entryRef
	remote  bool          // read from the remote tier
	copying chan struct{} // closed when the write of a remote hit to the disk is done (copyLocal)
}

// FromRemote reports whether e was read from the remote tier (and then
// written to disk, if Stored).
func (e *Entry) FromRemote() bool { return e != nil && e.remote }

// entryRef locates an entry on disk and remembers the files as they were
// read, so that Reject removes them only if nobody replaced them since.
type entryRef struct {
	leaf  string
	slot  int
	src   os.FileInfo
	bin   os.FileInfo
	valid bool
}

// Stored reports whether e is on disk (false for a binary GetOrBuild
// built but could not store). For a remote hit it waits until the local
// copy is written.
func (e *Entry) Stored() bool {
	if e == nil {
		return false
	}
	e.waitCopy()
	return e.ref.valid
}

// waitCopy waits until the local copy of a remote hit, if any, is
// written: then e.ref is the copy's.
func (e *Entry) waitCopy() {
	if e.copying != nil {
		<-e.copying
	}
}

func slotName(n int, ext string) string { return strconv.Itoa(n) + ext }

func short(rel [4]string) string {
	return rel[0][:8] + "/" + rel[1][:8] + "/" + rel[2][:8] + "/" + rel[3][:8]
}

// leafIfSafe returns the leaf directory of rel when every directory on
// the way is a real directory (never a link).
func (c *Cache) leafIfSafe(rel [4]string) (string, bool) {
	p := c.vdir
	for _, comp := range rel {
		p = filepath.Join(p, comp)
		fi, err := os.Lstat(p)
		if err != nil || !fi.IsDir() {
			return "", false
		}
	}
	return p, true
}

// ensureLeaf makes the leaf directory of rel. A file or link where one of
// its directories belongs is removed (never followed). It fails with
// errRootGone when the version directory vanished.
func (c *Cache) ensureLeaf(rel [4]string) (string, error) {
	p := c.vdir
	for _, comp := range rel {
		p = filepath.Join(p, comp)
		err := c.mkdir(p)
		if err == nil {
			continue
		}
		if !errors.Is(err, fs.ErrExist) {
			if fi, verr := os.Lstat(c.vdir); verr != nil || !fi.IsDir() {
				return "", fmt.Errorf("%w: %v", errRootGone, err)
			}
			return "", err
		}
		fi, err := os.Lstat(p)
		if err != nil {
			return "", err
		}
		if fi.IsDir() {
			continue
		}
		if err := os.Remove(p); err != nil && !isNotExist(err) {
			return "", err
		}
		if err := c.mkdir(p); err != nil && !errors.Is(err, fs.ErrExist) {
			return "", err
		}
		if fi, err := os.Lstat(p); err != nil || !fi.IsDir() {
			return "", fmt.Errorf("cache: %s is not a directory", p)
		}
	}
	return p, nil
}

// mkdir makes a directory 0700 — or, in a shared cache, 0770 whatever
// the umask, so that the group can add and remove entries.
func (c *Cache) mkdir(p string) error {
	if err := os.Mkdir(p, c.dirPerm); err != nil {
		return err
	}
	if c.s.allowShared {
		return os.Chmod(p, c.dirPerm)
	}
	return nil
}

func (c *Cache) deadline(d time.Duration) time.Time { return time.Now().Add(d) }

// Get looks k up. A bad entry on the way (truncated, garbage, a .src
// without its .bin, ...) is a miss and is removed, if nobody changed it
// since it was read. An entry being written by another process is waited
// for briefly, then is a miss. With the disk cache off, a remote tier
// still serves.
func (c *Cache) Get(k Key) (*Entry, bool) {
	defer trace.Begin("cache", "cache.Get").End()
	if !c.Enabled() {
		// The remote tier goes on without the disk (see Usable).
		if e := c.remoteFill(context.Background(), k, false); e != nil {
			return e, true
		}
		return nil, false
	}
	e := c.lookup(k)
	if e == nil {
		c.counts.misses.Add(1)
		if c.s.trace {
			c.trace("miss", "entry", short(leafRel(c.hash, k)))
		}
		if e := c.remoteFill(context.Background(), k, !c.ReadOnly()); e != nil {
			return e, true
		}
		return nil, false
	}
	c.counts.hits.Add(1)
	if c.s.trace {
		c.trace("hit", "entry", short(leafRel(c.hash, k)), "slot", e.ref.slot, "bytes", len(e.Binary))
	}
	return e, true
}

// badSlot is an entry found bad, with its files as they were seen.
type badSlot struct {
	slot int
	src  os.FileInfo // nil: absent
	why  error
}

func (c *Cache) lookup(k Key) *Entry {
	rel := leafRel(c.hash, k)
	leaf, ok := c.leafIfSafe(rel)
	if !ok {
		return nil
	}
	l, err := c.readLock(leaf)
	if err != nil {
		if !isNotExist(err) {
			c.trace("miss: entry locked", "entry", short(rel), "err", err)
		}
		return nil
	}
	var bad []badSlot
	e := c.find(leaf, k, &bad)
	if e != nil && !c.ReadOnly() {
		c.touch(leaf, e.ref.slot)
	}
	l.unlock()
	if len(bad) > 0 {
		c.removeBad(leaf, bad)
	}
	return e
}

// readLock takes the data lock of leaf shared, for reading. On a
// read-only cache a lock file that is missing (or not a file) cannot be
// made, and none is needed where nobody can write: it returns a nil lock,
// and the reader reads unlocked.
func (c *Cache) readLock(leaf string) (*heldLock, error) {
	l, err := c.acquire(context.Background(), filepath.Join(leaf, dataLockName), false, c.deadline(c.readWait))
	if err != nil && c.ReadOnly() && (isNotExist(err) || errors.Is(err, errBadFile)) {
		return nil, nil
	}
	return l, err
}

type slotStatus int

const (
	slotAbsent slotStatus = iota
	slotOther             // a valid entry of another key (a hash collision)
	slotBad
	slotHit
	slotUnreadable // an I/O error that says nothing about the entry
)

// find walks the slots of leaf in order and returns the first valid entry
// of k. The caller holds the data lock.
func (c *Cache) find(leaf string, k Key, bad *[]badSlot) *Entry {
	e, st, b := c.readSlot(leaf, 0, &k)
	switch {
	case st == slotHit && !c.isHidden(e.ref):
		return e
	case st == slotBad:
		*bad = append(*bad, b)
	}
	lf, err := listLeaf(leaf)
	if err != nil {
		return nil
	}
	for _, n := range lf.order {
		if n == 0 {
			continue
		}
		e, st, b := c.readSlot(leaf, n, &k)
		switch {
		case st == slotHit && !c.isHidden(e.ref):
			return e
		case st == slotBad:
			*bad = append(*bad, b)
		}
	}
	return nil
}

// isHidden reports whether r is an entry Reject hid, which only a
// read-only cache does: a writable one answers without the lock.
func (c *Cache) isHidden(r entryRef) bool {
	if !c.ReadOnly() {
		return false
	}
	c.hiddenMu.Lock()
	defer c.hiddenMu.Unlock()
	was, ok := c.hidden[filepath.Join(r.leaf, slotName(r.slot, ".src"))]
	return ok && os.SameFile(was, r.src) && was.ModTime().Equal(r.src.ModTime())
}

// readSlot reads entry n of leaf. With k, an entry of another key is
// slotOther and its binary is not read; with nil k any valid entry is a
// hit (Verify).
func (c *Cache) readSlot(leaf string, n int, k *Key) (*Entry, slotStatus, badSlot) {
	srcPath := filepath.Join(leaf, slotName(n, ".src"))
	binPath := filepath.Join(leaf, slotName(n, ".bin"))
	bad := func(fi os.FileInfo, why error) (*Entry, slotStatus, badSlot) {
		if fi == nil {
			fi, _ = os.Lstat(srcPath)
		}
		return nil, slotBad, badSlot{slot: n, src: fi, why: why}
	}
	b, srcFi, err := readBounded(srcPath, headerSize+maxSrcPayload)
	if err != nil {
		switch {
		case isNotExist(err):
			// A .bin (or .use) without its .src: what a crash between the
			// two renames leaves. Writers hold the data lock exclusively,
			// so under our lock this is debris.
			if _, berr := os.Lstat(binPath); berr == nil {
				return bad(nil, errors.New(".bin without .src"))
			}
			return nil, slotAbsent, badSlot{}
		case errors.Is(err, errBadFile):
			return bad(srcFi, err)
		default:
			return nil, slotUnreadable, badSlot{}
		}
	}
	rec, err := decodeSrc(b)
	if err != nil {
		return bad(srcFi, err)
	}
	if k != nil && !rec.Key.Equal(*k) {
		return nil, slotOther, badSlot{}
	}
	_ = c.hook("read:between")
	want := int64(headerSize + nonceSize + rec.BinLen)
	bb, binFi, err := readBounded(binPath, want)
	if err != nil {
		if isNotExist(err) || errors.Is(err, errBadFile) {
			return bad(srcFi, fmt.Errorf(".bin: %w", err))
		}
		return nil, slotUnreadable, badSlot{}
	}
	nonce, bin, crc, err := decodeBin(bb)
	switch {
	case err != nil:
		return bad(srcFi, fmt.Errorf(".bin: %w", err))
	case nonce != rec.Nonce || crc != rec.BinCRC || uint64(len(bin)) != rec.BinLen:
		return bad(srcFi, errors.New(".bin belongs to another .src"))
	}
	return &Entry{
		Key: rec.Key, Info: rec.Info, Binary: bin, Created: rec.Created,
		ref: entryRef{leaf: leaf, slot: n, src: srcFi, bin: binFi, valid: true},
	}, slotHit, badSlot{}
}

// removeBad removes entries a reader found bad: it takes the data lock
// exclusively if it is free (else leaves them to the next one), removes
// the .src only if it is the very file that was read, then the slot's
// other files if the .src is gone.
func (c *Cache) removeBad(leaf string, bad []badSlot) {
	if c.ReadOnly() {
		c.counts.corrupt.Add(int64(len(bad)))
		for _, b := range bad {
			c.trace("bad entry left in place (read-only cache)", "path", filepath.Join(leaf, slotName(b.slot, ".src")), "why", b.why)
		}
		return
	}
	_ = c.hook("remove-bad")
	l, err := c.tryLock(filepath.Join(leaf, dataLockName), true)
	if err != nil {
		return
	}
	var freed int64
	for _, b := range bad {
		srcPath := filepath.Join(leaf, slotName(b.slot, ".src"))
		if b.src != nil {
			freed += removeIfUnchanged(srcPath, b.src)
		}
		if _, err := os.Lstat(srcPath); isNotExist(err) {
			freed += removeFile(filepath.Join(leaf, slotName(b.slot, ".bin")))
			removeFile(filepath.Join(leaf, slotName(b.slot, ".use")))
		}
		c.counts.corrupt.Add(1)
		c.trace("remove bad entry", "path", srcPath, "why", b.why)
	}
	l.unlock()
	c.addSize(-freed)
}

// Use stamps: <n>.use holds the entry's last use — the header (kind 'U')
// and 8 bytes of Unix nanoseconds — rewritten in place on every hit.
func useStamp(t time.Time) []byte {
	p := binary.LittleEndian.AppendUint64(nil, uint64(t.UnixNano()))
	return append(header(kindUse, p), p...)
}

func parseUse(b []byte) (time.Time, bool) {
	p, err := decodeFile(b, kindUse, 8)
	if err != nil || len(p) != 8 {
		return time.Time{}, false
	}
	return time.Unix(0, int64(binary.LittleEndian.Uint64(p))), true
}

// touch records a use of entry n. Something other than a file where the
// stamp belongs (a directory, a link, a FIFO) is removed and the stamp
// written again; readers hold the data lock only shared, but a use stamp
// is worth no more than the last writer's, so two readers doing this at
// once lose nothing.
func (c *Cache) touch(leaf string, n int) {
	path := filepath.Join(leaf, slotName(n, ".use"))
	for attempt := 0; attempt < 2; attempt++ {
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|oNoFollow|oNonblock, c.filePerm)
		if err == nil {
			fi, serr := f.Stat()
			if serr == nil && fi.Mode().IsRegular() {
				_, _ = f.WriteAt(useStamp(c.now()), 0)
				f.Close()
				return
			}
			f.Close()
		}
		if !inTheWay(path) {
			return
		}
		removeFile(path)
	}
}

// lastUse reads the use stamp of entry n; without a valid one, the
// .src's modification time (the entry's creation).
func lastUse(leaf string, n int, src os.FileInfo) time.Time {
	if b, _, err := readBounded(filepath.Join(leaf, slotName(n, ".use")), 64); err == nil {
		if t, ok := parseUse(b); ok {
			return t
		}
	}
	if src != nil {
		return src.ModTime()
	}
	return time.Time{}
}

// Put stores binary under k, unless a valid entry of k is already there
// (then it only records a use), and sends it to the remote tier, if any.
// It returns an error wrapping ErrDisabled on a disabled cache (the
// remote tier still gets the entry), ErrNotCacheable for an entry the
// settings keep out, ErrBusy when the entry stayed locked, and the file
// system's error when the write failed — which also disables the cache,
// with one warning. No error of Put needs handling beyond logging: the
// caller has its binary either way.
func (c *Cache) Put(k Key, binary []byte, info Info) error {
	defer trace.Begin("cache", "cache.Put").End()
	_, existed, err := c.put(k, binary, info)
	if t := c.remote; t != nil && !existed && t.on() && c.cacheable(k, binary, info) == nil {
		t.put(context.Background(), remoteName(c.hash, k), k, binary, info)
	}
	return err
}

// put stores the entry; existed reports that a valid entry of k was
// already there (ref is then that entry's, whose binary may differ).
func (c *Cache) put(k Key, bin []byte, info Info) (ref entryRef, existed bool, err error) {
	return c.store(k, bin, info, true)
}

// putCopy stores a copy of an entry the remote tier keeps, without
// fsync: the remote tier has the durable copy, and files that a crash
// leaves torn or empty fail their checks and are misses, as any bad file
// is. It keeps the write's cost out of a remote hit, of which the fsyncs
// were about half (docs/benchmarks.md, "The remote cache tier on the
// H100").
func (c *Cache) putCopy(k Key, bin []byte, info Info) (ref entryRef, existed bool, err error) {
	return c.store(k, bin, info, false)
}

// store is put and putCopy: durable makes the entry's writes durable.
func (c *Cache) store(k Key, bin []byte, info Info, durable bool) (ref entryRef, existed bool, err error) {
	if !c.Enabled() {
		return entryRef{}, false, c.Err()
	}
	if c.ReadOnly() {
		return entryRef{}, false, c.readOnlyErr()
	}
	rel := leafRel(c.hash, k)
	if err := c.cacheable(k, bin, info); err != nil {
		c.trace("not cached", "entry", short(rel), "why", err)
		return entryRef{}, false, err
	}
	var lastErr error
	for attempt := 0; attempt < 4; attempt++ {
		leaf, err := c.ensureLeaf(rel)
		if err != nil {
			if isNotExist(err) && !errors.Is(err, errRootGone) {
				lastErr = err // a sweep removed a directory on the way: again
				continue
			}
			c.writeFailed("store", err)
			return entryRef{}, false, err
		}
		l, err := c.acquire(context.Background(), filepath.Join(leaf, dataLockName), true, c.deadline(c.writeWait))
		if err != nil {
			if isNotExist(err) {
				lastErr = err
				continue
			}
			if errors.Is(err, ErrBusy) || errors.Is(err, errBadFile) {
				c.trace("not stored: entry locked", "entry", short(rel))
				return entryRef{}, false, err
			}
			c.writeFailed("store", err)
			return entryRef{}, false, err
		}
		ref, added, freed, existed, err := c.putLocked(leaf, k, bin, info, durable)
		l.unlock()
		if err != nil {
			c.writeFailed("store", err)
			return entryRef{}, false, err
		}
		if existed {
			c.trace("store: already there", "entry", short(rel), "slot", ref.slot)
		} else {
			c.counts.stores.Add(1)
			c.trace("store", "entry", short(rel), "slot", ref.slot, "bytes", len(bin))
		}
		c.afterStore(added - freed)
		return ref, existed, nil
	}
	c.writeFailed("store", lastErr)
	return entryRef{}, false, lastErr
}

// putLocked writes the entry into leaf, whose data lock the caller holds
// exclusively. On the way it removes what no writer can be using: bad
// entries, files of half-written entries, temporary files.
func (c *Cache) putLocked(leaf string, k Key, bin []byte, info Info, durable bool) (ref entryRef, added, freed int64, existed bool, err error) {
	lf, err := listLeaf(leaf)
	if err != nil {
		return ref, 0, 0, false, err
	}
	for _, t := range lf.temps {
		freed += removeFile(filepath.Join(leaf, t))
	}
	used := map[int]bool{}
	for _, n := range lf.order {
		e, st, b := c.readSlot(leaf, n, &k)
		switch st {
		case slotHit:
			c.touch(leaf, n)
			return e.ref, 0, freed, true, nil
		case slotBad:
			c.counts.corrupt.Add(1)
			c.trace("remove bad entry", "path", filepath.Join(leaf, slotName(n, ".src")), "why", b.why)
			fallthrough
		case slotAbsent:
			for _, ext := range [...]string{".src", ".bin", ".use"} {
				freed += removeFile(filepath.Join(leaf, slotName(n, ext)))
			}
		default:
			used[n] = true
		}
	}
	n := 0
	for used[n] {
		n++
	}
	var nonce [nonceSize]byte
	_, _ = rand.Read(nonce[:])
	binFile := encodeBin(nonce, bin)
	rec := &srcRecord{
		Nonce: nonce, Created: c.now(), BinLen: uint64(len(bin)),
		BinCRC: crc32.Checksum(binFile[headerSize:], castagnoli), Key: k, Info: info,
	}
	srcFile := encodeSrc(rec)
	binName, srcName := slotName(n, ".bin"), slotName(n, ".src")
	binFi, err := c.writeAtomic(leaf, binName, binFile, "bin", durable)
	if err != nil {
		return ref, 0, freed, false, err
	}
	undo := func() {
		os.Remove(filepath.Join(leaf, binName))
		os.Remove(filepath.Join(leaf, slotName(n, ".use")))
	}
	if err := c.writeUse(leaf, n); err != nil {
		undo()
		return ref, 0, freed, false, err
	}
	srcFi, err := c.writeAtomic(leaf, srcName, srcFile, "src", durable)
	if err != nil {
		undo()
		return ref, 0, freed, false, err
	}
	if durable {
		syncDir(leaf)
	}
	if err := c.hook("stored"); err != nil {
		return ref, 0, freed, false, err
	}
	return entryRef{leaf: leaf, slot: n, src: srcFi, bin: binFi, valid: true}, srcFi.Size() + binFi.Size(), freed, false, nil
}

func (c *Cache) writeUse(leaf string, n int) error {
	if err := c.hook("use"); err != nil {
		return err
	}
	f, err := os.OpenFile(filepath.Join(leaf, slotName(n, ".use")), os.O_WRONLY|os.O_CREATE|os.O_TRUNC|oNoFollow|oNonblock, c.filePerm)
	if err != nil {
		return err
	}
	_, err = f.Write(useStamp(c.now()))
	if err == nil && c.s.allowShared {
		err = f.Chmod(c.filePerm) // the group rewrites it on every hit
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// GetOrBuild returns the entry of k, building and storing it on a miss.
// Concurrent callers missing the same key — goroutines of this process
// and other processes sharing the directory — build it once: the first
// takes the key's build lock, the others wait for it (or for ctx to
// end), then read what it stored. A builder that dies releases the lock
// (the kernel does); a waiter then finds no entry and builds.
//
//   - An entry Put would refuse (ErrNotCacheable): build runs, its
//     result is returned, nothing is stored.
//   - Disabled cache: the remote tier, if any, is looked up and gets
//     what is built, as with the disk; nothing goes to disk.
//   - ctx ends while waiting for another builder: (nil, false, ctx.Err()),
//     build does not run.
//   - build fails: (nil, false, its error); nothing is stored and the
//     next waiter builds in turn (failures are not cached).
//   - build panics: the locks are released and the panic goes on.
//   - the store fails (full disk, read-only or deleted directory): the
//     cache turns off with one warning and the built binary is returned
//     with a nil error; Entry.Stored reports false.
//
// fromCache is true when the binary came from disk or from the remote
// tier (Entry.FromRemote); then Entry.Binary is the cache's copy (the
// caller may keep it), and on a build it is the slice build returned. build must not call GetOrBuild for the same key.
func (c *Cache) GetOrBuild(ctx context.Context, k Key, info Info, build func() ([]byte, error)) (e *Entry, fromCache bool, err error) {
	defer trace.Begin("cache", "cache.GetOrBuild").End()
	if ctx == nil {
		ctx = context.Background()
	}
	if c.cacheable(k, nil, info) != nil {
		return c.buildOnly(k, info, build)
	}
	if !c.Enabled() {
		// The remote tier goes on without the disk (see Usable); without
		// one, this builds.
		return c.remoteOrBuild(ctx, k, info, nil, build)
	}
	if e := c.lookup(k); e != nil {
		c.counts.hits.Add(1)
		if c.s.trace {
			c.trace("hit", "entry", short(leafRel(c.hash, k)), "slot", e.ref.slot, "bytes", len(e.Binary))
		}
		return e, true, nil
	}
	c.counts.misses.Add(1)
	rel := leafRel(c.hash, k)
	c.trace("miss", "entry", short(rel))
	if c.ReadOnly() {
		return c.remoteOrBuild(ctx, k, info, nil, build)
	}
	leave, err := c.gates.enter(ctx, rel[0]+rel[1]+rel[2]+rel[3])
	if err != nil {
		return nil, false, err
	}
	defer leave()
	var bl *heldLock
	for attempt := 0; ; attempt++ {
		leaf, err := c.ensureLeaf(rel)
		if err == nil {
			bl, err = c.acquire(ctx, filepath.Join(leaf, buildLockName), true, time.Time{})
			if err == nil {
				break
			}
		}
		if ctx.Err() != nil {
			return nil, false, ctx.Err()
		}
		if errors.Is(err, errBadFile) {
			return c.remoteOrBuild(ctx, k, info, nil, build) // a lock file that is not a file: this key only
		}
		if !isNotExist(err) || errors.Is(err, errRootGone) || attempt == 3 {
			c.writeFailed("lock", err)
			return c.remoteOrBuild(ctx, k, info, nil, build)
		}
	}
	held := &lockHandoff{l: bl}
	defer func() { held.take().unlock() }() // unless a remote hit's copy took it
	if e := c.lookup(k); e != nil {
		c.counts.hits.Add(1)
		c.counts.waits.Add(1)
		c.trace("hit after waiting for another build", "entry", short(rel), "slot", e.ref.slot)
		return e, true, nil
	}
	return c.remoteOrBuild(ctx, k, info, held, build)
}

var errNoBuild = errors.New("cache: miss, and GetOrBuild has no build function")

// buildOnly builds without storing: GetOrBuild's way when the key cannot
// be locked, and its first step when it can.
func (c *Cache) buildOnly(k Key, info Info, build func() ([]byte, error)) (*Entry, bool, error) {
	c.counts.builds.Add(1)
	if build == nil {
		return nil, false, errNoBuild
	}
	bin, err := build()
	if err != nil {
		return nil, false, err
	}
	return &Entry{Key: k, Info: info, Binary: bin, Created: c.now()}, false, nil
}

// Reject removes e from disk because the driver refused its binary (e.g.
// INVALID_BINARY after a driver upgrade): only if its files are still the
// ones e was read from, so a binary another process stored since is kept.
// A read-only cache cannot remove it and hides it instead: this process
// no longer serves it. Reject reports whether it removed (or hid) the
// entry. The next GetOrBuild of the key misses and builds.
func (c *Cache) Reject(e *Entry) bool {
	if e != nil {
		e.waitCopy()
		c.remoteReject(e)
	}
	if e == nil || !e.ref.valid || !c.Enabled() {
		return false
	}
	r := e.ref
	if c.ReadOnly() {
		c.hiddenMu.Lock()
		if c.hidden == nil {
			c.hidden = map[string]os.FileInfo{}
		}
		c.hidden[filepath.Join(r.leaf, slotName(r.slot, ".src"))] = r.src
		c.hiddenMu.Unlock()
		c.counts.rejects.Add(1)
		c.trace("reject: hidden for this run (read-only cache)", "path", filepath.Join(r.leaf, slotName(r.slot, ".src")))
		return true
	}
	l, err := c.acquire(context.Background(), filepath.Join(r.leaf, dataLockName), true, c.deadline(c.writeWait))
	if err != nil {
		return false
	}
	srcPath := filepath.Join(r.leaf, slotName(r.slot, ".src"))
	binPath := filepath.Join(r.leaf, slotName(r.slot, ".bin"))
	var freed int64
	removed := false
	if unchanged(binPath, r.bin) {
		if f := removeIfUnchanged(srcPath, r.src); f > 0 || unchanged(srcPath, nil) {
			freed += f
			freed += removeIfUnchanged(binPath, r.bin)
			removeFile(filepath.Join(r.leaf, slotName(r.slot, ".use")))
			removed = true
		}
	}
	l.unlock()
	if removed {
		c.counts.rejects.Add(1)
		c.trace("reject", "path", srcPath)
		c.addSize(-freed)
	}
	return removed
}
