package opencl_test

import (
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/gour-dev/gour/ur"
)

// TestProgramsFromOneBinaryOutliveEachOther makes programs from one
// binary in several contexts at once, each launched at four work-group
// sizes (work-group specialisations PoCL compiles at the launch, in the
// program's build directory) and released while the others are in use. With PoCL's kernel cache off
// (POCL_KERNEL_CACHE=0, as make test runs) the programs once shared the
// directory their binary names, and the first release removed it under
// the others: the next launch aborted the process inside PoCL.
func TestProgramsFromOneBinaryOutliveEachOther(t *testing.T) {
	dev := firstOpenCLDevice(t)
	src, err := ur.NewContext(dev)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Release()
	built, err := src.NewProgramFromSource(addOneSource)
	if err != nil {
		t.Fatal(err)
	}
	defer built.Release()
	if err := built.Build(""); err != nil {
		t.Fatal(err)
	}
	bins, err := built.Binaries()
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s: the binary's head: %q", dev, bins[0][:min(len(bins[0]), 96)])

	// Goroutines make, use and release programs of the binary at once:
	// one's release then falls in another's compile of a work-group
	// specialisation.
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 6 {
				if err := useBinary(dev, bins); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// useBinary makes a context, a program of bins and a kernel, launches it
// at four work-group sizes, checks the result and releases everything.
func useBinary(dev *ur.Device, bins [][]byte) (rerr error) {
	ctx, err := ur.NewContext(dev)
	if err != nil {
		return err
	}
	defer func() { rerr = errors.Join(rerr, ctx.Release()) }()
	q, err := ctx.NewQueue(dev, ur.QueueProperties{})
	if err != nil {
		return err
	}
	defer func() { rerr = errors.Join(rerr, q.Release()) }()
	prog, err := ctx.NewProgramFromBinaries([]*ur.Device{dev}, bins)
	if err != nil {
		return err
	}
	defer func() { rerr = errors.Join(rerr, prog.Release()) }()
	if err := prog.Build(""); err != nil {
		return err
	}
	k, err := prog.NewKernel("add1")
	if err != nil {
		return err
	}
	defer func() { rerr = errors.Join(rerr, k.Release()) }()
	y, err := ctx.NewBufferFrom(ur.MemReadWrite, make([]byte, 1024*4))
	if err != nil {
		return err
	}
	defer func() { rerr = errors.Join(rerr, y.Release()) }()
	if err := k.SetArgMem(0, y); err != nil {
		return err
	}
	const launches = 4
	for i := range launches {
		r := ur.Range1D(1024)
		r.Local = [3]uint64{1 << (2 * i), 1, 1}
		if err := q.Launch(k, r); err != nil {
			return fmt.Errorf("launch at work-group size %d: %w", r.Local[0], err)
		}
	}
	got := make([]float32, 1024)
	if err := q.ReadBuffer(y, 0, ur.AsBytes(got)); err != nil {
		return err
	}
	for i, v := range got {
		if v != launches {
			return fmt.Errorf("y[%d] = %v after %d launches adding 1", i, v, launches)
		}
	}
	return nil
}
