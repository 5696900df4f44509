#!/usr/bin/env bash
# Regenerates the committed PTX of every workload (and the test corpus) with nvcc.
# Usage: scripts/gen_ptx.sh [--check]   (--check: exit 1 if any committed PTX differs)
set -euo pipefail
NVCC=${NVCC:-/usr/local/cuda/bin/nvcc}
FLAGS=(-ptx -arch=compute_80 -O3 -lineinfo)
root=$(cd "$(dirname "$0")/.." && pwd)
check=0
[[ ${1:-} == --check ]] && check=1
status=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for cu in "$root"/workloads/*/*.cu "$root"/tests/ptx/corpus/*.cu; do
  [[ -e $cu ]] || continue
  ptx=${cu%.cu}.ptx
  # Relative paths keep the .file directives independent of the checkout location.
  (cd "$(dirname "$cu")" && "$NVCC" "${FLAGS[@]}" "$(basename "$cu")" -o "$tmp/out.ptx")
  if ((check)); then
    if ! cmp -s "$tmp/out.ptx" "$ptx"; then echo "stale: ${ptx#$root/}"; status=1; fi
  else
    cp "$tmp/out.ptx" "$ptx"
  fi
done
exit $status
