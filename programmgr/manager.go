package programmgr

import (
	"context"
	"encoding/binary"
	"hash/maphash"
	"maps"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/gour-dev/gour/bundle"
	"github.com/gour-dev/gour/cache"
	"github.com/gour-dev/gour/trace"
	"github.com/gour-dev/gour/ur"
)

// Manager builds the programs and kernels of one ur.Context and keeps them
// in its in-memory cache. Its methods are safe for concurrent use.
type Manager struct {
	ctx      *ur.Context
	cfg      config
	disk     *cache.Cache // the persistent cache; disabled when off
	traceOn  bool
	devices  []*ur.Device
	devIndex map[*ur.Device]int
	share    sharing // the classes of identical devices (shared.go)

	// clock ticks for LRU ordering (see Program.touch).
	clock atomic.Uint64
	// fast is the fast kernel cache: an immutable map, replaced whole
	// (copy on write, under mu) when an entry comes or goes, so that a
	// lookup takes no lock. seed keys its hash.
	fast atomic.Pointer[fastMap]
	seed maphash.Seed
	// choices are the bundle images chosen per request (GetBundleKernel),
	// replaced whole under mu as fast is.
	choices atomic.Pointer[choiceMap]

	stats counters

	// mu guards everything below and the cells. It is never held while
	// building or calling the driver, and it is the only lock of the
	// caches, so no lock order can deadlock.
	mu       sync.Mutex
	closed   bool
	programs map[programKey]*programEntry
	bytes    int64
	nProgs   int
	nKernels int
	nFast    int
	// pending are cache references to give back once mu is released
	// (see unlock): an eviction only decides, the release happens outside.
	pending []interface{ Release() error }
	// live are the cached kernels not yet freed, and retiredFastHits the
	// fast hits of those freed, for Stats.FastHits.
	live            map[*Kernel]struct{}
	retiredFastHits int64

	// testHookBeforeBuild, when set, runs in the builder before each
	// build (tests use it to gather waiters, to block or to panic).
	testHookBeforeBuild func()
	// describeDevice, when set, describes devices for bundle selection
	// instead of bundle.DescribeDevice (tests take an aspect away).
	describeDevice func(*ur.Device) bundle.Device
}

type counters struct {
	hits, misses, builds, kernelBuilds, failures, oomRetries, evictions atomic.Int64
	diskHits, diskRejects, remoteHits                                   atomic.Int64
}

// programKey identifies a program: the image, the spec-constant values
// (normalised: values equal to their defaults dropped), the set of devices
// (sorted indices into the context's devices) and the caller's build
// options.
type programKey struct {
	image   ImageID
	spec    string
	devices string
	options string
}

// fastKey identifies a kernel in the fast cache: image, kernel name,
// device, spec-constant values as given and build options.
type fastKey struct {
	image   ImageID
	name    string
	device  *ur.Device
	spec    SpecValues
	options string
}

// fastMap is the fast cache: by hash of the key, a chain of entries.
// Entries are immutable; a chain is copied to change it.
type fastMap = map[uint64]*fastEntry

type fastEntry struct {
	key    fastKey
	kernel *Kernel
	next   *fastEntry
}

// fastHash hashes a fast-cache key cheaply: the image ID is already a
// uniform hash and the device is its index, so only the name, and the
// spec values and options when there are any, go through maphash. Equal
// keys have equal hashes; chains resolve the rest.
func (m *Manager) fastHash(fk *fastKey) uint64 {
	h := binary.LittleEndian.Uint64(fk.image[:8]) ^ uint64(fk.device.Index()+1)*0x9e3779b97f4a7c15
	h = (h ^ maphash.String(m.seed, fk.name)) * 0xff51afd7ed558ccd
	if fk.spec.enc != "" {
		h = (h ^ maphash.String(m.seed, fk.spec.enc)) * 0xc4ceb9fe1a85ec53
	}
	if fk.options != "" {
		h = (h ^ maphash.String(m.seed, fk.options)) * 0x9e3779b97f4a7c15
	}
	return h
}

