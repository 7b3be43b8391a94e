package ur

import (
	"context"
	"errors"
	"testing"

	"github.com/gour-dev/gour/ur/driver"
)

// fakeUSM is a driver context with USM and a byte budget, and fakeQueue a
// queue with markers whose completion the test decides.
type fakeUSM struct {
	driver.Context
	next          uintptr
	limit, inUse  uint64
	sizes         map[uintptr]uint64
	allocs, frees int
}

func (c *fakeUSM) USMAlloc(kind driver.USMKind, dev driver.Device, size, alignment uint64) (uintptr, error) {
	if c.inUse+size > c.limit {
		return 0, driver.Errorf(driver.ResultOutOfDeviceMemory, "fake device is full")
	}
	c.next += 1 << 30
	c.sizes[c.next] = size
	c.inUse += size
	c.allocs++
	return c.next, nil
}

func (c *fakeUSM) USMFree(ptr uintptr) error {
	c.inUse -= c.sizes[ptr]
	delete(c.sizes, ptr)
	c.frees++
	return nil
}

func (c *fakeUSM) USMPointerInfo(uintptr) (driver.USMPointerInfo, error) {
	return driver.USMPointerInfo{}, nil
}

type fakeMarkerQueue struct {
	driver.Queue
	markers []*fakeEvent
}

func (q *fakeMarkerQueue) Marker([]driver.Event, bool) (driver.Event, error) {
	e := &fakeEvent{}
	q.markers = append(q.markers, e)
	return e, nil
}

func (q *fakeMarkerQueue) Release() error { return nil }

func (q *fakeMarkerQueue) Finish() error {
	for _, m := range q.markers {
		m.done = true
	}
	return nil
}

type fakeEvent struct {
	driver.Event
	done bool
}

func (e *fakeEvent) Status() (driver.EventStatus, error) {
	if e.done {
		return driver.EventComplete, nil
	}
	return driver.EventRunning, nil
}

func (e *fakeEvent) Wait(context.Context) error { e.done = true; return nil }
func (e *fakeEvent) Release() error             { return nil }

// newFakePool makes a context over one fake device with limit bytes, two
// queues and a gour-side pool with the given release threshold.
func newFakePool(t *testing.T, limit, threshold uint64) (*fakeUSM, *Pool, *Queue, *Queue, *fakeMarkerQueue) {
	t.Helper()
	d := fakeDevices()[0]
	d.info.USM = driver.USMSupport{Device: true, Via: "fake"}
	drv := &fakeUSM{limit: limit, sizes: map[uintptr]uint64{}}
	ctx := &Context{object: object{adapter: d.adapter}, drv: drv, devices: []*Device{d}}
	q1drv, q2drv := &fakeMarkerQueue{}, &fakeMarkerQueue{}
	q1 := ctx.newQueue(d, q1drv, QueueProperties{})
	q2 := ctx.newQueue(d, q2drv, QueueProperties{})
	pool, err := ctx.NewPool(d, PoolOptions{ReleaseThreshold: threshold})
	if err != nil {
		t.Fatal(err)
	}
	return drv, pool, q1, q2, q2drv
}

func TestPoolClasses(t *testing.T) {
	for _, tt := range []struct{ size, class uint64 }{
		{1, 512}, {512, 512}, {513, 1024}, {1 << 20, 1 << 20}, {1<<20 + 1, 2 << 20},
		{64 << 20, 64 << 20}, {64<<20 + 1, 66 << 20}, {100 << 20, 100 << 20}, {101 << 20, 102 << 20},
	} {
		if got := poolClass(tt.size); got != tt.class {
			t.Errorf("poolClass(%d) = %d, want %d", tt.size, got, tt.class)
		}
	}
}

