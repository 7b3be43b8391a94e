#!/usr/bin/env bash
# GoMLX's backend benchmarks on gour (CUDA), on GoMLX's pure-Go backend
# (the CPU) and in JAX, and a table of the three.
#
# On the GPU machine, which has Python with JAX but no Go, from the
# repository's root. The Go test binary is built beforehand where Go is:
#
#   cd gomlx && CGO_ENABLED=0 go test -c -o ../bin/gomlx.test .
#   B=bin scripts/gomlx/run.sh
#
# Stages (STAGES, in this order by default): gour (BenchmarkGour and
# BenchmarkTrainStep/gour on $ONEAPI_DEVICE_SELECTOR, cuda:0 by default),
# gobackend (BenchmarkGoBackend and BenchmarkTrainStep/gobackend with
# GO_CPUS cores), jax (scripts/gomlx/jax_bench.py), compare
# (scripts/gomlx/compare.py on the three logs). The logs are kept in LOGDIR
# (/tmp/gomlx-bench by default), so that the stages can be run by separate
# commands (STAGES=gour, then STAGES="jax compare", ...), and copied to
# $OUT where that is set.
#
# Settings (environment):
#   B           directory of gomlx.test (required for the gour and gobackend stages)
#   BENCHTIME   -test.benchtime of the Go benchmarks (0.5s)
#   JAX_TIME    seconds of timed calls per JAX case (0.5)
#   SYNC        1 (the default): every execution timed to its end, each
#               Execute followed by a wait for the device (GOUR_BENCH_SYNC=1)
#               and each JAX call by block_until_ready (--sync); 0: pipelined,
#               as GoMLX's suite times (Execute and Finalize, nothing waited
#               for) and JAX blocking once per round. SYNC=0 times gour's
#               device only where its queue holds back a host that runs
#               ahead; otherwise it times the enqueueing.
#   GOUR_FILTER -test.bench pattern below BenchmarkGour (all), e.g. 'DotGeneral|Softmax'
#   GO_FILTER   the same for BenchmarkGoBackend (all)
#   JAX_FILTER  regular expression of JAX case names (all)
#   GO_CPUS     GOMAXPROCS of the Go backend's run ($(nproc))
#   PYTHON      the Python with JAX (python3)
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
STAGES=${STAGES:-"gour gobackend jax compare"}
BENCHTIME=${BENCHTIME:-0.5s}
JAX_TIME=${JAX_TIME:-0.5}
SYNC=${SYNC:-1}
GOUR_FILTER=${GOUR_FILTER:-}
GO_FILTER=${GO_FILTER:-}
JAX_FILTER=${JAX_FILTER:-}
GO_CPUS=${GO_CPUS:-$(nproc)}
GOUR_CPUS=$(nproc)
PYTHON=${PYTHON:-python3}
LOGDIR=${LOGDIR:-/tmp/gomlx-bench}
export ONEAPI_DEVICE_SELECTOR=${ONEAPI_DEVICE_SELECTOR:-cuda:0}
mkdir -p "$LOGDIR"

# gotest LOG CPUS BENCH: runs the benchmarks BENCH (a -test.bench pattern)
# of the test binary, appending their output to LOG.
gotest() {
	local log=$1 cpus=$2 bench=$3
	echo "== gomlx.test -test.bench '$bench' -test.cpu $cpus -test.benchtime $BENCHTIME" | tee -a "$log"
	"$B/gomlx.test" -test.run '^$' -test.bench "$bench" -test.benchtime "$BENCHTIME" \
		-test.cpu "$cpus" -test.timeout 0 >>"$log" 2>>"$log.err" || {
		echo "gomlx.test failed: see $log and $log.err" >&2
		tail -20 "$log" "$log.err" >&2
		return 1
	}
	echo "results so far: $(grep -c 'ns/op' "$log" || true)"
}

# sub PATTERN: a -test.bench pattern of a benchmark's subbenchmarks.
sub() { [ -n "$1" ] && echo "/($1)" || true; }

for stage in $STAGES; do
	case $stage in
	gour)
		: "${B:?B=directory of gomlx.test (built with: cd gomlx && CGO_ENABLED=0 go test -c -o ../bin/gomlx.test .)}"
		rm -f "$LOGDIR/gour.txt" "$LOGDIR/gour.txt.err"
		(
			[ "$SYNC" = 1 ] && export GOUR_BENCH_SYNC=1
			gotest "$LOGDIR/gour.txt" "$GOUR_CPUS" "^BenchmarkGour\$$(sub "$GOUR_FILTER")"
			[ -n "$GOUR_FILTER" ] || gotest "$LOGDIR/gour.txt" "$GOUR_CPUS" '^BenchmarkTrainStep$/^gour$'
		)
		;;
	gobackend)
		: "${B:?B=directory of gomlx.test}"
		rm -f "$LOGDIR/gobackend.txt" "$LOGDIR/gobackend.txt.err"
		gotest "$LOGDIR/gobackend.txt" "$GO_CPUS" "^BenchmarkGoBackend\$$(sub "$GO_FILTER")"
		[ -n "$GO_FILTER" ] || gotest "$LOGDIR/gobackend.txt" "$GO_CPUS" '^BenchmarkTrainStep$/^gobackend$'
		;;
	jax)
		args=(--min-time "$JAX_TIME")
		[ "$SYNC" = 1 ] && args+=(--sync)
		[ -n "$JAX_FILTER" ] && args+=(--filter "$JAX_FILTER")
		"$PYTHON" "$here/jax_bench.py" "${args[@]}" | tee "$LOGDIR/jax.txt"
		;;
	compare)
		gob=()
		[ -s "$LOGDIR/gobackend.txt" ] && gob=(--gobackend "$LOGDIR/gobackend.txt" --go-procs "$GO_CPUS")
		"$PYTHON" "$here/compare.py" --gour "$LOGDIR/gour.txt" --gour-procs "$GOUR_CPUS" \
			--jax "$LOGDIR/jax.txt" "${gob[@]}" | tee "$LOGDIR/table.txt"
		;;
	*)
		echo "unknown stage $stage (gour, gobackend, jax, compare)" >&2
		exit 2
		;;
	esac
done

if [ -n "${OUT:-}" ]; then
	cp "$LOGDIR"/* "$OUT"/ 2>/dev/null || true
fi
