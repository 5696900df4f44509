#!/usr/bin/env bash
# Regenerates the committed PTX of every workload, the microbenchmark suite,
# the PTX test corpus and the engine test kernels with nvcc.
# Usage: scripts/gen_ptx.sh [--check]   (--check: exit 1 if any committed PTX differs)
# A source that needs more nvcc flags says so in a line "// gen_ptx flags: ..."
# (e.g. -rdc=true for device-side launch).
#
# nvcc records the absolute source path in .file directives and in hashed
# internal names, so sources are compiled from a fixed scratch copy of the
# tree and the scratch prefix is stripped: the PTX is the same on every machine.
set -euo pipefail
NVCC=${NVCC:-/usr/local/cuda/bin/nvcc}
FLAGS=(-ptx -arch=compute_80 -O3 -lineinfo)
root=$(cd "$(dirname "$0")/.." && pwd)
scratch=/tmp/gpumux_ptx_gen
check=0
[[ ${1:-} == --check ]] && check=1
status=0
# The scratch path is fixed, so concurrent runs (tests, developers) take turns.
exec 9>"$scratch.lock"
flock 9
rm -rf "$scratch"
mkdir -p "$scratch"
(cd "$root" && find workloads microbench tests \( -name "*.cu" -o -name "*.cuh" -o -name "*.h" \) -exec cp --parents {} "$scratch" \;)
for cu in "$scratch"/workloads/*/*.cu "$scratch"/microbench/*.cu "$scratch"/tests/ptx/corpus/*.cu "$scratch"/tests/exec/kernels/*.cu "$scratch"/tests/timing/kernels/*.cu "$scratch"/tests/coverage/*.cu; do
  [[ -e $cu ]] || continue
  rel=${cu#$scratch/}
  out=$scratch/${rel%.cu}.gen.ptx
  read -r -a extra <<<"$(sed -n 's|^// gen_ptx flags: ||p' "$cu")"
  (cd "$(dirname "$cu")" && "$NVCC" "${FLAGS[@]}" "${extra[@]}" "$(basename "$cu")" -o "$out")
  sed -i "s|\"$scratch/|\"|g" "$out"
  ptx=$root/${rel%.cu}.ptx
  if ((check)); then
    if ! cmp -s "$out" "$ptx"; then echo "stale: ${rel%.cu}.ptx"; status=1; fi
  else
    cp "$out" "$ptx"
  fi
done
rm -rf "$scratch"
exit $status
