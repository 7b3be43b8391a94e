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
//	urinfo [--verbose | --json]
//
// The flags are:
//
//	--verbose  print every property of each device and its platform as
//	           "key: value" lines
//	--json     print the devices (backend, index, platform, info) and the
//	           status of every adapter as one JSON document
//
// Discovery honours UR_ADAPTERS_FORCE_LOAD (only these adapters, comma
// separated) and ONEAPI_DEVICE_SELECTOR (e.g. "opencl:cpu", "!cuda:*"). A
// malformed value is reported with the variable's name and exit status 2.
// Finding no device is not an error: urinfo says so on standard error and
// exits 0.
package main
