package ur

import (
	"errors"
	"testing"

	"github.com/gour-dev/gour/ur/driver"
)

func TestReleasedDeviceCannotMakeContexts(t *testing.T) {
	devs := fakeDevices()
	d := devs[0]
	if err := d.Release(); err != nil {
		t.Fatal(err)
	}
	if err := d.Release(); !errors.Is(err, ErrInvalidDevice) {
		t.Errorf("second Release = %v, want ErrInvalidDevice", err)
	}
	if _, err := NewContext(d); !errors.Is(err, ErrInvalidDevice) {
		t.Errorf("NewContext(released device) = %v, want ErrInvalidDevice", err)
	}
	p := devs[1].Platform()
	if err := p.Release(); err != nil {
		t.Fatal(err)
	}
	if _, err := NewContext(devs[1]); !errors.Is(err, ErrInvalidPlatform) {
		t.Errorf("NewContext(device of released platform) = %v, want ErrInvalidPlatform", err)
	}
	var nilDev *Device
	if err := nilDev.Release(); !errors.Is(err, driver.ResultInvalidNullHandle) {
		t.Errorf("nil Device Release = %v, want ErrInvalidNullHandle", err)
	}
}
