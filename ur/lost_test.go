package ur

import (
	"errors"
	"strings"
	"testing"

	"github.com/gour-dev/gour/ur/driver"
)

// lostAdapter is a stand-in adapter whose queues' Finish reports a device
// fault as CUDA does, CUDA_ERROR_ILLEGAL_ADDRESS mapped to ErrDeviceLost,
// and whose other calls succeed and are counted.
type lostAdapter struct {
	driver.Adapter
	calls int // adapter calls after the context was made
}

func (a *lostAdapter) NewContext([]driver.Device) (driver.Context, error) {
	return &lostContext{a: a}, nil
}

type lostContext struct {
	driver.Context
	a *lostAdapter
}

func (c *lostContext) Release() error { return nil }
func (c *lostContext) NewQueue(driver.Device, driver.QueueProperties) (driver.Queue, error) {
	c.a.calls++
	return &lostQueue{a: c.a}, nil
}
func (c *lostContext) NewBuffer(driver.MemFlags, uint64, []byte) (driver.Mem, error) {
	c.a.calls++
	return lostMem{}, nil
}

type lostMem struct{ driver.Mem }

func (lostMem) Release() error { return nil }

type lostQueue struct {
	driver.Queue
	a *lostAdapter
}

func (q *lostQueue) Release() error { return nil }
func (q *lostQueue) Finish() error {
	q.a.calls++
	return &driver.Error{Result: driver.ResultDeviceLost, Native: 700, NativeName: "CUDA_ERROR_ILLEGAL_ADDRESS",
		Message: "cuStreamSynchronize failed"}
}
func (q *lostQueue) ReadBuffer(driver.Mem, bool, uint64, []byte, []driver.Event, bool) (driver.Event, error) {
	q.a.calls++
	return nil, nil
}

// lostFixture returns two devices of one stand-in adapter's platform.
func lostFixture() (*lostAdapter, []*Device) {
	drv := &lostAdapter{}
	a := &Adapter{name: "cuda", drv: drv}
	a.object.adapter = a
	p := &Platform{object: object{adapter: a}, adapter: a}
	devs := make([]*Device, 2)
	for i := range devs {
		devs[i] = &Device{object: object{adapter: a}, platform: p, drv: &struct{ driver.Device }{},
			info: driver.DeviceInfo{Type: DeviceTypeGPU, Name: "gpu"}, index: i}
	}
	return drv, devs
}

// TestDeviceLostIsSticky checks that the first ErrDeviceLost of a call
// marks its context and device lost, that every later call of the context
// is refused with ErrDeviceLost naming the first failure and the driver's
// code without reaching the adapter, that Release still works, and that
// another device's context is untouched.
func TestDeviceLostIsSticky(t *testing.T) {
	drv, devs := lostFixture()
	ctx, err := NewContext(devs[0])
	if err != nil {
		t.Fatal(err)
	}
	q, err := ctx.NewQueue(devs[0], QueueProperties{})
	if err != nil {
		t.Fatal(err)
	}
	m, err := ctx.NewBuffer(MemReadWrite, 64)
	if err != nil {
		t.Fatal(err)
	}
	if ctx.Lost() != nil || devs[0].Lost() != nil {
		t.Fatalf("Lost before any fault: context %v, device %v", ctx.Lost(), devs[0].Lost())
	}

	err = q.Finish()
	if !errors.Is(err, ErrDeviceLost) || !strings.Contains(err.Error(), "CUDA_ERROR_ILLEGAL_ADDRESS") {
		t.Fatalf("Finish after a fault = %v, want ErrDeviceLost naming CUDA_ERROR_ILLEGAL_ADDRESS", err)
	}
	if !errors.Is(ctx.Lost(), ErrDeviceLost) || !errors.Is(devs[0].Lost(), ErrDeviceLost) {
		t.Fatalf("after the fault: Context.Lost = %v, Device.Lost = %v, want ErrDeviceLost", ctx.Lost(), devs[0].Lost())
	}
	if devs[1].Lost() != nil {
		t.Errorf("Device.Lost of a device without contexts = %v, want nil", devs[1].Lost())
	}

	calls := drv.calls
	later := map[string]error{
		"Queue.ReadBuffer": q.ReadBuffer(m, 0, make([]byte, 8)),
		"Queue.Finish":     q.Finish(),
	}
	_, later["Context.NewBuffer"] = ctx.NewBuffer(MemReadWrite, 64)
	_, later["Context.NewQueue"] = ctx.NewQueue(devs[0], QueueProperties{})
	_, later["NewContext"] = NewContext(devs[0])
	for op, err := range later {
		if !errors.Is(err, ErrDeviceLost) {
			t.Errorf("%s in a lost context = %v, want ErrDeviceLost", op, err)
			continue
		}
		var e *Error
		if !errors.As(err, &e) || e.Op != op || e.NativeName != "CUDA_ERROR_ILLEGAL_ADDRESS" || !strings.Contains(e.Message, "Queue.Finish") {
			t.Errorf("%s in a lost context = %v, want its own op, the driver's code and the first failure (Queue.Finish)", op, err)
		}
	}
	if drv.calls != calls {
		t.Errorf("the adapter was called %d times after the loss, want 0: a lost context's calls are refused", drv.calls-calls)
	}

	// The other device still makes contexts.
	other, err := NewContext(devs[1])
	if err != nil {
		t.Fatalf("NewContext on another device after a loss: %v", err)
	}
	if other.Lost() != nil {
		t.Errorf("Lost of a new context on another device = %v, want nil", other.Lost())
	}

	for _, r := range []interface{ Release() error }{m, q, ctx, other} {
		if err := r.Release(); err != nil {
			t.Errorf("Release after the loss: %v", err)
		}
	}
}

