package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gour-dev/gour/cache"
	"github.com/gour-dev/gour/cache/rediscache"
	"github.com/gour-dev/gour/cache/signing"
	"github.com/gour-dev/gour/internal/harness/testenv"
	"github.com/gour-dev/gour/internal/redisserver"
)

// writerKey signs what fillRemote stores.
var writerKey = func() *signing.PrivateKey {
	k, err := signing.Generate("test-writer")
	if err != nil {
		panic(err)
	}
	return k
}()

// fillRemote stores an entry per device in the remote tier at url, then
// looks each up from a second machine (4 hits) and misses one key.
func fillRemote(t *testing.T, url string) {
	t.Helper()
	open := func() *cache.Cache {
		c, err := cache.Open(cache.Config{Dir: t.TempDir(), RemoteURL: url, RemoteKeys: &cache.RemoteKeys{Signing: writerKey},
			Getenv: func(string) string { return "" }})
		if err != nil || !c.Enabled() {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		return c
	}
	a, b := open(), open()
	var keys []cache.Key
	for i, d := range []cache.DeviceKey{devA, devA, devB, devC} {
		k := cache.Key{Device: d, Images: [][32]byte{sha256.Sum256([]byte{byte(i)})}, CompileOptions: "-O" + string(rune('0'+i))}
		info := cache.Info{Format: "native", Kernels: []string{"axpy", "k" + string(rune('0'+i))}, ImageSize: 100}
		if err := a.Put(k, bytes.Repeat([]byte{byte(i)}, 1000*(i+1)), info); err != nil {
			t.Fatal(err)
		}
		keys = append(keys, k)
	}
	for _, k := range keys {
		if _, ok := b.Get(k); !ok {
			t.Fatal("no remote hit")
		}
	}
	if _, ok := b.Get(cache.Key{Device: devC}); ok {
		t.Fatal("hit of a key never stored")
	}
}

func TestRemote(t *testing.T) {
	srv := testenv.StartRedis(t)
	url := srv.URL("")
	fillRemote(t, url)

	out, errs, st := urcache(t, noDevices, "--remote", url, "--json", "stat")
	var s struct {
		Entries, Bytes, Hits, Misses int64
		HitRate                      float64 `json:"hit_rate"`
	}
	if st != 0 || json.Unmarshal([]byte(out), &s) != nil {
		t.Fatalf("stat: status %d: %s %s", st, out, errs)
	}
	if s.Entries != 4 || s.Bytes < 10000 || s.Hits != 4 || s.Misses != 1 || s.HitRate != 0.8 {
		t.Fatalf("stat: %+v, want 4 entries, 4 hits, 1 miss", s)
	}
	out, _, st = urcache(t, noDevices, "stat", "--remote", url)
	if st != 0 || !strings.Contains(out, "hit rate 80.0%") || !strings.Contains(out, "prefix:") {
		t.Fatalf("stat: %d\n%s", st, out)
	}

	out, errs, st = urcache(t, noDevices, "--remote", url, "ls")
	if st != 0 || errs != "" {
		t.Fatalf("ls: %d %s", st, errs)
	}
	for _, want := range []string{"LAST USE", "opencl: cpu-a [6.0]", "cuda: H100 [12.4]", "axpy,k3", "-O2"} {
		if !strings.Contains(out, want) {
			t.Errorf("ls: no %q in\n%s", want, out)
		}
	}

	// A bad value: verify finds it, --repair removes it.
	store, err := rediscache.OpenURL(url)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	store.Put(context.Background(), cache.RemoteName(cache.Key{Device: devA}), []byte("junk"))
	if out, _, st = urcache(t, noDevices, "--remote", url, "verify"); st != 1 || !strings.Contains(out, "5 entries, 4 good, 1 problems") {
		t.Fatalf("verify: %d\n%s", st, out)
	}
	if out, _, st = urcache(t, noDevices, "--remote", url, "verify", "--repair"); st != 0 || !strings.Contains(out, "1 removed") {
		t.Fatalf("verify --repair: %d\n%s", st, out)
	}

	// --stale removes devB (an old driver of a present device).
	if out, _, st = urcache(t, present, "--remote", url, "prune", "--stale"); st != 0 || !strings.Contains(out, "removed 1 entries") {
		t.Fatalf("prune --stale: %d\n%s", st, out)
	}
	// Idle times have a resolution of a second: which entries go is not
	// known, only that the rest fits.
	var pr struct{ Removed, Entries, Bytes int64 }
	out, _, st = urcache(t, noDevices, "--remote", url, "--json", "prune", "--max-size", "5K")
	if st != 0 || json.Unmarshal([]byte(out), &pr) != nil || pr.Removed < 1 || pr.Bytes > 5<<10 || pr.Entries+pr.Removed != 3 {
		t.Fatalf("prune --max-size 5K: %d\n%s", st, out)
	}
	if out, _, st = urcache(t, noDevices, "--remote", url, "clear"); st != 0 || !strings.Contains(out, "removed "+itoa(int(pr.Entries))+" entries") {
		t.Fatalf("clear: %d\n%s", st, out)
	}
	if out, _, _ = urcache(t, noDevices, "--remote", url, "--json", "stat"); !strings.Contains(out, `"entries": 0`) {
		t.Fatalf("after clear: %s", out)
	}
}

// TestRemoteLFU: under an LFU maxmemory-policy, where the server keeps
// no idle times, stat, ls and prune work.
func TestRemoteLFU(t *testing.T) {
	srv := testenv.StartRedis(t)
	url := srv.URL("")
	fillRemote(t, url)
	if _, err := srv.Do("CONFIG", "SET", "maxmemory-policy", "allkeys-lfu"); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"stat"}, {"ls"}, {"prune", "--older-than", "1h"}} {
		out, errs, st := urcache(t, noDevices, append([]string{"--remote", url}, args...)...)
		if st != 0 || errs != "" {
			t.Errorf("%s: status %d, %s %s", args[0], st, out, errs)
		}
	}
	var pr struct{ Removed, Entries int64 }
	out, _, st := urcache(t, noDevices, "--remote", url, "--json", "prune", "--max-size", "5K")
	if st != 0 || json.Unmarshal([]byte(out), &pr) != nil || pr.Removed < 1 || pr.Entries+pr.Removed != 4 {
		t.Fatalf("prune --max-size 5K: %d\n%s", st, out)
	}
}