// lookupFast finds a kernel in the fast cache. It takes no lock and
// allocates nothing.
func (m *Manager) lookupFast(fm *fastMap, fk *fastKey) *Kernel {
	for e := (*fm)[m.fastHash(fk)]; e != nil; e = e.next {
		if e.key == *fk {
			return e.kernel
		}
	}
	return nil
}

// programEntry is a program's place in the cache, with its kernels.
type programEntry struct {
	key     programKey
	cell    cell[*Program]
	kernels map[string]*cell[*Kernel]
	fast    []fastKey // the fast-cache keys leading to this program's kernels
	cached  bool      // in Manager.programs
}

// New returns a manager for the programs of ctx, configured by opts and
// the environment. A malformed environment variable is an error carrying
// ur.ErrInvalidValue that names the variable. The manager does not own
// ctx: release the context after closing the manager.
func New(ctx *ur.Context, opts Options) (*Manager, error) {
	return newManager(ctx, opts, os.Getenv)
}

// newManager is New with the environment read through getenv.
func newManager(ctx *ur.Context, opts Options, getenv func(string) string) (*Manager, error) {
	if ctx == nil {
		return nil, newError(ur.ErrInvalidNullHandle, "programmgr.New", "context is nil")
	}
	cfg, err := opts.resolve(getenv)
	if err != nil {
		return nil, err
	}
	disk, err := diskCache(opts, cfg, getenv)
	if err != nil {
		return nil, err
	}
	m := &Manager{
		ctx:      ctx,
		cfg:      cfg,
		disk:     disk,
		traceOn:  cfg.trace&TraceInMemCache != 0,
		devices:  ctx.Devices(),
		devIndex: map[*ur.Device]int{},
		programs: map[programKey]*programEntry{},
		live:     map[*Kernel]struct{}{},
		seed:     maphash.MakeSeed(),
	}
	for i, d := range m.devices {
		m.devIndex[d] = i
	}
	m.share = m.newSharing(m.devices)
	if cfg.inMem {
		m.fast.Store(&fastMap{})
	}
	return m, nil
}

// usable reports whether what the manager's context builds or loads may be
// kept: not once the context is lost (ur.Context.Lost) or released. A
// program finished in a lost context goes to its callers, whose calls fail
// with ur.ErrDeviceLost, but into neither cache: a later manager of a new
// context must not find a binary whose build raced a device fault, and the
// memory cache must not hand out kernels of a dead context.
func (m *Manager) usable() bool { return m.ctx.Lost() == nil }

// Context returns the manager's context.
func (m *Manager) Context() *ur.Context { return m.ctx }

// unlock releases mu, then gives back the references evictions dropped.
func (m *Manager) unlock() {
	pending := m.pending
	m.pending = nil
	m.mu.Unlock()
	for _, o := range pending {
		if err := o.Release(); err != nil {
			m.cfg.logger.Warn("programmgr: releasing an evicted object failed", "err", err)
		}
	}
}

func (m *Manager) waitHook() {
	if m.testHookBeforeBuild != nil {
		m.testHookBeforeBuild()
	}
}

// GetProgram returns img built for devs (all of the context's devices when
// devs is empty) with the spec-constant values and build options given,
// building it on first use. The caller owns one reference to the result
// and must Release it.
//
// Concurrent calls for the same program build it once. A driver error of
// the build (a compile error, say) is remembered: asking again returns the
// same error without building. Out-of-memory errors evict the cache and
// retry, twice at most.
func (m *Manager) GetProgram(ctx context.Context, img *Image, devs []*ur.Device, spec SpecValues, options string) (*Program, error) {
	defer trace.Begin("programmgr", "programmgr.GetProgram").End()
	r := request{op: "programmgr.GetProgram", img: img, devs: devs, spec: spec, options: options}
	p, _, err := m.getProgram(ctx, &r)
	m.count(&r, err)
	return p, err
}

