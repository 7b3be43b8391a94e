package cache_test

import (
	"context"
	"crypto/sha256"
	"fmt"
	"log"
	"os"

	"github.com/gour-dev/gour/cache"
)

// A program manager asks for a binary; the first run builds it, a later
// run (here: a second lookup) reads it from disk. A binary the driver
// refuses is rejected and built again.
func ExampleCache_GetOrBuild() {
	dir, _ := os.MkdirTemp("", "gour-cache-example-")
	defer os.RemoveAll(dir)
	c, err := cache.Open(cache.Config{Dir: dir})
	if err != nil {
		log.Fatal(err) // a malformed SYCL_CACHE_* variable
	}
	key := cache.Key{
		Device:         cache.DeviceKey{Backend: "opencl", Platform: "Portable Computing Language", Name: "cpu", Version: "OpenCL 3.0", Driver: "6.0"},
		Images:         [][32]byte{sha256.Sum256([]byte("__kernel void axpy(...) {...}"))},
		CompileOptions: "-cl-fast-relaxed-math",
	}
	info := cache.Info{Format: "native", Kernels: []string{"axpy"}, ImageSize: 31}
	build := func() ([]byte, error) { return []byte("device binary"), nil }

	for run := 0; run < 2; run++ {
		e, fromCache, err := c.GetOrBuild(context.Background(), key, info, build)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("run %d: %q from cache: %v\n", run, e.Binary, fromCache)
		if run == 1 {
			// Say the driver answered INVALID_BINARY: drop it, build again.
			c.Reject(e)
			_, fromCache, _ = c.GetOrBuild(context.Background(), key, info, build)
			fmt.Println("after Reject, from cache:", fromCache)
		}
	}
	// Output:
	// run 0: "device binary" from cache: false
	// run 1: "device binary" from cache: true
	// after Reject, from cache: false
}