// A block freed on a queue is reused at once on that queue, and on another
// only once the free's marker has completed.
func TestPoolReuse(t *testing.T) {
	drv, pool, q1, q2, q2drv := newFakePool(t, 1<<30, ^uint64(0))
	a, err := q2.AllocAsync(pool, 1000)
	if err != nil {
		t.Fatal(err)
	}
	addr := a.Addr()
	if err := q2.FreeAsync(a); err != nil {
		t.Fatal(err)
	}
	b, err := q2.AllocAsync(pool, 900) // same class, same queue
	if err != nil {
		t.Fatal(err)
	}
	if b.Addr() != addr || drv.allocs != 1 {
		t.Fatalf("same-queue reuse: got %#x after %d driver allocations, want %#x after 1", b.Addr(), drv.allocs, addr)
	}
	if err := q2.FreeAsync(b); err != nil {
		t.Fatal(err)
	}
	c, err := q1.AllocAsync(pool, 1000) // the other queue: the marker is still running
	if err != nil {
		t.Fatal(err)
	}
	if c.Addr() == addr || drv.allocs != 2 {
		t.Fatalf("another queue got the block before its free completed (%#x, %d driver allocations)", c.Addr(), drv.allocs)
	}
	q2drv.markers[len(q2drv.markers)-1].done = true
	d, err := q1.AllocAsync(pool, 1000)
	if err != nil {
		t.Fatal(err)
	}
	if d.Addr() != addr {
		t.Fatalf("another queue did not get the block after its free completed: %#x, want %#x", d.Addr(), addr)
	}
	reserved, used, _ := pool.Usage()
	if reserved != 2*1024 || used != 2*1024 {
		t.Errorf("Usage = %d, %d; want 2048, 2048", reserved, used)
	}
}

// On out-of-memory the pool gives its idle blocks back to the driver and
// tries once more; when that is not enough the caller gets
// ErrOutOfDeviceMemory.
func TestPoolOutOfMemoryRetries(t *testing.T) {
	drv, pool, q1, q2, _ := newFakePool(t, 3<<20, ^uint64(0))
	var held []*USM
	for range 2 {
		u, err := q2.AllocAsync(pool, 1<<20)
		if err != nil {
			t.Fatal(err)
		}
		held = append(held, u)
	}
	for _, u := range held {
		if err := q2.FreeAsync(u); err != nil {
			t.Fatal(err)
		}
	}
	// 2 MiB idle on q2, not yet safe for q1; the device has 1 MiB left.
	u, err := q1.AllocAsync(pool, 2<<20)
	if err != nil {
		t.Fatalf("AllocAsync after trimming: %v", err)
	}
	if drv.frees != 2 {
		t.Errorf("the retry freed %d idle blocks, want 2", drv.frees)
	}
	_, err = q1.AllocAsync(pool, 2<<20)
	if !errors.Is(err, ErrOutOfDeviceMemory) {
		t.Errorf("AllocAsync beyond the device: %v, want ErrOutOfDeviceMemory", err)
	}
	if err := u.Free(); err != nil {
		t.Fatal(err)
	}
	if err := pool.Trim(0); err != nil {
		t.Fatal(err)
	}
	if reserved, used, _ := pool.Usage(); reserved != 0 || used != 0 || drv.inUse != 0 {
		t.Errorf("after Free and Trim(0): %d reserved, %d used, %d at the driver; want 0", reserved, used, drv.inUse)
	}
}

// With a release threshold of 0, idle blocks whose frees completed go back
// to the driver at the pool's next free.
func TestPoolReleaseThreshold(t *testing.T) {
	drv, pool, _, q2, q2drv := newFakePool(t, 1<<30, 0)
	a, _ := q2.AllocAsync(pool, 4096)
	b, _ := q2.AllocAsync(pool, 1<<20)
	if err := q2.FreeAsync(a); err != nil {
		t.Fatal(err)
	}
	if drv.frees != 0 {
		t.Fatalf("a block was released before its free completed")
	}
	q2drv.markers[0].done = true
	if err := q2.FreeAsync(b); err != nil {
		t.Fatal(err)
	}
	if drv.frees != 1 {
		t.Errorf("%d blocks released, want the one whose free completed", drv.frees)
	}
	// A pool released with memory still out frees that memory when it
	// comes back.
	c, _ := q2.AllocAsync(pool, 8192)
	if err := pool.Release(); err != nil {
		t.Fatal(err)
	}
	before := drv.frees
	if err := c.Free(); err != nil {
		t.Fatal(err)
	}
	if drv.frees <= before || drv.inUse != 0 {
		t.Errorf("after the released pool's last free: %d bytes still at the driver", drv.inUse)
	}
}

