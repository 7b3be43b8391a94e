// Package cltrace is a gour adapter written outside gour's module, the way
// a third party would write one: a tracing proxy over gour's OpenCL
// adapter that counts every call the front end makes into the driver
// layer (Counts, WriteCounts), and makes prepared launches itself.
//
// Import it for its side effect, as a database/sql driver:
//
//	import _ "github.com/gour-dev/gour/examples/adapter/cltrace"
//
// and its devices appear beside OpenCL's under the backend name
// "cltrace": ONEAPI_DEVICE_SELECTOR=cltrace:cpu picks them, and a program
// run on them shows what it asks of the driver.
//
// # Writing an adapter outside gour
//
// An adapter is a package that implements the interfaces of
// github.com/gour-dev/gour/ur/driver and registers an open function from
// init:
//
//	func init() { driver.Register("mine", Open) }
//
// The name is the backend name users select it by (lower case; a name
// registered twice panics at start-up). Open loads the vendor library and
// lists platforms and devices; without a driver it returns an error
// matching driver.ErrNotAvailable (driver.NotAvailable builds one), never
// panics, so that discovery reports the adapter as missing and goes on.
// Discovery opens each adapter once per process and keeps it.
//
// The objects: driver.Adapter gives Platforms, which give Devices (made
// once: the front end tells devices apart by identity) and NewContext; a
// Context makes Queues, Mems (buffers) and Programs; a Program builds and
// makes Kernels; a Queue enqueues copies, fills and launches, returning an
// Event only when asked (a launch without one must not allocate). Errors
// are *driver.Error, carrying the Unified Runtime result code the front
// end's users test with errors.Is (ur.ErrInvalidKernelArgs) and the
// vendor's own code; driver.Check maps a vendor status without allocating
// on success. The front end checks handles, nil arguments, sizes, ranges
// and that objects share a context before it calls an adapter; an
// adapter that type-asserts what it is given still answers a foreign
// object with an error, not a panic (cltrace's unwrap functions).
//
// Optional interfaces widen what an adapter can do: driver.BinarySizer
// (binary sizes without copying the binaries) and driver.LaunchPreparer,
// the launch fast path. PrepareLaunch checks a launch of one kernel over
// one range once and returns a driver.PreparedLaunch, whose Launch the
// front end then calls for ur.Queue.PrepareLaunch's launches and for a
// Queue.Launch repeated over the same range. Launch makes the vendor call
// with the kernel's current arguments and reports only a status: Launched;
// LaunchStale (the kernel changed in a way the prepared call cannot
// follow: the front end prepares again); or LaunchFailed (nothing
// enqueued: the front end launches through Queue.Launch, which makes the
// error). How the call is made is the adapter's business: cltrace makes
// clEnqueueNDRangeKernel through purego (purego.Dlopen, purego.Dlsym and
// purego.SyscallN on a prepared argument array) on the native handles of
// the OpenCL objects it wraps. An adapter whose launch is one C call
// returning 0 on success may instead return a *driver.NativeCall (the
// function's address from dlsym and its arguments), which the front end
// calls inline, without the interface call and the adapter's frame: a
// measurable share of a launch of a few microseconds. cltrace implements
// the interface, to show it, and to count its launches.
//
// # Testing it
//
// gour's conformance suite runs on any registered adapter: a test of the
// adapter's module calls conformance.Run with the adapter's name and its
// device code (here OpenCL C, the suite's own, conformance.OpenCLC):
//
//	conformance.Run(t, conformance.Options{
//		Adapters:   []string{cltrace.Name},
//		DeviceCode: map[string]conformance.DeviceCode{cltrace.Name: conformance.OpenCLC()},
//	})
//
// An adapter with a language of its own gives its files instead
// (conformance.DeviceCode with an fs.FS of them, typically embedded).
package cltrace
