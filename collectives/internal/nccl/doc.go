// Package nccl is the raw binding of NVIDIA's collective communication
// library (libnccl.so.2), called through internal/dl without cgo.
//
// Each method of [Lib] calls one C function and returns its ncclResult_t
// as a [Result]. Calls that run on a GPU take a [Ctx]: the CUDA context to
// make current on the calling OS thread in the same C call
// (dl.CallAfter), since NCCL launches its kernels on the current device.
//
// ncclCommInitRank takes its 128-byte unique id by value, which the C
// calling convention passes in 16 stack words: more than internal/dl and
// purego pass. Communicators of several processes are therefore made with
// ncclCommInitRankScalable (NCCL 2.23), which takes the id by pointer;
// [Lib.CanInitRank] says whether the library has it. Those of one process
// are made with ncclCommInitAll, present in every NCCL 2.
package nccl
