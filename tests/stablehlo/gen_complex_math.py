#!/usr/bin/python3
# Writes complex_math.mlir: complex exponential, log, log_plus_one and sqrt in complex<f32> and
# complex<f64>, rewritten into real arithmetic by --stablehlo-complex-math-expander (upstream's
# algorithms), against reference values computed here, rounded to the type, within 2 ULP
# (check.expect_close; the ULP distance of a complex is the larger of its parts'), and the sign and
# the finiteness of each part exactly (-0 included: sqrt(-4 - 0i) = -2i, exp(1 - 0i) = e - 0i).
# The reference is mpmath's at 4000 bits for finite inputs (cmath loses digits there: log1p has no
# cmath function and cmath.log(1 + z) rounds 1 + z; cmath.log near |z| = 1 is off by up to 10^6
# ULP in double), with cmath's signs of zero (mpmath has no -0); cmath's for infinities, NaNs and
# zeros, which follows C99 Annex G (log(+-0 +-0i) is -inf + i atan2, where cmath raises).
# Observed (GCC 12 and Clang 14, x86-64): at most 1 ULP, 2 ULP for exp in f64 where e^x
# overflows. Left out, upstream's algorithm's limits: exp(+-inf +- inf i) is NaN + i NaN (C99:
# +-inf + i NaN and +-0 +- 0i), and
# log1p(-1 + yi) for |y| below the square root of the smallest float is -inf (y^2 underflows).
# Run: /usr/bin/python3 tests/stablehlo/gen_complex_math.py > tests/stablehlo/complex_math.mlir
import cmath
import math
import struct

import mpmath

mpmath.mp.prec = 4000
inf, nan = math.inf, math.nan

common = [(3.0, 4.0), (-3.0, 4.0), (0.5, -0.25), (-1.5, 2.0), (1e-3, 1e-3), (0.0, 0.0), (-0.0, 0.0), (0.0, -0.0),
          (-0.0, -0.0), (2.0, -0.0), (-2.0, -0.0), (1e-30, 1e-40), (1e30, 1e30), (-1e30, 2e29), (3e38, 1e38),
          (3e38, 3e38), (1e-45, 1e-45), (1e-45, 0.0), (1e300, 1e300), (1e-310, 1e-310), (5e-324, 0.0),
          (1.7e308, 1.7e308), (-1.7e308, 1e-300), (inf, 1.0), (-inf, 1.0), (1.0, inf), (inf, inf), (nan, 1.0),
          (1.0, nan), (inf, 0.0), (-inf, 0.0), (0.0, inf)]
points = {
    'sqrt': common + [(-inf, -inf), (-4.0, 0.0), (-4.0, -0.0), (0.0, -2.0), (4.0, 0.0), (1.0, 3e38), (3e38, 1.0),
                      (1e-40, 1e-38), (-1e-40, 1e-38), (1e20, 1e-20), (-1e20, 1e-20)],
    'log': common + [(-inf, -inf), (1.0, 1e-4), (0.9999999, 1e-4), (0.6, 0.8), (0.8, -0.6), (1.0, 0.0), (-1.0, 0.0),
                     (-1.0, -0.0), (0.70710677, 0.70710677), (1.0000001, 1e-7), (0.5, 0.8660254)],
    'log_plus_one': common + [(-inf, -inf), (-5e-7, 1e-3), (-1.0 + 1e-7, 1e-7), (-2.0, 1e-3), (1e-8, 1e-8),
                              (-1e-20, 1e-10), (-1.0, 0.0), (-1.0, -0.0), (-0.5, 0.5), (1e20, 1.0), (-0.4, 0.8),
                              (-0.29289323, 0.70710677), (-1.0, 1e-10)],
    'exponential': common + [(89.0, 1e-5), (89.0, 1.5707964), (709.9, 1e-5), (710.0, 1.0), (-100.0, 1.0),
                             (1.0, -0.0), (0.0, 3.14159274), (1.0, 1e-20), (88.0, 1.0), (-1000.0, 0.0),
                             (1e-8, 1e10)],
}
FLT_MAX = struct.unpack('<f', bytes.fromhex('ffff7f7f'))[0]


def to_f32(v):
    if math.isnan(v) or math.isinf(v):
        return v
    if abs(v) >= FLT_MAX * (1 + 2**-25):  # rounds to infinity
        return math.copysign(inf, v)
    return struct.unpack('<f', struct.pack('<f', v))[0]


