#!/usr/bin/env bash
# run.sh measures kernels written in Go against the targets of "kernels
# written in Go" on an NVIDIA GPU, from the repository root, on a machine
# without Go: build the tool where Go is first,
#
#   CGO_ENABLED=0 go build -o DIR/gokernels-bench ./scripts/bench/gokernels
#
# then, on the GPU machine:
#
#   B=DIR bash scripts/bench/gokernels/run.sh
#
# It runs, on cuda:0 (ONEAPI_DEVICE_SELECTOR=cuda:0; NVRTC builds both
# the Go kernels' CUDA C and the hand-written CUDA C):
#
#   1. the table: each kernel in Go vs the same algorithm in CUDA C, and
#      the launch cost of a 1,024-element Axpy (table.log);
#   2. first use of a Go kernel in a new process (gokernels-bench -first:
#      the kernel's build or load, the first launch and a Finish), 3
#      processes cold and 3 warm; and, for comparison, 3 cold ones that
#      build the module's whole source for the kernel (-first -whole), as
#      Module.Kernel did before each kernel was built alone, and 3 cold
#      ones without NVRTC's -minimal (GOUR_GOKERNEL_NVRTC_MINIMAL=0).
#      gour's persistent device code cache
#      (package cache, opened by programmgr.New) lives in SYCL_CACHE_DIR,
#      default $XDG_CACHE_HOME/gour, else $HOME/.cache/gour, and is on
#      unless SYCL_CACHE_PERSISTENT=0: each cold process gets a new, empty
#      SYCL_CACHE_DIR; the warm ones share one that a process before them
#      filled. CUDA's own JIT cache is off for all (CUDA_CACHE_DISABLE=1;
#      NVRTC makes cubins, so it should not matter): first-cold.log,
#      first-warm.log, first-cold-whole.log, first-cold-full.log;
#   3. triton.py: Triton's tutorial softmax and layer norm and PyTorch's,
#      at the table's 4096×4096 float32 (triton.log; PYTHON names the
#      interpreter, default python3);
#
# and then sums the RESULT lines up against the targets (summary.txt).
# Logs go to $OUT, else ./gokernels-out. SELECTOR replaces cuda:0 (to try
# the script elsewhere: SELECTOR=opencl:cpu); FLAGS are added to the
# table's command line (say, FLAGS='-rounds 11').
set -uo pipefail

B=${B:-bin}
bin=$B/gokernels-bench
py=${PYTHON:-python3}
out=${OUT:-gokernels-out}
mkdir -p "$out" && out=$(cd "$out" && pwd)
if [[ ! -x $bin ]]; then
	echo "run.sh: no $bin: build it with CGO_ENABLED=0 go build -o $B/gokernels-bench ./scripts/bench/gokernels" >&2
	exit 1
fi
export ONEAPI_DEVICE_SELECTOR=${SELECTOR:-cuda:0}
unset GOUR_GOKERNEL_DEBUG SYCL_CACHE_PERSISTENT

nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv,noheader >"$out/gpu.txt" 2>&1
cat "$out/gpu.txt"

echo "== 1. Go vs CUDA C"
# shellcheck disable=SC2086 # FLAGS is words
"$bin" ${FLAGS:-} 2>&1 | tee "$out/table.log"

echo "== 2. first use of a Go kernel in a new process"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
: >"$out/first-cold.log"
: >"$out/first-warm.log"
: >"$out/first-cold-whole.log"
: >"$out/first-cold-full.log"
for i in 1 2 3; do
	SYCL_CACHE_DIR=$tmp/cold$i CUDA_CACHE_DISABLE=1 "$bin" -first 2>&1 | tee -a "$out/first-cold.log"
	SYCL_CACHE_DIR=$tmp/full$i CUDA_CACHE_DISABLE=1 GOUR_GOKERNEL_NVRTC_MINIMAL=0 "$bin" -first 2>&1 | tee -a "$out/first-cold-full.log"
	SYCL_CACHE_DIR=$tmp/whole$i CUDA_CACHE_DISABLE=1 "$bin" -first -whole 2>&1 | tee -a "$out/first-cold-whole.log"
done
SYCL_CACHE_DIR=$tmp/warm CUDA_CACHE_DISABLE=1 "$bin" -first >"$out/first-fill.log" 2>&1
for i in 1 2 3; do
	SYCL_CACHE_DIR=$tmp/warm CUDA_CACHE_DISABLE=1 "$bin" -first 2>&1 | tee -a "$out/first-warm.log"
