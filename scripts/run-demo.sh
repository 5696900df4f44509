#!/usr/bin/env bash
# Set-up command 1: install what is missing, build the tool, run the default
# simulation. Only the gpumux target is built (its presets and PTX are
# compiled in): the tests are scripts/run-tests.sh's.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/bootstrap.sh" gpumux
"$root/build/gpumux" run "$@"
