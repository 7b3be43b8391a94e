package urkey_test

import (
	"testing"

	_ "github.com/gour-dev/gour/adapters/all"
	"github.com/gour-dev/gour/cache/urkey"
	"github.com/gour-dev/gour/ur"
)

func TestDevice(t *testing.T) {
	sys, err := ur.Discover(ur.Config{Selector: "*:*"})
	if err != nil {
		t.Fatal(err)
	}
	if len(sys.Devices) == 0 {
		t.Skip("no device")
	}
	for _, d := range sys.Devices {
		k := urkey.Device(d)
		info := d.Info()
		if k.Backend != d.Backend() || k.Platform != d.Platform().Info().Name || k.Name != info.Name ||
			k.Version != info.DeviceVersion || k.Driver != info.DriverVersion || k.Name == "" {
			t.Errorf("%v: key %+v", d, k)
		}
		if k != urkey.Device(d) {
			t.Error("not stable")
		}
		t.Logf("%v → %+v", d, k)
	}
}
