#!/usr/bin/env bash
# Build and run the standalone check + benchmark of our sm_90a sparse-MLA kernel
# (ffi/ours/sm90/selftest.cu; no JAX needed). Fails when ptxas reports a spill or
# when any correctness check fails. Needs an H200/H100 (compute capability 9.0).
#
# Usage: scripts/sm90_selftest.sh [OUTDIR] [--no-bench]
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-${OUT:-/tmp/sm90_selftest}}
shift || true
mkdir -p "$out"
nvcc=${NVCC:-nvcc}
command -v "$nvcc" >/dev/null || nvcc=/usr/local/cuda/bin/nvcc

start=$(date +%s)
"$nvcc" -std=c++17 -O3 -gencode arch=compute_90a,code=sm_90a -lineinfo -Xptxas -v -I ffi \
  ffi/ours/sm90/selftest.cu -o "$out/sm90_selftest" 2>"$out/ptxas.log"
echo "build: $(($(date +%s) - start)) s"
grep -E "Compiling entry|registers|spill" "$out/ptxas.log" | grep -B2 "sparse_mla_kernel\|spill" |
  grep -E "sparse_mla_kernel|combine|registers|spill" | sed 's/^ptxas info    : //' | head -30
if grep -E "[1-9][0-9]* bytes spill (stores|loads)" "$out/ptxas.log" >/dev/null; then
  echo "FAIL: ptxas reports spills (see $out/ptxas.log)"
  exit 1
fi
if grep -E "C7508|setmaxnreg" "$out/ptxas.log" >/dev/null; then
  echo "FAIL: ptxas ignored setmaxnreg (the >16-head kernels need 232 consumer registers)"
  grep -E "C7508|setmaxnreg" "$out/ptxas.log" | head -3
  exit 1
fi
if command -v cuobjdump >/dev/null; then
  cuobjdump -sass "$out/sm90_selftest" >"$out/sass.txt" 2>/dev/null || true
  echo "SASS: $(grep -c HMMA "$out/sass.txt" || true) HMMA, $(grep -c 'F2FP.F16.E4M3' "$out/sass.txt" || true) F2FP.F16.E4M3, $(grep -c UBLKCP "$out/sass.txt" || true) UBLKCP, $(grep -cE 'LDL|STL' "$out/sass.txt" || true) LDL/STL"
fi
status=0
"$out/sm90_selftest" "$@" "$out/bench.csv" 2>&1 | tee "$out/selftest.log" || status=$?
# The summary: failures, the correctness verdict and one line per timed case.
echo "---- summary ($out/selftest.log)"
grep -E "FAIL|^correctness:|^batch invariance" "$out/selftest.log" | head -40 || true
grep -E "^bench |^floor:" "$out/selftest.log" || true
exit $status
