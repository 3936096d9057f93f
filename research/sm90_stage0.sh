#!/usr/bin/env bash
# Stage-0 microbenchmarks of the sm_90a design (research/sm90/stage0/, one file per
# microbenchmark; the studies they answered: research/README.md). Builds (research/build.sh),
# runs, and prints one summary line per measurement. Needs an H100/H200 (compute capability 9.0).
#
# Usage: research/sm90_stage0.sh [OUTDIR] [m1 .. m12]   (default: all)
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-${OUT:-/tmp/sm90_stage0}}
shift || true
mkdir -p "$out"

research/build.sh "$out" stage0
status=0
"$out/stage0" "$@" 2>&1 | tee "$out/stage0.log" || status=$?
echo "---- summary ($out/stage0.log)"
grep -E "^device:|^RESULT|FAIL|^stage0:" "$out/stage0.log" | sed 's/^RESULT //' || true
exit $status
