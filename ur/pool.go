package ur

import (
	"context"
	"math/bits"
	"sync"

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
}

// Pool is a per-device pool of device memory that queues allocate from
// and free to in stream order (Queue.AllocAsync, Queue.FreeAsync), as
// CUDA's stream-ordered allocator, CuPy's MemoryPool and the Unified
// Runtime's urEnqueueUSMDeviceAllocExp do: neither allocating nor
// freeing synchronizes the device.
//
// On CUDA it is a driver pool (cuMemPoolCreate, cuMemAllocFromPoolAsync,
// cuMemFreeAsync). Elsewhere gour pools itself: sizes are rounded up to a
// class (powers of two from 512 bytes, multiples of 2 MiB above 64 MiB);
// a freed block goes back to its class with a marker event of the queue
// that freed it, and is handed out again at once on that queue (its
// commands run in order) or on another queue once the marker completes.
// When the driver runs out of memory the pool returns every idle block
// to it and tries once more before giving ErrOutOfDeviceMemory.
type Pool struct {
	object
	ctx *Context
	dev *Device
	drv driver.Pool // nil: gour's own pool

	mu        sync.Mutex
	idle      map[uint64][]idleBlock // by class size
	reserved  uint64                 // bytes held from the driver
	used      uint64                 // bytes handed out
	threshold uint64
}

// idleBlock is a freed block waiting for reuse.
type idleBlock struct {
	addr uintptr
	q    *Queue       // the queue that freed it
	done driver.Event // completes when q has run everything before the free; nil: already safe
}

