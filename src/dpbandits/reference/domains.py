"""The domain of every parameter: which values an algorithm accepts, as an object that checks.

Names and defaults are read from each algorithm's constructor, so they cannot drift from the
code; the domain of each parameter is declared once, as a :class:`Domain`: here
(:data:`DOMAINS`), where one name means one thing in every algorithm, or by the algorithm itself
(its ``parameter_domains``) where the meaning is its own. A domain is text for ``dpbandits list``
and a check: the registry (``make``, ``check_arguments``) and ``--param`` refuse a value outside
it with one line naming the parameter and the domain, before anything is built.

Every algorithm declares a domain for every parameter when its class is defined:
:class:`~dpbandits.reference.policy.PolicyBase` calls :func:`check_declared` on each subclass, so
a parameter without one fails at import with a message that says how to declare it.
:mod:`dpbandits.reference.parameters` looks parameters up by algorithm name.
"""

from __future__ import annotations

import inspect
import math
import numbers
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..errors import DPBanditsError

__all__ = ["RESERVED", "DOMAINS", "Domain", "OneOf", "Interval", "Parameter", "parameters_of",
           "check_declared", "check_parameter_value", "HOW_TO_DECLARE"]

RESERVED = ("K", "T", "epsilon", "runs", "rng", "variant", "matroid")
"""Constructor arguments that are the problem instance or the run's setup, not parameters."""

HOW_TO_DECLARE = ("declare it in the class, e.g. parameter_domains = {{{name!r}: Interval(0, 1)}} "
                  "or {{{name!r}: OneOf('a', 'b')}} (from dpbandits.reference.domains import "
                  "Interval, OneOf; docs/tutorials/new-algorithm.md)")
"""How to declare a domain, for the error of a parameter without one."""


