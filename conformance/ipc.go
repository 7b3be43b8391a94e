package conformance

import (
	"bytes"
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/gour-dev/gour/internal/harness/devreq"
	"github.com/gour-dev/gour/ur"
)

// The cases of this file are the Unified Runtime CTS's urIPC*MemHandleExp
// tests: device memory shared with a second process, which is this test
// binary again (the case re-run in a child), and the typed errors of
// handles that cannot be opened.

// envIPCChild carries to the child what it must do: "read:<hex handle>"
// opens the handle, checks the pattern and writes 0xAB over the first
// KiB; "make" allocates, prints a handle and exits.
const envIPCChild = "GOUR_CTS_IPC_CHILD"

const ipcSize = 1 << 20

// runIPCChild runs t's case again in a child process on f's device with
// the child's task, and returns its output.
func runIPCChild(t *testing.T, f *Fixture, task string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	sel := fmt.Sprintf("%s:%d", f.Backend, f.Device.Index())
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run="+runPattern(t.Name()), "-test.v", "-test.count=1")
	cmd.Env = append(os.Environ(), envIPCChild+"="+task, ur.EnvDeviceSelector+"="+sel, devreq.EnvRequireAdapters+"="+f.Backend)
	cmd.WaitDelay = 5 * time.Second
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child (%s): %v\n%s", task, err, tail(out, 4000))
	}
	return string(out)
}

