// Command allreduce all-reduces an array across two processes, one device
// each, that find each other through a Redis server: the rank-0 process
// starts the other ranks itself by re-executing itself, or each rank is
// started by hand with -rank (on one machine or several).
//
//	go run ./examples/allreduce -redis redis://127.0.0.1:6379/0
//	allreduce -redis redis://cache:6379/0 -job run-42 -rank 0 -nranks 2   # on host A
//	allreduce -redis redis://cache:6379/0 -job run-42 -rank 1 -nranks 2   # on host B
//
// On CUDA devices with NCCL the all-reduce is NCCL's; elsewhere it is
// package collectives' ring over TCP. Each rank prints what it computed
// and how long the rendezvous (the id exchange and the connection of the
// ranks) took.
package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"

	_ "github.com/gour-dev/gour/adapters/all"
	"github.com/gour-dev/gour/collectives"
	"github.com/gour-dev/gour/collectives/redisrendezvous"
	"github.com/gour-dev/gour/dtype"
	"github.com/gour-dev/gour/ur"
)

// The environment of a rank the launcher started.
const (
	envRank   = "GOUR_ALLREDUCE_RANK"
	envNRanks = "GOUR_ALLREDUCE_NRANKS"
	envRedis  = "GOUR_ALLREDUCE_REDIS"
	envJob    = "GOUR_ALLREDUCE_JOB"
	envCount  = "GOUR_ALLREDUCE_COUNT"
)

type config struct {
	redis        string
	job          string
	rank, nranks int
	count        int
	timeout      time.Duration
}

func main() {
	log.SetFlags(0)
	if os.Getenv(envRank) != "" {
		if err := child(os.Stdout); err != nil {
			log.Fatal(err)
		}
		return
	}
	var c config
	flag.StringVar(&c.redis, "redis", envOr("GOUR_REDIS_URL", "redis://127.0.0.1:6379/0"), "the Redis server of the rendezvous")
	flag.StringVar(&c.job, "job", "", "the job's name, the same for every rank (default: a new one, for the ranks this process starts)")
	flag.IntVar(&c.rank, "rank", -1, "this process's rank; -1: rank 0, starting the other ranks itself")
	flag.IntVar(&c.nranks, "nranks", 2, "the number of ranks")
	flag.IntVar(&c.count, "count", 1<<20, "float32 elements to all-reduce")
	flag.DurationVar(&c.timeout, "timeout", 30*time.Second, "how long a rank waits for the others")
	flag.Parse()
	var err error
	if c.rank < 0 {
		err = launch(os.Stdout, c)
	} else {
		err = rank(os.Stdout, c)
	}
	if err != nil {
		log.Fatal(err)
	}
}

func envOr(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}

// launch runs rank 0 here and ranks 1.. as copies of this program.
func launch(w io.Writer, c config) error {
	if c.job == "" {
		b := make([]byte, 8)
		rand.Read(b)
		c.job = "allreduce-" + hex.EncodeToString(b)
	}
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	var wg sync.WaitGroup
	errs := make([]error, c.nranks)
	outs := make([]strings.Builder, c.nranks)
	for r := 1; r < c.nranks; r++ {
		cmd := exec.Command(exe)
		cmd.Env = append(os.Environ(), envRank+"="+strconv.Itoa(r), envNRanks+"="+strconv.Itoa(c.nranks),
			envRedis+"="+c.redis, envJob+"="+c.job, envCount+"="+strconv.Itoa(c.count))
		cmd.Stdout, cmd.Stderr = &outs[r], os.Stderr
		if err := cmd.Start(); err != nil {
			return fmt.Errorf("starting rank %d: %w", r, err)
		}
		wg.Go(func() {
			if err := cmd.Wait(); err != nil {
				errs[r] = fmt.Errorf("rank %d: %w", r, err)
			}
		})
	}
	c.rank = 0
	errs[0] = rank(&outs[0], c)
	wg.Wait()
	for r := range c.nranks {
		io.WriteString(w, outs[r].String())
	}
	return errors.Join(errs...)
}

// child is a rank the launcher started.
func child(w io.Writer) error {
	var c config
	var err1, err2, err3 error
	c.rank, err1 = strconv.Atoi(os.Getenv(envRank))
	c.nranks, err2 = strconv.Atoi(os.Getenv(envNRanks))
	c.count, err3 = strconv.Atoi(os.Getenv(envCount))
	if err := errors.Join(err1, err2, err3); err != nil {
		return fmt.Errorf("the launcher's environment: %w", err)
	}
	c.redis, c.job, c.timeout = os.Getenv(envRedis), os.Getenv(envJob), 30*time.Second
	return rank(w, c)
}

// device is rank's device: CUDA device rank where there are enough,
// else the default device.
func device(rank, nranks int) (*ur.Device, error) {
	devs, err := ur.Devices()
	if err != nil {
		return nil, err
	}
	var cuda []*ur.Device
	for _, d := range devs {
		if d.Backend() == "cuda" {
			cuda = append(cuda, d)
		}
	}
	if len(cuda) >= nranks {
		return cuda[rank], nil
	}
	return ur.DefaultDevice()
}

// rank is one rank: rendezvous, all-reduce, print.
func rank(w io.Writer, c config) error {
	dev, err := device(c.rank, c.nranks)
	if err != nil {
		return err
	}
	ctx, err := ur.NewContext(dev)
	if err != nil {
		return err
	}
	defer ctx.Release()
	q, err := ctx.NewQueue(dev, ur.QueueProperties{})
	if err != nil {
		return err
	}
	defer q.Release()

	// Each rank's input: x[i] = i + rank.
	x := make([]float32, c.count)
	for i := range x {
		x[i] = float32(i + c.rank)
	}
	buf, err := ctx.AllocDevice(dev, uint64(4*c.count))
	if err != nil {
		return err
	}
	defer buf.Free()
	if err := q.CopyToPtr(buf.Ptr(), ur.AsBytes(x)); err != nil {
		return err
	}

	rv, err := redisrendezvous.Open(c.redis, c.job, redisrendezvous.Options{})
	if err != nil {
		return err
	}
	defer rv.Close()
	wait, cancel := context.WithTimeout(context.Background(), c.timeout)
	defer cancel()
	start := time.Now()
	comm, err := collectives.Connect(wait, rv, c.rank, c.nranks, q) // rank 0 publishes the id, the others wait for it
	if err != nil {
		return err
	}
	defer comm.Close()
	connected := time.Since(start)
	// In place: every rank ends with the sum of every rank's buf.
	if err := comm.AllReduce(buf.Ptr(), buf.Ptr(), c.count, dtype.Float32, collectives.Sum); err != nil {
		return err
	}
	if err := q.CopyFromPtr(ur.AsBytes(x), buf.Ptr()); err != nil {
		return err
	}
	fmt.Fprintf(w, "rank %d of %d (%s on %s): rendezvous %.1f ms; sum[:4] = %v sum[%d] = %v\n",
		c.rank, c.nranks, comm.Backend(), dev.Name(), float64(connected.Microseconds())/1000, x[:4], c.count-1, x[c.count-1])
	return nil
}
