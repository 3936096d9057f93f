#!/usr/bin/env bash
# The lean softmax of the pipelined heads-major kernel on an H100/H200 (research/lean_softmax.md):
# builds research/sm90/lean_check.cu with the lab's ptxas gates (no spills, no wgmma
# serialization advisory in the two kernels), checks both softmaxes against a float64
# reference on hostile data (the lean one's slow path included), then times them at b=128
# K=2048, 64 and 128 heads. Writes OUT/lean_check.log and OUT/summary.txt. ~1.5-3 min.
# With LEAN_SELFTEST=1, then the selftest's pass 3 on the lean kernel (the lab's pipelined
# slot: every 33-128-head hostile case, 656-byte rows, NaN/Inf, batch invariance) into
# OUT/selftest/ (+3-5 min: the selftest's build).
#
# Usage: OUT=/some/dir [LEAN_SELFTEST=1] bash research/sm90_lean_check.sh [--no-bench | --bench-only]
set -euo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-/tmp/sm90_lean_check}
mkdir -p "$out"
nvcc=${NVCC:-nvcc}
command -v "$nvcc" >/dev/null || nvcc=/usr/local/cuda/bin/nvcc

start=$(date +%s)
log="$out/lean_check.ptxas.log"
"$nvcc" -std=c++17 -O3 --expt-relaxed-constexpr -gencode arch=compute_90a,code=sm_90a -lineinfo \
  -Xptxas -v -I ffi -I research/sm90 research/sm90/lean_check.cu -o "$out/lean_check" 2>"$log" || {
  echo "FAIL: lean_check does not compile (see $log)"; tail -20 "$log"; exit 1; }
status=0
gates="$out/gates.txt"
{
  echo "build: $(($(date +%s) - start)) s"
  for k in hp_kernel_old hp_kernel_lean; do
    props=$(grep -A2 "Function properties for .*$k" "$log" | tr '\n' ' ')
    echo "ptxas $k: $(echo "$props" | grep -oE '[0-9]+ bytes spill stores, [0-9]+ bytes spill loads')"
    if echo "$props" | grep -qE '[1-9][0-9]* bytes spill (stores|loads)'; then
      echo "FAIL: ptxas spills in $k"
    fi
  done
  if grep -E "\(C75[0-9][0-9]\)" "$log" >/dev/null; then
    echo "FAIL: ptxas serialized warpgroup MMAs (C75xx):"; grep -E "\(C75[0-9][0-9]\)" "$log" | head -3
  fi
} | tee "$gates"
grep -q "^FAIL" "$gates" && status=1
objdump=${CUOBJDUMP:-$(command -v cuobjdump || true)}
[ -z "$objdump" ] && [ -x "$(dirname "$(command -v "$nvcc")")/cuobjdump" ] && objdump="$(dirname "$(command -v "$nvcc")")/cuobjdump"
if [ -n "$objdump" ]; then
  "$objdump" -sass "$out/lean_check" >"$out/lean_check.sass.txt" 2>/dev/null || true
  python3 research/sass_softmax.py "$out/lean_check.sass.txt" hp_kernel_old hp_kernel_lean >"$out/sass_softmax.txt" 2>&1 || true
fi

"$out/lean_check" "$@" 2>&1 | tee "$out/lean_check.log" || status=$?
if [ "${LEAN_SELFTEST:-0}" = 1 ]; then
  research/sm90_selftest.sh "$out/selftest" --pipelined-check >"$out/selftest.txt" 2>&1 || status=$?
fi
{
  echo "lean softmax check, $(date -u +%FT%TZ), $(git rev-parse --short HEAD 2>/dev/null || echo '?')"
  nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader 2>/dev/null || true
  cat "$gates"
  grep -E "^device:|^RESULT|^FAIL|^lean_check:" "$out/lean_check.log" | sed 's/^RESULT //' || true
  if [ -f "$out/sass_softmax.txt" ]; then head -4 "$out/sass_softmax.txt"; fi
  if [ -f "$out/selftest.txt" ]; then
    echo "selftest --pipelined-check (the lean kernel):"
    sed -n '/^---- summary/,$p' "$out/selftest.txt"
  fi
  echo "exit status: $status, $(($(date +%s) - start)) s"
} >"$out/summary.txt"
echo "---- summary ($out/summary.txt)"
cat "$out/summary.txt"
exit $status
