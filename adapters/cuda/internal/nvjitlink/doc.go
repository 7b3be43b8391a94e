// Package nvjitlink is the raw binding of nvJitLink, CUDA's JIT linker
// library (libnvJitLink.so, CUDA 12 and later), called through internal/dl
// without cgo.
//
// Each method of [Lib] calls one C function and returns the nvJitLinkResult
// as a [Result]; [Lib.LinkPTX] links one PTX module into a cubin for an
// architecture without needing a GPU or a driver.
//
// nvJitLink.h turns each public function into an inline wrapper around a
// versioned entry point (nvJitLinkCreate calls __nvJitLinkCreate_12_0 under
// CUDA 12 headers, __nvJitLinkCreate_13_0 under CUDA 13), and some releases
// export only those versioned names. [Load] resolves each function by its
// plain name first, then by the versioned names of CUDA 13 and 12 (newest
// minor first), keeping to one version family once the first is found.
//
// Like NVRTC, nvJitLink ships with the toolkit, and Load finds it the same
// way, through the toolkit package: the loader's path, then
// /usr/local/cuda, $CUDA_HOME, $CUDA_PATH and extra directories.
// It never panics; the error lists what it tried.
package nvjitlink
