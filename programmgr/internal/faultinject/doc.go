// Package faultinject is a gour adapter for tests: it wraps the real OpenCL
// adapter, forwards every call to it, counts the calls that create, build
// and release programs and kernels, and fails chosen calls with chosen
// result codes. Its devices are the OpenCL adapter's, each shown Copies
// times, so that a context can hold two "devices" on a machine with one
// (the copies share the real device; a program built for both builds once
// underneath). Copy 0 reports the real device's features; the others
// report neither fp64 nor fp16, so that requirement checks can be tested.
//
// Faults and counters belong to one context: a test creates its own
// ur.Context and finds its Controller with For, so tests may run in
// parallel.
//
// The adapter registers under Name only when a test calls Register (from
// TestMain, before discovery); it is found with
//
//	ur.Discover(ur.Config{ForceLoad: []string{faultinject.Name}, Selector: "*:*"})
package faultinject
