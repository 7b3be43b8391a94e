package opencl_test

import (
	"encoding/binary"
	"math"
	"testing"

	"github.com/gour-dev/gour/adapters/opencl"
	"github.com/gour-dev/gour/internal/harness/testenv"
	"github.com/gour-dev/gour/ur/driver"
)

// driverFixture is add1 built on the first OpenCL device, through the
// adapter's driver interfaces only, as the front end sees them.
type driverFixture struct {
	q driver.Queue
	k driver.Kernel
	y driver.Mem
}

func newDriverFixture(t *testing.T) *driverFixture {
	t.Helper()
	testenv.MustHaveAdapter(t, opencl.Name)
	a, err := opencl.Open()
	if err != nil {
		t.Fatal(err)
	}
	platforms, err := a.Platforms()
	if err != nil {
		t.Fatal(err)
	}
	var dev driver.Device
	for _, p := range platforms {
		if devs, err := p.Devices(); err == nil && len(devs) > 0 {
			dev = devs[0]
			break
		}
	}
	if dev == nil {
		t.Skip("no OpenCL device")
	}
	ctx, err := a.NewContext([]driver.Device{dev})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ctx.Release() })
	q, err := ctx.NewQueue(dev, driver.QueueProperties{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { q.Release() })
	prog, err := ctx.NewProgramFromSource(addOneSource)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { prog.Release() })
	if err := prog.Build([]driver.Device{dev}, ""); err != nil {
		t.Fatal(err)
	}
	k, err := prog.NewKernel("add1")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { k.Release() })
	y, err := ctx.NewBuffer(driver.MemReadWrite, 1024*4, make([]byte, 1024*4)) // zeros
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { y.Release() })
	return &driverFixture{q: q, k: k, y: y}
}

// prepare prepares the launch of f's kernel over n work-items.
func (f *driverFixture) prepare(t *testing.T, n uint64) driver.PreparedLaunch {
	t.Helper()
	prep, ok := f.q.(driver.LaunchPreparer)
	if !ok {
		t.Fatal("the OpenCL queue is not a driver.LaunchPreparer")
	}
	p, err := prep.PrepareLaunch(f.k, driver.NDRange{Dims: 1, Global: [3]uint64{n, 1, 1}})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// The adapter's prepared launch under the driver contract: Launched with
// the kernel's arguments set, taking their current values; LaunchFailed,
// with nothing enqueued, where the driver refuses the launch (no argument
// set); never LaunchStale, since OpenCL keeps the arguments with the
// kernel.
func TestPreparedLaunchUnderTheDriverContract(t *testing.T) {
	f := newDriverFixture(t)
	unset := f.prepare(t, 1024)
	if st := unset.Launch(); st != driver.LaunchFailed {
		t.Errorf("Launch with the argument unset = %v, want LaunchFailed", st)
	}
	if err := f.k.SetArgMem(0, f.y); err != nil {
		t.Fatal(err)
	}
	// The launch prepared before the argument was set takes it now.
	for range 3 {
		if st := unset.Launch(); st != driver.Launched {
			t.Fatalf("Launch = %v, want Launched", st)
		}
	}
	if st := f.prepare(t, 1024).Launch(); st != driver.Launched {
		t.Errorf("Launch of a launch prepared after setting the argument = %v, want Launched", st)
	}
	out := make([]byte, 1024*4)
	if _, err := f.q.ReadBuffer(f.y, true, 0, out, nil, false); err != nil {
		t.Fatal(err)
	}
	for _, i := range []int{0, 1023} {
		if got := math.Float32frombits(binary.LittleEndian.Uint32(out[4*i:])); got != 4 {
			t.Errorf("y[%d] = %v, want 4: four launches, none of the failed one", i, got)
		}
	}
	if allocs := testing.AllocsPerRun(100, func() { unset.Launch() }); allocs != 0 && !raceEnabled {
		t.Errorf("Launch: %v allocs, want 0", allocs)
	}
	if err := f.q.Finish(); err != nil {
		t.Fatal(err)
	}
}
