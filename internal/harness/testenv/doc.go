// Package testenv tells tests what the machine they run on offers, like Go's
// own internal/testenv: which gour adapters loaded, which devices the
// device selector lets through, and whether a missing adapter is a reason
// to skip or a failure. It is for _test.go files only (make test checks
// that no other file imports it); code that runs outside go test, the
// conformance suite in urcompare's children, asks internal/devreq, whose
// answers this package turns into skips and failures.
//
// A test that needs a device skips at run time, with the reason the adapter
// gave (library missing, no device, ...). Setting UR_REQUIRE_ADAPTERS to a
// comma-separated list of adapter names (for example "opencl,cuda") turns
// that skip into a failure for the adapters named, so that a CI run cannot
// pass by skipping everything:
//
//	UR_REQUIRE_ADAPTERS=opencl go test ./conformance/
//
// Discovery runs once per test binary, with the environment's settings
// (UR_ADAPTERS_FORCE_LOAD, ONEAPI_DEVICE_SELECTOR). The package registers no
// adapter itself: the test package imports the adapters it wants, usually
//
//	import _ "github.com/gour-dev/gour/adapters/all"
//
// so that adapter packages can use testenv in their own tests without an
// import cycle.
//
// StartRedis gives the remote cache tier's tests a private redis-server
// the same way: skipped without one, a failure under GOUR_REQUIRE_REDIS=1.
package testenv
