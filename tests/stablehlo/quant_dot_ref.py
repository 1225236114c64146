#!/usr/bin/python3
# The expected stored integers of tests/stablehlo/quant_dot.mlir, computed independently of xlet:
#   spec:  the spec's formula on real values, exact (fractions): the operands dequantized,
#          (q - zero_point) * scale, the dot / convolution summed exactly, quantized with
#          round-half-to-even and clamped to the storage range;
#   xlet:  docs/semantics.md "Quantization": acc = sum (a - za)(b - zb) exact in int32, then
#          f = f32(f32(acc) * M) + zr in f32 with M = f32(sa * sb / sr) (the scales as f32, the
#          product and quotient in double), clamped, rounded half to even; a 32-bit result with
#          M = 1 is acc + zr exactly.
# Each case prints both; the module checks the xlet values, and every case here has them equal
# to the spec's (the scales are powers of two) unless the case says otherwise.
# Run: python3 tests/stablehlo/quant_dot_ref.py
import itertools
import struct
from fractions import Fraction


def f32(x):
    return struct.unpack('f', struct.pack('f', x))[0]


def shape_of(t):
    s = []
    while isinstance(t, list):
        s.append(len(t))
        t = t[0] if t else None
    return s


def at(t, idx):
    for i in idx:
        t = t[i]
    return t


def build(shape, f, prefix=()):
    if len(prefix) == len(shape):
        return f(prefix)
    return [build(shape, f, prefix + (i,)) for i in range(shape[len(prefix)])]


def dot_general(a, b, lb, rb, lc, rc, term):
    """sum over the contracting dims of term(a_elem, b_elem, result_index)."""
    sa, sb = shape_of(a), shape_of(b)
    lf = [d for d in range(len(sa)) if d not in lb and d not in lc]
    rf = [d for d in range(len(sb)) if d not in rb and d not in rc]
    out = [sa[d] for d in lb] + [sa[d] for d in lf] + [sb[d] for d in rf]

    def elem(r):
        ia, ib = [0] * len(sa), [0] * len(sb)
        p = 0
        for x, y in zip(lb, rb):
            ia[x] = ib[y] = r[p]
            p += 1
        for d in lf:
            ia[d] = r[p]
            p += 1
        for d in rf:
            ib[d] = r[p]
            p += 1
        s = 0
        for k in itertools.product(*[range(sa[d]) for d in lc]):
            for x, y, v in zip(lc, rc, k):
                ia[x] = ib[y] = v
            s += term(at(a, ia), at(b, ib), r)
        return s

    return build(out, elem)


def conv_nhwc(x, k, pad, groups, term):
    """NHWC x HWIO -> NHWC, stride 1, padding ((lo, hi), (lo, hi)); padding elements are None."""
    n, h, w, c = shape_of(x)
    kh, kw, ci, o = shape_of(k)
    oh, ow = h + pad[0][0] + pad[0][1] - kh + 1, w + pad[1][0] + pad[1][1] - kw + 1
    og = o // groups

    def elem(r):
        b, y, z, f = r
        g = f // og
        s = 0
        for i, j, q in itertools.product(range(kh), range(kw), range(ci)):
            yy, zz = y + i - pad[0][0], z + j - pad[1][0]
            v = x[b][yy][zz][g * ci + q] if 0 <= yy < h and 0 <= zz < w else None
            s += term(v, k[i][j][q][f], r)
        return s

    return build([n, oh, ow, o], elem)


class Q:
    """A quantized type: storage bits / signedness, scales and zero points (per channel), axis."""

    def __init__(self, scales, zps, bits=8, signed=True, axis=None):
        self.scales = [f32(s) for s in (scales if isinstance(scales, list) else [scales])]
        self.zps = zps if isinstance(zps, list) else [zps]
        self.bits, self.axis = bits, axis
        self.lo = -(1 << (bits - 1)) if signed else 0
        self.hi = (1 << (bits - 1)) - 1 if signed else (1 << bits) - 1


def wrap32(v):
    return (v + (1 << 31)) % (1 << 32) - (1 << 31)


