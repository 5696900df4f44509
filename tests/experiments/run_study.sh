#!/usr/bin/env bash
# Runs a study end to end as a user would: run it at a scale, check its
# trends (known failures declared in the study do not fail), write its report
# and check the report in headless Chromium.
#   run_study.sh GPUMUX STUDY_DIR SCALE OUT
set -euo pipefail
gpumux=$1 study=$2 scale=$3 out=$4
here=$(cd "$(dirname "$0")" && pwd)
"$gpumux" experiment run "$study" --scale "$scale" --out "$out"
"$gpumux" experiment check "$out"
"$gpumux" experiment report "$out"
python3 "$here/check_report.py" --out "$out"
