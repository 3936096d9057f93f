"""Which implementation serves a call, and why: the dispatch decision made without a call.

:func:`sparse_mla_implementation` and :func:`write_kv_implementation` take the shapes of
a call (ints, no arrays) and a :class:`~jax_glm_nope.Device` record, make the decision
the call makes (:func:`jax_glm_nope.dispatch.decide`) and format it: on a machine
without that device too (a CPU host planning for an H200), and without loading or
building the native library for a device that is not this process's own. What the call
would raise, the query raises.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping

from . import device as device_mod
from . import dispatch, validate
from .device import Device
from .dispatch import SparseMlaImplementation, WriteKvImplementation
from .dispatch.lowering import own_platform_refusal
from .implementations import Shapes
from .layout import COMPACT, RowFormat

INT32_LIMIT = validate.INT32_LIMIT


@dataclasses.dataclass(frozen=True)
class Choice:
    """The answer of :func:`sparse_mla_implementation` / :func:`write_kv_implementation`.

    ``implementation``: the implementation that serves the call. ``serving``: every
    implementation that could serve it if named (table order), so ``"cuda" in
    choice.serving`` is the availability check. ``reasons``: for every other
    implementation of the table, why it is not the one: it cannot serve (the sentence
    the call's error would give), the environment disables it, or it serves but
    ``implementation=None`` takes another at these shapes. ``forced_by``: the
    environment variable and value that forced the choice, or None. Choices compare
    and hash by value.
    """

    operation: str
    implementation: str
    device: Device
    serving: tuple[str, ...]
    reasons: Mapping[str, str]
    forced_by: str | None = None

    def __str__(self) -> str:
        lines = [f"{self.operation}: {self.implementation} serves this call on {self.device.describe()}"]
        if self.forced_by is not None:
            lines[0] += f" (forced by {self.forced_by})"
        lines += [f"  {name}: {reason}" for name, reason in self.reasons.items()]
        return "\n".join(lines)

    def __hash__(self) -> int:  # reasons is a read-only mapping, which has no hash of its own
        fields = (self.operation, self.implementation, self.device, self.serving, self.forced_by)
        return hash((*fields, tuple(self.reasons.items())))


def sparse_mla_implementation(
    num_tokens: int,
    num_heads: int,
    num_candidates: int,
    *,
    device: Device | None = None,
    implementation: SparseMlaImplementation | None = None,
    batch_invariant: bool = False,
    interpret: bool = False,
    row_bytes: RowFormat | int = COMPACT,
    num_slots: int = 1,
) -> Choice:
    """Which implementation ``sparse_mla`` would run for ``q [num_tokens, num_heads, 512]``
    and ``indices [num_tokens, num_candidates]`` on ``device``, and why not the others.

    ``device``: a :class:`~jax_glm_nope.Device` record (any machine's, e.g.
    ``Device("cuda", "NVIDIA H200", (9, 0), 132)``) or None for this process's device (or
    :func:`~jax_glm_nope.lowering_for`'s inside that context). ``implementation``,
    ``batch_invariant`` and ``interpret`` are the call's. ``row_bytes`` (528/656 or a
    ``RowFormat``) and ``num_slots`` describe the pool: only a pool of 2-4 GiB changes
    the choice. Raises exactly what the call would raise for these shapes: for a named
    implementation that cannot serve them, a ``ValueError`` naming the device and why;
    for another machine's GPU that no kernel serves (an A100, or every kernel disabled),
    the error that lowering the call for it gives, since a GPU artifact never carries
    the plain-jnp reference unless it is named. The environment switch
    ``JAX_GLM_NOPE_SPARSE_MLA`` is read now, as at a trace.
    """
    shapes, options = _sparse_mla_call(
        num_tokens, num_heads, num_candidates, batch_invariant, interpret, row_bytes, num_slots
    )
    return _choice("sparse_mla", implementation, shapes, options, device)


def sparse_mla_scratch_bytes(
    num_tokens: int,
    num_heads: int,
    num_candidates: int,
    *,
    device: Device | None = None,
    implementation: SparseMlaImplementation | None = None,
    batch_invariant: bool = False,
    interpret: bool = False,
    row_bytes: RowFormat | int = COMPACT,
    num_slots: int = 1,
) -> int:
    """Bytes of scratch one ``sparse_mla`` call of these shapes takes on ``device``, for a
    memory planner: the buffers its kernels write besides ``out`` and ``lse`` (the split
    partials of ``cuda`` and ``pallas``, FlashInfer's decode ``mid_out``/``mid_lse``),
    sized by the rules the implementation itself uses, for the implementation
    :func:`sparse_mla_implementation` picks with the same arguments (and raising what it
    raises). A function of the shapes and the device's SM count only; ``reference`` has
    no kernel and answers 0 (its chunks' temporaries are XLA's)."""
    shapes, options = _sparse_mla_call(
        num_tokens, num_heads, num_candidates, batch_invariant, interpret, row_bytes, num_slots
    )
    choice = _choice("sparse_mla", implementation, shapes, options, device)
    impl = dispatch.table.entry("sparse_mla", choice.implementation).load()
    buffers = impl.scratch(shapes, choice.device, **options)
    return sum(math.prod(b.shape) * b.dtype.itemsize for b in buffers)


def _sparse_mla_call(num_tokens, num_heads, num_candidates, batch_invariant, interpret, row_bytes, num_slots):
    """A call's shapes and options as the dispatch sees them, validated."""
    num_tokens = validate.check_static_int(num_tokens, "num_tokens", 0)
    if num_tokens > validate.MAX_TOKENS:
        raise ValueError(f"num_tokens: expected at most {validate.MAX_TOKENS}, got {num_tokens}")
    num_heads = validate.check_static_int(num_heads, "num_heads", 1)
    if num_heads > validate.MAX_HEADS:
        raise ValueError(f"num_heads: expected 1 <= H <= {validate.MAX_HEADS}, got {num_heads}")
    num_candidates = validate.check_static_int(num_candidates, "num_candidates", 1)
    options = {}
    if validate.check_bool(batch_invariant, "batch_invariant"):
        options["batch_invariant"] = True
    if validate.check_bool(interpret, "interpret"):
        options["interpret"] = True
    fmt, num_slots = _pool(row_bytes, num_slots)
    return Shapes(num_tokens, num_heads, num_candidates, fmt.bytes_per_token, num_slots), options


def write_kv_implementation(
    num_tokens: int,
    *,
    device: Device | None = None,
    implementation: WriteKvImplementation | None = None,
    row_bytes: RowFormat | int = COMPACT,
    num_slots: int = 1,
) -> Choice:
    """Which implementation ``write_kv`` would run for ``latent [num_tokens, 512]`` on
    ``device`` (as :func:`sparse_mla_implementation`; the switch is
    ``JAX_GLM_NOPE_WRITE_KV``). On this process's own GPU the automatic choice is
    ``cuda`` only once the native library is built (a plain write never starts a build);
    for another machine's device it assumes that machine has the library."""
    num_tokens = validate.check_static_int(num_tokens, "num_tokens", 0)
    fmt, num_slots = _pool(row_bytes, num_slots)
    shapes = Shapes(num_tokens, 0, 0, fmt.bytes_per_token, num_slots)
    return _choice("write_kv", implementation, shapes, {}, device)


def _pool(row_bytes, num_slots) -> tuple[RowFormat, int]:
    fmt = validate.check_format(row_bytes, "row_bytes")
    num_slots = validate.check_static_int(num_slots, "num_slots", 1)
    if num_slots >= INT32_LIMIT:
        raise ValueError(f"num_slots: at most 2**31 - 1 slots (int32 slot ids), got {num_slots}")
    return fmt, num_slots


def _choice(
    operation: str, requested: str | None, shapes: Shapes, options: dict, device: Device | None
) -> Choice:
    if device is not None and not isinstance(device, Device):
        raise TypeError(f"device: expected None or a jax_glm_nope.Device, got {type(device).__name__}")
    # Another machine's device is answered as when lowering for it: its native library is
    # that machine's, never built or loaded here, and a GPU artifact never embeds the
    # plain-jnp reference silently.
    another_machine = device is not None and device != device_mod.local()
    lowering = device_mod.lowering_target() is not None or another_machine
    decision = dispatch.decide(operation, requested, shapes, options, device, lowering=lowering)
    refusal = own_platform_refusal(decision)
    if refusal is not None:
        raise ValueError(refusal)
    return Choice(
        operation=decision.operation,
        implementation=decision.implementation,
        device=decision.device,
        serving=decision.serving,
        reasons=decision.reasons,
        forced_by=decision.forced_by,
    )
