#!/usr/bin/env bash
# collectives.sh compares gour's all-reduce (package collectives on NCCL)
# with PyTorch's torch.distributed all-reduce on a machine with two NVIDIA
# GPUs, PyTorch and no Go: build bin/urbench where Go is
# (CGO_ENABLED=0 go build -o bin/ ./cmd/urbench) and bring bin/ along,
# with bin/redis/redis-server (and the libraries it needs beside it) where
# the machine has no redis-server. In one command:
#
#   1. gour: urbench collectives with a process per GPU that meet through
#      a private redis-server (the rendezvous) and all-reduce in place
#      256 MiB (bus bandwidth) and 1 MiB (latency) of float32, RUNS runs of
#      -iters 20 after -warmup 5; then the same with both GPUs in one
#      process (ncclCommInitAll), for reference.
#   2. PyTorch: torch.distributed.run with two processes, the NCCL
#      backend, dist.all_reduce in place on the same sizes, warmed up and
#      timed alike (RUNS rounds of 20 after 5, each ended by
#      torch.cuda.synchronize; the median).
#   3. The ratios: bus bandwidth gour/torch (target ≥ 0.97), 1 MiB latency
#      gour/torch, and the rendezvous against its target (≤ 50 ms).
#
# Both sides load the same libnccl.so.2: PyTorch's (from its nvidia-nccl
# wheel) where it has one, given to gour through GOUR_NCCL_LIBRARY;
# NCCL_LIB=/path/libnccl.so.2 chooses another for gour.
#
# Usage: scripts/bench/collectives.sh [RUNS]   (default 5)
set -euo pipefail
runs=${1:-5}
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$root"
export PYTHONUNBUFFERED=1
if [[ ! -x bin/urbench ]]; then
	echo "collectives.sh: no bin/urbench: build it where Go is (CGO_ENABLED=0 go build -o bin/ ./cmd/urbench)" >&2
	exit 1
fi
ngpu=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU' || true)
if ((ngpu < 2)); then
	echo "collectives.sh: $ngpu GPU(s) found; the comparison wants two" >&2
	exit 1
fi

# The redis-server: from PATH, else the one carried in bin/redis. A
# carried one needs the libraries beside it: urbench (internal/redisserver)
# puts its folder on the server's LD_LIBRARY_PATH, the server's only.
redis_bin=$(command -v redis-server || true)
if [[ -z $redis_bin && -x bin/redis/redis-server ]]; then
	redis_bin=$root/bin/redis/redis-server
fi
if [[ -z $redis_bin ]]; then
	echo "collectives.sh: no redis-server on PATH nor in bin/redis: the two-process run needs one" >&2
	exit 1
fi
redis_dir=$(cd "$(dirname "$redis_bin")" && pwd -P)
redis_bin=$redis_dir/$(basename "$redis_bin")
redis_flags=(-redis-server "$redis_bin")
echo "redis-server: $redis_bin"

# PyTorch's NCCL, for gour too.
if [[ -z ${NCCL_LIB:-} ]]; then
	NCCL_LIB=$(python3 - <<'PY' 2>/dev/null || true
import glob, os
try:
    import nvidia.nccl as n
    hits = sorted(glob.glob(os.path.join(list(n.__path__)[0], "lib", "libnccl.so*")))
    print(hits[0] if hits else "")
except Exception:
    print("")
PY
)
fi
if [[ -n $NCCL_LIB ]]; then
	export GOUR_NCCL_LIBRARY=$NCCL_LIB
	echo "NCCL for gour: $NCCL_LIB (PyTorch's)"
else
	echo "NCCL for gour: libnccl.so.2 from the loader's path (PyTorch's not found)"
fi
python3 -c 'import torch; print("torch", torch.__version__, "CUDA", torch.version.cuda, "NCCL", ".".join(map(str, torch.cuda.nccl.version())))'
nvidia-smi topo -m 2>/dev/null | head -4 || true

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

echo
echo "== gour: a process per GPU (urbench collectives -procs 2 -runs $runs)"
bin/urbench collectives -device 'cuda:*' -backend nccl -procs 2 -runs "$runs" "${redis_flags[@]}" | tee "$tmp/gour2"
echo
echo "== gour: both GPUs in one process (urbench collectives -procs 1 -runs $runs)"
bin/urbench collectives -device 'cuda:*' -backend nccl -procs 1 -runs "$runs" | tee "$tmp/gour1"

