#!/usr/bin/env python3
"""Triton's tutorial kernels and PyTorch's, timed for gokernels-bench.

Times, on the current CUDA device, at ROWS x COLS float32 (default
4096 x 4096, the shape gokernels-bench -size full gives its Go Softmax and
LayerNorm):

  - the fused softmax of Triton's tutorial 02 (the persistent kernel:
    num_warps 8, as many programs as the GPU holds at once), and
    torch.softmax;
  - the layer norm forward of Triton's tutorial 05
    (_layer_norm_fwd_fused: one program a row, BLOCK_SIZE the next power
    of two of the columns), and torch.nn.functional.layer_norm.

Each Triton kernel's output is checked against PyTorch's (a mismatch is
a WARNING line), then each is timed two ways:

  - do_bench: triton.testing.do_bench, the tutorials' own measure (the L2
    cache is cleared before every call; the median is reported);
  - loop: back-to-back calls between two CUDA events, in rounds, the
    median of the rounds' time per call: gokernels-bench's method (it
    clears no cache), so the two tools' numbers compare.

Prints one line per result:

  RESULT name=triton_softmax method=do_bench us=... gbps=... rows=... cols=...

with name triton_softmax, torch_softmax, triton_layernorm or
torch_layernorm and method do_bench or loop.

Usage: python3 scripts/bench/gokernels/triton.py [--rows N] [--cols N] [--rounds N]
"""

import argparse
import os
import statistics
import sys

# This file is called triton.py: keep its directory, which Python puts
# first on the import path, from making "import triton" import it.
_here = os.path.dirname(os.path.abspath(__file__))
sys.path = [p for p in sys.path if os.path.abspath(p or os.curdir) != _here]

import torch  # noqa: E402
import triton  # noqa: E402
import triton.language as tl  # noqa: E402
from triton.runtime import driver  # noqa: E402


# Tutorial 02, fused softmax: each program normalises rows row_start,
# row_start + num_programs, ..., one row in registers at a time.
@triton.jit
def softmax_kernel(output_ptr, input_ptr, input_row_stride, output_row_stride, n_rows, n_cols,
                   BLOCK_SIZE: tl.constexpr, num_stages: tl.constexpr):
    row_start = tl.program_id(0)
    row_step = tl.num_programs(0)
    for row_idx in tl.range(row_start, n_rows, row_step, num_stages=num_stages):
        row_start_ptr = input_ptr + row_idx * input_row_stride
        col_offsets = tl.arange(0, BLOCK_SIZE)
        input_ptrs = row_start_ptr + col_offsets
        mask = col_offsets < n_cols
        row = tl.load(input_ptrs, mask=mask, other=-float('inf'))
        row_minus_max = row - tl.max(row, axis=0)
        numerator = tl.exp(row_minus_max)
        denominator = tl.sum(numerator, axis=0)
        softmax_output = numerator / denominator
        output_row_start_ptr = output_ptr + row_idx * output_row_stride
        output_ptrs = output_row_start_ptr + col_offsets
        tl.store(output_ptrs, softmax_output, mask=mask)


