package ur

import (
	"errors"
	"strings"
	"testing"

	"github.com/gour-dev/gour/ur/driver"
)

// fakeProgram is an adapter program with the kernels of info.
type fakeProgram struct {
	driver.Program
	kernels map[string]driver.KernelInfo
	order   []string
}

func (p *fakeProgram) NewKernel(name string) (driver.Kernel, error) {
	info, ok := p.kernels[name]
	if !ok {
		return nil, driver.Errorf(driver.ResultInvalidKernelName, "no kernel %s", name)
	}
	return &fakeKernel{info: info}, nil
}

func (p *fakeProgram) KernelNames() ([]string, error) { return p.order, nil }

// fakeKernel is an adapter kernel that reports info and takes every
// argument, unless setErr is set.
type fakeKernel struct {
	driver.Kernel
	info   driver.KernelInfo
	setErr error
	sets   int
	last   []byte // the last value set
}

func (k *fakeKernel) Info(driver.Device) (driver.KernelInfo, error) { return k.info, nil }
func (k *fakeKernel) SetArgValue(_ uint32, v []byte) error {
	k.sets++
	k.last = append(k.last[:0], v...)
	return k.setErr
}
func (k *fakeKernel) SetArgMem(uint32, driver.Mem) error { k.sets++; return k.setErr }
func (k *fakeKernel) SetArgLocal(uint32, uint64) error   { k.sets++; return k.setErr }
func (k *fakeKernel) Release() error                     { return nil }

// countingQueue is an adapter queue that counts its launches.
type countingQueue struct {
	driver.Queue
	launches int
}

func (q *countingQueue) Launch(driver.Kernel, driver.NDRange, []driver.Event, bool) (driver.Event, error) {
	q.launches++
	return nil, nil
}

// fillU32 is OpenCL's description of fill_u32(__global uint *out, uint value).
var fillU32 = driver.KernelInfo{
	NumArgs: 2, WorkGroupSize: 256,
	Args: []driver.ArgInfo{
		{Kind: driver.ArgMem, Size: 8, Name: "out", TypeName: "uint*"},
		{Kind: driver.ArgValue, Size: 4, Name: "value", TypeName: "uint"},
	},
}

// fakeKernelSetup returns a kernel of a program over prog's kernels, its
// adapter kernel, a queue and a buffer of its context. The device allows
// work-groups of 512 (at most 64 in dimension 1).
func fakeKernelSetup(t *testing.T, name string, kernels map[string]driver.KernelInfo) (*Kernel, *fakeKernel, *Queue, *countingQueue, *Mem) {
	t.Helper()
	d := fakeDevices()[0]
	d.info.AddressBits = 64
	d.info.MaxWorkGroupSize = 512
	d.info.MaxWorkItemSizes = [3]uint64{512, 64, 64}
	a := d.adapter
	ctx := &Context{object: object{adapter: a}, devices: []*Device{d}}
	var order []string
	for n := range kernels {
		order = append(order, n)
	}
	prog := &Program{object: object{adapter: a}, ctx: ctx, drv: &fakeProgram{kernels: kernels, order: order}}
	k, err := prog.NewKernel(name)
	if err != nil {
		t.Fatal(err)
	}
	drvQ := &countingQueue{}
	q := &Queue{object: object{adapter: a}, ctx: ctx, device: d, drv: drvQ}
	m := &Mem{object: object{adapter: a}, ctx: ctx, size: 64}
	return k, k.drv.(*fakeKernel), q, drvQ, m
}

// wantArgError checks err's code and that its message says every part of
// want.
func wantArgError(t *testing.T, what string, err error, code Result, want ...string) {
	t.Helper()
	if !errors.Is(err, code) {
		t.Errorf("%s = %v, want %v", what, err, code)
		return
	}
	for _, w := range want {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("%s = %q: does not say %q", what, err, w)
		}
	}
}

// A setting an argument does not take is refused before the adapter sees
// it, naming the argument, what it takes and what it was given.
func TestSetArgChecksWhatTheDriverReports(t *testing.T) {
	k, drv, _, _, m := fakeKernelSetup(t, "fill_u32", map[string]driver.KernelInfo{"fill_u32": fillU32})
	for _, tt := range []struct {
		what string
		err  error
		want []string
	}{
		{"3 bytes for a uint", k.SetArgBytes(1, []byte{1, 2, 3}), []string{"argument 1 (uint value) of kernel fill_u32", "takes a value of 4 bytes", "not a value of 3 bytes"}},
		{"a uint64 for a uint", k.SetArgUint64(1, 1), []string{"argument 1 (uint value)", "a value of 4 bytes", "not a value of 8 bytes"}},
		{"no bytes for a uint", k.SetArgBytes(1, nil), []string{"argument 1 (uint value)", "a value of 4 bytes", "empty"}},
		{"a buffer for a uint", k.SetArgMem(1, m), []string{"argument 1 (uint value)", "takes a value of 4 bytes, not a buffer"}},
		{"a uint for a buffer", k.SetArgUint32(0, 1), []string{"argument 0 (uint* out)", "takes a buffer, not a value of 4 bytes"}},
		{"a uint64 for a buffer", k.SetArgUint64(0, 1), []string{"argument 0 (uint* out)", "takes a buffer"}},
		{"local memory for a buffer", k.SetArgLocal(0, 16), []string{"argument 0 (uint* out)", "takes a buffer, not 16 bytes of local memory"}},
		{"local memory for a uint", k.SetArgLocal(1, 16), []string{"argument 1 (uint value)", "not 16 bytes of local memory"}},
	} {
		wantArgError(t, tt.what, tt.err, ErrInvalidKernelArgumentSize, tt.want...)
	}
	if drv.sets != 0 {
		t.Errorf("the adapter saw %d of the refused settings", drv.sets)
	}
	if err := k.SetArgMem(0, m); err != nil {
		t.Fatal(err)
	}
	if err := k.SetArgUint32(1, 7); err != nil {
		t.Fatal(err)
	}
	allocs := testing.AllocsPerRun(100, func() { k.SetArgUint32(1, 7) })
	if allocs != 0 {
		t.Errorf("SetArgUint32 with its check: %v allocations, want 0", allocs)
	}
}

