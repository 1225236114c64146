#!/usr/bin/env python3
"""StableHLO's interpreter tests through xlet-translate: every `// -----` piece of
stablehlo/tests/interpret/*.mlir as a module, translated with `--emit runner` (with
`--stablehlo-canonicalize-dynamism --stablehlo-refine-shapes` when it does not translate as it
is, or with `--chlo-legalize-to-stablehlo` for the chlo ops xlet has no op of), compiled and run. Prints a line per piece that fails and a summary; the reasons of the
pieces that do not translate, counted. Not part of CI: it needs a StableHLO checkout.
With --testdata, the JAX-generated modules of stablehlo/testdata instead (one per file, checked by
`custom_call @check.*`); --sample K takes every K-th of them (2,300 files: about 3 s each).

  python3 tools/xlet-translate/conformance/interpret_tests.py STABLEHLO_CHECKOUT \
      build/default/tools/xlet-translate/xlet-translate [--jobs 2] [--keep DIR] [--only abs add ...]
      [--testdata [--sample 10]]
"""
import argparse, collections, concurrent.futures, os, re, subprocess, sys, tempfile

ap = argparse.ArgumentParser()
ap.add_argument('stablehlo')
ap.add_argument('translate')
ap.add_argument('--jobs', type=int, default=2)
ap.add_argument('--keep', default=None)
ap.add_argument('--cxx', default='g++')
ap.add_argument('--only', nargs='*', default=None, help='file names without .mlir')
ap.add_argument('--testdata', action='store_true', help='stablehlo/testdata instead of tests/interpret')
ap.add_argument('--sample', type=int, default=1, help='every K-th file')
ap.add_argument('--translate-only', action='store_true', help='translate, do not compile nor run')
a = ap.parse_args()
include = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', '..', 'include')
work = a.keep or tempfile.mkdtemp(prefix='xlet_interp_')
os.makedirs(work, exist_ok=True)
idir = os.path.join(a.stablehlo, 'stablehlo', *(['testdata'] if a.testdata else ['tests', 'interpret']))
passes = [[], ['--stablehlo-canonicalize-dynamism', '--stablehlo-refine-shapes'], ['--chlo-legalize-to-stablehlo']]


def translate(name, i, text):
    src = os.path.join(work, f'{name}.{i}.mlir')
    cpp = src[:-5] + '.cpp'
    open(src, 'w').write(text)
    for p in passes:
        r = subprocess.run([a.translate, *p, '--emit', 'runner', src, '-o', cpp], capture_output=True, text=True)
        if r.returncode == 0:
            return cpp, None
    msg = r.stderr.strip().split('\n')[0]
    return None, re.sub(r'^.*?error: ', '', msg)


def build_and_run(cpp):
    exe = cpp[:-4]
    c = subprocess.run([a.cxx, '-std=c++20', '-O1', '-march=native', '-w', '-I' + include, cpp, '-o', exe, '-ltbb'],
                       capture_output=True, text=True)
    if c.returncode:
        return 'does not compile: ' + c.stderr[:300]
    x = subprocess.run([exe], capture_output=True, text=True, timeout=300)
    return None if x.returncode == 0 else (x.stdout + x.stderr)[-300:]


pieces = []
files = [f for f in sorted(os.listdir(idir)) if f.endswith('.mlir') and (not a.only or f[:-5] in a.only)]
for f in files[::a.sample]:
    text = open(os.path.join(idir, f)).read()
    for i, p in enumerate(t for t in text.split('// -----') if 'func.func' in t or 'module' in t):
        pieces.append((f[:-5], i, p))
reasons, translated, checks, failed = collections.Counter(), [], 0, 0
for name, i, p in pieces:
    cpp, why = translate(name, i, p)
    if cpp:
        translated.append((name, i, cpp))
        checks += len(re.findall(r'check\.(expect|eq\b)', p))
    else:
        reasons[re.sub(r'%\S+ ', '', why)[:100]] += 1
n_translated = len(translated)
if a.translate_only:
    translated = []
with concurrent.futures.ThreadPoolExecutor(a.jobs) as ex:
    for (name, i, _), r in zip(translated, ex.map(lambda t: build_and_run(t[2]), translated)):
        if r:
            failed += 1
            print(f'FAIL {name} piece {i}: {r}')
print(f'{len(pieces)} pieces, {n_translated} translated ({checks} checks), {failed} failing')
for k, v in reasons.most_common():
    print(f'{v:4} {k}')
sys.exit(1 if failed else 0)
