#!/usr/bin/env bash
# ncu (hardware counters, clocks left alone) of the Pallas one-token call: the attention
# kernel and the split merge, at the head counts given (default 16 64 128), the third
# call of each (two warm-up calls skipped). Prints per kernel the duration, occupancy,
# registers and the top stall reasons; the source-page export is read by
# research/ncu_stalls.py. ~20-30 s per head count on an H100.
#
# Usage: OUT=/some/dir bash research/pallas/one_token_profile.sh [H ...]
set -uo pipefail
cd "$(dirname "$0")/../.."
out=${OUT:-/tmp/pallas_one_token_profile}
mkdir -p "$out"
ncu=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}" XLA_PYTHON_CLIENT_PREALLOCATE=false
heads=("$@")
[ ${#heads[@]} -eq 0 ] && heads=(16 64 128)
status=0
for h in "${heads[@]}"; do
  name="$out/pallas_T1_H$h"
  timeout "${NCU_TIMEOUT:-150}" "$ncu" --clock-control none --set full --import-source yes \
    -k regex:"sparse_mla" --launch-skip 4 --launch-count 2 -f -o "$name" \
    python3 research/pallas/one_token_driver.py "$h" 3 >"$name.log" 2>&1 || status=1
  [ -f "$name.ncu-rep" ] || { echo "== H=$h: no report"; tail -5 "$name.log"; continue; }
  "$ncu" --import "$name.ncu-rep" --page details --csv >"$name.details.csv" 2>/dev/null
  "$ncu" --import "$name.ncu-rep" --page source --csv --print-source sass \
    -k regex:"sparse_mla_fp8_rows" >"$name.source.csv" 2>/dev/null
  echo "== H=$h"
  grep -E '"(Duration|Compute \(SM\) Throughput|Memory Throughput|DRAM Throughput|L2 Cache Throughput|Issue Slots Busy|No Eligible|Active Warps Per Scheduler|Eligible Warps Per Scheduler|Warp Cycles Per Issued Instruction|Achieved Occupancy|Registers Per Thread|Grid Size|Block Size|Local Memory Spilling Requests|Dynamic Shared Memory Per Block|Executed Instructions)"' \
    "$name.details.csv" | awk -F'","' '{k=$5; sub(/\(.*/, "", k); print k " | " $(NF-2) " = " $NF}' | tr -d '"' | head -60
  python3 research/ncu_stalls.py "$name.source.csv" 2>&1 | head -45
done
rm -f "$out"/*.ncu-rep.tmp
exit $status
