#!/usr/bin/env bash
# Set-up command 1: install what is missing, build, run the default simulation.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/bootstrap.sh"
"$root/build/gpumux" run "$@"
