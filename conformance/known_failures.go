package conformance

import "strings"

// EnvRunKnownFailures, set to 1, runs the tests of KnownFailures instead of
// skipping them.
const EnvRunKnownFailures = "GOUR_CTS_RUN_KNOWN_FAILURES"

// KnownFailure names a conformance test that fails on some adapter and
// device for a reason outside gour (a driver bug or limitation). The suite
// skips it there with the reason, unless GOUR_CTS_RUN_KNOWN_FAILURES=1.
type KnownFailure struct {
	// Adapter is the backend name ("opencl", "cuda"); "" or "*" matches
	// every adapter.
	Adapter string
	// Device is a substring of "platform name, device name", matched
	// without regard to case; "" matches every device.
	Device string
	// Test is the test's name without the device part, as go test prints
	// it (spaces become underscores): "TestEventProfiling" or, for one row
	// of a table test, "TestMemoryFill/pattern16". An entry for a test
	// covers its sub-tests.
	Test string
	// Reason says why the test fails, with a link to the driver's bug
	// tracker where there is one.
	Reason string
}

// KnownFailures lists the tests expected to fail. Keep it empty unless a
// test fails for a reason in the driver, not in gour.
var KnownFailures = []KnownFailure{
	{
		Adapter: "level_zero",
		Device:  "gour fake Level Zero",
		Test:    "TestProgramCompileAndLink",
		Reason: "adapters/levelzero's test driver does not offer ZE_experimental_module_program, " +
			"which linking several modules needs; Link answers UNSUPPORTED_FEATURE",
	},
	{
		Adapter: "level_zero",
		Test:    "TestProgramBuildOptions",
		Reason:  "the suite's Level Zero programs are SPIR-V, which has no preprocessor: -DSCALE=3 cannot change them",
	},
	{
		Adapter: "opencl",
		Device:  "NVIDIA CUDA",
		Test:    "TestMultiDeviceUSM",
		Reason: "NVIDIA's OpenCL has no cl_intel_unified_shared_memory: gour's device USM there is coarse-grained " +
			"SVM (clSVMAlloc), which cannot place an allocation on one device of a context, and on a context of " +
			"two H100s the second GPU's launch on its allocation is refused (CL_INVALID_KERNEL_ARGS); device USM " +
			"in a context of one GPU passes",
	},
	{
		Adapter: "cuda",
		Test:    "TestEnqueueGlobalOffset",
		Reason: "CUDA launches have no global offset (cuLaunchKernel takes grid and block sizes only), " +
			"so the CUDA adapter gives ErrUnsupportedFeature for an NDRange with a non-zero Offset " +
			"rather than rewriting the kernel to add one",
	},
}

// Matches reports whether the entry covers test on the adapter's device.
func (k KnownFailure) Matches(adapter, device, test string) bool {
	if k.Adapter != "" && k.Adapter != "*" && !strings.EqualFold(k.Adapter, adapter) {
		return false
	}
	if k.Device != "" && !strings.Contains(strings.ToLower(device), strings.ToLower(k.Device)) {
		return false
	}
	if k.Test == "" {
		return false
	}
	return test == k.Test || strings.HasPrefix(test, k.Test+"/")
}

// FindKnownFailure returns the first entry of list that covers test on the
// adapter's device.
func FindKnownFailure(list []KnownFailure, adapter, device, test string) (KnownFailure, bool) {
	for _, k := range list {
		if k.Matches(adapter, device, test) {
			return k, true
		}
	}
	return KnownFailure{}, false
}
