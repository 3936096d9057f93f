"""Which backend serves a call: one table, read top to bottom.

``auto`` takes the first backend of ``AUTO_ORDER`` that can run on the platform:
FlashInfer's kernels on SM120/SM121 with the bridge library available, else the
Pallas kernel on a CUDA GPU, else the jnp reference. A backend named explicitly that
cannot run raises; nothing falls back silently.
"""

from __future__ import annotations

import importlib

import jax

BACKEND_MODULES = {
    "flashinfer": "jax_glm_nope.bridge",
    "pallas": "jax_glm_nope.pallas",
    "reference": "jax_glm_nope.reference",
}
AUTO_ORDER = ("flashinfer", "pallas", "reference")
BACKENDS = (*BACKEND_MODULES, "auto")


def backend_module(name: str):
    """The backend's module, or ``None`` when this build does not ship it."""
    module_name = BACKEND_MODULES[name]
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as err:
        if err.name == module_name:
            return None
        raise
    # A bare directory imports as a namespace package: not a backend.
    return module if getattr(module, "__file__", None) else None


def unavailable_reason(name: str, platform: str, *, interpret: bool = False) -> str | None:
    """``None`` when backend ``name`` can run on ``platform``, else why not."""
    module = backend_module(name)
    if module is None:
        return f"the {name!r} backend is not built yet in this version of jax_glm_nope"
    if name == "pallas" and interpret:
        return None  # the Pallas interpreter runs anywhere
    return module.unavailable_reason(platform)


def current_platform() -> str:
    return jax.default_backend()


def choose_backend(requested: str, platform: str | None = None, *, interpret: bool = False) -> str:
    """Resolve ``backend=`` to a backend that can run, or raise ``ValueError``."""
    if requested not in BACKENDS:
        raise ValueError(f"backend: expected one of {list(BACKENDS)}, got {requested!r}")
    if interpret and requested != "pallas":
        raise ValueError(f"interpret: only valid with backend='pallas', got backend={requested!r}")
    platform = platform or current_platform()
    if requested == "auto":
        for name in AUTO_ORDER:
            if unavailable_reason(name, platform) is None:
                return name
        raise AssertionError("the reference backend runs everywhere")
    reason = unavailable_reason(requested, platform, interpret=interpret)
    if reason is not None:
        raise ValueError(f"backend={requested!r} cannot run on platform {platform!r}: {reason}")
    return requested


def implementation(name: str):
    """The backend's ``sparse_mla_<name>`` function."""
    return getattr(backend_module(name), f"sparse_mla_{name}")
