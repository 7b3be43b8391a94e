package ur

import (
	"context"
	"errors"
	"math/bits"
	"slices"
	"sync"

	"github.com/gour-dev/gour/trace"
	"github.com/gour-dev/gour/ur/driver"
)

// PoolOptions configures a memory pool.
type PoolOptions struct {
	// ReleaseThreshold is how many idle bytes the pool keeps for reuse
	// instead of returning them to the driver; 0 returns idle memory as
	// soon as the pool sees its last use complete. ^uint64(0) keeps all.
	ReleaseThreshold uint64
	// MaxSize bounds the bytes the pool reserves from the driver, on
	// drivers whose pools take a bound (CUDA); 0 for none.
	MaxSize uint64
	// ContextAlloc takes new blocks from Context.Alloc (cuMemAlloc on
	// CUDA) instead of the driver's stream-ordered pool, as CuPy's
	// MemoryPool does. A process's first allocation from a CUDA
	// stream-ordered pool costs far more than cuMemAlloc's first
	// (docs/benchmarks.md, "The compute runtime on the H100", "The first
	// Transform"), which a short-lived process pays on its first
	// allocation. Blocks are cached and reused as before; giving one back
	// to the driver waits for its free to complete, and MaxSize does not
	// apply.
	ContextAlloc bool
}

// Pool is a per-device pool of device memory that queues allocate from
// and free to in stream order (Queue.AllocAsync, Queue.FreeAsync), as
// CUDA's stream-ordered allocator, CuPy's MemoryPool and the Unified
// Runtime's urEnqueueUSMDeviceAllocExp do: neither allocating nor
// freeing synchronizes the device.
//
// gour caches blocks itself, by size class (powers of two from 512
// bytes, multiples of 2 MiB above 64 MiB). A freed block goes back to its
// class, remembering the queue that freed it, and is handed out again at
// once on that queue, whose commands run in order, without a driver call;
// another queue gets it once a marker enqueued on the freeing queue (made
// when another queue first wants its blocks) has completed. New blocks
// come from the driver's stream-ordered pool where the adapter has one
// (CUDA: cuMemAllocFromPoolAsync, and cuMemFreeAsync when a block goes
// back), else, or with PoolOptions.ContextAlloc, from Context.Alloc.
// When the driver runs out of memory the pool returns every idle block
// and tries once more before giving
// ErrOutOfDeviceMemory. A queue with idle blocks in a pool stays alive,
// after its Release, until the pool gives them back (Trim, Release).
type Pool struct {
	object
	ctx *Context
	dev *Device
	drv driver.Pool // the driver's pool that new blocks come from; nil: Context.Alloc

	mu        sync.Mutex
	idle      map[uint64][]idleBlock // by class size
	reserved  uint64                 // bytes held from the driver
	used      uint64                 // bytes handed out
	threshold uint64
}

// idleBlock is a freed block waiting for reuse. It holds its queue
// entered.
type idleBlock struct {
	addr uintptr
	q    *Queue      // the queue that freed it
	done *poolMarker // a marker on q after the free; nil until another queue wants the block
}

// poolMarker is a marker event shared by the idle blocks it covers,
// released with the last of them. The pool's lock guards refs.
type poolMarker struct {
	ev   driver.Event
	refs int
}

