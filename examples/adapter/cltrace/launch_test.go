package cltrace_test

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/gour-dev/gour/examples/adapter/cltrace"
	"github.com/gour-dev/gour/ur"
)

const addStep = `__kernel void add_step(__global uint *x, uint step) { x[get_global_id(0)] += step; }`

// setup returns a queue on cltrace's first device and add_step with a
// zeroed buffer of n uint32 as its first argument.
func setup(t *testing.T, n int) (*ur.Queue, *ur.Kernel, *ur.Mem) {
	t.Helper()
	sys, err := ur.Discover(ur.Config{Selector: cltrace.Name + ":*"})
	if err != nil {
		t.Fatal(err)
	}
	if len(sys.Devices) == 0 {
		if required() {
			t.Fatalf("no %s device: %s", cltrace.Name, sys.WhyNoDevice())
		}
		t.Skipf("no %s device: %s", cltrace.Name, sys.WhyNoDevice())
	}
	dev := sys.Devices[0]
	ctx, err := ur.NewContext(dev)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ctx.Release() })
	q, err := ctx.NewQueue(dev, ur.QueueProperties{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { q.Release() })
	prog, err := ctx.NewProgramFromSource(addStep)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { prog.Release() })
	if err := prog.Build(""); err != nil {
		t.Fatal(err)
	}
	k, err := prog.NewKernel("add_step")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { k.Release() })
	m, err := ctx.NewBufferFrom(ur.MemReadWrite, make([]byte, 4*n))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Release() })
	if err := k.SetArgMem(0, m); err != nil {
		t.Fatal(err)
	}
	return q, k, m
}

// calls returns how many times each method was called since before.
func calls(before map[string]uint64, names ...string) map[string]uint64 {
	now := cltrace.Counts()
	out := map[string]uint64{}
	for _, n := range names {
		out[n] = now[n] - before[n]
	}
	return out
}

func readAll(t *testing.T, q *ur.Queue, m *ur.Mem, n int) []uint32 {
	t.Helper()
	out := make([]uint32, n)
	if err := q.ReadBuffer(m, 0, ur.AsBytes(out)); err != nil {
		t.Fatal(err)
	}
	return out
}

func wantAll(t *testing.T, what string, got []uint32, want uint32) {
	t.Helper()
	for i, g := range got {
		if g != want {
			t.Fatalf("%s: element %d = %d, want %d", what, i, g, want)
		}
	}
}

// ur.Queue.PrepareLaunch reaches cltrace's PrepareLaunch once, and every
// launch goes through cltrace's own PreparedLaunch, never Queue.Launch.
func TestPreparedLaunchIsCltraces(t *testing.T) {
	const n, launches = 1024, 25
	q, k, m := setup(t, n)
	if err := k.SetArgUint32(1, 1); err != nil {
		t.Fatal(err)
	}
	before := cltrace.Counts()
	p, err := q.PrepareLaunch(k, ur.Range1D(n))
	if err != nil {
		t.Fatal(err)
	}
	defer p.Release()
	for i := range launches {
		if err := p.Launch(); err != nil {
			t.Fatalf("launch %d: %v", i, err)
		}
	}
	got := calls(before, "Queue.PrepareLaunch", "PreparedLaunch.Launch", "Queue.Launch")
	want := map[string]uint64{"Queue.PrepareLaunch": 1, "PreparedLaunch.Launch": launches, "Queue.Launch": 0}
	for name, w := range want {
		if got[name] != w {
			t.Errorf("%s called %d times, want %d", name, got[name], w)
		}
	}
	wantAll(t, "after the prepared launches", readAll(t, q, m, n), launches)

	// New arguments reach the next launch: the call names the kernel.
	if err := k.SetArgUint32(1, 100); err != nil {
		t.Fatal(err)
	}
	if err := p.Launch(); err != nil {
		t.Fatal(err)
	}
	wantAll(t, "after a launch with step 100", readAll(t, q, m, n), launches+100)
}

// A Queue.Launch repeated over the same range is prepared by the front
// end and then made through cltrace's PreparedLaunch too.
func TestRepeatedLaunchUsesPreparedLaunch(t *testing.T) {
	const n, launches = 256, 20
	q, k, m := setup(t, n)
	if err := k.SetArgUint32(1, 1); err != nil {
		t.Fatal(err)
	}
	before := cltrace.Counts()
	for i := range launches {
		if err := q.Launch(k, ur.Range1D(n)); err != nil {
			t.Fatalf("launch %d: %v", i, err)
		}
	}
	got := calls(before, "Queue.PrepareLaunch", "PreparedLaunch.Launch", "Queue.Launch")
	if got["PreparedLaunch.Launch"] == 0 || got["Queue.PrepareLaunch"] == 0 {
		t.Errorf("%d repeated launches: %v, want some through cltrace's PreparedLaunch", launches, got)
	}
	if total := got["Queue.Launch"] + got["PreparedLaunch.Launch"]; total != launches {
		t.Errorf("%d launches made %d driver launches (%v): each must be made once", launches, total, got)
	}
	wantAll(t, "after the repeated launches", readAll(t, q, m, n), launches)
}

func TestWriteCounts(t *testing.T) {
	q, k, _ := setup(t, 16)
	if err := k.SetArgUint32(1, 1); err != nil {
		t.Fatal(err)
	}
	if err := q.Launch(k, ur.Range1D(16)); err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := cltrace.WriteCounts(&b); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if len(lines) < 5 || !strings.Contains(b.String(), " Queue.Launch\n") || !strings.Contains(b.String(), " Kernel.SetArgValue\n") {
		t.Errorf("WriteCounts wrote %d lines, want every method called, Queue.Launch and Kernel.SetArgValue among them:\n%s", len(lines), b.String())
	}
	var prev uint64 = 1 << 63
	for _, line := range lines {
		var count uint64
		var name string
		if _, err := fmt.Sscan(line, &count, &name); err != nil {
			t.Fatalf("line %q: %v", line, err)
		}
		if count > prev {
			t.Errorf("line %q: counts not in decreasing order", line)
		}
		prev = count
	}
}
