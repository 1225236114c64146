#!/usr/bin/env bash
# Installs xlet's build, test and benchmark dependencies from Debian 12 packages. Safe to run twice.
# Library: xsimd, Boost (Hana), oneTBB. Tests: doctest. Benchmarks: Google Benchmark and the peers
# Eigen, xtensor and OpenBLAS (dot benchmarks only). Tools: cmake, ninja, g++ and clang.
# MPI transport (optional target xlet::mpi and its tests): Open MPI.
# Test-only: mlir-15-tools (mlir-opt reads the StableHLO that xlet-translate prints).
#
# --bench also installs the peers that only the benchmarks use (docs/performance.md): FFTW
# (libfftw3-dev, fft_bench's FFTW rows), oneDNN (libdnnl-dev, conv_bench's and quant_bench's
# oneDNN rows), NumPy (python3-numpy, bench/mlp_numpy.py) and matplotlib (python3-matplotlib,
# bench/plot.py). Without them the `bench` preset still builds every benchmark, with fewer peers
# (its configure step lists what it found and what it did not).
set -euo pipefail
usage() { echo "usage: bash cmake/install-deps.sh [--bench]" >&2; exit 2; }
bench=0
for arg in "$@"; do
  case "$arg" in
    --bench) bench=1 ;;
    -h|--help) echo "usage: bash cmake/install-deps.sh [--bench]"; exit 0 ;;
    *) usage ;;
  esac
done
pkgs=(cmake ninja-build g++ clang libxsimd-dev libboost-dev libtbb-dev doctest-dev libbenchmark-dev libeigen3-dev libxtensor-dev libopenblas-dev libopenmpi-dev openmpi-bin mlir-15-tools)
if [ "$bench" -eq 1 ]; then
  pkgs+=(libfftw3-dev libdnnl-dev python3-numpy python3-matplotlib)
fi
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#pkgs[@]} packages already installed"
  exit 0
fi
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
echo "install-deps: installed ${missing[*]}"
