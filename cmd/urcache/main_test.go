package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gour-dev/gour/cache"
)

var (
	devA = cache.DeviceKey{Backend: "opencl", Platform: "PoCL", Name: "cpu-a", Version: "OpenCL 3.0", Driver: "6.0"}
	devB = cache.DeviceKey{Backend: "opencl", Platform: "PoCL", Name: "cpu-a", Version: "OpenCL 3.0", Driver: "5.0"} // an old driver
	devC = cache.DeviceKey{Backend: "cuda", Platform: "CUDA", Name: "H100", Version: "CUDA 9.0", Driver: "12.4"}
)

func noDevices() ([]cache.DeviceKey, []string, error) { return nil, nil, nil }

func present() ([]cache.DeviceKey, []string, error) {
	return []cache.DeviceKey{devA}, []string{"opencl"}, nil
}

// fill makes a cache with one entry per device (and two for devA).
func fill(t *testing.T) (string, *cache.Cache) {
	t.Helper()
	dir := t.TempDir()
	c, err := cache.Open(cache.Config{Dir: dir, Getenv: func(string) string { return "" }})
	if err != nil || !c.Enabled() {
		t.Fatal(err, c.Err())
	}
	for i, d := range []cache.DeviceKey{devA, devA, devB, devC} {
		k := cache.Key{Device: d, Images: [][32]byte{sha256.Sum256([]byte{byte(i)})}, CompileOptions: "-O" + string(rune('0'+i))}
		info := cache.Info{Format: "native", Kernels: []string{"axpy", "k" + string(rune('0'+i))}, ImageSize: 100}
		if err := c.Put(k, bytes.Repeat([]byte{byte(i)}, 1000*(i+1)), info); err != nil {
			t.Fatal(err)
		}
	}
	return dir, c
}

func urcache(t *testing.T, p presentFunc, args ...string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	status := run(args, &out, &errb, p)
	return out.String(), errb.String(), status
}

func TestLs(t *testing.T) {
	dir, _ := fill(t)
	out, errs, st := urcache(t, noDevices, "--dir", dir, "ls")
	if st != 0 || errs != "" {
		t.Fatalf("status %d: %s", st, errs)
	}
	for _, want := range []string{"LAST USE", "opencl: cpu-a [6.0]", "cuda: H100 [12.4]", "axpy,k3", "KiB"} {
		if !strings.Contains(out, want) {
			t.Errorf("ls lacks %q:\n%s", want, out)
		}
	}
	if n := strings.Count(out, "\n"); n != 5 {
		t.Errorf("%d lines:\n%s", n, out)
	}
	for _, args := range [][]string{{"--dir", dir, "ls", "--json"}, {"--json", "ls", "--dir", dir}} {
		out, _, st = urcache(t, noDevices, args...)
		var entries []jsonEntry
		if err := json.Unmarshal([]byte(out), &entries); err != nil || st != 0 {
			t.Fatalf("%v: %v\n%s", args, err, out)
		}
		if len(entries) != 4 || entries[0].Device.Name == "" || len(entries[0].Images) != 1 || entries[0].LastUse.IsZero() || entries[0].Size == 0 {
			t.Errorf("%+v", entries)
		}
	}
}

func TestStat(t *testing.T) {
	dir, _ := fill(t)
	out, _, st := urcache(t, noDevices, "stat", "--dir", dir, "--json")
	var s struct {
		Entries, Devices int
		Bytes            int64
		TrackedBytes     int64 `json:"tracked_bytes"`
	}
	if err := json.Unmarshal([]byte(out), &s); err != nil || st != 0 {
		t.Fatal(err, out)
	}
	if s.Entries != 4 || s.Devices != 3 || s.Bytes == 0 || s.Bytes != s.TrackedBytes {
		t.Errorf("%+v", s)
	}
	out, _, _ = urcache(t, noDevices, "stat", "--dir", dir)
	if !strings.Contains(out, "entries:") || !strings.Contains(out, "no limit") {
		t.Errorf("stat:\n%s", out)
	}
}

