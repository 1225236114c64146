#!/usr/bin/env bash
# Compile time of a translated 200-op module against the same program written by hand with xlet
# (each op a tensor), and the translation time of a 10,000-op module (issue #25; figures in
# docs/performance.md). Usage: bash bench/stablehlo_compile_time.sh [path/to/xlet-translate]
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
tool=${1:-$top/build/default/tools/xlet-translate/xlet-translate}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 - "$work" <<'PY'
import sys
w = sys.argv[1]
ops = ['add', 'multiply', 'subtract', 'maximum']
cpp = ['add', 'mul', 'sub', 'max']
def module(n, shape):
    t = f'tensor<{shape}xf32>'
    L = [f'func.func public @main(%arg0: {t}, %arg1: {t}) -> {t} {{', f'  %v0 = stablehlo.add %arg0, %arg1 : {t}']
    L += [f'  %v{i} = stablehlo.{ops[i % 4]} %v{i - 1}, %arg{i % 2} : {t}' for i in range(1, n)]
    return '\n'.join(L + [f'  return %v{n - 1} : {t}', '}']) + '\n'
open(f'{w}/m200.mlir', 'w').write(module(200, '64x64'))
open(f'{w}/big.mlir', 'w').write(module(10000, '64'))
H = ['#include <xlet/xlet.hpp>', 'using namespace xlet;',
     'f32<64, 64> hand(const f32<64, 64>& a0, const f32<64, 64>& a1) {', '    f32<64, 64> v0 = add(a0, a1);']
H += [f'    f32<64, 64> v{i} = {cpp[i % 4]}(v{i - 1}, a{i % 2});' for i in range(1, 200)]
open(f'{w}/hand200.cpp', 'w').write('\n'.join(H + ['    return v199;', '}']) + '\n')
open(f'{w}/gen200.cpp', 'w').write('#include "m200.hpp"\nxlet::f32<64, 64> call(const xlet::f32<64, 64>& a, const xlet::f32<64, 64>& b) { return gen::main(a, b); }\n')
PY
/usr/bin/time -f "translate 10,000 ops: %e s" "$tool" "$work/big.mlir" -o "$work/big.hpp"
"$tool" "$work/m200.mlir" --namespace gen -o "$work/m200.hpp"
for f in hand200 gen200 hand200 gen200 hand200 gen200; do
  /usr/bin/time -f "$f.cpp: %e s %M KB" g++ -std=c++20 -O2 -march=native -ffp-contract=off -I"$top/include" -c "$work/$f.cpp" -o /dev/null
done
