"""Hatch hooks of the companion wheel: its version is the jax_glm_nope release recorded
in the staged library's build.json, and its tag says what it holds: no Python ABI (the
library is loaded with ctypes and speaks the XLA FFI C API, not CPython's), a Linux
x86-64 binary (auditwheel then names the glibc it needs)."""

from __future__ import annotations

import json
import pathlib
import sysconfig

from hatchling.builders.hooks.plugin.interface import BuildHookInterface
from hatchling.metadata.plugin.interface import MetadataHookInterface

PACKAGE = "jax_glm_nope_cu13"
LIBRARY = "libjax_glm_nope_ffi.so"


def _manifest(root: str) -> dict:
    folder = pathlib.Path(root) / PACKAGE
    if not (folder / LIBRARY).is_file() or not (folder / "build.json").is_file():
        raise RuntimeError(
            f"{folder} holds no staged library ({LIBRARY} and build.json): build the wheel with "
            "scripts/build_wheel.sh"
        )
    return json.loads((folder / "build.json").read_text())


class CustomMetadataHook(MetadataHookInterface):
    def update(self, metadata: dict) -> None:
        metadata["version"] = _manifest(self.root)["jax_glm_nope"]


class CustomBuildHook(BuildHookInterface):
    def initialize(self, version: str, build_data: dict) -> None:
        if self.target_name != "wheel":
            return
        _manifest(self.root)
        build_data["pure_python"] = False
        build_data["tag"] = "py3-none-" + sysconfig.get_platform().replace("-", "_").replace(".", "_")
