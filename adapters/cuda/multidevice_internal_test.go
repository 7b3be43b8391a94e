package cuda

import (
	"testing"

	"github.com/gour-dev/gour/ur/driver"
)

// The bookkeeping of a context of several devices, without a GPU: which
// device each object is made on, and which function a launch takes.
func TestMultiDeviceBookkeeping(t *testing.T) {
	a, b, other := &device{arch: "sm_90"}, &device{arch: "sm_90"}, &device{arch: "sm_80"}
	single := &context{dev: a}
	if single.own(b) != a || single.own(nil) != a {
		t.Errorf("a context of one device makes everything on it")
	}
	c := &context{dev: a, devs: []*device{a, b}}
	if c.own(b) != b || c.own(a) != a || c.own(nil) != a || c.own(other) != a {
		t.Errorf("own: %p %p %p %p; want b, a, a, a", c.own(b), c.own(a), c.own(nil), c.own(other))
	}

	p := c.newProgram(fromPTX, nil)
	if p.dev != a || len(p.others) != 1 || p.others[0].dev != b {
		t.Fatalf("a program of the context is for a and b: %p, %+v", p.dev, p.others)
	}
	p.target(c, []driver.Device{b})
	if p.dev != b || len(p.others) != 0 {
		t.Errorf("built for b alone: dev %p, others %+v", p.dev, p.others)
	}
	p.target(c, []driver.Device{a, b})
	if p.dev != a || len(p.others) != 1 || p.others[0].dev != b || p.deviceOf(b) != b || p.deviceOf(other) != a {
		t.Errorf("built for a and b: dev %p, others %+v", p.dev, p.others)
	}
	devs, _ := p.Devices()
	if len(devs) != 2 || devs[0] != driver.Device(a) || devs[1] != driver.Device(b) {
		t.Errorf("Devices() = %v, want a and b", devs)
	}

	// One binary for devices of one architecture.
	p.binary = []byte("cubin")
	bin, err := p.binaryFor(b, "")
	if err != nil || string(bin) != "cubin" {
		t.Errorf("binaryFor(same arch) = %q, %v; want the first device's cubin", bin, err)
	}

	fa, fb := &funcShared{}, &funcShared{}
	k := &kernel{p: p, fn: 1, shared: fa, on: []kernelOn{{dev: b, fn: 2, shared: fb}}}
	if k.fnOn(a) != 1 || k.fnOn(b) != 2 || k.fnOn(other) != 1 {
		t.Errorf("fnOn: %d %d %d; want 1 2 1", k.fnOn(a), k.fnOn(b), k.fnOn(other))
	}
	if k.sharedOn(a) != fa || k.sharedOn(b) != fb {
		t.Errorf("sharedOn gives another device's limit")
	}
}
