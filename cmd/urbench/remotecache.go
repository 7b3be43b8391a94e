package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/gour-dev/gour/cache"
	"github.com/gour-dev/gour/cache/rediscache"
	"github.com/gour-dev/gour/cache/signing"
	"github.com/gour-dev/gour/cmd/internal/cli"
	"github.com/gour-dev/gour/internal/redisserver"
	"github.com/gour-dev/gour/programmgr"
)

// The child process of remotecache: envRemoteChild says what it does.
const (
	envRemoteChild = "GOUR_URBENCH_REMOTE_CHILD" // "get", or "flight" (wait for the others first)
	envFlightDir   = "GOUR_URBENCH_FLIGHT_DIR"   // where flight children announce themselves
	envFlightN     = "GOUR_URBENCH_FLIGHT_N"     // how many there are
)

// remotecacheCommand is `urbench remotecache`.
func remotecacheCommand() (*cli.Command, func(io.Writer) error) {
	c := cli.New("urbench remotecache", "[-backend opencl|cuda] [-device SELECTOR] [-kernels N] [-down-kernels N] [-ops N] [-runs N] [-procs N] [-redis URL | -redis-server PATH]", `
Measure the persistent cache's remote tier (GOUR_CACHE_REMOTE, a Redis
server) with new processes, each one's first GetKernel of a generated module
of -kernels kernels (PTX on cuda, OpenCL C on opencl), the driver's own cache
off:
  (a) cold (no gour cache), a local-disk hit, and a remote hit with an empty
      local disk;
  (b) -procs processes in two groups, each group on its own local directory
      (two machines), missing one cold key at once: the builds, which must
      be 1;
  (c) an empty local disk with the server down (a closed port) against no
      remote tier: the slowdown, which must be at most 50 ms; its module
      has -down-kernels kernels, few, so that the JIT's own spread (some
      hundred ms from one process to the next with 200 kernels) does not
      hide what the tier costs.
-redis names a running server (redis://host:port/db); without it, the
benchmark starts its own (-redis-server, default redis-server from PATH) on
a free port. Each phase uses keys of its own prefix.`)
	backend := c.Flags.String("backend", "opencl", "opencl (generated OpenCL C) or cuda (a generated PTX module)")
	kernels := c.Flags.Int("kernels", 200, "kernels in the generated module")
	downKernels := c.Flags.Int("down-kernels", 1, "kernels in the module of phase (c), the server down")
	ops := c.Flags.Int("ops", 120, "arithmetic operations per kernel")
	runs := c.Flags.Int("runs", 5, "measured processes per setup")
	procs := c.Flags.Int("procs", 16, "processes of the single-flight phase")
	redisURL := c.Flags.String("redis", "", "a running Redis server's URL; empty: start one")
	redisBin := c.Flags.String("redis-server", "", "the redis-server to start (default: from PATH)")
	c.DeviceFlag()
	return c, func(w io.Writer) error {
		if err := checkBackend(c, *backend); err != nil {
			return err
		}
		if *kernels < 1 || *downKernels < 1 || *runs < 1 || *procs < 2 || *ops < 0 {
			return cli.Usagef(c.Name, "-kernels, -down-kernels and -runs must be at least 1, -procs at least 2")
		}
		if mode := os.Getenv(envRemoteChild); mode != "" {
			return remotecacheChild(w, c, mode, *backend, *kernels, *ops)
		}
		return remotecache(w, c, *backend, *kernels, *downKernels, *ops, *runs, *procs, *redisURL, *redisBin)
	}
}

// remoteModule is the benchmark's image and the kernel it gets.
func remoteModule(backend string, kernels, ops int) (*programmgr.Image, string, error) {
	name := fmt.Sprintf("kernel_%03d", kernels-1)
	if backend == "cuda" {
		img, err := programmgr.NewImage(programmgr.ImageDesc{Format: programmgr.FormatPTX, Bytes: []byte(generatePTX(kernels, ops))})
		return img, name, err
	}
	img, err := programmgr.NewImage(programmgr.ImageDesc{Format: programmgr.FormatOpenCLC, Bytes: []byte(generateC(openCLC, kernels, ops))})
	return img, name, err
}

// childResult is a child's line: "ns N builds B disk D remote R
// remote_ns T": D hits on the local disk, R on the remote tier, T the
// time spent in remote operations.
type childResult struct {
	ns, remoteNs         float64
	builds, disk, remote int64
	line                 string
}

