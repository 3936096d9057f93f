"""The keywords a call may pass, policed before anything is decided: renamed ones, knobs
that do not exist (and why), and options the named implementation does not take."""

from __future__ import annotations

from .table import PROPERTIES, TABLES

# Keywords of earlier releases: what each became, and since when.
RENAMED = {
    "backend": (
        "implementation",
        "0.2.0",
        "backend='auto' is implementation=None; write_kv's backend='ffi' is implementation='cuda'",
    )
}
# Keywords users reach for that no implementation has, and why there is no such knob.
NOT_OPTIONS = {
    "sparse_mla": {
        "precision": (
            "there is one numerics, and the fast path is the exact one: every implementation scores "
            "in float32 from queries and FP8 codes converted without loss and meets the same "
            "accuracy bound against float64 (docs/semantics.md); a faster, lower-precision mode "
            "(FP8 matrix products) would break that bound, and a higher one has nothing left to gain"
        )
    },
    "write_kv": {
        "precision": (
            "quantization is exact: correctly rounded float32 arithmetic, the same bytes as numpy "
            "and ml_dtypes on every platform"
        )
    },
}


def keywords(operation: str) -> tuple[str, ...]:
    """The option keywords of ``operation``: every option of its implementations, in table order."""
    found: dict[str, None] = dict.fromkeys(PROPERTIES.get(operation, ()))
    for entry in TABLES[operation]:
        found.update(dict.fromkeys(entry.load().OPTIONS))
    return tuple(found)


def check(operation: str, options: dict) -> None:
    """A renamed keyword says what it became; a keyword no implementation takes is a
    ``TypeError``; a knob users expect that does not exist says why."""
    for old in sorted(set(options) & set(RENAMED)):
        new, release, note = RENAMED[old]
        raise TypeError(f"{operation}(): {old}= was renamed {new}= in {release} ({note})")
    for key in sorted(options):
        why = NOT_OPTIONS.get(operation, {}).get(key)
        if why is not None:
            raise TypeError(f"{operation}() has no {key}= keyword: {why}")
    known = keywords(operation)
    unknown = sorted(set(options) - set(known))
    if unknown:
        raise TypeError(
            f"{operation}() got an unexpected keyword argument {unknown[0]!r} (its keywords: "
            f"{', '.join(('implementation', *known))})"
        )


def check_taken(operation: str, name: str, impl, options: dict) -> None:
    """Every option is one that the named implementation ``impl`` takes."""
    unknown = sorted(set(options) - set(impl.OPTIONS))
    if unknown:
        accepted = ", ".join(impl.OPTIONS) or "none"
        raise TypeError(
            f"{operation}(): option {unknown[0]!r} is not accepted by implementation={name!r} "
            f"(its options: {accepted})"
        )