// GetKernel returns the kernel called name of img built for dev with the
// spec-constant values and build options given. The caller owns one
// reference and must Release it; see Kernel for the lock that guards its
// arguments.
//
// A repeated request is answered by the fast kernel cache without a lock
// and without allocating. Such a hit does not count as a use of the
// program for LRU eviction, as in DPC++: touching the eviction list would
// cost the fast path its lock-free hit (docs/design.md, "The program
// manager").
//
// While a gour trace records (package trace), each call is a span on it.
func (m *Manager) GetKernel(ctx context.Context, img *Image, name string, dev *ur.Device, spec SpecValues, options string) (*Kernel, error) {
	// The span only while a trace records: deferring even an inactive
	// one's End costs the fast hit a call to Begin and one to End.
	if trace.Active() != nil {
		return m.getKernelTraced(ctx, img, name, dev, spec, options)
	}
	if k := m.fastKernel(img, name, dev, spec, options); k != nil {
		return k, nil
	}
	return m.getKernelMiss(ctx, img, name, dev, spec, options)
}

// getKernelTraced is GetKernel in a span of the active trace.
func (m *Manager) getKernelTraced(ctx context.Context, img *Image, name string, dev *ur.Device, spec SpecValues, options string) (*Kernel, error) {
	defer trace.Begin("programmgr", "programmgr.GetKernel").End()
	if k := m.fastKernel(img, name, dev, spec, options); k != nil {
		return k, nil
	}
	return m.getKernelMiss(ctx, img, name, dev, spec, options)
}

// fastKernel is GetKernel's fast hit: the kernel with a new reference,
// or nil when the fast cache has none to give. It takes no lock and
// allocates nothing.
func (m *Manager) fastKernel(img *Image, name string, dev *ur.Device, spec SpecValues, options string) *Kernel {
	if img == nil || dev == nil {
		return nil
	}
	fm := m.fast.Load()
	if fm == nil {
		return nil
	}
	fk := fastKey{image: img.id, name: name, device: dev, spec: spec, options: options}
	k := m.lookupFast(fm, &fk)
	if k == nil || !k.refs.tryAcquire() {
		return nil
	}
	// Like DPC++'s, a fast hit touches nothing else, the eviction list
	// included: only program-cache hits reorder it.
	k.fastHits.Add(1)
	if m.traceOn {
		m.traceKernel("fetch", "fast-kernel", k)
	}
	return k
}

// getKernelMiss is GetKernel past the fast cache.
func (m *Manager) getKernelMiss(ctx context.Context, img *Image, name string, dev *ur.Device, spec SpecValues, options string) (*Kernel, error) {
	r := request{op: "programmgr.GetKernel", img: img, name: name, dev: dev, spec: spec, options: options}
	k, err := m.getKernel(ctx, &r)
	m.count(&r, err)
	return k, err
}

// request is one GetProgram or GetKernel call: what it asks for, and
// whether it missed the cache.
type request struct {
	op      string // the API call, named in errors
	img     *Image
	devs    []*ur.Device // GetProgram: the devices; empty: all of the context's
	name    string       // GetKernel: the kernel
	dev     *ur.Device   // GetKernel: its device, the program's only one
	spec    SpecValues
	options string // the caller's build options
	// missed is set when the call built, waited for a build or failed:
	// it counts as a miss.
	missed bool
}

func (m *Manager) count(r *request, err error) {
	if err == nil && !r.missed {
		m.stats.hits.Add(1)
	} else {
		m.stats.misses.Add(1)
	}
}

