package cache

import (
	"crypto/ed25519"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/gour-dev/gour/cache/signing"
)

// EnvRemote names the remote tier: a URL such as
// redis://user:pass@host:6379/0 (rediss:// for TLS), with optional query
// parameters (see RemoteOptions and the store's package). Empty or unset:
// no remote tier.
const EnvRemote = "GOUR_CACHE_REMOTE"

// The remote tier's keys (see RemoteKeys).
const (
	// EnvSigningKey is the file of the private key this machine signs
	// the values it stores with (made by `urcache key new`).
	EnvSigningKey = "GOUR_CACHE_SIGNING_KEY"
	// EnvTrustedKeys lists the public keys whose values this machine
	// accepts: keys (name:base64) or files of them, separated by commas
	// or white space; or TrustUnsigned.
	EnvTrustedKeys = "GOUR_CACHE_TRUSTED_KEYS"
	// TrustUnsigned, as EnvTrustedKeys, accepts every value, signed or
	// not: for a server only this user can write.
	TrustUnsigned = "unsigned"
)

// RemoteOptions tune the remote tier. A zero field takes its value from
// the URL's query parameter (named in brackets), else the default.
type RemoteOptions struct {
	// Timeout bounds every remote operation [timeout], plus a transfer
	// allowance of 64 MiB/s for what it may carry: a Put of n bytes gets
	// n/(64 MiB/s) more, a lookup, which may bring an entry of up to
	// MaxEntrySize, MaxEntrySize/(64 MiB/s) more (1s with the default
	// 64 MiB), so that an entry that could be stored can be read. A hung
	// server costs a lookup that long: lower MaxEntrySize to bound it, or
	// raise Timeout on a link slower than 64 MiB/s. Default 300ms; at
	// least 1ms.
	Timeout time.Duration
	// MaxEntrySize: entries larger (their key, info and binary encoded)
	// are not sent [max_entry]. Default 64 MiB.
	MaxEntrySize int64
	// Wait bounds how long a miss waits for another machine's build of
	// the same key before building itself [wait]. Default 2 minutes.
	Wait time.Duration
	// LeaseTTL is the life of a build lease, renewed every third of it
	// while the build runs; a crashed builder's lease expires after it
	// [lease]. Default 10s; at least 100ms.
	LeaseTTL time.Duration
	// OffFor is how long the circuit breaker keeps the tier off after an
	// error [off_for]. Default 1 minute.
	OffFor time.Duration
}

// Defaults of RemoteOptions.
const (
	DefaultRemoteTimeout  = 300 * time.Millisecond
	DefaultRemoteMaxEntry = 64 << 20
	DefaultRemoteWait     = 2 * time.Minute
	DefaultRemoteLeaseTTL = 10 * time.Second
	DefaultRemoteOffFor   = time.Minute
)

// Minimums of RemoteOptions: a shorter lease cannot be renewed in time
// (nor set: Redis counts in milliseconds), a shorter timeout fails every
// operation.
const (
	MinRemoteTimeout  = time.Millisecond
	MinRemoteLeaseTTL = 100 * time.Millisecond
)

// remoteParam is a field of RemoteOptions and the URL query parameter
// that sets it: the one table that parsing, checks, defaults and
// messages read.
type remoteParam struct {
	name  string // the query parameter
	field string // the field of RemoteOptions
	size  bool   // a size (ParseSize's form), else a duration
	least int64  // the smallest value accepted, in bytes or nanoseconds
	def   int64
	ptr   func(*RemoteOptions) *int64
}

var remoteParams = [...]remoteParam{
	{"timeout", "Timeout", false, int64(MinRemoteTimeout), int64(DefaultRemoteTimeout),
		func(o *RemoteOptions) *int64 { return (*int64)(&o.Timeout) }},
	{"max_entry", "MaxEntrySize", true, 1, DefaultRemoteMaxEntry,
		func(o *RemoteOptions) *int64 { return &o.MaxEntrySize }},
	{"wait", "Wait", false, 1, int64(DefaultRemoteWait),
		func(o *RemoteOptions) *int64 { return (*int64)(&o.Wait) }},
	{"lease", "LeaseTTL", false, int64(MinRemoteLeaseTTL), int64(DefaultRemoteLeaseTTL),
		func(o *RemoteOptions) *int64 { return (*int64)(&o.LeaseTTL) }},
	{"off_for", "OffFor", false, 1, int64(DefaultRemoteOffFor),
		func(o *RemoteOptions) *int64 { return (*int64)(&o.OffFor) }},
}

