// Package clspirv compiles OpenCL C to SPIR-V with offline tools, for the
// devices that take SPIR-V but no OpenCL C source (Level Zero): clang
// makes LLVM bitcode for the spir64 target, and the Khronos LLVM/SPIR-V
// translator turns it into SPIR-V 1.0, which every Level Zero driver and
// every OpenCL device with IL takes. It is the pipeline of
// scripts/spirv.sh, run by the program manager at build time:
//
//	clang -x cl -c -target spir64 -cl-std=CL1.2 -O2 -emit-llvm \
//	    -Xclang -cl-ext=±cl_khr_fp64 -Xclang -cl-ext=±cl_khr_fp16 \
//	    [-D, -U, -I, -cl-* options] -o image.bc image.cl
//	llvm-spirv --spirv-max-version=1.0 image.bc -o image.spv
//
// # Tools
//
// Find looks the tools up on PATH: GOUR_CLANG names clang (default
// clang-15, then clang), GOUR_LLVM_SPIRV the translator (default
// llvm-spirv-15, then llvm-spirv); a name with a slash is a path. The two
// should be of one LLVM version: the translator reads its own version's
// bitcode. On Debian and Ubuntu:
//
//	apt-get install clang-15 llvm-spirv-15
//
// A missing tool is a *MissingToolError, which wraps
// ur.ErrUnsupportedFeature and says which tool, which names were tried
// and how to install it; a tool found whose --version fails is a
// *ToolError, which wraps the same. Find runs each tool's --version and
// hashes its executable once per process (per file): the version lines
// and the SHA-256 make Toolchain.Version, which the program manager puts
// in the keys of what it caches, so that another compiler never serves a
// stale binary. The hash covers the executable, not the shared libraries
// it loads (libclang-cpp, libLLVM): a rebuild of those alone that keeps
// the version line keeps the key.
//
// # Compiling
//
// Compile runs the tools with exec.CommandContext under a timeout
// (Toolchain.Timeout, DefaultTimeout unless set), in a private temporary
// directory removed afterwards. A failing tool gives a *CompileError
// carrying its output (the compiler's diagnostics), which wraps
// ur.ErrProgramBuildFailure; a timeout or a cancelled context gives an
// error wrapping the context's error, never a *CompileError.
//
// SplitOptions divides OpenCL build options between the two sides: the
// preprocessor, language and warning options (-D, -U, -I, -cl-std=, -w,
// -Werror, -Wno-...) go to clang alone, OpenCL's optimisation options (-cl-mad-enable,
// -cl-fast-relaxed-math, ...) to clang and to the driver, which takes them
// for SPIR-V too, and anything else to the driver alone.
package clspirv