// getProgram serves r's program from the program cache, building it
// there on first use. It also returns the program's cache entry; nil when
// the in-memory cache is off and the program is the caller's alone.
func (m *Manager) getProgram(ctx context.Context, r *request) (*Program, *programEntry, error) {
	op, img, options := r.op, r.img, r.options // the closures below take copies: r stays on the stack
	if img == nil {
		return nil, nil, newError(ur.ErrInvalidNullPointer, op, "image is nil")
	}
	devs := r.devs
	if r.dev != nil { // a kernel's program is built for the kernel's device alone
		devs = []*ur.Device{r.dev}
	}
	devList, devKey, err := m.resolveDevices(op, devs)
	if err != nil {
		return nil, nil, err
	}
	if err := m.checkImage(op, img, devList); err != nil {
		return nil, nil, err
	}
	devList, devKey = m.widen(devList, devKey)
	norm, err := r.spec.normalize(op, img)
	if err != nil {
		return nil, nil, err
	}
	build := func(ctx context.Context) (*Program, error) {
		return m.buildProgram(ctx, img, devList, norm, options)
	}
	if !m.cfg.inMem {
		if err := m.checkOpen(op); err != nil {
			return nil, nil, err
		}
		r.missed = true
		p, err := build(ctx)
		if err != nil {
			m.stats.failures.Add(1)
			return nil, nil, err
		}
		p.refs.n.Store(1)
		return p, nil, nil
	}
	key := programKey{image: img.id, spec: norm.enc, devices: devKey, options: options}
	var pe *programEntry
	ops := &buildOps[*Program]{
		lookup: func() (*cell[*Program], error) {
			if m.closed {
				return nil, errClosed(op)
			}
			pe = m.programs[key]
			if pe == nil {
				pe = &programEntry{key: key, cached: true}
				m.programs[key] = pe
			}
			return &pe.cell, nil
		},
		build:  build,
		accept: func() bool { return pe.cached && !m.closed && m.usable() },
		insert: func(p *Program) { m.insertProgram(p) },
		fetch: func(p *Program) {
			p.touch(&m.clock)
			if m.traceOn {
				m.traceProgram("fetch", p)
			}
		},
		setRefs: func(p *Program, n int64) { p.refs.n.Store(n) },
		addRef:  func(p *Program) { p.refs.n.Add(1) },
		release: (*Program).Release,
		forgetEmpty: func(*cell[*Program]) {
			if m.programs[key] == pe {
				delete(m.programs, key)
				pe.cached = false
			}
		},
	}
	p, err := getOrBuild(ctx, m, r, ops)
	return p, pe, err
}

// getKernel serves r's kernel from the kernel cache of its program,
// creating it there on first use, and enters it in the fast kernel cache.
func (m *Manager) getKernel(ctx context.Context, r *request) (*Kernel, error) {
	op, img, name, dev := r.op, r.img, r.name, r.dev
	if img == nil {
		return nil, newError(ur.ErrInvalidNullPointer, op, "image is nil")
	}
	if dev == nil {
		return nil, newError(ur.ErrInvalidNullHandle, op, "device is nil")
	}
	if name == "" || !img.hasKernel(name) {
		return nil, newError(ur.ErrInvalidKernelName, op, "image %s defines no kernel %q (it defines %q)", img.id.Short(), name, img.kernels)
	}
	p, pe, err := m.getProgram(ctx, r)
	if err != nil {
		return nil, err
	}
	defer p.Release()
	build := func(ctx context.Context) (*Kernel, error) { return m.buildKernel(ctx, p, name, dev) }
	if pe == nil { // no in-memory cache
		r.missed = true
		k, err := build(ctx)
		if err != nil {
			m.stats.failures.Add(1)
			return nil, err
		}
		k.refs.n.Store(1)
		return k, nil
	}
	var kc *cell[*Kernel]
	slot := m.kernelSlot(name, dev)
	ops := &buildOps[*Kernel]{
		lookup: func() (*cell[*Kernel], error) {
			if m.closed {
				return nil, errClosed(op)
			}
			if !pe.cached {
				// Evicted since we got the program: build a kernel of
				// our own, not cached.
				kc = &cell[*Kernel]{}
				return kc, nil
			}
			if kc = pe.kernels[slot]; kc == nil {
				if pe.kernels == nil {
					pe.kernels = map[string]*cell[*Kernel]{}
				}
				kc = &cell[*Kernel]{}
				pe.kernels[slot] = kc
			}
			return kc, nil
		},
		build:  build,
		accept: func() bool { return pe.cached && !m.closed && pe.kernels[slot] == kc && m.usable() },
		insert: func(k *Kernel) {
			m.nKernels++
			k.tracked = true
			m.live[k] = struct{}{}
			if m.traceOn {
				m.traceKernel("insert", "kernel", k)
			}
		},
		fetch: func(k *Kernel) {
			k.program.touch(&m.clock)
			if m.traceOn {
				m.traceKernel("fetch", "kernel", k)
			}
		},
		setRefs:     func(k *Kernel, n int64) { k.refs.n.Store(n) },
		addRef:      func(k *Kernel) { k.refs.n.Add(1) },
		release:     (*Kernel).Release,
		forgetEmpty: func(*cell[*Kernel]) {},
	}
	k, err := getOrBuild(ctx, m, r, ops)
	if err != nil {
		return nil, err
	}
	// Put the kernel in the fast cache under the key of this request.
	m.mu.Lock()
	if pe.cached && !m.closed && kc.state == cellDone && kc.val == k {
		fk := fastKey{image: img.id, name: name, device: dev, spec: r.spec, options: r.options}
		if fm := m.fast.Load(); fm != nil && m.lookupFast(fm, &fk) == nil {
			m.addFast(fk, k)
			pe.fast = append(pe.fast, fk)
			if m.traceOn {
				m.traceKernel("insert", "fast-kernel", k)
			}
		}
	}
	m.unlock()
	return k, nil
}

