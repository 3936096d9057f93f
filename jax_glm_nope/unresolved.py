"""The automatic choice on a host without a GPU, for platforms other than its own.

On a CPU host, ``implementation=None`` runs the CPU's implementation (the plain-jnp
reference, the XLA scatter). If the same call is lowered for a GPU platform (``jax.export``
with ``platforms=("cuda",)``, ``("cpu", "cuda")``, ``.trace(...).lower(lowering_platforms=
...)``), there is no GPU whose kernel the dispatch table could pick, and embedding the
reference in a GPU artifact would be a silent slow path. So the call is lowered per
platform (:mod:`jax_glm_nope.per_platform`): the CPU's implementation for the CPU, and for
any other platform a lowering error that asks for a device record
(:func:`jax_glm_nope.lowering_for`) or an explicit ``implementation=``. Its derivatives
(``jax.grad``, ``jax.jvp``, ``jax.linearize``, ``jax.vjp``) are per platform too: the CPU
implementation's derivative for the CPU, the same refusal for any other platform. On the
CPU, ``jit``, ``vmap`` and differentiation behave as the CPU implementation's.
"""

from __future__ import annotations

from collections.abc import Callable

from . import per_platform


def cpu_only(operation: str, call: Callable, args: tuple):
    """``call(*args)`` for the CPU platform; lowering it, or any derivative of it, for any
    other platform raises."""
    refusal = (
        f"{operation}(implementation=None) is being lowered for {{platform}} on a host without a "
        "GPU, so there is no device whose kernel to choose (the reference is not embedded in a GPU "
        "artifact, differentiated or not). Lower inside jax_glm_nope.lowering_for("
        "jax_glm_nope.Device(...)) naming the target GPU, e.g. Device('cuda', 'NVIDIA H200', (9, 0), "
        "132), or pass implementation= explicitly."
    )
    return per_platform.call(args, {"cpu": call}, refusal)
