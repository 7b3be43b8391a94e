#!/usr/bin/env bash
# cuda.sh runs gour's CUDA benchmarks on a machine with an NVIDIA GPU, nvcc
# and no Go: build bin/urbench here first (make build-device-tests).
#
#   1. launch, in one process: `urbench launch -c-loop` loads a C library
#      (scripts/bench/c/cuda_loop.c, built with nvcc) that calls
#      cuLaunchKernel in a loop, and alternates its rounds with rounds of
#      gour launches on the same context, stream and kernel; the ratio of
#      the medians, host-bound and saturated; gour both through
#      Queue.Launch and through a ur.PreparedLaunch. Sharing the process and the
#      moment removes the run-to-run drift of the machine (C's own medians
#      vary by 15% between processes), which is larger than the 5% asked.
#      The host-bound run also times, interleaved the same way, C making the
#      context current before each launch and Go calling cuLaunchKernel
#      directly (urbench launch -breakdown), which splits gour's cost.
#   2. launch, two processes: the same kernel through gour vs a C program
#      calling cuLaunchKernel (built with nvcc), interleaved, RUNS times
#      each; the ratio of the medians of the enqueue times (what the host
#      spends per launch) and of the totals, host-bound and saturated.
#   3. jit: a generated PTX module of 200 kernels, cold JIT
#      (CUDA_CACHE_DISABLE=1) vs the program created from the cubin gour
#      handed back.
#
# Usage: scripts/bench/cuda.sh [ITERS [ROUNDS [RUNS]]]
set -euo pipefail
iters=${1:-20000}
rounds=${2:-10}
runs=${3:-5}
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$root"
export PATH=$PATH:/usr/local/cuda/bin
nvcc -O2 -o bin/cuda_launch scripts/bench/c/cuda_launch.c -lcuda
nvcc -O2 -shared -Xcompiler -fPIC -o bin/libcudaloop.so scripts/bench/c/cuda_loop.c -lcuda

nvidia-smi --query-gpu=name,driver_version --format=csv,noheader || true
field() { awk -v k="$1" '{for (i = 1; i < NF; i++) if ($i == k) print $(i + 1)}'; }
median() { printf '%s\n' "$@" | sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }

# compare ITERS ROUNDS: RUNS interleaved runs of each program, then the
# ratio of the medians of their enqueue and total times.
compare() {
	local it=$1 ro=$2 c_tot=() c_enq=() g_tot=() g_enq=() line
	echo "per run: $ro rounds x $it launches; $runs runs each, interleaved"
	for ((i = 1; i <= runs; i++)); do
		line=$(bin/cuda_launch scripts/bench/empty.ptx "$it" "$ro")
		echo "$line"
		c_tot+=("$(field ns/launch <<<"$line")") c_enq+=("$(field enqueue <<<"$line")")
		line=$(bin/urbench launch -backend cuda -ptx scripts/bench/empty.ptx -iters "$it" -rounds "$ro")
		echo "$line"
		g_tot+=("$(field ns/launch <<<"$line")") g_enq+=("$(field enqueue <<<"$line")")
	done
	awk -v ce="$(median "${c_enq[@]}")" -v ge="$(median "${g_enq[@]}")" \
		-v ct="$(median "${c_tot[@]}")" -v gt="$(median "${g_tot[@]}")" 'BEGIN {
		printf "enqueue ns/launch: c %.1f, gour %.1f (ratio %.3f)\n", ce, ge, ge / ce
		printf "total ns/launch:   c %.1f, gour %.1f (ratio %.3f)\n", ct, gt, gt / ct
	}'
}

# One process, C and gour rounds alternating: host-bound rounds of 200
# launches, then saturated rounds of ITERS.
echo "== launch in one process, host-bound (the stream never fills)"
bin/urbench launch -backend cuda -ptx scripts/bench/empty.ptx -c-loop bin/libcudaloop.so -breakdown -iters 200 -rounds "$((rounds * 300))"
echo
echo "== launch in one process, saturated (the stream fills; launches wait for the GPU)"
bin/urbench launch -backend cuda -ptx scripts/bench/empty.ptx -c-loop bin/libcudaloop.so -iters "$iters" -rounds "$((rounds * 2))"
echo

# Host-bound: rounds short enough that the stream never fills, so the
# enqueue time is what the host spends per launch.
echo "== launch, two processes, host-bound (the stream never fills)"
compare 200 "$((rounds * 30))"
echo
# Saturated: long rounds fill the stream; launches then wait for the GPU.
echo "== launch, two processes, saturated (the stream fills; launches wait for the GPU)"
compare "$iters" "$rounds"
echo
echo "== JIT vs handed-back cubin"
CUDA_CACHE_DISABLE=1 bin/urbench jit -kernels 200
