package main

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gour-dev/gour/cache"
	"github.com/gour-dev/gour/cmd/internal/cli"
	"github.com/gour-dev/gour/collectives"
	"github.com/gour-dev/gour/collectives/redisrendezvous"
	"github.com/gour-dev/gour/dtype"
	"github.com/gour-dev/gour/internal/redisserver"
	"github.com/gour-dev/gour/ur"
)

// The environment of a rank process of `urbench collectives`.
const (
	envCollRank  = "GOUR_URBENCH_COLL_RANK"
	envCollRedis = "GOUR_URBENCH_COLL_REDIS"
	envCollJob   = "GOUR_URBENCH_COLL_JOB"
)

type collFlags struct {
	backend             string
	bytes, small        int64
	iters, warmup, runs int
	procs               int
	redis, redisServer  string
}

// collectivesCommand is `urbench collectives`.
func collectivesCommand() (*cli.Command, func(io.Writer) error) {
	c := cli.New("urbench collectives", "[-device SELECTOR] [-backend auto|nccl|ring] [-procs 1|2] [-bytes N] [-small N] [-iters N] [-warmup N] [-runs N] [-redis URL | -redis-server PATH]", `
Time package collectives on the devices the selector lets through (every
CUDA device where there are at least two, else two sub-devices, or two
queues, of the first device), as nccl-tests and torch.distributed measure:
  - all-reduce of -bytes of float32, in place: the time per operation
    (-iters back to back after -warmup, then the queues finished), the
    algorithm bandwidth (bytes / time) and the bus bandwidth (algorithm
    bandwidth × 2(n-1)/n);
  - all-reduce of -small bytes of float32: the latency per operation;
  - with -procs 2 (the default), the ranks are two processes, one device
    each, that meet through a Redis server: the rendezvous (from rank 0
    making the id to the last rank holding it) and the join (NCCL's
    communicator set-up, or the ring's connections), each the median of
    -runs.
-procs 1 runs the ranks in this process (NewGroup, one Group per step).
-redis names a running server; without it, urbench starts its own
(-redis-server, default redis-server from PATH). The last line,
"RESULT ...", is for scripts (scripts/bench/collectives.sh).`)
	var f collFlags
	c.Flags.StringVar(&f.backend, "backend", "auto", "auto (NCCL on CUDA devices where it loads, else the ring), nccl or ring")
	bytes := c.Flags.String("bytes", "256M", "bytes of the bandwidth all-reduce (K, M, G: powers of 1024)")
	small := c.Flags.String("small", "1M", "bytes of the latency all-reduce")
	c.Flags.IntVar(&f.iters, "iters", 20, "timed operations per size and run")
	c.Flags.IntVar(&f.warmup, "warmup", 5, "untimed operations first")
	c.Flags.IntVar(&f.runs, "runs", 3, "runs (processes started anew with -procs 2)")
	c.Flags.IntVar(&f.procs, "procs", 2, "1: every rank in this process; 2: one process per rank, through Redis")
	c.Flags.StringVar(&f.redis, "redis", "", "a running Redis server's URL; empty: start one")
	c.Flags.StringVar(&f.redisServer, "redis-server", "", "the redis-server to start (default: from PATH)")
	c.DeviceFlag()
	return c, func(w io.Writer) error {
		var err error
		if f.bytes, err = cache.ParseSize(*bytes); err != nil || f.bytes < 4 {
			return cli.Usagef(c.Name, "-bytes %q: want a size such as 256M", *bytes)
		}
		if f.small, err = cache.ParseSize(*small); err != nil || f.small < 4 {
			return cli.Usagef(c.Name, "-small %q: want a size such as 1M", *small)
		}
		switch f.backend {
		case "auto", "nccl", "ring":
		default:
			return cli.Usagef(c.Name, "-backend %q: want auto, nccl or ring", f.backend)
		}
		if f.iters < 1 || f.warmup < 0 || f.runs < 1 || f.procs < 1 || f.procs > 2 {
			return cli.Usagef(c.Name, "-iters and -runs must be at least 1, -warmup at least 0, -procs 1 or 2")
		}
		if r := os.Getenv(envCollRank); r != "" {
			return collChild(w, c, f, r)
		}
		return collBench(w, c, f)
	}
}

