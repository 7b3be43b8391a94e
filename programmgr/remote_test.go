package programmgr

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gour-dev/gour/cache"
	_ "github.com/gour-dev/gour/cache/rediscache" // the tests' GOUR_CACHE_REMOTE=redis://...
	"github.com/gour-dev/gour/cache/signing"
	"github.com/gour-dev/gour/internal/harness/testenv"
	"github.com/gour-dev/gour/programmgr/internal/faultinject"
	"github.com/gour-dev/gour/ur"
)

// fleetKey signs the values the tests' machines store: each machine
// reads it from a key file, as GOUR_CACHE_SIGNING_KEY names it.
var fleetKey = func() *signing.PrivateKey {
	k, err := signing.Generate("test-fleet")
	if err != nil {
		panic(err)
	}
	return k
}()

// fleetEnv is the environment of a machine of the fleet whose cache
// directory is dir: SYCL_CACHE_DIR, and GOUR_CACHE_SIGNING_KEY naming a
// file of fleetKey.
func fleetEnv(t testing.TB, dir string) func(string) string {
	keyFile := filepath.Join(t.TempDir(), "fleet.key")
	if err := signing.WriteKeyPair(keyFile, fleetKey); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"SYCL_CACHE_DIR": dir, cache.EnvSigningKey: keyFile}
	return func(k string) string { return env[k] }
}

// openRemoteDiskAt opens a persistent cache in dir with the remote tier
// at url, as a new process on another machine would.
func openRemoteDiskAt(t testing.TB, dir, url string) *cache.Cache {
	t.Helper()
	c, err := openDisk(config{remote: url}, fleetEnv(t, dir))
	if err != nil {
		t.Fatal(err)
	}
	if !c.Enabled() || !c.HasRemote() {
		t.Fatalf("cache in %s: enabled %v, remote %v", dir, c.Enabled(), c.HasRemote())
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// TestRemoteTierServesAnotherMachine: a manager on another machine (its
// own empty disk cache) gets the program from the binary the first
// machine stored in the remote tier, without building, and keeps it on
// its disk.
func TestRemoteTierServesAnotherMachine(t *testing.T) {
	srv := testenv.StartRedis(t)
	img := image(t, 5, "k0", "k1")
	first := newFixture(t, Options{DiskCache: openRemoteDiskAt(t, t.TempDir(), srv.URL(""))}, 1)
	first.runAndRelease(first.getKernel(img, "k1"), 6, "first machine: k1")

	dir := t.TempDir()
	second := newFixture(t, Options{DiskCache: openRemoteDiskAt(t, dir, srv.URL(""))}, 1)
	second.runAndRelease(second.getKernel(img, "k1"), 6, "second machine: k1")
	if n := second.ctl.Calls(faultinject.CreateSource); n != 0 {
		t.Errorf("second machine built %d programs from source, want 0", n)
	}
	if s := second.m.Stats(); s.DiskHits != 1 || s.RemoteHits != 1 || s.Builds != 0 {
		t.Errorf("second machine: DiskHits %d, RemoteHits %d, Builds %d; want 1, 1, 0", s.DiskHits, s.RemoteHits, s.Builds)
	}
	// Its disk has it now: a third manager there needs no remote tier.
	third := newFixture(t, Options{DiskCache: openDiskAt(t, dir)}, 1)
	third.runAndRelease(third.getKernel(img, "k1"), 6, "second machine again: k1")
	if s := third.m.Stats(); s.DiskHits != 1 || s.RemoteHits != 0 || s.Builds != 0 {
		t.Errorf("second machine, without the remote tier: DiskHits %d, RemoteHits %d, Builds %d; want 1, 0, 0", s.DiskHits, s.RemoteHits, s.Builds)
	}
}

// TestRemoteTierWithoutDisk: a machine whose cache directory cannot be
// used (a file stands where it should be) is still served by the remote
// tier, and its builds are sent there.
func TestRemoteTierWithoutDisk(t *testing.T) {
	srv := testenv.StartRedis(t)
	img := image(t, 5, "k0", "k1")
	noDir := func() *cache.Cache {
		file := filepath.Join(t.TempDir(), "file")
		if err := os.WriteFile(file, nil, 0o600); err != nil {
			t.Fatal(err)
		}
		c, err := openDisk(config{remote: srv.URL("")}, fleetEnv(t, filepath.Join(file, "cache")))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		if c.Enabled() || !c.HasRemote() || !c.Usable() {
			t.Fatalf("enabled %v, remote %v, usable %v; want false, true, true", c.Enabled(), c.HasRemote(), c.Usable())
		}
		return c
	}
	first := newFixture(t, Options{DiskCache: noDir()}, 1)
	first.runAndRelease(first.getKernel(img, "k1"), 6, "first machine: k1")
	if s := first.m.Stats(); s.Builds != 1 {
		t.Errorf("first machine: Builds %d, want 1", s.Builds)
	}
	if err := first.m.Close(); err != nil {
		t.Fatal(err)
	}
	second := newFixture(t, Options{DiskCache: noDir()}, 1)
	second.runAndRelease(second.getKernel(img, "k1"), 6, "second machine: k1")
	if s := second.m.Stats(); s.RemoteHits != 1 || s.Builds != 0 {
		t.Errorf("second machine: RemoteHits %d, Builds %d; want 1, 0", s.RemoteHits, s.Builds)
	}
}

// TestRemoteCacheSetting: a malformed GOUR_CACHE_REMOTE or
// Options.RemoteCache is a *ur.Error (invalid value) wrapping a
// *cache.SettingError, without the password; "" and "off" are none.
func TestRemoteCacheSetting(t *testing.T) {
	for _, tc := range []struct{ api, env string }{
		{"redis://:secret@host:port/0", ""},
		{"", "redis://:secret@host:6379/0?timeout=-1s"},
		{"", "ftp://host"},
	} {
		o := Options{}
		if tc.api != "" {
			o.RemoteCache = &tc.api
		}
		env := map[string]string{"SYCL_CACHE_DIR": t.TempDir(), EnvCacheRemote: tc.env}
		getenv := func(k string) string { return env[k] }
		cfg, err := o.resolve(getenv)
		if err != nil {
			t.Fatal(err)
		}
		_, err = openDisk(cfg, getenv)
		var se *cache.SettingError
		if !errors.As(err, &se) || se.Name != EnvCacheRemote || ur.ResultOf(err) != ur.ErrInvalidValue {
			t.Errorf("%+v: %v, want an invalid-value error wrapping a *cache.SettingError", tc, err)
		} else if strings.Contains(err.Error(), "secret") {
			t.Errorf("%+v: the error shows the password: %v", tc, err)
		}
	}
	for _, v := range []string{"", "off"} {
		o := Options{RemoteCache: &v}
		env := map[string]string{"SYCL_CACHE_DIR": t.TempDir(), EnvCacheRemote: "redis://host:6379"}
		getenv := func(k string) string { return env[k] }
		cfg, err := o.resolve(getenv)
		if err != nil {
			t.Fatal(err)
		}
		c, err := openDisk(cfg, getenv)
		if err != nil || c.HasRemote() {
			t.Errorf("RemoteCache %q: %v, remote %v; want no remote tier", v, err, c != nil && c.HasRemote())
		}
	}
}
