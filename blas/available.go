package blas

import "github.com/gour-dev/gour/ur"

// LibraryStatus says whether a vendor library serves a device.
type LibraryStatus struct {
	Backend Backend
	Library string // the shared object loaded, or the first one tried
	Loaded  bool   // the library loads and serves the device
	Version string // the library's version, where it says
	Reason  string // why not, when !Loaded
}

// Available reports, for each vendor library of dev's adapter (cuBLAS
// for CUDA, CLBlast for OpenCL), whether it loads and serves dev, and why
// not: what `urinfo --verbose` prints. The own kernels ("gour") serve
// every device and are not listed. It makes
// nothing on the device.
func Available(dev *ur.Device) []LibraryStatus {
	if dev == nil {
		return nil
	}
	var out []LibraryStatus
	for _, b := range backends {
		if b.adapter != dev.Backend() {
			continue
		}
		s := b.status(dev)
		s.Backend = b.name
		out = append(out, s)
	}
	return out
}
