#!/usr/bin/env bash
# gpu-soak.sh is what produced the GPU machine's figures of the soak, of
# PoCL 5's build directories, of NVIDIA OpenCL's first Transform and
# reductions, and of gonum's solves in docs/benchmarks.md: run from the
# repository root on the GPU machine (no Go there) after
# `make build-device-tests` here, with bin/ carried along. Logs go to
# /tmp/logs, packed into $OUT/logs.tgz after each step (so that a run cut
# short still brings back what it did).
set -u
pack=${OUT:-.}/logs.tgz
out=/tmp/logs; mkdir -p "$out"
mkdir -p /tmp/icd && echo libnvidia-opencl.so.1 >/tmp/icd/nvidia.icd && cp /etc/OpenCL/vendors/*.icd /tmp/icd/
export OCL_ICD_VENDORS=/tmp/icd
B=bin
log() {
	local name=$1 limit=$2 s=$SECONDS
	shift 2
	timeout "$limit" "$@" >"$out/$name.log" 2>&1
	echo "exit $? after $((SECONDS - s)) s" >>"$out/$name.log"
	echo "$name: $(tail -1 "$out/$name.log")"
	tar czf "$pack" -C /tmp logs
}
nvidia-smi -L >"$out/gpu.txt" 2>&1; clinfo -l >>"$out/gpu.txt" 2>&1
# `scripts/gpu-soak.sh narrow`: only the CUDA soak's hang with 16 workers,
# narrowed (docs/benchmarks.md, "The soak on the H100 machine, and what it
# found"): without the kinds of call that destroy cuBLAS handles, then with
# only those; each run panics with every goroutine's stack at its timeout.
if [[ ${1:-} == narrow ]]; then
	narrow() {
		log "narrow-$1" 45 env GOTRACEBACK=all GOUR_LEAK_CHECK=1 ONEAPI_DEVICE_SELECTOR=cuda:0 $B/soak.test -test.v -test.count=1 -test.run 'TestSoak$' -soak.duration=12s -soak.workers=16 -soak.kinds="$2" -test.timeout=32s
	}
	narrow noblas transform,reduce,reduce-axis,copy,dot,matmul,release,kernel,evict
	narrow blas blas,new-device,new-queue
	exit 0
fi
# The abort: programs of one binary and Devices made and released concurrently, kernel cache off.
log pocl5-programs 120 env POCL_KERNEL_CACHE=0 ONEAPI_DEVICE_SELECTOR=opencl:cpu UR_REQUIRE_ADAPTERS=opencl $B/adapters-opencl.test -test.v -test.count=1 -test.run 'OutliveEachOther|Pocl'
log pocl5-devices 120 env POCL_KERNEL_CACHE=0 ONEAPI_DEVICE_SELECTOR=opencl:cpu UR_REQUIRE_ADAPTERS=opencl $B/compute.test -test.v -test.count=1 -test.run DevicesMadeAndReleased
log nvocl-devices 120 env ONEAPI_DEVICE_SELECTOR=opencl:gpu UR_REQUIRE_ADAPTERS=opencl $B/compute.test -test.v -test.count=1 -test.run DevicesMadeAndReleased
log cuda-devices 120 env ONEAPI_DEVICE_SELECTOR=cuda:0 UR_REQUIRE_ADAPTERS=cuda $B/compute.test -test.v -test.count=1 -test.run DevicesMadeAndReleased
# The soak, 25 s a device, 16 workers, leak check on.
for sel in cuda:0 opencl:gpu opencl:cpu; do
	log "soak-${sel//:/-}" 60 env GOUR_LEAK_CHECK=1 POCL_KERNEL_CACHE=0 ONEAPI_DEVICE_SELECTOR=$sel $B/soak.test -test.v -test.count=1 -test.run Soak -soak.duration=25s -soak.workers=16
done
# NVIDIA OpenCL's first Transform: phases, then traced children.
log first-nvocl 60 env GOUR_URBENCH_PHASES=1 $B/urbench compute -device opencl:gpu -backend opencl -steps first -first-runs 3
log first-cuda 60 env GOUR_URBENCH_PHASES=1 $B/urbench compute -device cuda:0 -backend cuda -steps first -first-runs 3
mkdir -p "$out/tr"
log first-nvocl-traced 60 env GOUR_TRACE="$out/tr/first-%p.json" GOUR_URBENCH_PHASES=1 $B/urbench compute -device opencl:gpu -backend opencl -steps first -first-runs 2
for f in $(ls -S "$out"/tr/*.json | head -3); do $B/urtrace summary -top 25 "$f"; done >"$out/first-nvocl-trace-summary.log" 2>&1
tar czf "$out/traces.tar.gz" -C "$out" tr && rm -rf "$out/tr"
tar czf "$pack" -C /tmp logs
# NVIDIA OpenCL's reductions.
log reduce-nvocl 90 $B/urbench compute -device opencl:gpu -backend opencl -steps reduce -rounds 5
# gonum's Mul and Solve, native against gonumblas (cuBLAS), and Trsm on CUDA.
log gonumsolve 130 env ONEAPI_DEVICE_SELECTOR=cuda:0 $B/gonumsolve -sizes 64,512,2048,4096 -runs 2 -maxtime 8s
log blas-trsm-cuda 90 env ONEAPI_DEVICE_SELECTOR=cuda:0 UR_REQUIRE_ADAPTERS=cuda $B/blas.test -test.run 'Trsm' -test.v -test.count=1
