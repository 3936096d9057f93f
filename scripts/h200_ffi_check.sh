#!/usr/bin/env bash
# The native library's checks on a GPU that is not SM120/SM121 (we run it on an H200):
# tests/test_kv_rows_gpu.py (write_kv(..., implementation="cuda") bit-exact against
# jax_glm_nope.testing.quantize_f64, in place under donation and in a jitted loop, the
# native dequantize against the jnp one, sparse_mla(..., implementation="flashinfer")
# refused naming the device, the raw FlashInfer targets' clean Unimplemented) with XLA
# command buffers off, default, and forced on for custom calls; and a build on first use
# on this machine (sm_90a; FlashInfer's adapters need sm_120a, so they are left out).
#
# Usage: scripts/h200_ffi_check.sh [OUTDIR]
#   JAX_GLM_NOPE_FFI_LIBRARY=/path/lib.so  test a prebuilt library (else build here)
set -u
cd "$(dirname "$0")/.."
out=${1:-${OUT:-/tmp/h200_ffi_check}}
mkdir -p "$out"
export PYTHONUNBUFFERED=1 XLA_PYTHON_CLIENT_PREALLOCATE=false JAX_PLATFORMS=cuda
python=${PYTHON:-python3}
tests=tests/test_kv_rows_gpu.py
cache=/tmp/jax_glm_nope_h200_cache
dump=/tmp/jgn_cmdbuf_dump
{
  nvidia-smi -L
  nvcc --version | tail -2
  "$python" -c "import jax, jaxlib; print('jax', jax.__version__, 'jaxlib', jaxlib.__version__, jax.devices())"
  "$python" -c "from jax_glm_nope import device; print(device.current().describe())"
} >"$out/env.log" 2>&1

# Build, here, with this machine's jax headers (kept in its own cache): what a first
# use does, through the CLI.
(
  export JAX_GLM_NOPE_CACHE_DIR=$cache
  unset JAX_GLM_NOPE_FFI_LIBRARY
  start=$(date +%s)
  "$python" -m jax_glm_nope build-ffi --archs sm_90a
  rc=$?
  echo "build wall $(($(date +%s) - start)) s"
  echo "rc=$rc"
  lib=$(ls "$cache"/*/libjax_glm_nope_ffi.so 2>/dev/null | head -1)
  [ -n "$lib" ] && "$python" -c "
import json, sys
from jax_glm_nope.native import build
report = build.ptxas_report(sys.argv[1])
ours = [r for r in report if r['ours']]
print(len(report), 'kernels;', sum(r['spill_stores'] > 0 for r in ours), 'of ours spill;',
      'max static smem', max((r['smem_bytes'] for r in report), default=0), 'bytes')
" "$lib"
) >"$out/build.log" 2>&1 &

variant() {  # name, XLA_FLAGS
  XLA_FLAGS="$2" "$python" -m pytest -q -p no:cacheprovider -rs $tests >"$out/pytest_$1.log" 2>&1
  echo "rc=$?" >>"$out/pytest_$1.log"
}
rm -rf "$dump"
variant command_buffer_off "--xla_gpu_enable_command_buffer=" &
variant command_buffer_default "" &
variant command_buffer_custom_calls \
  "--xla_gpu_enable_command_buffer=FUSION,CUSTOM_CALL --xla_gpu_graph_min_graph_size=1 --xla_dump_to=$dump --xla_dump_hlo_as_text --xla_dump_hlo_module_re=.*(write_kv|run).*" &
wait

# Evidence that XLA put the write target inside a command buffer: XLA converts thunk
# sequences (not HLO) into command buffers, and dumps the result per module.
{
  ls "$dump" | sed -n 1,40p
  for f in "$dump"/*thunk_sequence*; do
    if grep -qi "write_kv\|custom" "$f"; then
      echo "== $f"
      grep -n -i "command\|custom\|write_kv" "$f" | head -30
    fi
  done
} >"$out/command_buffer_thunks.log" 2>&1

# The library built here on first use, through the same tests.
lib=$(ls "$cache"/*/libjax_glm_nope_ffi.so 2>/dev/null | head -1)
if [ -n "$lib" ]; then
  JAX_GLM_NOPE_FFI_LIBRARY="$lib" "$python" -m pytest -q -p no:cacheprovider -rs $tests \
    >"$out/pytest_built_here.log" 2>&1
  echo "rc=$?" >>"$out/pytest_built_here.log"
fi
tail -n 3 "$out"/*.log
