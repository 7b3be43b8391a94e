package cache

import (
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Environment variables read by Open. Values are parsed strictly: a
// malformed one makes Open fail with a *SettingError naming it. Sizes
// are read by ParseSize: bytes, or a number with a unit K, M, G or T.
const (
	EnvPersistent       = "SYCL_CACHE_PERSISTENT"            // 1 (gour's default) or 0
	EnvDir              = "SYCL_CACHE_DIR"                   // the cache root
	EnvMaxSize          = "SYCL_CACHE_MAX_SIZE"              // a size (ParseSize); 0 or unset: no limit
	EnvThreshold        = "SYCL_CACHE_THRESHOLD"             // days; 0 or unset: no age limit
	EnvEvictionDisable  = "SYCL_CACHE_EVICTION_DISABLE"      // 1: no eviction at all
	EnvMinImageSize     = "SYCL_CACHE_MIN_DEVICE_IMAGE_SIZE" // a size (ParseSize); default 0
	EnvMaxImageSize     = "SYCL_CACHE_MAX_DEVICE_IMAGE_SIZE" // a size (ParseSize); default 1 GiB
	EnvTrace            = "SYCL_CACHE_TRACE"                 // bit mask; value&1 traces this cache
	EnvAllowShared      = "SYCL_CACHE_ALLOW_SHARED"          // 1: accept a root owned by another user or writable by others
	DefaultMaxImageSize = 1 << 30
)

// Config configures a Cache. A nil (or, for Dir and Logger, zero) field
// reads its environment variable; a set field wins over the environment.
type Config struct {
	// Dir is the cache root. Empty reads SYCL_CACHE_DIR, else
	// $XDG_CACHE_HOME/gour, else $HOME/.cache/gour; with none of them the
	// cache is off (one warning).
	Dir string
	// Persistent turns the cache on or off (SYCL_CACHE_PERSISTENT; on by
	// default).
	Persistent *bool
	// MaxSize is the size in bytes past which least recently used entries
	// are evicted down to half of it (SYCL_CACHE_MAX_SIZE; 0 = no limit).
	MaxSize *int64
	// ThresholdDays removes entries not used for that many days
	// (SYCL_CACHE_THRESHOLD; 0 = never).
	ThresholdDays *int
	// EvictionDisabled turns size and age eviction off
	// (SYCL_CACHE_EVICTION_DISABLE).
	EvictionDisabled *bool
	// MinImageSize and MaxImageSize bound Info.ImageSize: images outside
	// [Min, Max] are not cached (SYCL_CACHE_MIN_DEVICE_IMAGE_SIZE, default
	// 0; SYCL_CACHE_MAX_DEVICE_IMAGE_SIZE, default 1 GiB).
	MinImageSize, MaxImageSize *int64
	// AllowShared accepts a root owned by another user or writable by
	// group or others (SYCL_CACHE_ALLOW_SHARED=1). New directories are
	// then made 0770 and use stamps 0660 whatever the umask, other files
	// 0660 less the umask, so that a group can share the cache.
	AllowShared *bool
	// Trace logs every persistent-cache operation at level Info
	// (SYCL_CACHE_TRACE value&1).
	Trace *bool
	// Logger receives the warning and the trace; nil is slog.Default().
	Logger *slog.Logger
	// Getenv replaces os.Getenv when non-nil (for tests).
	Getenv func(string) string

	// RemoteURL names the remote tier shared by many machines, behind the
	// disk: redis://[user:password@]host:port[/db], rediss:// for TLS
	// (the program must link package cache/rediscache). Empty
	// reads GOUR_CACHE_REMOTE; "off" (or an empty variable) is no remote
	// tier. A malformed URL makes Open fail with a *SettingError.
	RemoteURL string
	// Remote is the remote tier's store itself, winning over RemoteURL.
	// The Cache owns it: Close closes it, and Open does when it fails or
	// the tier is off (SYCL_CACHE_PERSISTENT=0).
	Remote Remote
	// RemoteOptions tune the remote tier; zero fields take the URL's
	// query parameters, else the defaults.
	RemoteOptions RemoteOptions
	// RemoteKeys say how the remote tier signs and whose values it
	// accepts; nil reads GOUR_CACHE_SIGNING_KEY and
	// GOUR_CACHE_TRUSTED_KEYS. With no key to trust, the tier is not
	// used (one warning).
	RemoteKeys *RemoteKeys
}

// SettingError is a malformed setting.
type SettingError struct {
	Name  string // the environment variable
	Value string
	Why   string
}

func (e *SettingError) Error() string {
	return fmt.Sprintf("cache: %s=%q: %s", e.Name, e.Value, e.Why)
}

// settings are the resolved values.
type settings struct {
	dir              string
	dirWhy           string // why dir is empty
	persistent       bool
	maxSize          int64
	thresholdDays    int
	evictionDisabled bool
	minImage         int64
	maxImage         int64
	allowShared      bool
	trace            bool
	log              *slog.Logger
}

func (cfg Config) resolve() (settings, error) {
	getenv := cfg.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	s := settings{log: cfg.Logger}
	if s.log == nil {
		s.log = slog.Default()
	}
	var err error
	if s.persistent, err = boolSetting(cfg.Persistent, getenv, EnvPersistent, true); err != nil {
		return s, err
	}
	if s.maxSize, err = sizeSetting(cfg.MaxSize, getenv, EnvMaxSize, 0); err != nil {
		return s, err
	}
	if cfg.ThresholdDays != nil {
		if *cfg.ThresholdDays < 0 {
			return s, &SettingError{Name: EnvThreshold, Value: strconv.Itoa(*cfg.ThresholdDays), Why: "want a number of days, 0 or more"}
		}
		s.thresholdDays = *cfg.ThresholdDays
	} else if v := strings.TrimSpace(getenv(EnvThreshold)); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 || n > 1<<20 {
			return s, &SettingError{Name: EnvThreshold, Value: v, Why: "want a number of days (a decimal integer, 0 or more)"}
		}
		s.thresholdDays = n
	}
	if s.evictionDisabled, err = boolSetting(cfg.EvictionDisabled, getenv, EnvEvictionDisable, false); err != nil {
		return s, err
	}
	if s.minImage, err = sizeSetting(cfg.MinImageSize, getenv, EnvMinImageSize, 0); err != nil {
		return s, err
	}
	if s.maxImage, err = sizeSetting(cfg.MaxImageSize, getenv, EnvMaxImageSize, DefaultMaxImageSize); err != nil {
		return s, err
	}
	if s.minImage > s.maxImage {
		return s, &SettingError{Name: EnvMinImageSize, Value: strconv.FormatInt(s.minImage, 10),
			Why: fmt.Sprintf("larger than %s (%d)", EnvMaxImageSize, s.maxImage)}
	}
	if s.allowShared, err = boolSetting(cfg.AllowShared, getenv, EnvAllowShared, false); err != nil {
		return s, err
	}
	if cfg.Trace != nil {
		s.trace = *cfg.Trace
	} else if v := strings.TrimSpace(getenv(EnvTrace)); v != "" {
		n, err := strconv.ParseUint(v, 10, 31)
		if err != nil {
			return s, &SettingError{Name: EnvTrace, Value: v, Why: "want a bit mask (a decimal integer, 0 or more): 1 traces the persistent cache"}
		}
		s.trace = n&1 != 0
	}
	s.dir, s.dirWhy = cacheDir(cfg.Dir, getenv)
	return s, nil
}

