// Command ipcshare shares a device buffer with a second process through
// an IPC handle (USM.IPCHandle, Context.OpenIPCMemHandle) and measures how
// fast the second process reads it: a device-to-device copy out of the
// opened memory, against the same copy between two of its own
// allocations. The parent fills the buffer, starts itself again as the
// child with the handle, and checks what the child reports.
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

// envHandle carries the handle to the child.
const envHandle = "GOUR_IPCSHARE_HANDLE"

func main() {
	mib := flag.Uint64("mib", 1024, "buffer size in MiB")
	flag.Parse()
	var err error
	if h := os.Getenv(envHandle); h != "" {
		err = child(os.Stdout, h, *mib<<20)
	} else {
		err = parent(os.Stdout, *mib<<20, func(handle string) ([]byte, error) {
			cmd := exec.Command(os.Args[0], os.Args[1:]...)
			cmd.Env = append(os.Environ(), envHandle+"="+handle)
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
// handle through run.
func parent(w io.Writer, size uint64, run func(handle string) ([]byte, error)) error {
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
	ev, err := q.EnqueueMemFill(u.Ptr(), []byte{0x5A}, size)
	if err != nil {
		return err
	}
	if ev != nil {
		defer ev.Release()
	}
	if err := q.Finish(); err != nil {
		return err
	}
	out, err := run(hex.EncodeToString(h))
	fmt.Fprint(w, string(out))
	if err != nil {
		return fmt.Errorf("child: %w", err)
	}
	if !strings.Contains(string(out), "child read ok") {
		return errors.New("the child did not read the buffer")
	}
	return nil
}

// child opens the handle and times copies out of it and between its own
// allocations.
func child(w io.Writer, handle string, size uint64) error {
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
