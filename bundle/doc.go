// Package bundle is gour's offload bundle: one versioned file holding many
// device images of one set of kernels — binaries built ahead of time per
// architecture (CUDA cubins per sm_XX, Level Zero native binaries per
// device), portable IL (SPIR-V, PTX) for devices no binary fits, and source
// as the last resort — and the choice, per device, of the image to run.
// It is what SYCL ships device code as (clang-offload-packager, then
// urDeviceSelectBinary at run time); cmd/urpack builds bundles.
//
// # Images
//
// Each Image records its Target (backend and architecture), its Format,
// the kernels it defines, its property set (the optional aspects its code
// uses, such as fp64 or 64-bit integer atomics; required sub-group sizes;
// specialization constants with their IDs, names, kinds and defaults;
// compile and link options) and the SHA-256 of its code.
//
// # Selection
//
// Select picks, for a Device description (backend, architecture, the IL it
// takes, its aspects), the image to run: an exact native match, else a
// compatible native binary (a cubin for sm_XY runs on sm_XZ when Z >= Y,
// the same major; sm_XYa only on sm_XY), else IL the device JIT-compiles
// (PTX for compute_XY on sm_AB when AB >= XY; SPIR-V not newer than the
// device takes), else source its backend compiles (OpenCL C on OpenCL, CUDA
// C on CUDA). Images lacking a kernel asked for, using aspects the device
// lacks, or built ahead of time (native or PTX) for default specialization
// constant values when others are asked for, are skipped; the Selection
// says why for each. DescribeDevice fills a Device from a *ur.Device.
//
// # Splitting device code
//
// Analyze finds the kernels of SPIR-V, PTX, OpenCL C or CUDA C code and
// the aspects each uses; Analysis.Split divides them into images: per
// kernel, per user-named module, or automatically (the kernels with the
// same requirements together). Every mode keeps kernels needing an
// optional aspect apart from those that do not.
//
// Aspects of SPIR-V come from its OpCapability instructions and hold for
// the whole module; those of PTX from each .entry's body and the .func
// functions it calls. OpenCL C and CUDA C are not compiled: a
// conservative scan, which over-reports rather than misses, reads them:
//
//  1. Comments and literal contents are blanked; preprocessor directives
//     are set aside (they are not evaluated: code under #if counts).
//  2. The top level is cut into declarations: a function definition ends
//     at its closing brace, anything else (prototype, typedef, struct,
//     variable) at its ';'. The contents of extern "C" { } and namespace
//     blocks count as top level. A function is a kernel when its header
//     has __kernel or kernel (OpenCL C) or __global__ (CUDA C).
//  3. Each declaration, and each #define, declares names (function,
//     typedef, tag, enumerators, variable, macro) and uses every other
//     identifier in it; it uses an aspect directly when it mentions
//     double or doubleN (fp64); in OpenCL C also halfN, or half where a
//     cl_khr_fp16 pragma enables it (fp16); atomic_long or atomic_ulong,
//     or an atom_* function beside long or ulong (int64_atomics);
//     sub_group_*, get_sub_group_* and the like (sub_groups).
//     intel_reqd_sub_group_size(N) in a kernel's header requires N.
//  4. A kernel's aspects are those of every declaration it reaches
//     through the names it uses, transitively.
//  5. An OpenCL C part keeps the whole translation unit except the
//     declarations none of its kernels reaches that need an aspect the
//     part does not: those are cut (their lines left empty, so that build
//     logs keep the original line numbers), which removes the fp64 kernels,
//     their helpers and their double typedefs from an image meant for
//     devices without fp64. Kernels of other parts that need nothing more
//     stay in the code, unlisted. CUDA C, PTX and SPIR-V parts keep the
//     whole code (every CUDA device has fp64; SPIR-V cannot be cut without
//     a linker: compile the parts of the source separately instead, as
//     urpack does).
//
// SplitOptions.Aspects overrides what the scan found, per kernel.
//
// # File format
//
// A bundle is Marshal's output; Parse reads it and checks every byte. All
// integers are little-endian; a str is a u32 length followed by that many
// bytes. Version 1:
//
//	offset  size  field
//	0       8     magic "\x89URB\r\n\x1a\n"
//	8       2     format version (1); a later version is refused with ur.ErrUnsupportedVersion
//	10      2     flags, zero
//	12      4     image count, at least 1
//	16      8     length of the whole bundle in bytes, header included
//	24      4     CRC-32C (Castagnoli) of every byte after the header
//	28      4     reserved, zero
//	32            the image records, one after another; nothing follows the last
//
// An image record:
//
//	u32       length of the rest of the record
//	u8        format: 1 opencl-c, 2 cuda-c, 3 spir-v, 4 ptx, 5 native
//	str       target backend: "opencl", "cuda", "level_zero", or "" (SPIR-V for any)
//	str       target architecture: "sm_90", "compute_80", a device ID, or ""
//	u32 n     kernels, then n × str, sorted, no repeats, at least one
//	u64       aspects, a bit set: 1 fp64, 2 fp16, 4 int64_atomics, 8 sub_groups; other bits are refused
//	u32 n     required sub-group sizes, then n × u32, sorted, no repeats
//	u32 n     specialization constants, sorted by ID, then n × {u32 ID, u8 kind (0 int, 1 uint,
//	          2 float, 3 bool), str name, str default value (1, 2, 4 or 8 bytes, as the kind allows)}
//	str       compile options
//	str       link options
//	[32]byte  SHA-256 of the code
//	u64 n     code length, then n bytes of code
//
// The output of Marshal depends only on the images and their order. A
// truncated, corrupted or malformed bundle is refused with a *ur.Error
// carrying ur.ErrInvalidBinary around a *FormatError that names the
// offset, the image and the field; no input makes Parse allocate more
// than its own size or panic.
//
// A bundle embeds with //go:embed and loads with one call: Parse for a
// []byte variable, ReadFS for an embed.FS.
package bundle
