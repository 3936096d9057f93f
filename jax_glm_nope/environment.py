"""Switches in the environment that force or disable an implementation, no code change.

``JAX_GLM_NOPE_SPARSE_MLA`` and ``JAX_GLM_NOPE_WRITE_KV``, one per operation:

- unset or empty: the dispatch table as it is;
- an implementation's name (``JAX_GLM_NOPE_SPARSE_MLA=pallas``): ``implementation=None``
  means that implementation, as if the code named it (a call it cannot serve raises,
  saying the variable chose it; nothing falls back);
- names each prefixed with ``-`` (``JAX_GLM_NOPE_SPARSE_MLA=-cuda,-flashinfer``): the
  automatic choice skips them, and a call that names one raises. The last entry of a
  table (``reference``, ``xla``) serves every call and cannot be disabled.

An ``implementation=`` written in the code wins over a forcing variable: the variable
says what ``None`` means. The variables are read each time a call is traced, never
cached at import; a function jax has already traced and cached keeps the choice it
traced with (jit again, or start a new process, after changing them).
"""

from __future__ import annotations

import dataclasses
import os

PREFIX = "JAX_GLM_NOPE_"
OPERATIONS = ("sparse_mla", "write_kv")


def variable(operation: str) -> str:
    """The name of ``operation``'s variable: ``JAX_GLM_NOPE_SPARSE_MLA``."""
    return PREFIX + operation.upper()


@dataclasses.dataclass(frozen=True)
class Switch:
    """What one operation's variable says: a forced name, disabled names, or neither."""

    variable: str
    value: str = ""
    forced: str | None = None
    disabled: frozenset[str] = frozenset()

    def source(self) -> str:
        """``"JAX_GLM_NOPE_SPARSE_MLA='pallas'"``: what error messages cite."""
        return f"{self.variable}={self.value!r}"


def switch(operation: str, names: tuple[str, ...]) -> Switch:
    """Parse ``operation``'s variable against its table's ``names`` (in table order; the
    last serves every call). A ``ValueError`` names the variable, what it accepts and what
    it holds."""
    name = variable(operation)
    value = os.environ.get(name, "")
    text = value.strip()
    if not text:
        return Switch(name)
    expected = (
        f"{name}: expected one implementation to force ({', '.join(names)}) or a comma-separated "
        f"list of implementations to disable, each prefixed with '-' (e.g. '-{names[0]}'); got {value!r}"
    )
    parts = [part.strip() for part in text.split(",")]
    if any(not part or part == "-" for part in parts):
        raise ValueError(expected)
    negated = [part.startswith("-") for part in parts]
    if not all(negated):
        if len(parts) != 1:
            raise ValueError(expected)
        if parts[0] not in names:
            raise ValueError(f"{name}: unknown implementation {parts[0]!r} ({expected.split(': ', 1)[1]})")
        return Switch(name, value, forced=parts[0])
    disabled = frozenset(part[1:].strip() for part in parts)
    unknown = sorted(disabled - set(names))
    if unknown:
        raise ValueError(f"{name}: unknown implementation {unknown[0]!r} ({expected.split(': ', 1)[1]})")
    if names[-1] in disabled:
        raise ValueError(
            f"{name}: {names[-1]!r} cannot be disabled: it is the implementation that serves every "
            f"call when no other does; got {value!r}"
        )
    return Switch(name, value, disabled=disabled)
