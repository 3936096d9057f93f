"""Loading a native library: the file is checked before ``dlopen``, and every error names
who chose it (``JAX_GLM_NOPE_FFI_LIBRARY``, or ``register_ffi_targets``'s ``path``).

A truncated library used to end the process with SIGBUS (glibc maps its segments past
the end of the file), so those cases run in a subprocess: a crash shows as a failed
test, not a dead pytest. Nothing here needs a GPU; the real build's case needs nvcc.
"""

from __future__ import annotations

import glob
import json
import os
import pathlib
import shutil
import struct
import subprocess
import sys

import jaxlib
import pytest

import jax_glm_nope as jgn
from jax_glm_nope.native import build, library

# A real shared library every test machine has: jaxlib's own extension.
JAXLIB_LIBRARY = pathlib.Path(
    sorted(glob.glob(os.path.join(os.path.dirname(jaxlib.__file__), "_jax*.so")))[0]
)
_E_MACHINE = 18  # offset of e_machine in the ELF header
_E_SHOFF = 40  # offset of e_shoff


_ATTEMPTS = """
import json, os, sys
import jax_glm_nope as jgn
for how, target in json.loads(sys.argv[1]):
    os.environ.pop("JAX_GLM_NOPE_FFI_LIBRARY", None)
    if how == "variable":
        os.environ["JAX_GLM_NOPE_FFI_LIBRARY"] = target
    try:
        jgn.register_ffi_targets(target if how == "path" else None)
        said = "REGISTERED"
    except Exception as err:
        said = f"{type(err).__name__}: {err}"
    print("ATTEMPT " + json.dumps([how, target, said]), flush=True)
"""


def _register_in_a_subprocess(attempts: list[tuple[str, str]]) -> list[str]:
    """Register the library named by each ``(how, target)`` in turn, in one fresh process
    (``how``: "variable", through ``JAX_GLM_NOPE_FFI_LIBRARY``, or "path", the argument):
    what each attempt said, its error or ``REGISTERED``. A crash fails the test."""
    env = {**os.environ, "JAX_PLATFORMS": "cpu"}
    env.pop("JAX_GLM_NOPE_FFI_LIBRARY", None)
    done = subprocess.run(
        [sys.executable, "-c", _ATTEMPTS, json.dumps(attempts)],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        cwd=os.getcwd(),
    )
    assert done.returncode == 0, f"rc {done.returncode} (a crash is negative):\n{done.stderr[-2000:]}"
    lines = [line for line in done.stdout.splitlines() if line.startswith("ATTEMPT ")]
    said = [json.loads(line[len("ATTEMPT ") :]) for line in lines]
    assert [tuple(s[:2]) for s in said] == [tuple(a) for a in attempts], done.stdout[-2000:]
    return [s[2] for s in said]


def _end_of_segments(data: bytes) -> int:
    """Where the last loadable segment (``PT_LOAD``) of an ELF64 file ends."""
    (phoff,) = struct.unpack_from("<Q", data, 32)
    phentsize, phnum = struct.unpack_from("<HH", data, 54)
    ends = []
    for index in range(phnum):
        p_type, _, p_offset, _, _, p_filesz = struct.unpack_from("<IIQQQQ", data, phoff + index * phentsize)
        if p_type == 1:
            ends.append(p_offset + p_filesz)
    return max(ends)


