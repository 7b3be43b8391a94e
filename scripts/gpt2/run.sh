#!/usr/bin/env bash
# run.sh measures GPT-2 on the GPU machine against PyTorch, in one run:
# torch_reference.py makes GPT-2 small (random weights, seed 0), saves it
# and PyTorch's logits, greedy tokens and times; then gour's gpt2 command
# loads the same file and compares and times itself, on CUDA and on
# NVIDIA's OpenCL; and the model package's tests run on both.
#
# There is no Go on that machine: build here first,
#
#   CGO_ENABLED=0 go build -o bin/gpt2 ./cmd/gpt2
#   CGO_ENABLED=0 go test -c -o bin/models-gpt2.test ./models/gpt2
#
# carry bin/ along and run from the repository root (B=DIR takes the
# binaries from DIR). Logs go to $OUT (default /tmp/gpt2-logs). BLOCKS
# lists the causal-block lengths timed beside the default; HALVES the
# half types PyTorch is timed in (default "float16 bfloat16", or none).
set -u
B=${B:-bin}
out=${OUT:-/tmp/gpt2-logs}
mkdir -p "$out"
dir=/tmp/gpt2-small
mkdir -p /tmp/icd && echo libnvidia-opencl.so.1 >/tmp/icd/nvidia.icd && cp /etc/OpenCL/vendors/*.icd /tmp/icd/ 2>/dev/null
export OCL_ICD_VENDORS=/tmp/icd
step() {
	local name=$1 limit=$2 s=$SECONDS
	shift 2
	timeout "$limit" "$@" >"$out/$name.log" 2>&1
	echo "exit $? after $((SECONDS - s)) s" >>"$out/$name.log"
	echo "== $name"
	grep -v '^=== RUN' "$out/$name.log" | tail -12
}
step torch 200 python3 scripts/gpt2/torch_reference.py "$dir" ${HALVES:-float16 bfloat16}
step gour-cuda 90 env ONEAPI_DEVICE_SELECTOR=cuda:0 "$B/gpt2" -dir "$dir" -compare -bench
for p in float16 bfloat16; do
	step gour-cuda-$p 90 env ONEAPI_DEVICE_SELECTOR=cuda:0 "$B/gpt2" -dir "$dir" -compare -bench -precision $p
done
# The causal block's length against the default's (1024: every score).
for blk in ${BLOCKS:-128 512 1024}; do
	step gour-cuda-block$blk 90 env ONEAPI_DEVICE_SELECTOR=cuda:0 "$B/gpt2" -dir "$dir" -bench -causal-block $blk
done
step gour-nvocl 120 env ONEAPI_DEVICE_SELECTOR=opencl:gpu "$B/gpt2" -dir "$dir" -compare -bench
step tests-cuda 60 env ONEAPI_DEVICE_SELECTOR=cuda:0 UR_REQUIRE_ADAPTERS=cuda GOUR_LEAK_CHECK=1 "$B/models-gpt2.test" -test.v -test.count=1
step tests-nvocl 60 env ONEAPI_DEVICE_SELECTOR=opencl:gpu GOUR_LEAK_CHECK=1 "$B/models-gpt2.test" -test.v -test.count=1
