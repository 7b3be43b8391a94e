// Command urbench measures gour against the vendor drivers called from C.
//
//	urbench launch -backend cuda -ptx scripts/bench/empty.ptx [-iters N -rounds R]
//	        [-c-loop bin/libcudaloop.so [-breakdown]] [-cpuprofile FILE]
//	urbench jit [-kernels 200]
//	urbench diskcache -backend opencl|cuda [-runs 5]
//
// launch times R rounds of N launches of the kernel "empty" (one block or
// work-group of 32) through gour, with no event, then one Finish, and
// prints a line in the format of the C programs in scripts/bench/c, so
// that scripts/bench compares the two in one run. With -c-loop it loads the
// C launch loop of scripts/bench/c/cuda_loop.c into its own process and
// alternates C rounds with gour rounds on the same context, stream and
// kernel, printing both and their ratio; -breakdown adds C that makes the
// context current before each launch and Go that calls cuLaunchKernel
// without gour's layers.
//
// jit generates a PTX module of many kernels, builds it through gour with
// the driver's JIT (run it with CUDA_CACHE_DISABLE=1 for a cold JIT), takes
// the cubin the program hands back, and times creating the program from
// that cubin instead.
//
// diskcache times a new process's first GetKernel through the program
// manager three ways: cold (gour's persistent cache and the driver's own
// cache off), with the driver's own kernel cache warm, and with gour's
// persistent cache warm; see diskcache.go.
package main
