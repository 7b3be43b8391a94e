package rediscache_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"log/slog"
	"os"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gour-dev/gour/cache"
	_ "github.com/gour-dev/gour/cache/rediscache"
	"github.com/gour-dev/gour/cache/signing"
	"github.com/gour-dev/gour/internal/harness/testenv"
)

// machine is a cache on its own local directory: one machine of a fleet.
type machine struct {
	c   *cache.Cache
	dir string
	log *testenv.LogRecorder
}

func noEnv(string) string { return "" }

// fleetKey signs the values of the tests' machines; child processes get
// it through helperKeyEnv, so that the whole fleet trusts one key.
var fleetKey = func() *signing.PrivateKey {
	if text := os.Getenv(helperKeyEnv); text != "" {
		k, err := signing.ParsePrivateKey(text)
		if err != nil {
			panic(err)
		}
		return k
	}
	k, err := signing.Generate("test-fleet")
	if err != nil {
		panic(err)
	}
	return k
}()

const helperKeyEnv = "GOUR_TEST_FLEET_KEY"

// fleetKeys makes a member of the fleet that signs with fleetKey.
func fleetKeys() *cache.RemoteKeys { return &cache.RemoteKeys{Signing: fleetKey} }

// newMachine opens a cache in a new directory with the remote tier at url.
// newMachine opens a cache in a directory of its own on the server at
// url. A zero Timeout is 10 s: only the tests of timeouts may depend on
// how busy the machine running them is.
func newMachine(t testing.TB, url string, o cache.RemoteOptions) *machine {
	t.Helper()
	if o.Timeout == 0 {
		o.Timeout = 10 * time.Second
	}
	return openMachine(t, t.TempDir(), url, o)
}

func openMachine(t testing.TB, dir, url string, o cache.RemoteOptions) *machine {
	t.Helper()
	rec := &testenv.LogRecorder{}
	c, err := cache.Open(cache.Config{Dir: dir, RemoteURL: url, RemoteOptions: o, RemoteKeys: fleetKeys(), Logger: slog.New(rec), Getenv: noEnv})
	if err != nil {
		t.Fatal(err)
	}
	if !c.Enabled() || !c.HasRemote() {
		t.Fatalf("cache: enabled %v, remote %v: %v", c.Enabled(), c.HasRemote(), c.Err())
	}
	t.Cleanup(func() { c.Close() })
	return &machine{c: c, dir: dir, log: rec}
}

func key(name string) cache.Key {
	return cache.Key{
		Device:         cache.DeviceKey{Backend: "opencl", Platform: "Portable Computing Language", Name: "cpu", Version: "OpenCL 3.0", Driver: "6.0"},
		Images:         [][32]byte{sha256.Sum256([]byte("image " + name))},
		Spec:           []byte{1, 2, 3},
		CompileOptions: "-cl-fast-relaxed-math -D NAME=" + name,
	}
}

var info = cache.Info{Format: "native", Kernels: []string{"axpy"}, ImageSize: 100}

// binFor is the binary of a key: size deterministic bytes.
func binFor(k cache.Key, size int) []byte {
	b := make([]byte, size)
	seed := sha256.Sum256([]byte(k.CompileOptions))
	for i := range b {
		b[i] = seed[i%32] ^ byte(i/32)
	}
	return b
}

// builder counts builds and makes the binary of a key.
type builder struct {
	n     atomic.Int64
	delay time.Duration
	size  int
}

func (b *builder) build(k cache.Key) func() ([]byte, error) {
	return func() ([]byte, error) {
		b.n.Add(1)
		time.Sleep(b.delay)
		return binFor(k, b.size), nil
	}
}

// getOrBuild runs GetOrBuild and checks the binary.
func (m *machine) getOrBuild(t testing.TB, k cache.Key, b *builder) (fromCache bool) {
	t.Helper()
	e, from, err := m.c.GetOrBuild(context.Background(), k, info, b.build(k))
	if err != nil {
		t.Errorf("GetOrBuild(%s): %v", k.CompileOptions, err)
		return false
	}
	if !bytes.Equal(e.Binary, binFor(k, b.size)) {
		t.Errorf("GetOrBuild(%s): wrong binary (%d bytes)", k.CompileOptions, len(e.Binary))
	}
	return from
}

// localHas reports whether the machine's disk holds k, read by a cache
// without a remote tier once the machine's copies of remote hits are
// written.
func (m *machine) localHas(t testing.TB, k cache.Key) bool {
	t.Helper()
	m.c.Flush()
	off := "off"
	c, err := cache.Open(cache.Config{Dir: m.dir, RemoteURL: off, Logger: slog.New(slog.DiscardHandler), Getenv: noEnv})
	if err != nil {
		t.Fatal(err)
	}
	_, ok := c.Get(k)
	return ok
}