// NewPool creates a memory pool for dev.
func (c *Context) NewPool(dev *Device, opts PoolOptions) (rh *Pool, rerr error) {
	const op = "Context.NewPool"
	if t := trace.Active(); t != nil {
		tc := beginCall(t, op, c)
		defer endNewOf(&tc, &rh, &rerr)
	}

	if err := c.enter(op); err != nil {
		return nil, err
	}
	defer c.life.leave()
	if dev == nil {
		return nil, nilHandle("Device", op)
	}
	if !c.hasDevice(dev) {
		return nil, newError(ErrInvalidDevice, op, c.adapter.name, "device %q is not in the context", dev.Name())
	}
	if _, err := c.usmContext(op); err != nil {
		return nil, err
	}
	if err := c.checkAlloc(op, USMDevice, dev, 1, 0); err != nil {
		return nil, err
	}
	p := &Pool{object: object{adapter: c.adapter}, ctx: c, dev: dev, threshold: opts.ReleaseThreshold, idle: make(map[uint64][]idleBlock)}
	if pc, ok := c.drv.(driver.PoolContext); ok && !opts.ContextAlloc {
		drv, err := pc.NewPool(dev.drv, driver.PoolProperties{ReleaseThreshold: opts.ReleaseThreshold, MaxSize: opts.MaxSize})
		if err != nil {
			return nil, c.wrap(err, op)
		}
		p.drv = drv
	}
	p.created("Pool")
	devicePools.add(p)
	p.life.free = func() error {
		devicePools.remove(p)
		err := p.releaseIdle(0)
		if p.drv != nil {
			err = errors.Join(err, p.drv.Release())
		}
		return err
	}
	return p, nil
}

func (p *Pool) enter(op string) error {
	if p == nil {
		return nilHandle("Pool", op)
	}
	return p.object.enter("Pool", ErrInvalidValue, op)
}

// Release releases the pool once every allocation from it has been freed.
func (p *Pool) Release() error {
	if p == nil {
		return nilHandle("Pool", "Pool.Release")
	}
	return p.release("Pool", ErrInvalidValue)
}

// Device is the pool's device.
func (p *Pool) Device() *Device {
	if p == nil {
		return nil
	}
	return p.dev
}

// Native returns the driver's pool (a CUmemoryPool); 0 where gour pools
// itself.
func (p *Pool) Native() uintptr {
	if p.enter("Pool.Native") != nil {
		return 0
	}
	defer p.life.leave()
	if p.drv == nil {
		return 0
	}
	return p.drv.Native()
}

// SetReleaseThreshold sets PoolOptions.ReleaseThreshold.
func (p *Pool) SetReleaseThreshold(bytes uint64) (rerr error) {
	const op = "Pool.SetReleaseThreshold"
	if t := trace.Active(); t != nil {
		tc := beginCall(t, op, p)
		defer tc.end(&rerr)
	}

	if err := p.enter(op); err != nil {
		return err
	}
	defer p.life.leave()
	if p.drv != nil {
		if err := p.drv.SetReleaseThreshold(bytes); err != nil {
			return wrapError(err, op, p.adapter.name)
		}
	}
	p.mu.Lock()
	p.threshold = bytes
	p.mu.Unlock()
	return wrapError(p.releaseOverThreshold(), op, p.adapter.name)
}

// Trim returns idle memory to the driver until at most keep bytes stay
// reserved beyond those in use.
func (p *Pool) Trim(keep uint64) (rerr error) {
	const op = "Pool.Trim"
	if t := trace.Active(); t != nil {
		tc := beginCall(t, op, p)
		defer tc.end(&rerr)
	}

	if err := p.enter(op); err != nil {
		return err
	}
	defer p.life.leave()
	return wrapError(p.releaseIdle(keep), op, p.adapter.name)
}

// Usage reports the bytes the pool holds from the driver and the bytes
// of them handed out, both in whole size classes.
func (p *Pool) Usage() (reserved, used uint64, err error) {
	const op = "Pool.Usage"
	if t := trace.Active(); t != nil {
		tc := beginCall(t, op, p)
		defer tc.end(&err)
	}

	if err := p.enter(op); err != nil {
		return 0, 0, err
	}
	defer p.life.leave()
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.reserved, p.used, nil
}

// poolClass is the size the pool allocates for a request of size bytes.
func poolClass(size uint64) uint64 {
	const small, large = 512, 64 << 20
	switch {
	case size <= small:
		return small
	case size <= large:
		return 1 << bits.Len64(size-1)
	}
	const step = 2 << 20
	return (size + step - 1) / step * step
}