// Root returns the directory Open would use as the cache root, or an
// error saying why there is none. It checks no other setting.
func (cfg Config) Root() (string, error) {
	getenv := cfg.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	dir, why := cacheDir(cfg.Dir, getenv)
	if dir == "" {
		return "", fmt.Errorf("cache: no cache directory: %s", why)
	}
	return dir, nil
}

// cacheDir picks the root: the API, SYCL_CACHE_DIR, $XDG_CACHE_HOME/gour,
// $HOME/.cache/gour. Relative paths are made absolute.
func cacheDir(api string, getenv func(string) string) (dir, why string) {
	switch {
	case api != "":
		dir = api
	case getenv(EnvDir) != "":
		dir = getenv(EnvDir)
	case getenv("XDG_CACHE_HOME") != "":
		dir = filepath.Join(getenv("XDG_CACHE_HOME"), "gour")
	case getenv("HOME") != "":
		dir = filepath.Join(getenv("HOME"), ".cache", "gour")
	default:
		return "", "none of " + EnvDir + ", XDG_CACHE_HOME and HOME is set"
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err.Error()
	}
	return abs, ""
}

func boolSetting(api *bool, getenv func(string) string, name string, def bool) (bool, error) {
	if api != nil {
		return *api, nil
	}
	v := strings.TrimSpace(getenv(name))
	if v == "" {
		return def, nil
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		return def, &SettingError{Name: name, Value: v, Why: "want 1 or 0"}
	}
	return b, nil
}

func sizeSetting(api *int64, getenv func(string) string, name string, def int64) (int64, error) {
	if api != nil {
		if *api < 0 {
			return def, &SettingError{Name: name, Value: strconv.FormatInt(*api, 10), Why: "want a number of bytes, 0 or more"}
		}
		return *api, nil
	}
	v := strings.TrimSpace(getenv(name))
	if v == "" {
		return def, nil
	}
	n, why := readSize(v)
	if why != "" {
		return def, &SettingError{Name: name, Value: v, Why: why}
	}
	return n, nil
}
