"""Link stubs that keep the native library's glibc floor where the CUDA runtime's is.

The static CUDA runtime (``libcudart_static.a``, linked into the library by ``nvcc``)
calls ``pthread_*``, ``sem_*``, ``shm_open``/``shm_unlink`` and ``dl*``. Before glibc
2.34 they lived in ``libpthread.so.0``, ``librt.so.1`` and ``libdl.so.2``; 2.34 moved
them into ``libc.so.6`` under a new default version ``GLIBC_2.34`` (keeping the old
versions for binaries linked before). A link against a newer glibc therefore binds them
to ``GLIBC_2.34``, and the library would refuse to load on an older one (RHEL 8's 2.28).

So each build writes, into its temporary folder, a stub ``libpthread.so``,
``libdl.so`` and ``librt.so`` whose SONAMEs are the old libraries' and whose empty
functions carry the versions the host's own ``libc.so.6`` lists as their pre-2.34 ones
(``GLIBC_2.2.5`` for most on x86_64, ``GLIBC_2.3.4`` for ``dlmopen``, ``GLIBC_2.17``
on aarch64), and puts their folder first on the linker's search path. nvcc's own
``-lrt -lpthread -ldl`` then find them before ``libc.so.6``, so the library records
what a link on glibc 2.28 records: ``NEEDED libpthread.so.0`` (and the others) and the
old versions. At load time the stubs play no part: glibc 2.28 defines those versions in
the real libraries, and glibc 2.34 and newer keep the three libraries as empty
compatibility objects that define the version nodes while ``libc.so.6`` defines the
functions at the old versions, which is how every binary linked before 2.34 still runs.

Nothing is written where the host's glibc has nothing to map back (older than 2.34, or
not glibc): the link then binds what the host has, and the build says so in its log.
"""

from __future__ import annotations

import functools
import logging
import pathlib
import re
import shutil
import subprocess

log = logging.getLogger("jax_glm_nope.native")

# Which functions each library held before glibc 2.34 moved them into libc, by name; the
# static CUDA runtime calls some of each family.
OLD_HOMES = {
    "libpthread.so.0": re.compile(r"(pthread|sem)_\w+"),
    "libdl.so.2": re.compile(r"dl(open|mopen|sym|vsym|close|error|addr|addr1|info)"),
    "librt.so.1": re.compile(r"shm_(open|unlink)|(timer|mq|aio|lio)_\w+"),
}
MERGED = (2, 34)  # the glibc release that moved them into libc
_SYMBOL = re.compile(r"([A-Za-z_]\w*)(@@?)GLIBC_(\d+(?:\.\d+)+)")

Version = tuple[int, ...]


def _tool(*names: str) -> str | None:
    return next((found for name in names if (found := shutil.which(name))), None)


def _run(*command: str) -> subprocess.CompletedProcess:
    return subprocess.run(command, capture_output=True, text=True, check=False)


def host_library(compiler: str, soname: str) -> pathlib.Path | None:
    """The file the host compiler links for ``soname`` (``libc.so.6``), or None."""
    done = _run(compiler, f"-print-file-name={soname}")
    path = pathlib.Path(done.stdout.strip())
    return path if done.returncode == 0 and path.is_absolute() and path.is_file() else None


def defined_versions(readelf_versions: str) -> set[Version]:
    """``readelf -V -W`` of a library -> the ``GLIBC_*`` version nodes it defines."""
    if ".gnu.version_d" not in readelf_versions:
        return set()
    section = readelf_versions.split(".gnu.version_d", 1)[1].split(".gnu.version_r", 1)[0]
    return {tuple(map(int, v.split("."))) for v in re.findall(r"Name: GLIBC_(\d+(?:\.\d+)+)\b", section)}


def libc_versions(readelf_dynsyms: str) -> tuple[dict[str, Version], dict[str, list[Version]]]:
    """``readelf --dyn-syms -W libc.so.6`` -> (each defined function's default version,
    each one's other versions), as tuples of ints."""
    defaults: dict[str, Version] = {}
    others: dict[str, list[Version]] = {}
    for line in readelf_dynsyms.splitlines():
        fields = line.split()
        if len(fields) < 8 or fields[3] not in ("FUNC", "IFUNC") or fields[6] == "UND":
            continue
        match = _SYMBOL.fullmatch(fields[7])
        if match is None:
            continue
        name, at, version = match.group(1), match.group(2), tuple(map(int, match.group(3).split(".")))
        if at == "@@":
            defaults[name] = version
        else:
            others.setdefault(name, []).append(version)
    return defaults, others


