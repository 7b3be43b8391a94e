// Package cudrv is the little of the CUDA driver API (libcuda.so.1) that
// package collectives needs to run NCCL on a gour queue: the context of
// a stream, making a context current, the device of a context and the
// primary context of a device. It is loaded through internal/dl, without
// cgo, apart from the CUDA adapter's own binding: an internal package of
// one part of gour is not another's to import.
package cudrv
