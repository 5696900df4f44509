#!/usr/bin/env bash
# Set-up command 2: install what is missing, build, run the whole test suite
# (every test except those labelled "small" and "paper", which run longer
# inputs: add --small to include them).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/bootstrap.sh"
label=(-LE "small|paper")
[[ ${1:-} == --small ]] && label=()
ctest --test-dir "$root/build" --output-on-failure -j"$(nproc)" "${label[@]}"
