#!/usr/bin/env bash
# One device call on an NVIDIA GPU: build the native library, then the GPU suite through
# the public API (every implementation this GPU has), then optionally the benchmark.
#   OUT=logs bash scripts/h200_check.sh [pytest -k expression]
# BENCH="--cases ..." also runs benchmarks/bench.py with those arguments; OLD_TREE=path (a
# `git archive e0e3ff1 jax_glm_nope` tree) also runs scripts/pallas_nan_regression.py;
# SUITE=0 skips the GPU suite; BENCH2="..." runs a second benchmark into $OUT/bench2;
# SELFTEST=1 first runs research/sm90_selftest.sh (no timings: --no-bench); EXPORT=1 exports
# sparse_mla with JAX on the CPU (JAX_PLATFORMS=cpu) and runs the artifact on the GPU; EXAMPLE=1
# runs scripts/example_dense_diagnosis.py and examples/decode_loop.py --check-dense.
set -o pipefail
OUT=${OUT:-h200_logs}
mkdir -p "$OUT"
if compgen -G ".whl/*.whl" > /dev/null; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
    --target /tmp/site .whl/*.whl && export PYTHONPATH=/tmp/site
fi
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}" XLA_PYTHON_CLIENT_PREALLOCATE=false PYTHONUNBUFFERED=1
export JAX_GLM_NOPE_CACHE_DIR=${JAX_GLM_NOPE_CACHE_DIR:-/tmp/jgn_cache}
{
  nvidia-smi --query-gpu=name,driver_version,compute_cap,clocks.sm,clocks.mem --format=csv
  python3 -c "import jax, jaxlib; print('jax', jax.__version__, 'jaxlib', jaxlib.__version__, jax.devices())"
  cat .revision 2>/dev/null
} > "$OUT/environment.txt" 2>&1
status=0
if [ "${SELFTEST:-0}" = 1 ]; then
  timeout 300 research/sm90_selftest.sh /tmp/sm90_selftest --no-bench > "$OUT/selftest.log" 2>&1 || status=1
  grep -E "FAIL|^correctness|^build|SASS" "$OUT/selftest.log" | head -20
fi
start=$(date +%s)
python3 -m jax_glm_nope build-ffi --archs sm_90a 2>&1 | tee "$OUT/build.log" || status=1
cp "$JAX_GLM_NOPE_CACHE_DIR"/*/ptxas.json "$OUT/" 2>/dev/null
echo "build: $(( $(date +%s) - start )) s" | tee -a "$OUT/build.log"
tests="tests"  # every test marked gpu (the attention suite, KV rows, batch invariance, Pallas pools past 2 GiB, ...)
if [ "${SUITE:-1}" = 1 ]; then  # SUITE=0: benchmark or export only
  timeout "${TEST_TIMEOUT:-420}" python3 -m pytest -q -p no:cacheprovider -rs --durations=15 -m gpu \
    ${1:+-k "$1"} $tests 2>&1 | tee "$OUT/gpu_suite.log" | tail -n 60 || status=1
fi
if [ "${EXPORT:-0}" = 1 ]; then  # made on a CPU-only JAX, run on the GPU
  { JAX_PLATFORMS=cpu timeout 200 python3 scripts/export_roundtrip.py write /tmp/jgn_export &&
    timeout 200 python3 scripts/export_roundtrip.py run /tmp/jgn_export; } 2>&1 | tee "$OUT/export.log" || status=1
fi
if [ "${EXAMPLE:-0}" = 1 ]; then  # the example's own dense check, per suspect, then the README command
  timeout 300 python3 scripts/example_dense_diagnosis.py --out "$OUT" 2>&1 | tee "$OUT/diagnosis.log" || status=1
  timeout 150 python3 examples/decode_loop.py --check-dense --json "$OUT/example.json" 2>&1 \
    | tee "$OUT/example.log" || status=1
fi
if [ -n "$OLD_TREE" ]; then  # the 0.1.0 Pallas NaN, before and after, same inputs
  timeout 200 python3 scripts/pallas_nan_regression.py --old "$OLD_TREE" 2>&1 | tee "$OUT/nan_regression.log"
fi
if [ -n "$BENCH" ]; then
  timeout "${BENCH_TIMEOUT:-400}" python3 benchmarks/bench.py --out "$OUT" $BENCH 2>&1 \
    | tee "$OUT/bench.log" | grep -v "━" || status=1
fi
if [ -n "$BENCH2" ]; then  # a second matrix (other implementations), in $OUT/bench2
  mkdir -p "$OUT/bench2"
  timeout "${BENCH_TIMEOUT:-400}" python3 benchmarks/bench.py --out "$OUT/bench2" $BENCH2 2>&1 \
    | tee "$OUT/bench2/bench.log" | grep -v "━" || status=1
fi
exit $status
