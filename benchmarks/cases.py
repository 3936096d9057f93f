"""The benchmark's cases and the inputs they run on.

A case is ``mode:T:H:K[:holes]``: T query tokens, H heads, K candidate columns.
``holes`` builds GLM's candidate-row shape (``jax_glm_nope.testing.glm_candidate_rows``): 512 pool groups
of four consecutive slots, runs of four -1 where a group is missing (2%), a 3-token tail,
-1 padding up to K (2051 -> 2176, by ``jax_glm_nope.pad_candidates``), and
``topk_lens`` one past the last valid column.
Without ``holes`` every column is a random slot and no ``topk_lens`` is passed.

Inputs are what a serving engine hands the kernel: one pool of quantized rows much
larger than L2 (1.1 GB by default, 18x the H200's 60 MB), random slots (never slot 0,
the engines' padding slot), and enough different index sets per case that the rows
one call gathers are out of L2 when the next call reads its own.
"""

from __future__ import annotations

import dataclasses
import math

import jax
import jax.numpy as jnp
import numpy as np

import jax_glm_nope
from jax_glm_nope.layout import HEAD_DIM, KERNEL_ROW_BYTES, NUM_TILES, TILE
from jax_glm_nope.testing import glm_candidate_rows

MODES = ("decode", "prefill")
MAX_HEADS = 128
SM_SCALE = 1.0 / 16.0  # GLM's: 1/sqrt(qk_nope 256 + qk_rope 0)
GLM_POOL_GROUPS, KPOOL, GLM_TAIL = 512, 4, 3  # 512 pools of 4 tokens + a 3-token tail = 2051
DEFAULT_POOL_SLOTS = 1 << 21  # 2M rows x 528 B = 1.1 GB
FLASHMLA_PAGE = 64  # the pool is also viewed as pages of 64 rows (FlashMLA's block size)
L2_BYTES = 60 << 20  # H200; sizes the rotation only
ROTATION_BYTES = 4 * L2_BYTES  # gathered bytes of all index sets of a case together
MIN_ROTATIONS, MAX_ROTATIONS = 2, 128


class CaseError(ValueError):
    """A case string (``--cases``) that does not describe a case."""


@dataclasses.dataclass(frozen=True)
class Case:
    mode: str  # "decode" or "prefill": the same call, named for the table
    tokens: int
    heads: int
    candidates: int
    holes: bool = False

    def __post_init__(self):
        if self.mode not in MODES:
            raise CaseError(f"mode: expected one of {list(MODES)}, got {self.mode!r}")
        if self.tokens < 1:
            raise CaseError(f"T: expected at least 1 query token, got {self.tokens}")
        if not 1 <= self.heads <= MAX_HEADS:
            raise CaseError(f"H: expected 1..{MAX_HEADS} heads, got {self.heads}")
        if self.candidates < 1:
            raise CaseError(f"K: expected at least 1 candidate column, got {self.candidates}")
        if self.holes and self.candidates < KPOOL + GLM_TAIL:
            raise CaseError(
                f"K: the GLM row shape (holes) needs at least {KPOOL + GLM_TAIL} columns "
                f"(one pool group of {KPOOL} and a {GLM_TAIL}-token tail), got {self.candidates}"
            )

    @property
    def spec(self) -> str:
        """The ``--cases`` form, which ``parse_case`` reads back."""
        return f"{self.mode}:{self.tokens}:{self.heads}:{self.candidates}" + (":holes" if self.holes else "")

    @property
    def label(self) -> str:
        return f"{self.mode} T={self.tokens} H={self.heads} K={self.candidates}" + (
            " holes" if self.holes else ""
        )

    def io_bytes(self, active_per_token: float) -> float:
        """Bytes a kernel must move: the gathered rows plus q and out (bf16)."""
        rows = self.tokens * active_per_token * KERNEL_ROW_BYTES
        return rows + 2 * self.tokens * self.heads * HEAD_DIM * 2

    def flops(self, active_per_token: float) -> float:
        """q.k and p.v over 512 dims: 2 * 2 * 512 * K * H per token (4.19 MFLOP x H at K=2048)."""
        return 2 * 2 * HEAD_DIM * active_per_token * self.heads * self.tokens


