#!/usr/bin/env bash
# blas.sh runs gour's dense linear algebra benchmarks on a machine with an
# NVIDIA GPU, PyTorch and gcc, and no Go: build bin/urbench where Go is
# (CGO_ENABLED=0 go build -o bin/ ./cmd/urbench) and bring bin/ along. In
# one command, on one GPU:
#
#   1. GEMM 8192×8192×8192: SGEMM and DGEMM (TF32 off on both sides), FP16
#      and BF16 (float32 accumulation), through gour's cuBLAS backend
#      (urbench blas -backend cublas, blas.gemm) and through torch.matmul on
#      the same matrices (every element 0.5, as urbench fills them), the
#      two processes interleaved RUNS times each. Both time rounds of
#      about 0.2 s of back-to-back products ended by a wait, and print the
#      median of 5 rounds; the summary takes the median over the runs and
#      the ratio gour/torch. torch.matmul on uniform random matrices is
#      shown once too, for reference: the GPU's clock depends on the data.
#   2. gour's own GEMM kernel on CUDA against cuBLAS SGEMM at 4096
#      (blas.gemm.vs), in the same urbench runs.
#   3. 64×64 SGEMM, the host's cost per call: gour's cuBLAS backend against
#      cuBLAS called from C (scripts/bench/c/cublas_small.c, built here) in
#      one process, rounds of 200 calls alternating (blas.gemm.small.vs).
#
# gour and the C library take cuBLAS where the loader finds it, else from
# the CUDA toolkit, else from PyTorch's NVIDIA wheels; PyTorch loads its
# own (its wheels'): the output names both.
#
# Usage: scripts/bench/blas.sh [RUNS]   (default 3)
set -euo pipefail
runs=${1:-3}
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$root"
export PYTHONUNBUFFERED=1
if [[ ! -x bin/urbench ]]; then
	echo "blas.sh: no bin/urbench: build it where Go is (CGO_ENABLED=0 go build -o bin/ ./cmd/urbench)" >&2
	exit 1
fi

# find_cublas prints the path of libcublas.so.13 (or .12).
find_cublas() {
	local p v d
	for v in 13 12; do
		p=$(ldconfig -p 2>/dev/null | awk -v n="libcublas.so.$v" '$1 == n {print $NF; exit}')
		if [[ -n $p ]]; then
			echo "$p"
			return
		fi
		for d in /usr/local/cuda/lib64 /usr/local/cuda/targets/x86_64-linux/lib ${CUDA_HOME:+$CUDA_HOME/lib64}; do
			if [[ -e $d/libcublas.so.$v ]]; then
				echo "$d/libcublas.so.$v"
				return
			fi
		done
	done
	python3 - <<'PY'
import glob, os, site, sys
dirs = site.getsitepackages() + [site.getusersitepackages()]
for v in ("13", "12"):
    for d in dirs:
        hits = sorted(glob.glob(os.path.join(d, "nvidia", "**", "libcublas.so." + v), recursive=True))
        if hits:
            print(hits[0])
            sys.exit(0)
sys.exit("blas.sh: no libcublas.so.13 or .12 on the loader's path, in /usr/local/cuda or in PyTorch's wheels")
PY
}
cublas=$(find_cublas)
cublas_dir=$(dirname "$cublas")
export LD_LIBRARY_PATH=$cublas_dir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
mkdir -p bin
small_lib=bin/libcublas_small.so
if ! gcc -O2 -Wall -shared -fPIC -o "$small_lib" scripts/bench/c/cublas_small.c "$cublas" -l:libcuda.so.1 -Wl,-rpath,"$cublas_dir"; then
	echo "blas.sh: building scripts/bench/c/cublas_small.c failed: no comparison with C" >&2
	small_lib=
fi

nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm --format=csv,noheader || true
echo "cuBLAS: $cublas"
python3 - <<'PY' || true
import torch
torch.matmul(torch.ones(8, 8, device="cuda"), torch.ones(8, 8, device="cuda"))
libs = sorted({l.split()[-1] for l in open("/proc/self/maps") if "libcublas" in l})
print("torch", torch.__version__, "CUDA", torch.version.cuda, "with", ", ".join(libs))
PY
echo