func TestRemoteErrors(t *testing.T) {
	port, err := redisserver.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args   []string
		status int
		want   string
	}{
		{[]string{"--remote", "redis://:secret@host:port", "stat"}, 2, "urcache --remote"},
		{[]string{"--remote", "http://host", "stat"}, 2, "redis://"},
		{[]string{"--remote", "redis://127.0.0.1:1", "--dir", "/tmp", "stat"}, 2, "give one"},
		{[]string{"--remote", "redis://:secret@127.0.0.1:" + itoa(port), "ls"}, 1, "refused"},
	} {
		_, errs, st := urcache(t, noDevices, tc.args...)
		if st != tc.status || !strings.Contains(errs, tc.want) || strings.Contains(errs, "secret") {
			t.Errorf("%q: status %d, %q; want %d and %q, no password", tc.args, st, errs, tc.status, tc.want)
		}
	}
}

// TestRemoteSigners: ls names each value's signer as the trusted keys
// see it; verify counts signers and, with trusted keys, reports values
// no trusted key signed, which --repair removes.
func TestRemoteSigners(t *testing.T) {
	srv := testenv.StartRedis(t)
	url := srv.URL("")
	fillRemote(t, url)
	stranger, _ := signing.Generate("stranger")
	planted := cache.Key{Device: devA, CompileOptions: "-planted"}
	c, err := cache.Open(cache.Config{Dir: t.TempDir(), RemoteURL: url, RemoteKeys: &cache.RemoteKeys{Signing: stranger},
		Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Put(planted, []byte("666"), cache.Info{Format: "native"}); err != nil {
		t.Fatal(err)
	}
	c.Close()

	t.Setenv(cache.EnvTrustedKeys, writerKey.Public().String())
	t.Setenv(cache.EnvSigningKey, "")
	out, errs, st := urcache(t, noDevices, "--remote", url, "ls")
	if st != 0 || errs != "" || !strings.Contains(out, "SIGNER") || strings.Count(out, "test-writer") != 4 ||
		!strings.Contains(out, signing.Fingerprint(stranger.Public().Key)+" (untrusted)") {
		t.Fatalf("ls: %d %s\n%s", st, errs, out)
	}
	var entries []struct{ Signer string }
	out, _, _ = urcache(t, noDevices, "--remote", url, "--json", "ls")
	if json.Unmarshal([]byte(out), &entries) != nil || len(entries) != 5 {
		t.Fatalf("ls --json: %s", out)
	}
	out, _, st = urcache(t, noDevices, "--remote", url, "verify")
	if st != 1 || !strings.Contains(out, "5 entries, 4 good, 1 problems") || !strings.Contains(out, "no trusted key signed it") ||
		!strings.Contains(out, "signed by test-writer: 4") {
		t.Fatalf("verify: %d\n%s", st, out)
	}
	out, _, st = urcache(t, noDevices, "--remote", url, "verify", "--repair")
	if st != 0 || !strings.Contains(out, "1 removed") {
		t.Fatalf("verify --repair: %d\n%s", st, out)
	}
	if out, _, st = urcache(t, noDevices, "--remote", url, "verify"); st != 0 || !strings.Contains(out, "4 entries, 4 good, 0 problems") {
		t.Fatalf("verify after --repair: %d\n%s", st, out)
	}
}

func TestKeyCommands(t *testing.T) {
	file := filepath.Join(t.TempDir(), "fleet.key")
	out, errs, st := urcache(t, noDevices, "key", "new", "--name", "fleet-1", file)
	if st != 0 || !strings.HasPrefix(out, "fleet-1:") || !strings.Contains(errs, file+".pub") {
		t.Fatalf("key new: %d %q %q", st, out, errs)
	}
	pub, err := signing.ParsePublicKey(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{file, file + ".pub"} {
		show, errs, st := urcache(t, noDevices, "key", "show", f)
		if st != 0 || strings.TrimSpace(show) != pub.String() {
			t.Errorf("key show %s: %d %q %q, want %q", f, st, show, errs, pub)
		}
	}
	if _, errs, st := urcache(t, noDevices, "key", "new", file); st != 1 || !strings.Contains(errs, "exists") {
		t.Errorf("key new over a key: %d %q", st, errs)
	}
	if err := os.Chmod(file, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, errs, st := urcache(t, noDevices, "key", "show", file); st != 1 || !strings.Contains(errs, "want 0600") {
		t.Errorf("key show of a readable private key: %d %q", st, errs)
	}
	for _, args := range [][]string{{"key"}, {"key", "rotate"}, {"key", "new"}, {"key", "new", "--name", "bad name", file + "2"}} {
		if _, _, st := urcache(t, noDevices, args...); st != 2 {
			t.Errorf("%q: status %d, want 2", args, st)
		}
	}
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}
