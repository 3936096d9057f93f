"""The public API: validate at the boundary, normalise arguments, dispatch.

No implementation is named here: one call into :mod:`.dispatch` (its tables choose,
then run the choice) per operation.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Never

import jax
import jax.numpy as jnp
from jax.typing import ArrayLike

from . import dispatch, quant, validate
from .candidates import EVERY_CANDIDATE, last_writer_only
from .dispatch import SparseMlaImplementation, WriteKvImplementation
from .implementations import Shapes
from .layout import RowFormat

if TYPE_CHECKING:  # the Pallas package imports jax's Triton lowering: not at import time
    from .implementations.pallas import Schedule


def sparse_mla(
    q: ArrayLike,
    pool: ArrayLike,
    indices: ArrayLike,
    sm_scale: float,
    topk_lens: ArrayLike | None = None,
    *,
    implementation: SparseMlaImplementation | None = None,
    batch_invariant: bool = False,
    interpret: bool = False,
    schedule: Schedule | None = None,
    **unknown: Never,
) -> tuple[jax.Array, jax.Array]:
    """Sparse multi-head latent attention over cached FP8 rows.

    Args:
      q: ``[T, H, 512]`` bfloat16 absorbed queries, ``0 <= T <= 65536``, ``1 <= H <= 128``.
      pool: uint8 ``[num_slots, row_bytes]`` or ``[num_pages, page_size, row_bytes]``,
        rows of 528 (COMPACT) or 656 (PADDED) bytes; slot = page * page_size + offset.
      indices: ``[T, K]`` int32 slot ids. Negative or ``>= num_slots`` entries are holes:
        never read, never an error.
      sm_scale: softmax scale applied to ``q . k`` (finite in float32).
      topk_lens: optional ``[T]`` int32; candidate ``j`` counts only if ``j < topk_lens[t]``.
      implementation: ``None`` (the first of the dispatch table that serves the device
        and shapes; :func:`jax_glm_nope.sparse_mla_implementation` says which, and why),
        ``"flashinfer"``, ``"cuda"``, ``"pallas"`` or ``"reference"``. The environment
        variable ``JAX_GLM_NOPE_SPARSE_MLA`` can force or disable implementations
        (docs/serving.md).
      batch_invariant: a bool. True: a token's bits do not depend on the other tokens of
        the call (decode, verify and prefill of one token agree bit for bit). ``cuda``
        honours it; with ``implementation=None`` the first implementation that honours it
        and serves the call is taken, and a ``ValueError`` says so where none does.
      interpret: a bool, with ``implementation="pallas"``: run the Pallas kernel in the
        Pallas interpreter, on any platform (tests on a CPU).
      schedule: with ``implementation="pallas"``, a
        ``jax_glm_nope.implementations.pallas.Schedule`` overriding the kernel's own
        choice of blocks and splits (benchmarks and tuning only).

    Returns:
      ``out [T, H, 512]`` bfloat16, the softmax-weighted sum of the dequantized rows, and
      ``lse [T, H]`` float32, the natural-log sum of exponentials of the scores. A token
      with no active candidate gets ``out = 0`` and ``lse = -inf``; non-finite referenced
      input gives NaN in both for that head.

    There is no ``precision=``: every implementation meets one accuracy bound against
    float64 (docs/semantics.md), so the fast path is the exact one. Not differentiable
    through the kernels (``jax.grad`` raises); the reference is plain jnp and
    differentiable.
    """
    options: dict = dict(unknown)  # renamed and unknown keywords: dispatch says what they are
    if validate.check_bool(batch_invariant, "batch_invariant"):
        options["batch_invariant"] = True
    if validate.check_bool(interpret, "interpret"):
        options["interpret"] = True
    if schedule is not None:
        options["schedule"] = schedule
    num_tokens, num_heads = validate.check_q(q)
    num_slots, fmt = validate.check_pool(pool)
    num_candidates = validate.check_indices(indices, num_tokens)
    sm_scale = validate.check_sm_scale(sm_scale)
    if topk_lens is not None:
        validate.check_topk_lens(topk_lens, num_tokens)
    shapes = Shapes(num_tokens, num_heads, num_candidates, fmt.bytes_per_token, num_slots)
    pool = jnp.reshape(jnp.asarray(pool), (num_slots, fmt.bytes_per_token))  # free: a bitcast in XLA
    # No XLA kernel before the attention's own: without topk_lens, an empty vector that
    # means "every candidate" (candidates.EVERY_CANDIDATE; a [T] constant would become a
    # broadcast fusion); given, it goes to the implementations as it is, each clamping it
    # where it reads it (the rule is ``j < topk_lens[t]``, which a negative or an
    # oversized length already obeys).
    topk_lens = jnp.asarray(EVERY_CANDIDATE if topk_lens is None else topk_lens)
    args = (jnp.asarray(q), pool, jnp.asarray(indices), topk_lens)
    return dispatch.call("sparse_mla", implementation, shapes, args, options, sm_scale=sm_scale)


def quantize(latent: ArrayLike, fmt: RowFormat | int = RowFormat.COMPACT) -> jax.Array:
    """``latent [T, 512]`` (bf16/f16/f32) -> ``[T, fmt.bytes_per_token]`` uint8 rows."""
    validate.check_latent(latent)
    fmt = validate.check_format(fmt)
    return quant.quantize_rows(jnp.asarray(latent), fmt)


def dequantize(rows: ArrayLike) -> jax.Array:
    """uint8 rows ``[..., 528 | 656]`` -> float32 values ``[..., 512]``."""
    validate.check_rows(rows)
    return quant.dequantize_rows(jnp.asarray(rows))


def repack(pool: ArrayLike, fmt: RowFormat | int) -> jax.Array:
    """A pool (2-D or 3-D) with rows rewritten in ``fmt``: 656 <-> 528 bytes, lossless.

    The first 528 bytes of every row are copied bit for bit (no requantization);
    PADDED rows get zero reserved bytes.
    """
    validate.check_pool(pool)
    fmt = validate.check_format(fmt)
    return quant.repack_rows(jnp.asarray(pool), fmt)


def write_kv(
    pool: ArrayLike,
    latent: ArrayLike,
    slots: ArrayLike,
    *,
    implementation: WriteKvImplementation | None = None,
    **unknown: Never,
) -> jax.Array:
    """Quantize ``latent [T, 512]`` and store row ``t`` at slot ``slots[t]``.

    Negative and out-of-range slots are dropped. Returns the updated pool, in the
    shape it came in; jit with the pool donated and the update happens in place.
    When several rows name one slot, the last of them is stored, whole.
    ``implementation``: ``"cuda"`` (our CUDA kernel, NVIDIA GPUs), ``"xla"`` (a scatter)
    or ``None`` (``"cuda"`` on an NVIDIA GPU when the native library is already built;
    :func:`jax_glm_nope.write_kv_implementation` says which, and why; the environment
    variable ``JAX_GLM_NOPE_WRITE_KV`` can force or disable one, docs/serving.md).
    """
    options: dict = dict(unknown)  # renamed and unknown keywords: dispatch says what they are
    num_slots, fmt = validate.check_pool(pool)
    num_tokens = validate.check_latent(latent)
    validate.check_slots(slots, num_tokens)
    shapes = Shapes(num_tokens, 0, 0, fmt.bytes_per_token, num_slots)
    pool = jnp.asarray(pool)
    pool2d = jnp.reshape(pool, (num_slots, fmt.bytes_per_token))
    # Each slot named once, by the last row naming it (no scatter orders duplicates the
    # same way: the H200's interleaves them): every implementation stores what it gets.
    slots = last_writer_only(jnp.asarray(slots), num_slots)
    args = (pool2d, jnp.asarray(latent), slots)
    return jnp.reshape(dispatch.call("write_kv", implementation, shapes, args, options), pool.shape)
