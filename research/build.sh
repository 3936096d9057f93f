#!/usr/bin/env bash
# Build the lab's sm_90a programs against the product's headers (-I ffi), with the lab's
# own ptxas gates: no spills, no wgmma serialization advisory (C75xx), setmaxnreg honoured.
# Nothing here is part of the package, the wheel or the native build.
#
# Usage: research/build.sh OUTDIR [selftest] [stage0]   (default: both)
#   OUTDIR/sm90_selftest  research/sm90/selftest/selftest.cu (the product's kernels + the lab's)
#   OUTDIR/stage0         research/sm90/stage0/stage0.cu (microbenchmarks, one file each, on the
#                         product's PTX wrappers)
#   OUTDIR/<program>.ptxas.log, OUTDIR/<program>.sass.txt (when cuobjdump is found)
# NVCC picks the compiler (default: nvcc on PATH, else /usr/local/cuda/bin/nvcc);
# CUOBJDUMP the disassembler (default: on PATH, else beside nvcc).
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:?usage: research/build.sh OUTDIR [selftest] [stage0]}
shift
programs=("$@")
[ ${#programs[@]} -eq 0 ] && programs=(selftest stage0)
mkdir -p "$out"
nvcc=${NVCC:-nvcc}
command -v "$nvcc" >/dev/null || nvcc=/usr/local/cuda/bin/nvcc
objdump=${CUOBJDUMP:-$(command -v cuobjdump || true)}
[ -z "$objdump" ] && [ -x "$(dirname "$nvcc")/cuobjdump" ] && objdump="$(dirname "$nvcc")/cuobjdump"

status=0
for program in "${programs[@]}"; do
  case "$program" in
    selftest) source=research/sm90/selftest/selftest.cu binary="$out/sm90_selftest" ;;
    stage0) source=research/sm90/stage0/stage0.cu binary="$out/stage0" ;;
    *) echo "unknown program: $program (selftest, stage0)"; exit 2 ;;
  esac
  log="$out/$program.ptxas.log"
  start=$(date +%s)
  "$nvcc" -std=c++17 -O3 --expt-relaxed-constexpr -gencode arch=compute_90a,code=sm_90a -lineinfo \
    -Xptxas -v -I ffi -I research/sm90 "$source" -o "$binary" 2>"$log" || {
    echo "FAIL: $program does not compile (see $log)"; tail -20 "$log"; exit 1; }
  echo "build $program: $(($(date +%s) - start)) s, $(grep -c 'Compiling entry' "$log") kernels"
  # Spills per kernel (the kernel named by the "Function properties" line before each
  # count). Stage 1's register-budget probes (m9_kernel, m11_gather) report theirs in the
  # notebook instead: at 96 producer registers the spill is part of what they measure.
  spilled=$(awk '/Function properties for/ {name = $NF}
    /bytes spill (stores|loads)/ && ($5 + 0 > 0 || $9 + 0 > 0) {print name}' "$log" | sort -u)
  if [ "$program" = stage0 ]; then
    spilled=$(echo "$spilled" | grep -v -E "m9_kernel|m11_gather" || true)
  fi
  if [ -n "$spilled" ]; then
    echo "FAIL: ptxas reports spills in $program (see $log):"
    echo "$spilled" | head -10
    status=1
  fi
  # (stage0's M5 probe issues single wgmmas whose registers ptxas fences itself, C7519:
  # allowed there, it measures no rate)
  if [ "$program" = selftest ]; then
    if grep -E "\(C75[0-9][0-9]\)" "$log" >/dev/null; then
      echo "FAIL: ptxas serialized warpgroup MMAs in $program (C75xx, see $log)"
      grep -E "\(C75[0-9][0-9]\)" "$log" | head -5
      status=1
    fi
    if grep -E "C7508|setmaxnreg" "$log" >/dev/null; then
      echo "FAIL: ptxas ignored setmaxnreg in $program"
      grep -E "C7508|setmaxnreg" "$log" | head -3
      status=1
    fi
  fi
  # stage0's rate-measuring wgmma kernels (M2, M6, M8) must not be serialized either
  if [ "$program" = stage0 ] && grep -E "\(C75[0-9][0-9]\).*'_Z[0-9]+(m2_wgmma|m6_kernel|m8_score)" "$log" >/dev/null; then
    echo "FAIL: ptxas serialized warpgroup MMAs in a rate-measuring stage0 kernel (C75xx, see $log)"
    grep -E "\(C75[0-9][0-9]\).*'_Z[0-9]+(m2_wgmma|m6_kernel|m8_score)" "$log" | head -5
    status=1
  fi
  if [ -n "$objdump" ]; then
    "$objdump" -sass "$binary" >"$out/$program.sass.txt" 2>/dev/null || true
    echo "SASS $program: $(grep -cE 'HMMA|HGMMA' "$out/$program.sass.txt" || true) HMMA/HGMMA," \
      "$(grep -c 'F2FP.F16.E4M3' "$out/$program.sass.txt" || true) F2FP.F16.E4M3," \
      "$(grep -c UBLKCP "$out/$program.sass.txt" || true) UBLKCP, $(grep -cE 'LDL|STL' "$out/$program.sass.txt" || true) LDL/STL"
  fi
done
exit $status