func TestVerify(t *testing.T) {
	dir, _ := fill(t)
	if out, _, st := urcache(t, noDevices, "--dir", dir, "verify"); st != 0 || !strings.Contains(out, "4 entries, 4 good, 0 problems") {
		t.Fatalf("%d %s", st, out)
	}
	bins, _ := filepath.Glob(filepath.Join(dir, "v1", "*", "*", "*", "*", "0.bin"))
	if len(bins) == 0 {
		t.Fatal("no .bin")
	}
	os.Truncate(bins[0], 100)
	out, _, st := urcache(t, noDevices, "--dir", dir, "verify")
	if st != 1 || !strings.Contains(out, "BAD ") {
		t.Fatalf("%d %s", st, out)
	}
	out, _, st = urcache(t, noDevices, "--dir", dir, "verify", "--repair", "--json")
	var v struct {
		Entries, Good int
		Problems      []struct{ Removed bool }
	}
	if err := json.Unmarshal([]byte(out), &v); err != nil || st != 0 || len(v.Problems) != 1 || !v.Problems[0].Removed || v.Good != 3 {
		t.Fatalf("%d %v %s", st, err, out)
	}
	if out, _, st := urcache(t, noDevices, "--dir", dir, "verify"); st != 0 || !strings.Contains(out, "3 entries, 3 good") {
		t.Fatalf("after repair: %d %s", st, out)
	}
}

func TestPrune(t *testing.T) {
	t.Run("stale", func(t *testing.T) {
		dir, _ := fill(t)
		out, _, st := urcache(t, present, "--dir", dir, "prune", "--stale", "--json")
		var r struct{ Removed, Entries int }
		if err := json.Unmarshal([]byte(out), &r); err != nil || st != 0 || r.Removed != 1 || r.Entries != 3 {
			t.Fatalf("%d %v %s", st, err, out)
		}
		// devB (an old driver) went; devC's adapter did not load: kept.
		out, _, _ = urcache(t, present, "--dir", dir, "ls")
		if strings.Contains(out, "[5.0]") || !strings.Contains(out, "H100") || strings.Count(out, "cpu-a [6.0]") != 2 {
			t.Errorf("after prune --stale:\n%s", out)
		}
	})
	t.Run("max-size", func(t *testing.T) {
		dir, _ := fill(t)
		out, _, st := urcache(t, noDevices, "--dir", dir, "prune", "--max-size", "8K")
		if st != 0 || !strings.Contains(out, "removed 2 entries") {
			t.Fatalf("%d %s", st, out)
		}
	})
	t.Run("older-than", func(t *testing.T) {
		dir, _ := fill(t)
		// Age one entry: without a use stamp, the .src's time is its last use.
		srcs, _ := filepath.Glob(filepath.Join(dir, "v1", "*", "*", "*", "*", "0.src"))
		old := time.Now().Add(-10 * 24 * time.Hour)
		os.Remove(strings.TrimSuffix(srcs[0], ".src") + ".use")
		os.Chtimes(srcs[0], old, old)
		out, _, st := urcache(t, noDevices, "--dir", dir, "prune", "--older-than", "7d")
		if st != 0 || !strings.Contains(out, "removed 1 entries") {
			t.Fatalf("%d %s", st, out)
		}
		out, _, _ = urcache(t, noDevices, "--dir", dir, "prune", "--older-than", "36h")
		if !strings.Contains(out, "removed 0 entries") {
			t.Fatalf("%s", out)
		}
	})
	t.Run("sweep", func(t *testing.T) {
		dir, _ := fill(t)
		leaves, _ := filepath.Glob(filepath.Join(dir, "v1", "*", "*", "*", "*"))
		os.WriteFile(filepath.Join(leaves[0], ".tmp-0.bin-x"), []byte("crash"), 0o600)
		out, _, st := urcache(t, noDevices, "--dir", dir, "prune")
		if st != 0 || !strings.Contains(out, "removed 0 entries, swept 1 files") {
			t.Fatalf("%d %s", st, out)
		}
	})
}

func TestClear(t *testing.T) {
	dir, _ := fill(t)
	out, _, st := urcache(t, noDevices, "--dir", dir, "clear")
	if st != 0 || !strings.Contains(out, "removed 4 entries") {
		t.Fatalf("%d %s", st, out)
	}
	out, _, _ = urcache(t, noDevices, "--dir", dir, "ls", "--json")
	if strings.TrimSpace(out) != "[]" {
		t.Errorf("after clear: %s", out)
	}
}