// NewPool creates a memory pool for dev.
func (c *Context) NewPool(dev *Device, opts PoolOptions) (*Pool, error) {
	const op = "Context.NewPool"
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
	p := &Pool{object: object{adapter: c.adapter}, ctx: c, dev: dev, threshold: opts.ReleaseThreshold}
	if pc, ok := c.drv.(driver.PoolContext); ok {
		drv, err := pc.NewPool(dev.drv, driver.PoolProperties{ReleaseThreshold: opts.ReleaseThreshold, MaxSize: opts.MaxSize})
		if err != nil {
			return nil, wrapError(err, op, c.adapter.name)
		}
		p.drv = drv
		p.life.free = drv.Release
		return p, nil
	}
	if _, err := c.usmContext(op); err != nil {
		return nil, err
	}
	if err := c.checkAlloc(op, USMDevice, dev, 1, 0); err != nil {
		return nil, err
	}
	p.idle = make(map[uint64][]idleBlock)
	p.life.free = func() error { return p.releaseIdle(0) }
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
func (p *Pool) SetReleaseThreshold(bytes uint64) error {
	const op = "Pool.SetReleaseThreshold"
	if err := p.enter(op); err != nil {
		return err
	}
	defer p.life.leave()
	if p.drv != nil {
		return wrapError(p.drv.SetReleaseThreshold(bytes), op, p.adapter.name)
	}
	p.mu.Lock()
	p.threshold = bytes
	p.mu.Unlock()
	return wrapError(p.releaseIdleDone(), op, p.adapter.name)
}

// Trim returns idle memory to the driver until at most keep bytes stay
// reserved beyond those in use, waiting for the frees it returns.
func (p *Pool) Trim(keep uint64) error {
	const op = "Pool.Trim"
	if err := p.enter(op); err != nil {
		return err
	}
	defer p.life.leave()
	if p.drv != nil {
		return wrapError(p.drv.Trim(keep), op, p.adapter.name)
	}
	return wrapError(p.releaseIdle(keep), op, p.adapter.name)
}

// Usage reports the bytes the pool holds from the driver and the bytes
// of them handed out (rounded up to their classes in gour's own pool).
func (p *Pool) Usage() (reserved, used uint64, err error) {
	const op = "Pool.Usage"
	if err := p.enter(op); err != nil {
		return 0, 0, err
	}
	defer p.life.leave()
	if p.drv != nil {
		reserved, used, err = p.drv.Usage()
		return reserved, used, wrapError(err, op, p.adapter.name)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.reserved, p.used, nil
}

// poolClass is the size gour's pool allocates for a request of size
// bytes.
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
	addr, err := pool.alloc(q, size)
	if err != nil && isOutOfMemory(err) {
		// As CuPy does: give the cached blocks back and try once more.
		if terr := pool.trimAll(); terr == nil {
			addr, err = pool.alloc(q, size)
		}
	}
	if err != nil {
		return nil, wrapError(err, op, q.adapter.name)
	}
	u := q.ctx.newUSM(USMDevice, q.device, addr, size, true)
	q.life.enter() // held by the allocation until it is freed on a queue
	pool.life.enter()
	u.pool, u.queue = pool, q
	return u, nil
}

func isOutOfMemory(err error) bool {
	r := ResultOf(err)
	return r == ErrOutOfDeviceMemory || r == ErrOutOfResources
}

// trimAll gives the driver every idle byte.
func (p *Pool) trimAll() error {
	if p.drv != nil {
		return p.drv.Trim(0)
	}
	return p.releaseIdle(0)
}

// alloc takes a block for q: an idle one of the class that q may use now,
// else a new one from the driver.
func (p *Pool) alloc(q *Queue, size uint64) (uintptr, error) {
	if p.drv != nil {
		addr, _, err := q.drv.(driver.PoolQueue).AllocAsync(p.drv, size, nil, false)
		return addr, err
	}
	class := poolClass(size)
	p.mu.Lock()
	blocks := p.idle[class]
	for i := len(blocks) - 1; i >= 0; i-- {
		b := blocks[i]
		if b.q != q && !eventDone(b.done) {
			continue
		}
		if b.done != nil {
			b.done.Release()
		}
		p.idle[class] = append(blocks[:i], blocks[i+1:]...)
		p.used += class
		p.mu.Unlock()
		return b.addr, nil
	}
	p.mu.Unlock()
	addr, err := q.ctx.drv.(driver.USMContext).USMAlloc(USMDevice, p.dev.drv, class, 0)
	if err != nil {
		return 0, err
	}
	p.mu.Lock()
	p.reserved += class
	p.used += class
	p.mu.Unlock()
	return addr, nil
}

// eventDone reports whether a block's marker has completed; nil is done.
func eventDone(e driver.Event) bool {
	if e == nil {
		return true
	}
	st, err := e.Status()
	return err == nil && st == driver.EventComplete
}

// FreeAsync frees memory allocated with AllocAsync, in this queue's
// order: commands enqueued before it on the queue still see the memory.
// It may be another queue than the allocating one, of the same device.
func (q *Queue) FreeAsync(u *USM) error {
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

// freeToPool is the free of an allocation made on a queue: it goes back
// to its pool on q, the queue it is freed on.
func (q *Queue) freeToPool(u *USM) error {
	p := u.pool
	defer p.life.leave()
	defer q.life.leave()
	if p.drv != nil {
		_, err := q.drv.(driver.PoolQueue).FreeAsync(u.addr, nil, false)
		return err
	}
	var done driver.Event
	if mq, ok := q.drv.(driver.MarkerQueue); ok {
		ev, err := mq.Marker(nil, false)
		if err != nil {
			return err
		}
		done = ev
	} else if err := q.drv.Finish(); err != nil {
		return err // without markers, a block is safe for other queues once q has finished
	}
	class := poolClass(u.size)
	p.mu.Lock()
	p.used -= class
	if p.life.released() {
		// The pool's last allocation: nothing will reuse the block.
		p.reserved -= class
		p.mu.Unlock()
		if done != nil {
			done.Wait(context.Background())
			done.Release()
		}
		return q.ctx.drv.(driver.USMContext).USMFree(u.addr)
	}
	p.idle[class] = append(p.idle[class], idleBlock{addr: u.addr, q: q, done: done})
	p.mu.Unlock()
	return p.releaseIdleDone()
}

// releaseIdleDone returns idle blocks whose frees have completed to the
// driver while the pool holds more idle bytes than its threshold.
func (p *Pool) releaseIdleDone() error {
	return p.releaseBlocks(func(b idleBlock) bool { return eventDone(b.done) }, func() bool { return p.reserved-p.used > p.threshold })
}

// releaseIdle returns idle blocks to the driver, waiting for their frees,
// until at most keep idle bytes stay reserved.
func (p *Pool) releaseIdle(keep uint64) error {
	return p.releaseBlocks(func(b idleBlock) bool {
		if b.done != nil {
			b.done.Wait(context.Background())
		}
		return true
	}, func() bool { return p.reserved-p.used > keep })
}

// releaseBlocks frees the idle blocks that may go while more is wanted.
func (p *Pool) releaseBlocks(mayGo func(idleBlock) bool, more func() bool) error {
	usm := p.ctx.drv.(driver.USMContext)
	p.mu.Lock()
	defer p.mu.Unlock()
	var first error
	for class, blocks := range p.idle {
		kept := blocks[:0]
		for _, b := range blocks {
			if !more() || !mayGo(b) {
				kept = append(kept, b)
				continue
			}
			if b.done != nil {
				b.done.Release()
			}
			if err := usm.USMFree(b.addr); err != nil && first == nil {
				first = err
			}
			p.reserved -= class
		}
		p.idle[class] = kept
	}
	return first
}
