#!/usr/bin/env bash
# One device call, from the repository root: the GPU tests, then the benchmark.
#   OUT=results bash benchmarks/gpu_run.sh [bench.py args...]
# FlashMLA (sgl-flash-mla==1.0.0) is installed from .whl/ when that folder holds its wheel
# (docs/benchmarks.md has the download command); without it the benchmark reports that peer
# as unavailable. SKIP_TESTS / SKIP_BENCH / TEST_TIMEOUT / BENCH_TIMEOUT tune the phases;
# PYTEST_ADDOPTS is pytest's own.
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
  timeout "${TEST_TIMEOUT:-300}" python3 -m pytest -q -p no:cacheprovider -m gpu tests \
    2>&1 | tee "$OUT/gpu_tests.log" | tail -n 30 || status=1
fi
if [ -z "$SKIP_BENCH" ]; then
  timeout "${BENCH_TIMEOUT:-540}" python3 benchmarks/bench.py --out "$OUT" "$@" 2>&1 | tee "$OUT/bench.log" \
    || status=1
fi
exit $status