def softmax_launcher(x, y):
    """Returns (a function computing y = softmax(x) as the tutorial's
    softmax() does, a description of the launch)."""
    n_rows, n_cols = x.shape
    props = driver.active.utils.get_device_properties(x.device.index)
    num_sm, num_regs = props["multiprocessor_count"], props["max_num_regs"]
    size_smem, warp_size = props["max_shared_mem"], props["warpSize"]
    BLOCK_SIZE = triton.next_power_of_2(n_cols)
    num_warps = 8
    num_stages = 4 if size_smem > 200000 else 2
    try:
        # The tutorial's occupancy: compile first, read the registers and
        # shared memory the kernel uses, launch as many programs as fit.
        kernel = softmax_kernel.warmup(y, x, x.stride(0), y.stride(0), n_rows, n_cols, BLOCK_SIZE=BLOCK_SIZE,
                                       num_stages=num_stages, num_warps=num_warps, grid=(1, ))
        kernel._init_handles()
        occupancy = num_regs // (kernel.n_regs * warp_size * num_warps)
        if kernel.metadata.shared > 0:
            occupancy = min(occupancy, size_smem // kernel.metadata.shared)
        num_programs = min(num_sm * occupancy, n_rows)
        grid = (num_programs, 1, 1)

        def run():
            kernel[grid](y, x, x.stride(0), y.stride(0), n_rows, n_cols)

        run()
        torch.cuda.synchronize()
        how = f"persistent, {num_programs} programs, {kernel.n_regs} registers"
    except Exception as e:  # an API the tutorial used that this Triton lacks
        def run():
            softmax_kernel[(n_rows, )](y, x, x.stride(0), y.stride(0), n_rows, n_cols, BLOCK_SIZE=BLOCK_SIZE,
                                       num_stages=num_stages, num_warps=num_warps)

        how = f"one program a row (the persistent launch failed: {type(e).__name__}: {e})"
    return run, f"BLOCK_SIZE {BLOCK_SIZE}, num_warps {num_warps}, num_stages {num_stages}, {how}"


# Tutorial 05, layer norm forward: one program a row, the mean, the
# variance and the output each a pass over the row in BLOCK_SIZE chunks.
@triton.jit
def _layer_norm_fwd_fused(X, Y, W, B, Mean, Rstd, stride, N, eps, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0)
    Y += row * stride
    X += row * stride
    mean = 0
    _mean = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    for off in range(0, N, BLOCK_SIZE):
        cols = off + tl.arange(0, BLOCK_SIZE)
        a = tl.load(X + cols, mask=cols < N, other=0.).to(tl.float32)
        _mean += a
    mean = tl.sum(_mean, axis=0) / N
    _var = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    for off in range(0, N, BLOCK_SIZE):
        cols = off + tl.arange(0, BLOCK_SIZE)
        x = tl.load(X + cols, mask=cols < N, other=0.).to(tl.float32)
        x = tl.where(cols < N, x - mean, 0.)
        _var += x * x
    var = tl.sum(_var, axis=0) / N
    rstd = 1 / tl.sqrt(var + eps)
    tl.store(Mean + row, mean)
    tl.store(Rstd + row, rstd)
    for off in range(0, N, BLOCK_SIZE):
        cols = off + tl.arange(0, BLOCK_SIZE)
        mask = cols < N
        w = tl.load(W + cols, mask=mask)
        b = tl.load(B + cols, mask=mask)
        x = tl.load(X + cols, mask=mask, other=0.).to(tl.float32)
        x_hat = (x - mean) * rstd
        y = x_hat * w + b
        tl.store(Y + cols, y, mask=mask)


def layer_norm_launcher(x, w, b, y, eps):
    """Returns (a function computing y = layer_norm(x) as the tutorial's
    LayerNorm.forward does, a description of the launch)."""
    M, N = x.shape
    mean = torch.empty((M, ), dtype=torch.float32, device=x.device)
    rstd = torch.empty((M, ), dtype=torch.float32, device=x.device)
    MAX_FUSED_SIZE = 65536 // x.element_size()
    BLOCK_SIZE = min(MAX_FUSED_SIZE, triton.next_power_of_2(N))
    if N > BLOCK_SIZE:
        raise RuntimeError("This layer norm doesn't support feature dim >= 64KB.")
    num_warps = min(max(BLOCK_SIZE // 256, 1), 8)

    def run():
        _layer_norm_fwd_fused[(M, )](x, y, w, b, mean, rstd, x.stride(0), N, eps, BLOCK_SIZE=BLOCK_SIZE,
                                     num_warps=num_warps, num_ctas=1)

    return run, f"BLOCK_SIZE {BLOCK_SIZE}, num_warps {num_warps}, {M} programs"


def check(name, got, want, rtol, atol):
    """Warns when got is not want to within rtol and atol."""
    try:
        torch.testing.assert_close(got, want, rtol=rtol, atol=atol)
    except AssertionError as e:
        print(f"WARNING: {name} differs from PyTorch's: {e}", flush=True)


def loop_us(fn, rounds, round_ms=50.0):
    """The median over rounds of the µs per call of back-to-back calls of
    fn between two CUDA events, each round about round_ms long."""
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    fn()
    end.record()
    end.synchronize()
    n = max(1, min(20000, int(round_ms / max(start.elapsed_time(end), 1e-3))))
    times = []
    for _ in range(rounds):
        start.record()
        for _ in range(n):
            fn()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end) * 1e3 / n)
    return statistics.median(times)


def report(name, fn, nbytes, rows, cols, rounds):
    """Times fn both ways and prints its RESULT lines."""
    us = {
        "do_bench": triton.testing.do_bench(fn, return_mode="median") * 1e3,
        "loop": loop_us(fn, rounds),
    }
    for method, t in us.items():
        print(f"RESULT name={name} method={method} us={t:.3f} gbps={nbytes / t / 1e3:.1f} rows={rows} cols={cols}",
              flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=4096)
    ap.add_argument("--cols", type=int, default=4096)
    ap.add_argument("--rounds", type=int, default=7, help="rounds of the loop method; the median is reported")
    args = ap.parse_args()
    rows, cols = args.rows, args.cols
    dev = torch.device("cuda", torch.cuda.current_device())
    print(f"device: {torch.cuda.get_device_name(dev)}; torch {torch.__version__}, triton {triton.__version__}; "
          f"{rows}x{cols} float32", flush=True)
    torch.manual_seed(0)
    nbytes = 2 * rows * cols * 4  # read x once, write y once

    x = torch.randn(rows, cols, device=dev, dtype=torch.float32)
    y = torch.empty_like(x)
    run, how = softmax_launcher(x, y)
    print(f"triton softmax: {how}", flush=True)
    run()
    check("triton_softmax", y, torch.softmax(x, dim=-1), 1e-4, 1e-6)
    report("triton_softmax", run, nbytes, rows, cols, args.rounds)
    report("torch_softmax", lambda: torch.softmax(x, dim=-1), nbytes, rows, cols, args.rounds)

    eps = 1e-5
    w = torch.rand(cols, device=dev, dtype=torch.float32)
    b = torch.rand(cols, device=dev, dtype=torch.float32)
    x = -2.3 + 0.5 * torch.randn(rows, cols, device=dev, dtype=torch.float32)  # the tutorial's input
    y = torch.empty_like(x)
    run, how = layer_norm_launcher(x, w, b, y, eps)
    print(f"triton layer norm: {how}", flush=True)
    run()
    want = torch.nn.functional.layer_norm(x, (cols, ), w, b, eps)
    check("triton_layernorm", y, want, 1e-4, 1e-4)
    report("triton_layernorm", run, nbytes, rows, cols, args.rounds)
    report("torch_layernorm", lambda: torch.nn.functional.layer_norm(x, (cols, ), w, b, eps), nbytes, rows, cols,
           args.rounds)


if __name__ == "__main__":
    main()