def moved_functions(readelf_dynsyms: str) -> dict[str, dict[str, Version]]:
    """Old library -> {function: the version it had there}, for every function of
    :data:`OLD_HOMES` whose default version in this libc is :data:`MERGED` or newer and
    which keeps an older one (the one that was the default before the move)."""
    defaults, others = libc_versions(readelf_dynsyms)
    moved: dict[str, dict[str, Version]] = {}
    for name, version in sorted(defaults.items()):
        older = [v for v in others.get(name, ()) if v < MERGED]
        if version < MERGED or not older:
            continue
        for library, pattern in OLD_HOMES.items():
            if pattern.fullmatch(name):
                moved.setdefault(library, {})[name] = max(older)
    return moved


def version_script(functions: dict[str, Version]) -> str:
    """A linker version script that gives each function its version, each version node
    inheriting the one before, as glibc's own do."""
    text, parent = "", None
    for version in sorted(set(functions.values())):
        node = "GLIBC_" + ".".join(map(str, version))
        names = " ".join(f"{name};" for name, v in sorted(functions.items()) if v == version)
        text += f"{node} {{\n  global: {names}\n}}{f' {parent}' if parent else ''};\n"
        parent = node
    return text


@functools.cache
def stub_table(compiler: str, readelf: str) -> tuple[pathlib.Path | None, dict[str, dict[str, Version]]]:
    """(the host's ``libc.so.6`` or None, old library -> {function: version} to stub).
    A function is stubbed only where the host's own old library still defines its old
    version, so the library always loads on the glibc that built it. Read once a process."""
    libc = host_library(compiler, "libc.so.6")
    if libc is None:
        return None, {}
    stubs = {}
    for soname, functions in moved_functions(_run(readelf, "--dyn-syms", "-W", str(libc)).stdout).items():
        compat = host_library(compiler, soname)
        defined = defined_versions(_run(readelf, "-V", "-W", str(compat)).stdout) if compat else set()
        if stubbed := {name: version for name, version in functions.items() if version in defined}:
            stubs[soname] = stubbed
    return libc, stubs


def write_stubs(folder: pathlib.Path) -> list[str]:
    """Write the stub libraries into ``folder``; return the nvcc arguments that put them
    on the link's search path, or ``[]`` (logged) when this host needs or allows none."""
    compiler, readelf = _tool("cc", "gcc"), _tool("readelf")
    libc, stubs = stub_table(compiler, readelf) if compiler and readelf else (None, {})
    if compiler is None or libc is None:
        log.info(
            "jax_glm_nope: no glibc link stubs (no C compiler, readelf or libc.so.6 found): "
            "the library needs the glibc it is linked against"
        )
        return []
    if not stubs:
        log.info(
            "jax_glm_nope: no glibc link stubs: %s has no function moved from libpthread, libdl "
            "or librt with an older version (glibc older than 2.34, or not glibc)",
            libc,
        )
        return []
    folder.mkdir(parents=True, exist_ok=True)
    compiles = []
    for soname, functions in stubs.items():
        stem = soname.split(".so")[0]
        source, script = folder / f"{stem}.c", folder / f"{stem}.map"
        source.write_text("".join(f"void {name}(void) {{}}\n" for name in sorted(functions)))
        script.write_text(version_script(functions))
        # The linker name (libpthread.so), found by nvcc's -lpthread; the SONAME is the
        # runtime name the library records as NEEDED.
        command = [compiler, "-shared", "-nostdlib", "-fPIC", f"-Wl,-soname,{soname}"]
        command += [f"-Wl,--version-script={script}", "-o", str(folder / f"{stem}.so"), str(source)]
        compiles.append(
            (command, subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True))
        )
    failures = []
    for command, process in compiles:
        stderr = process.communicate()[1]
        if process.returncode:
            failures.append(f"{' '.join(command)} failed: {stderr[-2000:]}")
    if failures:
        log.info("jax_glm_nope: no glibc link stubs (%s)", failures[0])
        return []
    return ["-L", str(folder)]
