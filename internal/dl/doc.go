// Package dl opens vendor driver libraries at run time and resolves their
// symbols into tables of C function addresses.
//
// It is the only place in gour that calls dlopen. Adapters describe the
// symbols they need as a []Symbol, mark the ones that only newer drivers
// have as optional, and get back a clear error naming the library and the
// missing symbol when something required is absent. Nothing here panics:
// a machine without a driver simply gets an error to report.
package dl
