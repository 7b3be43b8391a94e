package conformance

import (
	"slices"
	"testing"

	"github.com/gour-dev/gour/ur"
)

func TestContextOneDevice(t *testing.T) {
	forEachDevice(t, func(t *testing.T, f *Fixture) {
		ctx := f.NewContext(t)
		if devs := ctx.Devices(); len(devs) != 1 || devs[0] != f.Device {
			t.Errorf("Devices() = %v, want [%v]", devs, f.Device)
		}
		if ctx.Adapter() == nil || ctx.Adapter().Name() != f.Backend {
			t.Errorf("Adapter() = %v, want the %s adapter", ctx.Adapter(), f.Backend)
		}
		if ctx.Native() == 0 {
			t.Errorf("Native() = 0")
		}
	})
}

func TestContextAllDevicesOfPlatform(t *testing.T) {
	forEachDevice(t, func(t *testing.T, f *Fixture) {
		devs := f.Device.Platform().Devices()
		ctx, err := ur.NewContext(devs...)
		must(t, "NewContext(all devices of the platform)", err)
		cleanup(t, ctx)
		if got := ctx.Devices(); !slices.Equal(got, devs) {
			t.Errorf("Devices() = %v, want %v", got, devs)
		}
		// A queue on every device of the context.
		for _, d := range devs {
			q, err := ctx.NewQueue(d, ur.QueueProperties{})
			must(t, "NewQueue("+d.Name()+")", err)
			cleanup(t, q)
			must(t, "Finish", q.Finish())
		}
	})
}

func TestContextDeviceTwice(t *testing.T) {
	forEachDevice(t, func(t *testing.T, f *Fixture) {
		ctx, err := ur.NewContext(f.Device, f.Device)
		if err == nil {
			ctx.Release()
			t.Fatal("NewContext(dev, dev) succeeded, want an error")
		}
		wantErr(t, "NewContext(dev, dev)", err, ur.ErrInvalidDevice)
	})
}

func TestContextNilDevice(t *testing.T) {
	forEachDevice(t, func(t *testing.T, f *Fixture) {
		_, err := ur.NewContext(f.Device, nil)
		wantErr(t, "NewContext(dev, nil)", err, ur.ErrInvalidNullHandle)
		_, err = ur.NewContext(nil)
		wantErr(t, "NewContext(nil)", err, ur.ErrInvalidNullHandle)
	})
}

func TestContextNoDevices(t *testing.T) {
	forEachDevice(t, func(t *testing.T, f *Fixture) {
		_, err := ur.NewContext()
		wantErr(t, "NewContext()", err, ur.ErrInvalidValue)
	})
}

func TestContextReleaseTwice(t *testing.T) {
	forEachDevice(t, func(t *testing.T, f *Fixture) {
		ctx, err := ur.NewContext(f.Device)
		must(t, "NewContext", err)
		must(t, "first Release", ctx.Release())
		wantErr(t, "second Release", ctx.Release(), ur.ErrInvalidContext)
	})
}

func TestContextUseAfterRelease(t *testing.T) {
	forEachDevice(t, func(t *testing.T, f *Fixture) {
		ctx, err := ur.NewContext(f.Device)
		must(t, "NewContext", err)
		must(t, "Release", ctx.Release())
		_, err = ctx.NewQueue(f.Device, ur.QueueProperties{})
		wantErr(t, "NewQueue on a released context", err, ur.ErrInvalidContext)
		_, err = ctx.NewBuffer(ur.MemReadWrite, 64)
		wantErr(t, "NewBuffer on a released context", err, ur.ErrInvalidContext)
		_, err = ctx.NewProgramFromSource("x")
		wantErr(t, "NewProgramFromSource on a released context", err, ur.ErrInvalidContext)
	})
}

func TestContextNilHandle(t *testing.T) {
	forEachDevice(t, func(t *testing.T, f *Fixture) {
		var ctx *ur.Context
		wantErr(t, "nil Context.Release", ctx.Release(), ur.ErrInvalidNullHandle)
		_, err := ctx.NewBuffer(ur.MemReadWrite, 64)
		wantErr(t, "nil Context.NewBuffer", err, ur.ErrInvalidNullHandle)
		_, err = ctx.NewQueue(f.Device, ur.QueueProperties{})
		wantErr(t, "nil Context.NewQueue", err, ur.ErrInvalidNullHandle)
	})
}

// Objects created in a context stay usable after the context is released,
// as in OpenCL.
func TestContextObjectsOutliveRelease(t *testing.T) {
	forEachDevice(t, func(t *testing.T, f *Fixture) {
		ctx, err := ur.NewContext(f.Device)
		must(t, "NewContext", err)
		q := f.QueueIn(t, ctx, ur.QueueProperties{})
		m := f.BufferIn(t, ctx, ur.MemReadWrite, 256)
		must(t, "Context.Release", ctx.Release())
		src := pattern(256, 1)
		must(t, "WriteBuffer after Context.Release", q.WriteBuffer(m, 0, src))
		got := make([]byte, 256)
		must(t, "ReadBuffer after Context.Release", q.ReadBuffer(m, 0, got))
		if string(got) != string(src) {
			t.Errorf("round trip after Context.Release: data differs")
		}
	})
}
