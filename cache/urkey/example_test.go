package urkey_test

import (
	"fmt"

	_ "github.com/gour-dev/gour/adapters/all"
	"github.com/gour-dev/gour/cache"
	"github.com/gour-dev/gour/cache/urkey"
	"github.com/gour-dev/gour/ur"
)

// The device part of a cache key comes from the ur.Device the binary is
// built for.
func ExampleDevice() {
	dev, err := ur.DefaultDevice()
	if err != nil {
		return // no device here
	}
	key := cache.Key{Device: urkey.Device(dev), CompileOptions: "-O2"}
	fmt.Println(key.Device.Backend, key.Device.Name, key.Device.Driver)
}