// AllocAsync allocates size bytes of device memory from pool, in the
// queue's order: commands enqueued on the queue after it may use the
// memory (on another queue, order them after an event of this one).
// Free the memory with FreeAsync or USM.Free, which free it on a queue in
// turn; neither synchronizes the device.
func (q *Queue) AllocAsync(pool *Pool, size uint64) (*USM, error) {
	if t := trace.Active(); t != nil {
		return q.allocAsyncTraced(t, pool, size)
	}
	return q.allocAsync(pool, size)
}

func (q *Queue) allocAsync(pool *Pool, size uint64) (*USM, error) {
	const op = "Queue.AllocAsync"
	if err := q.enter(op); err != nil {
		return nil, err
	}
	defer q.life.leave()
	if err := pool.enter(op); err != nil {
		return nil, err
	}
	defer pool.life.leave()
	if pool.ctx != q.ctx || pool.dev != q.device {
		return nil, newError(ErrInvalidValue, op, q.adapter.name, "the pool is for %s, the queue's device is %s", pool.dev.Name(), q.device.Name())
	}
	if size == 0 {
		return nil, newError(ErrInvalidUSMSize, op, q.adapter.name, "allocation size is 0")
	}
	if max := q.device.info.MaxMemAllocSize; max != 0 && size > max {
		return nil, newError(ErrInvalidUSMSize, op, q.adapter.name,
			"allocation of %d bytes exceeds the largest allocation of %s (%d bytes)", size, q.device.Name(), max)
	}
	addr, err := pool.alloc(q, poolClass(size))
	if err != nil {
		return nil, q.ctx.wrap(err, op)
	}
	u := q.ctx.newUSM(USMDevice, q.device, addr, size, true)
	q.life.enter() // held by the allocation until it is freed on a queue
	pool.life.enter()
	u.pool, u.queue = pool, q
	return u, nil
}

// devicePools are the live pools of each device, so that a pool out of
// memory can have the others give their idle blocks back before it gives
// up: their caches hold the same device's memory, and on a driver whose
// contexts share one (NVIDIA's OpenCL, one cl_context per GPU) the same
// address space, so one pool's cache can starve another's allocation.
var devicePools = poolRegistry{byDevice: map[*Device]map[*Pool]struct{}{}}

type poolRegistry struct {
	mu       sync.Mutex
	byDevice map[*Device]map[*Pool]struct{}
}

func (r *poolRegistry) add(p *Pool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.byDevice[p.dev] == nil {
		r.byDevice[p.dev] = map[*Pool]struct{}{}
	}
	r.byDevice[p.dev][p] = struct{}{}
}

func (r *poolRegistry) remove(p *Pool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.byDevice[p.dev], p)
	if len(r.byDevice[p.dev]) == 0 {
		delete(r.byDevice, p.dev)
	}
}

// releaseOthers has every other live pool of p's device give its idle
// blocks back, and reports whether any was asked. A pool being released
// meanwhile is skipped: entering it keeps it alive while it gives back.
func (r *poolRegistry) releaseOthers(p *Pool) bool {
	r.mu.Lock()
	var others []*Pool
	for o := range r.byDevice[p.dev] {
		if o != p && o.life.enter() {
			others = append(others, o)
		}
	}
	r.mu.Unlock()
	for _, o := range others {
		o.releaseIdle(0) // what it cannot give back now stays its own
		o.life.leave()
	}
	return len(others) > 0
}

func isOutOfMemory(err error) bool {
	r := ResultOf(err)
	return r == ErrOutOfDeviceMemory || r == ErrOutOfResources
}

// alloc hands q a block of class bytes: an idle one q may use now, else
// a new one from the driver, else, when the driver is out of memory, one
// after giving every idle block back.
func (p *Pool) alloc(q *Queue, class uint64) (uintptr, error) {
	if addr, ok := p.reuse(q, class); ok {
		return addr, nil
	}
	addr, err := p.fromDriver(q, class)
	if err != nil && isOutOfMemory(err) {
		// As CuPy does: give the cached blocks back and try once more.
		if terr := p.releaseIdle(0); terr == nil {
			addr, err = p.fromDriver(q, class)
		}
	}
	if err != nil && isOutOfMemory(err) && devicePools.releaseOthers(p) {
		addr, err = p.fromDriver(q, class)
	}
	if err != nil {
		return 0, err
	}
	p.mu.Lock()
	p.reserved += class
	p.used += class
	p.mu.Unlock()
	return addr, nil
}

