#!/usr/bin/env bash
# Installs xlet's build, test and benchmark dependencies from Debian 12 packages. Safe to run twice.
# Library: xsimd, Boost (Hana), oneTBB. Tests: doctest. Benchmarks: Google Benchmark and the peers
# Eigen, xtensor and OpenBLAS (dot benchmarks only). Tools: cmake, ninja, g++ and clang.
# MPI transport (optional target xlet::mpi and its tests): Open MPI.
# Test-only: mlir-15-tools (mlir-opt reads the StableHLO that xlet-translate prints).
set -euo pipefail
pkgs=(cmake ninja-build g++ clang libxsimd-dev libboost-dev libtbb-dev doctest-dev libbenchmark-dev libeigen3-dev libxtensor-dev libopenblas-dev libopenmpi-dev openmpi-bin mlir-15-tools)
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
