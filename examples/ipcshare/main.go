// Command ipcshare shares a device buffer with a second process through
// an IPC handle (USM.IPCHandle, Context.OpenIPCMemHandle) and measures how
// fast the second process reads it: a device-to-device copy out of the
// opened memory, against the same copy between two of its own
// allocations. The parent fills the buffer, starts itself again as the
// child with the handle, and checks what the child reports. Where the
// adapter shares events too (Context.NewIPCEvent), the parent does not
// wait for the fill: it signals an IPC event after it and the child's
// queue waits for that event on the device before its first copy.
//
//	go run ./examples/ipcshare               # 1 GiB
//	go run ./examples/ipcshare -mib 64
//
// On a device without IPC (OpenCL; PoCL in CI) it says so and exits 0.
package main

import (
	"context"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"os/exec"
	"strings"
	"time"

	_ "github.com/gour-dev/gour/adapters/all"
	"github.com/gour-dev/gour/ur"
)

// envHandle carries the handle to the child, envEvent the handle of the
// event signalled after the fill (empty where the parent waited for the
// fill on the host).
const (
	envHandle = "GOUR_IPCSHARE_HANDLE"
	envEvent  = "GOUR_IPCSHARE_EVENT"
)

func main() {
	mib := flag.Uint64("mib", 1024, "buffer size in MiB")
	flag.Parse()
	var err error
	if h := os.Getenv(envHandle); h != "" {
		err = child(os.Stdout, h, os.Getenv(envEvent), *mib<<20)
	} else {
		err = parent(os.Stdout, *mib<<20, func(handle, event string) ([]byte, error) {
			cmd := exec.Command(os.Args[0], os.Args[1:]...)
			cmd.Env = append(os.Environ(), envHandle+"="+handle, envEvent+"="+event)
			return cmd.CombinedOutput()
		})
	}
	if err != nil {
		log.Fatal(err)
	}
}

// defaultContext is the default device and a context of it, the same
// in the parent and in the child.
func defaultContext() (*ur.Device, *ur.Context, error) {
	dev, err := ur.DefaultDevice()
	if err != nil {
		return nil, nil, err
	}
	ctx, err := ur.NewContext(dev)
	if err != nil {
		return nil, nil, err
	}
	return dev, ctx, nil
}

// parent allocates and fills the buffer, and runs the child with its
// handle and the event's through run.
func parent(w io.Writer, size uint64, run func(handle, event string) ([]byte, error)) error {
	dev, ctx, err := defaultContext()
	if err != nil {
		return err
	}
	defer ctx.Release()
	u, err := ctx.AllocDevice(dev, size)
	if errors.Is(err, ur.ErrUnsupportedFeature) {
		fmt.Fprintf(w, "%s has no device USM, so nothing to share: %v\n", dev, err)
		return nil
	}
	if err != nil {
		return err
	}
	defer u.Free()
	h, err := u.IPCHandle()
	if errors.Is(err, ur.ErrUnsupportedFeature) {
		fmt.Fprintf(w, "%s cannot share memory between processes: %v\n", dev, err)
		return nil
	}
	if err != nil {
		return err
	}
	q, err := ctx.NewQueue(dev, ur.QueueProperties{})
	if err != nil {
		return err
	}
	defer q.Release()
	defer q.Finish() // the fill, if the child failed before it waited
	ev, err := q.EnqueueMemFill(u.Ptr(), []byte{0x5A}, size)
	if err != nil {
		return err
	}
	if ev != nil {
		defer ev.Release()
	}
	e, event, err := signalFill(w, ctx, dev, q)
	if err != nil {
		return err
	}
	if e != nil {
		defer e.Release()
	}
	out, err := run(hex.EncodeToString(h), event)
	fmt.Fprint(w, string(out))
	if err != nil {
		return fmt.Errorf("child: %w", err)
	}
	if !strings.Contains(string(out), "child read ok") {
		return errors.New("the child did not read the buffer")
	}
	return nil
}

