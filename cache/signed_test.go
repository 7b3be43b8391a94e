package cache

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gour-dev/gour/cache/signing"
)

func newKey(t testing.TB, name string) *signing.PrivateKey {
	t.Helper()
	k, err := signing.Generate(name)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// member opens a machine of the fleet on f with keys.
func member(t *testing.T, f *fakeRemote, keys RemoteKeys) *Cache {
	t.Helper()
	c, _ := openRemoteTest(t, t.TempDir(), f, RemoteOptions{}, func(cfg *Config) { cfg.RemoteKeys = &keys })
	if !c.HasRemote() {
		t.Fatal("no remote tier")
	}
	return c
}

// plant stores v under k's name as an attacker with write access to the
// store would.
func (f *fakeRemote) plant(k Key, v []byte) {
	f.mu.Lock()
	f.vals[RemoteName(k)] = v
	f.mu.Unlock()
}

func (f *fakeRemote) value(k Key) []byte {
	f.mu.Lock()
	defer f.mu.Unlock()
	return bytes.Clone(f.vals[RemoteName(k)])
}

// TestPlantedValues: values planted by a writer whose key is not trusted,
// tampered after a trusted key signed them, signed for another key's
// name, unsigned, or with a truncated signature are misses: the program
// builds and gets the right binary, and nothing planted reaches the
// local disk.
func TestPlantedValues(t *testing.T) {
	trusted := newKey(t, "fleet")
	stranger := newKey(t, "stranger")
	evil := []byte("666 everywhere")
	now := time.Now()
	for _, tc := range []struct {
		name  string
		value func(k Key) []byte
		want  verdict
	}{
		{"untrusted key", func(k Key) []byte { return encodeRemote(RemoteName(k), k, evil, testInfo, now, stranger) }, refused},
		{"tampered", func(k Key) []byte {
			v := encodeRemote(RemoteName(k), k, binFor(k, 300), testInfo, now, trusted)
			good := encodeRemote(RemoteName(k), k, evil, testInfo, now, nil)
			// The trusted signature, a valid entry of other bytes.
			return append(v[:sigHeadSize:sigHeadSize], good...)
		}, corrupted},
		{"another key's signature", func(k Key) []byte {
			other := key("other")
			v := encodeRemote(RemoteName(other), k, evil, testInfo, now, trusted)
			return v
		}, corrupted},
		{"unsigned", func(k Key) []byte { return encodeRemote(RemoteName(k), k, evil, testInfo, now, nil) }, refused},
		{"truncated signature", func(k Key) []byte {
			return encodeRemote(RemoteName(k), k, evil, testInfo, now, trusted)[:sigHeadSize-10]
		}, corrupted},
		{"signature bit", func(k Key) []byte {
			v := encodeRemote(RemoteName(k), k, evil, testInfo, now, trusted)
			v[sigHeadSize-1] ^= 1
			return v
		}, corrupted},
		{"signer bit", func(k Key) []byte {
			v := encodeRemote(RemoteName(k), k, evil, testInfo, now, trusted)
			v[len(sigMagic)] ^= 1
			return v
		}, refused},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFakeRemote()
			c, rec := openRemoteTest(t, t.TempDir(), f, RemoteOptions{}, func(cfg *Config) {
				cfg.RemoteKeys = &RemoteKeys{Signing: newKey(t, "victim"), Trusted: []signing.PublicKey{trusted.Public()}}
			})
			k := key("victim's " + tc.name)
			f.plant(k, tc.value(k))
			if e, ok := c.Get(k); ok {
				t.Fatalf("Get served a planted value (%d bytes)", len(e.Binary))
			}
			builds := 0
			e, from, err := c.GetOrBuild(context.Background(), k, testInfo, func() ([]byte, error) { builds++; return binFor(k, 300), nil })
			if err != nil || from || builds != 1 || !bytes.Equal(e.Binary, binFor(k, 300)) {
				t.Fatalf("GetOrBuild: from %v, %d builds, %v", from, builds, err)
			}
			c.Flush()
			local := mustOpen(t, c.root)
			if e, ok := local.Get(k); !ok || !bytes.Equal(e.Binary, binFor(k, 300)) {
				t.Fatal("the local disk does not hold the build")
			}
			cnt := c.RemoteCounters()
			switch tc.want {
			case refused:
				if cnt.Untrusted != 2 || cnt.Corrupt != 0 {
					t.Errorf("counters %+v, want 2 untrusted", cnt)
				}
				if rec.Count(slog.LevelWarn) != 1 {
					t.Errorf("warnings %q, want one", rec.Messages(slog.LevelWarn))
				}
			case corrupted:
				if cnt.Corrupt < 1 || cnt.Untrusted != 0 {
					t.Errorf("counters %+v, want corrupt values, none untrusted", cnt)
				}
			}
			// The build replaced the planted value with a signed one, which
			// another member of the fleet accepts.
			if v := f.value(k); bytes.Contains(v, evil) {
				t.Fatal("the planted value is still stored")
			}
		})
	}
}

