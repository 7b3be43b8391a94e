#!/usr/bin/env bash
# cts-summary.sh reads the output of `go test -v ./conformance/` (a file or
# standard input) and prints, per adapter and device, how many leaf test
# cases passed, failed and were skipped: the table in docs/conformance.md.
set -euo pipefail
grep -E '^\s*--- (PASS|FAIL|SKIP): ' "${1:-/dev/stdin}" | awk '
{
	status = $2; sub(":", "", status)
	name = $3
	n = split(name, part, "/")
	if (n < 4) next # not a per-device case
	result[name] = status
	parent = part[1]
	for (i = 2; i < n; i++) { parent = parent "/" part[i]; has_child[parent] = 1 }
}
END {
	for (name in result) {
		if (name in has_child) continue
		split(name, part, "/")
		key = part[2] " " part[3] " " part[4]
		keys[key] = 1
		count[key, result[name]]++
	}
	printf "| adapter | device | passed | failed | skipped |\n|---|---|---|---|---|\n"
	for (key in keys) {
		split(key, k, " ")
		printf "| %s | %s (%s) | %d | %d | %d |\n", k[1], k[3], k[2], count[key, "PASS"], count[key, "FAIL"], count[key, "SKIP"]
	}
}'
