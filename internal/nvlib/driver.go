package nvlib

import (
	"sync"
	"sync/atomic"

	"github.com/gour-dev/gour/internal/dl"
)

// DriverNames are the CUDA driver's file names, tried in order: the
// versioned soname first, since the unversioned link only exists where
// development packages are installed (and is then often the toolkit's
// stub library).
var DriverNames = []string{"libcuda.so.1", "libcuda.so"}

var (
	driverOpens atomic.Int32
	driver      = sync.OnceValues(func() (*dl.Library, error) {
		driverOpens.Add(1)
		return dl.Open(DriverNames...)
	})
)

// Driver is the CUDA driver library, opened on the first call and kept
// for the life of the process; later calls return the same library, or
// the same error. Its users resolve their own symbols from it and must
// not close it.
func Driver() (*dl.Library, error) { return driver() }

// DriverOpens is how many times the process has tried to open the
// driver: 1 once any binding has asked for it, whichever and however
// many.
func DriverOpens() int { return int(driverOpens.Load()) }