// TestKeyRotation: while both keys are trusted, values of the old and the
// new key are hits; once the old key is removed, only the new one's.
func TestKeyRotation(t *testing.T) {
	oldKey, newK := newKey(t, "fleet-2025"), newKey(t, "fleet-2026")
	f := newFakeRemote()
	byOld, byNew := key("stored under the old key"), key("stored under the new key")
	member(t, f, RemoteKeys{Signing: oldKey}).Put(byOld, binFor(byOld, 200), testInfo)
	member(t, f, RemoteKeys{Signing: newK}).Put(byNew, binFor(byNew, 200), testInfo)

	both := member(t, f, RemoteKeys{Trusted: []signing.PublicKey{oldKey.Public(), newK.Public()}})
	for _, k := range []Key{byOld, byNew} {
		if e, ok := both.Get(k); !ok || !bytes.Equal(e.Binary, binFor(k, 200)) {
			t.Fatalf("both keys trusted: %s is not a hit", k.CompileOptions)
		}
	}
	newOnly := member(t, f, RemoteKeys{Trusted: []signing.PublicKey{newK.Public()}})
	if _, ok := newOnly.Get(byNew); !ok {
		t.Fatal("the new key's value is not a hit")
	}
	if _, ok := newOnly.Get(byOld); ok {
		t.Fatal("the old key's value is a hit once the old key is no longer trusted")
	}
	if c := newOnly.RemoteCounters(); c.Untrusted != 1 || c.Hits != 1 {
		t.Fatalf("counters %+v", c)
	}
}

// TestReadOnlyMember: a member without a signing key serves hits, and
// writes nothing: no value, lease, abandoned mark or deletion.
func TestReadOnlyMember(t *testing.T) {
	writer := newKey(t, "fleet")
	f := newFakeRemote()
	stored := key("stored")
	member(t, f, RemoteKeys{Signing: writer}).Put(stored, binFor(stored, 500), testInfo)
	f.plant(key("garbage"), []byte("garbage"))
	f.mu.Lock()
	before := map[string]int{}
	for op, n := range f.calls {
		before[op] = n
	}
	f.mu.Unlock()

	ro := member(t, f, RemoteKeys{Trusted: []signing.PublicKey{writer.Public()}})
	if ro.RemoteWrites() {
		t.Fatal("a member without a signing key writes")
	}
	if e, ok := ro.Get(stored); !ok || !e.FromRemote() {
		t.Fatal("no remote hit")
	}
	ctx := context.Background()
	for _, k := range []Key{key("new"), key("garbage")} {
		if _, from, err := ro.GetOrBuild(ctx, k, testInfo, func() ([]byte, error) { return binFor(k, 100), nil }); err != nil || from {
			t.Fatalf("GetOrBuild(%s): %v %v", k.CompileOptions, from, err)
		}
	}
	failed := key("failed")
	if _, _, err := ro.GetOrBuild(ctx, failed, testInfo, func() ([]byte, error) { return nil, errors.New("no") }); err == nil {
		t.Fatal("a failed build succeeded")
	}
	put := key("put")
	if err := ro.Put(put, binFor(put, 100), testInfo); err != nil {
		t.Fatal(err)
	}
	e, _ := ro.Get(put) // a local hit
	ro.Reject(e)
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, op := range []string{"put", "lease", "renew", "release", "delete"} {
		if f.calls[op] != before[op] {
			t.Errorf("the read-only member called %s %d times", op, f.calls[op]-before[op])
		}
	}
	if len(f.leases) != 0 || f.vals[RemoteName(key("garbage"))] == nil || len(f.vals) != 2 {
		t.Errorf("the store changed: %d values, leases %v", len(f.vals), f.leases)
	}
}

// TestNoTrustedKey: a remote tier with no key to trust is not used, with
// one warning; with TrustUnsigned it reads and stores unsigned values.
func TestNoTrustedKey(t *testing.T) {
	f := newFakeRemote()
	c, rec := openRemoteTest(t, t.TempDir(), f, RemoteOptions{}, func(cfg *Config) { cfg.RemoteKeys = &RemoteKeys{} })
	if c.HasRemote() || rec.Count(slog.LevelWarn) != 1 || !strings.Contains(rec.Messages(slog.LevelWarn)[0], EnvTrustedKeys) {
		t.Fatalf("remote %v, warnings %q", c.HasRemote(), rec.Messages(slog.LevelWarn))
	}
	if f.closed.Load() != 1 {
		t.Fatalf("the unused store closed %d times", f.closed.Load())
	}

	f = newFakeRemote()
	a := member(t, f, RemoteKeys{Unsigned: true})
	k := key("unsigned")
	if err := a.Put(k, binFor(k, 100), testInfo); err != nil {
		t.Fatal(err)
	}
	if v := f.value(k); bytes.HasPrefix(v, []byte(sigMagic)) || v == nil {
		t.Fatal("an unsigned member stored no unsigned value")
	}
	if e, ok := member(t, f, RemoteKeys{Unsigned: true}).Get(k); !ok || !bytes.Equal(e.Binary, binFor(k, 100)) {
		t.Fatal("an unsigned value is not a hit with TrustUnsigned")
	}
	if _, ok := member(t, f, RemoteKeys{Trusted: []signing.PublicKey{newKey(t, "x").Public()}}).Get(k); ok {
		t.Fatal("an unsigned value is a hit with trusted keys")
	}
}