// Where the driver reports sizes but not kinds (CUDA), a buffer is
// checked as a pointer of the device's address size.
func TestSetArgChecksSizesOfUnknownKinds(t *testing.T) {
	info := driver.KernelInfo{NumArgs: 2, Args: []driver.ArgInfo{{Size: 8}, {Size: 4}}}
	k, _, _, _, m := fakeKernelSetup(t, "k", map[string]driver.KernelInfo{"k": info})
	wantArgError(t, "a buffer for 4 bytes", k.SetArgMem(1, m), ErrInvalidKernelArgumentSize,
		"argument 1 of kernel k takes 4 bytes, not a buffer (a pointer of 8 bytes)")
	wantArgError(t, "a uint64 for 4 bytes", k.SetArgUint64(1, 1), ErrInvalidKernelArgumentSize, "takes 4 bytes, not a value of 8 bytes")
	if err := k.SetArgMem(0, m); err != nil {
		t.Errorf("a buffer for 8 bytes: %v", err)
	}
	if err := k.SetArgFloat32(1, 1); err != nil {
		t.Errorf("a float for 4 bytes: %v", err)
	}
}

// Where the driver tells nothing, its own check decides, and its error
// says which argument was given what.
func TestSetArgWrapsTheDriversError(t *testing.T) {
	k, drv, _, _, _ := fakeKernelSetup(t, "k", map[string]driver.KernelInfo{"k": {NumArgs: 2}})
	drv.setErr = driver.Errorf(driver.ResultInvalidKernelArgumentSize, "clSetKernelArg failed")
	wantArgError(t, "3 bytes", k.SetArgBytes(1, []byte{1, 2, 3}), ErrInvalidKernelArgumentSize,
		"argument 1 of kernel k, given a value of 3 bytes: clSetKernelArg failed")
}

// A launch with an argument never set names it, on every path: Launch,
// EnqueueLaunch and PrepareLaunch; nothing reaches the adapter.
func TestLaunchNamesArgumentsNotSet(t *testing.T) {
	k, _, q, drvQ, m := fakeKernelSetup(t, "fill_u32", map[string]driver.KernelInfo{"fill_u32": fillU32})
	wantArgError(t, "Launch, none set", q.Launch(k, Range1D(64)), ErrInvalidKernelArgs,
		"kernel fill_u32: arguments 0 (uint* out), 1 (uint value) are not set (2 of 2)")
	if err := k.SetArgMem(0, m); err != nil {
		t.Fatal(err)
	}
	wantArgError(t, "Launch, value not set", q.Launch(k, Range1D(64)), ErrInvalidKernelArgs, "argument 1 (uint value) is not set (1 of 2)")
	_, err := q.EnqueueLaunch(k, Range1D(64), LaunchOptions{})
	wantArgError(t, "EnqueueLaunch", err, ErrInvalidKernelArgs, "argument 1 (uint value) is not set")
	_, err = q.PrepareLaunch(k, Range1D(64))
	wantArgError(t, "PrepareLaunch", err, ErrInvalidKernelArgs, "argument 1 (uint value) is not set")
	if drvQ.launches != 0 {
		t.Errorf("%d launches reached the adapter", drvQ.launches)
	}
	if err := k.SetArgUint32(1, 7); err != nil {
		t.Fatal(err)
	}
	if err := q.Launch(k, Range1D(64)); err != nil {
		t.Errorf("Launch with every argument set: %v", err)
	}
}

