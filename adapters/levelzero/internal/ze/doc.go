// Package ze is the raw binding of the Level Zero API (ze_api.h) through
// its loader, libze_loader.so.1, called without cgo through internal/dl.
//
// It holds no adapter logic: each method of [Lib] calls one C function
// with Go-typed arguments and returns the ze_result_t as a [Result]. The
// files follow the regions of ze_api.h: driver.go (zeInit, zeInitDrivers,
// drivers and devices, their memory access capabilities), context.go,
// cmdlist.go (immediate command lists and the commands appended to them:
// copies, region copies, fills, prefetches, memory advice, launches),
// event.go (event pools and events, kernel timestamps), memory.go (device,
// host and shared allocations, pointer queries) and module.go (modules,
// build logs, native binaries, kernels). types.go
// mirrors every C structure passed to Level Zero, with its stype
// constant; result.go names every ze_result_t.
//
// Structures go to C by pointer. They are allocated on the Go heap (Go's
// collector does not move heap objects) and kept referenced until the call
// returns; pointers inside them are unsafe.Pointer fields, so the
// collector keeps their targets alive too. Scalar outputs (handles,
// counts, sizes) are written by C into a pooled call frame (dl.Frame) and
// returned as values, and a launch's ze_group_count_t lives in that frame
// too, so the hot-path calls (set argument, set group size, launch, event
// query) allocate nothing.
//
// The layout of every structure is checked against the C header by
// layout_cgo_test.go, which needs cgo, the zeheaders build tag and the
// header (Debian's libze-dev):
//
//	go test -tags zeheaders ./adapters/levelzero/internal/ze/
//
// Entry points newer than the Debian 1.8 loader (zeInitDrivers,
// zeCommandListHostSynchronize) and the experimental global offset are
// optional: their address is zero when missing, a Has… method reports
// them, and calling one returns [NotSupported] without calling C. Load
// never panics; on a machine without the loader it returns an error naming
// the libraries it tried.
//
// The binding targets 64-bit platforms, where size_t, device addresses and
// handles all fit one uintptr argument.
package ze