// ipcOrSkip allocates device memory and gets its handle, or skips a
// device without IPC after checking the error is typed.
func ipcOrSkip(t *testing.T, f *Fixture, ctx *ur.Context) (*ur.USM, ur.IPCMemHandle) {
	t.Helper()
	if !f.Device.Info().USM.Device {
		t.Skip("no device USM")
	}
	u, err := ctx.AllocDevice(f.Device, ipcSize)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { u.Free() })
	h, err := u.IPCHandle()
	if errors.Is(err, ur.ErrUnsupportedFeature) {
		t.Skipf("no IPC: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	return u, h
}

// TestIPCMemTwoProcesses: a second process opens the handle, reads what
// this one wrote and writes; this one sees the write.
func TestIPCMemTwoProcesses(t *testing.T) {
	forEachDevice(t, func(t *testing.T, f *Fixture) {
		if task := os.Getenv(envIPCChild); task != "" {
			ipcChild(t, f, task)
			return
		}
		ctx := f.Context(t)
		u, h := ipcOrSkip(t, f, ctx)
		q := f.Queue(t)
		must(t, "CopyToPtr", q.CopyToPtr(u.Ptr(), pattern(ipcSize, 11)))
		out := runIPCChild(t, f, "read:"+hex.EncodeToString(h))
		if !strings.Contains(out, "gour-ipc child read ok") {
			t.Fatalf("the child did not read the memory:\n%s", tail([]byte(out), 4000))
		}
		got := make([]byte, ipcSize)
		must(t, "CopyFromPtr", q.CopyFromPtr(got, u.Ptr()))
		want := pattern(ipcSize, 11)
		copy(want, bytes.Repeat([]byte{0xAB}, 1024))
		if !bytes.Equal(got, want) {
			t.Error("this process does not see what the child wrote")
		}
	})
}

// ipcChild is the child's part of the IPC cases.
func ipcChild(t *testing.T, f *Fixture, task string) {
	ctx := f.Context(t)
	switch {
	case task == "make":
		u, err := ctx.AllocDevice(f.Device, ipcSize)
		must(t, "AllocDevice", err)
		h, err := u.IPCHandle()
		must(t, "IPCHandle", err)
		fmt.Printf("gour-ipc handle %s\n", hex.EncodeToString(h))
		must(t, "Free", u.Free()) // the process exits next: its handles die with it
	case strings.HasPrefix(task, "read:"):
		h, err := hex.DecodeString(strings.TrimPrefix(task, "read:"))
		must(t, "decoding the handle", err)
		u, err := ctx.OpenIPCMemHandle(f.Device, h)
		must(t, "OpenIPCMemHandle", err)
		if u.Size() != ipcSize || u.Kind() != ur.USMDevice {
			t.Fatalf("opened %d bytes of %v memory", u.Size(), u.Kind())
		}
		q := f.Queue(t)
		got := make([]byte, ipcSize)
		must(t, "CopyFromPtr", q.CopyFromPtr(got, u.Ptr()))
		if !bytes.Equal(got, pattern(ipcSize, 11)) {
			t.Fatal("the child reads other bytes than the parent wrote")
		}
		must(t, "CopyToPtr", q.CopyToPtr(u.Ptr(), bytes.Repeat([]byte{0xAB}, 1024)))
		must(t, "Free (close)", u.Free())
		fmt.Println("gour-ipc child read ok")
	}
}

// TestIPCMemBadInput: bytes that are no handle, a handle of this process,
// of a process that has exited, of memory that has none.
func TestIPCMemBadInput(t *testing.T) {
	forEachDevice(t, func(t *testing.T, f *Fixture) {
		if task := os.Getenv(envIPCChild); task != "" {
			ipcChild(t, f, task)
			return
		}
		ctx := f.Context(t)
		_, h := ipcOrSkip(t, f, ctx)
		check := func(name string, err error, want ur.Result) {
			t.Helper()
			if !errors.Is(err, want) {
				t.Errorf("%s: %v, want %v", name, err, want)
			}
		}
		_, err := ctx.OpenIPCMemHandle(f.Device, nil)
		check("nil handle", err, ur.ErrInvalidValue)
		_, err = ctx.OpenIPCMemHandle(f.Device, []byte("not a handle at all, just bytes of the right length maybe"))
		check("garbage", err, ur.ErrInvalidValue)
		_, err = ctx.OpenIPCMemHandle(f.Device, h[:len(h)-60])
		check("truncated handle", err, ur.ErrInvalidValue)
		_, err = ctx.OpenIPCMemHandle(f.Device, h)
		check("handle of this process", err, ur.ErrInvalidValue)
		_, err = ctx.OpenIPCMemHandle(nil, h)
		check("nil device", err, ur.ErrInvalidNullHandle)
		// A handle of a process that has exited.
		out := runIPCChild(t, f, "make")
		m := regexp.MustCompile(`gour-ipc handle ([0-9a-f]+)`).FindStringSubmatch(out)
		if m == nil {
			t.Fatalf("the child printed no handle:\n%s", tail([]byte(out), 4000))
		}
		dead, _ := hex.DecodeString(m[1])
		_, err = ctx.OpenIPCMemHandle(f.Device, dead)
		check("handle of an exited process", err, ur.ErrInvalidMemObject)
		host, err := ctx.AllocHost(4096)
		if err == nil {
			defer host.Free()
			_, err = host.IPCHandle()
			check("handle of host memory", err, ur.ErrInvalidValue)
		}
	})
}

// TestIPCMemUnsupported: an adapter without IPC says so, typed, at both
// ends.
func TestIPCMemUnsupported(t *testing.T) {
	forEachDevice(t, func(t *testing.T, f *Fixture) {
		ctx := f.Context(t)
		if !f.Device.Info().USM.Device {
			t.Skip("no device USM")
		}
		u, err := ctx.AllocDevice(f.Device, 4096)
		if err != nil {
			t.Fatal(err)
		}
		defer u.Free()
		if _, err := u.IPCHandle(); !errors.Is(err, ur.ErrUnsupportedFeature) {
			t.Skipf("the adapter has IPC (%v)", err)
		}
		// An adapter whose driver lacks IPC (Level Zero's test driver)
		// may tell bytes that are no handle first.
		if _, err := ctx.OpenIPCMemHandle(f.Device, []byte("x")); !errors.Is(err, ur.ErrUnsupportedFeature) && !errors.Is(err, ur.ErrInvalidValue) {
			t.Errorf("OpenIPCMemHandle: %v, want ErrUnsupportedFeature or ErrInvalidValue", err)
		}
	})
}
