package ur

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gour-dev/gour/trace"
	"github.com/gour-dev/gour/ur/driver"
)

// fakeIPCEventContext is a driver context with IPC events (and IPC memory,
// whose open must never see an event handle); fakeIPCEvent records what
// the front end asks of it.
type fakeIPCEventContext struct {
	driver.Context
	made, opened []*fakeIPCEvent
	openedFrom   [][]byte
	memOpens     int
}

func (c *fakeIPCEventContext) NewIPCEvent(driver.Device) (driver.IPCEvent, error) {
	e := &fakeIPCEvent{handle: []byte("fake-event-handle")}
	c.made = append(c.made, e)
	return e, nil
}

func (c *fakeIPCEventContext) OpenIPCEvent(_ driver.Device, h []byte) (driver.IPCEvent, error) {
	e := &fakeIPCEvent{}
	c.opened = append(c.opened, e)
	c.openedFrom = append(c.openedFrom, bytes.Clone(h))
	return e, nil
}

func (c *fakeIPCEventContext) IPCGetMemHandle(uintptr) ([]byte, error) { return []byte("mem"), nil }
func (c *fakeIPCEventContext) IPCOpenMemHandle(driver.Device, []byte) (uintptr, error) {
	c.memOpens++
	return 1 << 40, nil
}
func (c *fakeIPCEventContext) IPCCloseMemHandle(uintptr) error { return nil }

type fakeIPCEvent struct {
	handle         []byte
	signals, waits []driver.Queue
	hostWaits      int
	done           bool
	releases       int
	err            error // what EnqueueSignal and EnqueueWait return
}

func (e *fakeIPCEvent) Handle() ([]byte, error) { return e.handle, nil }
func (e *fakeIPCEvent) EnqueueSignal(q driver.Queue) error {
	e.signals = append(e.signals, q)
	return e.err
}
func (e *fakeIPCEvent) EnqueueWait(q driver.Queue) error {
	e.waits = append(e.waits, q)
	return e.err
}
func (e *fakeIPCEvent) Wait(context.Context) error { e.hostWaits++; e.done = true; return nil }
func (e *fakeIPCEvent) Query() (bool, error)       { return e.done, nil }
func (e *fakeIPCEvent) Release() error             { e.releases++; return nil }
func (e *fakeIPCEvent) Native() uintptr            { return 0xE7 }

type fakeIPCQueue struct{ driver.Queue }

func (fakeIPCQueue) Release() error { return nil }

// ipcEventFixture is a context of two devices of a fake "cuda" adapter
// with IPC events, a queue on each device, and a context of an adapter
// without them.
type ipcEventFixture struct {
	drv        *fakeIPCEventContext
	ctx, other *Context // other: a second context of the same devices
	devs       [2]*Device
	qs         [2]*Queue
	plain      *Context // an adapter without IPC events
}

func newIPCEventFixture(t *testing.T) *ipcEventFixture {
	t.Helper()
	a := &Adapter{name: "cuda"}
	a.object.adapter = a
	p := &Platform{object: object{adapter: a}, adapter: a}
	f := &ipcEventFixture{drv: &fakeIPCEventContext{}}
	for i := range f.devs {
		f.devs[i] = &Device{object: object{adapter: a}, platform: p, info: driver.DeviceInfo{Type: DeviceTypeGPU, Name: "cuda-dev"}, index: i}
	}
	devs := f.devs[:]
	f.ctx = &Context{object: object{adapter: a}, drv: f.drv, devices: devs}
	f.other = &Context{object: object{adapter: a}, drv: f.drv, devices: devs}
	for i, d := range f.devs {
		f.qs[i] = f.ctx.newQueue(d, fakeIPCQueue{}, QueueProperties{})
	}
	cl := &Adapter{name: "opencl"}
	cl.object.adapter = cl
	cld := &Device{object: object{adapter: cl}, info: driver.DeviceInfo{Name: "opencl-dev"}}
	f.plain = &Context{object: object{adapter: cl}, drv: struct{ driver.Context }{}, devices: []*Device{cld}}
	return f
}

