// Command urdemo is gour's end-to-end check, the program behind `make demo`.
//
// Usage:
//
//	urdemo [-device SELECTOR] [-n N]
//
// It lists the devices gour finds (the lines urinfo prints) and the
// adapters that did not load, picks the default device among the selected
// ones (a GPU before an accelerator before a CPU, as ur.DefaultDevice),
// gets the axpy kernel (y = a*x + y over float32 values; OpenCL C, or CUDA
// C on a CUDA device: cmd/internal/axpy) through the program manager, runs it
// twice, reads y back and checks every element against the same
// computation on the CPU, with a relative tolerance of 1e-5. It prints the
// build time, the time of asking for the kernel again (an in-memory cache
// hit), the launch times, the largest relative error and "axpy OK".
//
// The flags are:
//
//	-device SELECTOR  choose among the devices SELECTOR lets through, in the
//	                  syntax of ONEAPI_DEVICE_SELECTOR ("opencl:cpu",
//	                  "cuda:0", "*:gpu"), which it overrides
//	-n N              the number of elements of x and y: 1 to 1<<28,
//	                  default 1<<20 (1048576)
//	-h, --help        print the usage on standard output
//
// The first run builds the kernel and stores its binary in gour's
// persistent cache; the next run loads it from there and says so. PoCL
// keeps its own kernel cache too: run with POCL_KERNEL_CACHE=0 (as `make
// demo` does) for a first build that is cold there as well.
//
// Discovery honours UR_ADAPTERS_FORCE_LOAD and, without -device,
// ONEAPI_DEVICE_SELECTOR; the persistent cache, the SYCL_CACHE_* variables.
//
// Exit status:
//
//	0  axpy ran and matched the CPU, or the usage was asked for
//	1  a failure: no device is selected (the message names the selector
//	   and where it came from, -device or ONEAPI_DEVICE_SELECTOR, or says
//	   that no adapter found a device), a build or launch failed, or the
//	   result differs from the CPU's
//	2  misuse: a bad flag, argument or -n, or a malformed -device,
//	   ONEAPI_DEVICE_SELECTOR or UR_ADAPTERS_FORCE_LOAD, named in the message
package main
