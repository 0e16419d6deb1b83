"""The parameters of every registered algorithm: name, default and domain.

Names and defaults are read from each algorithm's constructor, so they cannot drift from the
code; the domain of each parameter (what values the constructor accepts) is stated here once and
shown by ``dpbandits list``. The problem instance (K, T, epsilon), the number of runs, the
generator, the variant and a matroid are not parameters: they are given separately.
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass
from typing import Any

from ..errors import DPBanditsError

__all__ = ["RESERVED", "Parameter", "parameters", "check_parameter_names", "parse_value"]

RESERVED = ("K", "T", "epsilon", "runs", "rng", "variant", "matroid")
"""Constructor arguments that are the problem instance or the run's setup, not parameters."""

_DOMAINS: dict[str, str] = {
    "tie_break": "'first' (lowest index) or 'random' (uniform among the tied)",
    "index": "'kl' or 'ucb'",
    "init_episode_size": "1 or 0.5",
    "beta": "a number in (0, 1), or unset for 1/T",
    "rounding": "'ceil' or 'plus-one'",
    "order": "'round-robin' or 'blocks'",
    "log_base": "'e' or 2",
    "tree_log_base": "2 or 'e'",
    "v": "a number in (1, 1.5]",
    "delta": "a number in (0, 1)",
    "interval": "'constant', 'x' or 'y'",
    "bonus": "'frozen' or 'fresh'",
    "gamma_rule": "'t' or 'T'",
    "depth_log": "'ln' or 'log2'",
    "eta": "a number > 0, or unset for the anytime rate sqrt(8 ln(K) / t)",
    "B": "0 (no resampling) or 1 (Bernoulli resampling)",
    "Q": "'laplace', 'exponential' or 'gumbel'",
    "form": "'round0', 'agrawal-goyal' or 'lazy'",
    "log_round": "'t' or 't-1'",
    "initial_order": "'first' (arms 0..K-1 in the first K rounds) or 'random' (a random order per run)",
}
"""Domain of each parameter name, where one name means one thing in every algorithm."""

_OWN_DOMAINS: dict[tuple[str, str], str] = {
    ("adap-klucb", "alpha"): "a number > 3",
    ("omm", "alpha"): "a number > 0",
}
"""Domains of parameter names whose meaning depends on the algorithm."""


@dataclass(frozen=True)
class Parameter:
    """One parameter of an algorithm: its name, default value and domain (as text)."""

    name: str
    default: Any
    domain: str

    def describe(self) -> str:
        return f"{self.name} = {self.default!r}: {self.domain}"


def parameters(name: str) -> list[Parameter]:
    """The parameters of registered algorithm ``name``, in the constructor's order."""
    from .registry import canonical, get

    name = canonical(name)
    cls = get(name)
    found = []
    for argument in inspect.signature(cls.__init__).parameters.values():
        if argument.name in ("self", *RESERVED) or argument.kind in (argument.VAR_KEYWORD,
                                                                     argument.VAR_POSITIONAL):
            continue
        domain = _OWN_DOMAINS.get((name, argument.name)) or _DOMAINS.get(argument.name)
        if domain is None:
            raise DPBanditsError(f"{name}: parameter {argument.name!r} has no stated domain")
        default = None if argument.default is inspect.Parameter.empty else argument.default
        found.append(Parameter(argument.name, default, domain))
    return found


def check_parameter_names(name: str, names: list[str] | tuple[str, ...]) -> None:
    """Refuse a reserved or unknown parameter name for algorithm ``name``, listing the known ones."""
    for given in names:
        if given in RESERVED:
            raise DPBanditsError(f"{given!r} is not a parameter of {name}: K, T and epsilon are "
                                 "given by their own options (--arms/--means/--setting, --horizon, "
                                 "--epsilon); reserved names: " + ", ".join(RESERVED))
        known = [p.name for p in parameters(name)]
        if given not in known:
            raise DPBanditsError(f"unknown parameter {given!r} for {name}; its parameters: "
                                 + (", ".join(known) or "none"))


def parse_value(text: str) -> Any:
    """A parameter value from text: an integer, a number or a string, in that order."""
    for convert in (int, float):
        try:
            return convert(text)
        except ValueError:
            continue
    return text
