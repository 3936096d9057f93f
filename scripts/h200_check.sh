#!/usr/bin/env bash
# The one GPU command, from the repository root of a copy of the tree on an NVIDIA GPU:
# build the native library, run every test marked gpu through the public API, time the
# benchmark matrix beside its peers, and leave the H200's results file and page in $OUT.
#
#   OUT=out bash scripts/h200_check.sh [PHASE...]        (default: every phase, in order)
#
#   build   python -m jax_glm_nope build-ffi --archs $ARCHS (sm_90a); ptxas.json
#   suite   pytest -m gpu tests ($TESTS: more pytest arguments, e.g. "-k extreme_ranges");
#           suite-attention / suite-rest: its two halves (one device call each)
#   cmdbuf  tests/test_kv_rows_gpu.py with XLA command buffers off, then forced on for custom calls
#   export  scripts/export_roundtrip.py: artifacts exported by a CPU-only JAX, run on the GPU
#   example examples/decode_loop.py --check-dense (the dense mask over the same rows, same step)
#   k2048   benchmarks/bench.py, cuda pallas flashmla, K = 2048 decode    -> bench_k2048/bench.json
#   holes   the same at K = 2176 with holes, and prefill                  -> bench_holes/bench.json
#   onetoken  cuda pallas flashmla plain_jax at one token (and b=8, 128 at 64 heads) -> bench_onetoken/bench.json
#   gap     benchmarks/launch_gap.py: host and device events of one cuda call      -> gap/launch_gap.json
#   sweep   Pallas schedules at one token (what the schedule table picks; SWEEP_CASES, SWEEP_LIMIT) -> bench_sweep/bench.json
#   page    h200.json (docs/results/h200.json with the runs and suite log above) and h200_results.md
#
# The suite alone runs past six minutes on the H200 (254 tests): give it a call of its own,
# or run its halves, `suite-attention` (tests/test_attention.py) and `suite-rest` (every
# other gpu test), in two calls.
# Every phase is more than one 10-minute device call: split it as `build suite cmdbuf`,
# `export example sweep`, `k2048`, `holes`, then bring the folders home and run the page
# phase there over all of them (docs/benchmarks.md, "Results"). FlashMLA comes from .whl/ (the download command is in
# docs/benchmarks.md); without it the benchmark reports that peer as unavailable.
# REVISION names the tree that ran when the copy's .git is stale (else .revision, else git);
# TEST_TIMEOUT and BENCH_TIMEOUT bound the phases.
set -o pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-gpu_check}
mkdir -p "$OUT"
phases=${*:-build suite cmdbuf export example k2048 holes sweep page}
if compgen -G ".whl/*.whl" > /dev/null; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
    --target /tmp/site .whl/*.whl && export PYTHONPATH=/tmp/site
fi
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}" XLA_PYTHON_CLIENT_PREALLOCATE=false PYTHONUNBUFFERED=1
export JAX_GLM_NOPE_CACHE_DIR=${JAX_GLM_NOPE_CACHE_DIR:-/tmp/jgn_cache}
REVISION=${REVISION:-$(cat .revision 2>/dev/null)}
status=0

environment() {
  nvidia-smi --query-gpu=name,driver_version,compute_cap,clocks.sm,clocks.mem --format=csv
  python3 -c "import jax, jaxlib; print('jax', jax.__version__, 'jaxlib', jaxlib.__version__, jax.devices())"
  echo "revision: ${REVISION:-$(git rev-parse --short HEAD 2>/dev/null)}"
}

bench() {  # name, bench.py arguments...
  local name=$1
  shift
  mkdir -p "$OUT/bench_$name"
  timeout "${BENCH_TIMEOUT:-570}" python3 benchmarks/bench.py --out "$OUT/bench_$name" "$@" 2>&1 \
    | tee "$OUT/bench_$name/bench.log" | grep -v "━" || status=1
}

for phase in $phases; do
  start=$(date +%s)
  echo "== $phase"
  case $phase in
    build)
      environment > "$OUT/environment.txt" 2>&1
      python3 -m jax_glm_nope build-ffi --archs "${ARCHS:-sm_90a}" 2>&1 | tee "$OUT/build.log" || status=1
      cp "$JAX_GLM_NOPE_CACHE_DIR"/*/ptxas.json "$OUT/" 2>/dev/null ;;
    suite | suite-attention | suite-rest)
      case $phase in
        suite) files=(tests) ;;
        suite-attention) files=(tests/test_attention.py) ;;
        suite-rest) files=(tests --ignore=tests/test_attention.py) ;;
      esac
      # shellcheck disable=SC2086  # $TESTS is pytest arguments
      timeout "${TEST_TIMEOUT:-570}" python3 -m pytest -q -p no:cacheprovider -rs --durations=15 -m gpu \
        $TESTS "${files[@]}" 2>&1 | tee "$OUT/gpu_$phase.log" | tail -n 60 || status=1 ;;
    cmdbuf)  # the default setting is the suite's; here off, then on for custom calls too
      for flags in "--xla_gpu_enable_command_buffer=" \
        "--xla_gpu_enable_command_buffer=FUSION,CUSTOM_CALL --xla_gpu_graph_min_graph_size=1"; do
        XLA_FLAGS="$flags" timeout 300 python3 -m pytest -q -p no:cacheprovider -rs tests/test_kv_rows_gpu.py \
          2>&1 | tee -a "$OUT/command_buffers.log" | tail -n 3 || status=1
      done ;;
    export)  # made on a CPU-only JAX, run on the GPU
      { JAX_PLATFORMS=cpu timeout 200 python3 scripts/export_roundtrip.py write /tmp/jgn_export &&
        timeout 200 python3 scripts/export_roundtrip.py run /tmp/jgn_export; } 2>&1 | tee "$OUT/export.log" \
        || status=1 ;;
    example)
      timeout 200 python3 examples/decode_loop.py --check-dense --json "$OUT/example.json" 2>&1 \
        | tee "$OUT/example.log" || status=1 ;;
    k2048) bench k2048 --implementation cuda pallas flashmla --cases k2048 --time-limit 430 ;;
    holes) bench holes --implementation cuda pallas flashmla --cases holes --time-limit 420 ;;
    onetoken) bench onetoken --implementation cuda pallas flashmla plain_jax --time-limit 400 \
      --cases decode:1:8:2048,decode:1:16:2048,decode:1:32:2048,decode:1:64:2048,decode:1:128:2048,decode:8:64:2048,decode:128:64:2048,decode:8:64:2176:holes ;;
    gap)  # a host-and-device trace of one cuda call, under XLA's defaults and command buffers
      timeout 300 python3 benchmarks/launch_gap.py --cases decode:8:64:2048,decode:8:64:2176:holes --out "$OUT/gap" \
        2>&1 | tee "$OUT/gap.log" | head -n 400 || status=1 ;;
    sweep) bench sweep --implementation pallas --sweep --time-limit "${SWEEP_LIMIT:-300}" \
      --cases "${SWEEP_CASES:-decode:1:32:2048,decode:1:64:2048,decode:1:128:2048,decode:1:64:2176:holes,decode:1:128:2176:holes}" ;;
    page)  # every bench JSON and suite log under $OUT, into a copy of the kept results file
      cp docs/results/h200.json "$OUT/h200.json"
      mapfile -t runs < <(find "$OUT" -name bench.json | sort)
      suite=$(find "$OUT" -name gpu_suite.log | head -1)
      python3 -m benchmarks.page --collect "$OUT/h200.json" "${runs[@]}" ${suite:+--suite-log "$suite"} \
        ${REVISION:+--revision "$REVISION"} && python3 -m benchmarks.page "$OUT/h200.json" "$OUT/h200_results.md" \
        || status=1 ;;
    *) echo "unknown phase $phase (build suite suite-attention suite-rest cmdbuf export example k2048 holes onetoken gap sweep page)"; exit 2 ;;
  esac
  echo "$phase: $(( $(date +%s) - start )) s" | tee -a "$OUT/phases.log"
done
exit $status
