"""One decision per call: one pass over the table makes a :class:`Decision`.

The pass asks every entry once whether it serves the call (its device predicate, then
its shape predicate), and the record keeps the answer and a reason for every entry not
taken. Everything after reads the record: running the choice and lowering it per
platform (:mod:`.lowering`), and explaining it
(:func:`jax_glm_nope.sparse_mla_implementation`). The environment switch is read once,
before the pass; under ``jax.vmap`` an automatic call is decided again only because its
shapes changed (:func:`again`), with the same switch and device.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

from .. import device as device_mod
from .. import environment
from ..device import Device
from ..implementations import Shapes
from . import keywords
from .table import AUTO_OPTIONS, PROPERTIES, TABLES, Entry, entry, switch

CPU = Device("cpu", "cpu")


@dataclasses.dataclass(frozen=True)
class Decision:
    """Which implementation serves one call, on which device, and why not the others.

    ``requested``: the name the code passed (None: automatic); ``forced_by``: the
    environment variable and value that named the implementation instead, or None.
    ``options``: what the implementation receives (the call's options it takes).
    ``serving``: every implementation that would serve the call if named, in table order;
    ``reasons``: for every other entry, why it is not the one. ``lowering``: the device is
    not this process's own but one being lowered for (:func:`jax_glm_nope.lowering_for`,
    or another machine's record asked about), so the call is lowered per platform.
    ``no_kernel``: when the automatic choice fell to the table's plain-jnp last entry, why
    each kernel does not serve (what a GPU artifact's refusal says). ``portable``: a
    named implementation that also runs on the CPU (known only when ``lowering``).
    """

    operation: str
    implementation: str
    device: Device
    shapes: Shapes | None
    requested: str | None
    forced_by: str | None
    options: Mapping[str, Any]
    serving: tuple[str, ...]
    reasons: Mapping[str, str]
    lowering: bool
    fallback: bool
    no_kernel: str | None
    portable: bool
    switch: environment.Switch
    call_options: Mapping[str, Any]  # as the call passed them, to decide again for other shapes
    module: Any = dataclasses.field(compare=False, repr=False)  # the implementation
    everywhere: Any = dataclasses.field(compare=False, repr=False)  # the table's last, the CPU's

    @property
    def automatic(self) -> bool:
        """Chosen by the table, neither named in the code nor forced by the environment."""
        return self.requested is None and self.forced_by is None

    @property
    def named(self) -> str | None:
        """The name the call is lowered as (the code's, or the forcing variable's), or None."""
        return None if self.automatic else self.implementation


def decide(
    operation: str,
    requested: str | None,
    shapes: Shapes | None,
    options: dict,
    device: Device | None = None,
    *,
    lowering: bool | None = None,
) -> Decision:
    """The decision for one call: its keywords checked, the environment switch read once,
    and one pass over the table for ``device`` (None: :func:`jax_glm_nope.device.current`).
    ``lowering`` (None: inside :func:`jax_glm_nope.lowering_for`) says the device is not
    this process's own. Raises what the call raises: a ``TypeError`` for a keyword, a
    ``ValueError`` naming the device and why for an implementation that cannot serve."""
    keywords.check(operation, options)
    if lowering is None:
        lowering = device_mod.lowering_target() is not None
    device = device or device_mod.current()
    return _decide(operation, requested, shapes, dict(options), device, switch(operation), lowering)


def again(decision: Decision, shapes: Shapes) -> Decision:
    """``decision``'s call decided for other shapes (a vmapped batch folded into tokens):
    the same request, options, switch and device."""
    if shapes == decision.shapes:
        return decision
    return _decide(
        decision.operation,
        decision.requested,
        shapes,
        dict(decision.call_options),
        decision.device,
        decision.switch,
        decision.lowering,
    )


@dataclasses.dataclass(frozen=True)
class _Answer:
    """What one entry of the table answered in the pass."""

    entry: Entry
    module: Any
    disabled: bool
    untaken: tuple[str, ...]  # the call's options it does not take
    unsupported: str | None  # with the call's options
    automatic: str | None  # with the options implementation=None passes it
    plain: str | None  # with implementation=None's own options only


def _decide(operation, requested, shapes, options, device, switched, lowering) -> Decision:
    forced_by = switched.source() if requested is None and switched.forced is not None else None
    try:
        return _pass(operation, requested, shapes, options, device, switched, lowering, forced_by)
    except (TypeError, ValueError) as err:
        if forced_by is None:
            raise
        raise type(err)(f"{err} (implementation={switched.forced!r} is forced by {forced_by})") from None


def _pass(operation, requested, shapes, options, device, switched, lowering, forced_by) -> Decision:
    name = requested if requested is not None else switched.forced
    if name is None:
        own = sorted(set(options) - set(PROPERTIES.get(operation, ())))
        if own:
            raise TypeError(
                f"{operation}(): options {own} belong to one implementation: name it with implementation=..."
            )
    else:
        if isinstance(name, str) and name in switched.disabled:
            raise ValueError(
                f"implementation={name!r} is disabled by {switched.source()} in the environment; name "
                "another implementation, or unset the variable"
            )
        if not isinstance(name, str):
            raise TypeError(f"implementation: expected None or a str, got {type(name).__name__}")
        keywords.check_taken(operation, name, entry(operation, name).load(), options)

    answers = [_answer(row, operation, device, shapes, options, switched) for row in TABLES[operation]]
    by_name = {answer.entry.name: answer for answer in answers}
    wanted = sorted(key for key, value in options.items() if value)
    if name is not None:
        chosen = by_name[name]
        if chosen.unsupported is not None:
            # The advice of what to use instead comes from this table, not from the kernels.
            instead = [
                a.entry.name for a in answers if a is not chosen and not a.disabled and a.plain is None
            ]
            raise ValueError(
                f"implementation={name!r} cannot serve this call on {device.describe()}: "
                f"{chosen.unsupported}. Implementations that serve it here: {', '.join(instead)}"
            )
    elif wanted:
        chosen = _honouring(operation, answers, wanted, device)
    else:
        chosen = _first_automatic(operation, answers, shapes)
    automatic = name is None
    serving, reasons = _reasons(answers, chosen, shapes, options, switched, forced_by, automatic)
    fallback = chosen.entry.fallback
    no_kernel = None
    if automatic and fallback:
        no_kernel = "; ".join(
            f"{a.entry.name}: disabled by {switched.variable}" if a.disabled else f"{a.entry.name}: {a.plain}"
            for a in answers
            if not a.entry.fallback and a.entry.automatic(shapes)
        )
    taken = options if not automatic else {k: v for k, v in options.items() if k in chosen.module.OPTIONS}
    portable = lowering and not automatic and chosen.module.device_unsupported(CPU, **taken) is None
    return Decision(
        operation=operation,
        implementation=chosen.entry.name,
        device=device,
        shapes=shapes,
        requested=requested,
        forced_by=forced_by,
        options=MappingProxyType(dict(taken)),
        serving=serving,
        reasons=MappingProxyType(reasons),
        lowering=lowering,
        fallback=fallback,
        no_kernel=no_kernel,
        portable=portable,
        switch=switched,
        call_options=MappingProxyType(dict(options)),
        module=chosen.module,
        everywhere=answers[-1].module,
    )


def _answer(row: Entry, operation, device, shapes, options, switched) -> _Answer:
    """One entry asked, with each set of options the decision needs, each set once."""
    module = row.load()
    disabled = row.name in switched.disabled
    untaken = tuple(sorted(set(options) - set(module.OPTIONS)))
    asked: list[tuple[dict, str | None]] = []  # by equality: an option may be unhashable

    def ask(**given) -> str | None:
        for earlier, reason in asked:
            if earlier == given:
                return reason
        reason = module.device_unsupported(device, **given)
        if reason is None and shapes is not None:
            reason = module.shapes_unsupported(shapes, **given)
        asked.append((given, reason))
        return reason

    if disabled:  # a disabled entry is never asked: the environment took it out of the table
        return _Answer(row, module, True, untaken, None, None, None)
    automatic_options = AUTO_OPTIONS[operation]
    return _Answer(
        row,
        module,
        False,
        untaken,
        None if untaken else ask(**options),
        None if untaken else ask(**automatic_options, **options),
        ask(**automatic_options),
    )


def _first_automatic(operation, answers, shapes) -> _Answer:
    for answer in answers:
        if not answer.disabled and answer.entry.automatic(shapes) and answer.plain is None:
            return answer
    raise AssertionError(f"the last {operation} implementation serves every call")


def _honouring(operation, answers, wanted, device) -> _Answer:
    """The first implementation that honours every property in ``wanted`` and serves the
    call, whatever the number of tokens (a token-count threshold would hand a token alone
    and the same token in a batch to different implementations), or raise saying which
    implementations honour them and why none serves here."""
    reasons = []
    for answer in answers:
        if not set(wanted) <= set(answer.module.OPTIONS):
            continue
        if answer.disabled:
            reasons.append(f"{answer.entry.name}: disabled by {environment.variable(operation)}")
            continue
        if answer.automatic is None:
            return answer
        reasons.append(f"{answer.entry.name}: {answer.automatic}")
    raise ValueError(
        f"{operation}({', '.join(f'{key}=True' for key in wanted)}) with implementation=None: no "
        f"implementation that honours it serves this call on {device.describe()} "
        f"({'; '.join(reasons) or 'none honours it'})"
    )


def _reasons(
    answers: list[_Answer],
    chosen: _Answer,
    shapes: Shapes | None,
    options: dict,
    switched: environment.Switch,
    forced_by: str | None,
    automatic: bool,
) -> tuple[tuple[str, ...], dict[str, str]]:
    """``(serving, reasons)``: every entry that serves the call if named, and for every
    entry but the chosen one why it is not the one."""
    serving: list[str] = []
    reasons: dict[str, str] = {}
    for answer in answers:
        name = answer.entry.name
        if answer.disabled:
            reasons[name] = f"disabled by {switched.source()}"
            continue
        if answer.untaken:
            reasons[name] = f"does not take {', '.join(f'{key}={options[key]!r}' for key in answer.untaken)}"
            continue
        if answer.unsupported is not None:
            reasons[name] = answer.unsupported
            continue
        serving.append(name)
        if answer is chosen:
            continue
        taken = chosen.entry.name
        if forced_by is not None:
            reasons[name] = f"serves this call, but {forced_by} forces {taken}"
        elif not automatic:
            reasons[name] = f"serves this call, but implementation={taken!r} is named"
        elif not options and not answer.entry.automatic(shapes):
            when = answer.entry.auto_when or "at other shapes"
            reasons[name] = f"serves this call when named; implementation=None takes it {when}"
        elif answer.automatic is not None:
            reasons[name] = (
                f"serves this call when named; implementation=None does not take it: {answer.automatic}"
            )
        else:
            reasons[name] = f"serves this call, but {taken} comes first in the table"
    return tuple(serving), reasons
