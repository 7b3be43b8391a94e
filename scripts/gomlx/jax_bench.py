#!/usr/bin/env python3
"""GoMLX's backend benchmarks, the same cases timed with JAX.

The cases are those of github.com/gomlx/compute v0.1.35's
support/backendtest.RunAllBenchmarks (benchmarks.go, bench_dotgeneral.go,
bench_convgeneral.go): the same operations, shapes and dtypes, and under the
same names, so that scripts/gomlx/compare.py can put each beside gour's
(gomlx/bench_test.go, BenchmarkGour) and GoMLX's Go backend's
(BenchmarkGoBackend). TrainStep/... is the training step of
gomlx/train_test.go (BenchmarkTrainStep).

What is timed is what the Go suite times: a jitted function called on
inputs already on the device, its outputs dropped, with no transfer. Each
case is called 3 times first (compilation, warm-up), then:

  * by default (pipelined), in rounds of n calls each followed by one
    block_until_ready of the last output: a round's time over n, the
    device's throughput. This matches the Go suite on gour, whose Execute
    enqueues and returns.
  * with --sync, every call is blocked on: each call's time to its end,
    as BenchmarkGour with GOUR_BENCH_SYNC=1.

The median of --rounds rounds is reported, n chosen from a first timing so
that the rounds take about --min-time seconds in all. One line per case,
in the Go benchmark format:

  BenchmarkJAX/<case name>  <calls>  <ns> ns/op

Where a case fails (a dtype or operation unsupported on this device), a
line "# SKIP <name>: <error>" is printed instead.

Float32 products and convolutions are computed in float32 by default
(jax_default_matmul_precision "highest"), as gour and GoMLX's Go backend
compute them; --precision default lets XLA use TF32 on GPUs that have it.

Usage: python3 jax_bench.py [--sync] [--min-time 0.5] [--rounds 7]
                            [--filter REGEX] [--precision highest|default]
                            [--list]
"""

import argparse
import math
import re
import sys
import time

# Set by main() when JAX is imported: --list needs neither.
jax = jnp = lax = np = None

SPACE = re.compile(r"\s")


def go_name(name):
    """The name as Go's testing package reports it (spaces made '_')."""
    return SPACE.sub("_", name)


# ---------------------------------------------------------------- data


def rand(dtype, shape, rng):
    """Uniform in [-1, 1), as backendtest's randomFloat32 and the like."""
    x = jnp.asarray(rng.uniform(-1, 1, size=shape).astype(np.float32)).astype(dtype)
    if x.dtype != jnp.dtype(dtype):  # float64 without x64: a SKIP, not a mislabelled float32
        raise TypeError(f"{jnp.dtype(dtype)} arrays are {x.dtype} here")
    return x


def dtype_of(name):
    return {
        "Float32": jnp.float32,
        "Float64": jnp.float64,
        "Float16": jnp.float16,
        "BFloat16": jnp.bfloat16,
    }[name]


# A case is (name, make), make(rng) returning (fn, args): fn is jitted and
# called on args, already on the device.


def softmax_cases():
    sizes = [
        ("8x64_axis1", (8, 64), 1),
        ("32x128_axis1", (32, 128), 1),
        ("64x512_axis1", (64, 512), 1),
        ("8x16x64_axis2", (8, 16, 64), 2),
        ("12x128x128_axis2", (12, 128, 128), 2),
        ("4x8x32x128_axis3", (4, 8, 32, 128), 3),
    ]

    def fused(axis):
        return lambda x: jax.nn.softmax(x, axis=axis)

    def decomposed(axis):
        def f(x):
            e = jnp.exp(x - jnp.max(x, axis=axis, keepdims=True))
            return e / jnp.sum(e, axis=axis, keepdims=True)

        return f

    for dt in ("Float32", "Float16", "BFloat16"):
        for name, dims, axis in sizes:
            for kind, fn in (("Fused", fused(axis)), ("Decomposed", decomposed(axis))):
                yield (
                    f"Softmax/{dt}/{kind}/{name}",
                    lambda rng, dt=dt, dims=dims, fn=fn: (fn, [rand(dtype_of(dt), dims, rng)]),
                )