// TestSigningEnvironment: the keys come from GOUR_CACHE_SIGNING_KEY and
// GOUR_CACHE_TRUSTED_KEYS; an unsafe key file is left out with a warning.
func TestSigningEnvironment(t *testing.T) {
	dir := t.TempDir()
	writer, other := newKey(t, "writer"), newKey(t, "other")
	keyFile := filepath.Join(dir, "writer.key")
	if err := signing.WriteKeyPair(keyFile, writer); err != nil {
		t.Fatal(err)
	}
	open := func(kv ...string) (*Cache, []string) {
		f := newFakeRemote()
		c, rec := openRemoteTest(t, t.TempDir(), f, RemoteOptions{}, func(cfg *Config) {
			cfg.RemoteKeys = nil
			cfg.Getenv = env(kv...)
		})
		return c, rec.Messages(slog.LevelWarn)
	}
	c, warns := open(EnvSigningKey, keyFile, EnvTrustedKeys, other.Public().String()+","+keyFile+".pub")
	if !c.RemoteWrites() || len(warns) != 0 || !c.remote.keys.Trusts(other.Public().Key) || !c.remote.keys.Trusts(writer.Public().Key) {
		t.Fatalf("writes %v, warnings %q", c.RemoteWrites(), warns)
	}
	if err := os.Chmod(keyFile, 0o644); err != nil {
		t.Fatal(err)
	}
	c, warns = open(EnvSigningKey, keyFile, EnvTrustedKeys, other.Public().String())
	if !c.HasRemote() || c.RemoteWrites() || len(warns) != 1 || !strings.Contains(warns[0], "storing nothing") {
		t.Fatalf("an unsafe signing key: remote %v, writes %v, warnings %q", c.HasRemote(), c.RemoteWrites(), warns)
	}
	c, warns = open(EnvTrustedKeys, "fleet:notbase64")
	if c.HasRemote() || len(warns) != 2 {
		t.Fatalf("a bad trusted key: remote %v, warnings %q", c.HasRemote(), warns)
	}
	c, _ = open(EnvTrustedKeys, TrustUnsigned)
	if !c.HasRemote() || !c.RemoteWrites() || !c.remote.keys.Trusts(nil) {
		t.Fatal("TrustUnsigned: not a member that reads and writes unsigned values")
	}
}

// TestStoreNotLinked: a URL of a store this program has not linked (the
// cache's tests do not link cache/rediscache) is no tier and one warning
// that names the import to add, not an error.
func TestStoreNotLinked(t *testing.T) {
	c, rec := openTest(t, t.TempDir(), func(cfg *Config) { cfg.RemoteURL = "redis://127.0.0.1:6379/0" })
	warns := rec.Messages(slog.LevelWarn)
	if c.HasRemote() || len(warns) != 1 || !strings.Contains(warns[0], `import _ "github.com/gour-dev/gour/cache/rediscache"`) {
		t.Fatalf("remote %v, warnings %q", c.HasRemote(), warns)
	}
}

// BenchmarkRemoteAccept: what checking a remote value of a 1 MiB binary
// costs, signed and unsigned (TrustUnsigned): the difference is the
// signature's.
func BenchmarkRemoteAccept(b *testing.B) {
	k := key("bench")
	name := RemoteName(k)
	bin := binFor(k, 1<<20)
	signer := newKey(b, "bench")
	for _, bc := range []struct {
		name string
		v    []byte
		keys RemoteKeys
	}{
		{"signed", encodeRemote(name, k, bin, testInfo, time.Now(), signer), RemoteKeys{Signing: signer}},
		{"unsigned", encodeRemote(name, k, bin, testInfo, time.Now(), nil), RemoteKeys{Unsigned: true}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			t := &remoteTier{keys: bc.keys, c: &Cache{}}
			t.c.s.log = slog.New(slog.DiscardHandler)
			b.SetBytes(int64(len(bc.v)))
			for b.Loop() {
				if e, v := t.accept(context.Background(), name, k, bc.v); e == nil {
					b.Fatal(v)
				}
			}
		})
	}
}
