package collectives

import (
	"bytes"
	"context"
	"fmt"
	"sync"
)

// Rendezvous is a store through which the ranks of a communicator of
// several processes find each other before they can talk: rank 0 publishes
// the UniqueID, the ring's ranks their addresses. Keys are short names
// ("id", "ring/<id>/addr/3"); an implementation namespaces them for one
// job, so that two jobs sharing a store never meet, and lets them expire.
// collectives/redisrendezvous keeps them in Redis; LocalRendezvous in
// this process.
type Rendezvous interface {
	// Publish stores value under key. Publishing a key again with the
	// same value is no error; with another, it fails with ErrRendezvous
	// (a job's name reused while its keys live).
	Publish(ctx context.Context, key string, value []byte) error
	// Wait returns key's value once it is published, or fails when ctx
	// ends, with an error carrying ErrTimeout on its deadline.
	Wait(ctx context.Context, key string) ([]byte, error)
}

// LocalRendezvous is a Rendezvous in this process's memory: for ranks
// that are goroutines of one process (tests) or that a program wires
// itself.
type LocalRendezvous struct {
	mu   sync.Mutex
	vals map[string][]byte
	wait map[string]chan struct{}
}

// NewLocalRendezvous returns an empty in-process store.
func NewLocalRendezvous() *LocalRendezvous {
	return &LocalRendezvous{vals: map[string][]byte{}, wait: map[string]chan struct{}{}}
}

func (r *LocalRendezvous) ready(key string) chan struct{} {
	ch, ok := r.wait[key]
	if !ok {
		ch = make(chan struct{})
		r.wait[key] = ch
	}
	return ch
}

// Publish stores value under key.
func (r *LocalRendezvous) Publish(_ context.Context, key string, value []byte) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if old, ok := r.vals[key]; ok {
		if bytes.Equal(old, value) {
			return nil
		}
		return &Error{Op: "Rendezvous.Publish", Rank: -1, Kind: ErrRendezvous, Message: fmt.Sprintf("key %q was published with another value", key)}
	}
	r.vals[key] = bytes.Clone(value)
	close(r.ready(key))
	return nil
}

// Wait returns key's value once published.
func (r *LocalRendezvous) Wait(ctx context.Context, key string) ([]byte, error) {
	r.mu.Lock()
	ch := r.ready(key)
	r.mu.Unlock()
	select {
	case <-ch:
		r.mu.Lock()
		defer r.mu.Unlock()
		return bytes.Clone(r.vals[key]), nil
	case <-ctx.Done():
		return nil, WaitError("Rendezvous.Wait", key, ctx.Err())
	}
}

// WaitError is the error of a rendezvous wait for key that ctx ended
// (cause is ctx.Err()): it carries ErrTimeout on a deadline, ErrAborted on
// a cancellation. For implementations of Rendezvous.
func WaitError(op, key string, cause error) error {
	kind := ErrAborted
	if cause == context.DeadlineExceeded {
		kind = ErrTimeout
	}
	return &Error{Op: op, Rank: -1, Kind: kind, Message: fmt.Sprintf("key %q was not published", key), Err: cause}
}
