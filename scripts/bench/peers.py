#!/usr/bin/env python3
"""gour beside CuPy and PyTorch on one NVIDIA GPU, the same operations at
the same sizes, in one command (scripts/bench/peers.sh runs it):

  axpy      out = a*x + y, 64 Mi float32 resident on the device, GB/s
            counting 12 bytes an element (gour: urbench compute's
            transform.axpy; CuPy: one ElementwiseKernel; PyTorch:
            torch.add(y, x, alpha=a, out=out), one kernel)
  copy      64 Mi float32, device to device, GB/s counting 8 bytes an
            element (gour: copy.d2d, compute.Copy; CuPy: cupy.copyto;
            PyTorch: Tensor.copy_)
  sum       256 Mi float32, the sum left on the device, GB/s counting 4
            bytes an element (gour: reduce.device, compute.ReduceAxis into
            a one-element array; CuPy: cupy.sum; PyTorch: torch.sum, each
            returning a device scalar; urbench's reduce.sum, Reduce
            returning the sum to the host, is not compared)
  small op  the axpy on 1024 resident elements, µs a call, 10000 calls
            and then one wait (gour: transform.dispatch)
  pool      1 MiB allocated and freed through the framework's pool, µs a
            pair, the device synchronized at the end of each round (gour:
            urbench memory's alloc.pool; CuPy: cupy.empty and del, its
            default memory pool; PyTorch: torch.empty and del, its caching
            allocator)
  gemm      with --gemm: C = A·B, 8192³ float32, TF32 off everywhere,
            TFLOP/s counting 2n³ (gour: urbench blas -backend cublas;
            CuPy: cupy.matmul; PyTorch: torch.matmul)

Every figure is the median of --rounds rounds after an untimed warm-up.
The peers' rounds are timed as gour's are, on the host around the work and
a synchronization of the device (torch.cuda.synchronize,
cupy.cuda.Device.synchronize); each framework runs in a process of its own.
With --runs N, gour and the peers take turns N times and each figure is the
median of the runs. The ratios are gour's speed over the peer's: above 1,
gour is faster (for a time in µs, the peer's time over gour's).

A framework that is not installed, or sees no CUDA device, is skipped with
a message saying why; with neither, nothing is run.
"""

import argparse
import importlib.util
import json
import os
import re
import statistics
import subprocess
import sys
import time

# The operations: key, what the table calls it, unit, whether higher is
# better, gour's figure (the urbench command and the name of its line).
OPS = [
    ("axpy", "axpy, 64 Mi float32 resident", "GB/s", True, ("compute", "transform.axpy")),
    ("copy", "copy, 64 Mi float32", "GB/s", True, ("compute", "copy.d2d")),
    ("sum", "sum of 256 Mi float32, left on the device", "GB/s", True, ("compute", "reduce.device")),
    ("small", "small op, 1024 elements, per call", "µs", False, ("compute", "transform.dispatch")),
    ("pool", "pool alloc + free of 1 MiB", "µs", False, ("memory", "alloc.pool (gour)")),
    ("gemm", "SGEMM 8192, no TF32", "TFLOP/s", True, ("blas", "blas.gemm")),
]

AXPY_N = 64 << 20
SUM_N = 256 << 20
SMALL_N = 1024
SMALL_CALLS = 10000
POOL_BYTES = 1 << 20
POOL_PAIRS = 2000
GEMM_N = 8192
BANDWIDTH_OPS = 8  # operations a bandwidth round enqueues, as urbench compute
A = 2.0

FRAMEWORKS = [("cupy", "CuPy"), ("torch", "PyTorch")]


# ---------------------------------------------------------------- gour side

# urbench's figure lines: "name  median unit (min–max)  note".
LINE = re.compile(r"^(?P<name>\S+(?: \(gour\))?)\s+(?P<median>-?[0-9.]+(?:e[-+]?[0-9]+)?) (?P<unit>\S*) ?"
                  r"\((?P<min>-?[0-9.e+]+)–(?P<max>-?[0-9.e+]+)\)")


