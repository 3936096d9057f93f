"""How many tokens and requests a KV-cache budget holds (README "Why").

GLM-5.3-Flash keeps a latent cache in its 11 sparse-MLA trunk layers and its MTP
layer (the 34 KDA layers hold a fixed state per request, not per token). Next to
every sparse-MLA layer's latent rows sits the indexer's pooled key cache: one
128-value FP8 key plus an fp32 scale per pool of 4 tokens, 33 bytes per token.
MLA caches one latent per token for all heads, so every tensor-parallel rank holds
the same rows: capacity is per device and does not grow with TP.
"""

from __future__ import annotations

import dataclasses
import re

from . import layout

INDEXER_KEY_BYTES = 128 + 4  # one fp8 key of 128 dims + its fp32 scale, per pool
INDEX_KPOOL = 4  # tokens per indexer pool


@dataclasses.dataclass(frozen=True)
class Model:
    name: str
    sparse_mla_layers: int
    mtp_layers: int
    num_heads: int
    indexer_bytes_per_token: float

    @property
    def cached_layers(self) -> int:
        return self.sparse_mla_layers + self.mtp_layers


GLM53_FLASH = Model(
    name="GLM-5.3-Flash",
    sparse_mla_layers=11,
    mtp_layers=1,
    num_heads=64,
    indexer_bytes_per_token=INDEXER_KEY_BYTES / INDEX_KPOOL,
)

ROW_KINDS = (
    ("COMPACT fp8", layout.COMPACT.bytes_per_token),
    ("PADDED fp8", layout.PADDED.bytes_per_token),
    ("BF16 latent", layout.BF16_LATENT_BYTES),
)


@dataclasses.dataclass(frozen=True)
class CapacityRow:
    cache: str
    row_bytes: int
    bytes_per_token: float  # all cached layers, latent rows plus indexer keys
    pages: int
    cached_tokens: int
    requests: int  # concurrent requests at the given context
    vs_padded: float  # cached tokens relative to the PADDED row


def parse_bytes(text: str) -> int:
    """``"80GiB"``, ``"80GB"``, ``"1.5TiB"``, ``"123456"`` -> bytes."""
    match = re.fullmatch(r"\s*([0-9]*\.?[0-9]+)\s*([KMGT]i?B)?\s*", str(text), re.IGNORECASE)
    if not match:
        raise ValueError(f"memory: expected a size such as 80GiB, 141GB or 1e9 bytes, got {text!r}")
    number, unit = float(match.group(1)), (match.group(2) or "B").upper()
    powers = {"K": 1, "M": 2, "G": 3, "T": 4}
    if unit == "B":
        return int(number)
    base = 1024 if unit.endswith("IB") else 1000
    return int(number * base ** powers[unit[0]])


def capacity(
    memory_bytes: int,
    *,
    tp: int = 1,
    page_size: int = 64,
    context: int = 131072,
    model: Model = GLM53_FLASH,
) -> list[CapacityRow]:
    """Cached tokens and concurrent requests per device for 528-, 656- and BF16-row caches.

    ``memory_bytes`` is the KV-cache budget of one device; pages of ``page_size``
    tokens hold every cached layer's rows; a request of ``context`` tokens takes
    ``ceil(context / page_size)`` pages.
    """
    for value, name, minimum in (
        (memory_bytes, "memory_bytes", 1),
        (page_size, "page_size", 1),
        (context, "context", 1),
        (tp, "tp", 1),
    ):
        if not isinstance(value, int) or isinstance(value, bool) or value < minimum:
            raise ValueError(f"{name}: expected an int >= {minimum}, got {value!r}")
    if model.num_heads % tp:
        raise ValueError(f"tp: expected a divisor of the {model.num_heads} heads of {model.name}, got {tp}")
    pages_per_request = -(-context // page_size)
    rows = []
    padded_tokens = None
    for cache, row_bytes in ROW_KINDS:
        per_token = model.cached_layers * (row_bytes + model.indexer_bytes_per_token)
        pages = int(memory_bytes // (page_size * per_token))
        tokens = pages * page_size
        if row_bytes == layout.PADDED.bytes_per_token:
            padded_tokens = tokens
        rows.append((cache, row_bytes, per_token, pages, tokens, pages // pages_per_request))
    return [
        CapacityRow(c, rb, pt, p, t, r, t / padded_tokens if padded_tokens else float("nan"))
        for c, rb, pt, p, t, r in rows
    ]
