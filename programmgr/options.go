package programmgr

import (
	"fmt"
	"log/slog"
	"strconv"
	"strings"

	"github.com/gour-dev/gour/cache"
	"github.com/gour-dev/gour/ur"
)

// Environment variables the manager reads, with DPC++'s names and meanings.
const (
	// EnvEvictionThreshold is the in-memory cache's size limit in bytes
	// (a decimal integer); 0 or unset turns eviction off.
	EnvEvictionThreshold = "SYCL_IN_MEM_CACHE_EVICTION_THRESHOLD"
	// EnvCacheInMem turns the in-memory cache off with 0 (default 1).
	EnvCacheInMem = "SYCL_CACHE_IN_MEM"
	// EnvCacheTrace is a bit mask: 1 traces the persistent cache (package
	// cache), 2 the in-memory cache (this package), 4 the kernel compiler,
	// 8 the choice of a bundle's image (gour's own).
	EnvCacheTrace = "SYCL_CACHE_TRACE"
	// EnvCompileOptions replaces the compile options of every image.
	EnvCompileOptions = "SYCL_PROGRAM_COMPILE_OPTIONS"
	// EnvLinkOptions replaces the link options of every image.
	EnvLinkOptions = "SYCL_PROGRAM_LINK_OPTIONS"
	// EnvAppendCompileOptions is appended to every image's compile options.
	EnvAppendCompileOptions = "SYCL_PROGRAM_APPEND_COMPILE_OPTIONS"
	// EnvAppendLinkOptions is appended to every image's link options.
	EnvAppendLinkOptions = "SYCL_PROGRAM_APPEND_LINK_OPTIONS"
	// EnvCacheRemote names the persistent cache's remote tier, shared by
	// many machines: redis://[user:password@]host:port[/db], rediss://
	// for TLS (gour's own; see package cache/rediscache for the URL's
	// parameters, and link it into the program: `import _
	// "github.com/gour-dev/gour/cache/rediscache"`). Unset, empty or
	// "off": no remote tier. Values are accepted only when signed by a
	// trusted key (cache.EnvTrustedKeys, cache.EnvSigningKey).
	EnvCacheRemote = cache.EnvRemote
)

// Trace bits of SYCL_CACHE_TRACE. DPC++ calls the first three bits 1, 2
// and 3, counting from one; their values are 1, 2 and 4. The fourth, 8,
// is gour's: DPC++ has no bundle selection to trace.
const (
	TracePersistentCache = 1 << iota // the persistent (on-disk) cache
	TraceInMemCache                  // this package's in-memory cache
	TraceKernelCompiler              // the kernel compiler
	TraceBundleSelection             // the image of a bundle chosen for a device, and why not the others
	traceAll             = TracePersistentCache | TraceInMemCache | TraceKernelCompiler | TraceBundleSelection
)

// Options configure a Manager. A field left at its "from the environment"
// value reads its environment variable; a field that is set wins over the
// environment. DefaultOptions reads everything from the environment.
type Options struct {
	// EvictionThreshold limits the bytes of cached programs (the sum of
	// their binary sizes): past it, least recently used programs are
	// evicted. 0 turns eviction off; nil reads
	// SYCL_IN_MEM_CACHE_EVICTION_THRESHOLD (default 0).
	EvictionThreshold *int64
	// InMemCache turns the in-memory cache on or off; nil reads
	// SYCL_CACHE_IN_MEM (default on).
	InMemCache *bool
	// Trace is the SYCL_CACHE_TRACE bit mask; nil reads the variable.
	// TraceInMemCache (2) logs the in-memory cache, TracePersistentCache
	// (1) the persistent one, TraceBundleSelection (8) the bundle images
	// chosen.
	Trace *int
	// Logger receives the trace lines; nil is slog.Default().
	Logger *slog.Logger
	// DiskCache is the persistent device code cache; nil uses the one the
	// process's managers share, opened on first use as the SYCL_CACHE_*
	// variables say (on by default, in $XDG_CACHE_HOME/gour), with the
	// first manager's Logger and Trace. A disabled cache
	// (SYCL_CACHE_PERSISTENT=0) turns it off.
	DiskCache *cache.Cache
	// RemoteCache names the remote tier of the shared persistent cache: a
	// URL such as redis://user:password@host:6379/0 (rediss:// for TLS),
	// or "off"; nil reads GOUR_CACHE_REMOTE (unset: none). Like the other
	// settings of the shared cache, the first manager's value is the
	// process's; a DiskCache given above has its own (cache.Config's
	// RemoteURL). A malformed URL makes New fail with a *ur.Error wrapping
	// a *cache.SettingError.
	RemoteCache *string
}

// DefaultOptions reads every setting from the environment; it is the zero
// Options.
func DefaultOptions() Options { return Options{} }

// config is Options resolved against the environment.
type config struct {
	threshold      int64
	inMem          bool
	trace          int
	logger         *slog.Logger
	compileOptions string // replaces the image's, when replaceCompile
	replaceCompile bool
	appendCompile  string
	linkOptions    string
	replaceLink    bool
	appendLink     string
	remote         string // the remote tier's URL; "" reads GOUR_CACHE_REMOTE
}

