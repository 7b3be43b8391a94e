#!/usr/bin/env bash
# gpu-launch.sh is what produced the H100 figures of the launch model and
# of the memory model in docs/benchmarks.md, and their conformance in
# docs/conformance.md: run from the repository root on the GPU machine (no
# Go there) after building the binaries it names into bin/ here (make
# build-device-tests builds them all), with bin/ carried along. Logs go to
# $OUT (or ./gpu-launch-out), packed into one logs.tar.gz as well.
#
#   scripts/gpu-launch.sh tests   the CUDA adapter's tests, the conformance
#                                 suite on every device (CUDA, NVIDIA's
#                                 OpenCL, PoCL 5), programmgr and the examples
#   scripts/gpu-launch.sh bench   urbench graph, memory, copy and launch
#                                 beside C, and urcompare's copy and launch
#                                 metrics twice, for agreement with urbench
#   scripts/gpu-launch.sh compare the full urcompare run of docs/drivers.md,
#                                 again with GOUR_CUDA_QUICK_LAUNCH=0, and
#                                 their diff, packed into cmp.tar.gz
#   scripts/gpu-launch.sh api     the rest of the Unified Runtime API
#                                 (docs/design.md section 14): CUDA images
#                                 and IPC events, image copy against buffer
#                                 copy, IPC reads, the growing array (needs
#                                 bin/imagecopy, bin/ipcshare, bin/growarray:
#                                 go build -o bin/ ./examples/...)
#   scripts/gpu-launch.sh compute the comparison with CuPy and PyTorch
#                                 (scripts/bench/peers.sh, two runs), then
#                                 compute's reductions, dispatch, first
#                                 Transform and task sequences on NVIDIA's
#                                 OpenCL and CUDA, and PoCL 5's command
#                                 buffer replay
#   scripts/gpu-launch.sh noise   six identical urcompare runs of the H100
#                                 (CUDA and NVIDIA's OpenCL), one with FMA
#                                 made 20% slower, and their diffs
set -uo pipefail
phase=${1:-tests}
out=${OUT:-gpu-launch-out}
mkdir -p "$out" && out=$(cd "$out" && pwd)
# NVIDIA's OpenCL is installed but not registered with the ICD loader:
# register it beside PoCL for this run.
mkdir -p /tmp/icd && echo libnvidia-opencl.so.1 >/tmp/icd/nvidia.icd && cp /etc/OpenCL/vendors/*.icd /tmp/icd/
export OCL_ICD_VENDORS=/tmp/icd POCL_KERNEL_CACHE=0
export PATH=$PATH:/usr/local/cuda/bin

# log NAME SECONDS COMMAND...: run COMMAND with a time limit into NAME.log.
log() {
	local name=$1 limit=$2
	shift 2
	timeout "$limit" "$@" >"$out/$name.log" 2>&1
	echo "exit $?" >>"$out/$name.log"
}

case $phase in
tests)
	bin/urinfo --verbose >"$out/urinfo.txt" 2>&1
	log cuda-adapter 240 env UR_REQUIRE_ADAPTERS=cuda bin/adapters-cuda.test -test.count=1 -test.v
	log cuda-cu 60 env UR_REQUIRE_ADAPTERS=cuda bin/adapters-cuda-internal-cu.test -test.count=1 -test.v
	(cd conformance && log cts 300 env UR_REQUIRE_ADAPTERS=cuda,opencl ../bin/conformance.test -test.count=1 -test.v)
	bash scripts/cts-summary.sh "$out/cts.log" >"$out/cts-summary.md"
	# The suite again through examples/adapter's cltrace, an adapter from
	# another module wrapping every OpenCL device (PoCL and NVIDIA's).
	log cltrace 300 env UR_REQUIRE_ADAPTERS=opencl bin/cltrace.test -test.count=1 -test.v
	bash scripts/cts-summary.sh "$out/cltrace.log" >"$out/cltrace-summary.md"
	log programmgr 120 env UR_REQUIRE_ADAPTERS=opencl bin/programmgr.test -test.count=1 -test.v -test.run 'TestCachedKernelLaunchedConcurrently'
	for ex in tensor manager; do
		log "example-$ex" 60 env UR_REQUIRE_ADAPTERS=cuda,opencl "bin/examples-$ex.test" -test.count=1 -test.v
	done
	;;
bench)
	nvcc -O2 -shared -Xcompiler -fPIC -o bin/libcudagraph.so scripts/bench/c/cuda_graph.c -lcuda >"$out/nvcc.log" 2>&1
	nvcc -O2 -shared -Xcompiler -fPIC -o bin/libcudamem.so scripts/bench/c/cuda_mem.c -lcuda >>"$out/nvcc.log" 2>&1
	nvcc -O2 -shared -Xcompiler -fPIC -o bin/libcudaloop.so scripts/bench/c/cuda_loop.c -lcuda >>"$out/nvcc.log" 2>&1
	log graph-cuda 120 bin/urbench graph -device cuda:0 -backend cuda -c-lib bin/libcudagraph.so
	log graph-nvidia-opencl 90 bin/urbench graph -device opencl:gpu -backend opencl
	log graph-pocl 90 bin/urbench graph -device opencl:cpu -backend opencl -iters 4000 -kernels 200 -rounds 5
	log memory-cuda 120 bin/urbench memory -device cuda:0 -backend cuda -c-lib bin/libcudamem.so
	log memory-pocl 60 bin/urbench memory -device opencl:cpu -backend opencl -bytes 32M -iters 500
	log launch-cuda 60 bin/urbench launch -backend cuda -c-loop bin/libcudaloop.so -iters 200 -rounds 2000
	log copy-cuda 60 bin/urbench copy -device cuda:0 -backend cuda
	log copy-nvidia-opencl 60 bin/urbench copy -device opencl:gpu -backend opencl
	log copy-pocl 60 bin/urbench copy -device opencl:cpu -backend opencl -bytes 32M
	for run in 1 2; do
		log "urcompare-$run" 150 bin/urcompare run -quiet -cases none -metrics copy.h2d,copy.d2h,copy.d2d,launch.queue,launch.prepared \
			-o "$out/urcompare-$run" -device 'cuda:*;opencl:*'
	done
	log urcompare-diff 30 bin/urcompare diff "$out/urcompare-1/record.json" "$out/urcompare-2/record.json"
	;;
compare)
	log urcompare-base 280 bin/urcompare run -quiet -o "$out/cmp/base" -device 'cuda:*;opencl:*'
	log urcompare-noquick 280 env GOUR_CUDA_QUICK_LAUNCH=0 bin/urcompare run -quiet -o "$out/cmp/noquick" -device 'cuda:*;opencl:*'
	log urcompare-diff 30 bin/urcompare diff "$out/cmp/base/record.json" "$out/cmp/noquick/record.json"
	(cd "$out" && tar czf cmp.tar.gz --exclude '*.png' cmp && rm -rf cmp)
	;;
api)
	log cuda-images 240 env UR_REQUIRE_ADAPTERS=cuda bin/adapters-cuda.test -test.count=1 -test.v -test.run 'Image|IPCEvent'
	log cuda-image-bench 120 env UR_REQUIRE_ADAPTERS=cuda bin/adapters-cuda.test -test.run '^$' -test.bench BenchmarkImageCopyVsBuffer -test.benchtime 20x
	log imagecopy-cuda 60 env ONEAPI_DEVICE_SELECTOR=cuda:0 bin/imagecopy -size 8192
	log imagecopy-nvidia-opencl 60 env ONEAPI_DEVICE_SELECTOR=opencl:gpu bin/imagecopy -size 8192
	log ipcshare-cuda 60 env ONEAPI_DEVICE_SELECTOR=cuda:0 bin/ipcshare -mib 1024
	log growarray-cuda 120 env ONEAPI_DEVICE_SELECTOR=cuda:0 bin/growarray -chunks 64 -chunk-mib 256
	(cd conformance && log cts 300 env UR_REQUIRE_ADAPTERS=cuda,opencl ../bin/conformance.test -test.count=1 -test.v)
	bash scripts/cts-summary.sh "$out/cts.log" >"$out/cts-summary.md"
	;;
compute)
	# The comparison's open figures first, most wanted first, so that a
	# call cut short still has them.
	log peers 300 scripts/bench/peers.sh --device cuda:0 --rounds 15 --runs 2
	# The first Transform's phases (NewDevice, uploads, the kernel from
	# the cache, the wait) go to the log with the figures.
	log compute-nvidia-opencl 150 env GOUR_URBENCH_PHASES=1 bin/urbench compute -device opencl:gpu -backend opencl -rounds 10 -steps reduce,dispatch,first,taskseq
	log compute-cuda 150 bin/urbench compute -device cuda:0 -rounds 15 -steps reduce,dispatch,taskseq,pipeline
	log graph-pocl5 150 bin/urbench graph -device opencl:cpu -backend opencl -cmdbuf auto,native,emulated -iters 4000 -kernels 200 -rounds 5 -launch-rounds 200 -launch-iters 100
	log compute-cuda-dispatch-bench 60 env UR_REQUIRE_ADAPTERS=cuda bin/compute.test -test.run '^$' -test.bench 'Dispatch$|TaskSequence' -test.count 3
	# The figures the comparison's targets read, in one place.
	grep -hE '^(transform\.(axpy|dispatch|first\.alone)|reduce\.(sum|device|read)|copy\.d2d|dispatch\.|taskseq|pipeline|graph\.(replay|single))|phases|Benchmark|×' \
		"$out"/compute-*.log "$out/graph-pocl5.log" "$out/peers.log"
	;;
noise)
	# Each pair is diffed as soon as it is run, and the verdicts printed,
	# so that a run cut short still shows the pairs it finished.
	for pair in "1 2" "3 4" "5 6"; do
		set -- $pair
		for run in "$1" "$2"; do
			log "urcompare-$run" 90 bin/urcompare run -quiet -cases none -o "$out/noise/r$run" -device 'cuda:*;opencl:gpu'
		done
		log "urcompare-diff-$1-$2" 30 bin/urcompare diff "$out/noise/r$1/record.json" "$out/noise/r$2/record.json"
		echo "== runs $1 and $2"; grep -vE ' same$' "$out/urcompare-diff-$1-$2.log" | tail -n +3
	done
	log urcompare-slow 90 env GOUR_URCOMPARE_TEST_SLOWDOWN=fma=1.2 bin/urcompare run -quiet -cases none -o "$out/noise/slow" -device 'cuda:*;opencl:gpu'
	log urcompare-diff-slow 30 bin/urcompare diff "$out/noise/r6/record.json" "$out/noise/slow/record.json"
	echo "== run 6 and the run with FMA 20% slower"; grep -vE ' same$' "$out/urcompare-diff-slow.log" | tail -n +3
	(cd "$out" && tar czf noise.tar.gz --exclude '*.png' noise && rm -rf noise)
	;;
*)
	echo "usage: scripts/gpu-launch.sh tests|bench|compare|api|compute|noise" >&2
	exit 2
	;;
esac
(cd "$out" && tar czf logs.tar.gz --exclude logs.tar.gz --exclude cmp.tar.gz --exclude '*.png' --exclude '*.svg' --exclude '*.html' .)
tail -n 4 "$out"/*.log
