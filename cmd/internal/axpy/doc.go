// Package axpy holds the kernel y = a*x + y of make demo and the
// benchmarks, in each backend's language, as program manager images.
package axpy
