// Package gonumblas is gonum's BLAS interface on a gour device: an
// implementation of gonum.org/v1/gonum/blas's Float64 and Float32 that
// computes the matrix products on the device through gour's device BLAS
// (package blas: cuBLAS on CUDA, CLBlast on OpenCL, gour's own kernels
// anywhere) and everything else with gonum's native implementation, the
// way NVBLAS offloads a CPU BLAS. After
//
//	impl, err := gonumblas.New(q, gonumblas.DefaultOptions())
//	...
//	blas64.Use(impl)
//	blas32.Use(impl)
//
// gonum/mat (and lapack, stat, ... ) multiply on the device, their code
// unchanged.
//
// # What runs on the device
//
// Each offloaded call copies its operands from the caller's slices to
// the device, computes, and copies the result back before it returns:
// gonum's interface takes host slices, and nothing stays on the device
// between calls but the scratch memory, which grows to the largest call
// and is reused (Close frees it). The transfers make a call worth
// offloading only when it has enough arithmetic per element moved,
// hence the thresholds (Options):
//
//   - Dgemm, Sgemm: the general product, as such.
//   - Dsymm, Ssymm: a general product; A's stored triangle is mirrored
//     into a full matrix while it is copied.
//   - Dsyrk, Ssyrk, Dsyr2k, Ssyr2k: one (two for syr2k) general products
//     computing all of C, of which only the requested triangle is copied
//     back: twice the arithmetic of a rank-k update, which costs little
//     where the copies take most of the call's time.
//   - Dtrmm, Strmm: a general product into the output; A's triangle is
//     copied with zeros in the other one (ones on a unit diagonal). The
//     zeros meet B's infinities and NaNs, so where B has those the
//     result may have NaNs where gonum's, which skips the zeros, has
//     none.
//   - Dgemv, Sgemv, from Options.Level2Threshold on, which DefaultOptions
//     leaves off: a matrix-vector product reads each element of A once,
//     so copying A over the bus takes about as long as the host takes
//     for the whole product. It pays where the bus is fast against the
//     host's memory, which BenchmarkDgemv measures.
//   - Dtrsm, Strsm: the device BLAS's triangular solve (package blas's
//     Trsm), its size for the threshold its multiply-adds, m·n·k/2.
//     gonum's lapack solves with it (Dgetrs after an LU factorisation,
//     Dpotrs after a Cholesky one, so mat.Dense.Solve and
//     mat.Cholesky.SolveTo): with n right-hand sides it is most of a
//     solve's arithmetic, which gonum's Dtrsm computes row by row on one
//     core. The factorisations' own products (Dgemm in Dgetrf, Dsyrk and
//     Dgemm in Dpotrf) are offloaded above the threshold like any call;
//     their panels (Dgetf2, Dpotf2, Level 2) and the small solves
//     between them stay on the host, below it.
//   - Every other Level 1 and Level 2 routine, and the complex ones, are
//     gonum's: they move as many elements as they compute with.
//
// # Set-up
//
// New returns at once and sets the device up in the background: the
// device BLAS is opened (cuBLAS or CLBlast loaded, a handle made), its
// kernels built or loaded, and a small product and solve of each type
// run through the whole path of a call. That takes tens of milliseconds
// on a GPU with cuBLAS and seconds where kernels are compiled, which
// would make the first offloaded call many times slower than gonum's.
// Until the set-up is done every call is gonum's, so no call is slower
// than gonum's for it; Stats.Unready counts those calls, WaitReady waits
// for the set-up and returns its error, if it failed (every call is then
// gonum's, and a warning is logged).
//
// Offloading changes rounding, not results: the device sums the
// products in another order, with fused multiply-adds, so results differ
// from gonum's in the last bits, as they differ between any two BLAS
// libraries; gonum's own test suite (testblas) accepts them.
//
// A call without work for the device — an empty matrix, k = 0, alpha =
// 0 — is gonum's, which gives exactly its results (C = beta*C). With
// beta = 0, C is not read: NaNs in it are overwritten, as in gonum.
// Element types the device lacks (float64 on a device without double
// precision) are gonum's as well.
//
// # Bad arguments and device errors
//
// Bad arguments panic exactly as in gonum's native implementation, with
// its messages ("blas: bad leading dimension of A", ...), checked in its
// order: each offloaded routine first has gonum's routine check them
// (calling it with alpha 0 and beta 1, which checks and then returns),
// except Dtrmm, Strmm, Dtrsm and Strsm, whose checks are gonum's, copied.
//
// gonum's interface has no error results, so a device call that fails
// at run time (out of device memory, a lost device, a driver error) does
// not panic: the call is computed by gonum instead, the first such
// failure of an Implementation is logged as a warning (Options.Logger,
// else slog's default logger), later ones at debug level, and Stats
// counts them. The caller's output is written only once the device's
// whole result is on the host, so a failure leaves it as it was for
// gonum to compute.
//
// # Concurrency
//
// An Implementation may be used by several goroutines at once, as gonum
// allows; device calls take turns (one mutex around the queue and the
// scratch memory), and calls computed by gonum run concurrently as
// usual.
package gonumblas
