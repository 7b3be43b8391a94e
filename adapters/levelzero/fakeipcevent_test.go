package levelzero_test

import (
	"bufio"
	"encoding/hex"
	"errors"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/gour-dev/gour/adapters/levelzero"
	"github.com/gour-dev/gour/ur"
)

// This file tests events shared between processes over the fake driver,
// whose IPC pools keep their events' states in shared memory. The two
// processes talk in lines: the child writes lines that start with
// ipcEventLine on its stdout, the parent "signalled" on its stdin.

// envIPCEventChild carries the event's handle, in hex, to the child
// process of fakeIPCEvent.
const envIPCEventChild = "GOUR_ZE_IPCEVENT_CHILD"

const ipcEventLine = "ipcevent: "

// fakeIPCEvent: this process makes an IPC event; a child process opens
// it, finds it pending, and once told it was signalled finds it complete,
// makes its queue wait for it, and signals it again; this process then
// waits for it on its queue and signals once more, which needs the reset
// before the signal. It runs in TestFakeDriverChild.
func fakeIPCEvent(t *testing.T, ctx *ur.Context, dev *ur.Device, q *ur.Queue) {
	e, err := ctx.NewIPCEvent(dev)
	must(t, "NewIPCEvent", err)
	defer e.Release()
	h, err := e.Handle()
	must(t, "Handle", err)
	if done, err := e.Query(); err != nil || done {
		t.Fatalf("a new event: Query = %v, %v", done, err)
	}
	if _, err := ctx.OpenIPCEvent(dev, h); !errors.Is(err, ur.ErrInvalidValue) {
		t.Errorf("opening a handle of this process: %v", err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestFakeDriverIPCEventChild$", "-test.v", "-test.count=1")
	cmd.Env = append(os.Environ(), envIPCEventChild+"="+hex.EncodeToString(h))
	stdin, err := cmd.StdinPipe()
	must(t, "StdinPipe", err)
	stdout, err := cmd.StdoutPipe()
	must(t, "StdoutPipe", err)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	must(t, "starting the child", cmd.Start())
	var out strings.Builder
	lines := bufio.NewScanner(stdout)
	expect := func(want string) {
		t.Helper()
		for lines.Scan() {
			out.WriteString(lines.Text() + "\n")
			if l, ok := strings.CutPrefix(lines.Text(), ipcEventLine); ok {
				if l != want {
					t.Fatalf("the child says %q, want %q\n%s%s", l, want, &out, &stderr)
				}
				return
			}
		}
		t.Fatalf("the child ended before %q\n%s%s", want, &out, &stderr)
	}
	expect("opened, pending")
	must(t, "SignalIPCEvent", q.SignalIPCEvent(e))
	must(t, "Finish", q.Finish())
	_, err = io.WriteString(stdin, "signalled\n")
	must(t, "writing to the child", err)
	expect("waited and signalled")
	for lines.Scan() {
		out.WriteString(lines.Text() + "\n")
	}
	if err := cmd.Wait(); err != nil || !strings.Contains(out.String(), "--- PASS: TestFakeDriverIPCEventChild") {
		t.Fatalf("child: %v\n%s%s", err, &out, &stderr)
	}
	if done, err := e.Query(); err != nil || !done {
		t.Errorf("after the child's signal: Query = %v, %v", done, err)
	}
	must(t, "WaitIPCEvent", q.WaitIPCEvent(e))
	must(t, "SignalIPCEvent again", q.SignalIPCEvent(e))
	must(t, "Finish", q.Finish())
	must(t, "Wait", e.Wait(t.Context()))
	if n := fakeCounter(t, "ipc_pools"); n != 0 {
		t.Errorf("%d IPC pools opened in the parent", n)
	}
}

// TestFakeDriverIPCEventChild is the child process of fakeIPCEvent.
func TestFakeDriverIPCEventChild(t *testing.T) {
	hexHandle := os.Getenv(envIPCEventChild)
	if hexHandle == "" {
		t.Skip("runs as a child process of TestFakeDriver")
	}
	h, err := hex.DecodeString(hexHandle)
	must(t, "the handle", err)
	sys, err := ur.Discover(ur.Config{ForceLoad: []string{levelzero.Name}})
	must(t, "Discover", err)
	dev := sys.Devices[0]
	ctx, err := ur.NewContext(dev)
	must(t, "NewContext", err)
	defer ctx.Release()
	q, err := ctx.NewQueue(dev, ur.QueueProperties{})
	must(t, "NewQueue", err)
	defer q.Release()
	e, err := ctx.OpenIPCEvent(dev, ur.IPCEventHandle(h))
	must(t, "OpenIPCEvent", err)
	if n := fakeCounter(t, "ipc_pools"); n != 1 {
		t.Errorf("%d IPC pools opened, want 1", n)
	}
	done, err := e.Query()
	must(t, "Query", err)
	if done {
		t.Fatal("the event is complete before the parent signalled it")
	}
	os.Stdout.WriteString(ipcEventLine + "opened, pending\n")
	line, err := bufio.NewReader(os.Stdin).ReadString('\n')
	if err != nil || line != "signalled\n" {
		t.Fatalf("from the parent: %q, %v", line, err)
	}
	if done, err := e.Query(); err != nil || !done {
		t.Fatalf("after the parent's signal: Query = %v, %v", done, err)
	}
	must(t, "WaitIPCEvent", q.WaitIPCEvent(e))
	buf, err := ctx.NewBuffer(ur.MemReadWrite, 64)
	must(t, "NewBuffer", err)
	defer buf.Release()
	must(t, "WriteBuffer after the wait", q.WriteBuffer(buf, 0, make([]byte, 64)))
	must(t, "Wait", e.Wait(t.Context()))
	must(t, "SignalIPCEvent", q.SignalIPCEvent(e))
	must(t, "Finish", q.Finish())
	must(t, "Release", e.Release())
	if n := fakeCounter(t, "ipc_pools"); n != 0 {
		t.Errorf("%d IPC pools left open", n)
	}
	os.Stdout.WriteString(ipcEventLine + "waited and signalled\n")
}