// collDevices are the devices of the ranks: every CUDA device where
// there are at least two, else the first device twice (split in two where
// it splits). release frees sub-devices.
func collDevices(c *cli.Command) (devs []*ur.Device, what string, release func(), err error) {
	sys, sel, err := c.Discover()
	if err != nil {
		return nil, "", nil, err
	}
	var cuda []*ur.Device
	for _, d := range sys.Devices {
		if d.Backend() == "cuda" {
			cuda = append(cuda, d)
		}
	}
	if len(cuda) >= 2 {
		return cuda, fmt.Sprintf("%d × %s", len(cuda), cuda[0].Name()), func() {}, nil
	}
	if len(sys.Devices) == 0 {
		return nil, "", nil, cli.NoDevice(sys, sel, "")
	}
	d := sys.Devices[0]
	if units := d.Info().ComputeUnits; units >= 2 && d.PartitionInfo().MaxSubDevices >= 2 {
		if subs, err := d.Partition(ur.Partition{Kind: ur.PartitionEqually, Units: units / 2}); err == nil && len(subs) >= 2 {
			return subs[:2], "2 sub-devices of " + d.Name(), func() {
				for _, s := range subs {
					s.Release()
				}
			}, nil
		}
	}
	return []*ur.Device{d, d}, "2 queues of " + d.Name(), func() {}, nil
}

func collOptions(backend string) []collectives.Option {
	switch backend {
	case "nccl":
		return []collectives.Option{collectives.WithBackend(collectives.BackendNCCL)}
	case "ring":
		return []collectives.Option{collectives.WithBackend(collectives.BackendRing)}
	}
	return nil
}

// collRank is one rank's device state.
type collRank struct {
	ctx  *ur.Context
	q    *ur.Queue
	big  *ur.USM
	comm *collectives.Communicator
}

func (r *collRank) release() {
	if r.comm != nil {
		r.comm.Close()
	}
	if r.big != nil {
		r.big.Free()
	}
	if r.q != nil {
		r.q.Release()
	}
	if r.ctx != nil {
		r.ctx.Release()
	}
}

func newCollRank(d *ur.Device, bytes int64) (*collRank, error) {
	r := &collRank{}
	var err error
	if r.ctx, err = ur.NewContext(d); err != nil {
		return nil, err
	}
	if r.q, err = r.ctx.NewQueue(d, ur.QueueProperties{}); err != nil {
		r.release()
		return nil, err
	}
	if r.big, err = r.ctx.AllocDevice(d, uint64(bytes)); err != nil {
		r.release()
		return nil, err
	}
	if _, err := r.q.EnqueueMemFill(r.big.Ptr(), []byte{0, 0, 0, 0}, uint64(bytes/4*4)); err != nil {
		r.release()
		return nil, err
	}
	return r, r.q.Finish()
}

// timeAllReduce times the in-place all-reduces of every rank of ranks
// (one of each process's), issued together.
func timeAllReduce(ranks []*collRank, bytes int64, iters, warmup int) (time.Duration, error) {
	count := int(bytes / 4)
	step := func() error {
		if len(ranks) == 1 { // a rank per process: no group, as torch.distributed calls NCCL
			return ranks[0].comm.AllReduce(ranks[0].big.Ptr(), ranks[0].big.Ptr(), count, dtype.Float32, collectives.Sum)
		}
		return collectives.Group(func() error {
			for _, r := range ranks {
				if err := r.comm.AllReduce(r.big.Ptr(), r.big.Ptr(), count, dtype.Float32, collectives.Sum); err != nil {
					return err
				}
			}
			return nil
		})
	}
	finish := func() error {
		for _, r := range ranks {
			if err := r.q.Finish(); err != nil {
				return err
			}
		}
		return nil
	}
	for range warmup {
		if err := step(); err != nil {
			return 0, err
		}
	}
	if err := finish(); err != nil {
		return 0, err
	}
	start := time.Now()
	for range iters {
		if err := step(); err != nil {
			return 0, err
		}
	}
	if err := finish(); err != nil {
		return 0, err
	}
	return time.Since(start) / time.Duration(iters), nil
}