// show writes a value of p as its users write it.
func (p remoteParam) show(n int64) string {
	if p.size {
		return fmt.Sprintf("%d bytes", n)
	}
	return time.Duration(n).String()
}

// parse reads a query value of p; ok is false for a malformed one.
func (p remoteParam) parse(v string) (n int64, ok bool) {
	if p.size {
		n, why := readSize(v)
		return n, why == ""
	}
	d, err := time.ParseDuration(v)
	return int64(d), err == nil
}

// want says what a value of p must be, for errors.
func (p remoteParam) want() string {
	if p.size {
		return "want a size of at least " + p.show(p.least) + " (bytes, or a number with a unit K, M, G)"
	}
	return "want a duration of at least " + p.show(p.least) + ", such as 300ms or 1m"
}

// resolveRemoteOptions fills o's zero fields from the query q (which loses gour's
// parameters), then from the defaults. A malformed or too small value is
// a *SettingError naming the parameter or the field.
func resolveRemoteOptions(o RemoteOptions, q url.Values, shown string) (RemoteOptions, error) {
	for _, p := range remoteParams {
		f := p.ptr(&o)
		if *f != 0 && *f < p.least {
			return o, &SettingError{Name: EnvRemote, Value: shown, Why: fmt.Sprintf("RemoteOptions.%s %s: %s", p.field, p.show(*f), p.want())}
		}
		if v := q.Get(p.name); v != "" {
			n, ok := p.parse(v)
			if !ok || n < p.least {
				return o, &SettingError{Name: EnvRemote, Value: shown, Why: fmt.Sprintf("parameter %s=%q: %s", p.name, v, p.want())}
			}
			if *f == 0 {
				*f = n
			}
		}
		q.Del(p.name)
		if *f == 0 {
			*f = p.def
		}
	}
	return o, nil
}

// RemoteOpener opens the store of a URL. The URL holds the store's own
// query parameters only: the cache has taken its own (RemoteOptions')
// out.
type RemoteOpener func(u *url.URL) (Remote, error)

var openers sync.Map // scheme → RemoteOpener

// RegisterRemote makes URLs of scheme open through open. A store's
// package registers its schemes when a program imports it, as
// database/sql's drivers do: cache/rediscache registers "redis" and
// "rediss".
func RegisterRemote(scheme string, open RemoteOpener) {
	openers.Store(strings.ToLower(scheme), open)
}

// knownStores names the package that registers each scheme gour has a
// store for, so that a program that has not linked it is told what to
// import.
var knownStores = map[string]string{
	"redis":  "github.com/gour-dev/gour/cache/rediscache",
	"rediss": "github.com/gour-dev/gour/cache/rediscache",
}

// remoteSetup is the remote tier as the settings ask for it.
type remoteSetup struct {
	r    Remote // nil: no remote tier
	o    RemoteOptions
	url  string // for messages, the password hidden
	warn string // why a configured tier is not used, for one warning
}

