// Package soak runs gour under load and checks every result: many
// goroutines making random calls over package compute (element-wise
// expressions, reductions, axis reductions, copies, matrix products,
// arrays released at random points), package blas (handles made, used and
// closed), and the program manager (kernels asked for and launched,
// caches evicted and cleared), while compute Devices, ur contexts and
// queues are made and released concurrently, on every device it is given.
//
// Each result is compared with the same computation in Go, exactly: the
// data are small integers, so sums, products and matrix products are exact
// in every order a device adds them. Run returns a Report of the calls
// made per kind, the calls per second and every failure; it is the test of
// this package (bounded in time, under -race and with ur's leak checking
// in make test) and, for as long as asked, a command:
//
//	go test ./soak -run Soak -v -soak.duration=10m
//
// A failure is a wrong result, an error, a panic (recovered and reported)
// or a call that did not return (the run's deadline passed with it still
// running). Handles left unreleased are reported by ur's leak check
// (GOUR_LEAK_CHECK=1), which the package's TestMain applies.
package soak
