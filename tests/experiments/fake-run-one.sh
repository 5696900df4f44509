#!/bin/sh
# Stands in for `gpumux experiment run-one DIR --cache-dir CACHE` in the Slurm
# executor tests. Records "START END" (nanoseconds) in DIR/times, then, by what
# DIR/workload.toml says: "fail" writes DIR/error.txt and exits 1; "crash"
# dies from SIGKILL, leaving no error.txt (as when Slurm kills a run);
# anything else writes DIR/run.json atomically, naming the Slurm array task.
set -eu
if [ $# -ne 5 ] || [ "$1 $2 $4" != "experiment run-one --cache-dir" ]; then
  echo "usage: $0 experiment run-one DIR --cache-dir CACHE" >&2
  exit 2
fi
dir=$3
start=$(date +%s%N)
sleep "${FAKE_RUN_ONE_SECONDS:-1}"
echo "$start $(date +%s%N)" >"$dir/times"
case $(cat "$dir/workload.toml") in
  *fail*) echo "failing on purpose" >"$dir/error.txt"; exit 1 ;;
  *crash*) kill -KILL $$ ;;
esac
printf '{"slurm_task": "%s_%s", "cache": "%s"}\n' "${SLURM_ARRAY_JOB_ID:-}" "${SLURM_ARRAY_TASK_ID:-}" "$5" \
  >"$dir/run.json.tmp"
mv "$dir/run.json.tmp" "$dir/run.json"
echo "ran $dir"
