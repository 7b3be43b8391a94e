package ur_test

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"

	_ "github.com/gour-dev/gour/adapters/all"
	"github.com/gour-dev/gour/internal/harness/testenv"
	"github.com/gour-dev/gour/ur"
)

// This file tests what a device's failures look like through the whole
// stack, on the devices the environment selects: running out of device
// memory, which a context survives, and a kernel's fault, which loses the
// context and the device for the process (ur/lost.go).

const gib = 1 << 30

// TestOutOfDeviceMemory allocates 1 GiB buffers, each filled so that a
// driver that allocates lazily (NVIDIA's OpenCL) commits it, until the
// device refuses: the refusal must be ErrOutOfDeviceMemory, the context
// not lost, and after the buffers are freed it must allocate and compute
// again. CPU devices whose global memory is over 8 GiB are skipped: their
// "device memory" is the host's, which the kernel overcommits, so the
// refusal would come from the OOM killer, late and for the whole machine,
// rather than from the driver. The runs that matter are on GPUs.
func TestOutOfDeviceMemory(t *testing.T) {
	ran := 0
	for _, dev := range testenv.Devices(t) {
		info := dev.Info()
		if info.Type != ur.DeviceTypeGPU && info.GlobalMemSize > 8*gib {
			t.Logf("%s skipped: a %v device of %.1f GiB global memory (host memory): filling it would be refused by the OOM killer, not the driver",
				dev, info.Type, float64(info.GlobalMemSize)/gib)
			continue
		}
		ran++
		t.Run(dev.String(), func(t *testing.T) { outOfDeviceMemory(t, dev) })
	}
	if ran == 0 {
		t.Skip("no device to fill: only CPU devices of more than 8 GiB (see above)")
	}
}

func outOfDeviceMemory(t *testing.T, dev *ur.Device) {
	info := dev.Info()
	chunk := uint64(gib)
	if info.MaxMemAllocSize != 0 && info.MaxMemAllocSize < chunk {
		chunk = info.MaxMemAllocSize
	}
	// Bounded: a few chunks past the device's memory, then the test fails
	// for want of a refusal.
	limit := int(info.GlobalMemSize/chunk) + 4
	ctx, q := testenv.ContextQueue(t, dev)
	var bufs []*ur.Mem
	release := func() {
		for _, m := range bufs {
			if err := m.Release(); err != nil {
				t.Errorf("Release: %v", err)
			}
		}
		bufs = nil
	}
	defer release()
	var refused error
	for len(bufs) < limit && refused == nil {
		m, err := ctx.NewBuffer(ur.MemReadWrite, chunk)
		if err != nil {
			refused = err
			break
		}
		bufs = append(bufs, m)
		ev, err := q.EnqueueFill(m, []byte{0}, 0, chunk)
		if err == nil {
			err = errors.Join(q.Finish(), ev.Release())
		}
		refused = err
	}
	if refused == nil {
		t.Fatalf("%d allocations of %d MiB (%.1f GiB, the device has %.1f GiB) without a refusal",
			len(bufs), chunk>>20, float64(uint64(len(bufs))*chunk)/gib, float64(info.GlobalMemSize)/gib)
	}
	t.Logf("refused after %d buffers of %d MiB: %v", len(bufs), chunk>>20, refused)
	if !errors.Is(refused, ur.ErrOutOfDeviceMemory) {
		t.Fatalf("the refusal is %v, want ErrOutOfDeviceMemory", refused)
	}
	if err := ctx.Lost(); err != nil {
		t.Fatalf("Context.Lost after running out of memory = %v, want nil", err)
	}
	release()

	// The context works again: a chunk, and a round trip.
	m, err := ctx.NewBuffer(ur.MemReadWrite, chunk)
	if err != nil {
		t.Fatalf("NewBuffer after freeing: %v", err)
	}
	bufs = append(bufs, m)
	ev, err := q.EnqueueFill(m, []byte{7}, 0, chunk)
	if err != nil {
		t.Fatalf("EnqueueFill after freeing: %v", err)
	}
	defer ev.Release()
	got := make([]byte, 64)
	if err := q.ReadBuffer(m, chunk-64, got); err != nil {
		t.Fatalf("ReadBuffer after freeing: %v", err)
	}
	if !bytes.Equal(got, bytes.Repeat([]byte{7}, 64)) {
		t.Errorf("read back %v, want 7s", got)
	}
}

// envFaultTest turns the fault tests on; they kill the device for their
// process, so each runs in a child process of its own.
const envFaultTest = "GOUR_FAULT_TEST"

// envFaultChild marks the child process of TestDeviceFault.
const envFaultChild = "GOUR_FAULT_CHILD"