func parseChild(line string) (childResult, error) {
	r := childResult{line: line}
	f := strings.Fields(line)
	if len(f) < 10 || f[0] != "ns" {
		return r, fmt.Errorf("bad child line %q", line)
	}
	var err error
	if r.ns, err = strconv.ParseFloat(f[1], 64); err != nil {
		return r, fmt.Errorf("bad child line %q", line)
	}
	r.builds, _ = strconv.ParseInt(f[3], 10, 64)
	r.disk, _ = strconv.ParseInt(f[5], 10, 64)
	r.remote, _ = strconv.ParseInt(f[7], 10, 64)
	r.remoteNs, _ = strconv.ParseFloat(f[9], 64)
	return r, nil
}

// onInterrupt runs cleanup and exits with status 130 on SIGINT or
// SIGTERM, until the function it returns is called.
func onInterrupt(cleanup func()) (stop func()) {
	sig := make(chan os.Signal, 1)
	done := make(chan struct{})
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	go func() {
		select {
		case <-sig:
			cleanup()
			os.Exit(130)
		case <-done:
		}
	}()
	return func() {
		signal.Stop(sig)
		close(done)
	}
}

// clearRemote removes the keys of the store u names.
func clearRemote(u string) error {
	s, err := rediscache.OpenURL(u)
	if err != nil {
		return err
	}
	defer s.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, err = s.Clear(ctx)
	return err
}

