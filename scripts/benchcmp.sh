#!/usr/bin/env bash
# benchcmp.sh compares the hot paths' benchmarks of a base revision with
# the working tree, on this machine, before a change lands:
#
#   scripts/benchcmp.sh BASE [ROUNDS]
#
# It builds the test binaries of both (BASE checked out in a temporary
# worktree), runs them alternately ROUNDS times (default 6), so that a
# busy spell of the machine falls on both, and prints benchstat's
# comparison: a change whose p-value is below 0.05 and whose delta is
# positive made that path slower. The benchmarks: ur's launch paths over a
# stand-in adapter (the front end's own cost), the program manager's
# kernel lookups, launches on PoCL against C's (scripts/bench), and
# compute's dispatch (CPU context and PoCL) and task sequences.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
base=${1:?usage: scripts/benchcmp.sh BASE [ROUNDS]}
rounds=${2:-6}
benchstat=golang.org/x/perf/cmd/benchstat@v0.0.0-20260908200009-22c9c6c9d4da

# package, benchmarks (a -test.bench pattern), iterations a run
benches=(
	"./ur 'LaunchLayers$|LaunchRepeatLayers$|LaunchArgs$|ArgLaunch$|PreparedLaunch$' 200000x"
	"./programmgr 'GetKernelFastHit$|GetKernelFastHitParallel$' 1000000x"
	"./scripts/bench 'Launch$' 100000x"
	"./compute 'TaskSequenceOverhead$|Dispatch' 20000x"
)

tmp=$(mktemp -d)
trap 'git worktree remove --force "$tmp/base" >/dev/null 2>&1; rm -rf "$tmp"' EXIT
git worktree add --detach "$tmp/base" "$base" >/dev/null
for side in base new; do
	src=.
	[[ $side == base ]] && src=$tmp/base
	for b in "${benches[@]}"; do
		eval "set -- $b"
		(cd "$src" && go test -c -o "$tmp/$side-${1//[.\/]/_}.test" "$1")
	done
done
for ((r = 1; r <= rounds; r++)); do
	for side in base new; do
		for b in "${benches[@]}"; do
			eval "set -- $b"
			(cd "$1" && POCL_KERNEL_CACHE=0 "$tmp/$side-${1//[.\/]/_}.test" -test.run '^$' -test.bench "$2" -test.benchtime "$3" -test.benchmem) | grep '^Benchmark' >>"$tmp/$side.txt"
		done
	done
	echo "round $r of $rounds done" >&2
done
go run "$benchstat" base="$tmp/base.txt" new="$tmp/new.txt"
