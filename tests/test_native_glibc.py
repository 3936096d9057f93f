"""The glibc link stubs (``native/glibc_stubs.py``): which functions they map back to
which pre-2.34 library and version, read from a ``readelf`` listing; and, with the host
C compiler (no nvcc, under a second), a small library calling what the static CUDA
runtime calls, linked as nvcc links ours: with the stubs it needs the old libraries and
versions and no ``GLIBC_2.29`` or newer, and it loads and runs in a fresh process on this
host's glibc. The real library's needs: ``tests/test_native_library.py``."""

from __future__ import annotations

import pathlib
import shutil
import subprocess
import sys
import textwrap

import pytest
from conftest import NATIVE_TEST_ARCHS as TEST_ARCHS  # noqa: E402
from native_helpers import needed_libraries, newer_than_manylinux_2_28, readelf, version_needs, versions_of

from jax_glm_nope.native import build, glibc_stubs

# A libc.so.6 listing as `readelf --dyn-syms -W` prints it (glibc 2.36, x86_64).
LISTING = textwrap.dedent(
    """\
    Symbol table '.dynsym' contains 9 entries:
       Num:    Value          Size Type    Bind   Vis      Ndx Name
         1: 0000000000000000     0 FUNC    GLOBAL DEFAULT  UND _dl_find_dso_for_object@GLIBC_PRIVATE (40)
        10: 0000000000087b80   111 FUNC    GLOBAL DEFAULT   16 pthread_create@GLIBC_2.2.5
        11: 0000000000087b80   111 FUNC    GLOBAL DEFAULT   16 pthread_create@@GLIBC_2.34
        12: 0000000000085220    42 FUNC    GLOBAL DEFAULT   16 pthread_cond_wait@GLIBC_2.2.5
        13: 0000000000085220    42 FUNC    GLOBAL DEFAULT   16 pthread_cond_wait@@GLIBC_2.3.2
        14: 0000000000084220    42 FUNC    GLOBAL DEFAULT   16 pthread_cond_clockwait@GLIBC_2.30
        15: 0000000000084220    42 FUNC    GLOBAL DEFAULT   16 pthread_cond_clockwait@@GLIBC_2.34
        16: 0000000000090000    42 FUNC    GLOBAL DEFAULT   16 sem_init@@GLIBC_2.34
        17: 0000000000090000    42 FUNC    GLOBAL DEFAULT   16 sem_init@GLIBC_2.2.5
        18: 0000000000091000    42 FUNC    GLOBAL DEFAULT   16 dlmopen@GLIBC_2.3.4
        19: 0000000000091000    42 FUNC    GLOBAL DEFAULT   16 dlmopen@@GLIBC_2.34
        20: 0000000000092000    42 FUNC    GLOBAL DEFAULT   16 shm_open@GLIBC_2.2.5
        21: 0000000000092000    42 FUNC    GLOBAL DEFAULT   16 shm_open@@GLIBC_2.34
        22: 0000000000093000    42 FUNC    GLOBAL DEFAULT   16 dn_expand@GLIBC_2.2.5
        23: 0000000000093000    42 FUNC    GLOBAL DEFAULT   16 dn_expand@@GLIBC_2.34
        24: 0000000000094000    42 FUNC    GLOBAL DEFAULT   16 _Fork@@GLIBC_2.34
        25: 0000000000095000    42 FUNC    GLOBAL DEFAULT   16 pidfd_open@@GLIBC_2.36
        26: 0000000000000000     0 FUNC    GLOBAL DEFAULT  UND dlopen@GLIBC_2.2.5 (2)
        27: 00000000001d8a00     8 OBJECT  GLOBAL DEFAULT   32 sem_object@GLIBC_2.2.5
        28: 00000000001d8a00     8 OBJECT  GLOBAL DEFAULT   32 sem_object@@GLIBC_2.34
    """
)


def test_moved_functions_map_back_to_their_old_library_and_version():
    moved = glibc_stubs.moved_functions(LISTING)
    assert moved == {
        "libpthread.so.0": {
            "pthread_create": (2, 2, 5),
            "pthread_cond_clockwait": (2, 30),  # newer than 2.28: the wheel's gate would say so
            "sem_init": (2, 2, 5),
        },
        "libdl.so.2": {"dlmopen": (2, 3, 4)},
        "librt.so.1": {"shm_open": (2, 2, 5)},
    }
    # Not moved: pthread_cond_wait stayed in libc (default 2.3.2); _Fork and pidfd_open are
    # new (no older version); dn_expand came from libresolv, which the runtime never calls;
    # an undefined dlopen and a data object are no functions libc defines.


def test_each_version_node_inherits_the_one_before():
    script = glibc_stubs.version_script({"dlopen": (2, 2, 5), "dlsym": (2, 2, 5), "dlmopen": (2, 3, 4)})
    assert script == (
        "GLIBC_2.2.5 {\n  global: dlopen; dlsym;\n};\nGLIBC_2.3.4 {\n  global: dlmopen;\n} GLIBC_2.2.5;\n"
    )