// eventHandle is an event handle of adapter and process pid around
// payload, as Handle makes them.
func eventHandle(adapter string, pid int, payload []byte) IPCEventHandle {
	h := ipcEnvelope(ipcEventMagic, adapter, uint64(len(payload)), payload)
	binary.LittleEndian.PutUint64(h[len(ipcEventMagic)+1+len(adapter):], uint64(pid))
	return h
}

// exitedPID is the id of a process that has exited: this test binary run
// again to do nothing.
func exitedPID(t *testing.T) int {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	if err := cmd.Run(); err != nil {
		t.Fatalf("running %s: %v", os.Args[0], err)
	}
	return cmd.Process.Pid
}

func wantResult(t *testing.T, what string, err error, want Result) {
	t.Helper()
	if !errors.Is(err, want) {
		t.Errorf("%s: %v, want %v", what, err, want)
	}
}

// TestParseIPCEventHandle: any bytes parse to a handle or to "no handle",
// never a panic; a handle made here parses back; a memory handle is no
// event handle and an event handle no memory handle; a handle cut short
// or run on is no handle.
func TestParseIPCEventHandle(t *testing.T) {
	forRandomHandles(3, ipcEventMagic, func(b []byte) { parseIPCEventHandle(b) })
	h := eventHandle("cuda", 7, []byte{9, 8, 7})
	p, ok := parseIPCEventHandle(h)
	if !ok || p.adapter != "cuda" || p.pid != 7 || !bytes.Equal(p.payload, []byte{9, 8, 7}) {
		t.Errorf("parse = %+v, %v", p, ok)
	}
	if _, ok := parseIPCHandle(IPCMemHandle(h)); ok {
		t.Error("an event handle parsed as a memory handle")
	}
	mem := ipcEnvelope(ipcMagic, "cuda", 256, []byte{1, 2, 3})
	if _, ok := parseIPCHandle(IPCMemHandle(mem)); !ok {
		t.Error("ipcEnvelope under ipcMagic is no memory handle")
	}
	if _, ok := parseIPCEventHandle(IPCEventHandle(mem)); ok {
		t.Error("a memory handle parsed as an event handle")
	}
	if _, ok := parseIPCEventHandle(h[:len(h)-1]); ok {
		t.Error("a handle cut short parsed")
	}
	if _, ok := parseIPCEventHandle(append(bytes.Clone(h), 0)); ok {
		t.Error("a handle run on parsed")
	}
}

