#!/bin/bash
# What the export hooks (core/trace.hpp) cost code that does not export, and code that does:
# compile time of a probe that includes the umbrella header, with and without XLET_TRACE, and a
# tiny-tensor loop. Give another checkout's include directory as $1 to compare with it
# (e.g. `git worktree add /tmp/old <rev>` then `bash bench/trace_overhead.sh /tmp/old/include`).
set -e
here=$(cd "$(dirname "$0")" && pwd)
inc=$here/../include
cxx=${CXX:-g++-12}
out=$(mktemp -d)
run() { # label include-dir extra-flags
    for i in 1 2 3; do
        /usr/bin/time -f "$1: compile %e s, %M KB" $cxx -std=c++20 -O2 -I"$2" $3 -c "$here/trace_overhead/compile_probe.cpp" -o "$out/p.o"
    done
    $cxx -std=c++20 -O2 -march=native -I"$2" $3 "$here/trace_overhead/small_loop.cpp" -o "$out/loop" -ltbb
    for i in 1 2 3; do echo -n "$1: "; "$out/loop"; done
}
[ -n "$1" ] && run "other checkout" "$1" ""
run "this checkout" "$inc" ""
run "this checkout, XLET_TRACE" "$inc" "-DXLET_TRACE"
rm -rf "$out"