def _truncated_copies(source: pathlib.Path, folder: pathlib.Path) -> list[pathlib.Path]:
    """Cut copies of ``source``: at 40% (as a partial download), and a page short of the
    end of its last loadable segment with the section header table unlinked, so that
    only the check of the loadable segments can catch it."""
    data = source.read_bytes()
    half = folder / "partial.so"
    half.write_bytes(data[: len(data) * 2 // 5])
    no_sections = bytearray(data[: _end_of_segments(data) - 4096])
    no_sections[_E_SHOFF : _E_SHOFF + 8] = struct.pack("<Q", 0)
    cut = folder / "cut_segments.so"
    cut.write_bytes(bytes(no_sections))
    return [half, cut]


def _check_truncated(source: pathlib.Path, folder: pathlib.Path, *, then_whole: bool = False) -> None:
    """Each truncated copy of ``source``, named by the variable and by the argument, is an
    error naming it, in one process that goes on (then, with ``then_whole``, the whole
    file registers in that same process)."""
    copies = _truncated_copies(source, folder)
    attempts = [(how, str(copy)) for copy in copies for how in ("variable", "path")]
    said = _register_in_a_subprocess(attempts + ([("variable", str(source))] if then_whole else []))
    for (how, copy), error in zip(attempts, said, strict=False):
        if how == "variable":
            assert f"JAX_GLM_NOPE_FFI_LIBRARY names {copy}, which is truncated" in error, error
        else:
            assert f"path: {copy}, which is truncated" in error, error
    assert "loadable segment" in said[len(attempts) - 1]  # the second copy: caught by its segments alone
    if then_whole:
        assert said[-1] == "REGISTERED", said[-1]


def test_a_truncated_library_is_an_error_naming_the_variable_not_a_crash(tmp_path):
    _check_truncated(JAXLIB_LIBRARY, tmp_path)


@pytest.mark.nvcc
def test_a_truncated_copy_of_our_library_is_an_error_not_a_crash(native_library, tmp_path):
    _check_truncated(pathlib.Path(native_library), tmp_path, then_whole=True)


def _written(path: pathlib.Path, data: bytes) -> pathlib.Path:
    path.write_bytes(data)
    return path


def _patched(source: pathlib.Path, target: pathlib.Path, offset: int, value: bytes) -> pathlib.Path:
    data = bytearray(source.read_bytes())
    data[offset : offset + len(value)] = value
    target.write_bytes(bytes(data))
    return target


@pytest.mark.parametrize(
    ("make", "says"),
    [
        (lambda d: d, "which is a directory, not a library file"),
        (lambda d: d / "missing.so", "which does not exist"),
        (lambda d: _written(d / "empty.so", b""), "which is not an ELF shared library"),
        (lambda d: _written(d / "text.so", b"hello"), "which is not an ELF shared library"),
        (
            lambda d: _patched(JAXLIB_LIBRARY, d / "arm.so", _E_MACHINE, struct.pack("<H", 183)),
            "which was built for aarch64",
        ),
        (lambda d: _patched(JAXLIB_LIBRARY, d / "elf32.so", 4, b"\x01"), "which is a 32-bit ELF file"),
        (lambda d: JAXLIB_LIBRARY, "which lacks the handler JaxGlmNopeWriteKv"),
    ],
    ids=["directory", "missing", "empty", "text", "other_machine", "elf32", "no_handlers"],
)
def test_every_load_error_names_the_variable(tmp_path, monkeypatch, make, says):
    named = make(tmp_path)
    monkeypatch.setenv("JAX_GLM_NOPE_FFI_LIBRARY", str(named))
    with pytest.raises(build.BuildError, match=f"^JAX_GLM_NOPE_FFI_LIBRARY names {named}, {says}"):
        jgn.register_ffi_targets()


def test_a_library_named_by_the_argument_is_named_so(tmp_path):
    with pytest.raises(
        build.BuildError, match=rf"^path: {JAXLIB_LIBRARY}, which lacks the handler JaxGlmNope"
    ):
        jgn.register_ffi_targets(JAXLIB_LIBRARY)  # a pathlib.Path is accepted
    with pytest.raises(build.BuildError, match=rf"^path: {tmp_path}, which cannot be read"):
        jgn.register_ffi_targets(str(tmp_path))


@pytest.mark.parametrize("path", [123, b"/x.so", 1.5, ["/x.so"]])
def test_register_ffi_targets_path_must_be_a_str_or_path(fake_nvcc, path):
    with pytest.raises(TypeError, match=r"path: expected None, a str or an os\.PathLike"):
        jgn.register_ffi_targets(path)
    assert fake_nvcc.calls() == []


def test_an_empty_path_is_an_error_not_a_build(fake_nvcc):
    with pytest.raises(ValueError, match="path: expected a library file, got an empty string"):
        jgn.register_ffi_targets("")
    assert fake_nvcc.calls() == []  # nothing built


def test_the_prebuilt_library_is_named_as_such(tmp_path, monkeypatch):
    folder = tmp_path / library.PREBUILT_PACKAGE
    folder.mkdir()
    shutil.copy(JAXLIB_LIBRARY, folder / build.LIBRARY_NAME)
    monkeypatch.setattr(library, "prebuilt_dir", lambda: folder)
    monkeypatch.delenv("JAX_GLM_NOPE_FFI_LIBRARY", raising=False)
    assert library.named_by(folder / build.LIBRARY_NAME).startswith(
        "the prebuilt library of jax-glm-nope-cu13"
    )
    assert library.named_by(tmp_path / "x.so") == f"the native library {tmp_path / 'x.so'}"
