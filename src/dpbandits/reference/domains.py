"""The domain of every parameter name: what values an algorithm's constructor accepts.

Names and defaults are read from each algorithm's constructor, so they cannot drift from the
code; the domain of each parameter is stated here once, where one name means one thing in every
algorithm, or by the algorithm itself (its ``parameter_domains``) where the meaning is its own.
:mod:`dpbandits.reference.parameters` looks parameters up by algorithm name.
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass
from typing import Any

from ..errors import DPBanditsError

__all__ = ["RESERVED", "DOMAINS", "Parameter", "parameters_of"]

RESERVED = ("K", "T", "epsilon", "runs", "rng", "variant", "matroid")
"""Constructor arguments that are the problem instance or the run's setup, not parameters."""

DOMAINS: dict[str, str] = {
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

@dataclass(frozen=True)
class Parameter:
    """One parameter of an algorithm: its name, default value and domain (as text)."""

    name: str
    default: Any
    domain: str

    def describe(self) -> str:
        return f"{self.name} = {self.default!r}: {self.domain}"


def parameters_of(cls: type) -> list[Parameter]:
    """The parameters of algorithm class ``cls``, in the constructor's order."""
    own = getattr(cls, "parameter_domains", {})
    found = []
    for argument in inspect.signature(cls.__init__).parameters.values():
        if argument.name in ("self", *RESERVED) or argument.kind in (argument.VAR_KEYWORD,
                                                                     argument.VAR_POSITIONAL):
            continue
        domain = own.get(argument.name) or DOMAINS.get(argument.name)
        if domain is None:
            raise DPBanditsError(f"{cls.name}: parameter {argument.name!r} has no stated domain")
        default = None if argument.default is inspect.Parameter.empty else argument.default
        found.append(Parameter(argument.name, default, domain))
    return found
