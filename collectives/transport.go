package collectives

import (
	"context"
	"crypto/subtle"
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"sync"
	"time"

	"github.com/gour-dev/gour/ur"
)

// transport moves the ring's messages between ranks, in order between
// each pair. Sends never wait for the receiver (messages queue at the
// receiving end), so a ring step's send-then-receive cannot deadlock.
type transport interface {
	send(to int, msg []byte) error
	recv(from int) ([]byte, error)
	// close aborts the transport: waits under way and to come fail with
	// reason, here and at the peers.
	close(reason error)
}

// waitTimeout is the error of a wait for a peer that the timeout ended.
type waitTimeout struct{ d time.Duration }

func (e waitTimeout) Error() string {
	return fmt.Sprintf("no message within %v", e.d)
}
func (e waitTimeout) Timeout() bool { return true }

// mailbox queues the messages from one rank to another.
type mailbox struct {
	mu    sync.Mutex
	q     [][]byte
	err   error // the sender is gone: after the queued messages, this
	ready chan struct{}
}

func newMailbox() *mailbox { return &mailbox{ready: make(chan struct{}, 1)} }

func (m *mailbox) signal() {
	select {
	case m.ready <- struct{}{}:
	default:
	}
}

func (m *mailbox) put(b []byte) {
	m.mu.Lock()
	m.q = append(m.q, b)
	m.mu.Unlock()
	m.signal()
}

func (m *mailbox) fail(err error) {
	m.mu.Lock()
	if m.err == nil {
		m.err = err
	}
	m.mu.Unlock()
	m.signal()
}

// get takes the next message, waiting at most timeout, or until abort is
// closed (then it returns reason()).
func (m *mailbox) get(timeout time.Duration, abort <-chan struct{}, reason func() error) ([]byte, error) {
	var timer *time.Timer
	for {
		m.mu.Lock()
		if len(m.q) > 0 {
			b := m.q[0]
			m.q[0] = nil
			m.q = m.q[1:]
			m.mu.Unlock()
			if timer != nil {
				timer.Stop()
			}
			return b, nil
		}
		err := m.err
		m.mu.Unlock()
		if err != nil {
			return nil, err
		}
		if timer == nil {
			timer = time.NewTimer(timeout)
			defer timer.Stop()
		}
		select {
		case <-m.ready:
		case <-abort:
			return nil, reason()
		case <-timer.C:
			return nil, waitTimeout{timeout}
		}
	}
}

// aborter is the abort signal of a transport and its reason.
type aborter struct {
	once   sync.Once
	ch     chan struct{}
	reason error
}

func newAborter() aborter { return aborter{ch: make(chan struct{})} }

func (a *aborter) abort(reason error) bool {
	done := false
	a.once.Do(func() {
		a.reason = reason
		close(a.ch)
		done = true
	})
	return done
}

func (a *aborter) err() error {
	select {
	case <-a.ch:
		return a.reason
	default:
		return nil
	}
}

// localNet connects the ranks of one process through memory.
type localNet struct {
	boxes   [][]*mailbox // [from][to]
	timeout time.Duration
	ab      aborter
}

func newLocalNet(n int, timeout time.Duration) *localNet {
	ln := &localNet{boxes: make([][]*mailbox, n), timeout: timeout, ab: newAborter()}
	for i := range ln.boxes {
		ln.boxes[i] = make([]*mailbox, n)
		for j := range ln.boxes[i] {
			ln.boxes[i][j] = newMailbox()
		}
	}
	return ln
}

// localEnd is one rank's end of a localNet.
type localEnd struct {
	net  *localNet
	rank int
}

func (e *localEnd) send(to int, msg []byte) error {
	if err := e.net.ab.err(); err != nil {
		return err
	}
	e.net.boxes[e.rank][to].put(msg)
	return nil
}

func (e *localEnd) recv(from int) ([]byte, error) {
	if err := e.net.ab.err(); err != nil {
		return nil, err
	}
	return e.net.boxes[from][e.rank].get(e.net.timeout, e.net.ab.ch, e.net.ab.err)
}

