"""One normalised record of the device a call runs on.

JAX names an NVIDIA GPU's platform ``"gpu"`` (``jax.default_backend()``) in some
places and ``"cuda"`` in others (``jax.devices("cuda")``, lowering platforms); AMD's
is ``"rocm"``. Every implementation's device predicate receives a :class:`Device`
with the platform normalised (``"cuda"`` for NVIDIA), the device kind, the compute
capability and the SM count, built once per process and backend.
"""

from __future__ import annotations

import contextlib
import contextvars
import dataclasses
import functools

import jax


@dataclasses.dataclass(frozen=True)
class Device:
    platform: str  # "cpu", "cuda", "rocm", "tpu", ...
    kind: str  # e.g. "NVIDIA H200", "cpu"
    compute_capability: tuple[int, int] | None = None  # CUDA only
    sm_count: int | None = None

    @property
    def is_cuda(self) -> bool:
        return self.platform == "cuda"

    def describe(self) -> str:
        """``"NVIDIA H200, compute capability 9.0"`` (what errors name)."""
        if self.compute_capability is None:
            return f"{self.kind} (platform {self.platform!r})"
        major, minor = self.compute_capability
        return f"{self.kind}, compute capability {major}.{minor}"


def _capability(device) -> tuple[int, int] | None:
    value = getattr(device, "compute_capability", None)
    if value is None:
        return None
    try:
        major, minor = (int(part) for part in str(value).split(".")[:2])
    except ValueError:
        return None
    return major, minor


def normalise_platform(device) -> str:
    platform = device.platform
    if platform == "gpu":  # jax's backend name for CUDA and ROCm alike
        version = getattr(device.client, "platform_version", "").lower()
        platform = "rocm" if "rocm" in version or "hip" in version else "cuda"
    return platform


def from_jax_device(device) -> Device:
    """The record of one ``jax.Device``."""
    sm_count = getattr(device, "core_count", None)
    return Device(
        platform=normalise_platform(device),
        kind=str(getattr(device, "device_kind", device.platform)),
        compute_capability=_capability(device),
        sm_count=int(sm_count) if sm_count else None,
    )


@functools.cache
def _default_device(backend: str) -> Device:
    return from_jax_device(jax.devices(backend)[0])


_LOWERING_FOR: contextvars.ContextVar[Device | None] = contextvars.ContextVar("lowering_for", default=None)


def local() -> Device:
    """The record of this process's default backend's first device."""
    return _default_device(jax.default_backend())


def current() -> Device:
    """The device the dispatch table chooses for: :func:`lowering_for`'s inside that
    context, else :func:`local` (what an un-pinned jit runs on)."""
    return _LOWERING_FOR.get() or local()


def lowering_target() -> Device | None:
    """The device :func:`lowering_for` names, or None outside that context."""
    return _LOWERING_FOR.get()


def is_local(device: Device) -> bool:
    """Whether ``device`` is this process's own (its native library must then load)."""
    return _LOWERING_FOR.get() is None or device == local()


@contextlib.contextmanager
def lowering_for(device: Device):
    """Choose implementations for ``device`` instead of this host's, e.g. to
    ``jax.export`` for an H200 from a CPU machine::

        H200 = Device("cuda", "NVIDIA H200", (9, 0), 132)
        with jgn.lowering_for(H200):
            exported = jax.export.export(jax.jit(step), platforms=("cuda",),
                                         disabled_checks=jgn.export_disabled_checks())(*args)

    Inside, ``implementation=None`` picks what the dispatch table picks on that device for
    the CUDA platform and the plain-jnp implementation for the CPU platform (one artifact
    may carry both: ``platforms=("cpu", "cuda")``), and the custom calls are lowered
    without loading the native library here (the machine that runs the artifact builds
    or loads it).
    """
    if not isinstance(device, Device):
        raise TypeError(f"device: expected a jax_glm_nope.device.Device, got {type(device).__name__}")
    token = _LOWERING_FOR.set(device)
    try:
        yield device
    finally:
        _LOWERING_FOR.reset(token)