cat >"$tmp/torch_allreduce.py" <<'PY'
import os, statistics, sys, time
import torch
import torch.distributed as dist

BIG, SMALL = 256 << 20, 1 << 20
ITERS, WARMUP, RUNS = 20, 5, int(sys.argv[1])

local = int(os.environ["LOCAL_RANK"])
torch.cuda.set_device(local)
t0 = time.perf_counter()
dist.init_process_group("nccl", device_id=torch.device("cuda", local))
world, rank = dist.get_world_size(), dist.get_rank()
init = time.perf_counter() - t0

def per_op(nbytes):
    x = torch.zeros(nbytes // 4, dtype=torch.float32, device="cuda")
    out = []
    for _ in range(RUNS):
        for _ in range(WARMUP):
            dist.all_reduce(x)
        torch.cuda.synchronize()
        t = time.perf_counter()
        for _ in range(ITERS):
            dist.all_reduce(x)
        torch.cuda.synchronize()
        out.append((time.perf_counter() - t) / ITERS)
    return statistics.median(out)

# Correctness, as urbench checks its own: 1 + 2 on two ranks.
y = torch.full((1024,), float(rank + 1), device="cuda")
dist.all_reduce(y)
assert float(y[0]) == world * (world + 1) / 2, float(y[0])
big, small = per_op(BIG), per_op(SMALL)
alg = BIG / big / 1e9
bus = alg * 2 * (world - 1) / world
if rank == 0:
    print(f"torch.distributed: {world} processes, NCCL {'.'.join(map(str, torch.cuda.nccl.version()))}")
    print(f"  all-reduce 256 MiB float32: {big*1e3:.3f} ms, algbw {alg:.1f} GB/s, busbw {bus:.1f} GB/s (median of {RUNS} runs of {ITERS})")
    print(f"  all-reduce 1 MiB float32: {small*1e6:.1f} µs per operation")
    print(f"  init_process_group (TCPStore rendezvous and eager NCCL init): {init*1e3:.1f} ms")
    print(f"TORCH busbw_GBps={bus:.2f} algbw_GBps={alg:.2f} big_us={big*1e6:.1f} small_us={small*1e6:.2f} init_ms={init*1e3:.1f}")
dist.destroy_process_group()
PY
echo
echo "== torch.distributed: 2 processes (torch.distributed.run)"
python3 -m torch.distributed.run --standalone --nproc_per_node=2 "$tmp/torch_allreduce.py" "$runs" 2>&1 | grep -v '^W[0-9]* \|^\*\*\*\*\|OMP_NUM_THREADS' | tee "$tmp/torch"

field() { # field FILE PREFIX KEY
	grep "^$2 " "$1" | tail -1 | tr ' ' '\n' | awk -F= -v k="$3" '$1 == k {print $2}'
}
g_bus=$(field "$tmp/gour2" RESULT busbw_GBps)
g_small=$(field "$tmp/gour2" RESULT small_us)
g_rdv=$(field "$tmp/gour2" RESULT rendezvous_ms)
g1_bus=$(field "$tmp/gour1" RESULT busbw_GBps)
t_bus=$(field "$tmp/torch" TORCH busbw_GBps)
t_small=$(field "$tmp/torch" TORCH small_us)
echo
echo "== summary"
python3 - "$g_bus" "$t_bus" "$g_small" "$t_small" "$g_rdv" "$g1_bus" <<'PY'
import sys
g_bus, t_bus, g_small, t_small, g_rdv, g1_bus = map(float, sys.argv[1:])
r = g_bus / t_bus
print(f"all-reduce 256 MiB bus bandwidth: gour {g_bus:.1f} GB/s, torch {t_bus:.1f} GB/s: {r:.3f}x (target >= 0.97: {'met' if r >= 0.97 else 'MISSED'})")
print(f"  gour with both GPUs in one process: {g1_bus:.1f} GB/s ({g1_bus / t_bus:.3f}x)")
print(f"all-reduce 1 MiB latency: gour {g_small:.1f} us, torch {t_small:.1f} us: {g_small / t_small:.3f}x")
print(f"two-process rendezvous through Redis: {g_rdv:.2f} ms (target <= 50 ms: {'met' if g_rdv <= 50 else 'MISSED'})")
PY
