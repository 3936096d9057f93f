#!/usr/bin/env bash
# Build (research/build.sh: the lab's ptxas gates) and run the standalone check and
# benchmark of our sm_90a sparse-MLA kernels (research/sm90/selftest/; no JAX needed).
# Fails when a gate fails or when any correctness check fails. Needs an H200/H100
# (compute capability 9.0).
#
# Usage: research/sm90_selftest.sh [OUTDIR] [SELFTEST FLAGS ...]
#   --no-bench                 correctness only
#   --with-pipelined           also the pass and rows of the candidate in the pipelined slot
#   --pipelined-check          that pass alone (no timings); --same-bits: and the product's bits
#   --bench-only               timings only;  --bench-min-heads N: rows of N heads or more
#   e.g. research/sm90_selftest.sh $OUT --bench-only --with-pipelined --bench-min-heads 33
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-${OUT:-/tmp/sm90_selftest}}
shift || true
mkdir -p "$out"

research/build.sh "$out" selftest
status=0
"$out/sm90_selftest" "$@" "$out/bench.csv" 2>&1 | tee "$out/selftest.log" || status=$?
# The summary: failures, the correctness verdict and one line per timed case.
echo "---- summary ($out/selftest.log)"
grep -E "FAIL|^correctness:|^batch invariance" "$out/selftest.log" | head -40 || true
grep -E "^bench |^floor:" "$out/selftest.log" || true
exit $status
