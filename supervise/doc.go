// Package supervise runs device work in a child process and replaces the
// child when the device is lost, so that a server survives a kernel that
// faults.
//
// A kernel that writes through a wild pointer loses its context on every
// driver gour runs on, and neither CUDA nor NVIDIA's OpenCL lets the
// process use the device again: CUDA answers every later call with the
// fault's sticky code, and on an H100 even a new context after
// cuDevicePrimaryCtxReset was refused ("busy or unavailable"); NVIDIA's
// OpenCL answers a new context with -9999 (docs/design.md, "Device
// faults"). gour reports the loss as ur.ErrDeviceLost and keeps the device
// lost for the process (ur.Device.Lost). The way back is a new process,
// and that is what a Supervisor does: it starts a worker, a copy of the
// running program (or any command) that serves jobs with a Handler,
// sends it one job at a time, and starts a fresh worker for the next job
// after the worker reported ur.ErrDeviceLost, died, or ran past the job's
// context.
//
// The worker side is one call at the top of main (or TestMain), before
// anything else touches a device:
//
//	func main() {
//		supervise.ServeIfWorker(func(ctx context.Context, job []byte) ([]byte, error) {
//			return runOnDevice(job) // errors with ur.ErrDeviceLost end this worker
//		})
//		s := supervise.New(supervise.Config{})
//		defer s.Close()
//		out, err := s.Do(ctx, job) // errors.Is(err, ur.ErrDeviceLost) after a fault
//		...
//	}
//
// Jobs and results are bytes; the encoding is the caller's. They travel
// over two pipes of their own (file descriptors 3 and 4 in the worker), so
// the worker's standard output and error stay free for the user's code
// and go to the Supervisor's Config.Stderr. The protocol is unix-only, as
// gour's adapters are.
package supervise
