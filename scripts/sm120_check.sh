#!/usr/bin/env bash
# For an owner of an SM120/SM121 GPU (RTX 50xx, RTX PRO 6000 Blackwell, DGX Spark):
# build the FFI bridge and run FlashInfer's GLM53_NOPE kernels against the float64
# reference on hostile cases, printing the comparison; then the bridge's GPU tests.
#
#   pip install -e '.[ffi,test]'     # flashinfer-python==0.7.4 (its headers are all we use)
#   scripts/sm120_check.sh           # writes sm120_check.log and sm120_check.json here
#
# Needs nvcc from CUDA 12.8 or newer (sm_120a). Pass --quick for heads 8 and 32 only.
set -euo pipefail
cd "$(dirname "$0")/.."
python=${PYTHON:-python3}
if ! "$python" -c "import importlib.util, sys; sys.exit(importlib.util.find_spec('flashinfer') is None)"; then
  echo "FlashInfer's headers are missing: pip install flashinfer-python==0.7.4 --no-deps" >&2
  exit 2
fi
"$python" -m jax_glm_nope.bridge
"$python" scripts/sm120_check.py --json sm120_check.json "$@" 2>&1 | tee sm120_check.log
"$python" -m pytest -q -rs tests/test_ffi_gpu.py 2>&1 | tee -a sm120_check.log