// TestSettleAfterLoss checks that a failure an adapter reports for a
// context already lost becomes ErrDeviceLost, keeping the driver's code,
// as NVIDIA's OpenCL answers a copy after a fault with
// CL_OUT_OF_RESOURCES; and that errors of other kinds pass unchanged.
func TestSettleAfterLoss(t *testing.T) {
	_, devs := lostFixture()
	c := &Context{object: object{adapter: devs[0].adapter}, devices: devs[:1]}

	oor := &driver.Error{Result: driver.ResultOutOfResources, Native: -5, NativeName: "CL_OUT_OF_RESOURCES", Message: "clEnqueueReadBuffer failed"}
	if err := c.wrap(oor, "Queue.ReadBuffer"); !errors.Is(err, ErrOutOfResources) {
		t.Fatalf("a failure in a usable context = %v, want it unchanged (ErrOutOfResources)", err)
	}
	if c.Lost() != nil {
		t.Fatalf("Lost after an ordinary failure = %v, want nil", c.Lost())
	}

	first := c.wrap(&driver.Error{Result: driver.ResultDeviceLost, Native: -36, NativeName: "CL_INVALID_COMMAND_QUEUE", Message: "clFinish failed"}, "Queue.Finish")
	if c.Lost() != first {
		t.Fatalf("Lost = %v, want the first ErrDeviceLost %v", c.Lost(), first)
	}
	err := c.wrap(oor, "Queue.ReadBuffer")
	var e *Error
	if !errors.Is(err, ErrDeviceLost) || !errors.As(err, &e) || e.NativeName != "CL_OUT_OF_RESOURCES" || e.Op != "Queue.ReadBuffer" {
		t.Fatalf("a failure in a lost context = %v, want ErrDeviceLost keeping CL_OUT_OF_RESOURCES", err)
	}
	if errors.Unwrap(err) != first {
		t.Errorf("the failure after the loss unwraps to %v, want the first loss", errors.Unwrap(err))
	}
	second := c.wrap(&driver.Error{Result: driver.ResultDeviceLost, Message: "again"}, "Event.Wait")
	if c.Lost() != first || !errors.Is(second, ErrDeviceLost) {
		t.Errorf("a second loss: Lost = %v (want the first), err = %v", c.Lost(), second)
	}
	if !errors.Is(devs[0].Lost(), ErrDeviceLost) || devs[1].Lost() != nil {
		t.Errorf("Device.Lost: the context's device %v (want lost), another %v (want nil)", devs[0].Lost(), devs[1].Lost())
	}
	plain := errors.New("not a gour error")
	if got := c.settle(plain); got != plain {
		t.Errorf("settle of a non-gour error = %v, want it unchanged", got)
	}
}

// TestLostOfReleased checks that Lost of a released context tells it from
// a loss: an error, but not ErrDeviceLost.
func TestLostOfReleased(t *testing.T) {
	_, devs := lostFixture()
	ctx, err := NewContext(devs[0])
	if err != nil {
		t.Fatal(err)
	}
	if err := ctx.Release(); err != nil {
		t.Fatal(err)
	}
	if err := ctx.Lost(); !errors.Is(err, ErrInvalidContext) || errors.Is(err, ErrDeviceLost) {
		t.Errorf("Lost of a released context = %v, want ErrInvalidContext, not ErrDeviceLost", err)
	}
}
