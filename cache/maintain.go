package cache

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Files of the version directory besides the device directories.
const (
	sizeFileName  = "cache_size.txt" // total bytes of the entries, decimal, one line
	sweepMarkName = "last_sweep"     // its modification time is the last sweep's
)

// leafFiles is what a leaf directory holds.
type leafFiles struct {
	order   []int           // slots with any file, ascending
	files   map[int]uint8   // slot → which of .src, .bin, .use exist
	temps   []string        // temporary files
	unknown []string        // anything else (reported by Verify)
	links   map[string]bool // names that are links or not regular files
}

const (
	hasSrc = 1 << iota
	hasBin
	hasUse
)

// maxSlot bounds the slot numbers the cache reads.
const maxSlot = 1 << 20

func parseSlot(name string) (n int, ext string, ok bool) {
	dot := strings.IndexByte(name, '.')
	if dot <= 0 || dot > 7 {
		return 0, "", false
	}
	num, ext := name[:dot], name[dot:]
	if ext != ".src" && ext != ".bin" && ext != ".use" {
		return 0, "", false
	}
	if len(num) > 1 && num[0] == '0' {
		return 0, "", false
	}
	for i := 0; i < len(num); i++ {
		if num[i] < '0' || num[i] > '9' {
			return 0, "", false
		}
	}
	n, err := strconv.Atoi(num)
	if err != nil || n >= maxSlot {
		return 0, "", false
	}
	return n, ext, true
}

func listLeaf(leaf string) (*leafFiles, error) {
	des, err := os.ReadDir(leaf)
	if err != nil {
		return nil, err
	}
	lf := &leafFiles{files: map[int]uint8{}, links: map[string]bool{}}
	for _, de := range des {
		name := de.Name()
		if !de.Type().IsRegular() {
			lf.links[name] = true
		}
		switch {
		case name == dataLockName || name == buildLockName:
			continue
		case strings.HasPrefix(name, tempPrefix):
			lf.temps = append(lf.temps, name)
			continue
		}
		n, ext, ok := parseSlot(name)
		if !ok {
			lf.unknown = append(lf.unknown, name)
			continue
		}
		if _, seen := lf.files[n]; !seen {
			lf.order = append(lf.order, n)
		}
		switch ext {
		case ".src":
			lf.files[n] |= hasSrc
		case ".bin":
			lf.files[n] |= hasBin
		case ".use":
			lf.files[n] |= hasUse
		}
	}
	slices.Sort(lf.order)
	return lf, nil
}

// walkLeaves calls fn for every leaf directory, never following a link.
// Anything else found on the way is passed to junk.
func (c *Cache) walkLeaves(fn func(leaf string, rel [4]string), junk func(path, why string)) error {
	var walk func(dir string, depth int, rel [4]string) error
	walk = func(dir string, depth int, rel [4]string) error {
		des, err := os.ReadDir(dir)
		if err != nil {
			return err
		}
		for _, de := range des {
			name := de.Name()
			p := filepath.Join(dir, name)
			if depth == 0 {
				switch {
				case name == sizeFileName || name == sizeLockName || name == sweepLockName || name == sweepMarkName:
					continue
				case strings.HasPrefix(name, tempPrefix):
					continue // swept under the size lock
				}
			}
			if !isHashName(name) || !de.IsDir() {
				if junk != nil {
					junk(p, "unexpected "+describe(de.Type())+" in the cache")
				}
				continue
			}
			rel[depth] = name
			if depth == 3 {
				fn(p, rel)
				continue
			}
			if err := walk(p, depth+1, rel); err != nil && junk != nil {
				junk(p, err.Error())
			}
		}
		return nil
	}
	err := walk(c.vdir, 0, [4]string{})
	if isNotExist(err) && c.ReadOnly() {
		return nil // a read-only root without a version directory: no entries
	}
	return err
}

func describe(m os.FileMode) string {
	switch {
	case m&os.ModeSymlink != 0:
		return "symbolic link"
	case m.IsDir():
		return "directory"
	case m.IsRegular():
		return "file"
	}
	return "special file"
}

// sizes: cache_size.txt holds the total size of the entries (.src +
// .bin) in bytes, as a decimal number and a newline. Every store and
// removal adjusts it under size.lock; a missing or malformed file is
// rebuilt from a scan, and every size eviction rewrites it from the scan
// it makes, so drift (a crash between a store and its accounting) heals.

