// Command urpack packages device code into offload bundles (package
// bundle), and looks inside them.
//
// Usage:
//
//	urpack build -o OUT [flags] INPUT...
//	urpack inspect [--json] BUNDLE
//	urpack select [--json] [--verbose] [--kernel NAME]... [--device SELECTOR] BUNDLE
//
// build reads each input by its extension — OpenCL C (.cl), CUDA C (.cu),
// SPIR-V (.spv), PTX (.ptx), or FILE=TARGET for a binary (cuda:sm_90,
// level_zero:0x0bd5) whose kernels -kernels names — and writes one bundle:
//
//   - OpenCL C is split into images (-split auto, kernel or module, with
//     -module NAME=K1,K2; kernels needing fp64 or another optional aspect
//     always apart from the others), each kept as source and, with -spirv,
//     compiled to SPIR-V 1.0 by clang and llvm-spirv (clang-15 and
//     llvm-spirv-15 by default, as scripts/spirv.sh; $CLANG and
//     $LLVM_SPIRV, or -clang and -llvm-spirv, name others);
//   - CUDA C is kept as source and compiled by nvcc into a cubin per
//     -cuda-arch (sm_80,sm_90) and PTX per -ptx-arch (by default the
//     oldest -cuda-arch's compute_XY, the fallback for newer devices);
//     where nvcc is missing, by NVRTC (package adapters/cuda/nvrtc: the
//     CUDA toolkit's libnvrtc.so, no GPU needed), unless -no-nvrtc;
//   - SPIR-V and PTX go in as they are, with the kernels, aspects and
//     specialization constants read from them.
//
// -aspects KERNEL=fp64 overrides the aspects detected in a kernel; -spec
// ID:NAME:KIND=DEFAULT declares a specialization constant of the source
// images; -options records compile options and passes them to the
// compilers. A target whose tool is missing fails the build, or with
// -skip-missing is left out with a warning. Progress goes to standard
// error (-q silences it). The same inputs give the same bundle, byte for
// byte; the bundle is written through a temporary file, never half.
//
// inspect lists the images: format, target, size, checksum, kernels,
// aspects, sub-group sizes, specialization constants and options; --json
// prints them as JSON.
//
// select discovers the devices (ONEAPI_DEVICE_SELECTOR, or --device) and
// says, for each device and kernel, which image bundle.Select chooses and
// at which rank — exact native match, compatible binary, IL compiled at
// run time, source — and with --verbose why each other image was passed
// over; a kernel no image can run on a device is reported with the reason
// (a missing aspect, say).
//
// Exit status: 0 when done, and for -h or --help (usage on standard
// output); 1 on failure (a missing tool, a failed compile, an invalid
// bundle, no device selected); 2 on misuse (a bad flag or argument).
package main