func TestNoCache(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "none")
	for _, cmd := range []string{"ls", "stat", "verify", "prune", "clear"} {
		_, errs, st := urcache(t, noDevices, "--dir", dir, cmd)
		if st != 0 || !strings.Contains(errs, "no cache at") {
			t.Errorf("%s: %d %s", cmd, st, errs)
		}
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Error("urcache created the cache directory")
	}
}

// -h, --help and help print the usage to stdout and exit 0, before or
// after the command.
func TestHelp(t *testing.T) {
	for _, args := range [][]string{{"-h"}, {"--help"}, {"-help"}, {"help"}, {"ls", "-h"}, {"--dir", "/nonexistent", "prune", "--help"}, {"verify", "--repair", "-h"}} {
		out, errs, st := urcache(t, noDevices, args...)
		if st != exitOK || !strings.HasPrefix(out, "usage: urcache") || !strings.Contains(out, "exit status") || errs != "" {
			t.Errorf("%q: status %d, stdout %q, stderr %q", args, st, out, errs)
		}
	}
}

// Misuse exits 2 with a message and the usage on stderr, nothing on stdout.
func TestErrors(t *testing.T) {
	dir, _ := fill(t)
	for _, args := range [][]string{
		{}, {"bogus"}, {"--dir", dir, "prune", "--max-size", "lots"}, {"--dir", dir, "prune", "--older-than", "-1h"},
		{"--dir", dir, "ls", "extra"}, {"--dir", dir, "ls", "--repair"}, {"--bogus"}, {"ls", "--json=maybe"},
	} {
		out, errs, st := urcache(t, noDevices, args...)
		if st != exitUsage || out != "" || !strings.Contains(errs, "urcache") {
			t.Errorf("%q: status %d (want %d), stdout %q, stderr %q", args, st, exitUsage, out, errs)
		}
	}
	if _, errs, _ := urcache(t, noDevices, "--dir", dir, "prune", "--max-size", "lots"); !strings.Contains(errs, "K, M, G or T") {
		t.Errorf("--max-size error: %s", errs)
	}
	os.Chmod(dir, 0o777) // writable by others: refused
	if _, errs, st := urcache(t, noDevices, "--dir", dir, "ls"); st != exitError || !strings.Contains(errs, "writable") {
		t.Errorf("world-writable root: %d %s", st, errs)
	}
}

// --max-size reads sizes with cache.ParseSize, as SYCL_CACHE_MAX_SIZE
// does: what urcache always accepted still parses the same.
func TestParse(t *testing.T) {
	for in, want := range map[string]int64{"123": 123, "1K": 1024, "2MiB": 2 << 20, "1.5G": 3 << 29, "1 GB": 1 << 30, "4t": 4 << 40} {
		if got, err := cache.ParseSize(in); err != nil || got != want {
			t.Errorf("ParseSize(%q) = %d, %v", in, got, err)
		}
	}
	for _, in := range []string{"", "K", "1X", "-1", "1e3"} {
		if _, err := cache.ParseSize(in); err == nil {
			t.Errorf("ParseSize(%q) accepted", in)
		}
	}
	for in, want := range map[string]time.Duration{"7d": 7 * 24 * time.Hour, "36h": 36 * time.Hour, "0.5d": 12 * time.Hour} {
		if got, err := parseAge(in); err != nil || got != want {
			t.Errorf("parseAge(%q) = %v, %v", in, got, err)
		}
	}
}

