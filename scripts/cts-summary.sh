#!/usr/bin/env bash
# cts-summary.sh reads the output of `go test -v ./conformance/` (a file or
# standard input) and prints, per adapter and device, how many leaf test
# cases passed, failed and were skipped: the table in docs/conformance.md.
# It reads the output of conformance.Run in another module's tests too,
# where the cases sit under that module's test (TestConformance/TestX/...):
# a case's device is the part of its name after adapter/type:index/, which
# comes right after the case (TestX) or after the test running the cases.
set -euo pipefail
grep -E '^\s*--- (PASS|FAIL|SKIP): ' "${1:-/dev/stdin}" | awk '
# device returns the index of the type:index part of a split name (cpu:0,
# gpu:1), preceded by one or two tests and an adapter and followed by the
# device name; 0 when the name is not a per-device case.
function device(part, n,    i) {
	for (i = 3; i <= 4; i++)
		if (part[i] ~ /^(cpu|gpu|fpga|other):[0-9]+$/ && i + 1 <= n) return i
	return 0
}
{
	status = $2; sub(":", "", status)
	name = $3
	n = split(name, part, "/")
	if (device(part, n) == 0) next
	result[name] = status
	parent = part[1]
	for (i = 2; i < n; i++) { parent = parent "/" part[i]; has_child[parent] = 1 }
}
END {
	for (name in result) {
		if (name in has_child) continue
		n = split(name, part, "/")
		d = device(part, n)
		key = part[d - 1] " " part[d] " " part[d + 1]
		keys[key] = 1
		count[key, result[name]]++
	}
	printf "| adapter | device | passed | failed | skipped |\n|---|---|---|---|---|\n"
	for (key in keys) {
		split(key, k, " ")
		printf "| %s | %s (%s) | %d | %d | %d |\n", k[1], k[3], k[2], count[key, "PASS"], count[key, "FAIL"], count[key, "SKIP"]
	}
}'
