// Command golaunch is gour's side of the launch benchmark: the sequence of
// launch.c, through gour, printing its result in the same format:
//
//	gour ns/launch 1234.5 enqueue 567.8 (median of R rounds x N launches; min ... max ...)
//
// Usage: golaunch [ITERS [ROUNDS]] (defaults 20000 and 10). launch.sh runs
// it interleaved with the C program.
package main
