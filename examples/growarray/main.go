// Command growarray grows a device array in place, without copying what
// it holds, with gour's virtual memory: it reserves a range of device
// addresses as large as the array may ever get, and maps device memory
// at its end chunk by chunk as it grows (Context.ReserveVirtualMem,
// NewPhysicalMem, VirtualMem.Map). Earlier chunks never move, so an
// append costs the new chunk's mapping and fill, the same for the first
// chunk as for the last. It prints the time of each append and checks
// every chunk's contents at the end.
//
//	go run ./examples/growarray                      # 64 chunks of 256 MiB
//	go run ./examples/growarray -chunks 8 -chunk-mib 64
//
// On a device without virtual memory (OpenCL; PoCL in CI) it says so and
// exits 0: ErrUnsupportedFeature is the typed answer.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"slices"
	"time"

	_ "github.com/gour-dev/gour/adapters/all"
	"github.com/gour-dev/gour/ur"
)

func main() {
	chunks := flag.Int("chunks", 64, "chunks to append")
	chunkMiB := flag.Uint64("chunk-mib", 256, "size of a chunk in MiB (rounded up to the granularity)")
	flag.Parse()
	if err := run(os.Stdout, *chunks, *chunkMiB<<20); err != nil {
		log.Fatal(err)
	}
}

// growArray is a device array of bytes that grows in place.
type growArray struct {
	ctx   *ur.Context
	dev   *ur.Device
	vm    *ur.VirtualMem
	chunk uint64
	pms   []*ur.PhysicalMem
}

func (a *growArray) Len() uint64 { return uint64(len(a.pms)) * a.chunk }

// Append maps one more chunk at the end of the reservation.
func (a *growArray) Append() error {
	off := a.Len()
	if off+a.chunk > a.vm.Size() {
		return fmt.Errorf("the reservation of %d bytes is full", a.vm.Size())
	}
	pm, err := a.ctx.NewPhysicalMem(a.dev, a.chunk)
	if err != nil {
		return err
	}
	if err := a.vm.Map(off, a.chunk, pm, 0, ur.VirtualAccessReadWrite); err != nil {
		pm.Release()
		return err
	}
	a.pms = append(a.pms, pm)
	return nil
}

func (a *growArray) Release() {
	a.vm.Release() // unmaps every chunk
	for _, pm := range a.pms {
		pm.Release()
	}
}

func run(w io.Writer, chunks int, chunkBytes uint64) error {
	dev, err := ur.DefaultDevice()
	if err != nil {
		return err
	}
	ctx, err := ur.NewContext(dev)
	if err != nil {
		return err
	}
	defer ctx.Release()
	gran, err := ctx.VirtualMemGranularity(dev, true)
	if errors.Is(err, ur.ErrUnsupportedFeature) {
		fmt.Fprintf(w, "%s has no virtual memory, so an array cannot grow in place there: %v\n", dev, err)
		return nil
	}
	if err != nil {
		return err
	}
	chunk := (chunkBytes + gran - 1) / gran * gran
	vm, err := ctx.ReserveVirtualMem(0, chunk*uint64(chunks))
	if err != nil {
		return err
	}
	a := &growArray{ctx: ctx, dev: dev, vm: vm, chunk: chunk}
	defer a.Release()
	q, err := ctx.NewQueue(dev, ur.QueueProperties{})
	if err != nil {
		return err
	}
	defer q.Release()

	fmt.Fprintf(w, "%s: %d chunks of %d MiB in a reservation of %d MiB at %#x (granularity %d KiB)\n",
		dev, chunks, chunk>>20, vm.Size()>>20, vm.Addr(), gran>>10)
	times := make([]time.Duration, 0, chunks)
	for i := range chunks {
		start := time.Now()
		if err := a.Append(); err != nil {
			return fmt.Errorf("append %d: %w", i, err)
		}
		// The new chunk only is written: byte i everywhere.
		if err := fillWait(q, vm.Ptr().Add(uint64(i)*chunk), byte(i), chunk); err != nil {
			return err
		}
		times = append(times, time.Since(start))
	}
	for i := range chunks {
		got := make([]byte, 4096)
		if err := q.CopyFromPtr(got, vm.Ptr().Add(uint64(i)*chunk+chunk-4096)); err != nil {
			return err
		}
		for _, b := range got {
			if b != byte(i) {
				return fmt.Errorf("chunk %d holds %d, want %d: the array moved or was overwritten", i, b, byte(i))
			}
		}
	}
	sorted := slices.Clone(times)
	slices.Sort(sorted)
	first, last := avg(times[:min(8, len(times))]), avg(times[max(0, len(times)-8):])
	fmt.Fprintf(w, "append (map %d MiB and fill it): median %v, first 8 %v, last 8 %v, ratio last/first %.2f\n",
		chunk>>20, sorted[len(sorted)/2], first, last, float64(last)/float64(first))
	fmt.Fprintf(w, "all %d chunks kept their contents: no copy of earlier data\n", chunks)
	return nil
}

func fillWait(q *ur.Queue, p ur.Ptr, b byte, size uint64) error {
	ev, err := q.EnqueueMemFill(p, []byte{b}, size)
	if err != nil {
		return err
	}
	if ev != nil {
		defer ev.Release()
	}
	return q.Finish()
}

func avg(ds []time.Duration) time.Duration {
	var s time.Duration
	for _, d := range ds {
		s += d
	}
	return s / time.Duration(max(len(ds), 1))
}