def parse_urbench(text):
    """The figures of urbench compute or memory output: name -> (median, unit)."""
    out = {}
    for line in text.splitlines():
        m = LINE.match(line)
        if m:
            out[m.group("name")] = (float(m.group("median")), m.group("unit"))
    return out


def parse_blas(text, typ="float32", n=GEMM_N):
    """The TFLOP/s of urbench blas's blas.gemm line of that type and size, or None."""
    for line in text.splitlines():
        fields = line.split()
        if not fields or fields[0] != "blas.gemm":
            continue
        kv = dict(f.split("=", 1) for f in fields[1:] if "=" in f)
        if kv.get("type") == typ and kv.get("n") == str(n) and "tflops" in kv:
            return float(kv["tflops"])
    return None


def run_urbench(urbench, args):
    """Run urbench, echoing its lines as they come; its output."""
    cmd = [urbench] + args
    print("+ " + " ".join(cmd), flush=True)
    # Its standard error goes straight to ours, where a failure says why.
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True, encoding="utf-8")
    lines = []
    for line in p.stdout:
        sys.stdout.write(line)
        sys.stdout.flush()
        lines.append(line)
    if p.wait() != 0:
        raise RuntimeError(f"{' '.join(cmd)}: exit {p.returncode} (its standard error is above)")
    return "".join(lines)