// openRemote resolves the remote tier's settings: cfg.Remote, else the
// URL of cfg.RemoteURL or GOUR_CACHE_REMOTE through a registered opener.
// A malformed URL or parameter is a *SettingError naming EnvRemote whose
// Value hides the password; a URL of a known store that this program has
// not linked is no tier, with a warning that names the import to add.
func (cfg Config) openRemote(getenv func(string) string) (remoteSetup, error) {
	raw := strings.TrimSpace(cfg.RemoteURL)
	if raw == "" {
		raw = strings.TrimSpace(getenv(EnvRemote))
	}
	if cfg.Remote == nil && (raw == "" || raw == "off" || raw == "none") {
		return remoteSetup{}, nil
	}
	if o := cfg.RemoteOptions; o.Timeout < 0 || o.MaxEntrySize < 0 || o.Wait < 0 || o.LeaseTTL < 0 || o.OffFor < 0 {
		return remoteSetup{}, &SettingError{Name: EnvRemote, Value: RedactURL(raw), Why: "RemoteOptions hold a negative value"}
	}
	if cfg.Remote != nil {
		o, err := resolveRemoteOptions(cfg.RemoteOptions, url.Values{}, "(set by the application)")
		return remoteSetup{r: cfg.Remote, o: o, url: "(set by the application)"}, err
	}
	u, err := url.Parse(raw)
	if err != nil {
		return remoteSetup{}, &SettingError{Name: EnvRemote, Value: RedactURL(raw), Why: "not a URL; want redis://[user:password@]host:port[/db] or rediss://... for TLS"}
	}
	shown := u.Redacted()
	if u.Scheme == "" || u.Host == "" || u.Opaque != "" {
		return remoteSetup{}, &SettingError{Name: EnvRemote, Value: shown, Why: "want scheme://host:port, such as redis://host:6379/0 or rediss://... for TLS"}
	}
	q := u.Query()
	o, err := resolveRemoteOptions(cfg.RemoteOptions, q, shown)
	if err != nil {
		return remoteSetup{}, err
	}
	u.RawQuery = q.Encode()
	scheme := strings.ToLower(u.Scheme)
	v, ok := openers.Load(scheme)
	if !ok {
		if pkg, known := knownStores[scheme]; known {
			return remoteSetup{url: shown, warn: fmt.Sprintf("this program has no store for %s:// URLs; add `import _ %q` to its main package", scheme, pkg)}, nil
		}
		return remoteSetup{}, &SettingError{Name: EnvRemote, Value: shown, Why: fmt.Sprintf("no remote store for scheme %q", u.Scheme)}
	}
	r, err := v.(RemoteOpener)(u)
	if err != nil {
		var se *SettingError
		if errors.As(err, &se) {
			return remoteSetup{}, err
		}
		return remoteSetup{}, &SettingError{Name: EnvRemote, Value: shown, Why: err.Error()}
	}
	return remoteSetup{r: r, o: o, url: shown}, nil
}

// RedactURL hides what looks like a password in a remote tier's URL,
// also one that does not parse as a URL, for errors and logs.
func RedactURL(s string) string {
	if i := strings.LastIndex(s, "@"); i >= 0 {
		if j := strings.Index(s, "://"); j >= 0 && j < i {
			return s[:j+3] + "xxxxx" + s[i:]
		}
		return "xxxxx" + s[i:]
	}
	return s
}

// RemoteKeys say how the remote tier signs what it stores and whose
// values it accepts. A store is written by every machine of a fleet and
// by whoever obtains its password, so a value is accepted only when a
// trusted key signed it: anything else is a miss, never written to disk.
type RemoteKeys struct {
	// Signing signs every value this machine stores, and its public key
	// is trusted too. Without it, the machine is a read-only member: it
	// reads, takes no build lease and stores nothing
	// (GOUR_CACHE_SIGNING_KEY, a key file).
	Signing *signing.PrivateKey
	// Trusted are the other keys whose values are accepted: several at
	// once while a key is rotated (GOUR_CACHE_TRUSTED_KEYS).
	Trusted []signing.PublicKey
	// Unsigned accepts every value, signed or not, and, without Signing,
	// stores values unsigned: only for a server no one else can write
	// (GOUR_CACHE_TRUSTED_KEYS=unsigned).
	Unsigned bool
}

// remoteKeys resolves the remote tier's keys: cfg.RemoteKeys, else the
// environment (RemoteKeysFromEnv).
func (cfg Config) remoteKeys(getenv func(string) string) (RemoteKeys, []error) {
	if cfg.RemoteKeys != nil {
		return *cfg.RemoteKeys, nil
	}
	return RemoteKeysFromEnv(getenv)
}