// resolveDevices checks devs against the context and returns them sorted
// by their index in the context, without duplicates, with the key of the
// set. An empty devs means every device of the context.
func (m *Manager) resolveDevices(op string, devs []*ur.Device) ([]*ur.Device, string, error) {
	if len(devs) == 0 {
		devs = m.devices
	}
	idx := make([]int, 0, len(devs))
	for i, d := range devs {
		if d == nil {
			return nil, "", newError(ur.ErrInvalidNullHandle, op, "device %d is nil", i)
		}
		j, ok := m.devIndex[d]
		if !ok {
			return nil, "", newError(ur.ErrInvalidDevice, op, "device %q is not in the manager's context", d.Name())
		}
		idx = append(idx, j)
	}
	slices.Sort(idx)
	idx = slices.Compact(idx)
	out := make([]*ur.Device, len(idx))
	key := make([]byte, 0, 4*len(idx))
	for i, j := range idx {
		out[i] = m.devices[j]
		key = binary.LittleEndian.AppendUint32(key, uint32(j))
	}
	return out, string(key), nil
}

// formatBackends lists the backends that take each format; a backend not
// known here (a test adapter) is let through and left to fail in its
// driver if it must.
var formatBackends = map[Format][]string{
	FormatOpenCLC: {"opencl"},
	FormatCUDAC:   {"cuda"},
	FormatPTX:     {"cuda"},
	FormatSPIRV:   {"opencl", "level_zero"},
}

var knownBackends = []string{"opencl", "cuda", "level_zero"}

// route says how device d builds an image of format f: directly (its
// backend takes f, or is one the table does not know), through SPIR-V
// (OpenCL C on a device that takes SPIR-V but no OpenCL C: spirv.go), or
// not at all (neither).
func route(f Format, d *ur.Device) (direct, viaSPIRV bool) {
	b := d.Backend()
	want, ok := formatBackends[f]
	if !ok || !slices.Contains(knownBackends, b) || slices.Contains(want, b) {
		return true, false
	}
	return false, f == FormatOpenCLC && slices.Contains(formatBackends[FormatSPIRV], b) &&
		strings.Contains(d.Info().ILVersions, "SPIR-V")
}

// checkImage refuses, without building, an image the devices cannot take:
// a format of another backend, or a required feature a device lacks. Both
// give ur.ErrUnsupportedFeature.
func (m *Manager) checkImage(op string, img *Image, devs []*ur.Device) error {
	for _, d := range devs {
		if direct, via := route(img.format, d); !direct && !via {
			return newError(ur.ErrUnsupportedFeature, op, "a %s image cannot be built by the %s adapter", img.format, d.Backend())
		}
		info := d.Info()
		if img.requires.FP64 && !info.FP64 {
			return newError(ur.ErrUnsupportedFeature, op, "image %s needs fp64, which device %q lacks", img.id.Short(), d.Name())
		}
		if img.requires.FP16 && !info.FP16 {
			return newError(ur.ErrUnsupportedFeature, op, "image %s needs fp16, which device %q lacks", img.id.Short(), d.Name())
		}
	}
	return nil
}

