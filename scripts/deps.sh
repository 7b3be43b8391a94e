#!/usr/bin/env bash
# deps.sh installs what gour's demo, tests and benchmarks need on Debian or
# Ubuntu, and nothing that is already there. `make deps` runs it.
#
#   ocl-icd-libopencl1  the OpenCL ICD loader, libOpenCL.so.1, which the
#                       OpenCL adapter dlopens
#   pocl-opencl-icd     PoCL, the OpenCL implementation on the CPU that is
#                       the default device everywhere (pulls in libpocl2 and
#                       clang-15, which PoCL compiles kernels with)
#   gcc, libc6-dev      cgo, which `go test -race` needs, and the C benchmark
#   ocl-icd-opencl-dev  CL/cl.h and libOpenCL.so, for the C benchmark
#   libze1              the oneAPI Level Zero loader, libze_loader.so.1, which
#                       the Level Zero adapter dlopens; with no Level Zero
#                       driver installed it reports "no driver/device", which
#                       the tests check
#   libze-dev           level_zero/ze_api.h, which the struct layout test
#                       (go test -tags zeheaders ./adapters/levelzero/internal/ze/)
#                       compares the Go structures with
#   redis-server        the remote tier's tests (cache/rediscache, programmgr,
#                       urcache) start their own redis-server on a free port;
#                       the service the package sets up is neither started
#                       here nor used
#   clang-15, llvm-spirv-15
#                       compile OpenCL C to SPIR-V for Level Zero
#                       (programmgr/internal/clspirv, also scripts/spirv.sh);
#                       make test requires them (GOUR_REQUIRE_SPIRV_COMPILER=1)
#   libclblast1         CLBlast, libclblast.so.1, the OpenCL BLAS that package
#                       blas dlopens; make test requires it
#                       (GOUR_REQUIRE_CLBLAST=1)
#   clinfo              optional: lists OpenCL platforms; a failure to
#                       install it is only a warning
#
# Packages are installed with --no-install-recommends. PoCL works without
# its recommended packages: every file it opened or ran while building and
# running a kernel (strace on Debian 12, PoCL 3.1) belongs to the closure of
# the hard dependencies of these packages (libpocl2, clang-15,
# libclang-cpp15, libllvm15, binutils, libgcc-12-dev, libc6-dev, ...) or to
# essential packages, as `apt-cache depends --recurse --no-recommends` shows.
#
# apt-get runs directly as root, through sudo otherwise; `apt-get update`
# runs once, only when something is missing.
set -euo pipefail

required=(ocl-icd-libopencl1 pocl-opencl-icd gcc libc6-dev ocl-icd-opencl-dev libze1 libze-dev redis-server clang-15 llvm-spirv-15 libclblast1)
optional=(clinfo)

if ! command -v dpkg >/dev/null 2>&1 || ! command -v apt-get >/dev/null 2>&1; then
	echo "deps: not a Debian/Ubuntu system (no dpkg/apt-get): install an OpenCL ICD loader" \
		"(libOpenCL.so.1), PoCL, gcc and the Level Zero loader and headers yourself" >&2
	exit 0
fi

missing() {
	local p
	for p in "$@"; do
		dpkg -s "$p" >/dev/null 2>&1 || echo "$p"
	done
}

mapfile -t need < <(missing "${required[@]}")
mapfile -t want < <(missing "${optional[@]}")
if ((${#need[@]} == 0 && ${#want[@]} == 0)); then
	echo "deps: all installed (${required[*]} ${optional[*]})"
	exit 0
fi

sudo=()
if (($(id -u) != 0)); then
	if ! command -v sudo >/dev/null 2>&1; then
		echo "deps: missing ${need[*]} ${want[*]}, and not root and no sudo to install them" >&2
		exit 1
	fi
	sudo=(sudo)
fi
apt=("${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get)

# Keep apt from starting services (redis-server's) while it installs: on
# a machine without an init system, or with port 6379 taken, a failed
# start would fail the install. policy-rc.d answering 101 means "not
# now"; one that is already there is left alone.
policy=/usr/sbin/policy-rc.d
if [[ ! -e $policy ]]; then
	printf '#!/bin/sh\nexit 101\n' | "${sudo[@]}" tee "$policy" >/dev/null
	"${sudo[@]}" chmod 755 "$policy"
	trap '"${sudo[@]}" rm -f "$policy"' EXIT
fi

echo "deps: installing ${need[*]} ${want[*]}"
"${apt[@]}" update -q
if ((${#need[@]} > 0)); then
	"${apt[@]}" install -y -q --no-install-recommends "${need[@]}"
fi
if ((${#want[@]} > 0)); then
	"${apt[@]}" install -y -q --no-install-recommends "${want[@]}" ||
		echo "deps: warning: could not install optional ${want[*]}" >&2
fi

# PoCL registers itself with the ICD loader through this file.
if [[ ! -e /etc/OpenCL/vendors/pocl.icd ]]; then
	echo "deps: warning: /etc/OpenCL/vendors/pocl.icd is missing: the ICD loader will not find PoCL" >&2
fi
