#!/usr/bin/env bash
# Shipping the lean softmax of the pipelined kernel (research/lean_softmax.md), on an
# H100/H200, from the repository root of a copy of the tree whose kHpLeanSoftmax is true:
#
#   suite   the native build, then the public-API GPU tests that reach our Hopper kernels:
#           TestCudaGPU and the Hopper tests of tests/test_attention.py, tests/test_batch_invariance.py,
#           tests/test_cuda_sm90.py (SELECT: pytest's -k; ~2-3 min)
#   bench   the whole call of `cuda` beside FlashMLA on this tree, then `cuda` alone on a copy
#           of it with the two-exponential softmax (the previous default), same cases, same card
#
#   OUT=dir REVISION=rev bash research/sm90_lean_ship.sh [suite] [bench]
# FlashMLA comes from .whl/ (docs/benchmarks.md). CASES overrides the benchmark's cases.
set -o pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/sm90_lean_ship}
mkdir -p "$OUT"
grep -q "constexpr bool kHpLeanSoftmax = true;" ffi/ours/sm90/heads_major_pipelined_kernel.cuh || {
  echo "this tree does not ship the lean softmax (kHpLeanSoftmax)"; exit 2; }
cases=${CASES:-decode:8:64:2048,decode:128:64:2048,decode:128:128:2048,decode:128:32:2048,decode:128:64:2176:holes,prefill:4096:128:2176:holes}
status=0
for phase in ${*:-suite bench}; do
  start=$(date +%s)
  case $phase in
    suite)
      OUT=$OUT bash scripts/h200_check.sh build || status=1
      PYTHONPATH=$PWD XLA_PYTHON_CLIENT_PREALLOCATE=false JAX_GLM_NOPE_CACHE_DIR=${JAX_GLM_NOPE_CACHE_DIR:-/tmp/jgn_cache} \
        timeout "${TEST_TIMEOUT:-300}" python3 -m pytest -q -p no:cacheprovider -rs --durations=10 -m gpu \
        -k "${SELECT:-TestCudaGPU or hopper or test_batch_invariance or test_cuda_sm90}" tests/test_attention.py tests/test_batch_invariance.py \
        tests/test_cuda_sm90.py 2>&1 | tee "$OUT/gpu_suite.log" | tail -n 40 || status=1 ;;
    bench)
      OUT=$OUT BENCH_TIMEOUT=300 bash scripts/h200_check.sh build >/dev/null
      if compgen -G ".whl/*.whl" > /dev/null; then
        python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
          --target /tmp/site .whl/*.whl
      fi
      export XLA_PYTHON_CLIENT_PREALLOCATE=false JAX_GLM_NOPE_CACHE_DIR=${JAX_GLM_NOPE_CACHE_DIR:-/tmp/jgn_cache}
      mkdir -p "$OUT/bench_lean" "$OUT/bench_old"
      PYTHONPATH="$PWD:/tmp/site" timeout 200 python3 benchmarks/bench.py --out "$OUT/bench_lean" \
        --implementation cuda flashmla --cases "$cases" --time-limit 150 2>&1 | grep -v "━" \
        | tee "$OUT/bench_lean/bench.log" || status=1
      old=/tmp/old_softmax_tree
      rm -rf "$old" && mkdir -p "$old" && tar --exclude=.git -cf - . | tar -xf - -C "$old"
      sed -i 's/constexpr bool kHpLeanSoftmax = true;/constexpr bool kHpLeanSoftmax = false;/' \
        "$old/ffi/ours/sm90/heads_major_pipelined_kernel.cuh"
      (cd "$old" && PYTHONPATH="$old" python3 -m jax_glm_nope build-ffi --archs sm_90a > "$OUT/bench_old/build.log" 2>&1 &&
        PYTHONPATH="$old" timeout 150 python3 benchmarks/bench.py --out "$OUT/bench_old" \
          --implementation cuda --cases "$cases" --time-limit 100 2>&1 | grep -v "━" \
          | tee "$OUT/bench_old/bench.log") || status=1 ;;
    *) echo "unknown phase $phase (suite bench)"; exit 2 ;;
  esac
  echo "$phase: $(( $(date +%s) - start )) s" | tee -a "$OUT/phases.log"
done
exit $status
