#!/usr/bin/env bash
# spirv.sh makes the SPIR-V device code of the conformance suite from its
# OpenCL C kernels, with Debian's clang and the Khronos LLVM/SPIR-V
# translator (packages clang-15 and llvm-spirv-15):
#
#   conformance/testdata/opencl/{kernels,link_main,link_lib}.cl
#   conformance/testdata/spirv/invalid.cl
#     -> conformance/testdata/spirv/{kernels,kernels_fp64,link_main,link_lib,invalid}.spv
#
# Each file: clang -c -target spir64 -cl-std=CL1.2 -O2 -emit-llvm, then
# llvm-spirv --spirv-max-version=1.0 (SPIR-V 1.0, which every Level Zero
# driver and every OpenCL device with IL takes). kernels.spv leaves
# cl_khr_fp64 out, so it has no Float64 capability and builds on devices
# without doubles; kernels_fp64.spv has axpy_f64 too. spirv-val checks the
# result when spirv-tools is installed.
#
# The .spv files are committed: tests never need clang. Run this after
# changing the kernels, and commit what it writes.
#
#   scripts/spirv.sh           regenerate
#   scripts/spirv.sh --check   regenerate into a temporary directory and
#                              fail if the committed files differ
#
# CLANG and LLVM_SPIRV name other tools (default clang-15, llvm-spirv-15).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

CLANG=${CLANG:-clang-15}
LLVM_SPIRV=${LLVM_SPIRV:-llvm-spirv-15}
src=conformance/testdata/opencl
dst=conformance/testdata/spirv

check=0
if [[ ${1:-} == --check ]]; then
	check=1
elif [[ $# -gt 0 ]]; then
	echo "usage: scripts/spirv.sh [--check]" >&2
	exit 2
fi

for tool in "$CLANG" "$LLVM_SPIRV"; do
	if ! command -v "$tool" >/dev/null 2>&1; then
		echo "spirv.sh: $tool not found (Debian: apt-get install clang-15 llvm-spirv-15)" >&2
		exit 1
	fi
done

out=$dst
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if ((check)); then
	out=$tmp/out
	mkdir -p "$out"
fi

# spv NAME SOURCE [CLANG FLAGS...]
spv() {
	local name=$1 source=$2
	shift 2
	"$CLANG" -c -target spir64 -cl-std=CL1.2 -O2 -emit-llvm "$@" -o "$tmp/$name.bc" "$source"
	"$LLVM_SPIRV" --spirv-max-version=1.0 "$tmp/$name.bc" -o "$out/$name.spv"
	if command -v spirv-val >/dev/null 2>&1; then
		spirv-val --target-env opencl1.2 "$out/$name.spv"
	fi
	echo "spirv.sh: $out/$name.spv ($(wc -c <"$out/$name.spv") bytes)"
}

spv kernels "$src/kernels.cl" -Xclang -cl-ext=-cl_khr_fp64
spv kernels_fp64 "$src/kernels.cl"
spv link_main "$src/link_main.cl"
spv link_lib "$src/link_lib.cl"
spv invalid "$dst/invalid.cl"
spv images "$src/images.cl" -Xclang -cl-ext=-cl_khr_fp64

if ((check)); then
	status=0
	for f in "$out"/*.spv; do
		if ! cmp -s "$f" "$dst/$(basename "$f")"; then
			echo "spirv.sh: $dst/$(basename "$f") differs from what $CLANG and $LLVM_SPIRV make now" >&2
			status=1
		fi
	done
	exit $status
fi
