#!/usr/bin/env bash
# Installs the Debian packages gpumux needs (only those missing) and builds it
# in build/ (Release). Used by run-demo.sh, run-tests.sh and CI.
#   scripts/bootstrap.sh            # every target: the tool, its CUDA runtime, the tests
#   scripts/bootstrap.sh gpumux     # only the named targets (the demo needs the tool alone)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
packages=(cmake ninja-build g++ pkg-config libgtest-dev libgmock-dev libbenchmark-dev
          libtomlplusplus-dev nlohmann-json3-dev libcli11-dev libfmt-dev libzstd-dev liblzma-dev zlib1g-dev clang
          libclang-rt-14-dev python3
          # studies: report figures and page, its check in a browser, Slurm sweeps
          python3-matplotlib python3-jinja2 chromium slurm-wlm munge)
missing=()
for p in "${packages[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "installing: ${missing[*]}"
  sudo=""
  [[ $(id -u) -ne 0 ]] && sudo=sudo
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
fi
cmake -S "$root" -B "$root/build" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
ninja -C "$root/build" -j"$(nproc)" "$@"