// checkAllReduce checks an out-of-place all-reduce of 1..n over the
// ranks: every rank's recv holds n(n+1)/2.
func checkAllReduce(ranks []*collRank, rankOf func(i int) int, n int) error {
	const count = 1024
	type bufs struct{ s, r *ur.USM }
	bs := make([]bufs, len(ranks))
	defer func() {
		for _, b := range bs {
			if b.s != nil {
				b.s.Free()
			}
			if b.r != nil {
				b.r.Free()
			}
		}
	}()
	for i, r := range ranks {
		var err error
		if bs[i].s, err = r.ctx.AllocDevice(r.q.Device(), 4*count); err != nil {
			return err
		}
		if bs[i].r, err = r.ctx.AllocDevice(r.q.Device(), 4*count); err != nil {
			return err
		}
		x := make([]float32, count)
		for j := range x {
			x[j] = float32(rankOf(i) + 1)
		}
		if err := r.q.CopyToPtr(bs[i].s.Ptr(), ur.AsBytes(x)); err != nil {
			return err
		}
	}
	if err := collectives.Group(func() error {
		for i, r := range ranks {
			if err := r.comm.AllReduce(bs[i].s.Ptr(), bs[i].r.Ptr(), count, dtype.Float32, collectives.Sum); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		return err
	}
	want := float32(n * (n + 1) / 2)
	for i, r := range ranks {
		y := make([]float32, count)
		if err := r.q.CopyFromPtr(ur.AsBytes(y), bs[i].r.Ptr()); err != nil {
			return err
		}
		for j, v := range y {
			if v != want {
				return fmt.Errorf("rank %d: all-reduce element %d = %v, want %v", rankOf(i), j, v, want)
			}
		}
	}
	return nil
}

func collBench(w io.Writer, c *cli.Command, f collFlags) error {
	devs, what, release, err := collDevices(c)
	if err != nil {
		return err
	}
	defer release()
	n := len(devs)
	if f.procs == 2 {
		n = 2
	}
	var big, small []time.Duration
	var rdv, join []time.Duration
	backend := ""
	if f.procs == 1 {
		ranks := make([]*collRank, len(devs))
		defer func() {
			for _, r := range ranks {
				if r != nil {
					r.release()
				}
			}
		}()
		queues := make([]*ur.Queue, len(devs))
		for i, d := range devs {
			if ranks[i], err = newCollRank(d, f.bytes); err != nil {
				return err
			}
			queues[i] = ranks[i].q
		}
		comms, err := collectives.NewGroup(queues, collOptions(f.backend)...)
		if err != nil {
			return err
		}
		for i := range ranks {
			ranks[i].comm = comms[i]
		}
		backend = comms[0].Backend()
		if err := checkAllReduce(ranks, func(i int) int { return i }, n); err != nil {
			return err
		}
		for range f.runs {
			b, err := timeAllReduce(ranks, f.bytes, f.iters, f.warmup)
			if err != nil {
				return err
			}
			s, err := timeAllReduce(ranks, f.small, f.iters, f.warmup)
			if err != nil {
				return err
			}
			big, small = append(big, b), append(small, s)
		}
	} else {
		redisURL := f.redis
		if redisURL == "" {
			srv, err := redisserver.Start(f.redisServer, "")
			if err != nil {
				return fmt.Errorf("starting redis-server (give -redis URL or -redis-server PATH): %w", err)
			}
			defer srv.Stop()
			redisURL = srv.URL("")
		}
		for range f.runs {
			res, err := collProcesses(c, redisURL)
			if err != nil {
				return err
			}
			backend = res.backend
			big, small = append(big, res.big), append(small, res.small)
			rdv, join = append(rdv, res.rendezvous), append(join, res.join)
		}
	}
	med := func(ds []time.Duration) time.Duration {
		xs := make([]float64, len(ds))
		for i, d := range ds {
			xs[i] = float64(d)
		}
		return time.Duration(median(xs))
	}
	mb, ms := med(big), med(small)
	alg := float64(f.bytes) / mb.Seconds() / 1e9
	bus := alg * 2 * float64(n-1) / float64(n)
	procs := "one process"
	if f.procs == 2 {
		procs = "a process each"
	}
	lib := ""
	if backend == "nccl" {
		if v, err := collectives.NCCLVersion(); err == nil {
			lib = fmt.Sprintf(" (NCCL %d.%d.%d)", v/10000, v/100%100, v%100)
		}
	}
	fmt.Fprintf(w, "collectives: %s backend%s, %d ranks (%s) on %s\n", backend, lib, n, procs, what)
	fmt.Fprintf(w, "  all-reduce %s float32: %.3f ms, algbw %.1f GB/s, busbw %.1f GB/s (median of %d runs of %d)\n",
		sizeText(f.bytes), float64(mb.Microseconds())/1000, alg, bus, f.runs, f.iters)
	fmt.Fprintf(w, "  all-reduce %s float32: %.1f µs per operation\n", sizeText(f.small), float64(ms.Nanoseconds())/1e3)
	result := fmt.Sprintf("RESULT backend=%s ranks=%d busbw_GBps=%.2f algbw_GBps=%.2f big_us=%.1f small_us=%.2f", backend, n, bus, alg,
		float64(mb.Nanoseconds())/1e3, float64(ms.Nanoseconds())/1e3)
	if f.procs == 2 {
		r, j := med(rdv), med(join)
		fmt.Fprintf(w, "  rendezvous through Redis: %.2f ms (rank 0 makes the id → every rank has it); join %.1f ms (median of %d)\n",
			float64(r.Microseconds())/1000, float64(j.Microseconds())/1000, f.runs)
		result += fmt.Sprintf(" rendezvous_ms=%.3f join_ms=%.1f", float64(r.Microseconds())/1000, float64(j.Microseconds())/1000)
	}
	fmt.Fprintln(w, result)
	return nil
}

func sizeText(b int64) string {
	switch {
	case b >= 1<<30 && b%(1<<30) == 0:
		return fmt.Sprintf("%d GiB", b>>30)
	case b >= 1<<20 && b%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", b>>20)
	case b >= 1<<10 && b%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", b>>10)
	}
	return fmt.Sprintf("%d B", b)
}

// collResult is a two-process run's measurements.
type collResult struct {
	backend                      string
	big, small, rendezvous, join time.Duration
}

// collProcesses runs one two-process run: this binary again, one rank
// each, reporting on stdout.
func collProcesses(c *cli.Command, redisURL string) (collResult, error) {
	b := make([]byte, 8)
	rand.Read(b)
	job := "urbench-" + hex.EncodeToString(b)
	lines := make([]map[string]string, 2)
	errs := make([]error, 2)
	var wg sync.WaitGroup
	for r := range 2 {
		cmd := exec.Command(os.Args[0], os.Args[1:]...)
		cmd.Env = append(os.Environ(), envCollRank+"="+strconv.Itoa(r), envCollRedis+"="+redisURL, envCollJob+"="+job)
		cmd.Stderr = os.Stderr
		out, err := cmd.StdoutPipe()
		if err != nil {
			return collResult{}, err
		}
		if err := cmd.Start(); err != nil {
			return collResult{}, err
		}
		wg.Go(func() {
			sc := bufio.NewScanner(out)
			for sc.Scan() {
				if rest, ok := strings.CutPrefix(sc.Text(), "RANK "); ok {
					kv := map[string]string{}
					for _, f := range strings.Fields(rest) {
						k, v, _ := strings.Cut(f, "=")
						kv[k] = v
					}
					lines[r] = kv
				}
			}
			if err := cmd.Wait(); err != nil {
				errs[r] = fmt.Errorf("rank %d: %w", r, err)
			} else if lines[r] == nil {
				errs[r] = fmt.Errorf("rank %d reported nothing", r)
			}
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return collResult{}, err
	}
	ns := func(r int, k string) int64 { v, _ := strconv.ParseInt(lines[r][k], 10, 64); return v }
	res := collResult{backend: lines[0]["backend"], big: time.Duration(ns(0, "big_ns")), small: time.Duration(ns(0, "small_ns"))}
	// The rendezvous: from rank 0's start of it to the last rank holding
	// the id, on this machine's clock.
	begin, end := ns(0, "rdv_begin"), max(ns(0, "rdv_end"), ns(1, "rdv_end"))
	res.rendezvous = time.Duration(end - begin)
	res.join = time.Duration(max(ns(0, "join_ns"), ns(1, "join_ns")))
	return res, nil
}

// collChild is one rank process of collProcesses.
func collChild(w io.Writer, c *cli.Command, f collFlags, rankText string) error {
	rank, err := strconv.Atoi(rankText)
	if err != nil || rank < 0 || rank > 1 {
		return fmt.Errorf("%s=%q", envCollRank, rankText)
	}
	devs, _, release, err := collDevices(c)
	if err != nil {
		return err
	}
	defer release()
	d := devs[0]
	if len(devs) >= 2 && devs[0] != devs[1] && devs[0].Backend() == "cuda" {
		d = devs[rank]
	}
	r, err := newCollRank(d, f.bytes)
	if err != nil {
		return err
	}
	defer r.release()
	rv, err := redisrendezvous.Open(os.Getenv(envCollRedis), os.Getenv(envCollJob), redisrendezvous.Options{TTL: 5 * time.Minute})
	if err != nil {
		return err
	}
	defer rv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	// Meet first (untimed), so that the rendezvous timed below is the
	// exchange, not one process's start-up waiting for the other's.
	if err := rv.Publish(ctx, "ready/"+rankText, []byte{1}); err != nil {
		return err
	}
	if _, err := rv.Wait(ctx, "ready/"+strconv.Itoa(1-rank)); err != nil {
		return err
	}
	opts := collOptions(f.backend)
	var id collectives.UniqueID
	begin := time.Now()
	if rank == 0 {
		if f.backend == "auto" && d.Backend() != "cuda" {
			opts = collOptions("ring")
		}
		if id, err = collectives.NewUniqueID(opts...); err != nil {
			return err
		}
		bin, _ := id.MarshalBinary()
		if err := rv.Publish(ctx, "id", bin); err != nil {
			return err
		}
	} else {
		bin, err := rv.Wait(ctx, "id")
		if err != nil {
			return err
		}
		if err := id.UnmarshalBinary(bin); err != nil {
			return err
		}
	}
	got := time.Now()
	r.comm, err = collectives.Join(ctx, id, rank, 2, r.q, collectives.WithRendezvous(rv))
	if err != nil {
		return err
	}
	joined := time.Since(got)
	if err := checkAllReduce([]*collRank{r}, func(int) int { return rank }, 2); err != nil {
		return err
	}
	big, err := timeAllReduce([]*collRank{r}, f.bytes, f.iters, f.warmup)
	if err != nil {
		return err
	}
	small, err := timeAllReduce([]*collRank{r}, f.small, f.iters, f.warmup)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "RANK backend=%s rdv_begin=%d rdv_end=%d join_ns=%d big_ns=%d small_ns=%d\n", r.comm.Backend(),
		begin.UnixNano(), got.UnixNano(), joined.Nanoseconds(), big.Nanoseconds(), small.Nanoseconds())
	return nil
}