// resolve applies the environment, read through getenv, to o. Every
// malformed value is an error naming its variable.
func (o Options) resolve(getenv func(string) string) (config, error) {
	const op = "programmgr.New"
	c := config{logger: o.Logger}
	if c.logger == nil {
		c.logger = slog.Default()
	}
	if o.EvictionThreshold != nil {
		if *o.EvictionThreshold < 0 {
			return c, &ur.Error{Result: ur.ErrInvalidValue, Op: op, Message: fmt.Sprintf("EvictionThreshold %d is negative", *o.EvictionThreshold)}
		}
		c.threshold = *o.EvictionThreshold
	} else {
		v, err := parseSize(getenv(EnvEvictionThreshold))
		if err != nil {
			return c, envError(op, EnvEvictionThreshold, getenv(EnvEvictionThreshold), err)
		}
		c.threshold = v
	}
	if o.InMemCache != nil {
		c.inMem = *o.InMemCache
	} else {
		v, err := parseBool(getenv(EnvCacheInMem), true)
		if err != nil {
			return c, envError(op, EnvCacheInMem, getenv(EnvCacheInMem), err)
		}
		c.inMem = v
	}
	if o.Trace != nil {
		if *o.Trace < 0 || *o.Trace > traceAll {
			return c, newError(ur.ErrInvalidValue, op, "Options.Trace = %d: want a bit mask of 1, 2, 4 and 8 (0 to 15)", *o.Trace)
		}
		c.trace = *o.Trace
	} else {
		v, err := parseTrace(getenv(EnvCacheTrace))
		if err != nil {
			return c, envError(op, EnvCacheTrace, getenv(EnvCacheTrace), err)
		}
		c.trace = v
	}
	c.compileOptions, c.replaceCompile = lookup(getenv, EnvCompileOptions)
	c.linkOptions, c.replaceLink = lookup(getenv, EnvLinkOptions)
	c.appendCompile = strings.TrimSpace(getenv(EnvAppendCompileOptions))
	c.appendLink = strings.TrimSpace(getenv(EnvAppendLinkOptions))
	if o.RemoteCache != nil {
		c.remote = strings.TrimSpace(*o.RemoteCache)
		if c.remote == "" {
			c.remote = "off"
		}
	}
	return c, nil
}

// lookup reads an options variable; set means non-empty.
func lookup(getenv func(string) string, name string) (string, bool) {
	v := strings.TrimSpace(getenv(name))
	return v, v != ""
}

func envError(op, name, value string, err error) error {
	return newError(ur.ErrInvalidValue, op, "%s=%q: %v", name, value, err)
}

// parseSize reads a byte count: a decimal integer, 0 or more; empty is 0.
func parseSize(s string) (int64, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, nil
	}
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil || v < 0 {
		return 0, fmt.Errorf("want a number of bytes (a decimal integer, 0 or more)")
	}
	return v, nil
}

// parseBool reads 1/0 (also true/false, as strconv.ParseBool); empty is
// def.
func parseBool(s string, def bool) (bool, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return def, nil
	}
	v, err := strconv.ParseBool(s)
	if err != nil {
		return def, fmt.Errorf("want 1 or 0")
	}
	return v, nil
}

// parseTrace reads the SYCL_CACHE_TRACE bit mask: 0 to 15; empty is 0.
// Unlike DPC++, which reads a malformed value as 1, anything else is an
// error.
func parseTrace(s string) (int, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, nil
	}
	v, err := strconv.Atoi(s)
	if err != nil || v < 0 || v > traceAll {
		return 0, fmt.Errorf("want a bit mask: 1 (persistent cache), 2 (in-memory cache), 4 (kernel compiler), 8 (bundle selection), or a sum of them")
	}
	return v, nil
}

// joinOptions joins non-empty option strings with single spaces.
func joinOptions(parts ...string) string {
	var b strings.Builder
	for _, p := range parts {
		p = strings.TrimSpace(p)
		if p == "" {
			continue
		}
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(p)
	}
	return b.String()
}

// buildOptions are the option strings of one build.
type buildOptions struct {
	compile string // for Build, or Compile when link is set
	link    string // non-empty: compile, then link with these options
}

// optionsFor composes the options of a build of img: the image's compile
// options (or SYCL_PROGRAM_COMPILE_OPTIONS instead), then
// SYCL_PROGRAM_APPEND_COMPILE_OPTIONS, then the spec-constant definitions of
// a source image, then the caller's options, last so that they win; and
// likewise for link options, without spec constants or caller options.
func (c *config) optionsFor(img *Image, spec SpecValues, api string) buildOptions {
	compile, link := img.compile, img.link
	if c.replaceCompile {
		compile = c.compileOptions
	}
	if c.replaceLink {
		link = c.linkOptions
	}
	defines := ""
	if img.format.source() {
		defines = spec.defines(img)
	}
	return buildOptions{
		compile: joinOptions(compile, c.appendCompile, defines, api),
		link:    joinOptions(link, c.appendLink),
	}
}

// newError is an error the manager detects itself.
func newError(code ur.Result, op, format string, args ...any) *ur.Error {
	return &ur.Error{Result: code, Op: op, Message: fmt.Sprintf(format, args...)}
}
