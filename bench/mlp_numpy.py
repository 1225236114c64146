#!/usr/bin/python3
"""The programs of bench/mlp_bench.cpp in NumPy (the same data, bit for bit), for the NumPy column of
docs/performance.md. Needs python3-numpy (Debian; not a dependency of xlet). Threads: set
OPENBLAS_NUM_THREADS=1 or 2 before running. Prints the loss (to compare with the C++ runs) and the
median of 7 rounds of the best of 20 calls, in microseconds."""
import time
import numpy as np

def gen(n, seed, lo=-1.0, hi=1.0):
    i = np.arange(n, dtype=np.uint64)
    m32 = np.uint64(0xFFFFFFFF)
    x = ((i * np.uint64(0x9E3779B1)) & m32) ^ np.uint64((seed * 0x85EBCA77 + 0x165667B1) & 0xFFFFFFFF)
    x ^= x >> np.uint64(15); x = (x * np.uint64(0x2C1B3C6D)) & m32
    x ^= x >> np.uint64(12); x = (x * np.uint64(0x297A2D39)) & m32
    x ^= x >> np.uint64(15)
    u = (x >> np.uint64(8)).astype(np.float32) * np.float32(1.0 / 16777216.0)
    return (np.float32(lo) + np.float32(hi - lo) * u).astype(np.float32)

B, In, Hid, Out, N, D = 256, 784, 512, 10, 512, 64
w1 = (0.05 * gen(In * Hid, 1)).astype(np.float32).reshape(In, Hid)
b1 = (0.1 * gen(Hid, 2)).astype(np.float32)
w2 = (0.05 * gen(Hid * Out, 3)).astype(np.float32).reshape(Hid, Out)
b2 = (0.1 * gen(Out, 4)).astype(np.float32)
x = gen(B * In, 5).reshape(B, In)
labels = (np.arange(B) % 10).astype(np.int32)
q, k, v = (gen(N * D, s).reshape(N, D) for s in (6, 7, 8))

def mlp():
    h = np.maximum(x @ w1 + b1, np.float32(0))
    z = h @ w2 + b2
    m = z.max(axis=1, keepdims=True)
    lse = np.log(np.exp(z - m).sum(axis=1)) + m[:, 0]
    onehot = np.arange(Out)[None, :] == labels[:, None]
    return (lse - np.where(onehot, z, np.float32(0)).sum(axis=1)).sum() / np.float32(B)

def attention():
    s = (q @ k.T) * np.float32(0.125)
    e = np.exp(s - s.max(axis=1, keepdims=True))
    return (e @ v) / e.sum(axis=1, keepdims=True)

def timed(f):
    rounds = []
    for _ in range(7):
        best = float('inf')
        for _ in range(20):
            t0 = time.perf_counter(); f(); best = min(best, time.perf_counter() - t0)
        rounds.append(best)
    return sorted(rounds)[3] * 1e6

print(f"numpy {np.__version__}: mlp loss {mlp():.6f}")
print(f"BM_mlp/numpy {timed(mlp):.0f} us")
print(f"BM_attention/numpy {timed(attention):.0f} us")
