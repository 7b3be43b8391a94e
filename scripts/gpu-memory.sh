#!/usr/bin/env bash
# gpu-memory.sh is what produced the H100 figures of the memory model in
# docs/benchmarks.md and its conformance in docs/conformance.md: run from
# the repository root on the GPU machine (no Go there) after building the
# binaries it names into bin/ here (make build-device-tests builds them
# all), with bin/ carried along. Logs go to $OUT (or ./gpu-memory-out).
set -uo pipefail
out=${OUT:-gpu-memory-out}
mkdir -p "$out" && out=$(cd "$out" && pwd)
mkdir -p /tmp/icd && echo libnvidia-opencl.so.1 >/tmp/icd/nvidia.icd && cp /etc/OpenCL/vendors/*.icd /tmp/icd/
export OCL_ICD_VENDORS=/tmp/icd POCL_KERNEL_CACHE=0
export PATH=$PATH:/usr/local/cuda/bin

nvcc -O2 -shared -Xcompiler -fPIC -o bin/libcudamem.so scripts/bench/c/cuda_mem.c -lcuda >"$out/nvcc.log" 2>&1
nvcc -O2 -shared -Xcompiler -fPIC -o bin/libcudaloop.so scripts/bench/c/cuda_loop.c -lcuda >>"$out/nvcc.log" 2>&1
bin/urinfo --verbose >"$out/urinfo.txt" 2>&1
# The CUDA adapter's own memory tests, then the conformance cases of the
# memory model on every device (CUDA, NVIDIA's OpenCL, PoCL 5).
UR_REQUIRE_ADAPTERS=cuda timeout 300 bin/adapters-cuda.test -test.count=1 -test.v -test.run 'TestMemory|TestUSMThroughUR' >"$out/cuda-adapter.log" 2>&1; echo "exit $?" >>"$out/cuda-adapter.log"
UR_REQUIRE_ADAPTERS=cuda timeout 120 bin/adapters-cuda-internal-cu.test -test.count=1 -test.v >"$out/cuda-cu.log" 2>&1; echo "exit $?" >>"$out/cuda-cu.log"
(cd conformance && UR_REQUIRE_ADAPTERS=cuda,opencl timeout 300 ../bin/conformance.test -test.count=1 -test.v -test.run "${CTS_RUN:-USM|Memory|DeviceMemoryFacts}" >"$out/cts.log" 2>&1; echo "exit $?" >>"$out/cts.log")
UR_REQUIRE_ADAPTERS=cuda,opencl timeout 120 bin/examples-tensor.test -test.count=1 -test.v >"$out/examples-tensor.log" 2>&1; echo "exit $?" >>"$out/examples-tensor.log"
# Performance, side by side with C in one process.
for sel in cuda:0; do
	timeout 300 bin/urbench memory -device "$sel" -backend cuda -c-lib bin/libcudamem.so >"$out/memory-cuda.log" 2>&1; echo "exit $?" >>"$out/memory-cuda.log"
done
timeout 200 bin/urbench memory -device opencl:gpu -backend opencl >"$out/memory-nvidia-opencl.log" 2>&1; echo "exit $?" >>"$out/memory-nvidia-opencl.log"
timeout 200 bin/urbench memory -device opencl:cpu -backend opencl -bytes 32M -iters 500 >"$out/memory-pocl.log" 2>&1; echo "exit $?" >>"$out/memory-pocl.log"
timeout 200 bin/urbench launch -backend cuda -c-loop bin/libcudaloop.so -breakdown -iters 200 -rounds 2000 >"$out/launch-cuda.log" 2>&1; echo "exit $?" >>"$out/launch-cuda.log"
tail -n 5 "$out"/*.log