// A local size over the kernel's or the device's maximum says which
// maximum.
func TestLaunchChecksWorkGroupLimits(t *testing.T) {
	k, _, q, drvQ, m := fakeKernelSetup(t, "fill_u32", map[string]driver.KernelInfo{"fill_u32": fillU32})
	k.SetArgMem(0, m)
	k.SetArgUint32(1, 7)
	wantArgError(t, "local 512 over the kernel's 256", q.Launch(k, Range1D(1024).WithLocal(512)), ErrInvalidWorkGroupSize,
		"work-group of 512 = 512 work-items exceeds kernel fill_u32's maximum of 256", `"opencl-dev"`)
	wantArgError(t, "local 1024 over the device's 512 in dimension 0", q.Launch(k, Range1D(1024).WithLocal(1024)), ErrInvalidWorkItemSize,
		"local size 1024 in dimension 0 exceeds the maximum", "512", "[512 64 64]")
	wantArgError(t, "16×32 over the kernel's 256", q.Launch(k, Range2D(64, 64).WithLocal(16, 32)), ErrInvalidWorkGroupSize, "16×32 = 512 work-items")
	wantArgError(t, "local in 2 dimensions of a 1-dimensional range", q.Launch(k, Range1D(64).WithLocal(4, 4)), ErrInvalidWorkGroupSize,
		"more dimensions than the 1-dimensional range")
	_, err := q.PrepareLaunch(k, Range1D(1024).WithLocal(512))
	wantArgError(t, "PrepareLaunch, local 512", err, ErrInvalidWorkGroupSize, "maximum of 256")
	if drvQ.launches != 0 {
		t.Errorf("%d launches over the limits reached the adapter", drvQ.launches)
	}
	for _, r := range []NDRange{Range1D(1024).WithLocal(256), Range2D(64, 64).WithLocal(16, 16), Range1D(1024)} {
		if err := q.Launch(k, r); err != nil {
			t.Errorf("Launch(%+v): %v", r, err)
		}
		// The checks allocate nothing: EnqueueLaunch, which never repeats,
		// takes them every time.
		allocs := testing.AllocsPerRun(100, func() {
			if _, err := q.EnqueueLaunch(k, r, LaunchOptions{}); err != nil {
				t.Fatal(err)
			}
		})
		if allocs != 0 {
			t.Errorf("EnqueueLaunch(%+v): %v allocations, want 0", r, allocs)
		}
	}

	// Without the kernel's maximum, the device's applies.
	k.groups = nil
	wantArgError(t, "1024 over the device's 512", q.Launch(k, Range2D(1024, 2).WithLocal(512, 2)), ErrInvalidWorkGroupSize,
		"1024 work-items exceeds the maximum of \"opencl-dev\", 512")
}

// A kernel compiled for one work-group size (reqd_work_group_size) takes
// no other.
func TestLaunchChecksRequiredWorkGroup(t *testing.T) {
	info := fillU32
	info.CompileWorkGroupSize = [3]uint64{64, 1, 1}
	k, _, q, _, m := fakeKernelSetup(t, "fill_u32", map[string]driver.KernelInfo{"fill_u32": info})
	k.SetArgMem(0, m)
	k.SetArgUint32(1, 7)
	wantArgError(t, "local 32", q.Launch(k, Range1D(1024).WithLocal(32)), ErrInvalidWorkGroupSize, "requires a work-group of [64]")
	if err := q.Launch(k, Range1D(1024).WithLocal(64)); err != nil {
		t.Errorf("local 64: %v", err)
	}
}

func TestWithLocal(t *testing.T) {
	if r := Range2D(1024, 768).WithLocal(16, 8); r.Local != [3]uint64{16, 8, 0} || r.Global != [3]uint64{1024, 768, 1} || r.Dims != 2 {
		t.Errorf("Range2D(1024, 768).WithLocal(16, 8) = %+v", r)
	}
	if r := Range1D(64).WithLocal(8).WithLocal(); r.Local != [3]uint64{} {
		t.Errorf("WithLocal() keeps %v, want the driver's choice", r.Local)
	}
}

// NewKernel with a name the program does not have lists those it has.
func TestNewKernelListsTheProgramsKernels(t *testing.T) {
	k, _, _, _, _ := fakeKernelSetup(t, "fill_u32", map[string]driver.KernelInfo{"fill_u32": fillU32})
	_, err := k.program.NewKernel("fill_u23")
	wantArgError(t, "NewKernel(fill_u23)", err, ErrInvalidKernelName, `program has no kernel "fill_u23"; its kernels: fill_u32`)
}

// A range past the end of a buffer is refused with its numbers as given,
// even where offset+size does not fit in 64 bits.
func TestBufferRangesDoNotOverflow(t *testing.T) {
	m := &Mem{object: object{adapter: &Adapter{name: "fake"}}, size: 64}
	for _, tt := range []struct {
		offset, size uint64
		want         string
	}{
		{^uint64(0) - 2, 5, "offset 18446744073709551613 is past the end of the buffer of 64 bytes"},
		{60, ^uint64(0), "18446744073709551615 bytes at offset 60 run past the end of the buffer of 64 bytes (4 bytes fit there)"},
		{60, 5, "5 bytes at offset 60 run past the end"},
		{65, 1, "offset 65 is past the end"},
	} {
		wantArgError(t, "checkRange", m.checkRange("op", tt.offset, tt.size), ErrInvalidSize, tt.want)
	}
	if err := m.checkRange("op", 60, 4); err != nil {
		t.Errorf("the last 4 bytes: %v", err)
	}
}
