#!/usr/bin/env bash
# peers.sh runs gour beside CuPy and PyTorch on one NVIDIA GPU, the same
# operations at the same sizes, and prints each figure and the ratios
# gour/CuPy and gour/PyTorch (gour's speed over the peer's; above 1, gour
# is faster):
#
#   axpy      out = a*x + y, 64 Mi float32 resident, GB/s (12 B/element)
#   copy      64 Mi float32, device to device, GB/s (8 B/element)
#   sum       256 Mi float32, GB/s (4 B/element)
#   small op  the axpy on 1024 elements, µs a call
#   pool      1 MiB allocated and freed through the pool, µs a pair
#   gemm      with --gemm: SGEMM 8192, TF32 off, TFLOP/s (gour through
#             urbench blas -backend cublas)
#
# gour's figures come from bin/urbench compute and memory (and blas), the
# peers' from scripts/bench/peers.py, each framework in a process of its
# own; peers.py's docstring has the method. A framework that is not
# installed, or sees no CUDA device, is skipped with a message; with
# neither, nothing runs. Build bin/urbench first where Go is:
#
#   CGO_ENABLED=0 go build -o bin/ ./cmd/urbench
#
# Usage: scripts/bench/peers.sh [--device cuda:N] [--rounds N] [--runs N] [--gemm]
#        scripts/bench/peers.sh --self-test   (the parsing and the table, no GPU)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$root"
export PYTHONUNBUFFERED=1

case " $* " in
*" --self-test "* | *" -h "* | *" --help "*)
	exec python3 scripts/bench/peers.py "$@"
	;;
esac

nvidia-smi --query-gpu=index,name,driver_version,clocks.max.sm --format=csv,noheader 2>/dev/null || echo "peers.sh: no nvidia-smi"

# With --gemm, gour's cuBLAS backend needs libcublas on the loader's path:
# where the loader finds it, else from the CUDA toolkit, else from
# PyTorch's NVIDIA wheels (the library PyTorch itself uses).
if [[ " $* " == *" --gemm "* ]] && ! ldconfig -p 2>/dev/null | grep -q 'libcublas\.so\.1[23] '; then
	dir=$(
		python3 - <<'PY' || true
import glob, os, site
dirs = ["/usr/local/cuda/lib64", "/usr/local/cuda/targets/x86_64-linux/lib"]
dirs += [os.path.join(d, "nvidia") for d in site.getsitepackages() + [site.getusersitepackages()]]
for v in ("13", "12"):
    for d in dirs:
        hits = sorted(glob.glob(os.path.join(d, "**", "libcublas.so." + v), recursive=True))
        if hits:
            print(os.path.dirname(hits[0]))
            raise SystemExit(0)
PY
	)
	if [[ -n $dir ]]; then
		export LD_LIBRARY_PATH=$dir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
		echo "peers.sh: cuBLAS from $dir"
	else
		echo "peers.sh: no libcublas.so.13 or .12 found: gour's GEMM will fail to load cuBLAS" >&2
	fi
fi

exec python3 scripts/bench/peers.py "$@"
