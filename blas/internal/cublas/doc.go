// Package cublas is the raw binding of NVIDIA's cuBLAS (libcublas.so),
// called without cgo: the library and the CUDA driver are opened at run
// time, and a machine without them gets an error to report, never a
// crash or a link failure.
//
// cuBLAS works on the calling thread's current CUDA context, while a Go
// goroutine may move between threads from one call to the next. Every
// call here therefore makes the handle's context current and calls the
// cuBLAS function on one thread, within one switch to the system stack
// (see callCtx): the caller needs no runtime.LockOSThread. Many cuBLAS
// functions take more than twelve arguments (cublasSgemm takes 14,
// cublasGemmStridedBatchedEx 23): they go through internal/dl's wide
// calls, the same trampoline as every other C call gour makes.
//
// A Handle is bound to one context and, by SetStream, to one stream. Its
// host-side scalars (alpha, beta) live in the Handle, on the heap, so a
// call allocates nothing; for the same reason a Handle must not be used
// by two goroutines at once. Results of the reductions (dot, nrm2, asum,
// iamax) are written to device memory (CUBLAS_POINTER_MODE_DEVICE), so no
// call waits for the device.
package cublas