// TestIPCEventRoundTrip: an event made here has a handle of this adapter
// and process around the driver's bytes; a handle of another live process
// opens, giving the driver its bytes, and the opened event passes that
// handle on; signals and waits reach the driver with the queue's driver
// queue; Wait, Query, Native and Release reach the event's.
func TestIPCEventRoundTrip(t *testing.T) {
	f := newIPCEventFixture(t)
	e, err := f.ctx.NewIPCEvent(f.devs[1])
	if err != nil {
		t.Fatal(err)
	}
	if e.Opened() || e.Device() != f.devs[1] || e.Native() != 0xE7 {
		t.Errorf("Opened %v, Device %v, Native %#x", e.Opened(), e.Device(), e.Native())
	}
	h, err := e.Handle()
	if err != nil {
		t.Fatal(err)
	}
	p, ok := parseIPCEventHandle(h)
	if !ok || p.adapter != "cuda" || p.pid != os.Getpid() || string(p.payload) != "fake-event-handle" {
		t.Errorf("handle = %+v, %v", p, ok)
	}
	fe := f.drv.made[0]
	q := f.qs[1]
	if err := q.SignalIPCEvent(e); err != nil {
		t.Fatal(err)
	}
	if err := q.WaitIPCEvent(e); err != nil {
		t.Fatal(err)
	}
	if len(fe.signals) != 1 || fe.signals[0] != q.drv || len(fe.waits) != 1 || fe.waits[0] != q.drv {
		t.Errorf("the driver saw signals %v, waits %v", fe.signals, fe.waits)
	}
	if done, err := e.Query(); done || err != nil {
		t.Errorf("Query before Wait = %v, %v", done, err)
	}
	if err := e.Wait(context.Background()); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	if err := e.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	cancel()
	if err := e.Wait(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("Wait with a done context: %v", err)
	}
	if done, err := e.Query(); !done || err != nil || fe.hostWaits != 2 {
		t.Errorf("Query after Wait = %v, %v; host waits %d", done, err, fe.hostWaits)
	}

	peer := eventHandle("cuda", os.Getppid(), []byte("from the parent"))
	o, err := f.ctx.OpenIPCEvent(f.devs[0], peer)
	if err != nil {
		t.Fatal(err)
	}
	if string(f.drv.openedFrom[0]) != "from the parent" {
		t.Errorf("the driver opened %q", f.drv.openedFrom[0])
	}
	if !o.Opened() {
		t.Error("an opened event says it was made here")
	}
	oh, err := o.Handle()
	if err != nil || !bytes.Equal(oh, peer) {
		t.Errorf("the opened event's Handle = %x, %v; want the handle it was opened from", oh, err)
	}
	oh[0] ^= 0xFF // a copy: the event's own is left as it was
	if oh2, _ := o.Handle(); !bytes.Equal(oh2, peer) {
		t.Error("Handle gave the event's own bytes, not a copy")
	}
	if err := f.qs[0].WaitIPCEvent(o); err != nil {
		t.Fatal(err)
	}
	if err := o.Release(); err != nil {
		t.Fatal(err)
	}
	if err := e.Release(); err != nil {
		t.Fatal(err)
	}
	if fe.releases != 1 || f.drv.opened[0].releases != 1 {
		t.Errorf("driver releases %d and %d, want 1 each", fe.releases, f.drv.opened[0].releases)
	}
}

