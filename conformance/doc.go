// Package conformance is gour's conformance suite, in the spirit of the
// Unified Runtime's CTS: the same tests run on every adapter × device
// present, so that every adapter gives the same answers through package ur.
//
// The tests are ordinary go tests, grouped by handle: platform, device,
// context, queue, memory, program, kernel, enqueue and event. Each runs
// once per selected device, as a sub-test named after it:
//
//	TestMemoryFill/opencl/cpu:0/pthread-skylake-avx512/pattern16
//	               adapter/type:index/device name/table row
//
// so -run can pick an adapter or a device:
//
//	go test ./conformance/ -run '/opencl/gpu:'
//
// # Running it
//
//	UR_REQUIRE_ADAPTERS=opencl go test ./conformance/ -v
//
// Without a driver, tests skip with the adapter's reason (library missing,
// no device, ...). UR_REQUIRE_ADAPTERS=opencl,cuda turns the absence of the
// named adapters, or of a selected device of theirs, into a failure, so a
// CI run cannot pass by skipping. UR_ADAPTERS_FORCE_LOAD and
// ONEAPI_DEVICE_SELECTOR choose adapters and devices as everywhere in gour
// (ONEAPI_DEVICE_SELECTOR=opencl:cpu). Set POCL_KERNEL_CACHE=0 on PoCL to
// build from cold; the Makefile does.
//
// # Device code
//
// Kernels come in each backend's language under testdata/<backend>/: for
// OpenCL, testdata/opencl/kernels.cl (and invalid.cl, link_main.cl,
// link_lib.cl for the build-failure and compile + link tests); for CUDA,
// the same in CUDA C++ (.cu, built with NVRTC; kernels are extern "C" and
// a local argument is a byte offset into the launch's dynamic shared
// memory), plus kernels.ptx, hand-written PTX for the IL test. Every
// backend provides the same kernels under the same names; a backend
// without testdata skips the program, kernel and enqueue tests with that
// reason. Each program is built once per device and shared by the tests of
// that device; kernels, which carry argument state, are made per test.
//
// # Known failures
//
// KnownFailures lists (adapter, device-name substring, test) entries with
// a reason: a test that fails for a reason in the driver, not in gour. The
// suite skips such a test there, giving the reason;
// GOUR_CTS_RUN_KNOWN_FAILURES=1 runs it anyway, to see whether a new driver
// fixed it. Keep the list short and every reason precise.
package conformance