def sdpa_cases():
    configs = [
        ("B1_H12_S128_D64_BHSD", 1, 12, 12, 128, 64, "BHSD", False),
        ("B1_H12_S128_D64_BSHD", 1, 12, 12, 128, 64, "BSHD", False),
        ("B8_H12_S128_D64_BHSD", 8, 12, 12, 128, 64, "BHSD", False),
        ("B1_H6_S384_D64_BHSD", 1, 6, 6, 384, 64, "BHSD", False),
        ("B4_H8_KV2_S256_D128_Causal_BHSD", 4, 8, 2, 256, 128, "BHSD", True),
    ]
    for name, b, h, kvh, s, d, layout, causal in configs:
        for dt in ("Float32", "Float16", "BFloat16"):

            def make(rng, b=b, h=h, kvh=kvh, s=s, d=d, layout=layout, causal=causal, dt=dt):
                if layout == "BHSD":
                    qd, kd = (b, h, s, d), (b, kvh, s, d)
                else:
                    qd, kd = (b, s, h, d), (b, s, kvh, d)

                def f(q, k, v):
                    # jax.nn.dot_product_attention takes [batch, seq, heads, dim]
                    # (BSHD), grouped-query heads included.
                    if layout == "BHSD":
                        q, k, v = (jnp.swapaxes(t, 1, 2) for t in (q, k, v))
                    out = jax.nn.dot_product_attention(q, k, v, scale=1.0 / 8.0, is_causal=causal)
                    return jnp.swapaxes(out, 1, 2) if layout == "BHSD" else out

                t = dtype_of(dt)
                return f, [rand(t, qd, rng), rand(t, kd, rng), rand(t, kd, rng)]

            yield f"ScaledDotProductAttention/{dt}/{name}", make