def test_defined_versions_reads_only_the_definitions():
    listing = textwrap.dedent(
        """\
        Version definition section '.gnu.version_d' contains 3 entries:
          000000: Rev: 1  Flags: BASE  Index: 1  Cnt: 1  Name: libdl.so.2
          0x001c: Rev: 1  Flags: none  Index: 2  Cnt: 1  Name: GLIBC_2.2.5
          0x0038: Rev: 1  Flags: none  Index: 3  Cnt: 2  Name: GLIBC_2.3.4
        Version needs section '.gnu.version_r' contains 1 entry:
          000000: Version: 1  File: libc.so.6  Cnt: 1
          0x0010:   Name: GLIBC_2.34  Flags: none  Version: 4
        """
    )
    assert glibc_stubs.defined_versions(listing) == {(2, 2, 5), (2, 3, 4)}
    assert glibc_stubs.defined_versions(listing.split("Version needs")[1]) == set()


# ---------------------------------------------------------------- with the host compiler

# What the static CUDA runtime calls, one of each family.
PROBE = textwrap.dedent(
    """\
    #include <dlfcn.h>
    #include <fcntl.h>
    #include <pthread.h>
    #include <semaphore.h>
    #include <stdio.h>
    #include <sys/mman.h>
    #include <unistd.h>
    static void* add(void* value) { *(int*)value += 40; return 0; }
    int probe(void) {
      int value = 2;
      pthread_t thread;
      sem_t sem;
      char name[64];
      if (pthread_create(&thread, 0, add, &value) || pthread_join(thread, 0)) return -1;
      if (sem_init(&sem, 0, 0) || sem_post(&sem) || sem_wait(&sem) || sem_destroy(&sem)) return -2;
      void* libm = dlopen("libm.so.6", RTLD_NOW);
      if (!libm || !dlsym(libm, "cos") || dlclose(libm)) return -3;
      snprintf(name, sizeof name, "/jax_glm_nope_probe_%d", (int)getpid());
      int fd = shm_open(name, O_CREAT | O_RDWR, 0600);
      if (fd < 0 || shm_unlink(name)) return -4;
      close(fd);
      return value;
    }
    """
)


@pytest.fixture(scope="module")
def probe_libraries(tmp_path_factory):
    """The probe linked plainly and with the stubs (as nvcc links: the stubs' folder on
    the search path, ``-lrt -lpthread -ldl`` after the code that calls them)."""
    compiler = shutil.which("cc") or shutil.which("gcc")
    if compiler is None or shutil.which("readelf") is None:
        pytest.skip("needs a C compiler and readelf")
    folder = tmp_path_factory.mktemp("probe")
    source = folder / "probe.c"
    source.write_text(PROBE)
    obj = folder / "probe.o"
    subprocess.run([compiler, "-fPIC", "-c", str(source), "-o", str(obj)], check=True)
    plain = folder / "plain.so"
    subprocess.run([compiler, "-shared", "-o", str(plain), str(obj), "-lrt", "-lpthread", "-ldl"], check=True)
    if max(versions_of(version_needs(plain), "GLIBC")) < glibc_stubs.MERGED:
        pytest.skip("this host's glibc is older than 2.34: a plain link already binds the old versions")
    search = glibc_stubs.write_stubs(folder / "stubs")
    assert search == ["-L", str(folder / "stubs")]
    stubbed = folder / "stubbed.so"
    link = [compiler, "-shared", "-o", str(stubbed), str(obj), *search, "-lrt", "-lpthread", "-ldl"]
    subprocess.run(link, check=True)
    return plain, stubbed


def test_with_the_stubs_the_probe_needs_the_old_libraries_and_versions(probe_libraries):
    plain, stubbed = probe_libraries
    assert newer_than_manylinux_2_28(version_needs(plain)) == ["GLIBC_2.34"]  # the check can fail
    needs = version_needs(stubbed)
    assert newer_than_manylinux_2_28(needs) == [], needs
    assert {"libpthread.so.0", "libdl.so.2", "librt.so.1"} <= set(needs) <= set(needed_libraries(stubbed))
    dynamic = readelf("-d", "-W", str(stubbed))
    assert "RPATH" not in dynamic and "RUNPATH" not in dynamic  # nothing points at the stubs' folder


def test_the_stubbed_probe_loads_and_runs_on_this_glibc(probe_libraries):
    """The stubs shape the link only: a fresh process loads the library against the
    host's real libraries and every call works."""
    _, stubbed = probe_libraries
    code = f"import ctypes; print(ctypes.CDLL({str(stubbed)!r}).probe())"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and done.stdout.strip() == "42", done.stdout + done.stderr


def test_the_build_links_with_the_stubs(fake_nvcc, probe_libraries):
    """(On a host where the probe shows stubs are needed.) The link puts the stubs'
    folder on the search path."""
    build.build(TEST_ARCHS, flashinfer=False)
    (link,) = [args for args in fake_nvcc.calls() if "-shared" in args]
    assert pathlib.Path(link[link.index("-L") + 1]).name == "glibc_stubs"


def test_the_stubs_are_part_of_the_recipe_key(fake_nvcc, monkeypatch, tmp_path):
    key = build.build_key(TEST_ARCHS, False)
    edited = tmp_path / "glibc_stubs.py"
    edited.write_bytes(pathlib.Path(glibc_stubs.__file__).read_bytes() + b"\n# changed\n")
    monkeypatch.setattr(glibc_stubs, "__file__", str(edited))
    assert build.build_key(TEST_ARCHS, False) != key
