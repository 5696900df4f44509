#!/usr/bin/env bash
# The study-level speed figure: CPU-seconds per mix run of a study's scale.
#
#   bench/study_cost.sh [-b GPUMUX] [-n MAX_MIXES] [-o OUT] STUDY_DIR [SCALE]
#
# Expands the scale with `gpumux experiment run --dry-run`, runs each mix's
# isolated baselines first (untimed: a study runs them once per benchmark, not
# per mix), then the first MAX_MIXES mix runs (default: all) one at a time with
# `gpumux experiment run-one`, each timed as user + system CPU seconds of its
# process. Classification runs (baselines under overrides) are skipped. Prints
# one line per mix run and the mean, so a change can be compared by CPU time
# on a shared machine (docs/performance.md).
set -euo pipefail

gpumux=build/gpumux
max=0
out=""
while getopts "b:n:o:" opt; do
  case $opt in
    b) gpumux=$OPTARG ;;
    n) max=$OPTARG ;;
    o) out=$OPTARG ;;
    *) echo "usage: $0 [-b GPUMUX] [-n MAX_MIXES] [-o OUT] STUDY_DIR [SCALE]" >&2; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
if [[ $# -lt 1 || $# -gt 2 ]]; then
  echo "usage: $0 [-b GPUMUX] [-n MAX_MIXES] [-o OUT] STUDY_DIR [SCALE]" >&2
  exit 2
fi
study=$1
scale=${2:-quick}
[[ -x $gpumux ]] || { echo "error: $gpumux is not an executable" >&2; exit 2; }
[[ $max =~ ^[0-9]+$ ]] || { echo "error: -n wants a count, got '$max'" >&2; exit 2; }
if [[ -z $out ]]; then
  out=$(mktemp -d /tmp/study_cost.XXXXXX)
  trap 'rm -rf "$out"' EXIT
fi

plan=$("$gpumux" experiment run "$study" --scale "$scale" --dry-run --out "$out")
# Plan lines: "  wave W KEY LABEL...": baselines are "alone BENCH seed S".
mapfile -t baselines < <(awk '$1 == "wave" && $2 == 0 && $4 == "alone" && $6 == "seed" { print $3 }' <<<"$plan")
mapfile -t mixes < <(awk '$1 == "wave" && $2 == 1 { key = $3; $1 = $2 = $3 = ""; sub(/^ +/, ""); print key " " $0 }' <<<"$plan")
if [[ ${#mixes[@]} -eq 0 ]]; then
  echo "error: the plan of $study at scale $scale has no mix runs (is it already done in $out?)" >&2
  exit 1
fi
(( max > 0 && max < ${#mixes[@]} )) && mixes=("${mixes[@]:0:max}")

run_one() {  # prints the CPU seconds of one run-one
  /usr/bin/time -o "$out/cpu.txt" -f "%U %S" "$gpumux" experiment run-one "$out/runs/$1" \
    --cache-dir "$out/cache" >/dev/null 2>&1 || { echo "error: run $1 failed (see $out/runs/$1)" >&2; exit 1; }
  awk '{ printf "%.2f", $1 + $2 }' "$out/cpu.txt"
}

base_total=0
for key in "${baselines[@]}"; do
  s=$(run_one "$key")
  base_total=$(awk -v a="$base_total" -v b="$s" 'BEGIN { print a + b }')
done
printf "%-48s %8s\n" "MIX RUN" "CPU_S"
total=0
for m in "${mixes[@]}"; do
  key=${m%% *}
  s=$(run_one "$key")
  printf "%-48s %8s\n" "${m#* }" "$s"
  total=$(awk -v a="$total" -v b="$s" 'BEGIN { print a + b }')
done
awk -v t="$total" -v n="${#mixes[@]}" -v b="$base_total" -v nb="${#baselines[@]}" 'BEGIN {
  printf "mix runs: %d, %.2f CPU-s, %.2f CPU-s per mix run (baselines: %d runs, %.2f CPU-s)\n", n, t, t / n, nb, b }'
