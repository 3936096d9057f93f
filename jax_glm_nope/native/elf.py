"""Check a shared library's ELF structure before ``dlopen`` sees it.

glibc's loader maps a library's loadable segments straight from the file: when the file
is shorter than its program headers say (a partial copy, a download cut short), the
first touch of a page past the end of the file kills the process with SIGBUS, with no
Python error. Reading the headers first turns that, a file of another architecture and
a file that is no library at all into one sentence each.
"""

from __future__ import annotations

import os
import platform
import struct

_HEADER = struct.Struct("<16sHHIQQQIHHHHHH")  # the ELF64 file header, little-endian
_PROGRAM_HEADER = struct.Struct("<IIQQQQQQ")  # p_type, p_flags, p_offset, ..., p_filesz, p_memsz, p_align
_SECTION_HEADER = struct.Struct("<IIQQQQIIQQ")
_PT_LOAD = 1
_ET_DYN = 3
_PN_XNUM = 0xFFFF  # e_phnum's escape: the count is in section 0's sh_info
_MACHINES = {62: "x86_64", 183: "aarch64", 40: "arm", 3: "x86", 21: "ppc64", 22: "s390x", 243: "riscv64"}
_HOST_MACHINE = {"x86_64": 62, "amd64": 62, "aarch64": 183, "arm64": 183}.get(platform.machine().lower())


def problem(path: str | os.PathLike) -> str | None:
    """None when ``path`` is a little-endian ELF64 shared library for this machine whose
    program headers, section headers and every loadable segment lie inside the file;
    else what is wrong, as the end of a sentence ("is truncated: ...")."""
    try:
        with open(path, "rb") as file:
            size = os.fstat(file.fileno()).st_size
            header = file.read(_HEADER.size)
            if len(header) < _HEADER.size or header[:4] != b"\x7fELF":
                return f"is not an ELF shared library ({size} bytes, no ELF header)"
            if header[4] != 2:
                return "is a 32-bit ELF file; this process loads 64-bit libraries only"
            if header[5] != 1:
                return "is a big-endian ELF file; this machine is little-endian"
            fields = _HEADER.unpack(header)
            e_type, e_machine, phoff, shoff = fields[1], fields[2], fields[5], fields[6]
            phentsize, phnum, shentsize, shnum = fields[9], fields[10], fields[11], fields[12]
            if e_type != _ET_DYN:
                return f"is an ELF file of type {e_type}, not a shared library"
            if _HOST_MACHINE is not None and e_machine != _HOST_MACHINE:
                built_for = _MACHINES.get(e_machine, f"ELF machine {e_machine}")
                return f"was built for {built_for}, and this machine is {platform.machine()}"
            if shoff and shentsize < _SECTION_HEADER.size:
                return f"has a malformed section header table (entries of {shentsize} bytes)"
            if shoff and (shnum == 0 or phnum == _PN_XNUM):  # the extended counts live in section 0
                if shoff + _SECTION_HEADER.size > size:
                    return _truncated("its section header table", shoff, shoff + _SECTION_HEADER.size, size)
                file.seek(shoff)
                first = _SECTION_HEADER.unpack(file.read(_SECTION_HEADER.size))
                shnum = shnum or first[5]  # sh_size
                phnum = first[7] if phnum == _PN_XNUM else phnum  # sh_info
            if shoff and shoff + shnum * shentsize > size:
                return _truncated("its section header table", shoff, shoff + shnum * shentsize, size)
            if phnum == 0 or phentsize < _PROGRAM_HEADER.size:
                return "has no program headers, so nothing to load"
            if phoff + phnum * phentsize > size:
                return _truncated("its program headers", phoff, phoff + phnum * phentsize, size)
            for index in range(phnum):
                file.seek(phoff + index * phentsize)
                p_type, _, p_offset, _, _, p_filesz, _, _ = _PROGRAM_HEADER.unpack(
                    file.read(_PROGRAM_HEADER.size)
                )
                if p_type == _PT_LOAD and p_offset + p_filesz > size:
                    return _truncated(f"loadable segment {index}", p_offset, p_offset + p_filesz, size)
    except OSError as err:
        return f"cannot be read ({err.strerror or err})"
    return None


def _truncated(what: str, start: int, end: int, size: int) -> str:
    return (
        f"is truncated: {what} spans bytes {start}-{end} and the file has {size} "
        "(a partial copy or an interrupted download?)"
    )
