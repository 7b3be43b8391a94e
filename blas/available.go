package blas

import (
	"sort"

	"github.com/gour-dev/gour/ur"
)

// LibraryStatus says whether a vendor library serves a device.
type LibraryStatus struct {
	Backend Backend
	Library string // the shared object loaded, or the first one tried
	Loaded  bool   // the library loads and serves the device
	Version string // the library's version, where it says
	Reason  string // why not, when !Loaded
}

// Available reports, for each vendor library registered for dev's
// adapter (cuBLAS for CUDA, CLBlast for OpenCL), whether it loads and
// serves dev, and why not: what `urinfo --verbose` prints. The own
// kernels ("gour") serve every device and are not listed. It makes
// nothing on the device.
func Available(dev *ur.Device) []LibraryStatus {
	if dev == nil {
		return nil
	}
	backendsMu.RLock()
	var out []LibraryStatus
	for name, b := range backends {
		if b.adapter == "" || b.adapter != dev.Backend() || b.status == nil {
			continue
		}
		s := b.status(dev)
		s.Backend = name
		out = append(out, s)
	}
	backendsMu.RUnlock()
	sort.Slice(out, func(i, j int) bool { return out[i].Backend < out[j].Backend })
	return out
}
