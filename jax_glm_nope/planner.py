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
import fractions
import re

from . import layout, validate

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
    # cached tokens relative to the PADDED row; None when no PADDED page fits (the
    # ratio to zero tokens is undefined; JSON null)
    vs_padded: float | None


_SIZE = re.compile(r"\s*([0-9]*\.?[0-9]+(?:e[+-]?[0-9]+)?)\s*([KMGTP]i?B|B)?\s*", re.IGNORECASE)
_POWERS = {"B": 0, "K": 1, "M": 2, "G": 3, "T": 4, "P": 5}
MAX_EXPONENT = 1000  # "1e9999999999B" would take minutes to expand exactly


def parse_bytes(text: str) -> int:
    """``"80GiB"``, ``"141GB"``, ``"1.5TiB"``, ``"1e9B"``, ``"123456B"`` -> bytes (rounded down).

    A unit is required: a plain ``"80"`` is an error (80 bytes is never what a
    capacity question means, and 80 GiB would be a guess). Decimal arithmetic is
    exact (``"1.1GB"`` is 1_100_000_000 bytes).
    """
    examples = "80GiB, 141GB, 1.5TiB or 1e9B"
    match = _SIZE.fullmatch(str(text))
    if not match:
        raise ValueError(f"memory: expected a size such as {examples}, got {text!r}")
    number, unit = match.group(1), match.group(2)
    if unit is None:
        raise ValueError(
            f"memory: {text!r} has no unit: write {number}B for bytes, or a size such as 80GiB or 141GB"
        )
    exponent = re.search(r"e([+-]?[0-9]+)$", number, re.IGNORECASE)
    if exponent and abs(int(exponent.group(1))) > MAX_EXPONENT:
        raise ValueError(
            f"memory: expected a size such as {examples} (exponent at most {MAX_EXPONENT}), got {text!r}"
        )
    try:
        value = fractions.Fraction(number)
    except ValueError:  # more digits than Python converts (sys.get_int_max_str_digits)
        raise ValueError(f"memory: expected a size such as {examples}, got {text!r}") from None
    unit = unit.upper()
    base = 1024 if unit.endswith("IB") else 1000
    return int(value * base ** _POWERS[unit[0]])


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
    ``ceil(context / page_size)`` pages. Integers of any size (numpy integers too);
    the page count is exact integer arithmetic. ``vs_padded`` is ``None`` when no
    PADDED page fits.
    """
    memory_bytes = validate.check_static_int(memory_bytes, "memory_bytes", 1)
    tp = validate.check_static_int(tp, "tp", 1)
    page_size = validate.check_static_int(page_size, "page_size", 1)
    context = validate.check_static_int(context, "context", 1)
    if model.num_heads % tp:
        raise ValueError(f"tp: expected a divisor of the {model.num_heads} heads of {model.name}, got {tp}")
    pages_per_request = -(-context // page_size)
    rows = []
    for cache, row_bytes in ROW_KINDS:
        per_token = model.cached_layers * (row_bytes + fractions.Fraction(model.indexer_bytes_per_token))
        pages = memory_bytes // (page_size * per_token)  # exact: no float overflow or rounding
        rows.append(
            (cache, row_bytes, float(per_token), pages, pages * page_size, pages // pages_per_request)
        )
    padded_tokens = next(t for _, rb, _, _, t, _ in rows if rb == layout.PADDED.bytes_per_token)
    return [
        CapacityRow(c, rb, pt, p, t, r, t / padded_tokens if padded_tokens else None)
        for c, rb, pt, p, t, r in rows
    ]
