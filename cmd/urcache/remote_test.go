package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"strings"
	"testing"

	"github.com/gour-dev/gour/cache"
	"github.com/gour-dev/gour/cache/rediscache"
	"github.com/gour-dev/gour/internal/redisserver"
	"github.com/gour-dev/gour/internal/testenv"
)

// fillRemote stores an entry per device in the remote tier at url, then
// looks each up from a second machine (4 hits) and misses one key.
func fillRemote(t *testing.T, url string) {
	t.Helper()
	open := func() *cache.Cache {
		c, err := cache.Open(cache.Config{Dir: t.TempDir(), RemoteURL: url, Getenv: func(string) string { return "" }})
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

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}
