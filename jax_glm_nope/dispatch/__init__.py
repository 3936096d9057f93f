"""Which implementation serves a call: one table per operation, read top to bottom.

``implementation=None`` takes the first entry marked ``auto`` whose device predicate
and shape predicate both accept the call. An implementation named explicitly that
cannot serve the call raises a ``ValueError`` naming the device and the reason;
nothing falls back silently.

====================  ======================================  ==========================
sparse_mla            runs on                                 auto
====================  ======================================  ==========================
``flashinfer``        SM120/SM121 (FlashInfer 0.7.4 headers)  yes
``cuda``              Hopper, compute capability 9.0          from ``CUDA_MIN_TOKENS``
                                                              tokens, and at one token
                                                              up to
                                                              ``CUDA_ONE_TOKEN_MAX_HEADS``
                                                              heads (measured faster
                                                              than Pallas there)
``pallas``            NVIDIA GPUs, compute capability >= 8.9  yes
``reference``         everywhere (plain jnp)                  yes
====================  ======================================  ==========================

``write_kv``: ``cuda`` (our KV-row kernel, any NVIDIA GPU; automatic only when the
native library is already built, so a plain write never starts a compile), then
``xla`` (a scatter, everywhere).

:func:`call` is the public API's one entry: it decides once, then runs the decision,
lowered per platform where it was made for another device. The jobs, one module each,
none importing a later one:

- :mod:`.table`: the entries, their thresholds, and the environment switch;
- :mod:`.keywords`: the keywords a call may pass;
- :mod:`.decision`: one pass over the table makes a :class:`Decision`;
- :mod:`.lowering`: running a decision, per platform where that matters.
"""

from __future__ import annotations

from .decision import Decision, decide
from .keywords import keywords
from .lowering import call
from .table import (
    AUTO_OPTIONS,
    CUDA_MIN_TOKENS,
    CUDA_ONE_TOKEN_MAX_HEADS,
    TABLES,
    SparseMlaImplementation,
    WriteKvImplementation,
    export_disabled_checks,
    names,
    unsupported,
)

__all__ = [
    "AUTO_OPTIONS",
    "CUDA_MIN_TOKENS",
    "CUDA_ONE_TOKEN_MAX_HEADS",
    "TABLES",
    "Decision",
    "SparseMlaImplementation",
    "WriteKvImplementation",
    "call",
    "decide",
    "export_disabled_checks",
    "keywords",
    "names",
    "unsupported",
]
