"""The implementations of ``sparse_mla`` and ``write_kv``.

Every implementation module answers the same three questions:

- ``device_unsupported(device, **options) -> str | None``: can it run on this
  :class:`~jax_glm_nope.device.Device` (``None``: yes; else a sentence why not);
- ``shapes_unsupported(shapes, **options) -> str | None``: can it serve these
  :class:`Shapes` (T, H, K, row bytes, pool size);
- the operation itself, ``sparse_mla(q, pool, indices, topk_lens, sm_scale, *, device,
  **options)`` or ``write_kv(pool, latent, slots, *, device)``, over arguments the public
  API has validated and normalised (2-D pool; ``topk_lens`` int32 ``[T]``, or
  ``candidates.EVERY_CANDIDATE`` (``[0]``) when the call gave none;
  each write slot named once): nothing below re-validates. ``device`` is the dispatch
  decision's :class:`~jax_glm_nope.device.Device`, the one to size the work for; an
  implementation never asks for the current device itself.

A ``sparse_mla`` implementation also answers ``scratch(shapes, device, **options)``: the
buffers (``jax.ShapeDtypeStruct``) its kernels write besides ``out`` and ``lse``, sized by
the rules its call uses (:func:`jax_glm_nope.sparse_mla_scratch_bytes` sums them).

``OPTIONS`` names the keyword options it takes; ``CUSTOM_CALL_TARGETS`` (optional) the
custom calls it lowers to, which :func:`jax_glm_nope.export_disabled_checks` gathers; and
``lowering_context(device)`` (optional) the context its lowering needs when the call is
lowered for another machine's ``device`` (:func:`jax_glm_nope.lowering_for`).
:mod:`jax_glm_nope.dispatch` holds the table that orders them and decides once per call.
"""

from __future__ import annotations

import dataclasses


@dataclasses.dataclass(frozen=True)
class Shapes:
    """What a shape predicate sees of a call."""

    num_tokens: int
    num_heads: int
    num_candidates: int
    row_bytes: int
    num_slots: int

    @property
    def pool_bytes(self) -> int:
        return self.num_slots * self.row_bytes
