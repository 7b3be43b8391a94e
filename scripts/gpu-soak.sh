#!/usr/bin/env bash
# gpu-soak.sh is what produced the GPU machine's figures of the soak on
# CUDA and NVIDIA's OpenCL, of NVIDIA OpenCL's first Transform and
# reductions, and of gonum's solves in docs/benchmarks.md: run from the
# repository root on the GPU machine (no Go there) after
# `make build-device-tests` here, with bin/ carried along (B=DIR takes
# the binaries from DIR instead). Logs go to /tmp/logs, packed into
# $OUT/logs.tgz after each step (so that a run cut short still brings
# back what it did).
set -u
pack=${OUT:-.}/logs.tgz
out=/tmp/logs; mkdir -p "$out"
mkdir -p /tmp/icd && echo libnvidia-opencl.so.1 >/tmp/icd/nvidia.icd && cp /etc/OpenCL/vendors/*.icd /tmp/icd/
export OCL_ICD_VENDORS=/tmp/icd
B=${B:-bin}
log() {
	local name=$1 limit=$2 s=$SECONDS
	shift 2
	timeout "$limit" "$@" >"$out/$name.log" 2>&1
	echo "exit $? after $((SECONDS - s)) s" >>"$out/$name.log"
	echo "$name: $(tail -1 "$out/$name.log")"
	tar czf "$pack" -C /tmp logs
}
nvidia-smi -L >"$out/gpu.txt" 2>&1; clinfo -l >>"$out/gpu.txt" 2>&1
# probe NAME KINDS [VAR=VALUE...]: a CUDA soak of 10 s, 16 workers; if it
# is still running 25 s later (a hang), the GPU's utilisation, every
# thread's native stack (gdb) and every goroutine's (SIGQUIT) are logged.
probe() {
	local name=$1 kinds=$2
	shift 2
	local f="$out/probe-$name.log"
	env "$@" GOTRACEBACK=all GOUR_LEAK_CHECK=1 ONEAPI_DEVICE_SELECTOR=cuda:0 $B/soak.test -test.v -test.count=1 -test.run 'TestSoak$' -soak.duration=10s -soak.workers=16 -soak.kinds="$kinds" -test.timeout=60s >"$f" 2>&1 &
	local pid=$! s=$SECONDS
	while kill -0 $pid 2>/dev/null && ((SECONDS - s < 25)); do sleep 1; done
	if kill -0 $pid 2>/dev/null; then
		echo "== HUNG at $((SECONDS - s)) s" >>"$f"
		for _ in 1 2 3; do nvidia-smi --query-gpu=utilization.gpu,memory.used --format=csv,noheader >>"$f.smi" 2>&1; sleep 1; done
		timeout 30 gdb -p $pid -batch -ex 'set pagination off' -ex 'thread apply all bt 12' >"$f.gdb" 2>&1
		kill -QUIT $pid
		sleep 2
		kill -9 $pid 2>/dev/null
	fi
	wait $pid
	echo "exit $? after $((SECONDS - s)) s" >>"$f"
	echo "probe $name: $(grep -c HUNG "$f") hung; $(grep -m1 'total' "$f")"
	tar czf "$pack" -C /tmp logs
}
# The CUDA soak with 16 workers (it hung before cuBLAS handles were kept).
probe cuda transform,reduce,reduce-axis,copy,dot,matmul,release,kernel,evict,blas,new-device,new-queue
# NVIDIA's OpenCL: a new process's first Transform, the soak.
log first-nvocl 60 env GOUR_URBENCH_PHASES=1 $B/urbench compute -device opencl:gpu -backend opencl -steps first -first-runs 5
log soak-nvocl 40 env GOUR_LEAK_CHECK=1 ONEAPI_DEVICE_SELECTOR=opencl:gpu $B/soak.test -test.v -test.count=1 -test.run Soak -soak.duration=15s -soak.workers=16
# cuBLAS with its handles kept.
log blas-cuda 100 env ONEAPI_DEVICE_SELECTOR=cuda:0 UR_REQUIRE_ADAPTERS=cuda $B/blas.test -test.count=1 -test.run 'CUBLAS|Trsm|NewAndClose|Concurrent'
# NVIDIA OpenCL's reductions.
log reduce-nvocl 60 $B/urbench compute -device opencl:gpu -backend opencl -steps reduce -rounds 5
# gonum's Mul and Solve, native against gonumblas (cuBLAS).
log gonumsolve 150 env ONEAPI_DEVICE_SELECTOR=cuda:0 $B/gonumsolve -sizes 64,128,256,512,2048 -runs 3 -maxtime 3s
# 4096 alone, one timed call each: gonum's native Solve takes about 40 s.
log gonumsolve4096 200 env ONEAPI_DEVICE_SELECTOR=cuda:0 $B/gonumsolve -sizes 4096 -runs 1 -maxtime 1s
# The default context's test on NVIDIA's OpenCL.
log nvocl-defaultctx 60 env ONEAPI_DEVICE_SELECTOR=opencl:gpu UR_REQUIRE_ADAPTERS=opencl $B/adapters-opencl.test -test.v -test.count=1 -test.run 'ShareTheDefault|OutliveEachOther'