def parse_case(text: str) -> Case:
    """``mode:T:H:K[:holes]`` -> ``Case``; ``CaseError`` names what is wrong."""
    fields = text.strip().split(":")
    if len(fields) not in (4, 5) or (len(fields) == 5 and fields[4] != "holes"):
        raise CaseError(
            f"case {text!r}: expected mode:T:H:K or mode:T:H:K:holes, e.g. decode:128:8:2048 or "
            "prefill:4096:64:2176:holes"
        )
    values = []
    for name, field in zip(("T", "H", "K"), fields[1:4], strict=True):
        try:
            values.append(int(field))
        except ValueError:
            raise CaseError(f"case {text!r}: {name} must be an integer, got {field!r}") from None
    try:
        return Case(fields[0], *values, holes=len(fields) == 5)
    except CaseError as err:
        raise CaseError(f"case {text!r}: {err}") from None


def _grid(holes: bool, quick: bool = False) -> list[Case]:
    batches = (1, 128) if quick else (1, 8, 32, 128)
    heads = (8, 64) if quick else (8, 16, 32, 64, 128)
    cases = [Case("decode", b, h, 2176 if holes else 2048, holes) for b in batches for h in heads]
    if holes:
        cases += [Case("prefill", 4096, h, 2176, True) for h in ((64,) if quick else (32, 64, 128))]
    return cases


def _hopper(holes: bool) -> list[Case]:
    """Every head count of our Hopper kernel's table: b in 1, 8, 32, 128 x H in 8, 16, 24,
    32, 64, 128 at K=2048, or at K=2176 with holes plus prefill T=4096 x H in 16, 32, 64, 128.
    With cuda, flashmla and pallas one half takes more than one 10-minute device call."""
    k = 2176 if holes else 2048
    cases = [Case("decode", b, h, k, holes) for b in (1, 8, 32, 128) for h in (8, 16, 24, 32, 64, 128)]
    if holes:
        cases += [Case("prefill", 4096, h, 2176, True) for h in (16, 32, 64, 128)]
    return cases


# Named sets for --cases; k2048 + holes = full, in two device calls of under 10 minutes.
PRESETS = {
    "hopper-k2048": lambda: _hopper(False),
    "hopper-holes": lambda: _hopper(True),
    "full": lambda: _grid(False) + _grid(True),
    "quick": lambda: _grid(False, quick=True) + _grid(True, quick=True),
    "k2048": lambda: _grid(False),
    "holes": lambda: _grid(True),
}


def default_cases(quick: bool = False) -> list[Case]:
    """Decode b x H at K=2048 and at K=2176 with holes, then prefill T=4096."""
    return PRESETS["quick" if quick else "full"]()


def parse_cases(text: str) -> list[Case]:
    """A comma list of cases and preset names (``--cases``); duplicates dropped, order kept."""
    cases = []
    for part in (p.strip() for p in text.split(",")):
        if part in PRESETS:
            cases += PRESETS[part]()
        elif part:
            cases.append(parse_case(part))
    if not cases:
        raise CaseError(f"expected mode:T:H:K[:holes] cases or presets ({', '.join(PRESETS)}), got {text!r}")
    return list(dict.fromkeys(cases))


def check_pool_slots(num_slots: int) -> int:
    """The pool size (``--pool-slots``): whole pages of 64 rows, at least two pages."""
    if num_slots < 2 * FLASHMLA_PAGE or num_slots % FLASHMLA_PAGE:
        raise CaseError(
            f"--pool-slots: expected a multiple of {FLASHMLA_PAGE} of at least {2 * FLASHMLA_PAGE} "
            f"(pages of {FLASHMLA_PAGE} rows), got {num_slots}"
        )
    return num_slots


