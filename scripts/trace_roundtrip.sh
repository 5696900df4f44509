#!/usr/bin/env bash
# Round trip of the library's benchmarks through an Accel-Sim trace: export
# each one (gpumux verify --export-accelsim-trace), run it PTX-driven and
# replayed as a trace application on the same preset, and print a Markdown
# table of their kernel cycles, warp instructions and the cycle ratio
# (docs/accelsim-trace.md, "Round trip").
# Usage: scripts/trace_roundtrip.sh [preset] [size] [gpumux binary] [benchmark...]
set -euo pipefail
preset=${1:-gtx980}
size=${2:-tiny}
gpumux=${3:-build/gpumux}
shift $(( $# < 3 ? $# : 3 ))
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
names=("$@")
if [[ ${#names[@]} -eq 0 ]]; then
  mapfile -t names < <("$gpumux" list | awk 'NR > 1 && $0 !~ /^ / && $1 ~ /^[a-z]/ { print $1 }')
fi
echo "| benchmark | PTX kernel cycles | trace kernel cycles | ratio | warp insts (PTX / trace) |"
echo "|---|---:|---:|---:|---|"
for name in "${names[@]}"; do
  printf 'gpu = "%s"\n[[app]]\ntrace = "%s"\n' "$preset" "$work/$name" > "$work/w.toml"
  if ! { "$gpumux" verify "$name" --size "$size" --export-accelsim-trace "$work/$name" &&
         "$gpumux" run "$name" --size "$size" -c "$preset" --no-baselines --json "$work/ptx.json" &&
         "$gpumux" run "$work/w.toml" --no-baselines --json "$work/trace.json"; } > "$work/log" 2>&1; then
    echo "| $name | failed: $(grep -m1 -E 'FAIL|error' "$work/log" | cut -c1-120) | | | |"
    continue
  fi
  python3 - "$name" "$work/ptx.json" "$work/trace.json" <<'PY'
import json, sys
name, ptx, tr = sys.argv[1], json.load(open(sys.argv[2]))["apps"][0], json.load(open(sys.argv[3]))["apps"][0]
p, t = ptx["first_run_kernel_cycles"], tr["first_run_kernel_cycles"]
print(f"| {name} | {p} | {t} | {t / p:.3f} | {ptx['warp_insts']} / {tr['warp_insts']} |")
PY
  rm -rf "${work:?}/$name"
done