func (m *Manager) checkOpen(op string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return errClosed(op)
	}
	return nil
}

func errClosed(op string) error {
	return newError(ur.ErrInvalidOperation, op, "the program manager is closed")
}

// insertProgram accounts for a newly cached program and evicts least
// recently used programs while the cache is over its threshold. Runs with
// mu held.
func (m *Manager) insertProgram(p *Program) {
	m.nProgs++
	m.bytes += p.size
	p.lastUse.Store(m.clock.Add(1))
	if m.traceOn {
		m.traceProgram("insert", p)
	}
	if t := m.cfg.threshold; t > 0 && m.bytes > t {
		m.evictLRU(t)
	}
}

// evictLRU evicts programs, least recently used first, until the cached
// bytes are at most limit. A program bigger than limit on its own is
// evicted too, even the one just inserted (its callers keep it alive).
func (m *Manager) evictLRU(limit int64) {
	var victims []*programEntry
	for _, pe := range m.programs {
		if pe.cell.state == cellDone {
			victims = append(victims, pe)
		}
	}
	slices.SortFunc(victims, func(a, b *programEntry) int {
		x, y := a.cell.val.lastUse.Load(), b.cell.val.lastUse.Load()
		switch {
		case x < y:
			return -1
		case x > y:
			return 1
		}
		return 0
	})
	var gone []fastKey
	for _, pe := range victims {
		if m.bytes <= limit {
			break
		}
		gone = m.evictProgram(pe, gone)
	}
	m.dropFast(gone)
}

// evictAll evicts every built program and its kernels. Programs being
// built stay, and so do remembered build failures. Runs with mu held.
func (m *Manager) evictAll() {
	var gone []fastKey
	for _, pe := range m.programs {
		if pe.cell.state == cellDone {
			gone = m.evictProgram(pe, gone)
		}
	}
	m.dropFast(gone)
}

// forgetFailures forgets the remembered program build failures, so that
// the next request builds again. Runs with mu held.
func (m *Manager) forgetFailures() {
	for key, pe := range m.programs {
		if pe.cell.state == cellFailed {
			delete(m.programs, key)
			pe.cached = false
		}
	}
}

// evictProgram takes a program and its kernels out of the cache and
// queues the cache's references for release; it returns gone with the
// program's fast-cache keys added, for dropFast. Runs with mu held.
func (m *Manager) evictProgram(pe *programEntry, gone []fastKey) []fastKey {
	delete(m.programs, pe.key)
	pe.cached = false
	for _, kc := range pe.kernels {
		if kc.state == cellDone {
			m.nKernels--
			if m.traceOn {
				m.traceKernel("evict", "kernel", kc.val)
			}
			m.pending = append(m.pending, kc.val)
		}
	}
	pe.kernels = nil
	gone = append(gone, pe.fast...)
	pe.fast = nil
	p := pe.cell.val
	pe.cell.state, pe.cell.val = cellEmpty, nil
	m.nProgs--
	m.bytes -= p.size
	m.stats.evictions.Add(1)
	if m.traceOn {
		m.traceProgram("evict", p)
	}
	m.pending = append(m.pending, p)
	return gone
}

// addFast adds one entry to the fast cache. Runs with mu held.
func (m *Manager) addFast(fk fastKey, k *Kernel) {
	cur := m.fast.Load()
	if cur == nil {
		return
	}
	next := maps.Clone(*cur)
	if next == nil {
		next = fastMap{}
	}
	h := m.fastHash(&fk)
	next[h] = &fastEntry{key: fk, kernel: k, next: next[h]}
	m.nFast++
	m.fast.Store(&next)
}

// dropFast removes entries from the fast cache. Runs with mu held.
func (m *Manager) dropFast(keys []fastKey) {
	cur := m.fast.Load()
	if len(keys) == 0 || cur == nil {
		return
	}
	next := maps.Clone(*cur)
	for _, fk := range keys {
		h := m.fastHash(&fk)
		var chain *fastEntry
		for e := next[h]; e != nil; e = e.next {
			if e.key == fk {
				m.nFast--
				if m.traceOn {
					m.traceKernel("evict", "fast-kernel", e.kernel)
				}
				continue
			}
			chain = &fastEntry{key: e.key, kernel: e.kernel, next: chain}
		}
		if chain == nil {
			delete(next, h)
		} else {
			next[h] = chain
		}
	}
	m.fast.Store(&next)
}