func (e *localEnd) close(reason error) { e.net.ab.abort(reason) }

// tcpNet connects one rank to every other over TCP: one connection per
// pair, the higher rank dialing the lower, each read by a goroutine of
// its own into a mailbox.
type tcpNet struct {
	rank    int
	conns   []net.Conn
	wmu     []sync.Mutex
	boxes   []*mailbox
	timeout time.Duration
	ab      aborter
	ln      net.Listener
	readers sync.WaitGroup
}

func (t *tcpNet) send(to int, msg []byte) error {
	if err := t.ab.err(); err != nil {
		return err
	}
	var n [8]byte
	binary.LittleEndian.PutUint64(n[:], uint64(len(msg)))
	t.wmu[to].Lock()
	defer t.wmu[to].Unlock()
	c := t.conns[to]
	c.SetWriteDeadline(time.Now().Add(t.timeout))
	bufs := net.Buffers{n[:], msg}
	if _, err := bufs.WriteTo(c); err != nil {
		if aerr := t.ab.err(); aerr != nil {
			return aerr
		}
		return err
	}
	return nil
}

func (t *tcpNet) recv(from int) ([]byte, error) {
	if err := t.ab.err(); err != nil {
		return nil, err
	}
	return t.boxes[from].get(t.timeout, t.ab.ch, t.ab.err)
}

func (t *tcpNet) close(reason error) {
	if !t.ab.abort(reason) {
		return
	}
	if t.ln != nil {
		t.ln.Close()
	}
	for _, c := range t.conns {
		if c != nil {
			c.Close()
		}
	}
	t.readers.Wait()
}

// read runs for each peer: it queues the peer's messages until the
// connection ends.
func (t *tcpNet) read(from int, c net.Conn) {
	defer t.readers.Done()
	var n [8]byte
	for {
		if _, err := io.ReadFull(c, n[:]); err != nil {
			t.boxes[from].fail(peerGone(from, err))
			return
		}
		size := binary.LittleEndian.Uint64(n[:])
		if size > 1<<40 {
			t.boxes[from].fail(fmt.Errorf("rank %d sent a frame of %d bytes", from, size))
			return
		}
		msg := make([]byte, size)
		if _, err := io.ReadFull(c, msg); err != nil {
			t.boxes[from].fail(peerGone(from, err))
			return
		}
		t.boxes[from].put(msg)
	}
}

func peerGone(rank int, err error) error {
	return fmt.Errorf("the connection to rank %d ended (it closed, aborted or died): %w", rank, err)
}

// hello is what a dialing rank says first: the id's name and its rank.
const helloSize = 16 + 4

