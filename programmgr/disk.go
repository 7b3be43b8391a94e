package programmgr

import (
	"context"
	"errors"
	"sync"

	"github.com/gour-dev/gour/cache"
	"github.com/gour-dev/gour/cache/urkey"
	"github.com/gour-dev/gour/trace"
	"github.com/gour-dev/gour/ur"
)

// The persistent device code cache sits under the in-memory one: a miss
// here looks the program's binaries up on disk and creates the program from
// them; a miss there too builds the program and stores its binaries, one
// entry per device. Native images are binaries already and skip the disk.

// diskCache returns a manager's persistent cache: Options.DiskCache when
// set, else the one the process's managers share.
func diskCache(opts Options, cfg config, getenv func(string) string) (*cache.Cache, error) {
	if opts.DiskCache != nil {
		return opts.DiskCache, nil
	}
	processDisk.once.Do(func() { processDisk.c, processDisk.err = openDisk(cfg, getenv) })
	return processDisk.c, processDisk.err
}

// The managers of a process that leave Options.DiskCache nil share one
// persistent cache, opened from the environment by the first, with its
// Logger and Trace: its checks of the directory run once, and an unusable
// directory is warned about once, not once per manager.
var processDisk struct {
	once sync.Once
	c    *cache.Cache
	err  error
}

// openDisk opens a persistent cache as the environment says
// (SYCL_CACHE_PERSISTENT, SYCL_CACHE_DIR, ..., GOUR_CACHE_REMOTE), with
// Options.RemoteCache winning over GOUR_CACHE_REMOTE. A malformed
// setting is a *ur.Error wrapping the *cache.SettingError that names it.
func openDisk(cfg config, getenv func(string) string) (*cache.Cache, error) {
	trace := cfg.trace&TracePersistentCache != 0
	c, err := cache.Open(cache.Config{Logger: cfg.logger, Trace: &trace, Getenv: getenv, RemoteURL: cfg.remote})
	if err != nil {
		return nil, &ur.Error{Result: ur.ErrInvalidValue, Op: "programmgr.New", Message: err.Error(), Err: err}
	}
	return c, nil
}

// diskKey is the persistent cache's key of img built for dev: the device's
// identity, the image, the spec-constant values and the final options.
func diskKey(img *Image, dev *ur.Device, spec SpecValues, opts buildOptions) cache.Key {
	return cache.Key{
		Device:         urkey.Device(dev),
		Images:         [][32]byte{[32]byte(img.id)},
		Spec:           []byte(spec.enc),
		CompileOptions: opts.compile,
		LinkOptions:    opts.link,
	}
}

// errNoBinaries stands for a built program whose adapter cannot hand back
// its binaries: it is used, just not stored.
var errNoBinaries = errors.New("programmgr: the program's binaries are not available")

// buildOrLoad is buildOnce behind the persistent cache.
func (m *Manager) buildOrLoad(ctx context.Context, img *Image, devs []*ur.Device, spec SpecValues, opts buildOptions) (*Program, error) {
	defer trace.Begin("programmgr", "programmgr.buildOrLoad").End()
	// Usable, not Enabled: a remote tier serves without the disk.
	if m.disk == nil || !m.disk.Usable() || img.format == FormatNative {
		return m.buildOnce(ctx, img, devs, spec, opts)
	}
	info := cache.Info{Format: img.format.String(), Kernels: img.kernels, ImageSize: int64(len(img.bytes))}
	if len(devs) == 1 {
		return m.buildOrLoadOne(ctx, img, devs[0], spec, opts, info)
	}
	// Several devices: every device's binary must be on disk to skip the
	// build; a build stores each.
	keys := make([]cache.Key, len(devs))
	entries := make([]*cache.Entry, len(devs))
	bins := make([][]byte, len(devs))
	for i, d := range devs { // every key, for the stores after a miss
		keys[i] = diskKey(img, d, spec, opts)
	}
	hit := true
	for i := range devs {
		e, ok := m.disk.Get(keys[i])
		if !ok {
			hit = false
			break
		}
		entries[i], bins[i] = e, e.Binary
	}
	if hit {
		p, err := m.fromBinaries(img, devs, spec, opts, bins)
		if !rejected(err) {
			if err == nil {
				m.stats.diskHits.Add(1)
				for _, e := range entries {
					if e.FromRemote() {
						m.stats.remoteHits.Add(1)
						break
					}
				}
			}
			return p, err
		}
		for _, e := range entries {
			m.reject(e)
		}
	}
	p, err := m.buildOnce(ctx, img, devs, spec, opts)
	if err != nil {
		return nil, err
	}
	if built, err := p.ur.Binaries(); err == nil && len(built) == len(devs) && m.usable() {
		for i := range devs {
			m.disk.Put(keys[i], built[i], info)
		}
	}
	return p, nil
}

// buildOrLoadOne serves one device through GetOrBuild, so that processes
// missing the same program at once build it once. A binary the driver
// refuses (a driver upgrade) is removed and the program built again, once.
func (m *Manager) buildOrLoadOne(ctx context.Context, img *Image, dev *ur.Device, spec SpecValues, opts buildOptions, info cache.Info) (*Program, error) {
	devs := []*ur.Device{dev}
	key := diskKey(img, dev, spec, opts)
	for attempt := 0; ; attempt++ {
		var built *Program
		e, fromDisk, err := m.disk.GetOrBuild(ctx, key, info, func() ([]byte, error) {
			p, err := m.buildOnce(ctx, img, devs, spec, opts)
			if err != nil {
				return nil, err
			}
			built = p
			if err := m.ctx.Lost(); err != nil {
				return nil, err // not stored: see Manager.usable
			}
			bins, err := p.ur.Binaries()
			if err != nil || len(bins) != 1 || len(bins[0]) == 0 {
				return nil, errNoBinaries
			}
			return bins[0], nil
		})
		if built != nil {
			return built, nil
		}
		if err != nil {
			return nil, err
		}
		p, err := m.fromBinaries(img, devs, spec, opts, [][]byte{e.Binary})
		if !fromDisk || !rejected(err) || attempt == 1 {
			if err == nil && fromDisk {
				m.stats.diskHits.Add(1)
				if e.FromRemote() {
					m.stats.remoteHits.Add(1)
				}
			}
			return p, err
		}
		m.reject(e)
	}
}

// fromBinaries creates and builds a program of img from device binaries.
func (m *Manager) fromBinaries(img *Image, devs []*ur.Device, spec SpecValues, opts buildOptions, bins [][]byte) (*Program, error) {
	up, err := m.ctx.NewProgramFromBinaries(devs, bins)
	if err != nil {
		return nil, err
	}
	if err := up.Build(opts.compile, devs...); err != nil {
		up.Release()
		return nil, err
	}
	size, err := programSize(up)
	if err != nil {
		up.Release()
		return nil, err
	}
	return &Program{m: m, ur: up, image: img, devices: devs, spec: spec, size: size}, nil
}

// rejected reports whether err is the driver refusing a cached binary.
func rejected(err error) bool {
	switch ur.ResultOf(err) {
	case ur.ErrInvalidBinary, ur.ErrInvalidNativeBinary, ur.ErrProgramBuildFailure, ur.ErrInvalidProgramExecutable:
		return true
	}
	return false
}

func (m *Manager) reject(e *cache.Entry) {
	m.disk.Reject(e)
	m.stats.diskRejects.Add(1)
}
