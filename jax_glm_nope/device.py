"""One normalised record of the device a call runs on.

JAX names an NVIDIA GPU's platform ``"gpu"`` (``jax.default_backend()``) in some
places and ``"cuda"`` in others (``jax.devices("cuda")``, lowering platforms); AMD's
is ``"rocm"``. Every implementation's device predicate receives a :class:`Device`
with the platform normalised (``"cuda"`` for NVIDIA), the device kind, the compute
capability and the SM count, built once per process and backend, or given by the
caller to :func:`lowering_for`.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import operator
from collections.abc import Iterator

import jax

# What a record without an SM count (``sm_count=None``) is sized for: the H200's SMs, the
# GPU every split rule was measured on. The SM count decides how a call is split across
# the GPU (its speed), never its result's accuracy.
DEFAULT_SM_COUNT = 132


def _index(value, name: str) -> int:
    if isinstance(value, bool):
        raise TypeError(f"{name}: expected an int, got {value!r}")
    try:
        return operator.index(value)
    except TypeError:
        raise TypeError(f"{name}: expected an int, got {type(value).__name__} {value!r}") from None


@dataclasses.dataclass(frozen=True)
class Device:
    """A device the dispatch table chooses for: this process's own (:func:`local`), or
    one named to :func:`lowering_for`, e.g. ``Device("cuda", "NVIDIA H200", (9, 0), 132)``.

    ``platform`` is jax's lowering platform (``"cuda"``, ``"rocm"``, ``"cpu"``, ``"tpu"``);
    ``"gpu"``, jax's backend name for CUDA and ROCm alike, is read as ``"cuda"`` when the
    record has a compute capability (a CUDA notion) and refused otherwise.
    ``compute_capability`` is a ``(major, minor)`` tuple of two ints, for CUDA only
    (anything else, a list or a set included, is a ``TypeError``); ``sm_count`` a
    positive int or None (then splits are sized for :data:`DEFAULT_SM_COUNT` SMs).
    """

    platform: str  # "cpu", "cuda", "rocm", "tpu", ...
    kind: str  # e.g. "NVIDIA H200", "cpu"
    compute_capability: tuple[int, int] | None = None  # CUDA only
    sm_count: int | None = None

    def __post_init__(self):
        if not isinstance(self.platform, str) or not self.platform.strip():
            raise TypeError(f"platform: expected a platform name such as 'cuda', got {self.platform!r}")
        if not isinstance(self.kind, str):
            raise TypeError(f"kind: expected a str such as 'NVIDIA H200', got {type(self.kind).__name__}")
        capability = self.compute_capability
        if capability is not None:
            # A tuple of two ints, nothing else: a set has no order, and bytes, a range or a
            # dict would be read element by element into a wrong capability.
            if not isinstance(capability, tuple) or len(capability) != 2:
                raise TypeError(
                    f"compute_capability: expected None or a (major, minor) tuple of ints such as "
                    f"(9, 0), got {capability!r}"
                )
            capability = tuple(_index(part, "compute_capability") for part in capability)
            if min(capability) < 0:
                raise ValueError(f"compute_capability: expected non-negative ints, got {capability}")
        platform = self.platform.strip().lower()
        if platform == "gpu":  # jax's backend name for CUDA and ROCm alike
            if capability is None:
                raise ValueError(
                    f"platform: 'gpu' names CUDA and ROCm alike (jax's backend name); write "
                    f"'cuda' or 'rocm' for {self.kind!r}"
                )
            platform = "cuda"
        if capability is not None and platform != "cuda":
            raise ValueError(
                f"compute_capability: a CUDA notion, but platform is {platform!r}; got {capability}"
            )
        sm_count = self.sm_count
        if sm_count is not None:
            sm_count = _index(sm_count, "sm_count")
            if sm_count < 1:
                raise ValueError(f"sm_count: expected a positive int or None, got {sm_count}")
        object.__setattr__(self, "platform", platform)
        object.__setattr__(self, "compute_capability", capability)
        object.__setattr__(self, "sm_count", sm_count)

    @property
    def is_cuda(self) -> bool:
        return self.platform == "cuda"

    @property
    def split_sm_count(self) -> int:
        """The SM count the kernels size their splits for: ``sm_count``, or
        :data:`DEFAULT_SM_COUNT` for a record without one."""
        return self.sm_count or DEFAULT_SM_COUNT

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
    platform = normalise_platform(device)
    sm_count = getattr(device, "core_count", None)
    return Device(
        platform=platform,
        kind=str(getattr(device, "device_kind", device.platform)),
        compute_capability=_capability(device) if platform == "cuda" else None,
        sm_count=int(sm_count) if sm_count else None,
    )


@functools.cache
def _default_device(backend: str) -> Device:
    return from_jax_device(jax.devices(backend)[0])


# Part of jax's trace, lowering and compilation cache keys (``jax.make_user_context``): a
# function jitted once is traced again when it runs or is exported under another record,
# so each artifact holds what its record's dispatch picks, whatever was traced before.
_LOWERING_FOR = jax.make_user_context(None)


def local() -> Device:
    """The record of this process's default backend's first device."""
    return _default_device(jax.default_backend())


def lowering_target() -> Device | None:
    """The device :func:`lowering_for` names, or None outside that context."""
    return _LOWERING_FOR.value


def current() -> Device:
    """The device the dispatch table chooses for: :func:`lowering_for`'s inside that
    context, else :func:`local` (what an un-pinned jit runs on)."""
    return lowering_target() or local()


def is_local(device: Device) -> bool:
    """Whether ``device`` is this process's own (its native library must then load): a
    record of another machine, named to :func:`lowering_for` or asked about, is not."""
    return device == local()


@contextlib.contextmanager
def lowering_for(device: Device) -> Iterator[Device]:
    """Choose implementations for ``device`` instead of this host's, e.g. to
    ``jax.export`` for an H200 from a CPU machine::

        H200 = Device("cuda", "NVIDIA H200", (9, 0), 132)
        with jgn.lowering_for(H200):
            exported = jax.export.export(jax.jit(step), platforms=("cuda",),
                                         disabled_checks=jgn.export_disabled_checks())(*args)

    Inside, ``implementation=None`` lowers what the dispatch table picks on that device
    for the device's platform, the plain-jnp implementation for the CPU platform (one
    artifact may carry both: ``platforms=("cpu", "cuda")``), and a lowering error for any
    other platform, or for a GPU the table has no kernel for. The record is part of jax's
    cache keys: a function traced before, on this host or under another record, is traced
    again. The custom calls are lowered without loading the native library here (the
    machine that runs the artifact builds or loads it).
    """
    if not isinstance(device, Device):
        raise TypeError(f"device: expected a jax_glm_nope.Device, got {type(device).__name__}")
    with _LOWERING_FOR(device):
        yield device
