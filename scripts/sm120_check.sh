#!/usr/bin/env bash
# For an owner of an SM120/SM121 GPU (RTX 50xx, RTX PRO 6000 Blackwell, DGX Spark): one
# command that builds the native library with FlashInfer's SM120 adapters, runs
# sparse_mla(..., implementation="flashinfer") against the float64 reference on hostile
# cases (scripts/sm120_check.py), then the GPU tests that cover it.
#
#   pip install -e '.[cuda,test]'
#   scripts/sm120_check.sh                # writes sm120_check.log and sm120_check.json here
#
# Needs nvcc from CUDA 12.8 or newer (sm_120a); FlashInfer 0.7.4's headers ship with the
# sources (ffi/third_party/flashinfer). Pass --quick for heads 8 and 32 only.
set -euo pipefail
cd "$(dirname "$0")/.."
python=${PYTHON:-python3}
# --with-flashinfer: the adapters are compiled for sm_120a/sm_121a, or the build stops
# naming why (headers missing or other than 0.7.4's).
"$python" -m jax_glm_nope build-ffi --archs sm_90a,sm_120a,sm_121a --with-flashinfer 2>&1 | tee sm120_check.log
status=0
"$python" scripts/sm120_check.py --json sm120_check.json "$@" 2>&1 | tee -a sm120_check.log || status=$?
"$python" -m pytest -q -rs tests/test_attention.py::TestFlashInferGPU tests/test_kv_rows_gpu.py \
  2>&1 | tee -a sm120_check.log || status=$?
echo "sm120_check: exit status $status (0: every case and test passed)" | tee -a sm120_check.log
exit "$status"
