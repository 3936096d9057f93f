#!/usr/bin/env bash
# The bridge's checks on a GPU that is not SM120/SM121 (we ran it on an H200):
# the generic targets bit-exact against the numpy reference and the jnp quantizer,
# in place under donation, with XLA command buffers off, default, and forced on for
# custom calls; the GLM targets' clean Unimplemented error; and a build on first use
# on this machine (generic targets only when FlashInfer is not installed).
#
# Usage: scripts/h200_ffi_check.sh [OUTDIR]
#   JAX_GLM_NOPE_FFI_LIBRARY=/path/lib.so  test a prebuilt library (else build here)
set -u
cd "$(dirname "$0")/.."
out=${1:-${OUT:-/tmp/h200_ffi_check}}
mkdir -p "$out"
export PYTHONUNBUFFERED=1 XLA_PYTHON_CLIENT_PREALLOCATE=false JAX_PLATFORMS=cuda
python=${PYTHON:-python3}
{
  nvidia-smi -L
  nvcc --version | tail -2
  "$python" -c "import jax, jaxlib; print('jax', jax.__version__, 'jaxlib', jaxlib.__version__, jax.devices())"
} >"$out/env.log" 2>&1

# Build on first use, here, with this machine's jax headers (kept in its own cache).
(
  export JAX_GLM_NOPE_CACHE_DIR=/tmp/jax_glm_nope_h200_cache
  unset JAX_GLM_NOPE_FFI_LIBRARY
  start=$(date +%s)
  "$python" -m jax_glm_nope.bridge --archs sm_90a
  rc=$?
  echo "build wall $(($(date +%s) - start)) s"
  echo "rc=$rc"
) >"$out/build.log" 2>&1 &

variant() {  # name, XLA_FLAGS
  XLA_FLAGS="$2" "$python" -m pytest -q -p no:cacheprovider -rs tests/test_ffi_gpu.py \
    >"$out/pytest_$1.log" 2>&1
  echo "rc=$?" >>"$out/pytest_$1.log"
}
variant command_buffer_off "--xla_gpu_enable_command_buffer=" &
variant command_buffer_default "" &
variant command_buffer_custom_calls \
  "--xla_gpu_enable_command_buffer=FUSION,CUSTOM_CALL --xla_gpu_graph_min_graph_size=1 --xla_dump_to=/tmp/jgn_cmdbuf_dump --xla_dump_hlo_as_text --xla_dump_hlo_module_re=.*write_kv.*" &
wait

# Evidence that XLA put the write target inside a command buffer: XLA converts thunk
# sequences (not HLO) into command buffers, and dumps the result per module.
{
  ls /tmp/jgn_cmdbuf_dump | sed -n 1,40p
  for f in /tmp/jgn_cmdbuf_dump/*thunk_sequence*; do
    if grep -qi "write_kv\|custom" "$f"; then
      echo "== $f"
      grep -n -i "command\|custom\|write_kv" "$f" | head -30
    fi
  done
} >"$out/command_buffer_thunks.log" 2>&1

# The library built here on first use, through the same tests.
lib=$(ls /tmp/jax_glm_nope_h200_cache/*/libjax_glm_nope_ffi.so 2>/dev/null | head -1)
if [ -n "$lib" ]; then
  JAX_GLM_NOPE_FFI_LIBRARY="$lib" "$python" -m pytest -q -p no:cacheprovider -rs tests/test_ffi_gpu.py \
    >"$out/pytest_built_here.log" 2>&1
  echo "rc=$?" >>"$out/pytest_built_here.log"
fi
tail -n 3 "$out"/*.log