// reuse takes an idle block of the class that q may use now: one q freed,
// or one whose free's marker has completed. It asks, once, for markers on
// the queues whose blocks no other queue has wanted yet.
func (p *Pool) reuse(q *Queue, class uint64) (uintptr, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	blocks := p.idle[class]
	var unmarked []*Queue
	for i := len(blocks) - 1; i >= 0; i-- {
		b := blocks[i]
		switch {
		case b.q == q || b.q == nil || b.done != nil && eventDone(b.done):
			p.idle[class] = append(blocks[:i], blocks[i+1:]...)
			p.used += class
			p.dropBlock(b)
			return b.addr, true
		case b.done == nil && b.q != nil && !slices.Contains(unmarked, b.q):
			unmarked = append(unmarked, b.q)
		}
	}
	for _, fq := range unmarked {
		p.markLocked(fq)
	}
	return 0, false
}

// markLocked enqueues a marker on fq and gives it to fq's idle blocks
// that have none: they are safe for other queues once it completes. A
// queue without markers is finished instead, which makes them safe now.
func (p *Pool) markLocked(fq *Queue) {
	var done driver.Event
	if mq, ok := fq.drv.(driver.MarkerQueue); ok {
		ev, err := mq.Marker(nil, false)
		if err != nil {
			return // the blocks stay for fq alone
		}
		done = ev
	} else if fq.drv.Finish() != nil {
		return
	}
	var m *poolMarker
	if done != nil {
		m = &poolMarker{ev: done}
	}
	for class, blocks := range p.idle {
		for i := range blocks {
			if b := &blocks[i]; b.q == fq && b.done == nil {
				if m == nil {
					b.q = nil // fq finished: any queue may take the block
					fq.life.leave()
					continue
				}
				b.done = m
				m.refs++
			}
		}
		p.idle[class] = blocks
	}
	if m != nil && m.refs == 0 {
		m.ev.Release()
	}
}

// dropBlock ends an idle block's hold on its queue and marker; the
// caller holds the pool's lock.
func (p *Pool) dropBlock(b idleBlock) {
	if m := b.done; m != nil {
		if m.refs--; m.refs == 0 {
			m.ev.Release()
		}
	}
	if b.q != nil {
		b.q.life.leave()
	}
}

// fromDriver allocates a new block on q.
func (p *Pool) fromDriver(q *Queue, class uint64) (uintptr, error) {
	if p.drv != nil {
		if pq, ok := q.drv.(driver.PoolQueue); ok {
			addr, _, err := pq.AllocAsync(p.drv, class, nil, false)
			return addr, err
		}
	}
	return q.ctx.drv.(driver.USMContext).USMAlloc(USMDevice, p.dev.drv, class, 0)
}

// eventDone reports whether a marker has completed.
func eventDone(m *poolMarker) bool {
	st, err := m.ev.Status()
	return err == nil && st == driver.EventComplete
}

// FreeAsync frees memory allocated with AllocAsync, in this queue's
// order: commands enqueued before it on the queue still see the memory.
// It may be another queue than the allocating one, of the same device.
func (q *Queue) FreeAsync(u *USM) error {
	if t := trace.Active(); t != nil {
		return q.freeAsyncTraced(t, u)
	}
	return q.freeAsync(u)
}

func (q *Queue) freeAsync(u *USM) error {
	const op = "Queue.FreeAsync"
	if err := q.enter(op); err != nil {
		return err
	}
	defer q.life.leave()
	if err := u.enter(op); err != nil {
		return err
	}
	if u.queue == nil {
		u.life.leave()
		return newError(ErrInvalidValue, op, q.adapter.name, "the allocation at %#x was not allocated on a queue: free it with USM.Free", u.addr)
	}
	if u.ctx != q.ctx || u.dev != q.device {
		u.life.leave()
		return newError(ErrInvalidQueue, op, q.adapter.name, "the allocation at %#x is on %s, the queue on %s", u.addr, u.dev.Name(), q.device.Name())
	}
	if u.queue != q {
		q.life.enter()
		u.queue.life.leave()
		u.queue = q
	}
	u.life.leave()
	return u.Free()
}