// signalFill is how the child learns that the fill enqueued on q is
// done: an IPC event signalled after it, which the caller releases once
// the child has exited, and its hex handle; or, on an adapter without
// IPC events, no event and "" once this process has waited for the fill.
func signalFill(w io.Writer, ctx *ur.Context, dev *ur.Device, q *ur.Queue) (*ur.IPCEvent, string, error) {
	e, err := ctx.NewIPCEvent(dev)
	var h ur.IPCEventHandle
	if err == nil {
		// A driver may make the event and have no handle for it.
		if h, err = e.Handle(); err == nil {
			err = q.SignalIPCEvent(e)
		}
		if err != nil {
			e.Release()
		}
	}
	if errors.Is(err, ur.ErrUnsupportedFeature) {
		fmt.Fprintf(w, "%s cannot share events between processes, so the parent waits for the fill: %v\n", dev, err)
		return nil, "", q.Finish()
	}
	if err != nil {
		return nil, "", err
	}
	return e, hex.EncodeToString(h), nil
}

// child opens the handle and times copies out of it and between its own
// allocations, after the fill: on the device, through the IPC event whose
// handle is event, or at once where event is "".
func child(w io.Writer, handle, event string, size uint64) error {
	h, err := hex.DecodeString(handle)
	if err != nil {
		return err
	}
	dev, ctx, err := defaultContext()
	if err != nil {
		return err
	}
	defer ctx.Release()
	shared, err := ctx.OpenIPCMemHandle(dev, h)
	if err != nil {
		return err
	}
	defer shared.Free()
	size = min(size, shared.Size())
	a, err := ctx.AllocDevice(dev, size)
	if err != nil {
		return err
	}
	defer a.Free()
	b, err := ctx.AllocDevice(dev, size)
	if err != nil {
		return err
	}
	defer b.Free()
	q, err := ctx.NewQueue(dev, ur.QueueProperties{})
	if err != nil {
		return err
	}
	defer q.Release()
	if event != "" {
		eh, err := hex.DecodeString(event)
		if err != nil {
			return err
		}
		e, err := ctx.OpenIPCEvent(dev, eh)
		if err != nil {
			return err
		}
		defer e.Release()
		// The copies below wait for the parent's fill on the device: the
		// host goes on, and the first copy's time includes the wait,
		// which the best of five leaves out.
		if err := q.WaitIPCEvent(e); err != nil {
			return err
		}
		fmt.Fprintln(w, "the child's queue waits for the parent's fill through an IPC event")
	}
	timeCopy := func(dst, src ur.Ptr) (time.Duration, error) {
		best := time.Duration(1 << 62)
		for range 5 {
			start := time.Now()
			ev, err := q.EnqueueMemcpy(dst, src, size)
			if err != nil {
				return 0, err
			}
			if err := ev.Wait(context.Background()); err != nil {
				return 0, err
			}
			ev.Release()
			best = min(best, time.Since(start))
		}
		return best, nil
	}
	ipc, err := timeCopy(a.Ptr(), shared.Ptr())
	if err != nil {
		return err
	}
	local, err := timeCopy(b.Ptr(), a.Ptr())
	if err != nil {
		return err
	}
	got := make([]byte, 4096)
	if err := q.CopyFromPtr(got, a.Ptr().Add(size-4096)); err != nil {
		return err
	}
	for _, v := range got {
		if v != 0x5A {
			return fmt.Errorf("read %#x through the handle, want 0x5a", v)
		}
	}
	gbs := func(d time.Duration) float64 { return float64(size) / d.Seconds() / 1e9 }
	fmt.Fprintf(w, "%s: %d MiB through the IPC handle %.1f GB/s, between own allocations %.1f GB/s: ratio %.2f\n",
		dev, size>>20, gbs(ipc), gbs(local), gbs(ipc)/gbs(local))
	fmt.Fprintln(w, "child read ok")
	return nil
}
