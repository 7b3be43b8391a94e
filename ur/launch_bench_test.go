package ur

import (
	"testing"

	"github.com/gour-dev/gour/ur/driver"
)

// nopQueue is an adapter queue whose launches do nothing.
type nopQueue struct{ driver.Queue }

func (nopQueue) Launch(driver.Kernel, driver.NDRange, []driver.Event, bool) (driver.Event, error) {
	return nil, nil
}

// BenchmarkLaunchLayers times Queue.Launch over an adapter that does
// nothing: what the front end's checks and handle guards cost a launch.
func BenchmarkLaunchLayers(b *testing.B) {
	q, k := nopLaunchHandles("")
	benchLaunch(b, q, k)
}

// nopLaunchHandles is a queue over nopQueue and a kernel of that name
// for it.
func nopLaunchHandles(name string) (*Queue, *Kernel) {
	a := &Adapter{name: "nop"}
	ctx := &Context{object: object{adapter: a}}
	p := &Program{object: object{adapter: a}, ctx: ctx}
	q := &Queue{object: object{adapter: a}, ctx: ctx, drv: nopQueue{}}
	k := &Kernel{object: object{adapter: a}, ctx: ctx, program: p, name: name}
	return q, k
}

// benchLaunch times q.Launch(k) over a range of 32.
func benchLaunch(b *testing.B, q *Queue, k *Kernel) {
	r := Range1D(32)
	b.ReportAllocs()
	for b.Loop() {
		if err := q.Launch(k, r); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLaunchRepeatLayers times a Queue.Launch repeated over the same
// range on an adapter whose prepared launch does nothing: what the front
// end's guards and its one call of the prepared launch cost a repeated
// launch.
func BenchmarkLaunchRepeatLayers(b *testing.B) {
	q, k := fakeLaunchHandles(new(preparingQueue), new([2]int))
	benchLaunch(b, q, k)
}