// TestIPCEventValidation: every argument that cannot work is a typed
// error before the driver sees it.
func TestIPCEventValidation(t *testing.T) {
	f := newIPCEventFixture(t)
	e, err := f.ctx.NewIPCEvent(f.devs[0])
	if err != nil {
		t.Fatal(err)
	}
	defer e.Release()
	h, err := e.Handle()
	if err != nil {
		t.Fatal(err)
	}

	// Contexts and devices.
	_, err = (*Context)(nil).NewIPCEvent(f.devs[0])
	wantResult(t, "NewIPCEvent on a nil context", err, ErrInvalidNullHandle)
	_, err = f.ctx.NewIPCEvent(nil)
	wantResult(t, "NewIPCEvent on a nil device", err, ErrInvalidNullHandle)
	_, err = f.ctx.NewIPCEvent(f.plain.devices[0])
	wantResult(t, "NewIPCEvent on a device out of the context", err, ErrInvalidDevice)
	_, err = f.ctx.OpenIPCEvent(nil, h)
	wantResult(t, "OpenIPCEvent on a nil device", err, ErrInvalidNullHandle)
	for _, call := range []struct {
		name string
		err  error
	}{
		{"NewIPCEvent", func() error { _, err := f.plain.NewIPCEvent(f.plain.devices[0]); return err }()},
		{"OpenIPCEvent", func() error { _, err := f.plain.OpenIPCEvent(f.plain.devices[0], h); return err }()},
	} {
		wantResult(t, call.name+" on an adapter without IPC events", call.err, ErrUnsupportedFeature)
		if call.err != nil && !strings.Contains(call.err.Error(), "opencl adapter") {
			t.Errorf("%s: %v does not name the adapter", call.name, call.err)
		}
	}

	// Handles.
	mem := ipcEnvelope(ipcMagic, "cuda", 4096, []byte("mem"))
	binary.LittleEndian.PutUint64(mem[len(ipcMagic)+1+len("cuda"):], uint64(os.Getppid()))
	for _, tt := range []struct {
		name string
		h    IPCEventHandle
		want Result
		says string
	}{
		{"nil", nil, ErrInvalidValue, "no IPC event handle"},
		{"garbage", IPCEventHandle("not a handle at all, just bytes of some length"), ErrInvalidValue, "no IPC event handle"},
		{"cut short", h[:len(h)-2], ErrInvalidValue, "no IPC event handle"},
		{"a memory handle", IPCEventHandle(mem), ErrInvalidValue, "OpenIPCMemHandle"},
		{"of another adapter", eventHandle("level_zero", os.Getppid(), []byte("x")), ErrInvalidValue, "level_zero adapter"},
		{"of this process", h, ErrInvalidValue, "this process made"},
		{"of a process that has exited", eventHandle("cuda", exitedPID(t), []byte("x")), ErrInvalidEvent, "has exited"},
	} {
		_, err := f.ctx.OpenIPCEvent(f.devs[0], tt.h)
		wantResult(t, "OpenIPCEvent of a handle "+tt.name, err, tt.want)
		if err != nil && !strings.Contains(err.Error(), tt.says) {
			t.Errorf("OpenIPCEvent of a handle %s: %q does not say %q", tt.name, err, tt.says)
		}
	}
	if len(f.drv.opened) != 0 {
		t.Errorf("the driver opened %d bad handles", len(f.drv.opened))
	}
	// An event handle is no memory handle either.
	_, err = f.ctx.OpenIPCMemHandle(f.devs[0], IPCMemHandle(eventHandle("cuda", os.Getppid(), make([]byte, 64))))
	wantResult(t, "OpenIPCMemHandle of an event handle", err, ErrInvalidValue)
	if f.drv.memOpens != 0 {
		t.Error("the driver opened an event handle as memory")
	}

	// Queues and events.
	inOther, err := f.other.NewIPCEvent(f.devs[0])
	if err != nil {
		t.Fatal(err)
	}
	defer inOther.Release()
	released, err := f.ctx.NewIPCEvent(f.devs[0])
	if err != nil {
		t.Fatal(err)
	}
	released.Release()
	deadQueue := f.ctx.newQueue(f.devs[0], fakeIPCQueue{}, QueueProperties{})
	deadQueue.Release()
	cl := &Queue{object: object{adapter: f.plain.adapter}, ctx: f.plain, device: f.plain.devices[0], drv: fakeIPCQueue{}}
	for _, op := range []struct {
		name string
		call func(*Queue, *IPCEvent) error
	}{
		{"SignalIPCEvent", (*Queue).SignalIPCEvent},
		{"WaitIPCEvent", (*Queue).WaitIPCEvent},
	} {
		for _, tt := range []struct {
			name string
			q    *Queue
			e    *IPCEvent
			want Result
		}{
			{"a nil event", f.qs[0], nil, ErrInvalidNullHandle},
			{"a nil queue", nil, e, ErrInvalidNullHandle},
			{"a released event", f.qs[0], released, ErrInvalidEvent},
			{"a released queue", deadQueue, e, ErrInvalidQueue},
			{"an event of another context", f.qs[0], inOther, ErrInvalidContext},
			{"a queue of another adapter", cl, e, ErrInvalidContext},
			{"a queue of another device", f.qs[1], e, ErrInvalidQueue},
		} {
			wantResult(t, op.name+" with "+tt.name, op.call(tt.q, tt.e), tt.want)
		}
	}
	for _, fe := range f.drv.made {
		if len(fe.signals)+len(fe.waits) != 0 {
			t.Errorf("the driver saw %d signals and %d waits of bad calls", len(fe.signals), len(fe.waits))
		}
	}

	// The driver's errors keep their code and gain the call.
	f.drv.made[0].err = driver.Errorf(driver.ResultOutOfResources, "no room")
	err = f.qs[0].SignalIPCEvent(e)
	wantResult(t, "a signal the driver fails", err, ErrOutOfResources)
	if err != nil && !strings.Contains(err.Error(), "Queue.SignalIPCEvent") {
		t.Errorf("%v does not name the call", err)
	}
	f.drv.made[0].err = nil

	// A released event.
	_, err = released.Handle()
	wantResult(t, "Handle of a released event", err, ErrInvalidEvent)
	_, err = released.Query()
	wantResult(t, "Query of a released event", err, ErrInvalidEvent)
	wantResult(t, "Wait of a released event", released.Wait(context.Background()), ErrInvalidEvent)
	wantResult(t, "a second Release", released.Release(), ErrInvalidEvent)
	if released.Native() != 0 || released.Device() != nil || released.Opened() {
		t.Error("a released event still gives its native handle, device or origin")
	}
	var nilEvent *IPCEvent
	wantResult(t, "Release of a nil event", nilEvent.Release(), ErrInvalidNullHandle)
	_, err = nilEvent.Handle()
	wantResult(t, "Handle of a nil event", err, ErrInvalidNullHandle)
	if nilEvent.Native() != 0 || nilEvent.Device() != nil {
		t.Error("a nil event gives a native handle or device")
	}
}