// RemoteKeysFromEnv reads the remote tier's keys from
// GOUR_CACHE_SIGNING_KEY and GOUR_CACHE_TRUSTED_KEYS (getenv nil:
// os.Getenv). A key that cannot be used is left out, and a problem says
// why: a bad signing key makes a read-only member, a bad list of trusted
// keys trusts none of it.
func RemoteKeysFromEnv(getenv func(string) string) (keys RemoteKeys, problems []error) {
	if getenv == nil {
		getenv = os.Getenv
	}
	if path := strings.TrimSpace(getenv(EnvSigningKey)); path != "" {
		k, err := signing.ReadPrivateKey(path)
		if err != nil {
			problems = append(problems, fmt.Errorf("%s: %w; storing nothing", EnvSigningKey, err))
		}
		keys.Signing = k
	}
	switch list := strings.TrimSpace(getenv(EnvTrustedKeys)); {
	case list == TrustUnsigned:
		keys.Unsigned = true
	case list != "":
		trusted, err := signing.ParseTrusted(list)
		if err != nil {
			problems = append(problems, fmt.Errorf("%s: %w; trusting none of its keys", EnvTrustedKeys, err))
		}
		keys.Trusted = trusted
	}
	return keys, problems
}

// Trusts reports whether a value signed by the ed25519 public key signer
// (nil: unsigned) is accepted.
func (k RemoteKeys) Trusts(signer []byte) bool {
	if k.Unsigned {
		return true
	}
	_, ok := k.trustedName(signer)
	return ok
}

// trustedName returns the name of the trusted key signer is, if any.
func (k RemoteKeys) trustedName(signer []byte) (string, bool) {
	if len(signer) != ed25519.PublicKeySize {
		return "", false
	}
	if k.Signing != nil && k.Signing.Public().Key.Equal(ed25519.PublicKey(signer)) {
		return k.Signing.Name, true
	}
	for _, t := range k.Trusted {
		if t.Key.Equal(ed25519.PublicKey(signer)) {
			return t.Name, true
		}
	}
	return "", false
}

// Describe names the signer of a remote value for listings: the name of
// a trusted key, else its fingerprint marked untrusted, or "unsigned".
func (k RemoteKeys) Describe(signer []byte) string {
	if signer == nil {
		return "unsigned"
	}
	if name, ok := k.trustedName(signer); ok {
		return name
	}
	return signing.Fingerprint(signer) + " (untrusted)"
}

// newRemoteTier makes the remote tier the settings ask for, or nil. A
// tier that cannot be used safely — its store not linked in, no key to
// trust — is nil after one warning, its store closed; one without a
// signing key reads only, and says so once.
func newRemoteTier(cfg Config, rs remoteSetup, getenv func(string) string, log *slog.Logger) *remoteTier {
	if rs.warn != "" {
		log.Warn("gour: remote device code cache tier off: "+rs.warn, "remote", rs.url, "setting", EnvRemote)
	}
	if rs.r == nil {
		return nil
	}
	keys, problems := cfg.remoteKeys(getenv)
	for _, p := range problems {
		log.Warn("gour: remote device code cache: "+p.Error(), "remote", rs.url)
	}
	t := &remoteTier{r: rs.r, o: rs.o, keys: keys, url: rs.url}
	switch {
	case !keys.Unsigned && keys.Signing == nil && len(keys.Trusted) == 0:
		log.Warn("gour: remote device code cache tier off: no key to trust its values with; set "+EnvTrustedKeys+
			" (and "+EnvSigningKey+" on machines that store), or "+EnvTrustedKeys+"="+TrustUnsigned+" for a server no one else writes",
			"remote", rs.url)
		if cfg.Remote == nil { // Open closes the application's store
			rs.r.Close()
		}
		return nil
	case !t.writes():
		log.Info("gour: remote device code cache: a read-only member (no "+EnvSigningKey+"): it reads, and stores nothing there",
			"remote", rs.url, "trusted", len(keys.Trusted))
	}
	return t
}
