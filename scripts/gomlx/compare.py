#!/usr/bin/env python3
"""Puts gour's GoMLX benchmarks beside JAX's and GoMLX's Go backend's.

Reads Go benchmark output (gomlx/bench_test.go's BenchmarkGour and
BenchmarkGoBackend, gomlx/train_test.go's BenchmarkTrainStep) and
scripts/gomlx/jax_bench.py's, which has the same format, and prints one row
per case that gour ran (every case with --all): gour's ns/op, JAX's, the
speed ratio JAX time / gour time (above 1: gour is faster), GoMLX's Go
backend's ns/op and its ratio to gour's. Then, over the cases both gour and
JAX ran: the geometric mean of the ratio, per family and in all, and its
minimum and maximum.

Standard library only. Usage:

  compare.py --gour gour.txt --jax jax.txt [--gobackend go.txt]
             [--gour-procs 16] [--go-procs 16] [--all]

--gour-procs and --go-procs are the -test.cpu (GOMAXPROCS) the Go
benchmarks ran with: Go appends "-N" to a name where N is not 1, and the
suffix is removed only where it is that N (a case's own name may end in
-1, as NoBatch-Large-1 does).
"""

import argparse
import math
import re
import sys

LINE = re.compile(r"^(Benchmark\S+)\s+(\d+)\s+([0-9.]+(?:e[+-]?\d+)?) ns/op")

# Each side's benchmarks, by the prefixes of their full names, and what
# replaces a prefix to make the case names that the three share.
GOUR = [("BenchmarkGour/", ""), ("BenchmarkTrainStep/gour/", "TrainStep/")]
GOBACKEND = [("BenchmarkGoBackend/", ""), ("BenchmarkTrainStep/gobackend/", "TrainStep/")]
JAX = [("BenchmarkJAX/", "")]


def parse(path, procs, prefixes):
    """Case name → ns/op of the benchmarks of a Go benchmark output file
    named by prefixes (the last result of a case run more than once)."""
    results = {}
    suffix = f"-{procs}" if procs and procs != 1 else None
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            m = LINE.match(line)
            if not m:
                continue
            name = m.group(1)
            if suffix and name.endswith(suffix):
                name = name[: -len(suffix)]
            for prefix, repl in prefixes:
                if name.startswith(prefix):
                    name = repl + name[len(prefix):]
                    break
            else:
                continue
            results[name] = float(m.group(3))
    return results


def geomean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")


def fmt_ns(v):
    return "-" if v is None else f"{v:.0f}"


def fmt_ratio(v):
    return "-" if v is None else f"{v:.3g}"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--gour", required=True)
    ap.add_argument("--jax", required=True)
    ap.add_argument("--gobackend")
    ap.add_argument("--gour-procs", type=int, default=0)
    ap.add_argument("--go-procs", type=int, default=0)
    ap.add_argument("--all", action="store_true", help="also the cases gour did not run")
    a = ap.parse_args(argv)

    gour = parse(a.gour, a.gour_procs, GOUR)
    jax = parse(a.jax, 1, JAX)
    gob = parse(a.gobackend, a.go_procs, GOBACKEND) if a.gobackend else {}

    names = list(gour)
    if a.all:
        names += [n for n in list(jax) + list(gob) if n not in gour]
        names = list(dict.fromkeys(names))
    width = max([len(n) for n in names] + [4])
    head = f"{'case':<{width}}  {'gour ns/op':>12}  {'JAX ns/op':>12}  {'JAX/gour':>9}  {'gobackend ns/op':>15}  {'gob/gour':>9}"
    print(head)
    print("-" * len(head))
    ratios, families, gob_ratios = [], {}, []
    for n in names:
        g, j, c = gour.get(n), jax.get(n), gob.get(n)
        r = j / g if g and j else None
        rc = c / g if g and c else None
        if r is not None:
            ratios.append((r, n))
            families.setdefault(n.split("/")[0], []).append(r)
        if rc is not None:
            gob_ratios.append(rc)
        print(f"{n:<{width}}  {fmt_ns(g):>12}  {fmt_ns(j):>12}  {fmt_ratio(r):>9}  {fmt_ns(c):>15}  {fmt_ratio(rc):>9}")

    print()
    print(f"cases: gour {len(gour)}, JAX {len(jax)}, gobackend {len(gob)}; "
          f"gour and JAX both {len(ratios)}; JAX only {len([n for n in jax if n not in gour])}")
    if not ratios:
        print("no case ran on both gour and JAX")
        return 1
    print("speed of gour relative to JAX (JAX time / gour time; above 1: gour faster), geometric mean:")
    for fam, rs in families.items():
        print(f"  {fam:<28} {geomean(rs):8.3g}  ({len(rs)} cases)")
    print(f"  {'all':<28} {geomean([r for r, _ in ratios]):8.3g}  ({len(ratios)} cases)")
    lo, hi = min(ratios), max(ratios)
    print(f"  minimum {lo[0]:.3g} ({lo[1]}), maximum {hi[0]:.3g} ({hi[1]})")
    if gob_ratios:
        print(f"speed of gour relative to GoMLX's Go backend (its time / gour's), geometric mean: "
              f"{geomean(gob_ratios):.3g} ({len(gob_ratios)} cases)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
