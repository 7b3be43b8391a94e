package opencl

import (
	"errors"
	"sync"
	"testing"

	"github.com/gour-dev/gour/internal/harness/testenv"
	"github.com/gour-dev/gour/ur/driver"
)

// TestContextsShareTheDefaultContext opens the adapter with every root
// device given a default context (on CI's PoCL, a CPU's; GPUs have one
// anyway) and checks that contexts of one device, made and released from
// several goroutines, are references to it, each working on its own,
// and that the default context outlives them all.
func TestContextsShareTheDefaultContext(t *testing.T) {
	old := hasDefaultContext
	hasDefaultContext = func(d *device) bool { return d.parent == nil }
	a, err := Open()
	hasDefaultContext = old
	if err != nil {
		if testenv.IsRequired(Name) {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	d := a.(*adapter).platforms[0].(*platform).devices[0].(*device)
	if d.defaultCtx.handle == 0 {
		t.Fatalf("%s has no default context after Open", d.info.Name)
	}
	use := func(c driver.Context) error {
		m, err := c.NewBuffer(driver.MemReadWrite, 64, make([]byte, 64))
		if err != nil {
			return err
		}
		q, err := c.NewQueue(d, driver.QueueProperties{})
		if err != nil {
			m.Release()
			return err
		}
		out := make([]byte, 64)
		_, err = q.ReadBuffer(m, true, 0, out, nil, false)
		return errors.Join(err, q.Release(), m.Release())
	}
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for range 5 {
				c, err := a.NewContext([]driver.Device{d})
				if err != nil {
					t.Error(err)
					return
				}
				if got := c.(interface{ Native() uintptr }).Native(); got != uintptr(d.defaultCtx.handle) {
					t.Errorf("context of one device is %#x, want the default context %#x", got, d.defaultCtx.handle)
				}
				if err := use(c); err != nil {
					t.Error(err)
				}
				if err := c.Release(); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	c, err := a.NewContext([]driver.Device{d})
	if err != nil {
		t.Fatalf("a context after every other one was released: %v", err)
	}
	defer c.Release()
	if err := use(c); err != nil {
		t.Errorf("the default context after every other one was released: %v", err)
	}
}