done

echo "== 3. Triton's tutorial kernels and PyTorch"
"$py" scripts/bench/gokernels/triton.py 2>&1 | tee "$out/triton.log"

# value FILE NAME KEY [METHOD]: KEY of the RESULT lines of FILE named
# NAME (and of method METHOD), one a line.
value() {
	awk -v n="$2" -v k="$3" -v m="${4:-}" '$1 == "RESULT" {
		split("", f)
		for (i = 2; i <= NF; i++) { j = index($i, "="); f[substr($i, 1, j - 1)] = substr($i, j + 1) }
		if (f["name"] == n && (m == "" || f["method"] == m) && (k in f)) print f[k]
	}' "$1"
}
median() { sort -g | awk '{v[NR] = $1} END {if (NR) print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
# verdict X OP LIMIT: "ok" or "MISSED" (or "no result").
verdict() { awk -v x="$1" -v op="$2" -v l="$3" 'BEGIN {
	if (x == "") { print "no result"; exit }
	ok = (op == ">=") ? x + 0 >= l + 0 : x + 0 <= l + 0
	print ok ? "ok" : "MISSED"
}'; }

{
	echo "== summary against the targets ($(head -n1 "$out/gpu.txt"))"
	echo "(a) Go speed vs the same algorithm in CUDA C (CUDA time / Go time), target >= 0.95:"
	for k in axpy sum transpose softmax layernorm sgemm; do
		r=$(value "$out/table.log" "$k" ratio)
		printf '    %-10s %-8s Go %s µs, CUDA C %s µs  %s\n' "$k" "$r" "$(value "$out/table.log" "$k" go_us)" "$(value "$out/table.log" "$k" c_us)" "$(verdict "$r" '>=' 0.95)"
	done
	echo "(b) Go vs Triton's tutorial kernels at 4096x4096 float32 (Triton time / Go time), target >= 1.0:"
	for k in softmax layernorm; do
		g=$(value "$out/table.log" "$k" go_us)
		for m in loop do_bench; do
			t=$(value "$out/triton.log" "triton_$k" us "$m")
			p=$(value "$out/triton.log" "torch_$k" us "$m")
			r=$(awk -v t="$t" -v g="$g" 'BEGIN {if (t != "" && g != "") printf "%.3f", t / g}')
			printf '    %-10s %-8s Go %s µs, Triton %s µs, PyTorch %s µs (Triton timed by %s)  %s\n' "$k" "$r" "$g" "$t" "$p" "$m" "$(verdict "$r" '>=' 1.0)"
		done
	done
	echo "    (Go is timed back to back, like loop; do_bench clears the L2 cache before every call)"
	g=$(value "$out/table.log" launch_axpy_1024 go_us)
	echo "(c) launch of a 1,024-element Go Axpy: $g µs a launch (CUDA C through Queue.Launch $(value "$out/table.log" launch_axpy_1024 c_us) µs), target <= 4  $(verdict "$g" '<=' 4)"
	cold=$(value "$out/first-cold.log" first_use total_ms | median)
	warm=$(value "$out/first-warm.log" first_use total_ms | median)
	echo "(d) first use in a new process, median of 3 (kernel build or load + launch + Finish; device, context and manager apart):"
	echo "    cold $cold ms (builds: $(value "$out/first-cold.log" first_use builds | tr '\n' ' '); the kernel's own source, $(value "$out/first-cold.log" first_use source_bytes | head -1) bytes), target <= 50  $(verdict "$cold" '<=' 50)"
	echo "    (a second kernel built in the same process, the device compiler started: $(value "$out/first-cold.log" first_use second_kernel_ms | median) ms)"
	echo "    (the module's whole source, $(value "$out/first-cold-whole.log" first_use source_bytes | head -1) bytes, built cold for the same kernel: $(value "$out/first-cold-whole.log" first_use total_ms | median) ms)"
	echo "    (the kernel's own source without NVRTC's -minimal, GOUR_GOKERNEL_NVRTC_MINIMAL=0: $(value "$out/first-cold-full.log" first_use total_ms | median) ms)"
	echo "    warm $warm ms (disk hits: $(value "$out/first-warm.log" first_use disk_hits | tr '\n' ' ')), target <= 1  $(verdict "$warm" '<=' 1)"
} | tee "$out/summary.txt"
