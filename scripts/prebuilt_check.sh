#!/usr/bin/env bash
# "pip install on a GPU host, no compiler needed": on an NVIDIA GPU host whose Python has
# jax[cuda13], install the release wheels (scripts/build_wheel.sh) into a fresh virtualenv
# that sees that jax, make nvcc unusable, and check through the public API that the
# prebuilt library is the one used and right; then run the GPU suite's CUDA tests (KV
# rows, implementation="cuda") against the installed package. Offline: pip installs
# only the two wheels (--no-index --no-deps) and takes everything else from the host.
#
#   scripts/prebuilt_check.sh WHEEL_DIR [OUT]
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
WHEELS="$(realpath "$1")"
OUT="$(realpath -m "${2:-prebuilt_check_logs}")"
mkdir -p "$OUT"
WORK="$(mktemp -d)"
PY="$(command -v python3)"
# The two wheels in a target folder ahead of the host's own packages (a virtualenv would
# not see a jax that the host provides through PYTHONPATH or its user site).
"$PY" -m pip install -q --no-index --no-deps --no-cache-dir --target "$WORK/site" \
  "$WHEELS"/jax_glm_nope-*-py3-none-any.whl "$WHEELS"/jax_glm_nope_cu13-*.whl
export PYTHONPATH="$WORK/site${PYTHONPATH:+:$PYTHONPATH}"
# No compiler: nvcc off PATH, and JAX_GLM_NOPE_NVCC names one that fails, so a build that
# is attempted (for instance through /usr/local/cuda/bin/nvcc) fails loudly; an empty build
# cache that must stay empty; the checkout neither on sys.path nor the current directory.
unset CUDA_HOME CUDA_PATH
export PATH="/usr/bin:/bin" JAX_GLM_NOPE_NVCC=/bin/false
export JAX_GLM_NOPE_CACHE_DIR="$WORK/cache" XLA_PYTHON_CLIENT_PREALLOCATE=false
mkdir -p "$JAX_GLM_NOPE_CACHE_DIR"
cp -r "$ROOT/tests" "$WORK/tests"
cp "$ROOT/scripts/prebuilt_check.py" "$WORK/"
cd "$WORK"
status=0
"$PY" -m pip list 2>/dev/null | grep -i -E "^(jax|jaxlib|jax-glm-nope|jax-glm-nope-cu13|jax-cuda13-plugin) " | tee "$OUT/versions.txt" || true
"$PY" prebuilt_check.py 2>&1 | tee "$OUT/prebuilt_check.log" || status=1
timeout "${TEST_TIMEOUT:-420}" "$PY" -m pytest -q -p no:cacheprovider -rs -m gpu \
  tests/test_kv_rows_gpu.py "tests/test_attention.py::TestCudaGPU" 2>&1 | tee "$OUT/gpu_cuda_tests.log" | tail -n 30 || status=1
leftovers="$(ls -A "$JAX_GLM_NOPE_CACHE_DIR")"
if [ -n "$leftovers" ]; then echo "a build was attempted: $leftovers" | tee -a "$OUT/prebuilt_check.log"; status=1; fi
echo "prebuilt check: $([ $status = 0 ] && echo PASSED || echo FAILED)" | tee -a "$OUT/prebuilt_check.log"
exit $status