// TestIPCEventLeakCheck: an IPC event never released is a leak of kind
// IPCEvent, made here; released, made or opened, it is gone.
func TestIPCEventLeakCheck(t *testing.T) {
	was := leakCheck.Load()
	leakCheck.Store(true)
	t.Cleanup(func() { leakCheck.Store(was) })
	f := newIPCEventFixture(t)
	e, err := f.ctx.NewIPCEvent(f.devs[0]) // the leak
	if err != nil {
		t.Fatal(err)
	}
	o, err := f.ctx.OpenIPCEvent(f.devs[0], eventHandle("cuda", os.Getppid(), []byte("x")))
	if err != nil {
		t.Fatal(err)
	}
	ids := map[uint64]bool{e.traceID(): true, o.traceID(): true}
	found := 0
	for _, l := range Leaks() {
		if ids[l.ID] {
			found++
			if l.Kind != "IPCEvent" || !strings.Contains(l.Stack, "ipcevent_test.go:") {
				t.Errorf("leak %s", l)
			}
		}
	}
	if found != 2 {
		t.Errorf("%d of the 2 events are among the leaks", found)
	}
	e.Release()
	o.Release()
	for _, l := range Leaks() {
		if ids[l.ID] {
			t.Errorf("released, %s is still a leak", l)
		}
	}
}

// TestIPCEventTraced: every IPC event call is a span in the trace, and
// the new event's creation an instant.
func TestIPCEventTraced(t *testing.T) {
	path := filepath.Join(t.TempDir(), "trace.json")
	if err := StartTrace(path); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { StopTrace() })
	f := newIPCEventFixture(t)
	e, err := f.ctx.NewIPCEvent(f.devs[0])
	if err != nil {
		t.Fatal(err)
	}
	e.Handle()
	f.qs[0].SignalIPCEvent(e)
	f.qs[0].WaitIPCEvent(e)
	e.Query()
	e.Wait(context.Background())
	f.ctx.OpenIPCEvent(f.devs[0], nil)
	e.Release()
	if err := StopTrace(); err != nil {
		t.Fatal(err)
	}
	evs, err := trace.ValidateFile(path)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, ev := range evs {
		seen[ev.Name] = true
	}
	for _, name := range []string{
		"Context.NewIPCEvent", "new IPCEvent", "IPCEvent.Handle", "Queue.SignalIPCEvent", "Queue.WaitIPCEvent",
		"IPCEvent.Query", "IPCEvent.Wait", "Context.OpenIPCEvent", "IPCEvent.Release",
	} {
		if !seen[name] {
			t.Errorf("%s is not in the trace", name)
		}
	}
}
