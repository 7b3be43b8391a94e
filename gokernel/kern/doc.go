// Package kern is what a kernel written in Go calls: its work-item's
// place in the index space, the work-group barrier, work-group (shared)
// memory, atomics and subgroup (warp) operations. A kernel is a Go function whose first parameter is
// a kern.Item, as a SYCL kernel takes its nd_item:
//
//	func Axpy(it kern.Item, a float32, x, y []float32) {
//		i := it.GlobalID(0)
//		if i < len(y) {
//			y[i] += a * x[i]
//		}
//	}
//
// Package gokernel compiles such a function to OpenCL C and CUDA C,
// where each call here becomes the device's own (get_global_id,
// barrier, __local memory, atomic_add, ...). On the CPU the same function
// runs as Go (gokernel.RunCPU): a goroutine for every work-item of a
// work-group, a real barrier between them, the group's shared memory, and
// sync/atomic for the atomics, so that go test -race finds what a
// missing barrier races on, on a machine without a GPU.
package kern