func parseSize(b []byte) (int64, bool) {
	s := strings.TrimSuffix(string(b), "\n")
	if s == "" || len(s) > 19 {
		return 0, false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	return n, err == nil
}

func (c *Cache) readSizeFile() (int64, bool) {
	b, _, err := readBounded(filepath.Join(c.vdir, sizeFileName), 64)
	if err != nil {
		return 0, false
	}
	return parseSize(b)
}

func (c *Cache) writeSizeFile(total int64) error {
	// No fsync: the total is an estimate that heals (see above).
	_, err := c.writeAtomic(c.vdir, sizeFileName, []byte(strconv.FormatInt(total, 10)+"\n"), "size", false)
	return err
}

// addSize adds delta to the tracked total and returns the new total.
func (c *Cache) addSize(delta int64) (int64, bool) {
	if delta == 0 && c.s.maxSize == 0 {
		return 0, false
	}
	l, err := c.acquire(context.Background(), filepath.Join(c.vdir, sizeLockName), true, c.deadline(c.sizeWait))
	if err != nil {
		return 0, false
	}
	defer l.unlock()
	total, ok := c.readSizeFile()
	if ok {
		total += delta
	} else {
		total = c.scanTotal() // includes the change already
	}
	if total < 0 {
		total = 0
	}
	if err := c.writeSizeFile(total); err != nil {
		return total, false
	}
	return total, true
}

func (c *Cache) scanTotal() int64 {
	var total int64
	for _, e := range c.scan() {
		total += e.size
	}
	return total
}

// afterStore accounts a store and runs the eviction and sweep it calls for.
func (c *Cache) afterStore(delta int64) {
	total, ok := c.addSize(delta)
	if ok && c.s.maxSize > 0 && !c.s.evictionDisabled && total > c.s.maxSize {
		c.evict(c.s.maxSize / 2)
	}
	c.maybeSweep()
}

// scanned is one entry seen by a scan: its files as they were then.
type scanned struct {
	leaf    string
	rel     [4]string
	slot    int
	src     os.FileInfo
	size    int64 // .src + .bin
	binSize int64
	lastUse time.Time
}

// scan lists every entry (every slot with a .src) with sizes and last
// use, reading no entry data.
func (c *Cache) scan() []scanned {
	var out []scanned
	_ = c.walkLeaves(func(leaf string, rel [4]string) {
		lf, err := listLeaf(leaf)
		if err != nil {
			return
		}
		for _, n := range lf.order {
			if lf.files[n]&hasSrc == 0 {
				continue
			}
			src, err := os.Lstat(filepath.Join(leaf, slotName(n, ".src")))
			if err != nil || !src.Mode().IsRegular() {
				continue
			}
			e := scanned{leaf: leaf, rel: rel, slot: n, src: src, size: src.Size()}
			if bin, err := os.Lstat(filepath.Join(leaf, slotName(n, ".bin"))); err == nil && bin.Mode().IsRegular() {
				e.size += bin.Size()
				e.binSize = bin.Size() - headerSize - nonceSize
			}
			e.lastUse = lastUse(leaf, n, src)
			out = append(out, e)
		}
	}, nil)
	return out
}

// evict removes least recently used entries until the total is at most
// target. It holds size.lock throughout, so one process evicts at a time,
// and takes each entry's data lock exclusively only if it is free: an
// entry being read or written is in use and is skipped. A reader holds
// the data lock shared while it reads, so it never sees a half-removed
// entry.
func (c *Cache) evict(target int64) (removed int, freed int64) {
	l, err := c.acquire(context.Background(), filepath.Join(c.vdir, sizeLockName), true, c.deadline(c.sizeWait))
	if err != nil {
		return 0, 0
	}
	defer l.unlock()
	entries := c.scan()
	var total int64
	for _, e := range entries {
		total += e.size
	}
	if total > target {
		slices.SortStableFunc(entries, func(a, b scanned) int { return a.lastUse.Compare(b.lastUse) })
		leaves := map[string]bool{}
		for _, e := range entries {
			if total <= target {
				break
			}
			if f, ok := c.removeEntry(e, "evict"); ok {
				total -= e.size
				freed += f
				removed++
				c.counts.evictions.Add(1)
				leaves[e.leaf] = true
			}
		}
		for leaf := range leaves {
			c.cleanupLeaf(leaf)
		}
	}
	_ = c.writeSizeFile(total)
	return removed, freed
}

// removeEntry removes a scanned entry if its data lock is free and its
// .src is still the file the scan saw: .src first (from then on no reader
// finds it), then .bin and .use.
func (c *Cache) removeEntry(e scanned, why string) (int64, bool) {
	l, err := c.tryLock(filepath.Join(e.leaf, dataLockName), true)
	if err != nil {
		return 0, false
	}
	defer l.unlock()
	srcPath := filepath.Join(e.leaf, slotName(e.slot, ".src"))
	f := removeIfUnchanged(srcPath, e.src)
	if f == 0 {
		return 0, false
	}
	f += removeFile(filepath.Join(e.leaf, slotName(e.slot, ".bin")))
	removeFile(filepath.Join(e.leaf, slotName(e.slot, ".use")))
	c.trace(why, "path", srcPath, "bytes", e.size, "last_use", e.lastUse)
	return f, true
}

// cleanupLeaf removes a leaf directory left without entries, with its
// lock files, and its parents if they are empty. It needs both lock files
// free: it holds them while it unlinks them, and whoever opened them
// before finds, once it has the lock, that the path no longer names the
// file it locked, and starts again.
func (c *Cache) cleanupLeaf(leaf string) bool {
	dl, err := c.tryLock(filepath.Join(leaf, dataLockName), true)
	if err != nil {
		return false
	}
	defer dl.unlock()
	bl, err := c.tryLock(filepath.Join(leaf, buildLockName), true)
	if err != nil {
		return false
	}
	defer bl.unlock()
	lf, err := listLeaf(leaf)
	if err != nil || len(lf.order) > 0 || len(lf.temps) > 0 || len(lf.unknown) > 0 {
		return false
	}
	os.Remove(filepath.Join(leaf, dataLockName))
	os.Remove(filepath.Join(leaf, buildLockName))
	if os.Remove(leaf) != nil {
		return false
	}
	for p := filepath.Dir(leaf); p != c.vdir && strings.HasPrefix(p, c.vdir); p = filepath.Dir(p) {
		if os.Remove(p) != nil {
			break
		}
	}
	return true
}

// maybeSweep runs sweep when the last one is older than sweepEvery.
func (c *Cache) maybeSweep() {
	if c.sweepEvery < 0 {
		return
	}
	mark := filepath.Join(c.vdir, sweepMarkName)
	if fi, err := os.Lstat(mark); err == nil && c.now().Sub(fi.ModTime()) < c.sweepEvery {
		return
	}
	l, err := c.tryLock(filepath.Join(c.vdir, sweepLockName), true)
	if err != nil {
		return
	}
	defer l.unlock()
	if fi, err := os.Lstat(mark); err == nil && c.now().Sub(fi.ModTime()) < c.sweepEvery {
		return
	}
	opts := PruneOptions{}
	if c.s.thresholdDays > 0 && !c.s.evictionDisabled {
		opts.OlderThan = time.Duration(c.s.thresholdDays) * 24 * time.Hour
	}
	_, _ = c.prune(opts, "evict (age)")
	if f, err := os.OpenFile(mark, os.O_WRONLY|os.O_CREATE|os.O_TRUNC|oNoFollow|oNonblock, c.filePerm); err == nil {
		f.Close()
	}
}

// EntryStat describes one entry (List).
type EntryStat struct {
	Path       string    // the entry's .src file
	DeviceDir  string    // the device directory's name (hash of Key.Device)
	Key        Key       // from the .src
	Info       Info      // from the .src
	Size       int64     // bytes on disk (.src + .bin)
	BinarySize int64     // the binary's length
	Created    time.Time // when it was stored
	LastUse    time.Time // last hit (or the store)
}

// PruneOptions select the entries Prune removes; an entry is removed when
// any option selects it. The zero value removes no entry and only sweeps.
type PruneOptions struct {
	// OlderThan > 0 removes entries not used for that long.
	OlderThan time.Duration
	// MaxSize > 0 removes least recently used entries until the entries
	// take at most MaxSize bytes.
	MaxSize int64
	// Remove, if set, removes the entries for which it returns true
	// (urcache prune --stale: devices no longer present).
	Remove func(EntryStat) bool
	// All removes every entry (Clear).
	All bool
}

// PruneResult says what a Prune, Clear or sweep did.
type PruneResult struct {
	Removed   int   // entries removed
	Freed     int64 // bytes freed, temporary and stray files included
	Swept     int   // temporary files and pieces of half-written or bad entries removed
	Busy      int   // directories skipped because a process was using them
	Entries   int   // entries left
	Bytes     int64 // their size
	DirsFreed int   // empty directories removed
}

// Prune sweeps the cache — temporary files of crashed writers, pieces of
// half-written entries, empty directories — and removes the entries opts
// selects. A directory in use by another process (its data lock taken)
// is skipped and counted in Busy. It then rewrites cache_size.txt. On a
// read-only cache it fails with ErrReadOnly.
func (c *Cache) Prune(opts PruneOptions) (PruneResult, error) {
	if !c.Enabled() {
		return PruneResult{}, c.Err()
	}
	if c.ReadOnly() {
		return PruneResult{}, c.readOnlyErr()
	}
	return c.prune(opts, "prune")
}

// Clear removes every entry not in use, and everything else the cache
// holds that is not in use. On a read-only cache it fails with
// ErrReadOnly.
func (c *Cache) Clear() (PruneResult, error) {
	return c.Prune(PruneOptions{All: true})
}

func (c *Cache) prune(opts PruneOptions, why string) (PruneResult, error) {
	var res PruneResult
	now := c.now()
	var survivors []scanned
	err := c.walkLeaves(func(leaf string, rel [4]string) {
		l, err := c.tryLock(filepath.Join(leaf, dataLockName), true)
		if err != nil {
			res.Busy++
			return
		}
		lf, err := listLeaf(leaf)
		if err != nil {
			l.unlock()
			return
		}
		for _, t := range lf.temps {
			res.Freed += removeFile(filepath.Join(leaf, t))
			res.Swept++
		}
		for _, name := range [...]string{dataLockName, buildLockName} {
			if lf.links[name] {
				// A link where a lock file belongs: opening it fails
				// (O_NOFOLLOW), so nobody holds it; remove it.
				removeFile(filepath.Join(leaf, name))
				res.Swept++
			}
		}
		for _, n := range lf.order {
			srcPath := filepath.Join(leaf, slotName(n, ".src"))
			src, err := os.Lstat(srcPath)
			if err != nil || !src.Mode().IsRegular() || lf.files[n]&hasBin == 0 {
				// Half an entry (a crash between the renames) or a link.
				for _, ext := range [...]string{".src", ".bin", ".use"} {
					res.Freed += removeFile(filepath.Join(leaf, slotName(n, ext)))
				}
				res.Swept++
				continue
			}
			e := scanned{leaf: leaf, rel: rel, slot: n, src: src, size: src.Size(), lastUse: lastUse(leaf, n, src)}
			if bin, err := os.Lstat(filepath.Join(leaf, slotName(n, ".bin"))); err == nil {
				e.size += bin.Size()
				e.binSize = bin.Size() - headerSize - nonceSize
			}
			remove := opts.All || (opts.OlderThan > 0 && now.Sub(e.lastUse) > opts.OlderThan)
			if !remove && opts.Remove != nil {
				st, err := c.statEntry(e)
				remove = err != nil || opts.Remove(st)
			}
			if !remove {
				survivors = append(survivors, e)
				continue
			}
			f := removeFile(srcPath)
			f += removeFile(filepath.Join(leaf, slotName(n, ".bin")))
			removeFile(filepath.Join(leaf, slotName(n, ".use")))
			res.Freed += f
			res.Removed++
			c.counts.evictions.Add(1)
			c.trace(why, "path", srcPath, "bytes", e.size, "last_use", e.lastUse)
		}
		if opts.All {
			for _, name := range lf.unknown {
				res.Freed += removeFile(filepath.Join(leaf, name))
			}
		}
		l.unlock()
		if c.cleanupLeaf(leaf) {
			res.DirsFreed++
		}
	}, func(path, _ string) {
		if opts.All {
			if fi, err := os.Lstat(path); err == nil && !fi.IsDir() {
				res.Freed += removeFile(path)
			}
		}
	})
	if err != nil {
		return res, err
	}
	c.removeEmptyDirs()
	// Size pruning, least recently used first.
	slices.SortStableFunc(survivors, func(a, b scanned) int { return a.lastUse.Compare(b.lastUse) })
	var total int64
	for _, e := range survivors {
		total += e.size
	}
	kept := survivors[:0]
	for _, e := range survivors {
		if opts.MaxSize > 0 && total > opts.MaxSize {
			if f, ok := c.removeEntry(e, why); ok {
				total -= e.size
				res.Freed += f
				res.Removed++
				c.counts.evictions.Add(1)
				c.cleanupLeaf(e.leaf)
				continue
			}
		}
		kept = append(kept, e)
	}
	res.Entries, res.Bytes = len(kept), total
	// Temporary files of the version directory: size-file writes (under
	// size.lock) and write probes (after vdirTemps).
	if l, err := c.acquire(context.Background(), filepath.Join(c.vdir, sizeLockName), true, c.deadline(c.sizeWait)); err == nil {
		if des, err := os.ReadDir(c.vdir); err == nil {
			for _, de := range des {
				name := de.Name()
				if !strings.HasPrefix(name, tempPrefix) {
					continue
				}
				p := filepath.Join(c.vdir, name)
				fi, err := os.Lstat(p)
				if err != nil {
					continue
				}
				if strings.HasPrefix(name, tempPrefix+sizeFileName) || now.Sub(fi.ModTime()) > c.vdirTemps {
					res.Freed += removeFile(p)
					res.Swept++
				}
			}
		}
		_ = c.writeSizeFile(c.scanTotal())
		l.unlock()
	}
	return res, nil
}

// removeEmptyDirs removes empty device, image and spec directories (a
// leaf is removed by cleanupLeaf only).
func (c *Cache) removeEmptyDirs() {
	var walk func(dir string, depth int)
	walk = func(dir string, depth int) {
		des, err := os.ReadDir(dir)
		if err != nil {
			return
		}
		for _, de := range des {
			if !de.IsDir() || !isHashName(de.Name()) {
				continue
			}
			p := filepath.Join(dir, de.Name())
			if depth < 2 {
				walk(p, depth+1)
			}
			if depth < 3 {
				os.Remove(p) // fails unless empty
			}
		}
	}
	walk(c.vdir, 0)
}

// statEntry reads the .src of a scanned entry.
func (c *Cache) statEntry(e scanned) (EntryStat, error) {
	srcPath := filepath.Join(e.leaf, slotName(e.slot, ".src"))
	b, _, err := readBounded(srcPath, headerSize+maxSrcPayload)
	if err != nil {
		return EntryStat{}, err
	}
	rec, err := decodeSrc(b)
	if err != nil {
		return EntryStat{}, err
	}
	return EntryStat{
		Path: srcPath, DeviceDir: e.rel[0], Key: rec.Key, Info: rec.Info, Size: e.size,
		BinarySize: int64(rec.BinLen), Created: rec.Created, LastUse: e.lastUse,
	}, nil
}

// List returns every entry whose .src reads well, most recently used
// first. It does not check binaries (Verify does).
func (c *Cache) List() ([]EntryStat, error) {
	if !c.Enabled() {
		return nil, c.Err()
	}
	var out []EntryStat
	for _, e := range c.scan() {
		if st, err := c.statEntry(e); err == nil {
			out = append(out, st)
		}
	}
	slices.SortStableFunc(out, func(a, b EntryStat) int { return b.LastUse.Compare(a.LastUse) })
	return out, nil
}

// Stats are totals over the cache directory.
type Stats struct {
	Dir              string
	Entries          int
	Devices          int   // device directories holding entries
	Bytes            int64 // entries' size on disk (.src + .bin), from a scan
	TrackedBytes     int64 // what cache_size.txt says; -1 if it is missing or malformed
	MaxSize          int64
	ThresholdDays    int
	EvictionDisabled bool
	ReadOnly         bool      // the cache serves hits but writes nothing (Cache.ReadOnly)
	Oldest, Newest   time.Time // least and most recent last use
}

// Stats scans the directory.
func (c *Cache) Stats() (Stats, error) {
	if !c.Enabled() {
		return Stats{}, c.Err()
	}
	st := Stats{Dir: c.root, MaxSize: c.s.maxSize, ThresholdDays: c.s.thresholdDays, EvictionDisabled: c.s.evictionDisabled,
		ReadOnly: c.ReadOnly(), TrackedBytes: -1}
	if n, ok := c.readSizeFile(); ok {
		st.TrackedBytes = n
	}
	devs := map[string]bool{}
	for _, e := range c.scan() {
		st.Entries++
		st.Bytes += e.size
		devs[e.rel[0]] = true
		if st.Oldest.IsZero() || e.lastUse.Before(st.Oldest) {
			st.Oldest = e.lastUse
		}
		if e.lastUse.After(st.Newest) {
			st.Newest = e.lastUse
		}
	}
	st.Devices = len(devs)
	return st, nil
}

// Problem is something Verify found wrong.
type Problem struct {
	Path    string
	Reason  string
	Removed bool // Verify(true) removed it
}

// VerifyResult says what Verify checked and found.
type VerifyResult struct {
	Entries  int // entries checked
	Good     int // entries whose .src and .bin read well and belong together
	Problems []Problem
	Busy     int // directories skipped because a writer held them
}

// Verify reads every entry in full and checks headers, lengths, checksums
// and that each .bin belongs to its .src. It reports bad entries,
// half-written entries, temporary files and anything the cache did not
// write. With repair it removes them (bad entries only if unchanged since
// read; pieces and temporary files only in directories no process is
// writing to); stray files outside leaf directories are reported only.
// A read-only cache can be verified, not repaired: Verify(true) fails
// with ErrReadOnly.
func (c *Cache) Verify(repair bool) (VerifyResult, error) {
	if !c.Enabled() {
		return VerifyResult{}, c.Err()
	}
	if repair && c.ReadOnly() {
		return VerifyResult{}, c.readOnlyErr()
	}
	var res VerifyResult
	err := c.walkLeaves(func(leaf string, rel [4]string) {
		l, err := c.readLock(leaf)
		if err != nil {
			res.Busy++
			return
		}
		lf, err := listLeaf(leaf)
		if err != nil {
			l.unlock()
			return
		}
		var bad []badSlot
		var pieces []string
		for _, n := range lf.order {
			srcPath := filepath.Join(leaf, slotName(n, ".src"))
			_, st, b := c.readSlot(leaf, n, nil)
			switch st {
			case slotHit:
				res.Entries++
				res.Good++
			case slotBad:
				if lf.files[n]&hasSrc != 0 {
					res.Entries++
				}
				bad = append(bad, b)
				res.Problems = append(res.Problems, Problem{Path: srcPath, Reason: b.why.Error()})
			case slotAbsent:
				p := filepath.Join(leaf, slotName(n, ".use"))
				pieces = append(pieces, p)
				res.Problems = append(res.Problems, Problem{Path: p, Reason: ".use without .src"})
			case slotUnreadable:
				res.Entries++
				res.Problems = append(res.Problems, Problem{Path: srcPath, Reason: "unreadable"})
			}
		}
		for _, t := range lf.temps {
			p := filepath.Join(leaf, t)
			pieces = append(pieces, p)
			res.Problems = append(res.Problems, Problem{Path: p, Reason: "temporary file (a write in progress, or a crashed one)"})
		}
		for _, u := range lf.unknown {
			res.Problems = append(res.Problems, Problem{Path: filepath.Join(leaf, u), Reason: "not a cache file"})
		}
		l.unlock()
		if !repair || (len(bad) == 0 && len(pieces) == 0) {
			return
		}
		xl, err := c.tryLock(filepath.Join(leaf, dataLockName), true)
		if err != nil {
			return
		}
		removed := map[string]bool{}
		for _, b := range bad {
			srcPath := filepath.Join(leaf, slotName(b.slot, ".src"))
			if b.src != nil {
				removeIfUnchanged(srcPath, b.src)
			}
			if _, err := os.Lstat(srcPath); isNotExist(err) {
				removeFile(filepath.Join(leaf, slotName(b.slot, ".bin")))
				removeFile(filepath.Join(leaf, slotName(b.slot, ".use")))
				removed[srcPath] = true
			}
		}
		for _, p := range pieces {
			removeFile(p)
			removed[p] = true
		}
		xl.unlock()
		for i := range res.Problems {
			if removed[res.Problems[i].Path] {
				res.Problems[i].Removed = true
			}
		}
	}, func(path, why string) {
		res.Problems = append(res.Problems, Problem{Path: path, Reason: why})
	})
	if err != nil {
		return res, err
	}
	if repair {
		if l, err := c.acquire(context.Background(), filepath.Join(c.vdir, sizeLockName), true, c.deadline(c.sizeWait)); err == nil {
			_ = c.writeSizeFile(c.scanTotal())
			l.unlock()
		}
	}
	return res, nil
}