// joinRing connects this rank to every other through the rendezvous:
// it listens, publishes its address, dials the lower ranks and accepts
// the higher ones, all before ctx ends.
func joinRing(ctx context.Context, id UniqueID, rank, nranks int, q *ur.Queue, o options) (*Communicator, error) {
	const op = "Join"
	fail := func(kind error, err error, format string, args ...any) error {
		return &Error{Op: op, Rank: rank, Backend: "ring", Kind: kind, Message: fmt.Sprintf(format, args...), Err: err}
	}
	t := &tcpNet{rank: rank, conns: make([]net.Conn, nranks), wmu: make([]sync.Mutex, nranks), boxes: make([]*mailbox, nranks),
		timeout: o.timeout, ab: newAborter()}
	for i := range t.boxes {
		t.boxes[i] = newMailbox()
	}
	ln, err := (&net.ListenConfig{}).Listen(ctx, "tcp", o.listen)
	if err != nil {
		return nil, fail(ErrInvalidArgument, err, "listening on %s", o.listen)
	}
	t.ln = ln
	key := func(r int) string { return "ring/" + id.ringName() + "/addr/" + strconv.Itoa(r) }
	if err := o.rendezvous.Publish(ctx, key(rank), []byte(advertised(ln.Addr().(*net.TCPAddr)))); err != nil {
		ln.Close()
		return nil, rendezvousError(op, rank, "publishing this rank's address", err)
	}

	// Accept the higher ranks until all came or the wait is over.
	var mu sync.Mutex
	var pending net.Conn
	accepted := make(chan error, 1)
	go func() {
		want := nranks - 1 - rank
		for want > 0 {
			c, err := ln.Accept()
			if err != nil {
				accepted <- err
				return
			}
			mu.Lock()
			pending = c // abandon closes it
			mu.Unlock()
			c.SetReadDeadline(time.Now().Add(10 * time.Second))
			var h [helloSize]byte
			_, err = io.ReadFull(c, h[:])
			mu.Lock()
			pending = nil
			mu.Unlock()
			if err != nil || subtle.ConstantTimeCompare(h[:16], id.b[:16]) != 1 {
				c.Close() // a stranger, or another job's rank
				continue
			}
			c.SetReadDeadline(time.Time{})
			r := int(binary.LittleEndian.Uint32(h[16:]))
			mu.Lock()
			if r <= rank || r >= nranks || t.conns[r] != nil {
				mu.Unlock()
				c.Close()
				continue
			}
			t.conns[r] = c
			mu.Unlock()
			want--
		}
		accepted <- nil
	}()
	abandon := func(err error) error {
		ln.Close()
		mu.Lock()
		if pending != nil {
			pending.Close()
		}
		mu.Unlock()
		<-accepted // the acceptor has returned
		mu.Lock()
		for _, c := range t.conns {
			if c != nil {
				c.Close()
			}
		}
		mu.Unlock()
		return err
	}
	timeoutErr := func(what string) error {
		mu.Lock()
		var missing []int
		for r := range nranks {
			if r != rank && t.conns[r] == nil {
				missing = append(missing, r)
			}
		}
		mu.Unlock()
		return fail(ErrTimeout, ctx.Err(), "%s: ranks %v of %d never joined", what, missing, nranks)
	}
	var d net.Dialer
	for r := range rank {
		addr, err := o.rendezvous.Wait(ctx, key(r))
		if err != nil {
			if ctx.Err() != nil {
				return nil, abandon(timeoutErr(fmt.Sprintf("waiting for rank %d's address", r)))
			}
			return nil, abandon(rendezvousError(op, rank, fmt.Sprintf("waiting for rank %d's address", r), err))
		}
		c, err := d.DialContext(ctx, "tcp", string(addr))
		if err != nil {
			if ctx.Err() != nil {
				return nil, abandon(timeoutErr(fmt.Sprintf("dialing rank %d", r)))
			}
			return nil, abandon(fail(ErrAborted, err, "dialing rank %d at %s", r, addr))
		}
		var h [helloSize]byte
		copy(h[:16], id.b[:16])
		binary.LittleEndian.PutUint32(h[16:], uint32(rank))
		c.SetWriteDeadline(time.Now().Add(10 * time.Second))
		if _, err := c.Write(h[:]); err != nil {
			c.Close()
			return nil, abandon(fail(ErrAborted, err, "greeting rank %d", r))
		}
		c.SetWriteDeadline(time.Time{})
		mu.Lock()
		t.conns[r] = c
		mu.Unlock()
	}
	select {
	case err := <-accepted:
		if err != nil {
			accepted <- err // for abandon
			return nil, abandon(fail(ErrAborted, err, "accepting the higher ranks"))
		}
	case <-ctx.Done():
		err := timeoutErr("waiting for the higher ranks")
		return nil, abandon(err)
	}
	ln.Close()
	t.ln = nil
	for r, c := range t.conns {
		if c != nil {
			t.readers.Add(1)
			go t.read(r, c)
		}
	}
	return &Communicator{rank: rank, size: nranks, q: q, b: &ringBackend{rank: rank, n: nranks, t: t}}, nil
}

// advertised is the address peers dial: the listener's, or the host's
// name with its port where it listens on every interface.
func advertised(a *net.TCPAddr) string {
	if a.IP.IsUnspecified() {
		if h, err := os.Hostname(); err == nil {
			return net.JoinHostPort(h, strconv.Itoa(a.Port))
		}
	}
	return a.String()
}
