#!/usr/bin/env bash
# One device call on a host with several GPUs: the example at GLM-5.3-Flash's
# attention geometry on every GPU (scripts/multi_gpu_example.py), after building the
# native library, with NVLink multicast kept off as the device notes require.
#   OUT=logs bash scripts/multi_gpu_check.sh [multi_gpu_example.py options]
set -o pipefail
OUT=${OUT:-multi_gpu_logs}
mkdir -p "$OUT"
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}" XLA_PYTHON_CLIENT_PREALLOCATE=false PYTHONUNBUFFERED=1
export JAX_GLM_NOPE_CACHE_DIR=${JAX_GLM_NOPE_CACHE_DIR:-/tmp/jgn_cache}
{
  nvidia-smi --query-gpu=index,name,driver_version,compute_cap --format=csv
  nvidia-smi topo -m 2>/dev/null | head -12
  python3 -c "import jax; print('jax', jax.__version__, jax.devices())"
  cat .revision 2>/dev/null
} > "$OUT/environment.txt" 2>&1
status=0
python3 -m jax_glm_nope build-ffi --archs sm_90a > "$OUT/build.log" 2>&1 || status=1
timeout "${RUN_TIMEOUT:-540}" python3 scripts/multi_gpu_example.py --out "$OUT" "$@" 2>&1 | tee "$OUT/run.log" || status=1
exit $status