// TestDeviceFault runs a kernel that writes through a wild pointer on
// every selected CUDA device and NVIDIA OpenCL device, each in a child
// process (TestDeviceFaultChild) with the selector narrowed to it, and
// checks that the fault is reported as a lost device. Other OpenCL
// platforms are left out: on a CPU device (PoCL) the write is a segfault
// of the test process itself. It runs only with GOUR_FAULT_TEST=1.
func TestDeviceFault(t *testing.T) {
	if os.Getenv(envFaultChild) != "" {
		t.Skip("in the child process")
	}
	if os.Getenv(envFaultTest) != "1" {
		t.Skipf("%s=1 runs it: it loses the device (in child processes)", envFaultTest)
	}
	var faultable []*ur.Device
	for _, dev := range testenv.Devices(t) {
		if faultsSafely(dev) {
			faultable = append(faultable, dev)
		}
	}
	if len(faultable) == 0 {
		if testenv.IsRequired("cuda") {
			t.Fatal("no CUDA or NVIDIA OpenCL device, and cuda is required")
		}
		t.Skip("no CUDA or NVIDIA OpenCL device selected")
	}
	for _, dev := range faultable {
		t.Run(dev.String(), func(t *testing.T) {
			cmd := exec.Command(os.Args[0], "-test.run=^TestDeviceFaultChild$", "-test.v", "-test.count=1")
			cmd.Env = append(os.Environ(), envFaultChild+"=1",
				fmt.Sprintf("%s=%s:%d", ur.EnvDeviceSelector, dev.Backend(), dev.Index()),
				testenv.EnvRequireAdapters+"="+dev.Backend()) // the last of a key wins
			out, err := cmd.CombinedOutput()
			if err != nil || !bytes.Contains(out, []byte("--- PASS: TestDeviceFaultChild")) {
				t.Fatalf("child process: %v\n%s", err, out)
			}
			t.Logf("child process:\n%s", out)
		})
	}
}

// faultsSafely reports whether a wild write on dev is a device fault the
// driver reports, rather than a crash of the process: CUDA devices, and
// NVIDIA's OpenCL.
func faultsSafely(dev *ur.Device) bool {
	switch dev.Backend() {
	case "cuda":
		return true
	case "opencl":
		return strings.Contains(dev.Platform().Info().Vendor, "NVIDIA")
	}
	return false
}

// wildPTX writes 42 through the address it is given.
const wildPTX = `
.version 7.0
.target sm_52
.address_size 64
.visible .entry wild(.param .u64 addr) {
	.reg .b32 %r<2>;
	.reg .b64 %rd<2>;
	ld.param.u64 %rd1, [addr];
	mov.u32 %r1, 42;
	st.global.u32 [%rd1], %r1;
	ret;
}
`

// wildCL is wildPTX in OpenCL C: an integer cast to a global pointer.
const wildCL = `__kernel void wild(ulong addr) { *(__global volatile int *)addr = 42; }`

// TestDeviceFaultChild is TestDeviceFault's child: on the one device
// selected, a kernel writes through 0xdead0000; Finish must give
// ErrDeviceLost, so must every later call of the context and a new
// context on the device, and Context.Lost and Device.Lost must say so.
func TestDeviceFaultChild(t *testing.T) {
	if os.Getenv(envFaultChild) == "" {
		t.Skip("runs as TestDeviceFault's child process")
	}
	devs := testenv.Devices(t)
	if len(devs) != 1 {
		t.Fatalf("%d devices selected, want the one TestDeviceFault chose", len(devs))
	}
	dev := devs[0]
	ctx, err := ur.NewContext(dev)
	if err != nil {
		t.Fatal(err)
	}
	defer ctx.Release()
	q, err := ctx.NewQueue(dev, ur.QueueProperties{})
	if err != nil {
		t.Fatal(err)
	}
	defer q.Release()
	var prog *ur.Program
	if dev.Backend() == "cuda" {
		prog, err = ctx.NewProgramFromIL([]byte(wildPTX))
	} else {
		prog, err = ctx.NewProgramFromSource(wildCL)
	}
	if err != nil {
		t.Fatal(err)
	}
	defer prog.Release()
	if err := prog.Build(""); err != nil {
		t.Fatal(err)
	}
	k, err := prog.NewKernel("wild")
	if err != nil {
		t.Fatal(err)
	}
	defer k.Release()
	buf, err := ctx.NewBuffer(ur.MemReadWrite, 64)
	if err != nil {
		t.Fatal(err)
	}
	defer buf.Release()

	if err := q.Launch(k, ur.Range1D(1), ur.ArgOf(uint64(0xdead0000))); err != nil && !errors.Is(err, ur.ErrDeviceLost) {
		t.Fatalf("the launch = %v, want success (the fault shows at Finish) or ErrDeviceLost", err)
	}
	err = q.Finish()
	t.Logf("Finish after the fault: %v", err)
	if !errors.Is(err, ur.ErrDeviceLost) && !errors.Is(ctx.Lost(), ur.ErrDeviceLost) {
		t.Fatalf("Finish after a wild write = %v, want ErrDeviceLost", err)
	}
	if !errors.Is(ctx.Lost(), ur.ErrDeviceLost) || !errors.Is(dev.Lost(), ur.ErrDeviceLost) {
		t.Errorf("Context.Lost = %v, Device.Lost = %v, want ErrDeviceLost", ctx.Lost(), dev.Lost())
	}
	if err := q.ReadBuffer(buf, 0, make([]byte, 4)); !errors.Is(err, ur.ErrDeviceLost) {
		t.Errorf("ReadBuffer after the fault = %v, want ErrDeviceLost", err)
	}
	if err := q.Finish(); !errors.Is(err, ur.ErrDeviceLost) {
		t.Errorf("a second Finish = %v, want ErrDeviceLost", err)
	}
	if _, err := ctx.NewBuffer(ur.MemReadWrite, 64); !errors.Is(err, ur.ErrDeviceLost) {
		t.Errorf("NewBuffer after the fault = %v, want ErrDeviceLost", err)
	}
	if c2, err := ur.NewContext(dev); !errors.Is(err, ur.ErrDeviceLost) {
		if c2 != nil {
			c2.Release()
		}
		t.Errorf("NewContext on the lost device = %v, want ErrDeviceLost", err)
	}
}
