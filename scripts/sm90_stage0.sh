#!/usr/bin/env bash
# Stage-0 microbenchmarks of the sm_90a design (ffi/ours/sm90/bench/stage0.cu; see
# docs/cuda_sm90.md, "Stage 0: microbenchmarks"). Builds, checks ptxas/SASS, runs, and
# prints one summary line per measurement. Needs an H100/H200 (compute capability 9.0).
#
# Usage: scripts/sm90_stage0.sh [OUTDIR] [m1] [m2] [m3] [m4]   (default: all four)
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-${OUT:-/tmp/sm90_stage0}}
shift || true
mkdir -p "$out"
nvcc=${NVCC:-nvcc}
command -v "$nvcc" >/dev/null || nvcc=/usr/local/cuda/bin/nvcc

start=$(date +%s)
"$nvcc" -std=c++17 -O3 -gencode arch=compute_90a,code=sm_90a -lineinfo -Xptxas -v \
  ffi/ours/sm90/bench/stage0.cu -o "$out/stage0" 2>"$out/ptxas.log"
echo "build: $(($(date +%s) - start)) s"
if grep -E "[1-9][0-9]* bytes spill (stores|loads)" "$out/ptxas.log" >/dev/null; then
  echo "WARN: ptxas reports spills (see $out/ptxas.log)"
fi
grep -iE "warning" "$out/ptxas.log" | head -5 || true
objdump=$(command -v cuobjdump || true)
[ -z "$objdump" ] && [ -x "$(dirname "$nvcc")/cuobjdump" ] && objdump="$(dirname "$nvcc")/cuobjdump"
if [ -n "$objdump" ]; then
  "$objdump" -sass "$out/stage0" >"$out/sass.txt" 2>/dev/null || true
  echo "SASS: $(grep -c 'HGMMA' "$out/sass.txt" || true) HGMMA, $(grep -c 'F2FP.F16.E4M3' "$out/sass.txt" || true) F2FP.F16.E4M3, $(grep -c 'MUFU.EX2' "$out/sass.txt" || true) MUFU.EX2, $(grep -c UBLKCP "$out/sass.txt" || true) UBLKCP, $(grep -c LDGSTS "$out/sass.txt" || true) LDGSTS, $(grep -cE 'LDL|STL' "$out/sass.txt" || true) LDL/STL"
fi
status=0
"$out/stage0" "$@" 2>&1 | tee "$out/stage0.log" || status=$?
echo "---- summary ($out/stage0.log)"
grep -E "^device:|^RESULT|FAIL|^stage0:" "$out/stage0.log" | sed 's/^RESULT //' || true
exit $status