// freeToPool is the free of an allocation made on a queue: its block goes
// back to its pool as freed by q, which it keeps entered until the block
// is reused or given back. It makes no driver call.
func (q *Queue) freeToPool(u *USM) error {
	p := u.pool
	defer p.life.leave()
	class := poolClass(u.size)
	p.mu.Lock()
	p.used -= class
	p.idle[class] = append(p.idle[class], idleBlock{addr: u.addr, q: q}) // q's hold passes to the block
	over := p.reserved-p.used > p.threshold
	p.mu.Unlock()
	if over || p.life.released() {
		return p.releaseOverThreshold()
	}
	return nil
}

// releaseOverThreshold gives idle blocks back while the pool holds more
// idle bytes than its threshold (none once the pool is released): the
// driver's pool takes them at once, in their queues' order; Context.Alloc
// memory only once its marker has completed.
func (p *Pool) releaseOverThreshold() error {
	p.mu.Lock()
	keep := p.threshold
	if p.life.released() {
		keep = 0
	}
	p.mu.Unlock()
	return p.releaseBlocks(keep, false)
}

// releaseIdle gives idle blocks back until at most keep idle bytes stay,
// waiting for the frees where the memory is Context.Alloc's, then trims
// the driver's pool.
func (p *Pool) releaseIdle(keep uint64) error {
	err := p.releaseBlocks(keep, true)
	if p.drv != nil {
		err = errors.Join(err, p.drv.Trim(keep))
	}
	return err
}

// releaseBlocks gives idle blocks back while more than keep idle bytes
// stay; with wait unset it skips blocks whose frees have not completed.
func (p *Pool) releaseBlocks(keep uint64, wait bool) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !wait && p.drv == nil {
		// Blocks no marker covers yet get one, so that a later call can
		// give them back without waiting.
		var unmarked []*Queue
		for _, blocks := range p.idle {
			for _, b := range blocks {
				if b.done == nil && b.q != nil && !slices.Contains(unmarked, b.q) {
					unmarked = append(unmarked, b.q)
				}
			}
		}
		for _, q := range unmarked {
			p.markLocked(q)
		}
	}
	var errs []error
	for class, blocks := range p.idle {
		kept := blocks[:0]
		for _, b := range blocks {
			if p.reserved-p.used <= keep {
				kept = append(kept, b)
				continue
			}
			if err, ok := p.giveBack(b, wait); !ok {
				kept = append(kept, b)
			} else {
				errs = append(errs, err)
				p.reserved -= class
			}
		}
		clear(blocks[len(kept):])
		p.idle[class] = kept
	}
	return errors.Join(errs...)
}

// giveBack returns an idle block to the driver, reporting false when it
// must wait (and wait is not set). A block of the driver's pool is freed
// on its queue, in order; memory from Context.Alloc once the queue has
// run past its free.
func (p *Pool) giveBack(b idleBlock, wait bool) (error, bool) {
	if p.drv != nil && b.q != nil {
		if pq, ok := b.q.drv.(driver.PoolQueue); ok {
			_, err := pq.FreeAsync(b.addr, nil, false)
			p.dropBlock(b)
			return err, true
		}
	}
	if b.q != nil {
		if b.done == nil {
			if !wait {
				return nil, false
			}
			if err := b.q.drv.Finish(); err != nil {
				return err, true
			}
		} else if !eventDone(b.done) {
			if !wait {
				return nil, false
			}
			b.done.ev.Wait(context.Background())
		}
	}
	p.dropBlock(b)
	return p.ctx.drv.(driver.USMContext).USMFree(b.addr), true
}
