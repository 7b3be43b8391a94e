// Package all registers every gour adapter. Import it for its side effect:
//
//	import _ "github.com/gour-dev/gour/adapters/all"
package all

import (
	_ "github.com/gour-dev/gour/adapters/cuda"      // CUDA driver API, NVRTC
	_ "github.com/gour-dev/gour/adapters/levelzero" // oneAPI Level Zero loader
	_ "github.com/gour-dev/gour/adapters/opencl"    // OpenCL, any ICD
)
