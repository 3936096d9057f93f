#!/usr/bin/env bash
# One device call: the GPU test suite, then the benchmark, from the repository root.
#   OUT=results bash benchmarks/gpu_run.sh [bench args...]
# FlashMLA (sgl-flash-mla==1.0.0) is installed from .whl/ when that folder holds its wheel
# (see docs/pallas.md for the download command); without it the benchmark skips that peer.
# PYTEST_ADDOPTS (pytest's own) / SKIP_TESTS / SKIP_BENCH / TEST_TIMEOUT / BENCH_TIMEOUT tune the phases.
set -o pipefail
OUT=${OUT:-bench_results}
mkdir -p "$OUT"
if compgen -G ".whl/sgl_flash_mla-*.whl" > /dev/null; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
    --target /tmp/site .whl/sgl_flash_mla-*.whl && export PYTHONPATH=/tmp/site
fi
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}" XLA_PYTHON_CLIENT_PREALLOCATE=false PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > "$OUT/gpu.txt" 2>&1
status=0
if [ -z "$SKIP_TESTS" ]; then
  timeout "${TEST_TIMEOUT:-300}" python3 -m pytest -q -p no:cacheprovider -m gpu tests/test_pallas_gpu.py \
    2>&1 | tee "$OUT/gpu_tests.log" | tail -n 30 || status=1
fi
if [ -z "$SKIP_BENCH" ]; then
  timeout "${BENCH_TIMEOUT:-400}" python3 benchmarks/bench.py --out "$OUT" "$@" 2>&1 | tee "$OUT/bench.log" \
    | grep -v "━" || status=1
fi
exit $status