def cm(op, z):
    w = complex(1 + z.real, z.imag) if op == 'log_plus_one' else z  # Python's 1 + z would lose -0
    try:
        return {'sqrt': cmath.sqrt, 'log': cmath.log, 'log_plus_one': cmath.log, 'exponential': cmath.exp}[op](w)
    except ValueError:
        if op == 'exponential':  # exp(x + i inf): C99's NaN + i NaN (the x = +inf case is left out)
            return complex(nan, nan)
        return complex(-inf, math.atan2(w.imag, w.real))  # log(+-0 +-0i): C99's -inf + i atan2(y, x)
    except OverflowError:
        return None


def mp(op, z):
    w = mpmath.mpc(z.real, z.imag)
    r = {'sqrt': mpmath.sqrt, 'log': mpmath.log, 'log_plus_one': lambda q: mpmath.log(1 + q),
         'exponential': mpmath.exp}[op](w)
    return complex(float(r.real), float(r.imag))


def reference(op, z, rnd):
    c, m = cm(op, z), None
    if math.isfinite(z.real) and math.isfinite(z.imag) and (z.real or z.imag):
        m = mp(op, z)
    if m is None:
        return complex(rnd(c.real), rnd(c.imag)), False
    parts = []
    for k in ('real', 'imag'):
        mv = rnd(getattr(m, k))
        if c is not None and (z.real == 0 or z.imag == 0):  # mpmath has no -0: cmath's sign
            mv = math.copysign(mv, getattr(c, k))
        parts.append(mv)
    return complex(*parts), True


def lit(v, f32):
    if math.isnan(v):
        return '0x7FC00000' if f32 else '0x7FF8000000000000'
    if math.isinf(v):
        return ('0xFF800000' if v < 0 else '0x7F800000') if f32 else ('0xFFF0000000000000' if v < 0 else '0x7FF0000000000000')
    s = '%.9g' % v if f32 else repr(v)
    if 'e' in s and '.' not in s.split('e')[0]:
        s = s.replace('e', '.0e')
    elif 'e' not in s and '.' not in s:
        s += '.0'
    return s


def dense(zs, f32):
    return 'dense<[' + ', '.join('(%s, %s)' % (lit(z.real, f32), lit(z.imag, f32)) for z in zs) + ']>'


N = 48  # every function on 48 points (its list repeated to fill): one tensor shape, fewer instantiations
out = ['// xlet-translate: --stablehlo-complex-math-expander',
       '// Generated by gen_complex_math.py (mpmath %s): complex exponential, log, log_plus_one and sqrt' % mpmath.__version__,
       '// rewritten into real arithmetic by stablehlo-complex-math-expander, against Python\'s values (see',
       '// the script: within 2 ULP, with the sign and finiteness of each part exact).',
       'module @complex_math {']
for op, pts in points.items():
    for f32 in (True, False):
        rnd = to_f32 if f32 else float
        zs, rs = [], []
        for a, b in pts:
            z = complex(rnd(a), rnd(b))
            if op == 'exponential' and math.isinf(z.real) and math.isinf(z.imag):
                continue  # upstream's algorithm: NaN + i NaN, C99: +-inf + i NaN
            zs.append(z)
            rs.append(reference(op, z, rnd)[0])
        assert len(zs) <= N
        zs, rs = (zs * N)[:N], (rs * N)[:N]
        el = 'f32' if f32 else 'f64'
        t, rt, bt = 'tensor<%dxcomplex<%s>>' % (N, el), 'tensor<%dx%s>' % (N, el), 'tensor<%dxi1>' % N
        out.append('  func.func @%s_%s() {' % (op, el))
        out.append('    %%z = stablehlo.constant %s : %s' % (dense(zs, f32), t))
        out.append('    %%r = stablehlo.%s %%z : %s' % (op, t))
        out.append('    %%want = stablehlo.constant %s : %s' % (dense(rs, f32), t))
        out.append('    check.expect_close %%r, %%want, max_ulp_difference = 2 : %s, %s' % (t, t))
        # expect_close counts -0 and +0 as one, and inf as one ULP from the largest float: the sign
        # of each part (-1, -0, +0, 1 or NaN) and whether it is finite, exactly as the reference's
        for part in ('real', 'imag'):
            for v in ('r', 'want'):
                out.append('    %%%s_%s = stablehlo.%s %%%s : (%s) -> %s' % (v, part, part, v, t, rt))
                out.append('    %%%s_%s_sign = stablehlo.sign %%%s_%s : %s' % (v, part, v, part, rt))
                out.append('    %%%s_%s_finite = stablehlo.is_finite %%%s_%s : (%s) -> %s' % (v, part, v, part, rt, bt))
            out.append('    check.expect_eq %%r_%s_sign, %%want_%s_sign : %s' % (part, part, rt))
            out.append('    check.expect_eq %%r_%s_finite, %%want_%s_finite : %s' % (part, part, bt))
        out.append('    func.return')
        out.append('  }')
out.append('}')
print('\n'.join(out))