def has_blas(urbench):
    p = subprocess.run([urbench, "blas", "-h"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    return p.returncode == 0 and "urbench blas" in p.stdout


def gour_figures(urbench, device, rounds, gemm):
    """gour's figures: key -> value, and notes on what was left out."""
    figs, notes = {}, []
    # Only the steps whose lines the table reads: axpy (transform.axpy,
    # copy.d2d), reduce (reduce.device) and dispatch (transform.dispatch).
    compute = parse_urbench(run_urbench(urbench, ["compute", "-backend", "cuda", "-device", device, "-rounds", str(rounds),
                                                  "-steps", "axpy,reduce,dispatch",
                                                  "-n", str(AXPY_N), "-reduce-n", str(SUM_N), "-calls", str(SMALL_CALLS)]))
    memory = parse_urbench(run_urbench(urbench, ["memory", "-backend", "cuda", "-device", device, "-rounds", str(rounds),
                                                 "-iters", str(POOL_PAIRS), "-bytes", "16M"]))
    lines = {"compute": compute, "memory": memory}
    for key, _, unit, _, (cmd, name) in OPS:
        if cmd not in lines:
            continue
        fig = lines[cmd].get(name)
        if fig is None:
            notes.append(f"gour: urbench {cmd} printed no {name} line")
        elif fig[1] != unit:
            notes.append(f"gour: {name} is in {fig[1]}, want {unit}")
        else:
            figs[key] = fig[0]
    if gemm:
        if has_blas(urbench):
            out = run_urbench(urbench, ["blas", "-backend", "cublas", "-device", device, "-types", "float32",
                                        "-n", str(GEMM_N), "-vs-n", "0", "-small", "0", "-rounds", "5"])
            v = parse_blas(out)
            if v is None:
                notes.append("gour: urbench blas printed no blas.gemm line for float32 at 8192")
            else:
                figs["gemm"] = v
        else:
            notes.append("gour: this urbench has no blas command: GEMM left out")
    return figs, notes


# ---------------------------------------------------------------- peer side


def median_of_rounds(fn, reps, rounds, sync, warmup=2):
    """Seconds per call of fn: the median over rounds of (loop of reps calls, then sync)."""
    for _ in range(warmup):
        fn()
    sync()
    times = []
    for _ in range(rounds):
        sync()
        t0 = time.perf_counter()
        for _ in range(reps):
            fn()
        sync()
        times.append((time.perf_counter() - t0) / reps)
    return statistics.median(times)


def cupy_bench(dev, rounds, gemm, probe=False):
    os.environ.setdefault("CUPY_TF32", "0")
    import cupy as cp
    import numpy as np

    try:
        count = cp.cuda.runtime.getDeviceCount()
    except Exception as e:  # no driver, no device
        raise Skip(f"CuPy sees no CUDA device: {e}")
    if dev >= count:
        raise Skip(f"CuPy sees {count} CUDA devices, not cuda:{dev}")
    cp.cuda.Device(dev).use()
    sync = cp.cuda.Device(dev).synchronize
    emit({"version": f"CuPy {cp.__version__}, CUDA runtime {cp.cuda.runtime.runtimeGetVersion()}"})
    if probe:
        return
    axpy = cp.ElementwiseKernel("float32 x, float32 y, float32 a", "float32 z", "z = a * x + y", "peers_axpy")
    a = np.float32(A)

    x = (cp.arange(AXPY_N, dtype=cp.int32) % 8).astype(cp.float32)
    y = cp.ones(AXPY_N, dtype=cp.float32)
    out = cp.empty_like(x)
    t = median_of_rounds(lambda: axpy(x, y, a, out), BANDWIDTH_OPS, rounds, sync)
    check("CuPy axpy", out[:16].get(), [A * (i % 8) + 1 for i in range(16)])
    emit_fig("axpy", 12 * AXPY_N / t / 1e9)
    t = median_of_rounds(lambda: cp.copyto(out, x), BANDWIDTH_OPS, rounds, sync)
    check("CuPy copy", out[-16:].get(), x[-16:].get())
    emit_fig("copy", 8 * AXPY_N / t / 1e9)
    del x, y, out
    cp.get_default_memory_pool().free_all_blocks()

    v = cp.ones(SUM_N, dtype=cp.float32)
    res = [None]

    def total():
        res[0] = cp.sum(v)
    t = median_of_rounds(total, BANDWIDTH_OPS, rounds, sync)
    check("CuPy sum", [float(res[0])], [float(SUM_N)], rel=1e-3)
    emit_fig("sum", 4 * SUM_N / t / 1e9)
    del v, res
    cp.get_default_memory_pool().free_all_blocks()

    xs = (cp.arange(SMALL_N, dtype=cp.int32) % 8).astype(cp.float32)
    ys = cp.ones(SMALL_N, dtype=cp.float32)
    outs = cp.empty_like(xs)
    t = median_of_rounds(lambda: axpy(xs, ys, a, outs), SMALL_CALLS, rounds, sync)
    check("CuPy small op", outs[:16].get(), [A * (i % 8) + 1 for i in range(16)])
    emit_fig("small", t * 1e6)

    def pool():
        m = cp.empty(POOL_BYTES, dtype=cp.uint8)
        del m
    emit_fig("pool", median_of_rounds(pool, POOL_PAIRS, rounds, sync) * 1e6)

    if gemm:
        ga = cp.random.random((GEMM_N, GEMM_N), dtype=cp.float32) - 0.5
        gb = cp.random.random((GEMM_N, GEMM_N), dtype=cp.float32) - 0.5
        gc = cp.empty((GEMM_N, GEMM_N), dtype=cp.float32)
        t = median_of_rounds(lambda: cp.matmul(ga, gb, out=gc), 10, 5, sync, warmup=3)
        emit_fig("gemm", 2 * GEMM_N ** 3 / t / 1e12)


def torch_bench(dev, rounds, gemm, probe=False):
    import torch

    if not torch.cuda.is_available():
        raise Skip(f"PyTorch {torch.__version__} sees no CUDA device (torch.cuda.is_available() is False)")
    if dev >= torch.cuda.device_count():
        raise Skip(f"PyTorch sees {torch.cuda.device_count()} CUDA devices, not cuda:{dev}")
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    d = torch.device(f"cuda:{dev}")
    torch.cuda.set_device(d)

    def sync():
        torch.cuda.synchronize(d)
    emit({"version": f"PyTorch {torch.__version__}, CUDA {torch.version.cuda}"})
    if probe:
        return

    x = (torch.arange(AXPY_N, dtype=torch.int32, device=d) % 8).float()
    y = torch.ones(AXPY_N, dtype=torch.float32, device=d)
    out = torch.empty_like(x)
    t = median_of_rounds(lambda: torch.add(y, x, alpha=A, out=out), BANDWIDTH_OPS, rounds, sync)
    check("PyTorch axpy", out[:16].tolist(), [A * (i % 8) + 1 for i in range(16)])
    emit_fig("axpy", 12 * AXPY_N / t / 1e9)
    t = median_of_rounds(lambda: out.copy_(x), BANDWIDTH_OPS, rounds, sync)
    check("PyTorch copy", out[-16:].tolist(), x[-16:].tolist())
    emit_fig("copy", 8 * AXPY_N / t / 1e9)
    del x, y, out
    torch.cuda.empty_cache()

    v = torch.ones(SUM_N, dtype=torch.float32, device=d)
    res = [None]

    def total():
        res[0] = torch.sum(v)
    t = median_of_rounds(total, BANDWIDTH_OPS, rounds, sync)
    check("PyTorch sum", [res[0].item()], [float(SUM_N)], rel=1e-3)
    emit_fig("sum", 4 * SUM_N / t / 1e9)
    del v, res
    torch.cuda.empty_cache()

    xs = (torch.arange(SMALL_N, dtype=torch.int32, device=d) % 8).float()
    ys = torch.ones(SMALL_N, dtype=torch.float32, device=d)
    outs = torch.empty_like(xs)
    t = median_of_rounds(lambda: torch.add(ys, xs, alpha=A, out=outs), SMALL_CALLS, rounds, sync)
    check("PyTorch small op", outs[:16].tolist(), [A * (i % 8) + 1 for i in range(16)])
    emit_fig("small", t * 1e6)

    def pool():
        m = torch.empty(POOL_BYTES, dtype=torch.uint8, device=d)
        del m
    emit_fig("pool", median_of_rounds(pool, POOL_PAIRS, rounds, sync) * 1e6)

    if gemm:
        ga = torch.rand(GEMM_N, GEMM_N, device=d) - 0.5
        gb = torch.rand(GEMM_N, GEMM_N, device=d) - 0.5
        gc = torch.empty(GEMM_N, GEMM_N, device=d)
        t = median_of_rounds(lambda: torch.matmul(ga, gb, out=gc), 10, 5, sync, warmup=3)
        emit_fig("gemm", 2 * GEMM_N ** 3 / t / 1e12)


class Skip(Exception):
    """A framework that cannot run here, and why."""


def check(what, got, want, rel=0.0):
    for g, w in zip(got, want):
        if abs(g - w) > rel * abs(w):
            raise RuntimeError(f"{what}: got {list(got)}, want {list(want)}")


def emit(obj):
    print(json.dumps(obj), flush=True)


def emit_fig(key, value):
    emit({"op": key, "value": value})


def worker(fw, dev, rounds, gemm, probe):
    """The body of a framework's process: JSON lines on stdout."""
    try:
        {"cupy": cupy_bench, "torch": torch_bench}[fw](dev, rounds, gemm, probe)
    except Skip as e:
        emit({"skip": str(e)})
    return 0


def missing(module):
    """Why a framework cannot be imported, or None where it can be found."""
    try:
        if importlib.util.find_spec(module) is None:
            return f"not installed (python3 -c 'import {module}' fails)"
    except (ImportError, ValueError) as e:
        return f"not importable: {e}"
    return None


def peer_figures(fw, dev, rounds, gemm, probe=False):
    """Run a framework's process: its figures, its version, and why it was skipped (or None).
    With probe, the process only finds its device and says its version."""
    cmd = [sys.executable, os.path.abspath(__file__), "--worker", fw, "--device", f"cuda:{dev}", "--rounds", str(rounds)]
    if gemm:
        cmd.append("--gemm")
    if probe:
        cmd.append("--probe")
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=dict(os.environ, PYTHONUNBUFFERED="1"))
    figs, version, skip = {}, "", None
    for line in p.stdout.splitlines():
        try:
            obj = json.loads(line)
        except ValueError:
            continue
        if "op" in obj:
            figs[obj["op"]] = obj["value"]
        elif "version" in obj:
            version = obj["version"]
        elif "skip" in obj:
            skip = obj["skip"]
    if p.returncode != 0 and skip is None:
        skip = f"its process failed (exit {p.returncode}): {p.stderr.strip()[-1500:]}"
    return figs, version, skip


# ---------------------------------------------------------------- the table


def ratio(gour, peer, higher):
    """gour's speed over the peer's: above 1, gour is faster."""
    if gour is None or peer is None or gour <= 0 or peer <= 0:
        return None
    return gour / peer if higher else peer / gour


def fmt(v):
    if v is None:
        return "–"
    if v >= 100:
        return f"{v:.0f}"
    if v >= 10:
        return f"{v:.1f}"
    return f"{v:.2f}"


def table(gour, peers, names, gemm):
    """The comparison as lines of text: gour, each peer, and the ratios."""
    head = ["operation", "unit", "gour"] + names + [f"gour/{n}" for n in names] + (["gour/best"] if len(names) > 1 else [])
    rows = []
    for key, title, unit, higher, _ in OPS:
        if key == "gemm" and not gemm:
            continue
        g = gour.get(key)
        row = [title, unit, fmt(g)]
        vals = [p.get(key) for p in peers]
        row += [fmt(v) for v in vals]
        rs = [ratio(g, v, higher) for v in vals]
        row += [("–" if r is None else f"{r:.2f}×") for r in rs]
        if len(names) > 1:
            best = [v for v in vals if v is not None and v > 0]
            b = None if not best else (max(best) if higher else min(best))
            r = ratio(g, b, higher)
            row.append("–" if r is None else f"{r:.2f}×")
        rows.append(row)
    widths = [max(len(r[i]) for r in [head] + rows) for i in range(len(head))]
    out = []
    for r in [head] + rows:
        out.append("  ".join(c.ljust(widths[i]) if i < 2 else c.rjust(widths[i]) for i, c in enumerate(r)).rstrip())
    return out


def med(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def main(argv=None):
    ap = argparse.ArgumentParser(description="gour beside CuPy and PyTorch on one NVIDIA GPU", formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    ap.add_argument("--device", default="cuda:0", help="the GPU, as gour's selector names it (cuda:N); the peers use CUDA device N")
    ap.add_argument("--rounds", type=int, default=15, help="rounds of each figure (default 15)")
    ap.add_argument("--runs", type=int, default=1, help="times gour and the peers take turns; each figure is the median of the runs (default 1)")
    ap.add_argument("--gemm", action="store_true", help="also SGEMM 8192 (gour through urbench blas -backend cublas)")
    ap.add_argument("--urbench", default="bin/urbench", help="gour's urbench (default bin/urbench)")
    ap.add_argument("--worker", choices=[f for f, _ in FRAMEWORKS], help=argparse.SUPPRESS)
    ap.add_argument("--probe", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--self-test", action="store_true", help="test the parsing and the table, without a GPU, and exit")
    args = ap.parse_args(argv)
    m = re.fullmatch(r"cuda:(\d+)", args.device)
    if not m:
        ap.error(f"--device {args.device!r}: want cuda:N")
    dev = int(m.group(1))
    if args.rounds < 1 or args.runs < 1:
        ap.error("--rounds and --runs must be at least 1")
    if args.self_test:
        return self_test()
    if args.worker:
        return worker(args.worker, dev, args.rounds, args.gemm, args.probe)

    present, skipped = [], {}
    for mod, name in FRAMEWORKS:
        why = missing(mod)
        if why is None:
            _, version, why = peer_figures(mod, dev, args.rounds, args.gemm, probe=True)
        if why:
            print(f"peers: {name} skipped: {why}")
            skipped[mod] = why
        else:
            print(f"peers: {name}: {version}")
            present.append((mod, name))
    if not present:
        print("peers: neither CuPy nor PyTorch can run here: nothing to compare gour with; nothing run")
        return 0
    if not os.access(args.urbench, os.X_OK):
        print(f"peers: no {args.urbench}: build it where Go is (CGO_ENABLED=0 go build -o bin/ ./cmd/urbench)", file=sys.stderr)
        return 1

    gour_runs, peer_runs, notes = [], {mod: [] for mod, _ in present}, []
    versions = {}
    for run in range(args.runs):
        print(f"== run {run + 1} of {args.runs}: gour (urbench, {args.device})")
        figs, n = gour_figures(args.urbench, args.device, args.rounds, args.gemm)
        gour_runs.append(figs)
        notes += [x for x in n if x not in notes]
        for mod, name in present:
            print(f"== run {run + 1} of {args.runs}: {name}")
            figs, version, skip = peer_figures(mod, dev, args.rounds, args.gemm)
            if skip:
                notes.append(f"{name}, run {run + 1}: {skip}")
                print(f"peers: {name}, run {run + 1}: {skip}")
                continue
            versions[mod] = version
            peer_runs[mod].append(figs)
            for key, title, unit, _, _ in OPS:
                if key in figs:
                    print(f"{name:8s} {key:6s} {fmt(figs[key]):>8s} {unit}")
    keys = [k for k, *_ in OPS]
    gour = {k: med([r.get(k) for r in gour_runs]) for k in keys}
    cols = [(mod, name) for mod, name in present if peer_runs[mod]]
    peers = [{k: med([r.get(k) for r in peer_runs[mod]]) for k in keys} for mod, _ in cols]
    print()
    print(f"== gour beside {' and '.join(versions[m] for m, _ in cols) or 'no peer'} on {args.device}, "
          f"{args.rounds} rounds, median of {args.runs} run(s)")
    for line in table(gour, peers, [name for _, name in cols], args.gemm):
        print(line)
    print("ratio: gour's speed over the peer's (above 1: gour faster; for µs, the peer's time over gour's)")
    for mod, name in FRAMEWORKS:
        if mod in skipped:
            print(f"note: {name} skipped: {skipped[mod]}")
    for n in notes:
        print("note:", n)
    return 0


# ---------------------------------------------------------------- self-test

COMPUTE_SAMPLE = """cuda:0 NVIDIA H100 80GB HBM3
15 rounds; y = a*x + y (a = 2); -n 67108864, -reduce-n 268435456, -cpu-n 16777216, 10000 calls per round
transform.axpy         2728.123 GB/s (2700.000–2740.500)  67108864 elements resident, 12 bytes each, no transfer; /copy.d2d 1.145 (target ≥ 0.9)
copy.d2d               2383.000 GB/s (2380.000–2390.000)  compute.Copy of as many, 8 bytes each
reduce.sum             2759.400 GB/s (2750.000–2770.000)  268435456 float32 resident, 4 bytes each, sum checked; /reduce.read 0.950 (target ≥ 0.8)
reduce.device          2981.200 GB/s (2970.000–2990.000)  ReduceAxis of the whole array, the sum left on the device, 8 a round then one wait; /reduce.read 0.990
transform.dispatch        5.700 µs (5.600–5.900)  a Transform of 1024 elements, per call; /dispatch.prepared 1.500 (target ≤ 2)
overlap.both/sum          0.550  (0.500–0.600)  both at once
"""

MEMORY_SAMPLE = """cuda:0 NVIDIA H100 80GB HBM3
15 rounds; allocations and launches: 2000 per round; copies: 16777216 bytes
alloc.pool (gour)         0.580 µs (0.570–0.600)  1 MiB AllocAsync + FreeAsync
copy.pinned.h2d          52.000 GB/s (51.000–53.000)
"""

BLAS_SAMPLE = """# device="NVIDIA H100 80GB HBM3" backend=cublas rounds=5
blas.gemm backend=cublas type=float32 n=8192 tflops=51.20 ms=21.475 min_ms=21.400 max_ms=21.600
blas.gemm backend=cublas type=float64 n=8192 tflops=50.10 ms=21.900 min_ms=21.800 max_ms=22.000
"""


def self_test():
    import unittest

    class T(unittest.TestCase):
        def test_parse_compute(self):
            f = parse_urbench(COMPUTE_SAMPLE)
            self.assertEqual(f["transform.axpy"], (2728.123, "GB/s"))
            self.assertEqual(f["copy.d2d"], (2383.0, "GB/s"))
            self.assertEqual(f["reduce.sum"][0], 2759.4)
            self.assertEqual(f["reduce.device"], (2981.2, "GB/s"))
            self.assertEqual(f["transform.dispatch"], (5.7, "µs"))
            self.assertEqual(f["overlap.both/sum"], (0.55, ""))

        def test_parse_memory(self):
            self.assertEqual(parse_urbench(MEMORY_SAMPLE)["alloc.pool (gour)"], (0.58, "µs"))

        def test_parse_blas(self):
            self.assertEqual(parse_blas(BLAS_SAMPLE), 51.2)
            self.assertIsNone(parse_blas(BLAS_SAMPLE, n=4096))

        def test_ratio(self):
            self.assertAlmostEqual(ratio(2728, 2966, True), 2728 / 2966)
            self.assertAlmostEqual(ratio(5.7, 10.3, False), 10.3 / 5.7)  # gour's µs lower: faster
            self.assertIsNone(ratio(None, 1, True))
            self.assertIsNone(ratio(1, 0, True))

        def test_table(self):
            gour = {"axpy": 2728, "copy": 2383, "sum": 2759, "small": 5.7, "pool": 0.58}
            lines = table(gour, [{"axpy": 2478, "small": 10.3, "pool": 0.89}, {"axpy": 2966, "small": 9.6, "pool": 4.05}], ["CuPy", "PyTorch"], False)
            self.assertIn("gour/best", lines[0])
            axpy = next(l for l in lines if l.startswith("axpy"))
            self.assertIn("1.10×", axpy)  # over CuPy
            self.assertIn("0.92×", axpy)  # over PyTorch, the best
            small = next(l for l in lines if l.startswith("small op"))
            self.assertTrue(small.endswith("1.68×"), small)  # 9.6 / 5.7 against the faster peer
            copy = next(l for l in lines if l.startswith("copy"))
            self.assertIn("–", copy)
            self.assertFalse(any(l.startswith("SGEMM") for l in lines))

        def test_main(self):
            import contextlib
            import io
            import tempfile
            g = globals()
            saved = {k: g[k] for k in ("missing", "peer_figures", "gour_figures")}
            canned = {"cupy": {"axpy": 2478, "copy": 2934, "sum": 2993, "small": 10.3, "pool": 0.89},
                      "torch": {"axpy": 2966, "sum": 2964, "small": 9.6, "pool": 4.05}}
            calls = []

            def fake_peer(fw, dev, rounds, gemm, probe=False):
                calls.append((fw, probe))
                if fw == "torch" and not probe and len([c for c in calls if c == ("torch", False)]) > 1:
                    return {}, "", "its process failed (exit 1): out of memory"
                return ({} if probe else canned[fw]), fw + " 1.0", None
            g["missing"] = lambda mod: None
            g["peer_figures"] = fake_peer
            g["gour_figures"] = lambda *a: ({"axpy": 2728, "copy": 2383, "sum": 2759, "small": 5.7, "pool": 0.58}, [])
            try:
                with tempfile.NamedTemporaryFile() as exe:
                    os.chmod(exe.name, 0o755)
                    out = io.StringIO()
                    with contextlib.redirect_stdout(out):
                        rc = main(["--urbench", exe.name, "--runs", "2"])
            finally:
                g.update(saved)
            text = out.getvalue()
            self.assertEqual(rc, 0)
            self.assertIn("gour/CuPy", text)
            self.assertIn("note: PyTorch, run 2: its process failed", text)
            axpy = next(l for l in text.splitlines() if l.startswith("axpy"))
            self.assertTrue(axpy.endswith("0.92×"), axpy)  # against PyTorch's first run, the best

        def test_missing(self):
            self.assertIn("not installed", missing("no_such_framework_here"))
            self.assertIsNone(missing("json"))

    suite = unittest.defaultTestLoader.loadTestsFromTestCase(T)
    return 0 if unittest.TextTestRunner(verbosity=2).run(suite).wasSuccessful() else 1


if __name__ == "__main__":
    sys.exit(main())
