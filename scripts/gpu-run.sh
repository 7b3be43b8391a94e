#!/usr/bin/env bash
# gpu-run.sh is what produced the H100 figures in docs/conformance.md and
# docs/benchmarks.md, run from the repository root on the GPU machine (no
# Go there) after `make build-device-tests` here, with bin/ carried along.
# It writes its logs to $OUT (or ./gpu-run-out).
set -uo pipefail
out=${OUT:-gpu-run-out}
mkdir -p "$out" && out=$(cd "$out" && pwd)
# NVIDIA's OpenCL is installed but not registered with the ICD loader:
# register it beside PoCL for this run.
mkdir -p /tmp/icd && echo libnvidia-opencl.so.1 >/tmp/icd/nvidia.icd && cp /etc/OpenCL/vendors/*.icd /tmp/icd/
export OCL_ICD_VENDORS=/tmp/icd POCL_KERNEL_CACHE=0

bin/urinfo >"$out/urinfo.txt" 2>&1
# The device code is embedded in the test binaries: they run from any
# directory (from conformance/, the check of the generated wrappers runs too).
(cd conformance && UR_REQUIRE_ADAPTERS=cuda,opencl timeout 300 ../bin/conformance.test -test.count=1 -test.v >"$out/cts.log" 2>&1; echo "exit $?" >>"$out/cts.log")
bash scripts/cts-summary.sh "$out/cts.log" >"$out/cts-summary.md"
# The suite again through examples/adapter's cltrace, an adapter from
# another module wrapping every OpenCL device (PoCL and NVIDIA's).
UR_REQUIRE_ADAPTERS=opencl timeout 300 bin/cltrace.test -test.count=1 -test.v >"$out/cltrace.log" 2>&1; echo "exit $?" >>"$out/cltrace.log"
bash scripts/cts-summary.sh "$out/cltrace.log" >"$out/cltrace-summary.md"
UR_REQUIRE_ADAPTERS=cuda bin/adapters-cuda.test -test.count=1 -test.v >"$out/cuda-adapter.log" 2>&1
UR_REQUIRE_ADAPTERS=cuda bin/adapters-cuda-internal-cu.test -test.count=1 -test.v >"$out/cuda-cu.log" 2>&1
# NVRTC and nvJitLink, and the examples, on every device (their stand-in
# library tests read testdata/: run from the package directory).
for lib in nvrtc nvjitlink; do
	(cd "adapters/cuda/internal/$lib" && UR_REQUIRE_ADAPTERS=cuda LD_LIBRARY_PATH=/usr/local/cuda/targets/x86_64-linux/lib \
		"../../../../bin/adapters-cuda-internal-$lib.test" -test.count=1 -test.v >"$out/cuda-$lib.log" 2>&1; echo "exit $?" >>"$out/cuda-$lib.log")
done
for ex in bin/examples-*.test; do
	UR_REQUIRE_ADAPTERS=cuda,opencl "$ex" -test.count=1 -test.v >>"$out/examples.log" 2>&1; echo "$ex exit $?" >>"$out/examples.log"
done
timeout 300 bash scripts/bench/cuda.sh 20000 10 5 >"$out/cuda-bench.log" 2>&1
bin/urbench diskcache -backend cuda -kernels 200 -runs 5 >"$out/diskcache-cuda.log" 2>&1
ONEAPI_DEVICE_SELECTOR=opencl:cpu bin/urbench diskcache -backend opencl -runs 5 >"$out/diskcache-pocl.log" 2>&1
OCL_ICD_VENDORS=/etc/OpenCL/vendors timeout 300 bash scripts/bench/launch.sh 20000 10 5 >"$out/pocl-launch.log" 2>&1
tail -n 3 "$out"/*.log "$out"/*.md