// fakeDriverPool is a driver pool whose queues allocate and free in
// stream order (CUDA's): the pool gives blocks back on their queues
// without waiting for anything.
type fakeDriverPool struct {
	driver.Pool
	trims []uint64
}

func (p *fakeDriverPool) Trim(keep uint64) error { p.trims = append(p.trims, keep); return nil }
func (p *fakeDriverPool) Release() error         { return nil }

type fakePoolContext struct {
	*fakeUSM
	pool *fakeDriverPool
}

func (c *fakePoolContext) NewPool(driver.Device, driver.PoolProperties) (driver.Pool, error) {
	return c.pool, nil
}

type fakePoolQueue struct {
	*fakeMarkerQueue
	ctx                *fakeUSM
	asyncAllocs, frees int
}

func (q *fakePoolQueue) AllocAsync(_ driver.Pool, size uint64, _ []driver.Event, _ bool) (uintptr, driver.Event, error) {
	q.asyncAllocs++
	addr, err := q.ctx.USMAlloc(driver.USMDevice, nil, size, 0)
	return addr, nil, err
}

func (q *fakePoolQueue) FreeAsync(ptr uintptr, _ []driver.Event, _ bool) (driver.Event, error) {
	q.frees++
	return nil, q.ctx.USMFree(ptr)
}

// driverPoolSetup is a context whose adapter has stream-ordered pools, a
// queue on it, and the pool opts make there.
func driverPoolSetup(t *testing.T, opts PoolOptions) (*Pool, *Queue, *fakePoolQueue, *fakePoolContext, *fakeUSM) {
	t.Helper()
	d := fakeDevices()[0]
	d.info.USM = driver.USMSupport{Device: true, Via: "fake"}
	usm := &fakeUSM{limit: 1 << 30, sizes: map[uintptr]uint64{}}
	drv := &fakePoolContext{fakeUSM: usm, pool: &fakeDriverPool{}}
	ctx := &Context{object: object{adapter: d.adapter}, drv: drv, devices: []*Device{d}}
	qdrv := &fakePoolQueue{fakeMarkerQueue: &fakeMarkerQueue{}, ctx: usm}
	q := ctx.newQueue(d, qdrv, QueueProperties{})
	pool, err := ctx.NewPool(d, opts)
	if err != nil {
		t.Fatal(err)
	}
	return pool, q, qdrv, drv, usm
}

