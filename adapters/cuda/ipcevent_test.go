package cuda_test

import (
	"bufio"
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/gour-dev/gour/ur"
)

// The two processes of TestIPCEventTwoProcesses talk in lines: the
// parent writes "signalled N" to the child's stdin once it has signalled
// the event after the work that leaves N in every float of the shared
// buffer; the child answers on its stdout with lines that start with
// ipcEventLine.

// envIPCEventChild carries the hex memory and event handles to the child,
// separated by a colon.
const envIPCEventChild = "GOUR_CUDA_IPCEVENT_CHILD"

const (
	ipcEventLine   = "ipcevent: "
	ipcEventFloats = 1 << 16
	// ipcEventSpin is clock cycles of the spin kernel before the work on
	// the buffer: a good half second, far longer than a line through a
	// pipe, so the other process's queue does wait for the event.
	ipcEventSpin = 1_000_000_000
)

// TestIPCEventTwoProcesses: a second process opens a buffer and an event
// of this one. Round 1: this process spins, adds 1 three times and
// signals; the child, told so, finds the event pending, waits for it on
// its queue and reads 3s there. Round 2: one more add and a signal, and
// the child waits on the host and reads 4s. Round 3: the child spins,
// adds and signals the event it opened; this process waits on its queue
// and reads 5s.
func TestIPCEventTwoProcesses(t *testing.T) {
	if task := os.Getenv(envIPCEventChild); task != "" {
		ipcEventChild(t, task)
		return
	}
	f := newFixture(t)
	q, spin := f.queueAndKernel(t, "spin")
	add1, err := f.prog.NewKernel("add1")
	if err != nil {
		t.Fatal(err)
	}
	defer add1.Release()
	u, err := f.ctx.AllocDevice(f.dev, ipcEventFloats*4)
	if err != nil {
		t.Fatal(err)
	}
	defer u.Free()
	memH, err := u.IPCHandle()
	if errors.Is(err, ur.ErrUnsupportedFeature) {
		t.Skipf("no IPC: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	e, err := f.ctx.NewIPCEvent(f.dev)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Release()
	evH, err := e.Handle()
	if err != nil {
		t.Fatal(err)
	}
	must := func(what string, err error) {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	if err := q.CopyToPtr(u.Ptr(), make([]byte, ipcEventFloats*4)); err != nil {
		t.Fatal(err)
	}
	must("SetArgPtr", add1.SetArgPtr(0, u.Ptr()))
	must("SetArgUint64", spin.SetArgUint64(0, ipcEventSpin))

	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestIPCEventTwoProcesses$", "-test.count=1")
	cmd.Env = append(os.Environ(), envIPCEventChild+"="+hex.EncodeToString(memH)+":"+hex.EncodeToString(evH))
	cmd.WaitDelay = 5 * time.Second
	stdin, err := cmd.StdinPipe()
	must("StdinPipe", err)
	stdout, err := cmd.StdoutPipe()
	must("StdoutPipe", err)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	must("starting the child", cmd.Start())
	defer cmd.Wait() // after a failure: stdin is closed first, so the child ends
	defer stdin.Close()
	lines := bufio.NewScanner(stdout)
	var seen strings.Builder
	expect := func(want string) {
		t.Helper()
		for lines.Scan() {
			l := lines.Text()
			seen.WriteString(l + "\n")
			if l == ipcEventLine+want {
				return
			}
			if strings.HasPrefix(l, ipcEventLine+"fail") {
				break
			}
		}
		// The child may wait for a line: end its input, then keep
		// what it says until it exits (its failures come last).
		stdin.Close()
		for lines.Scan() {
			seen.WriteString(lines.Text() + "\n")
		}
		t.Fatalf("the child did not say %q:\n%s%s", want, seen.String(), stderr.String())
	}
	tell := func(line string) {
		t.Helper()
		if _, err := io.WriteString(stdin, line+"\n"); err != nil {
			t.Fatalf("telling the child %q: %v", line, err)
		}
	}

	expect("ready")
	// Round 1: work on the device, then the signal; no Finish.
	must("Launch spin", q.Launch(spin, ur.Range1D(1)))
	for range 3 {
		must("Launch add1", q.Launch(add1, ur.Range1D(ipcEventFloats)))
	}
	must("SignalIPCEvent", q.SignalIPCEvent(e))
	tell("signalled 3")
	expect("read 3")
	// Round 2.
	must("Launch add1", q.Launch(add1, ur.Range1D(ipcEventFloats)))
	must("SignalIPCEvent", q.SignalIPCEvent(e))
	tell("signalled 4")
	expect("read 4")
	// Round 3: the child signals, this process waits on the device.
	expect("signalled 5")
	if done, err := e.Query(); err != nil || done {
		t.Errorf("Query while the child's work runs = %v, %v; want false", done, err)
	}
	must("WaitIPCEvent", q.WaitIPCEvent(e))
	checkFloats(t, q, u.Ptr(), 5)
	tell("done")
	expect("ok")
	stdin.Close()
	io.Copy(io.Discard, stdout)
	if err := cmd.Wait(); err != nil {
		t.Fatalf("child: %v\n%s", err, stderr.String())
	}
}

// checkFloats reads the shared buffer on q and checks every float is want.
func checkFloats(t *testing.T, q *ur.Queue, p ur.Ptr, want float32) {
	t.Helper()
	got := make([]float32, ipcEventFloats)
	if err := q.CopyFromPtr(unsafe.Slice((*byte)(unsafe.Pointer(&got[0])), len(got)*4), p); err != nil {
		t.Fatalf("CopyFromPtr: %v", err)
	}
	for i, v := range got {
		if v != want {
			t.Fatalf("float %d is %v, want %v", i, v, want)
		}
	}
}

// ipcEventChild is the child's side: it opens the handles of task, says
// ready and follows the rounds. A failure is a line of its own, so the
// parent stops waiting.
func ipcEventChild(t *testing.T, task string) {
	defer func() {
		if t.Failed() {
			fmt.Println(ipcEventLine + "fail")
		}
	}()
	hm, he, ok := strings.Cut(task, ":")
	memH, err1 := hex.DecodeString(hm)
	evH, err2 := hex.DecodeString(he)
	if !ok || err1 != nil || err2 != nil {
		t.Fatalf("bad task %q", task)
	}
	f := newFixture(t)
	q, spin := f.queueAndKernel(t, "spin")
	add1, err := f.prog.NewKernel("add1")
	if err != nil {
		t.Fatal(err)
	}
	defer add1.Release()
	u, err := f.ctx.OpenIPCMemHandle(f.dev, memH)
	if err != nil {
		t.Fatalf("OpenIPCMemHandle: %v", err)
	}
	defer u.Free()
	e, err := f.ctx.OpenIPCEvent(f.dev, evH)
	if err != nil {
		t.Fatalf("OpenIPCEvent: %v", err)
	}
	defer e.Release()
	if !e.Opened() {
		t.Error("the opened event says it was made here")
	}
	if h, err := e.Handle(); err != nil || hex.EncodeToString(h) != he {
		t.Errorf("the opened event's Handle = %x, %v; want the one it was opened from", h, err)
	}
	in := bufio.NewReader(os.Stdin)
	await := func(want string) {
		t.Helper()
		l, err := in.ReadString('\n')
		if err != nil || strings.TrimSpace(l) != want {
			t.Fatalf("the parent said %q (%v), want %q", l, err, want)
		}
	}
	say := func(s string) { fmt.Println(ipcEventLine + s) }
	say("ready")

	// Round 1: the parent's spin is still running when it says it has
	// signalled, so the event is pending and the queue must wait.
	await("signalled 3")
	if done, err := e.Query(); err != nil || done {
		t.Errorf("Query right after the parent's signal = %v, %v; want false", done, err)
	}
	if err := q.WaitIPCEvent(e); err != nil {
		t.Fatalf("WaitIPCEvent: %v", err)
	}
	checkFloats(t, q, u.Ptr(), 3)
	say("read 3")
	// Round 2: a wait on the host.
	await("signalled 4")
	if err := e.Wait(t.Context()); err != nil {
		t.Fatalf("Wait: %v", err)
	}
	if done, err := e.Query(); err != nil || !done {
		t.Errorf("Query after Wait = %v, %v; want true", done, err)
	}
	checkFloats(t, q, u.Ptr(), 4)
	say("read 4")
	// Round 3: this process signals the event it opened.
	if err := spin.SetArgUint64(0, ipcEventSpin); err != nil {
		t.Fatal(err)
	}
	if err := add1.SetArgPtr(0, u.Ptr()); err != nil {
		t.Fatal(err)
	}
	if err := q.Launch(spin, ur.Range1D(1)); err != nil {
		t.Fatal(err)
	}
	if err := q.Launch(add1, ur.Range1D(ipcEventFloats)); err != nil {
		t.Fatal(err)
	}
	if err := q.SignalIPCEvent(e); err != nil {
		t.Fatalf("SignalIPCEvent on the opened event: %v", err)
	}
	say("signalled 5")
	await("done")
	if err := q.Finish(); err != nil {
		t.Fatal(err)
	}
	say("ok")
}
