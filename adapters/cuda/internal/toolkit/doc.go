// Package toolkit finds and loads the libraries of a CUDA toolkit (NVRTC,
// nvJitLink), which, unlike the driver, are often not on the loader's
// search path and carry the toolkit's major version in their sonames.
// The bindings of those libraries describe them as a [Library] and open
// them through [Load], the one loader they share.
package toolkit
