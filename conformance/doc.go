// Package conformance is gour's conformance suite, in the spirit of the
// Unified Runtime's CTS: the same cases run on every adapter × device
// present, so that every adapter gives the same answers through package ur.
//
// The cases are exported functions of *testing.T, grouped by handle:
// platform, device, context, queue, memory, program, kernel, enqueue,
// prepared launch and event. Each runs once per selected device, as a
// sub-test named after it:
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
// runs every case on the adapters of this module: the package's tests are
// one wrapper per case (func TestX(t *testing.T) { conformance.TestX(t) }),
// generated with the list Tests returns by go generate from the cases
// themselves; a test fails when they are out of date.
//
// Without a driver, cases skip with the adapter's reason (library missing,
// no device, ...). UR_REQUIRE_ADAPTERS=opencl,cuda turns the absence of the
// named adapters, or of a selected device of theirs, into a failure, so a
// CI run cannot pass by skipping. UR_ADAPTERS_FORCE_LOAD and
// ONEAPI_DEVICE_SELECTOR choose adapters and devices as everywhere in gour
// (ONEAPI_DEVICE_SELECTOR=opencl:cpu). Set POCL_KERNEL_CACHE=0 on PoCL to
// build from cold; the Makefile does.
//
// # Running it on another module's adapter
//
// Run runs the cases from any test, in any module, on the adapters the
// test binary registers: Options chooses the adapters, devices and cases,
// declares each adapter's device code, and adds known failures.
//
//	import (
//		"github.com/gour-dev/gour/conformance"
//		_ "example.com/mine" // driver.Register("mine", Open)
//	)
//
//	func TestConformance(t *testing.T) {
//		conformance.Run(t, conformance.Options{
//			Adapters:   []string{"mine"},
//			Require:    true,
//			DeviceCode: map[string]conformance.DeviceCode{"mine": conformance.OpenCLC()},
//		})
//	}
//
// The cases then run as TestConformance/TestMemoryFill/mine/gpu:0/..., and
// the contexts and programs they share are released when TestConformance
// ends. examples/adapter in gour's repository does this for an adapter of
// its own module.
//
// # Device code
//
// The cases build programs of the adapter's device code (DeviceCode): the
// suite's own, embedded in the package so that it runs from any directory,
// is OpenCL C (testdata/opencl: kernels.cl, and invalid.cl, link_main.cl,
// link_lib.cl for the build-failure and compile + link cases), CUDA C++
// (testdata/cuda, built with NVRTC; kernels are extern "C" and a local
// argument is a byte offset into the launch's dynamic shared memory, plus
// kernels.ptx, hand-written PTX for the IL case) and SPIR-V made from the
// OpenCL C (testdata/spirv). The adapters of this module get theirs by
// name; another adapter names one (OpenCLC, CUDACpp, SPIRV) or gives its
// own files defining the same kernels under the same names. An adapter
// without device code skips the program, kernel, enqueue and
// prepared-launch cases with that reason. Each program is built once per
// device and shared by the cases of that device; kernels, which carry
// argument state, are made per case.
//
// # Known failures
//
// KnownFailures lists (adapter, device-name substring, test) entries with
// a reason: a case that fails for a reason in the driver, not in gour. The
// suite skips such a case there, giving the reason;
// GOUR_CTS_RUN_KNOWN_FAILURES=1 runs it anyway, to see whether a new driver
// fixed it. Keep the list short and every reason precise.
package conformance