// remotecache runs the three phases.
func remotecache(w io.Writer, c *cli.Command, backend string, kernels, downKernels, ops, runs, procs int, redisURL, redisBin string) error {
	if _, err := firstDevice(c, backend); err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "urbench-remotecache-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	var ownServer *redisserver.Server
	if redisURL == "" {
		srv, err := redisserver.Start(redisBin, filepath.Join(tmp, "redis"))
		if err != nil {
			return fmt.Errorf("starting redis-server (give -redis URL or -redis-server PATH): %w", err)
		}
		defer srv.Stop()
		ownServer = srv
		redisURL = srv.URL("")
		fmt.Fprintf(w, "redis-server on %s (started by urbench)\n", srv.Addr())
	}
	// Ctrl-C or a SIGTERM still stops the server and removes tmp (the
	// children, in our process group, get the signal too).
	defer onInterrupt(func() {
		if ownServer != nil {
			ownServer.Stop()
		}
		os.RemoveAll(tmp)
	})()
	base, err := url.Parse(redisURL)
	if err != nil {
		return cli.Usagef(c.Name, "-redis %s: %v", cache.RedactURL(redisURL), err)
	}
	run := newRun()
	var phases []string
	// withPrefix is the server's URL with a key prefix of the run and
	// phase's own, in place of any the URL gives.
	withPrefix := func(phase string) string {
		u, q := *base, base.Query()
		q.Set("prefix", "urbench-"+run+"-"+phase+":")
		u.RawQuery = q.Encode()
		phases = append(phases, u.String())
		return u.String()
	}
	if ownServer == nil {
		// A server of the user's keeps nothing of the run.
		defer func() {
			for _, u := range phases {
				if err := clearRemote(u); err != nil {
					fmt.Fprintf(w, "removing the run's keys: %v\n", err)
				}
			}
		}()
	}
	// The children are one fleet: they sign what they store with one key,
	// and so trust it.
	keyFile := filepath.Join(tmp, "fleet.key")
	fleetKey, err := signing.Generate("urbench-" + run)
	if err != nil {
		return err
	}
	if err := signing.WriteKeyPair(keyFile, fleetKey); err != nil {
		return err
	}
	args := flagsSet(c)
	driverOff := driverCacheOff(backend)
	n := 0
	emptyDir := func() string {
		n++
		return filepath.Join(tmp, "local-"+strconv.Itoa(n))
	}
	env := func(dir, remote string) []string {
		// PoCL without its kernel cache still writes under POCL_CACHE_DIR
		// and removes what it wrote at exit: one directory per child.
		n++
		e := append(slices.Clone(driverOff), envRemoteChild+"=get", "GOUR_CACHE_REMOTE="+remote, cache.EnvSigningKey+"="+keyFile,
			"POCL_CACHE_DIR="+filepath.Join(tmp, "pocl-"+strconv.Itoa(n)))
		if dir == "" {
			return append(e, "SYCL_CACHE_PERSISTENT=0")
		}
		return append(e, "SYCL_CACHE_PERSISTENT=1", "SYCL_CACHE_DIR="+dir)
	}
	// child runs a child with args a, prints its line under label and
	// parses it.
	child := func(label string, a, e []string) (childResult, error) {
		line, err := runChild("remotecache", a, e)
		if err != nil {
			return childResult{}, fmt.Errorf("%s: %w", label, err)
		}
		fmt.Fprintf(w, "%-26s %s\n", label, line)
		return parseChild(line)
	}
	// Phase (c)'s module size: the last of a repeated flag wins.
	downArgs := append(slices.Clip(args), "-kernels="+strconv.Itoa(downKernels))

	// (a) cold, local disk, remote with an empty local disk.
	warmDir := emptyDir()
	remoteA := withPrefix("a")
	if _, err := child("warm-up: local disk", args, env(warmDir, "off")); err != nil {
		return err
	}
	if _, err := child("warm-up: remote tier", args, env(emptyDir(), remoteA)); err != nil {
		return err
	}
	var cold, local, remote []float64
	for range runs {
		r, err := child("cold JIT", args, env("", "off"))
		if err != nil {
			return err
		}
		cold = append(cold, r.ns)
		if r, err = child("local disk hit", args, env(warmDir, "off")); err != nil {
			return err
		}
		if r.disk != 1 || r.builds != 0 {
			return fmt.Errorf("local disk hit: %q: not served by the disk", r.line)
		}
		local = append(local, r.ns)
		if r, err = child("remote hit, empty disk", args, env(emptyDir(), remoteA)); err != nil {
			return err
		}
		if r.remote != 1 || r.builds != 0 {
			return fmt.Errorf("remote hit: %q: not served by the remote tier", r.line)
		}
		remote = append(remote, r.ns)
	}

	verify, check, size, err := signatureCost(remoteA)
	if err != nil {
		return err
	}

	// (b) procs processes, two local directories, one cold key.
	flight := filepath.Join(tmp, "flight")
	if err := os.MkdirAll(flight, 0o700); err != nil {
		return err
	}
	dirs := []string{emptyDir(), emptyDir()}
	remoteB := withPrefix("b")
	results := make([]childResult, procs)
	errs := make([]error, procs)
	var wg sync.WaitGroup
	for i := range procs {
		e := env(dirs[i%2], remoteB)
		e = append(e, envRemoteChild+"=flight", envFlightDir+"="+flight, envFlightN+"="+strconv.Itoa(procs))
		wg.Go(func() {
			line, err := runChild("remotecache", args, e)
			if err == nil {
				results[i], err = parseChild(line)
			}
			errs[i] = err
		})
	}
	wg.Wait()
	var builds, fromDisk, fromRemote int64
	var flightNs []float64
	for i := range procs {
		if errs[i] != nil {
			return fmt.Errorf("single flight, process %d: %w", i, errs[i])
		}
		fmt.Fprintf(w, "%-26s %s\n", fmt.Sprintf("single flight, dir %d", i%2), results[i].line)
		builds += results[i].builds
		fromDisk += results[i].disk
		fromRemote += results[i].remote
		flightNs = append(flightNs, results[i].ns)
	}
	slices.Sort(flightNs)
	if served := builds + fromDisk + fromRemote; served != int64(procs) {
		return fmt.Errorf("single flight: %d builds, %d local and %d remote hits for %d processes", builds, fromDisk, fromRemote, procs)
	}

	// (c) server down against no remote tier, both with an empty local disk.
	port, err := redisserver.FreePort()
	if err != nil {
		return err
	}
	down := "redis://127.0.0.1:" + strconv.Itoa(port) + "/0"
	var none, downNs, downRemote []float64
	for range runs {
		r, err := child("empty disk, no remote", downArgs, env(emptyDir(), "off"))
		if err != nil {
			return err
		}
		none = append(none, r.ns)
		if r, err = child("empty disk, server down", downArgs, env(emptyDir(), down)); err != nil {
			return err
		}
		downNs = append(downNs, r.ns)
		downRemote = append(downRemote, r.remoteNs)
	}

	mc, ml, mr := median(cold), median(local), median(remote)
	fmt.Fprintf(w, "\n(a) first GetKernel of a new process (%s, %d kernels), median of %d (ms): cold JIT %.3f, local disk hit %.3f, remote hit with an empty local disk %.3f\n",
		backend, kernels, runs, mc/1e6, ml/1e6, mr/1e6)
	fmt.Fprintf(w, "    remote hit vs cold JIT: %.0fx faster (want >= 300x); remote hit vs local disk hit: %.2fx (want <= 2x)\n", mc/mr, mr/ml)
	fmt.Fprintf(w, "    signed entries: checking an entry of %d bytes takes %.3f ms, %.3f ms of it the signature (median of %d, in-process)\n",
		size, (check+verify)/1e6, verify/1e6, signatureRounds)
	fmt.Fprintf(w, "(b) %d processes, 2 local directories, one cold key: %d build(s) (want 1); %d served from the local disk, %d from the remote tier; first GetKernel %.1f to %.1f ms\n",
		procs, builds, fromDisk, fromRemote, flightNs[0]/1e6, flightNs[len(flightNs)-1]/1e6)
	mn, md := median(none), median(downNs)
	fmt.Fprintf(w, "(c) empty local disk, %d kernel(s), median of %d (ms): no remote tier %.3f, server down (closed port) %.3f: %+.3f ms (want <= 50);\n"+
		"    time in the remote tier with the server down (the slowdown, without the build's noise): median %.3f ms, max %.3f ms\n",
		downKernels, runs, mn/1e6, md/1e6, (md-mn)/1e6, median(downRemote)/1e6, slices.Max(downRemote)/1e6)
	if builds != 1 {
		return fmt.Errorf("single flight: %d builds, want 1", builds)
	}
	return nil
}

