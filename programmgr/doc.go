// Package programmgr builds device code once per context and reuses it: the
// program manager and in-memory cache of gour, in the manner of the SYCL
// runtime's program manager and kernel/program cache. Its design, and the
// choices it did not make, are in docs/design.md ("The program manager").
//
// # Device images
//
// An Image is the unit an application ships: code in a Format (OpenCL C,
// CUDA C, SPIR-V, PTX or a native binary), the kernels it defines, its
// specialization constants with their defaults, its compile and link
// options and its Requirements (fp64, fp16). NewImage checks an ImageDesc
// and returns an immutable Image; its ID is SHA-256 over a versioned,
// canonical encoding of every field (kernel names sorted, spec constants
// by ID, integers little-endian, byte strings length-prefixed), the same
// in every process and Go version.
//
// # Specialization constants
//
// SpecValues holds the values chosen for a build (Spec makes one from a
// map); the zero value means "all defaults". A value equal to its default
// is the same build as no value. How the values reach the code depends on
// the format:
//
//   - OpenCL C and CUDA C: every spec constant of the image becomes a
//     -DName=value definition; the value is written as the C literal of
//     the constant's SpecKind (see SpecLiteral): 42, (-3), 7u, 1.5f, 2.0;
//   - SPIR-V: Program.SetSpecConstant, which the adapter refuses with
//     ur.ErrUnsupportedFeature where the device cannot;
//   - PTX and native binaries: none; values give ur.ErrUnsupportedFeature.
//
// An ID the image does not declare gives ur.ErrInvalidSpecID, a value of
// the wrong size ur.ErrInvalidValue, both without building.
//
// # Building
//
// A Manager serves one ur.Context. GetProgram returns an image built for a
// set of the context's devices; GetKernel returns one kernel of an image
// built for one device. The build options are, in this order, the image's
// compile options (or SYCL_PROGRAM_COMPILE_OPTIONS instead, as in DPC++),
// SYCL_PROGRAM_APPEND_COMPILE_OPTIONS, the spec-constant definitions and
// the caller's options, last so that they win. An image with link options
// (the image's, or SYCL_PROGRAM_LINK_OPTIONS, plus
// SYCL_PROGRAM_APPEND_LINK_OPTIONS) is compiled, then linked with them;
// any other is built in one step. An image whose Requirements a device
// lacks, or whose format is another backend's, gives
// ur.ErrUnsupportedFeature without building.
//
// # OpenCL C on Level Zero
//
// Level Zero takes SPIR-V and native binaries, not OpenCL C. An OpenCL C
// image asked for on devices that take SPIR-V but no source is compiled
// to SPIR-V 1.0 first, by clang (-target spir64 -cl-std=CL1.2 -O2, with
// cl_khr_fp64 and cl_khr_fp16 on where the devices have them) and the
// LLVM/SPIR-V translator, found on PATH: GOUR_CLANG (default clang-15,
// then clang) and GOUR_LLVM_SPIRV (default llvm-spirv-15, then
// llvm-spirv); Debian: apt-get install clang-15 llvm-spirv-15. The build
// options are divided: -D, -U, -I, -cl-std= and warning options (the
// spec-constant definitions among them) go to clang, OpenCL's -cl-*
// optimisation options to clang and the driver, anything else to the
// driver. The SPIR-V is then built like a SPIR-V image. The result is
// cached like any program, in memory under the OpenCL C image's key and
// on disk under a key of its own, which covers the tools' versions and
// clang's options, so that a program is compiled once per machine and
// toolchain. A missing tool gives a *ur.Error carrying
// ur.ErrUnsupportedFeature that names it; a compile error one carrying
// ur.ErrProgramBuildFailure with clang's diagnostics as its BuildLog;
// both are remembered as a driver's build error is (Clear forgets them).
// SYCL_CACHE_TRACE bit 4 logs each compilation.
//
// # Offload bundles
//
// A Bundle is an offload bundle (package bundle, built by cmd/urpack)
// loaded with one call — NewBundle for a //go:embed []byte, LoadBundle
// for an fs.FS — its images made Images. GetBundleKernel is GetKernel for
// a bundle: it picks, per device, the image to build with bundle.Select
// (an exact native match over a compatible native binary over IL the
// device JIT-compiles over source) and then serves the kernel as
// GetKernel does, so that a JIT-compiled or source image is built once and
// stored in the persistent cache, and a native image is loaded as it is
// and not stored again. The choice is a separate call, not an Image
// argument, because it depends on the device: one bundle serves an H100
// with its sm_90 cubin and PoCL with OpenCL C. The manager remembers each
// choice, so a repeated request is a lock-free map lookup before the fast
// kernel cache.
//
// Images whose aspects the device lacks are skipped; a kernel only such
// images define is an error carrying ur.ErrUnsupportedFeature that names
// the aspect (fp64), and the bundle's other kernels still run there. An
// image built ahead of time (native, PTX) holds the specialization
// constants' defaults, so with other values the IL or source image of the
// kernel is built instead. SelectImage returns the choice and its
// bundle.Selection; SYCL_CACHE_TRACE=8 logs each choice when it is made,
// with the reason each other image was passed over.
//
// # The caches
//
//   - Program cache, keyed by (image ID, spec-constant values, set of
//     devices, caller's build options). The environment's options are
//     fixed for a manager's life, so they are not part of the key.
//   - Kernel cache, keyed by (program, kernel name).
//   - Fast kernel cache, keyed by (image ID, kernel name, device,
//     spec-constant values, build options). The image ID and the options
//     are in the key, not only (kernel name, device, spec-constant
//     values), so that two images defining a kernel of the same name, or
//     one image built with two sets of options, never meet. Its
//     hit path takes no lock and allocates nothing: the cache is an
//     immutable map replaced whole when an entry comes or goes, and a hit
//     marks its program used with an atomic stamp.
//
// Concurrent requests for one entry build it once: the first caller
// builds, the others wait (or give up when their context ends) and get
// the very object or the very error. A driver error of a build is
// remembered: asking again returns it without building (Clear forgets).
// A failure that is not the driver's — a panic in the build, recovered,
// or the builder's context ending — puts the entry back to "not built"
// and one waiter builds again; after two attempts in all, everyone
// waiting gets the error. No lock is held during a build, so builds of
// different entries run in parallel.
//
// When creating, building, compiling, linking or creating a kernel fails
// with OUT_OF_HOST_MEMORY, OUT_OF_DEVICE_MEMORY or OUT_OF_RESOURCES, the
// manager evicts everything it can and tries again, twice at most, then
// returns the error (not remembered).
//
// # Eviction
//
// With a threshold (SYCL_IN_MEM_CACHE_EVICTION_THRESHOLD, bytes; 0 = off)
// the manager keeps the programs in least-recently-used order; a program
// counts the sum of its binary sizes. A program-cache hit makes its
// program the most recently used; a fast kernel cache hit, which touches
// nothing but the fast cache, leaves the order alone, as in DPC++ (so a
// kernel fetched only through the fast cache ages like an unused one).
// Inserting past the threshold evicts
// from the least recently used end until the cache is at most the
// threshold; a program bigger than the threshold on its own is evicted
// right after it is built (its caller still gets it), as in DPC++.
// Evicting a program evicts its kernels and their fast-cache entries.
//
// # Lifetimes
//
// Programs and Kernels are reference counted: the cache holds one
// reference to what it caches and each Get returns one more, which the
// caller gives back with Release. Eviction only drops the cache's
// reference, so what a caller holds stays valid; the ur object is
// released exactly once, when the last reference goes. A Kernel holds its
// Program. A cached Kernel is shared by every caller asking for it:
// launch it with ur.Queue.Launch, which takes the arguments with the
// launch and needs no lock; the kernel's own arguments (SetArg*) are state
// in the driver, so hold Kernel.Lock from setting them until the launch
// is enqueued.
//
// # Configuration
//
// Options configure a manager; a field left at its "from the environment"
// value reads the variable (DefaultOptions reads them all). Values are
// parsed strictly: a malformed one is an error carrying ur.ErrInvalidValue
// that names the variable.
//
//	SYCL_IN_MEM_CACHE_EVICTION_THRESHOLD  bytes, a decimal integer; 0 or unset: no eviction
//	SYCL_CACHE_IN_MEM                     1 (default) or 0: 0 builds on every request, the caller owns the result
//	SYCL_CACHE_TRACE                      bit mask: 1 persistent cache, 2 in-memory cache, 4 kernel compiler, 8 bundle selection
//	SYCL_PROGRAM_COMPILE_OPTIONS          replaces every image's compile options
//	SYCL_PROGRAM_APPEND_COMPILE_OPTIONS   appended to them
//	SYCL_PROGRAM_LINK_OPTIONS             replaces every image's link options
//	SYCL_PROGRAM_APPEND_LINK_OPTIONS      appended to them
//	GOUR_CACHE_REMOTE                     the persistent cache's remote tier, shared by a fleet:
//	                                      redis://[user:password@]host:port[/db], rediss:// for TLS
//	                                      (Options.RemoteCache; package cache, The remote tier)
//	GOUR_CLANG, GOUR_LLVM_SPIRV           the tools compiling OpenCL C to SPIR-V for Level Zero
//	                                      (default clang-15 or clang, llvm-spirv-15 or llvm-spirv)
//
// The persistent cache's own variables (SYCL_CACHE_PERSISTENT,
// SYCL_CACHE_DIR, ...) are package cache's. With GOUR_CACHE_REMOTE, a
// binary missing from the local disk is looked up in the remote tier, and
// machines missing one program at once build it once; Stats.RemoteHits
// counts the programs another machine built.
//
// DPC++'s documentation counts the bits of SYCL_CACHE_TRACE from one: its
// "bit 2" (the in-memory cache) is the value 2 (SYCL_CACHE_TRACE=2), and
// "bit 1" (the persistent cache) is the value 1. With it set, every insert, fetch
// and evict of the in-memory cache is logged through log/slog at level
// Info, with the image, devices, spec values, options and kernel.
//
// Stats returns the counters (hits, fast hits, misses, builds, failures,
// out-of-memory retries, evictions) and what the cache holds (programs,
// kernels, fast entries, bytes).
package programmgr