# torch_gemm N ROUNDS RANDOM TYPE...: torch.matmul's figures for each
# type, one line each, in urbench blas's format (torch.gemm; with RANDOM 1,
# torch.gemm.random on uniform [-0.5, 0.5) matrices).
torch_gemm() {
	python3 - "$@" <<'PY'
import statistics, sys, time, torch
n, rounds, random = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3] == "1"
torch.backends.cuda.matmul.allow_tf32 = False
torch.backends.cudnn.allow_tf32 = False
types = {"float32": torch.float32, "float64": torch.float64, "float16": torch.float16, "bfloat16": torch.bfloat16}
for name in sys.argv[4:]:
    dt = types[name]
    if random:
        a = torch.rand(n, n, device="cuda", dtype=dt) - 0.5
        b = torch.rand(n, n, device="cuda", dtype=dt) - 0.5
    else:
        a = torch.full((n, n), 0.5, device="cuda", dtype=dt)
        b = torch.full((n, n), 0.5, device="cuda", dtype=dt)
    c = torch.empty(n, n, device="cuda", dtype=dt)
    torch.matmul(a, b, out=c)
    torch.cuda.synchronize()
    if not random and c[0, 0].item() != n / 4:
        sys.exit(f"torch.matmul: C[0,0] = {c[0, 0].item()}, want {n / 4}")
    start = time.perf_counter()
    torch.matmul(a, b, out=c)
    torch.cuda.synchronize()
    reps = max(1, int(0.2 / (time.perf_counter() - start)))
    secs = []
    for _ in range(rounds):
        start = time.perf_counter()
        for _ in range(reps):
            torch.matmul(a, b, out=c)
        torch.cuda.synchronize()
        secs.append((time.perf_counter() - start) / reps)
    med = statistics.median(secs)
    kind = "torch.gemm.random" if random else "torch.gemm"
    print(f"{kind} type={name} n={n} tflops={2 * n**3 / med / 1e12:.2f} ms={med * 1e3:.3f} "
          f"min_ms={min(secs) * 1e3:.3f} max_ms={max(secs) * 1e3:.3f}")
    del a, b, c
    torch.cuda.empty_cache()
PY
}

# value NAME KEY [K=V...]: the median over the runs of KEY in the lines of
# figure NAME that have every K=V, from $log.
value() {
	local name=$1 key=$2
	shift 2
	awk -v name="$name" -v key="$key" -v want="$*" '
		$1 != name { next }
		{
			delete kv
			for (i = 2; i <= NF; i++) { split($i, p, "="); kv[p[1]] = p[2] }
			nw = split(want, w, " ")
			for (i = 1; i <= nw; i++) { split(w[i], p, "="); if (kv[p[1]] != p[2]) next }
			print kv[key]
		}' "$log" | sort -g | awk '{v[NR] = $1} END {if (NR == 0) print "nan"; else print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'
}

log=$(mktemp)
trap 'rm -f "$log"' EXIT

echo "== GEMM 8192 (gour: cuBLAS backend) vs torch.matmul, and the own kernel vs cuBLAS at 4096; $runs runs each, interleaved"
for ((i = 1; i <= runs; i++)); do
	bin/urbench blas -backend cublas -n 8192 -vs-n 4096 -small 0 -rounds 5 | tee -a "$log"
	torch_gemm 8192 5 0 float32 float64 float16 bfloat16 | tee -a "$log"
done
torch_gemm 8192 5 1 float32 float64 float16 bfloat16 | tee -a "$log"
echo
echo "== 64x64 SGEMM per call, gour (cuBLAS backend) vs cuBLAS from C, in one process"
bin/urbench blas -backend cublas -types float32 -n 64 -vs-n 0 -small 64 -calls 200 -rounds 300 ${small_lib:+-c-small "$small_lib"} | tee -a "$log"
echo
echo "== summary (medians over the runs)"
for t in float32 float64 float16 bfloat16; do
	g=$(value blas.gemm tflops type=$t n=8192) p=$(value torch.gemm tflops type=$t n=8192) r=$(value torch.gemm.random tflops type=$t n=8192)
	awk -v t="$t" -v g="$g" -v p="$p" -v r="$r" 'BEGIN {
		printf "gemm %-8s 8192: gour %.1f TFLOP/s, torch.matmul %.1f TFLOP/s: ratio gour/torch %.3f (torch on random matrices %.1f)\n", t, g, p, g / p, r }'
done
o=$(value blas.gemm.vs tflops backend=gour n=4096) c=$(value blas.gemm.vs tflops backend=cublas n=4096)
awk -v o="$o" -v c="$c" 'BEGIN { printf "gemm float32  4096: own kernel %.1f TFLOP/s, cuBLAS %.1f TFLOP/s: ratio own/cuBLAS %.3f\n", o, c, o / c }'
e=$(value blas.gemm.small.vs.ratio enqueue n=64) tt=$(value blas.gemm.small.vs.ratio total n=64)
ce=$(value blas.gemm.small.vs enqueue_ns side=c) ge=$(value blas.gemm.small.vs enqueue_ns side=gour)
awk -v e="$e" -v t="$tt" -v ce="$ce" -v ge="$ge" 'BEGIN {
	printf "sgemm 64 per call: gour %.0f ns, cuBLAS from C %.0f ns (until the call returns): ratio gour/C %.3f; until drained %.3f\n", ge, ce, e, t }'