const signatureRounds = 50

// signatureCost reads the one entry of the store at u and times
// cache.VerifyRemote on it, and on it without its signature: verify is
// what the signature adds to check, in nanoseconds (medians).
func signatureCost(u string) (verify, check float64, size int, err error) {
	s, err := rediscache.OpenURL(u)
	if err != nil {
		return 0, 0, 0, err
	}
	defer s.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var name string
	if err := s.Scan(ctx, func(it rediscache.Item) error { name = it.Name; return nil }); err != nil || name == "" {
		return 0, 0, 0, fmt.Errorf("signature cost: no entry in the store (%v)", err)
	}
	v, err := s.Value(ctx, name)
	if err != nil {
		return 0, 0, 0, err
	}
	if signer, err := cache.VerifyRemote(name, v); err != nil || signer == nil {
		return 0, 0, 0, fmt.Errorf("signature cost: the entry is not signed and valid: %v", err)
	}
	signed, unsigned := make([]float64, signatureRounds), make([]float64, signatureRounds)
	for i := range signatureRounds {
		t := time.Now()
		_, err1 := cache.VerifyRemote(name, v)
		signed[i] = float64(time.Since(t))
		t = time.Now()
		_, err2 := cache.VerifyRemote(name, v[cache.RemoteSignatureSize:])
		unsigned[i] = float64(time.Since(t))
		if err1 != nil || err2 != nil {
			return 0, 0, 0, fmt.Errorf("signature cost: %v, %v", err1, err2)
		}
	}
	return median(signed) - median(unsigned), median(unsigned), len(v), nil
}

func newRun() string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// remotecacheChild times one GetKernel through a program manager set up
// by the environment; in flight mode it first waits until every flight
// child has started.
func remotecacheChild(w io.Writer, c *cli.Command, mode, backend string, kernels, ops int) error {
	dev, ctx, err := firstContext(c, backend)
	if err != nil {
		return err
	}
	defer ctx.Release()
	// The cache the manager would open from the environment, opened here
	// to read its remote tier's counters.
	disk, err := cache.Open(cache.Config{})
	if err != nil {
		return err
	}
	defer disk.Close()
	m, err := programmgr.New(ctx, programmgr.Options{DiskCache: disk})
	if err != nil {
		return err
	}
	defer m.Close()
	img, name, err := remoteModule(backend, kernels, ops)
	if err != nil {
		return err
	}
	if mode == "flight" {
		dir := os.Getenv(envFlightDir)
		n, _ := strconv.Atoi(os.Getenv(envFlightN))
		if err := os.WriteFile(filepath.Join(dir, "arrived-"+strconv.Itoa(os.Getpid())), nil, 0o600); err != nil {
			return err
		}
		for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(time.Millisecond) {
			if m, _ := filepath.Glob(filepath.Join(dir, "arrived-*")); len(m) >= n {
				break
			}
			if time.Now().After(deadline) {
				return fmt.Errorf("the other flight processes did not start")
			}
		}
	}
	elapsed, err := timeGetKernel(m, img, name, dev)
	if err != nil {
		return err
	}
	s := m.Stats()
	// The manager counts a remote hit as a disk hit too.
	fmt.Fprintf(w, "ns %d builds %d disk %d remote %d remote_ns %d\n", elapsed.Nanoseconds(), s.Builds, s.DiskHits-s.RemoteHits, s.RemoteHits,
		disk.RemoteCounters().Time.Nanoseconds())
	return nil
}
