#!/usr/bin/env bash
# Profiler evidence for our sm_90a kernel, in one device call on an H200/H100:
#   1. ncu (hardware counters, clocks left alone) of the attention kernel and its split
#      combine at chosen cases: speed of light, warp states (stall reasons), pipe
#      utilisation, memory, and per-SASS-line stall samples;
#   2. optionally the selftest (correctness, CUDA-graph timings) and stage 0.
# Read a case's stall samples with `python research/ncu_stalls.py WORK/ncu_T_H_K.source.csv`.
# The work folder is packed into OUTDIR/profile.tgz (text: logs, CSV exports) and
# OUTDIR/reports.tgz (the .ncu-rep files, when small enough to fetch).
#
# Usage: research/sm90_profile.sh OUTDIR [CASE ...]     CASE = T:H:K (batch split rule),
#   or T:H:K+pipelined / T:H:K+wgmma for that kernel's case
#   SELFTEST=1 STAGE0=1 also run research/sm90_selftest.sh and research/sm90_stage0.sh;
#   PROFILE_ARGS=--wgmma profiles the wgmma kernel's cases (9-32 heads); SELFTEST_BIN=path
#   profiles a selftest built beforehand (research/build.sh) instead of building one.
set -uo pipefail
cd "$(dirname "$0")/.."
out=${1:?usage: research/sm90_profile.sh OUTDIR [T:H:K ...]}
shift
cases=("$@")
[ ${#cases[@]} -eq 0 ] && cases=(1:8:2048 32:8:2048 128:8:2048 128:16:2048 128:32:2048)
work=${WORK:-/tmp/sm90_profile/work}
mkdir -p "$work"
ncu=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
nvidia-smi --query-gpu=name,driver_version,compute_cap,clocks.sm,clocks.mem --format=csv >"$work/environment.txt" 2>&1
"$ncu" --version >>"$work/environment.txt" 2>&1
cat .revision >>"$work/environment.txt" 2>/dev/null

status=0
if [ -n "${SELFTEST_BIN:-}" ]; then  # a selftest built beforehand (e.g. carried in .lab/)
  [ -x "$SELFTEST_BIN" ] || { echo "SELFTEST_BIN=$SELFTEST_BIN is not an executable"; exit 2; }
elif SELFTEST_BIN="$work/selftest/sm90_selftest" && [ "${SELFTEST:-0}" = 1 ]; then
  timeout "${SELFTEST_TIMEOUT:-300}" research/sm90_selftest.sh "$work/selftest" 2>&1 | tail -n 70 || status=1
else
  research/build.sh "$work/selftest" selftest || exit 1
fi

for cf in "${cases[@]}"; do
  c=${cf%%+*}  # T:H:K, optionally +pipelined or +wgmma: that kernel's case for this one
  flag=""
  [ "$c" != "$cf" ] && flag="--${cf#*+}"
  name="ncu_${c//:/_}${flag:+_${flag#--}}"
  # Skip the first launch (and its combine): caches and clocks warm; profile the second.
  timeout "${NCU_TIMEOUT:-150}" "$ncu" --clock-control none --set full --import-source yes \
    -k regex:"sparse_mla|combine_kernel" --launch-skip 2 --launch-count 2 \
    -f -o "$work/$name" "$SELFTEST_BIN" --profile "$c" $flag ${PROFILE_ARGS:-} >"$work/$name.log" 2>&1 || status=1
  if [ -f "$work/$name.ncu-rep" ]; then
    "$ncu" --import "$work/$name.ncu-rep" --page details --csv >"$work/$name.details.csv" 2>/dev/null
    "$ncu" --import "$work/$name.ncu-rep" --page raw --csv >"$work/$name.raw.csv" 2>/dev/null
    "$ncu" --import "$work/$name.ncu-rep" --page source --csv --print-source sass \
      -k regex:"sparse_mla" >"$work/$name.source.csv" 2>/dev/null
    # The headline per kernel: duration, issue activity, top stall reasons, pipes.
    echo "== $cf"
    grep -E '"(Duration|Compute \(SM\) Throughput|Memory Throughput|DRAM Throughput|Issue Slots Busy|Issued Warp Per Scheduler|No Eligible|Active Warps Per Scheduler|Eligible Warps Per Scheduler|Warp Cycles Per Issued Instruction|Achieved Occupancy|Registers Per Thread)"' \
      "$work/$name.details.csv" | awk -F'","' '{k=$5; sub(/\(.*/, "", k); print k " | " $(NF-2) " = " $NF}' | tr -d '"' | head -40
  else
    echo "== $cf: no report"; tail -5 "$work/$name.log"
  fi
done

if [ "${STAGE0:-0}" = 1 ]; then
  timeout "${STAGE0_TIMEOUT:-200}" research/sm90_stage0.sh "$work/stage0" 2>&1 | tail -n 40 || status=1
fi
mkdir -p "$out"
tar czf "$out/profile.tgz" -C "$(dirname "$work")" --exclude='*.ncu-rep' --exclude='sm90_selftest' \
  --exclude='work/stage0/stage0' --exclude='*sass.txt' "$(basename "$work")"
tar czf "$out/reports.tgz" -C "$(dirname "$work")" $(cd "$(dirname "$work")" && ls "$(basename "$work")"/*.ncu-rep 2>/dev/null)
[ "$(stat -c %s "$out/reports.tgz")" -gt 15000000 ] && rm -f "$out/reports.tgz" && echo "reports.tgz too large: left out"
ls -la "$out"
exit $status