# ----------------------------------------------------------------------------- inputs


def make_pool(num_slots: int, *, wide_range: bool = False, seed: int = 0) -> jax.Array:
    """``[num_slots, 528]`` rows quantized by ``jax_glm_nope.quantize``, built on the device.

    Tiles span e^+-2.3 inside a row; with ``wide_range`` rows are also scaled by
    e^+-4 (wide-range data: score spreads of tens to hundreds of nats).
    """
    key = jax.random.key(seed, impl="rbg")  # quick to compile (threefry takes seconds on a CPU)
    chunk = min(1 << 18, num_slots)

    @jax.jit
    def rows(key):
        k1, k2, k3 = jax.random.split(key, 3)
        latent = jax.random.normal(k1, (chunk, NUM_TILES, TILE))
        spread = jax.random.uniform(k2, (chunk, NUM_TILES, 1), minval=-2.3, maxval=2.3)
        if wide_range:
            spread = spread + jax.random.uniform(k3, (chunk, 1, 1), minval=-4.0, maxval=4.0)
        latent = (latent * jnp.exp(spread)).reshape(chunk, HEAD_DIM)
        return jax_glm_nope.quantize(latent, jax_glm_nope.COMPACT)

    parts = []
    for _ in range(-(-num_slots // chunk)):
        key, sub = jax.random.split(key)
        parts.append(rows(sub))
    return jnp.concatenate(parts)[:num_slots]


@dataclasses.dataclass(frozen=True)
class Inputs:
    """What every implementation of one case is given."""

    q: jax.Array  # [T, H, 512] bf16, std-1
    indices: jax.Array  # [R, T, K] int32: R index sets, one per consecutive call
    topk_lens: jax.Array | None  # [R, T] int32 with holes, else None
    active_per_token: float  # mean active candidates per token over the R sets

    @property
    def rotations(self) -> int:
        return int(self.indices.shape[0])

    def index_set(self, r: int = 0) -> tuple[jax.Array, jax.Array | None]:
        return self.indices[r], None if self.topk_lens is None else self.topk_lens[r]


def default_rotations(case: Case) -> int:
    """Index sets per case: together they gather ``ROTATION_BYTES`` (4x L2), 2..128 sets."""
    per_set = case.tokens * case.candidates * KERNEL_ROW_BYTES
    return max(MIN_ROTATIONS, min(MAX_ROTATIONS, math.ceil(ROTATION_BYTES / per_set)))


def make_inputs(case: Case, num_slots: int, *, rotations: int | None = None, seed: int = 0) -> Inputs:
    rotations = default_rotations(case) if rotations is None else rotations
    rng = np.random.default_rng([seed, case.tokens, case.heads, case.candidates, case.holes])
    shape = (rotations * case.tokens, case.candidates)
    if case.holes:
        groups = min(GLM_POOL_GROUPS, (case.candidates - GLM_TAIL) // KPOOL)
        rows = glm_candidate_rows(rng, shape[0], groups, GLM_TAIL, num_slots)
        padded, lens = jax_glm_nope.pad_candidates(jnp.asarray(rows), case.candidates)
        indices = np.asarray(padded)
        topk_lens = np.asarray(lens).reshape(rotations, case.tokens)
        active = float(np.sum((indices >= 0) & (np.arange(case.candidates) < np.asarray(lens)[:, None])))
    else:
        indices = rng.integers(1, num_slots, shape, dtype=np.int64).astype(np.int32)
        topk_lens, active = None, float(indices.size)
    q = jax.random.normal(jax.random.PRNGKey(seed + 1), (case.tokens, case.heads, HEAD_DIM))
    return Inputs(
        q=q.astype(jnp.bfloat16),
        indices=jnp.asarray(indices.reshape(rotations, case.tokens, case.candidates)),
        topk_lens=None if topk_lens is None else jnp.asarray(topk_lens),
        active_per_token=active / shape[0],
    )
