// Command multigpu splits a Transform and a Reduce over every device of
// a context through package compute: every GPU of the default device's
// platform where it has several, else the default device split into two
// sub-devices (PoCL's CPU device), else the default device alone. Each
// device computes its rows of the arrays on its own queue, all at once;
// the Reduce adds the devices' partial sums.
//
//	go run ./examples/multigpu
//	ONEAPI_DEVICE_SELECTOR='cuda:*' go run ./examples/multigpu
package main

import (
	"fmt"
	"io"
	"log"
	"os"

	_ "github.com/gour-dev/gour/adapters/all"
	"github.com/gour-dev/gour/compute"
	"github.com/gour-dev/gour/ur"
)

func main() {
	dev, err := ur.DefaultDevice()
	if err != nil {
		log.Fatal(err)
	}
	devs, release := devicesOf(dev)
	defer release()
	if err := run(os.Stdout, devs); err != nil {
		log.Fatal(err)
	}
}

// devicesOf returns every GPU of dev's platform and backend where there
// are several, else two sub-devices of dev where it splits, else dev;
// release frees the sub-devices.
func devicesOf(dev *ur.Device) (devs []*ur.Device, release func()) {
	var gpus []*ur.Device
	for _, d := range dev.Platform().Devices() {
		if d.Info().Type == ur.DeviceTypeGPU && d.Backend() == dev.Backend() {
			gpus = append(gpus, d)
		}
	}
	if len(gpus) > 1 {
		return gpus, func() {}
	}
	if units := dev.Info().ComputeUnits; units >= 2 {
		if subs, err := dev.Partition(ur.Partition{Kind: ur.PartitionEqually, Units: units / 2}); err == nil && len(subs) >= 2 {
			return subs, func() {
				for _, s := range subs {
					s.Release()
				}
			}
		}
	}
	return []*ur.Device{dev}, func() {}
}

// run computes y = 2x + y three times over n elements split across devs,
// then their sum, and prints each device's share.
func run(w io.Writer, devs []*ur.Device) error {
	const n = 1 << 20
	xs, ys := make([]float32, n), make([]float32, n)
	for i := range xs {
		xs[i], ys[i] = 1, float32(i%4)
	}
	// README: begin multigpu
	m, err := compute.NewMultiDevice(devs, compute.MultiDeviceOptions{})
	if err != nil {
		return err
	}
	defer m.Release()
	axpy, err := compute.Expr[float32]("y = a*x + y", map[string]float32{"a": 2})
	if err != nil {
		return err
	}
	x, err := compute.FromSlice(m, xs) // split along the first axis: a part per device
	if err != nil {
		return err
	}
	defer x.Release()
	y, err := compute.FromSlice(m, ys)
	if err != nil {
		return err
	}
	defer y.Release()
	for range 3 { // every device computes its part, all at once
		if err := compute.Transform(m, axpy, y, x, y); err != nil {
			return err // a device failing is a *compute.DeviceError naming it
		}
	}
	sum, err := compute.Reduce(m, y, compute.Sum[float32]()) // the devices' partial sums, added
	if err != nil {
		return err
	}
	// README: end multigpu
	fmt.Fprintf(w, "%d device(s), one context: %v\n", len(devs), m.SharedContext())
	for i, p := range y.Parts() {
		fmt.Fprintf(w, "device %d: %d elements (%s)\n", i, p.Len(), devs[i].Name())
	}
	got, err := y.ToSlice() // gathered from every device
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "y[:4] = %v sum = %.0f\n", got[:4], sum)
	return nil
}