def _show(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _is_number(value: Any) -> bool:
    """A real number that is not a bool (``True == 1`` would pass as 1)."""
    return isinstance(value, numbers.Real) and not isinstance(value, (bool, np.bool_))


class Domain:
    """The values a parameter accepts: :meth:`check` refuses any other with one line."""

    text: str

    def contains(self, value: Any) -> bool:
        """Whether ``value`` is in the domain."""
        raise NotImplementedError

    def check(self, name: str, value: Any) -> Any:
        """``value`` unchanged if it is in the domain; else a :class:`DPBanditsError` naming
        ``name`` and the domain."""
        if not self.contains(value):
            raise DPBanditsError(f"{name} must be {self.text}, got {_show(value)}")
        return value


@dataclass(frozen=True, init=False)
class OneOf(Domain):
    """One of the listed values (texts or numbers; a number matches an equal number, never a
    text or a bool). ``text`` replaces the generated description (to say what each value
    means)."""

    values: tuple[Any, ...]
    text: str

    def __init__(self, *values: Any, text: str | None = None) -> None:
        if not values:
            raise DPBanditsError("OneOf needs at least one value")
        for value in values:
            if not (isinstance(value, str) or _is_number(value)):
                raise DPBanditsError(f"OneOf takes texts and numbers, got {_show(value)}")
        listed = [repr(v) for v in values]
        generated = listed[0] if len(listed) == 1 else ", ".join(listed[:-1]) + " or " + listed[-1]
        object.__setattr__(self, "values", tuple(values))
        object.__setattr__(self, "text", text or generated)

    def contains(self, value: Any) -> bool:
        if isinstance(value, str):
            return value in [v for v in self.values if isinstance(v, str)]
        if _is_number(value):
            return any(_is_number(v) and v == value for v in self.values)
        return False


@dataclass(frozen=True, init=False)
class Interval(Domain):
    """A finite number between ``low`` and ``high`` (None: unbounded on that side), each end
    open unless ``closed`` names it (``"low"``, ``"high"`` or ``"both"``); ``integer`` asks
    for a whole number. ``unset`` says what None means when the parameter may be left unset
    (None then belongs to the domain); ``note`` adds why the range ends where it does."""

    low: float | None = None
    high: float | None = None
    closed: str = ""
    integer: bool = False
    unset: str | None = None
    note: str | None = None

    def __init__(self, low: float | None = None, high: float | None = None, *, closed: str = "",
                 integer: bool = False, unset: str | None = None, note: str | None = None) -> None:
        if closed not in ("", "low", "high", "both"):
            raise DPBanditsError(f"Interval's closed must be '', 'low', 'high' or 'both', got "
                                 f"{closed!r}")
        for key, value in (("low", low), ("high", high), ("closed", closed), ("integer", integer),
                           ("unset", unset), ("note", note)):
            object.__setattr__(self, key, value)

    @property
    def text(self) -> str:                                  # type: ignore[override]
        kind = "an integer" if self.integer else "a number"
        low_closed = self.closed in ("low", "both")
        high_closed = self.closed in ("high", "both")
        if self.low is not None and self.high is not None:
            where = (f"{kind} in {'[' if low_closed else '('}{self.low:g}, "
                     f"{self.high:g}{']' if high_closed else ')'}")
        elif self.low is not None:
            where = f"{kind} {'>=' if low_closed else '>'} {self.low:g}"
        elif self.high is not None:
            where = f"{kind} {'<=' if high_closed else '<'} {self.high:g}"
        else:
            where = f"a finite {kind.split()[-1]}"
        if self.note:
            where += f" ({self.note})"
        return where + (f", or unset for {self.unset}" if self.unset else "")

    def contains(self, value: Any) -> bool:
        if value is None:
            return self.unset is not None
        if not _is_number(value):
            return False
        x = float(value)
        if not math.isfinite(x) or (self.integer and x != int(x)):
            return False
        low_closed = self.closed in ("low", "both")
        high_closed = self.closed in ("high", "both")
        if self.low is not None and not (x >= self.low if low_closed else x > self.low):
            return False
        return self.high is None or (x <= self.high if high_closed else x < self.high)


DOMAINS: dict[str, Domain] = {
    "tie_break": OneOf("first", "random",
                       text="'first' (lowest index) or 'random' (uniform among the tied)"),
    "index": OneOf("kl", "ucb"),
    "init_episode_size": OneOf(1, 0.5),
    "beta": Interval(0, 1, closed="high", unset="1/T"),
    "order": OneOf("round-robin", "blocks"),
    "log_base": OneOf("e", 2),
    "tree_log_base": OneOf(2, "e"),
    "v": Interval(1, 1.5, closed="high"),
    "delta": Interval(0, 1, closed="high"),
    "interval": OneOf("constant", "x", "y"),
    "bonus": OneOf("frozen", "fresh"),
    "gamma_rule": OneOf("t", "T"),
    "depth_log": OneOf("ln", "log2"),
    "B": OneOf(0, 1, text="0 (no resampling) or 1 (Bernoulli resampling)"),
    "Q": OneOf("laplace", "exponential", "gumbel",
               text="'laplace', 'exponential' or 'gumbel' (the noise law Q)"),
    "form": OneOf("round0", "agrawal-goyal", "lazy"),
    "log_round": OneOf("t", "t-1"),
    "initial_order": OneOf("first", "random",
                           text="'first' (arms 0..K-1 in the first K rounds) or 'random' (a "
                                "random order per run)"),
}
"""Domain of each parameter name, where one name means one thing in every algorithm."""


@dataclass(frozen=True)
class Parameter:
    """One parameter of an algorithm: its name, default value, domain (as text) and the domain
    that checks a value (``rule``)."""

    name: str
    default: Any
    domain: str
    rule: Domain

    def describe(self) -> str:
        return f"{self.name} = {self.default!r}: {self.domain}"

    def as_dict(self) -> dict[str, Any]:
        """Name, default and domain text (what ``dpbandits list --json`` prints)."""
        return {"name": self.name, "default": self.default, "domain": self.domain}


def _parameter_names(cls: type) -> list[inspect.Parameter]:
    return [argument for argument in inspect.signature(cls.__init__).parameters.values()
            if argument.name not in ("self", *RESERVED)
            and argument.kind not in (argument.VAR_KEYWORD, argument.VAR_POSITIONAL)]


def _domain_of(cls: type, name: str) -> Domain | None:
    own = getattr(cls, "parameter_domains", None) or {}
    return own.get(name) or DOMAINS.get(name)


def check_declared(cls: type) -> None:
    """Refuse a class whose constructor has a parameter without a declared :class:`Domain`, or
    declares one that is not a Domain or names no parameter; the message says how to declare one.
    Called when an algorithm's class is defined (at import of its module)."""
    label = getattr(cls, "name", None) or cls.__name__
    names = {argument.name for argument in _parameter_names(cls)}
    own = getattr(cls, "parameter_domains", None) or {}
    if not isinstance(own, dict):
        raise DPBanditsError(f"{label}: parameter_domains must be a dict, parameter name -> "
                             f"Domain, got {_show(own)}")
    for name, domain in own.items():
        if not isinstance(domain, Domain):
            raise DPBanditsError(f"{label}: the domain of parameter {name!r} must be a Domain, "
                                 f"got {_show(domain)}; " + HOW_TO_DECLARE.format(name=name))
        if name not in names:
            raise DPBanditsError(f"{label}: parameter_domains names {name!r}, which its "
                                 f"constructor does not take (its parameters: "
                                 f"{', '.join(sorted(names)) or 'none'})")
    for argument in _parameter_names(cls):
        domain = _domain_of(cls, argument.name)
        if domain is None:
            raise DPBanditsError(f"{label}: parameter {argument.name!r} has no declared domain; "
                                 + HOW_TO_DECLARE.format(name=argument.name))
        default = argument.default
        if default is not inspect.Parameter.empty and not domain.contains(default):
            raise DPBanditsError(f"{label}: the default of parameter {argument.name!r}, "
                                 f"{_show(default)}, is outside its domain ({domain.text})")


def parameters_of(cls: type) -> list[Parameter]:
    """The parameters of algorithm class ``cls``, in the constructor's order."""
    found = []
    for argument in _parameter_names(cls):
        domain = _domain_of(cls, argument.name)
        if domain is None:
            raise DPBanditsError(f"{getattr(cls, 'name', cls.__name__)}: parameter "
                                 f"{argument.name!r} has no declared domain; "
                                 + HOW_TO_DECLARE.format(name=argument.name))
        default = None if argument.default is inspect.Parameter.empty else argument.default
        found.append(Parameter(argument.name, default, domain.text, domain))
    return found


def check_parameter_value(cls: type, name: str, value: Any, label: str | None = None) -> Any:
    """``value`` if it lies in the declared domain of ``cls``'s parameter ``name``, else one
    line naming the parameter (as ``label``, default its name) and the domain."""
    domain = _domain_of(cls, name)
    if domain is None:               # not a declared parameter: the caller refuses the name
        return value
    return domain.check(label or name, value)
