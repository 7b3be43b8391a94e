// Command urinfo lists the devices gour finds, like sycl-ls.
//
// Without flags it prints one line per selected device, in the format of
// (*ur.Device).String():
//
//	[opencl:cpu][opencl:0] Portable Computing Language, pthread-skylake-avx512-AMD EPYC OpenCL 3.0 PoCL ... [3.1+debian]
//
// and, on standard error, one line per adapter that did not load, with the
// reason:
//
//	level_zero: not available: libze_loader.so.1: cannot open shared object file
//
// Usage:
//
//	urinfo [--device SELECTOR] [--verbose | --json]
//
// The flags are:
//
//	--device SELECTOR  list only the devices SELECTOR lets through, in the
//	                   syntax of ONEAPI_DEVICE_SELECTOR ("opencl:cpu",
//	                   "!cuda:*"), which it overrides
//	--verbose          print every property of each device and its platform
//	                   as "key: value" lines, whether each vendor BLAS
//	                   library of package blas serves it (CLBlast on
//	                   OpenCL, cuBLAS on CUDA) and if not why, then every
//	                   adapter's status
//	--json             print the devices (backend, index, platform, info,
//	                   BLAS libraries) and the status of every adapter as
//	                   one JSON document
//	-h, --help         print the usage on standard output
//
// With --verbose or --json the adapters that did not load are in the
// report, not on standard error: each reason is printed once.
//
// Discovery honours UR_ADAPTERS_FORCE_LOAD (only these adapters, comma
// separated) and, without --device, ONEAPI_DEVICE_SELECTOR.
//
// Exit status:
//
//	0  at least one device was listed, or the usage was asked for
//	1  no device is selected: the message names the selector and where it
//	   came from (--device or ONEAPI_DEVICE_SELECTOR), or says that no
//	   adapter found a device; the report is printed all the same
//	2  misuse: a bad flag or argument, or a malformed --device,
//	   ONEAPI_DEVICE_SELECTOR or UR_ADAPTERS_FORCE_LOAD, named in the message
package main
