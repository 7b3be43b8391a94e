package redisrendezvous

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/gour-dev/gour/collectives"
	"github.com/gour-dev/gour/internal/redisopt"
)

// Defaults.
const (
	DefaultPrefix = "gour:collectives:"
	DefaultTTL    = 10 * time.Minute
	DefaultPoll   = 4 * time.Millisecond
)

// Options tune a Rendezvous; zero fields take the defaults.
type Options struct {
	Prefix string        // key prefix, DefaultPrefix
	TTL    time.Duration // keys' time to live, DefaultTTL
	Poll   time.Duration // the longest pause between two GETs of Wait, DefaultPoll
}

// Rendezvous is one job's keys in a Redis server.
type Rendezvous struct {
	c    *redis.Client
	ns   string
	ttl  time.Duration
	poll time.Duration
	own  bool
}

var _ collectives.Rendezvous = (*Rendezvous)(nil)

// Open connects to the server at url (redis://[:password@]host:port/db,
// or rediss:// for TLS) for job.
func Open(url, job string, o Options) (*Rendezvous, error) {
	opt, err := redis.ParseURL(url)
	if err != nil {
		return nil, &collectives.Error{Op: "redisrendezvous.Open", Rank: -1, Kind: collectives.ErrInvalidArgument, Err: err}
	}
	r, err := New(redis.NewClient(redisopt.Strict(opt)), job, o)
	if err != nil {
		return nil, err
	}
	r.own = true
	return r, nil
}

// New uses a client of the caller's for job; Close leaves it open.
func New(c *redis.Client, job string, o Options) (*Rendezvous, error) {
	if c == nil {
		return nil, &collectives.Error{Op: "redisrendezvous.New", Rank: -1, Kind: collectives.ErrInvalidArgument, Message: "nil client"}
	}
	if job == "" || strings.ContainsAny(job, "*?[]\\") {
		return nil, &collectives.Error{Op: "redisrendezvous.New", Rank: -1, Kind: collectives.ErrInvalidArgument,
			Message: fmt.Sprintf("job name %q: want a non-empty name without glob characters", job)}
	}
	if o.Prefix == "" {
		o.Prefix = DefaultPrefix
	}
	if o.TTL <= 0 {
		o.TTL = DefaultTTL
	}
	if o.Poll <= 0 {
		o.Poll = DefaultPoll
	}
	return &Rendezvous{c: c, ns: o.Prefix + job + "/", ttl: o.TTL, poll: o.Poll}, nil
}

// Key is the Redis key of a rendezvous key.
func (r *Rendezvous) Key(key string) string { return r.ns + key }

// Publish stores value under key, for the keys' time to live. The same
// value again is no error; another is collectives.ErrRendezvous.
func (r *Rendezvous) Publish(ctx context.Context, key string, value []byte) error {
	const op = "redisrendezvous.Publish"
	ok, err := r.c.SetNX(ctx, r.ns+key, value, r.ttl).Result()
	if err != nil {
		return r.storeError(ctx, op, key, err)
	}
	if ok {
		return nil
	}
	old, err := r.c.Get(ctx, r.ns+key).Bytes()
	if err != nil && !errors.Is(err, redis.Nil) {
		return r.storeError(ctx, op, key, err)
	}
	if bytes.Equal(old, value) {
		return nil
	}
	return &collectives.Error{Op: op, Rank: -1, Kind: collectives.ErrRendezvous,
		Message: fmt.Sprintf("key %q holds another value: the job's name was used by another run whose keys live on (Clear them, or name each run)", r.ns+key)}
}

// Wait returns key's value once published, or fails when ctx ends.
func (r *Rendezvous) Wait(ctx context.Context, key string) ([]byte, error) {
	const op = "redisrendezvous.Wait"
	pause := 250 * time.Microsecond
	var timer *time.Timer
	for {
		v, err := r.c.Get(ctx, r.ns+key).Bytes()
		if err == nil {
			if timer != nil {
				timer.Stop()
			}
			return v, nil
		}
		if cause := ended(ctx); cause != nil {
			return nil, collectives.WaitError(op, r.ns+key, cause)
		}
		if !errors.Is(err, redis.Nil) {
			return nil, r.storeError(ctx, op, key, err)
		}
		if timer == nil {
			timer = time.NewTimer(pause)
			defer timer.Stop()
		} else {
			timer.Reset(pause)
		}
		select {
		case <-timer.C:
		case <-ctx.Done():
			return nil, collectives.WaitError(op, r.ns+key, ctx.Err())
		}
		pause = min(2*pause, r.poll)
	}
}

// Clear removes the job's keys.
func (r *Rendezvous) Clear(ctx context.Context) error {
	iter := r.c.Scan(ctx, 0, r.ns+"*", 100).Iterator()
	var keys []string
	for iter.Next(ctx) {
		keys = append(keys, iter.Val())
	}
	if err := iter.Err(); err != nil {
		return r.storeError(ctx, "redisrendezvous.Clear", "*", err)
	}
	if len(keys) > 0 {
		if err := r.c.Unlink(ctx, keys...).Err(); err != nil {
			return r.storeError(ctx, "redisrendezvous.Clear", "*", err)
		}
	}
	return nil
}

// Close closes the client if Open made it.
func (r *Rendezvous) Close() error {
	if r.own {
		return r.c.Close()
	}
	return nil
}

// ended is ctx.Err(), or context.DeadlineExceeded once ctx's deadline
// has passed: the client sets the socket's deadline from ctx's, and the
// socket's can fire a moment before the context's own timer does, so a
// read that timed out at the deadline is the deadline, not a store error.
func ended(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if d, ok := ctx.Deadline(); ok && !time.Now().Before(d) {
		return context.DeadlineExceeded
	}
	return nil
}

func (r *Rendezvous) storeError(ctx context.Context, op, key string, err error) error {
	kind := collectives.ErrRendezvous
	if errors.Is(err, context.DeadlineExceeded) || ended(ctx) == context.DeadlineExceeded {
		kind = collectives.ErrTimeout
	}
	return &collectives.Error{Op: op, Rank: -1, Kind: kind, Message: fmt.Sprintf("key %q", r.ns+key), Err: err}
}