def requant_xlet(acc, ql, qr, qo, r, c):
    co = c if qo.axis is not None else 0  # (a per-tensor result of a per-axis rhs)
    m = f32(ql.scales[0] * qr.scales[c] / qo.scales[co])
    zr = qo.zps[co]
    if qo.bits == 32 and m == 1.0:
        return max(qo.lo, min(qo.hi, wrap32(wrap32(acc) + zr)))
    lo = float(qo.lo) if qo.bits < 32 else -2.0**31
    hi = float(qo.hi) if qo.bits < 32 else 2147483520.0
    f = f32(f32(f32(float(wrap32(acc))) * m) + zr)
    return int(round(min(max(f, lo), hi)))


def requant_spec(real, qo, c):
    co = c if qo.axis is not None else 0
    v = real / Fraction(qo.scales[co]) + qo.zps[co]
    return max(qo.lo, min(qo.hi, round(v)))  # Fraction's round: half to even


def quantized(name, a, ql, b, qr, qo, op, chan_of_rhs):
    """op(a, b, term) -> nested sums; chan_of_rhs(r) -> rhs/result channel of result index r."""
    za = ql.zps[0]
    acc = op(a, b, lambda x, w, r: ((za if x is None else x) - za) * (w - qr.zps[chan_of_rhs(r)]))
    real = op(a, b, lambda x, w, r: Fraction(((za if x is None else x) - za)) * Fraction(ql.scales[0]) *
              (w - qr.zps[chan_of_rhs(r)]) * Fraction(qr.scales[chan_of_rhs(r)]))
    shape = shape_of(acc)
    xl = build(shape, lambda r: requant_xlet(at(acc, r), ql, qr, qo, r, chan_of_rhs(r)))
    sp = build(shape, lambda r: requant_spec(at(real, r), qo, chan_of_rhs(r)))
    print(f'{name}:\n  acc  {acc}\n  xlet {xl}\n  spec {sp}' + ('' if xl == sp else '  (DIFFER)'))


def hybrid(name, x, b, qr, op, chan_of_rhs):
    out = op(x, b, lambda v, w, r: Fraction(v or 0) * (w - qr.zps[chan_of_rhs(r)]) * Fraction(qr.scales[chan_of_rhs(r)]))
    print(f'{name}: {build(shape_of(out), lambda r: float(at(out, r)))}')


def dot(lb=(), rb=(), lc=(1,), rc=(0,)):
    return lambda a, b, t: dot_general(a, b, list(lb), list(rb), list(lc), list(rc), t)


# @dot_general_batch: [2, 2, 3] x [2, 3, 2] (batch 0, contracting 2 x 1), s8 (0.5, -3) x s8 (0.25)
# -> s8 (0.5, 5): M = 0.25; ties, saturation at both bounds
L1 = [[[-3, 1, 5], [127, 127, 127]], [[-128, -128, -128], [0, -1, -5]]]
R1 = [[[1, 2], [3, -4], [2, 0]], [[100, -100], [127, 50], [90, 1]]]
quantized('dot_general_batch', L1, Q(0.5, -3), R1, Q(0.25, 0), Q(0.5, 5), dot([0], [0], [2], [1]), lambda r: 0)

# @dot_per_axis_i32: [2, 3] x [3, 2] per axis along 1 {0.25, 0.125} -> i32 per axis along 1
# {0.125:0, 0.125:100}: channel 0 M = 1 (acc + zp exactly), channel 1 M = 0.5 (ties to even)
L2 = [[3, 4, 5], [-128, 127, 2]]
R2 = [[1, 1], [2, 3], [-1, 5]]
quantized('dot_per_axis_i32', L2, Q(0.5, 2), R2, Q([0.25, 0.125], [0, 0], axis=1),
          Q([0.125, 0.125], [0, 100], bits=32, axis=1), dot(), lambda r: r[1])

# @dot_per_axis_batch: [2, 2, 2] x [2, 2, 1] (batch 0 x 0), rhs per axis along its batch
# dimension {0.5, 0.25} -> s8 per axis along result dimension 0 {1.0:-1, 0.25:2}
L3 = [[[1, 2], [3, 4]], [[-5, 6], [7, -8]]]
R3 = [[[3], [-2]], [[10], [20]]]
quantized('dot_per_axis_batch', L3, Q(1.0, 1), R3, Q([0.5, 0.25], [0, 0], axis=0),
          Q([1.0, 0.25], [-1, 2], axis=0), dot([0], [0], [2], [1]), lambda r: r[0])

