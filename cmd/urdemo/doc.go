// Command urdemo is gour's end-to-end check, the program behind `make demo`.
//
// It lists the devices gour finds (the lines urinfo prints), picks the
// default device (ur.DefaultDevice: a GPU before an accelerator before a
// CPU), builds an OpenCL C axpy kernel (y = a*x + y over 1<<20 float32
// values), runs it, reads y back and checks every element against the same
// computation on the CPU, with a relative tolerance of 1e-5. It prints the
// largest relative error, the build time, the launch time and "axpy OK";
// on a mismatch or when no device is found it says why and exits 1.
//
// The build time is that of a first build in this process. PoCL keeps its
// own on-disk kernel cache; run with POCL_KERNEL_CACHE=0 (as `make demo`
// does) for a build that is cold there too. urdemo says which it was.
//
// Discovery honours UR_ADAPTERS_FORCE_LOAD and ONEAPI_DEVICE_SELECTOR.
package main
