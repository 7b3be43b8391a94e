// Command urdemo is gour's end-to-end check, the program behind `make demo`.
//
// It lists the devices gour finds (the lines urinfo prints), picks the
// default device (ur.DefaultDevice: a GPU before an accelerator before a
// CPU), gets the axpy kernel (y = a*x + y over 1<<20 float32 values;
// OpenCL C, or CUDA C on a CUDA device: internal/axpy) through the program
// manager, runs it twice, reads y back and checks every element against the
// same computation on the CPU, with a relative tolerance of 1e-5. It prints
// the build time, the time of asking for the kernel again (an in-memory
// cache hit), the launch times, the largest relative error and "axpy OK";
// on a mismatch or when no device is found it says why and exits 1.
//
// The first run builds the kernel and stores its binary in gour's
// persistent cache; the next run loads it from there and says so. PoCL
// keeps its own kernel cache too: run with POCL_KERNEL_CACHE=0 (as `make
// demo` does) for a first build that is cold there as well.
//
// Discovery honours UR_ADAPTERS_FORCE_LOAD and ONEAPI_DEVICE_SELECTOR; the
// persistent cache, the SYCL_CACHE_* variables.
package main