// Entries that differ only in their options are told apart, in both
// listings: the compile and link options, not the key's encoding.
func TestLsOptions(t *testing.T) {
	dir := t.TempDir()
	c, err := cache.Open(cache.Config{Dir: dir, Getenv: func(string) string { return "" }})
	if err != nil || !c.Enabled() {
		t.Fatal(err, c.Err())
	}
	img := [][32]byte{sha256.Sum256([]byte("image"))}
	info := cache.Info{Format: "native", Kernels: []string{"axpy"}, ImageSize: 10}
	for _, o := range [][2]string{{"", ""}, {"-cl-fast-relaxed-math", ""}, {"-cl-fast-relaxed-math", "-cl-denorms-are-zero"}} {
		k := cache.Key{Device: devA, Images: img, CompileOptions: o[0], LinkOptions: o[1]}
		if err := c.Put(k, []byte("binary"), info); err != nil {
			t.Fatal(err)
		}
	}
	out, _, st := urcache(t, noDevices, "--dir", dir, "ls")
	if st != 0 || !strings.Contains(out, "OPTIONS") {
		t.Fatalf("%d:\n%s", st, out)
	}
	for _, want := range []string{" -\n", " -cl-fast-relaxed-math\n", " -cl-fast-relaxed-math [link: -cl-denorms-are-zero]\n"} {
		if strings.Count(out, want) != 1 {
			t.Errorf("ls shows %q %d times, want once:\n%s", want, strings.Count(out, want), out)
		}
	}
	out, _, _ = urcache(t, noDevices, "--dir", dir, "--json", "ls")
	if strings.Contains(out, `\u0000`) || strings.Contains(out, `"options"`) {
		t.Errorf("JSON shows the key's encoding:\n%s", out)
	}
	var entries []jsonEntry
	if err := json.Unmarshal([]byte(out), &entries); err != nil {
		t.Fatal(err)
	}
	got := map[[2]string]bool{}
	for _, e := range entries {
		got[[2]string{e.CompileOptions, e.LinkOptions}] = true
	}
	if len(got) != 3 || !got[[2]string{"-cl-fast-relaxed-math", "-cl-denorms-are-zero"}] || !got[[2]string{"", ""}] {
		t.Errorf("JSON options: %v", got)
	}
	if !strings.Contains(out, `"compile_options": "-cl-fast-relaxed-math"`) || !strings.Contains(out, `"link_options": "-cl-denorms-are-zero"`) {
		t.Errorf("JSON field names:\n%s", out)
	}
}

// readOnly makes dir read-only for this process: a read-only bind mount
// of it on itself as root (whom permissions do not stop), its write
// permission taken away otherwise; it skips when neither is possible.
func readOnly(t *testing.T, dir string) {
	t.Helper()
	if os.Geteuid() != 0 {
		if err := os.Chmod(dir, 0o500); err != nil {
			t.Skip(err)
		}
		t.Cleanup(func() { os.Chmod(dir, 0o700) })
		return
	}
	if out, err := exec.Command("mount", "--bind", dir, dir).CombinedOutput(); err != nil {
		t.Skipf("bind mount: %v %s", err, out)
	}
	t.Cleanup(func() { exec.Command("umount", "-l", dir).Run() })
	if out, err := exec.Command("mount", "-o", "remount,ro,bind", dir).CombinedOutput(); err != nil {
		t.Skipf("read-only remount: %v %s", err, out)
	}
}

// On a read-only cache (a pre-warmed cache shipped read-only) ls, stat and
// verify work; prune, clear and verify --repair fail with a clear error.
func TestReadOnlyCache(t *testing.T) {
	dir, _ := fill(t)
	readOnly(t, dir)
	out, errs, st := urcache(t, noDevices, "--dir", dir, "ls")
	if st != exitOK || errs != "" || strings.Count(out, "\n") != 5 {
		t.Errorf("ls: %d %s\n%s", st, errs, out)
	}
	out, _, st = urcache(t, noDevices, "--dir", dir, "stat")
	if st != exitOK || !strings.Contains(out, "read-only:") || !strings.Contains(out, "entries:       4") {
		t.Errorf("stat: %d\n%s", st, out)
	}
	out, _, st = urcache(t, noDevices, "--dir", dir, "stat", "--json")
	if st != exitOK || !strings.Contains(out, `"read_only": true`) {
		t.Errorf("stat --json: %d\n%s", st, out)
	}
	if out, _, st := urcache(t, noDevices, "--dir", dir, "verify"); st != exitOK || !strings.Contains(out, "4 entries, 4 good, 0 problems") {
		t.Errorf("verify: %d %s", st, out)
	}
	for _, args := range [][]string{{"prune"}, {"prune", "--max-size", "1K"}, {"clear"}, {"verify", "--repair"}} {
		out, errs, st := urcache(t, noDevices, append([]string{"--dir", dir}, args...)...)
		if st != exitError || out != "" || !strings.Contains(errs, "read-only") {
			t.Errorf("%q: status %d (want %d), stdout %q, stderr %q", args, st, exitError, out, errs)
		}
	}
}

// The real discovery runs (it finds PoCL where it is installed).
func TestDiscover(t *testing.T) {
	devs, loaded, err := discover()
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("loaded %v, devices %+v", loaded, devs)
}