// forget drops a freed kernel from the live set, keeping its fast hits.
func (m *Manager) forget(k *Kernel) {
	m.mu.Lock()
	delete(m.live, k)
	m.retiredFastHits += k.fastHits.Load()
	m.mu.Unlock()
}

// Stats are the manager's counters and the cache's contents.
type Stats struct {
	Hits     int64 // requests answered from the cache, fast hits included
	FastHits int64 // requests answered by the fast kernel cache
	Misses   int64 // requests that built, waited for a build, or failed
	// Builds counts program builds run (not programs made from binaries of
	// the persistent cache), each out-of-memory retry included;
	// KernelBuilds counts kernel creations the same way.
	Builds       int64
	KernelBuilds int64
	Failures     int64 // builds that ended in an error
	OOMRetries   int64 // evict-everything-and-retry rounds after out of memory
	Evictions    int64 // programs evicted (LRU, out of memory, Evict, Clear, Close)
	DiskHits     int64 // programs created from binaries of the persistent cache
	RemoteHits   int64 // of those, binaries its remote tier served (another machine built them)
	DiskRejects  int64 // cached binaries the driver refused: removed and rebuilt

	Bytes        int64 // sum of the binary sizes of the cached programs
	Programs     int   // built programs in the cache
	Kernels      int   // built kernels in the cache
	FastEntries  int   // entries of the fast kernel cache
	EvictionList int   // programs on the LRU eviction list (0 when eviction is off)
	Remembered   int   // remembered build failures (programs and kernels)
}

// Stats returns the counters and what the cache holds now.
func (m *Manager) Stats() Stats {
	m.mu.Lock()
	s := Stats{Bytes: m.bytes, Programs: m.nProgs, Kernels: m.nKernels}
	s.FastEntries = m.nFast
	if m.cfg.threshold > 0 {
		s.EvictionList = m.nProgs
	}
	for _, pe := range m.programs {
		if pe.cell.state == cellFailed {
			s.Remembered++
		}
		for _, kc := range pe.kernels {
			if kc.state == cellFailed {
				s.Remembered++
			}
		}
	}
	s.FastHits = m.retiredFastHits
	for k := range m.live {
		s.FastHits += k.fastHits.Load()
	}
	m.mu.Unlock()
	s.Hits = m.stats.hits.Load() + s.FastHits
	s.Misses = m.stats.misses.Load()
	s.Builds = m.stats.builds.Load()
	s.KernelBuilds = m.stats.kernelBuilds.Load()
	s.Failures = m.stats.failures.Load()
	s.OOMRetries = m.stats.oomRetries.Load()
	s.Evictions = m.stats.evictions.Load()
	s.DiskHits = m.stats.diskHits.Load()
	s.RemoteHits = m.stats.remoteHits.Load()
	s.DiskRejects = m.stats.diskRejects.Load()
	return s
}

// Evict evicts every built program and kernel from the cache, as an
// out-of-memory error does. Objects still held by callers stay valid
// until released. Remembered build failures stay.
func (m *Manager) Evict() {
	m.mu.Lock()
	m.evictAll()
	m.unlock()
}

// Clear empties the cache: Evict, and forget remembered build failures.
func (m *Manager) Clear() {
	m.mu.Lock()
	m.evictAll()
	m.forgetFailures()
	m.choices.Store(nil)
	m.unlock()
}

// Close empties the cache and makes every later Get fail. Programs and
// kernels still held by callers stay valid until released; builds in
// progress finish for their callers without being cached. Close does not
// release the context.
func (m *Manager) Close() error {
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return nil
	}
	m.closed = true
	m.evictAll()
	m.forgetFailures()
	m.fast.Store(nil)
	m.choices.Store(nil)
	m.nFast = 0
	m.unlock()
	return nil
}
