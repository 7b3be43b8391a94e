package cltrace

import (
	"testing"

	"github.com/ebitengine/purego"
	"github.com/gour-dev/gour/ur/driver"
)

// Launch maps the call's cl_int to a status: CL_SUCCESS is Launched,
// anything else LaunchFailed (the front end then launches through
// Queue.Launch, which reports the error). A driver that refuses a launch
// the front end has checked is hard to provoke, so libc's abs stands in
// for clEnqueueNDRangeKernel: it returns its first argument's magnitude,
// and ignores the other eight.
func TestPreparedLaunchStatus(t *testing.T) {
	libc, err := purego.Dlopen("libc.so.6", purego.RTLD_NOW)
	if err != nil {
		t.Skipf("no libc.so.6 to stand in for OpenCL: %v", err)
	}
	defer purego.Dlclose(libc)
	abs, err := purego.Dlsym(libc, "abs")
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		status int32 // what the stand-in returns, as a cl_int
		want   driver.LaunchStatus
	}{
		{0, driver.Launched},
		{-52, driver.LaunchFailed}, // CL_INVALID_KERNEL_ARGS
		{-5, driver.LaunchFailed},  // CL_OUT_OF_RESOURCES
	} {
		p := &preparedLaunch{fn: abs}
		p.args[0] = uintptr(uint32(tt.status)) // abs takes an int: the low 32 bits
		before := cPreparedLaunch.n.Load()
		if got := p.Launch(); got != tt.want {
			t.Errorf("status %d: Launch() = %v, want %v", tt.status, got, tt.want)
		}
		if n := cPreparedLaunch.n.Load() - before; n != 1 {
			t.Errorf("status %d: PreparedLaunch.Launch counted %d times, want 1", tt.status, n)
		}
	}
}

// PrepareLaunch fills clEnqueueNDRangeKernel's arguments: NULL for a zero
// offset and a driver-chosen work-group size, pointers into the prepared
// launch's own arrays otherwise, and no wait list or event.
func TestPrepareLaunchArguments(t *testing.T) {
	q := &queue{a: &adapter{enqueue: 1}, inner: nativeQueue(0x1000)}
	k := &kernel{inner: nativeKernel(0x2000)}
	r := driver.NDRange{Dims: 2, Global: [3]uint64{64, 32}, Local: [3]uint64{8, 4}, Offset: [3]uint64{0, 16}}
	pl, err := q.PrepareLaunch(k, r)
	if err != nil {
		t.Fatal(err)
	}
	p := pl.(*preparedLaunch)
	if p.args[0] != 0x1000 || p.args[1] != 0x2000 || p.args[2] != 2 {
		t.Errorf("queue, kernel, dims = %#x, %#x, %d; want 0x1000, 0x2000, 2", p.args[0], p.args[1], p.args[2])
	}
	if p.offset != [3]uintptr{0, 16} || p.global != [3]uintptr{64, 32} || p.local != [3]uintptr{8, 4} {
		t.Errorf("sizes: offset %v, global %v, local %v", p.offset, p.global, p.local)
	}
	if p.args[3] == 0 || p.args[4] == 0 || p.args[5] == 0 || p.args[6] != 0 || p.args[7] != 0 || p.args[8] != 0 {
		t.Errorf("pointer arguments %#x: want offset, global and local set, no wait list, no event", p.args[3:])
	}

	pl, err = q.PrepareLaunch(k, driver.NDRange{Dims: 1, Global: [3]uint64{100}})
	if err != nil {
		t.Fatal(err)
	}
	if p := pl.(*preparedLaunch); p.args[3] != 0 || p.args[5] != 0 {
		t.Errorf("no offset, no local size: offset %#x and local %#x, want NULL", p.args[3], p.args[5])
	}
	if _, err := q.PrepareLaunch(k, driver.NDRange{Dims: 4}); err == nil {
		t.Errorf("PrepareLaunch of 4 dimensions succeeded")
	}
	if _, err := q.PrepareLaunch(nativeKernel(1), r); err == nil {
		t.Errorf("PrepareLaunch of another adapter's kernel succeeded")
	}
}

// nativeQueue and nativeKernel are driver objects that only have a native
// handle, enough for PrepareLaunch.
type nativeQueue uintptr

func (q nativeQueue) Native() uintptr { return uintptr(q) }
func (nativeQueue) Release() error    { return nil }
func (nativeQueue) Flush() error      { return nil }
func (nativeQueue) Finish() error     { return nil }
func (nativeQueue) WriteBuffer(driver.Mem, bool, uint64, []byte, []driver.Event, bool) (driver.Event, error) {
	return nil, nil
}
func (nativeQueue) ReadBuffer(driver.Mem, bool, uint64, []byte, []driver.Event, bool) (driver.Event, error) {
	return nil, nil
}
func (nativeQueue) CopyBuffer(driver.Mem, driver.Mem, uint64, uint64, uint64, []driver.Event, bool) (driver.Event, error) {
	return nil, nil
}
func (nativeQueue) FillBuffer(driver.Mem, []byte, uint64, uint64, []driver.Event, bool) (driver.Event, error) {
	return nil, nil
}
func (nativeQueue) Launch(driver.Kernel, driver.NDRange, []driver.Event, bool) (driver.Event, error) {
	return nil, nil
}

type nativeKernel uintptr

func (k nativeKernel) Native() uintptr                             { return uintptr(k) }
func (nativeKernel) Release() error                                { return nil }
func (nativeKernel) SetArgValue(uint32, []byte) error              { return nil }
func (nativeKernel) SetArgMem(uint32, driver.Mem) error            { return nil }
func (nativeKernel) SetArgLocal(uint32, uint64) error              { return nil }
func (nativeKernel) Info(driver.Device) (driver.KernelInfo, error) { return driver.KernelInfo{}, nil }
