package levelzero_test

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/gour-dev/gour/adapters/levelzero"
	"github.com/gour-dev/gour/ur"
)

// envFaultKernel makes the fake driver fault at a launch of the kernel it
// names and report ZE_RESULT_ERROR_DEVICE_LOST from then on
// (testdata/fakedriver/ze_fake_driver.c).
const envFaultKernel = "GOUR_FAKE_ZE_FAULT_KERNEL"

// TestFakeDriverDeviceLost runs TestFakeDriverLostChild over the fake
// driver told to fault at fill_u32: in a process of its own, since a lost
// device stays lost for the process.
func TestFakeDriverDeviceLost(t *testing.T) {
	if os.Getenv(envFakeDriver) != "" {
		t.Skip("in the child process")
	}
	lib := buildFakeDriver(t)
	cmd := exec.Command(os.Args[0], "-test.run=^TestFakeDriverLostChild$", "-test.v", "-test.count=1")
	cmd.Env = append(os.Environ(),
		envFakeDriver+"="+lib,
		envFaultKernel+"=fill_u32",
		"ZE_ENABLE_ALT_DRIVERS="+lib,
		ur.EnvDeviceSelector+"=level_zero:*",
	)
	out, err := cmd.CombinedOutput()
	if err != nil || !bytes.Contains(out, []byte("--- PASS: TestFakeDriverLostChild")) {
		t.Fatalf("child process over the faulting fake driver failed: %v\n%s", err, out)
	}
	t.Logf("child process over the faulting fake driver:\n%s", out)
}

// TestFakeDriverLostChild checks, over a driver that reports
// ZE_RESULT_ERROR_DEVICE_LOST after a kernel faulted, that Finish gives
// ErrDeviceLost naming the driver's code, that every later call of the
// context is refused with it, that Context.Lost and Device.Lost say so,
// that a new context on the device is refused, and that releasing
// everything still works.
func TestFakeDriverLostChild(t *testing.T) {
	if os.Getenv(envFakeDriver) == "" || os.Getenv(envFaultKernel) == "" {
		t.Skip("runs as TestFakeDriverDeviceLost's child process")
	}
	sys, err := ur.Discover(ur.Config{ForceLoad: []string{levelzero.Name}})
	if err != nil {
		t.Fatal(err)
	}
	if len(sys.Devices) != 1 {
		t.Fatalf("%d devices over the fake driver (statuses %+v)", len(sys.Devices), sys.Statuses)
	}
	dev := sys.Devices[0]
	ctx, err := ur.NewContext(dev)
	must(t, "NewContext", err)
	defer ctx.Release()
	q, err := ctx.NewQueue(dev, ur.QueueProperties{})
	must(t, "NewQueue", err)
	defer q.Release()
	prog := fakeProgram(t, ctx, dev, "kernels_fp64.spv")
	defer prog.Release()
	k, err := prog.NewKernel("fill_u32")
	must(t, "NewKernel", err)
	defer k.Release()
	buf, err := ctx.NewBuffer(ur.MemReadWrite, 4*64)
	must(t, "NewBuffer", err)
	defer buf.Release()

	if err := ctx.Lost(); err != nil {
		t.Fatalf("Context.Lost before the fault = %v", err)
	}
	must(t, "Launch with arguments", q.Launch(k, ur.Range1D(64), ur.ArgBuffer(buf), ur.ArgOf(uint32(7))))
	err = q.Finish()
	if !errors.Is(err, ur.ErrDeviceLost) || !strings.Contains(err.Error(), "ZE_RESULT_ERROR_DEVICE_LOST") {
		t.Fatalf("Finish after the fault = %v, want ErrDeviceLost naming ZE_RESULT_ERROR_DEVICE_LOST", err)
	}
	if !errors.Is(ctx.Lost(), ur.ErrDeviceLost) || !errors.Is(dev.Lost(), ur.ErrDeviceLost) {
		t.Errorf("after the fault: Context.Lost = %v, Device.Lost = %v, want ErrDeviceLost", ctx.Lost(), dev.Lost())
	}
	if err := q.ReadBuffer(buf, 0, make([]byte, 4)); !errors.Is(err, ur.ErrDeviceLost) || !strings.Contains(err.Error(), "Queue.Finish") {
		t.Errorf("ReadBuffer after the loss = %v, want ErrDeviceLost naming the Finish that found it", err)
	}
	if err := q.Launch(k, ur.Range1D(64)); !errors.Is(err, ur.ErrDeviceLost) {
		t.Errorf("Launch after the loss = %v, want ErrDeviceLost", err)
	}
	if _, err := ctx.NewBuffer(ur.MemReadWrite, 64); !errors.Is(err, ur.ErrDeviceLost) {
		t.Errorf("NewBuffer after the loss = %v, want ErrDeviceLost", err)
	}
	if c2, err := ur.NewContext(dev); !errors.Is(err, ur.ErrDeviceLost) {
		if c2 != nil {
			c2.Release()
		}
		t.Errorf("NewContext on the lost device = %v, want ErrDeviceLost", err)
	}
}