# @dot_u8: stablehlo.dot of u8 (0.5, 128) x u8 (0.5, 0) -> u8 (1.0, 10), M = 0.25; saturates at 0 and 255
L4 = [[128, 130, 255], [0, 129, 127]]
R4 = [[4, 2], [6, 255], [1, 0]]
quantized('dot_u8', L4, Q(0.5, 128, signed=False), R4, Q(0.5, 0, signed=False), Q(1.0, 10, signed=False), dot(),
          lambda r: 0)

# @hybrid_dot: f32 [2, 3] x s8 per axis along 1 {0.5, 0.25} -> f32
X5 = [[1.0, -2.0, 0.5], [0.25, 4.0, -1.0]]
R5 = [[2, -4], [6, 8], [-10, 3]]
hybrid('hybrid_dot', X5, R5, Q([0.5, 0.25], [0, 0], axis=1), dot(), lambda r: r[1])

# @conv_nhwc_pad: NHWC [1, 3, 3, 2] s8 (0.5, zero point 3), kernel HWIO [2, 2, 2, 2] s8 (0.25) ->
# s8 (0.25, -2): M = 0.5, padding low 1 high 0 on both spatial dimensions (the zero point)
X6 = [[[[3, 5], [1, 7], [127, -128]], [[4, 4], [3, 3], [10, -9]], [[-100, 60], [8, 2], [3, 3]]]]
K6 = [[[[1, 2], [0, -1]], [[3, 0], [1, 1]]], [[[-2, 1], [4, 0]], [[1, -3], [2, 2]]]]
quantized('conv_nhwc_pad', X6, Q(0.5, 3), K6, Q(0.25, 0), Q(0.25, -2),
          lambda a, b, t: conv_nhwc(a, b, ((1, 0), (1, 0)), 1, t), lambda r: 0)

# @conv_grouped: NHWC [1, 2, 3, 4] s8 (1.0, -1), two feature groups, kernel HWIO [1, 2, 2, 4] per
# axis along 3 {0.5, 0.25, 1.0, 0.5} -> per axis along 3 {1.0:0, 0.5:1, 2.0:-3, 0.25:0}; padding
# low 0 high 1 on the second spatial dimension
X7 = [[[[0, 1, 2, 3], [-1, -2, 4, 5], [6, -7, 8, 9]], [[10, 11, -12, 13], [14, 15, 16, -17], [-1, -1, -1, -1]]]]
K7 = [[[[1, -1, 2, 0], [2, 3, -1, 1]], [[0, 1, 1, -2], [-3, 2, 0, 4]]]]
quantized('conv_grouped', X7, Q(1.0, -1), K7, Q([0.5, 0.25, 1.0, 0.5], [0, 0, 0, 0], axis=3),
          Q([1.0, 0.5, 2.0, 0.25], [0, 1, -3, 0], axis=3),
          lambda a, b, t: conv_nhwc(a, b, ((0, 0), (0, 1)), 2, t), lambda r: r[3])

# @hybrid_conv: f32 NHWC [1, 2, 2, 1] x s8 HWIO [2, 2, 1, 2] per axis along 3 {0.5, 0.25}, padding
# high 1 -> f32
X8 = [[[[1.0], [2.0]], [[-0.5], [4.0]]]]
K8 = [[[[2, 4]], [[-6, 1]]], [[[8, -2]], [[1, 3]]]]
hybrid('hybrid_conv', X8, K8, Q([0.5, 0.25], [0, 0], axis=3),
       lambda a, b, t: conv_nhwc(a, b, ((0, 1), (0, 1)), 1, t), lambda r: r[3])

# quant_direct.mlir @conv_kernel_zero_points (the library only: the module pass takes kernels with
# zero points 0): NHWC [1, 2, 2, 2] s8 (0.5, 1), kernel HWIO [1, 1, 2, 2] per axis along 3
# {0.5:3, 0.25:-4} -> s8 (0.5, 1)
X9 = [[[[1, 3], [5, -1]], [[0, 2], [127, -128]]]]
K9 = [[[[4, -4], [6, -2]]]]
quantized('conv_kernel_zero_points', X9, Q(0.5, 1), K9, Q([0.5, 0.25], [3, -4], axis=3), Q(0.5, 1),
          lambda a, b, t: conv_nhwc(a, b, ((0, 0), (0, 0)), 1, t), lambda r: r[3])