def activation(name):
    """compute.ActivationType's definitions (compute/ops_fused.go)."""
    return {
        "Relu": jax.nn.relu,
        "Sigmoid": jax.nn.sigmoid,
        "HardSigmoid": lambda x: jnp.clip(0.2 * x + 0.5, 0, 1),
        "LeakyRelu": lambda x: jnp.where(x >= 0, x, 0.3 * x),
        "Selu": jax.nn.selu,
        "Silu": jax.nn.silu,
        "HardSwish": lambda x: x * jnp.clip(x / 6 + 0.5, 0, 1),
        "Tanh": jnp.tanh,
        "GeluExact": lambda x: jax.nn.gelu(x, approximate=False),
        "Gelu": lambda x: jax.nn.gelu(x, approximate=False),
        "GeluApprox": lambda x: jax.nn.gelu(x, approximate=True),
        "SwiGLU": lambda x: jax.nn.silu(x[..., : x.shape[-1] // 2]) * x[..., x.shape[-1] // 2 :],
        "None": lambda x: x,
    }[name]


def fused_activation_cases():
    acts = [
        "Relu", "Sigmoid", "HardSigmoid", "LeakyRelu", "Selu", "Silu",
        "HardSwish", "Tanh", "GeluExact", "GeluApprox", "SwiGLU",
    ]
    for sz, dims in (("Small_512", (512,)), ("Large_65536", (64, 1024))):
        for act in acts:
            for dt in ("Float32", "Float64", "BFloat16", "Float16"):

                def make(rng, dims=dims, act=act, dt=dt):
                    d = list(dims)
                    if act == "SwiGLU":
                        d[-1] *= 2
                    return activation(act), [rand(dtype_of(dt), d, rng)]

                yield f"FusedActivation/{sz}/{act}/{dt}", make


def gelu_cases():
    def decomposed(x):
        return x * 0.5 * (1 + lax.erf(x * (1 / math.sqrt(2))))

    for sz, dims in (("512", (512,)), ("4096", (4096,)), ("32x1024", (32, 1024)), ("64x4096", (64, 4096))):
        yield f"Gelu/Fused/{sz}", lambda rng, dims=dims: (activation("Gelu"), [rand(jnp.float32, dims, rng)])
        yield f"Gelu/Decomposed/{sz}", lambda rng, dims=dims: (decomposed, [rand(jnp.float32, dims, rng)])


def layernorm_cases():
    sizes = [
        ("8x64_axis1", (8, 64), 1),
        ("32x256_axis1", (32, 256), 1),
        ("64x768_axis1", (64, 768), 1),
        ("8x16x64_axis2", (8, 16, 64), 2),
    ]
    for name, dims, axis in sizes:

        def make(rng, dims=dims, axis=axis):
            def f(x, gamma, beta):
                mean = jnp.mean(x, axis=axis, keepdims=True)
                diff = x - mean
                var = jnp.mean(diff * diff, axis=axis, keepdims=True)
                shape = [1] * len(dims)
                shape[axis] = dims[axis]
                return diff * lax.rsqrt(var + 1e-5) * gamma.reshape(shape) + beta.reshape(shape)

            n = dims[axis]
            return f, [rand(jnp.float32, dims, rng), rand(jnp.float32, (n,), rng), rand(jnp.float32, (n,), rng)]

        # XLA fuses the two alike: one function for both names.
        yield f"LayerNorm/Fused/{name}", make
        yield f"LayerNorm/Decomposed/{name}", make


def dense_fn(act):
    a = activation(act)
    return lambda x, w, b: a(jnp.dot(x, w) + b)


def dense_cases():
    sizes = [
        ("adult-demo/128x69x4", 128, 69, 4),
        ("adult-demo/128x4x1", 128, 4, 1),
        ("adult-demo/25x69x4", 25, 69, 4),
        ("adult-demo/49x69x4", 49, 69, 4),
        ("standard/1x64x64", 1, 64, 64),
        ("standard/8x128x256", 8, 128, 256),
        ("standard/32x512x1024", 32, 512, 1024),
        ("all-MiniLM/416x384x1152", 416, 384, 1152),
        ("bge-base/128x768x768", 128, 768, 768),
        ("bge-base/512x768x768", 512, 768, 768),
        ("bge-base/128x768x3072", 128, 768, 3072),
        ("large/1024x1024x1024", 1024, 1024, 1024),
    ]
    for name, m, k, n in sizes:

        def make(rng, act, dt, m=m, k=k, n=n):
            t = dtype_of(dt)
            return dense_fn(act), [rand(t, (m, k), rng), rand(t, (k, n), rng), rand(t, (n,), rng)]

        for act in ("None", "Relu", "Gelu", "Silu"):
            yield f"Dense/{name}/Float32/Fused/{act}", lambda rng, act=act, make=make: make(rng, act, "Float32")
        yield f"Dense/{name}/Float32/Decomposed/None", lambda rng, make=make: make(rng, "None", "Float32")
        for dt in ("Float16", "BFloat16"):
            for act in ("None", "Relu"):
                yield f"Dense/{name}/{dt}/Fused/{act}", lambda rng, act=act, dt=dt, make=make: make(rng, act, dt)


NF4 = [
    -1.0, -0.6961928009986877, -0.5250730514526367, -0.39491748809814453,
    -0.28444138169288635, -0.18477343022823334, -0.09105003625154495, 0.0,
    0.07958029955625534, 0.16093020141124725, 0.24611230194568634, 0.33791524171829224,
    0.44070982933044434, 0.5626170039176941, 0.7229568362236023, 1.0,
]


def quantized_dense_cases():
    """FusedQuantizedDense has no JAX counterpart: the weights are
    dequantized in the jitted function (XLA fuses it into one pass) and
    multiplied, as the fused operation computes."""
    for name, m, k, n, g in (
        ("1x64x64_g64", 1, 64, 64, 64),
        ("8x128x256_g128", 8, 128, 256, 128),
        ("32x512x1024_g128", 32, 512, 1024, 128),
    ):
        groups = (n + g - 1) // g

        def block_scales(scales, n=n, g=g):
            # [K, groups] → [K, N]: scale of column j is scales[:, j // g].
            return jnp.repeat(scales, g, axis=1)[:, :n]

        def nf4(x, w, scales, bias, block_scales=block_scales):
            table = jnp.asarray(NF4, jnp.float32)
            return jnp.dot(x, table[(w & 0x0F).astype(jnp.int32)] * block_scales(scales)) + bias

        def linear(x, w, scales, bias, block_scales=block_scales):
            return jnp.dot(x, w.astype(jnp.float32) * block_scales(scales)) + bias

        def decomposed(x, w, expanded, bias):
            return jnp.dot(x, w.astype(jnp.float32) * expanded) + bias

        def weights(rng, dtype, k=k, n=n):
            lo, hi = (0, 256) if dtype == "uint8" else (-128, 128)
            return jnp.asarray(rng.integers(lo, hi, size=(k, n)).astype(dtype))

        def inputs(rng, w, scales_shape, m=m, k=k, n=n):
            return [rand(jnp.float32, (m, k), rng), w, rand(jnp.float32, scales_shape, rng), rand(jnp.float32, (n,), rng)]

        yield f"QuantizedDense/NF4/Fused/{name}", lambda rng, w=weights, i=inputs, gs=(k, groups), f=nf4: (
            f, i(rng, w(rng, "uint8"), gs))
        yield f"QuantizedDense/LinearInt8_2/Fused/{name}", lambda rng, w=weights, i=inputs, gs=(k, groups), f=linear: (
            f, i(rng, w(rng, "int8"), gs))
        yield f"QuantizedDense/Int8/Fused/{name}", lambda rng, w=weights, i=inputs, gs=(k, groups), f=linear: (
            f, i(rng, w(rng, "int8"), gs))
        yield f"QuantizedDense/Int8/Decomposed/{name}", lambda rng, w=weights, i=inputs, ks=(k, n), f=decomposed: (
            f, i(rng, w(rng, "int8"), ks))
        yield f"QuantizedDense/Float32Dense/{name}", lambda rng, m=m, k=k, n=n: (
            dense_fn("None"), [rand(jnp.float32, (m, k), rng), rand(jnp.float32, (k, n), rng), rand(jnp.float32, (n,), rng)])


# (model, name, dtype, lhs dims, rhs dims, lhs contracting, lhs batch,
# rhs contracting, rhs batch), as bench_dotgeneral.go lists them.
def dot_general_table():
    T = []

    def add(model, name, lhs, rhs, lc, rc, lb=(), rb=(), dt="Float32"):
        T.append((model, name, dt, lhs, rhs, lc, lb, rc, rb))

    m = "KA-all-MiniLM-L6-v2"
    add(m, "32x12x13x13_x_32x12x13x32", (32, 12, 13, 13), (32, 12, 13, 32), (3,), (2,), (0, 1), (0, 1))
    add(m, "32x12x13x32_x_32x12x32x13", (32, 12, 13, 32), (32, 12, 32, 13), (3,), (2,), (0, 1), (0, 1))
    add(m, "NonTransposed:32x13x1536_x_1536x384", (32, 13, 1536), (1536, 384), (2,), (0,))
    add(m, "Transposed:32x13x1536_x_384x1536", (32, 13, 1536), (384, 1536), (2,), (1,))
    add(m, "32x13x384_x_384x1152", (32, 13, 384), (384, 1152), (2,), (0,))
    add(m, "32x13x384_x_384x1536", (32, 13, 384), (384, 1536), (2,), (0,))
    add(m, "32x13x384_x_384x384", (32, 13, 384), (384, 384), (2,), (0,))
    add(m, "416x384_x_384x1152", (416, 384), (384, 1152), (1,), (0,))

    m = "BAAI-bge-small-en-v1.5"
    add(m, "Incompatible:10x192x12x192_x_10x192x12x32", (10, 192, 12, 192), (10, 192, 12, 32), (3,), (1,), (0, 2), (0, 2))
    add(m, "Transposed:10x192x1536_x_384x1536", (10, 192, 1536), (384, 1536), (2,), (1,))
    add(m, "Transposed:10x192x384_x_1536x384", (10, 192, 384), (1536, 384), (2,), (1,))
    add(m, "Transposed:10x192x384_x_384x384", (10, 192, 384), (384, 384), (2,), (1,))
    rows = [
        ("16x128x12x128_x_16x128x12x32", (16, 128, 12, 128), (16, 128, 12, 32), (3,), (1,), (0, 2), (0, 2)),
        ("16x128x12x32_x_16x128x12x32", (16, 128, 12, 32), (16, 128, 12, 32), (3,), (3,), (0, 2), (0, 2)),
        ("16x128x1536_x_384x1536", (16, 128, 1536), (384, 1536), (2,), (1,), (), ()),
        ("16x128x384_x_1536x384", (16, 128, 384), (1536, 384), (2,), (1,), (), ()),
        ("16x128x384_x_384x384", (16, 128, 384), (384, 384), (2,), (1,), (), ()),
        ("21x96x12x96_x_21x96x12x32", (21, 96, 12, 96), (21, 96, 12, 32), (3,), (1,), (0, 2), (0, 2)),
        ("21x96x1536_x_384x1536", (21, 96, 1536), (384, 1536), (2,), (1,), (), ()),
        ("21x96x384_x_1536x384", (21, 96, 384), (1536, 384), (2,), (1,), (), ()),
        ("21x96x384_x_384x384", (21, 96, 384), (384, 384), (2,), (1,), (), ()),
        ("256x8x12x8_x_256x8x12x32", (256, 8, 12, 8), (256, 8, 12, 32), (3,), (1,), (0, 2), (0, 2)),
        ("256x8x1536_x_384x1536", (256, 8, 1536), (384, 1536), (2,), (1,), (), ()),
        ("256x8x384_x_1536x384", (256, 8, 384), (1536, 384), (2,), (1,), (), ()),
        ("256x8x384_x_384x384", (256, 8, 384), (384, 384), (2,), (1,), (), ()),
        ("32x64x12x64_x_32x64x12x32", (32, 64, 12, 64), (32, 64, 12, 32), (3,), (1,), (0, 2), (0, 2)),
        ("32x64x1536_x_384x1536", (32, 64, 1536), (384, 1536), (2,), (1,), (), ()),
        ("32x64x384_x_1536x384", (32, 64, 384), (1536, 384), (2,), (1,), (), ()),
        ("32x64x384_x_384x384", (32, 64, 384), (384, 384), (2,), (1,), (), ()),
        ("42x48x12x48_x_42x48x12x32", (42, 48, 12, 48), (42, 48, 12, 32), (3,), (1,), (0, 2), (0, 2)),
        ("42x48x1536_x_384x1536", (42, 48, 1536), (384, 1536), (2,), (1,), (), ()),
        ("42x48x384_x_1536x384", (42, 48, 384), (1536, 384), (2,), (1,), (), ()),
        ("42x48x384_x_384x384", (42, 48, 384), (384, 384), (2,), (1,), (), ()),
        ("64x32x1536_x_384x1536", (64, 32, 1536), (384, 1536), (2,), (1,), (), ()),
        ("64x32x384_x_1536x384", (64, 32, 384), (1536, 384), (2,), (1,), (), ()),
        ("64x32x384_x_384x384", (64, 32, 384), (384, 384), (2,), (1,), (), ()),
        ("8x256x12x256_x_8x256x12x32", (8, 256, 12, 256), (8, 256, 12, 32), (3,), (1,), (0, 2), (0, 2)),
        ("8x256x1536_x_384x1536", (8, 256, 1536), (384, 1536), (2,), (1,), (), ()),
        ("8x256x384_x_1536x384", (8, 256, 384), (1536, 384), (2,), (1,), (), ()),
        ("8x256x384_x_384x384", (8, 256, 384), (384, 384), (2,), (1,), (), ()),
        ("85x24x12x24_x_85x24x12x32", (85, 24, 12, 24), (85, 24, 12, 32), (3,), (1,), (0, 2), (0, 2)),
        ("85x24x1536_x_384x1536", (85, 24, 1536), (384, 1536), (2,), (1,), (), ()),
        ("85x24x384_x_1536x384", (85, 24, 384), (1536, 384), (2,), (1,), (), ()),
        ("85x24x384_x_384x384", (85, 24, 384), (384, 384), (2,), (1,), (), ()),
    ]
    for name, lhs, rhs, lc, rc, lb, rb in rows:
        add(m, name, lhs, rhs, lc, rc, lb, rb)

    m = "adult-demo"
    for kind in ("non-transposed", "transposed"):
        for b in (128, 25, 49):
            for k, n in ((4, 1), (69, 4)):
                if kind == "non-transposed":
                    add(m, f"{kind}/[{b}, {k}]x[{k}, {n}] -> [{b}, {n}]", (b, k), (k, n), (1,), (0,))
                else:
                    # The file names this one's rhs [4, 64]; its shape is [4, 69].
                    rname = f"[{n}, 64]" if (b, k) == (49, 69) else f"[{n}, {k}]"
                    add(m, f"{kind}/[{b}, {k}]x{rname} -> [{b}, {n}]", (b, k), (n, k), (1,), (1,))

    m = "test-cases"
    add(m, "non-transposed/float32/[32, 20]x[20, 64]->[32, 64]", (32, 20), (20, 64), (1,), (0,))
    add(m, "non-transposed/bfloat16/[32, 20]x[20, 64]->[32, 64]", (32, 20), (20, 64), (1,), (0,), dt="BFloat16")

    m = "Large"
    add(m, "NoBatch-Large-1", (1536, 1920), (1920, 1024), (1,), (0,))
    add(m, "NoBatch-Large-2", (1024, 1920), (1920, 1536), (1,), (0,))
    add(m, "NoBatch-Large-3", (2048, 2048), (2048, 2048), (1,), (0,))
    add(m, "Batched-Large-1", (16, 1536, 1920), (16, 1920, 1024), (2,), (1,), (0,), (0,))
    add(m, "Batched-Large-2", (16, 1024, 1920), (16, 1920, 1536), (2,), (1,), (0,), (0,))
    return T


def dot_general_cases():
    for model, name, dt, lhs, rhs, lc, lb, rc, rb in dot_general_table():

        def make(rng, dt=dt, lhs=lhs, rhs=rhs, lc=lc, lb=lb, rc=rc, rb=rb):
            # A bfloat16 product's output is float32, as the Go case asks.
            out = jnp.float32 if dt == "BFloat16" else None

            def f(a, b):
                return lax.dot_general(a, b, ((lc, rc), (lb, rb)), preferred_element_type=out)

            return f, [rand(dtype_of(dt), lhs, rng), rand(dtype_of(dt), rhs, rng)]

        yield f"DotGeneral/{model}/{name}", make


# compute.ConvolveAxesConfig's of bench_convgeneral.go, as (input batch,
# input channels, input spatial), (kernel output channels, kernel input
# channels, kernel spatial), (output batch, output channels, output
# spatial): lax.ConvDimensionNumbers' order.
CONV_AXES = {
    "1DFwd": ((0, 2, 1), (2, 1, 0), (0, 2, 1)),
    "2DFwd": ((0, 3, 1, 2), (3, 2, 0, 1), (0, 3, 1, 2)),
    "2DVJPInput": ((0, 3, 1, 2), (2, 3, 0, 1), (0, 3, 1, 2)),
    "2DVJPKernel": ((3, 0, 1, 2), (3, 0, 1, 2), (2, 3, 0, 1)),
}


def conv_table():
    p1, p11 = ((1, 1),), ((1, 1), (1, 1))
    return [
        ("Small1D", "Fwd:4x64x16_k3x16x32", (4, 64, 16), (3, 16, 32), "1DFwd", (1,), p1),
        ("Small1D", "FwdStrided:8x128x32_k5x32x64_s2", (8, 128, 32), (5, 32, 64), "1DFwd", (2,), ((2, 2),)),
        ("Small2D", "Fwd1x1:4x14x14x32_k1x1x32x64", (4, 14, 14, 32), (1, 1, 32, 64), "2DFwd", (1, 1), ((0, 0), (0, 0))),
        ("Small2D", "Fwd3x3:4x28x28x1_k3x3x1x32", (4, 28, 28, 1), (3, 3, 1, 32), "2DFwd", (1, 1), p11),
        ("Small2D", "Fwd3x3:4x14x14x32_k3x3x32x64", (4, 14, 14, 32), (3, 3, 32, 64), "2DFwd", (1, 1), p11),
        ("Small2D", "Fwd3x3Strided:4x28x28x16_k3x3x16x32_s2", (4, 28, 28, 16), (3, 3, 16, 32), "2DFwd", (2, 2), p11),
        ("Small2D", "VJPInput3x3:4x14x14x64_k3x3x32x64", (4, 14, 14, 64), (3, 3, 32, 64), "2DVJPInput", (1, 1), p11),
        ("Small2D", "VJPKernel3x3:4x14x14x32_v4x14x14x64", (4, 14, 14, 32), (4, 14, 14, 64), "2DVJPKernel", (1, 1), p11),
        ("MNIST-CNN", "Conv1Fwd:32x28x28x1_k3x3x1x32", (32, 28, 28, 1), (3, 3, 1, 32), "2DFwd", (1, 1), p11),
        ("MNIST-CNN", "Conv2Fwd:32x14x14x32_k3x3x32x64", (32, 14, 14, 32), (3, 3, 32, 64), "2DFwd", (1, 1), p11),
        ("MNIST-CNN", "Conv2VJPInput:32x14x14x64_k3x3x32x64", (32, 14, 14, 64), (3, 3, 32, 64), "2DVJPInput", (1, 1), p11),
        ("MNIST-CNN", "Conv1VJPKernel:32x28x28x1_v32x28x28x32", (32, 28, 28, 1), (32, 28, 28, 32), "2DVJPKernel", (1, 1), p11),
        ("MNIST-CNN", "Conv2VJPKernel:32x14x14x32_v32x14x14x64", (32, 14, 14, 32), (32, 14, 14, 64), "2DVJPKernel", (1, 1), p11),
        ("Diffusion-LargeBatch", "Fwd3x3:32x64x64x32_k3x3x32x32", (32, 64, 64, 32), (3, 3, 32, 32), "2DFwd", (1, 1), p11),
        ("Diffusion-LargeBatch", "Fwd3x3:32x32x32x64_k3x3x64x64", (32, 32, 32, 64), (3, 3, 64, 64), "2DFwd", (1, 1), p11),
        ("Diffusion-LargeBatch", "VJPInput3x3:32x64x64x32_k3x3x32x32", (32, 64, 64, 32), (3, 3, 32, 32), "2DVJPInput", (1, 1), p11),
        ("Diffusion-LargeBatch", "VJPKernel3x3:32x64x64x32_v32x64x64x32", (32, 64, 64, 32), (32, 64, 64, 32), "2DVJPKernel", (1, 1), p11),
        ("Diffusion-LargeBatch", "VJPKernel3x3:32x32x32x64_v32x32x32x64", (32, 32, 32, 64), (32, 32, 32, 64), "2DVJPKernel", (1, 1), p11),
        ("Diffusion-LargeBatch", "VJPKernel3x3:32x16x16x96_v32x16x16x96", (32, 16, 16, 96), (32, 16, 16, 96), "2DVJPKernel", (1, 1), p11),
        ("SmallBatch-LargeSpatial", "Fwd3x3:1x256x256x32_k3x3x32x32", (1, 256, 256, 32), (3, 3, 32, 32), "2DFwd", (1, 1), p11),
        ("SmallBatch-LargeSpatial", "Fwd3x3:2x128x128x64_k3x3x64x64", (2, 128, 128, 64), (3, 3, 64, 64), "2DFwd", (1, 1), p11),
        ("SmallBatch-LargeSpatial", "VJPKernel3x3:1x256x256x32_v1x256x256x32", (1, 256, 256, 32), (1, 256, 256, 32), "2DVJPKernel", (1, 1), p11),
        ("SmallBatch-LargeSpatial", "VJPKernel3x3:2x128x128x64_v2x128x128x64", (2, 128, 128, 64), (2, 128, 128, 64), "2DVJPKernel", (1, 1), p11),
    ]


def conv_cases():
    for model, name, ins, ks, axes, strides, padding in conv_table():

        def make(rng, ins=ins, ks=ks, axes=axes, strides=strides, padding=padding):
            dn = lax.ConvDimensionNumbers(*CONV_AXES[axes])

            def f(x, k):
                return lax.conv_general_dilated(x, k, strides, padding, dimension_numbers=dn)

            return f, [rand(jnp.float32, ins, rng), rand(jnp.float32, ks, rng)]

        yield f"ConvGeneral/{model}/{name}", make


# gomlx/train_test.go's BenchmarkTrainStep configurations: (batch, in,
# hidden, learning rate).
TRAIN_CONFIGS = [(128, 16, 64, 0.1), (4096, 256, 1024, 0.01)]


def train_cases():
    """The training step of gomlx/train_test.go (buildTrainStep), its
    gradients written out as there, the parameters donated and fed back.
    Timed as BenchmarkTrainStep times it: pipelined, the last step's
    parameters waited for, whatever --sync says."""
    for b, n_in, hidden, lr in TRAIN_CONFIGS:

        def make(rng, b=b, n_in=n_in, hidden=hidden, lr=lr):
            def step(w1, b1, w2, b2, x, y):
                h = jnp.tanh(x @ w1 + b1)
                diff = h @ w2 + b2 - y
                loss = jnp.sum(diff * diff) / b
                d_out = diff * (2 / b)
                d_h = (d_out @ w2.T) * (1 - h * h)
                return (w1 - lr * (x.T @ d_h), b1 - lr * d_h.sum(0),
                        w2 - lr * (h.T @ d_out), b2 - lr * d_out.sum(0), loss)

            f32 = np.float32
            args = [
                jnp.asarray(rng.normal(0, 1 / math.sqrt(n_in), (n_in, hidden)).astype(f32)),
                jnp.zeros((hidden,), f32),
                jnp.asarray(rng.normal(0, 1 / math.sqrt(hidden), (hidden, 1)).astype(f32)),
                jnp.zeros((1,), f32),
                jnp.asarray(rng.normal(size=(b, n_in)).astype(f32)),
                jnp.asarray(rng.uniform(-1, 1, (b, 1)).astype(f32)),
            ]
            return step, args

        yield f"TrainStep/{b}x{n_in}x{hidden}", make


def all_cases():
    # RunAllBenchmarks' order.
    for gen in (softmax_cases, sdpa_cases, fused_activation_cases, gelu_cases, layernorm_cases,
                dense_cases, quantized_dense_cases, dot_general_cases, conv_cases, train_cases):
        for name, make in gen():
            yield go_name(name), make


# ---------------------------------------------------------------- timing


def block(out):
    jax.block_until_ready(out)


def time_case(fn, args, sync, min_time, rounds):
    """Median time of one call in ns, and the number of calls timed."""
    f = jax.jit(fn)
    for _ in range(3):
        block(f(*args))
    t0 = time.perf_counter()
    block(f(*args))
    one = max(time.perf_counter() - t0, 1e-7)
    n = max(1, int(min_time / rounds / one))
    per_call = []
    for _ in range(rounds):
        if sync:
            for _ in range(n):
                t0 = time.perf_counter()
                block(f(*args))
                per_call.append(time.perf_counter() - t0)
        else:
            t0 = time.perf_counter()
            for _ in range(n):
                out = f(*args)
            block(out)
            per_call.append((time.perf_counter() - t0) / n)
    per_call.sort()
    return per_call[len(per_call) // 2] * 1e9, n * rounds


def time_train(fn, args, min_time, rounds):
    """A training step's median time in ns: pipelined steps, parameters
    donated and fed back, the loss dropped, the last parameters waited for."""
    step = jax.jit(fn, donate_argnums=(0, 1, 2, 3))
    params, data = list(args[:4]), args[4:]
    for _ in range(3):
        *params, _ = step(*params, *data)
    block(params)
    t0 = time.perf_counter()
    *params, _ = step(*params, *data)
    block(params)
    one = max(time.perf_counter() - t0, 1e-7)
    n = max(1, int(min_time / rounds / one))
    per_step = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        for _ in range(n):
            *params, _ = step(*params, *data)
        block(params)
        per_step.append((time.perf_counter() - t0) / n)
    per_step.sort()
    return per_step[len(per_step) // 2] * 1e9, n * rounds


def main():
    global jax, jnp, lax, np
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sync", action="store_true", help="block on every call (latency), not once a round")
    ap.add_argument("--min-time", type=float, default=0.5, help="seconds of timed calls per case")
    ap.add_argument("--rounds", type=int, default=7, help="rounds per case; their median is reported")
    ap.add_argument("--filter", default="", help="only the cases whose name matches this regular expression")
    ap.add_argument("--precision", default="highest", choices=("highest", "high", "default"),
                    help="jax_default_matmul_precision for float32 products and convolutions")
    ap.add_argument("--list", action="store_true", help="print the case names, without JAX")
    a = ap.parse_args()
    pattern = re.compile(a.filter)
    if a.list:
        for name, _ in all_cases():
            if pattern.search(name):
                print(name)
        return

    import jax as _jax
    import jax.numpy as _jnp
    import numpy as _np
    from jax import lax as _lax

    jax, jnp, lax, np = _jax, _jnp, _lax, _np
    try:
        jax.config.update("jax_enable_x64", True)  # the Float64 cases
    except Exception as e:  # they are skipped (rand refuses them)
        print(f"# no float64: {e}", flush=True)
    if a.precision != "default":
        jax.config.update("jax_default_matmul_precision", a.precision)
    dev = jax.devices()[0]
    print(f"# jax {jax.__version__} on {dev.platform}: {dev.device_kind}; "
          f"{'sync' if a.sync else 'pipelined'}; precision {a.precision}", flush=True)

    for name, make in all_cases():
        if not pattern.search(name):
            continue
        rng = np.random.default_rng(0)
        try:
            fn, args = make(rng)
            if name.startswith("TrainStep/"):
                ns, calls = time_train(fn, args, a.min_time, a.rounds)
            else:
                ns, calls = time_case(fn, args, a.sync, a.min_time, a.rounds)
        except Exception as e:  # an unsupported dtype or operation: skip the case
            msg = str(e).splitlines()[0] if str(e) else type(e).__name__
            print(f"# SKIP {name}: {msg[:200]}", flush=True)
            continue
        print(f"BenchmarkJAX/{name}\t{calls}\t{ns:.0f} ns/op", flush=True)


if __name__ == "__main__":
    sys.exit(main())
