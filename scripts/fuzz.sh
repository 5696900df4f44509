#!/usr/bin/env bash
# Builds a fuzzer with clang (libFuzzer + ASan + UBSan) and runs it for N
# seconds (default 60) on a copy of its test corpus: the PTX parser (target
# "ptx", the default) or the Accel-Sim trace reader ("accelsim").
# Usage: scripts/fuzz.sh [seconds] [build-dir] [target]   (build dir default: build-fuzz)
# Exits non-zero if the fuzzer finds a crash, hang, leak or UB; the input is
# left in the build dir as crash-*/timeout-*/leak-*.
set -euo pipefail
seconds=${1:-60}
root=$(cd "$(dirname "$0")/.." && pwd)
build=${2:-$root/build-fuzz}
target=${3:-ptx}
jobs=${JOBS:-2}
mkdir -p "$build"
CC=${CC:-clang} CXX=${CXX:-clang++} cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DGPUMUX_FUZZ=ON -DGPUMUX_TESTS=OFF > "$build/configure.log" 2>&1 || { cat "$build/configure.log"; exit 1; }
if [[ $target == accelsim ]]; then
  ninja -C "$build" -j"$jobs" accelsim_reader_fuzz
  corpus=$build/accelsim_corpus
  mkdir -p "$corpus"
  find "$root"/tests/data/accelsim -type f -exec cp {} "$corpus"/ \;
  cd "$build"
  exec ./fuzz/accelsim_reader_fuzz -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=16384 \
    -dict="$root/fuzz/accelsim.dict" -print_final_stats=1 "$corpus"
fi
ninja -C "$build" -j"$jobs" ptx_parser_fuzz
corpus=$build/ptx_corpus
mkdir -p "$corpus"
cp "$root"/tests/ptx/corpus/*.ptx "$corpus"/
cd "$build"
./fuzz/ptx_parser_fuzz -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
  -dict="$root/fuzz/ptx.dict" -print_final_stats=1 "$corpus"
