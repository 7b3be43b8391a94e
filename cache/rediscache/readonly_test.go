package rediscache_test

import (
	"context"
	"log/slog"
	"sort"
	"strings"
	"testing"

	"github.com/gour-dev/gour/cache"
	"github.com/gour-dev/gour/cache/signing"
	"github.com/gour-dev/gour/internal/harness/testenv"
)

// TestReadOnlyMember: a member without a signing key, connected as a
// Redis ACL user that may only GET the cache's keys (the user
// docs/design.md gives), serves hits and builds what it misses; the
// server's keys are the same before and after: no value, lease or
// abandoned mark written, nothing deleted.
func TestReadOnlyMember(t *testing.T) {
	srv := testenv.StartRedis(t)
	if _, err := srv.Do("ACL", "SETUSER", "gour-ci", "on", ">ci-secret", "resetkeys", "~gour:v1:*", "resetchannels",
		"-@all", "+get", "+ping", "+hello", "+auth"); err != nil {
		t.Fatal(err)
	}
	writer := newMachine(t, srv.URL(""), cache.RemoteOptions{})
	bld := &builder{size: 3000}
	stored := key("stored by the fleet")
	writer.getOrBuild(t, stored, bld)
	s := store(t, srv.URL(""))
	ctx := context.Background()
	bad := key("a bad value")
	if err := s.Put(ctx, cache.RemoteName(bad), []byte("garbage")); err != nil {
		t.Fatal(err)
	}
	keysOf := func() string {
		var all []string
		for _, pattern := range []string{"gour:v1:e:*", "gour:v1:l:*"} {
			out, err := srv.Do("KEYS", pattern)
			if err != nil {
				t.Fatal(err)
			}
			all = append(all, strings.Fields(out)...)
		}
		sort.Strings(all)
		return strings.Join(all, " ")
	}
	before := keysOf()

	rec := &testenv.LogRecorder{}
	ro, err := cache.Open(cache.Config{Dir: t.TempDir(), RemoteURL: "redis://gour-ci:ci-secret@" + srv.Addr() + "/0",
		RemoteKeys: &cache.RemoteKeys{Trusted: []signing.PublicKey{fleetKey.Public()}}, Logger: slog.New(rec), Getenv: noEnv})
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	if !ro.HasRemote() || ro.RemoteWrites() {
		t.Fatalf("remote %v, writes %v: want a read-only member", ro.HasRemote(), ro.RemoteWrites())
	}
	m := &machine{c: ro, log: rec}
	if !m.getOrBuild(t, stored, bld) {
		t.Fatal("no remote hit")
	}
	n := bld.n.Load()
	for _, k := range []cache.Key{key("new to the fleet"), bad} {
		if m.getOrBuild(t, k, bld) {
			t.Fatalf("%s: served from a cache", k.CompileOptions)
		}
	}
	if bld.n.Load() != n+2 {
		t.Fatalf("%d builds, want 2", bld.n.Load()-n)
	}
	ro.Flush()
	if after := keysOf(); after != before {
		t.Fatalf("the server's keys changed:\nbefore %s\nafter  %s", before, after)
	}
	if c := ro.RemoteCounters(); c.Hits != 1 || c.Errors != 0 || c.Stores != 0 {
		t.Fatalf("counters %+v: want 1 hit, no error, nothing stored", c)
	}
	if w := rec.Messages(slog.LevelWarn); len(w) != 0 {
		t.Fatalf("warnings: %q", w)
	}
}