func TestPoolOverDriverPool(t *testing.T) {
	pool, q, qdrv, drv, usm := driverPoolSetup(t, PoolOptions{ReleaseThreshold: 0})
	u, err := q.AllocAsync(pool, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	if qdrv.asyncAllocs != 1 || usm.allocs != 1 {
		t.Fatalf("a new block came from %d stream-ordered and %d plain allocations, want 1 stream-ordered", qdrv.asyncAllocs, usm.allocs-qdrv.asyncAllocs)
	}
	// Threshold 0: the idle block goes back on its queue at once, with no
	// marker and no wait.
	if err := q.FreeAsync(u); err != nil {
		t.Fatal(err)
	}
	if qdrv.frees != 1 || len(qdrv.markers) != 0 || usm.inUse != 0 {
		t.Errorf("after FreeAsync over the threshold: %d stream-ordered frees, %d markers, %d bytes at the driver; want 1, 0, 0",
			qdrv.frees, len(qdrv.markers), usm.inUse)
	}
	if err := pool.Trim(0); err != nil {
		t.Fatal(err)
	}
	if got := drv.pool.trims; len(got) != 1 || got[0] != 0 {
		t.Errorf("Trim(0) trimmed the driver's pool with %v, want [0]", got)
	}
}

// TestPoolContextAlloc checks that PoolOptions.ContextAlloc keeps the
// driver's pool out: new blocks are plain allocations, a freed block is
// reused without a driver call, and one given back waits for its free.
func TestPoolContextAlloc(t *testing.T) {
	pool, q, qdrv, drv, usm := driverPoolSetup(t, PoolOptions{ContextAlloc: true})
	if pool.Native() != 0 {
		t.Errorf("Native() = %#x with ContextAlloc, want 0: no driver pool", pool.Native())
	}
	u, err := q.AllocAsync(pool, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	if qdrv.asyncAllocs != 0 || usm.allocs != 1 {
		t.Fatalf("a new block came from %d stream-ordered and %d plain allocations, want 1 plain", qdrv.asyncAllocs, usm.allocs-qdrv.asyncAllocs)
	}
	addr := u.Ptr().Addr()
	if err := q.FreeAsync(u); err != nil {
		t.Fatal(err)
	}
	v, err := q.AllocAsync(pool, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	if v.Ptr().Addr() != addr || usm.allocs != 1 {
		t.Errorf("the second allocation is at %#x after %d driver allocations, want the freed block %#x and 1", v.Ptr().Addr(), usm.allocs, addr)
	}
	if err := q.FreeAsync(v); err != nil {
		t.Fatal(err)
	}
	if err := pool.Trim(0); err != nil {
		t.Fatal(err)
	}
	if qdrv.frees != 0 || usm.inUse != 0 || len(drv.pool.trims) != 0 {
		t.Errorf("after Trim(0): %d stream-ordered frees, %d bytes at the driver, driver pool trimmed %v; want 0, 0, none",
			qdrv.frees, usm.inUse, drv.pool.trims)
	}
	if err := pool.Release(); err != nil {
		t.Fatal(err)
	}
}

// BenchmarkPoolAllocFree is the front end's own cost of a pool allocation
// and free on one queue: the cached path, which makes no driver call.
func BenchmarkPoolAllocFree(b *testing.B) {
	_, pool, q, _, _ := newFakePool(&testing.T{}, 1<<30, ^uint64(0))
	b.ReportAllocs()
	for b.Loop() {
		u, err := q.AllocAsync(pool, 1<<20)
		if err != nil {
			b.Fatal(err)
		}
		if err := q.FreeAsync(u); err != nil {
			b.Fatal(err)
		}
	}
}

// A pool out of memory has the device's other pools give their idle
// blocks back and tries once more: their caches hold the same memory.
func TestPoolOutOfMemoryReleasesOtherPools(t *testing.T) {
	drv, pool, q1, q2, _ := newFakePool(t, 3<<20, ^uint64(0))
	other, err := pool.ctx.NewPool(pool.dev, PoolOptions{ReleaseThreshold: ^uint64(0)})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Release()
	// 2 MiB cached idle in the other pool; 1 MiB left on the device.
	var held []*USM
	for range 2 {
		u, err := q2.AllocAsync(other, 1<<20)
		if err != nil {
			t.Fatal(err)
		}
		held = append(held, u)
	}
	for _, u := range held {
		if err := u.Free(); err != nil {
			t.Fatal(err)
		}
	}
	if r, u, _ := other.Usage(); r != 2<<20 || u != 0 {
		t.Fatalf("the other pool holds %d reserved, %d used; want 2 MiB idle", r, u)
	}
	u, err := q1.AllocAsync(pool, 2<<20)
	if err != nil {
		t.Fatalf("AllocAsync with the device's memory in another pool's cache: %v", err)
	}
	if r, _, _ := other.Usage(); r != 0 || drv.frees != 2 {
		t.Errorf("the other pool kept %d bytes; the driver freed %d blocks, want 0 and 2", r, drv.frees)
	}
	if err := u.Free(); err != nil {
		t.Fatal(err)
	}
}
