#!/usr/bin/env bash
# launch.sh compares the cost of a kernel launch through gour with the same
# sequence in C against OpenCL directly, on the same PoCL CPU device, in one
# run, and prints the ratio gour/C.
#
# Usage: scripts/bench/launch.sh [ITERS [ROUNDS [RUNS]]]
#   ITERS   launches per round (default 20000)
#   ROUNDS  rounds per run; each run prints its median ns/launch (default 10)
#   RUNS    runs of each program, interleaved C, gour, C, gour, ... (default 5)
#
# Both programs time, per round, ITERS x (set the buffer argument + launch
# add1 over 1024 work-items, no event) and one Finish. The ratio is that of
# the medians of the runs' medians. Shown too: the best single round of
# each, and the ratio of the time until the last launch returned (before
# Finish), which is what the host spends enqueueing and so what gour's own
# overhead adds to. gour's side is built with CGO_ENABLED=0,
# as gour ships. Both run with the same environment.
set -euo pipefail

iters=${1:-20000}
rounds=${2:-10}
runs=${3:-5}

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$root"
mkdir -p bin
# On a machine without Go (the GPU machine), bin/golaunch must have been
# built elsewhere (make build-device-tests); without the OpenCL development
# package, the CUDA toolkit's headers and the ICD loader's soname serve.
gcc -O2 -Wall -I/usr/local/cuda/include -o bin/launch_c scripts/bench/c/launch.c -l:libOpenCL.so.1
if command -v go >/dev/null 2>&1; then
	CGO_ENABLED=0 go build -o bin/golaunch ./scripts/bench/golaunch
elif [[ ! -x bin/golaunch ]]; then
	echo "launch.sh: no go command and no bin/golaunch" >&2
	exit 1
fi

# The same environment for both: PoCL's kernel cache off (builds are not
# timed, but neither program may see what the other left there), no device
# selector.
pinned() {
	env -u ONEAPI_DEVICE_SELECTOR -u UR_ADAPTERS_FORCE_LOAD POCL_KERNEL_CACHE=0 "$@"
}

echo "machine: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')"
if command -v dpkg-query >/dev/null 2>&1; then
	echo "pocl: $(dpkg-query -W -f='${Version}' libpocl2 2>/dev/null || echo unknown)"
fi
echo "go: $(go version | cut -d' ' -f3-)"
echo "per run: $rounds rounds x $iters launches of 1024 work-items; $runs runs each, interleaved"
echo

# parse prints the median, the enqueue median and the best (min) ns/launch
# of a result line, failing on anything else.
parse() {
	local line=$1
	if [[ $line =~ ^(c|gour)\ +ns/launch\ ([0-9.]+)\ enqueue\ ([0-9.]+)\ .*\ min\ ([0-9.]+)\ max ]]; then
		echo "${BASH_REMATCH[2]} ${BASH_REMATCH[3]} ${BASH_REMATCH[4]}"
	else
		echo "launch.sh: unexpected output: $line" >&2
		return 1
	fi
}

c_ns=() c_enq=() c_min=() go_ns=() go_enq=() go_min=()
for ((i = 1; i <= runs; i++)); do
	line=$(pinned bin/launch_c scripts/bench/add1.cl "$iters" "$rounds")
	echo "$line"
	parsed=$(parse "$line")
	read -r med enq min <<<"$parsed"
	c_ns+=("$med") c_enq+=("$enq") c_min+=("$min")

	line=$(pinned bin/golaunch "$iters" "$rounds")
	echo "$line"
	parsed=$(parse "$line")
	read -r med enq min <<<"$parsed"
	go_ns+=("$med") go_enq+=("$enq") go_min+=("$min")
done

median() {
	printf '%s\n' "$@" | sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'
}
min_of() {
	printf '%s\n' "$@" | sort -g | head -n1
}
echo
awk -v c="$(median "${c_ns[@]}")" -v g="$(median "${go_ns[@]}")" \
	-v ce="$(median "${c_enq[@]}")" -v ge="$(median "${go_enq[@]}")" \
	-v cb="$(min_of "${c_min[@]}")" -v gb="$(min_of "${go_min[@]}")" 'BEGIN {
	printf "best round ns/launch:    c %7.1f, gour %7.1f (ratio %.3f)\n", cb, gb, gb / cb
	printf "enqueue-only ns/launch:  c %7.1f, gour %7.1f (ratio %.3f)\n", ce, ge, ge / ce
	printf "median ns/launch:        c %7.1f, gour %7.1f\n", c, g
	printf "ratio gour/c (medians): %.3f\n", g / c
}'
