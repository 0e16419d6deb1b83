"""The parameters of every registered algorithm: name, default and domain.

Names and defaults are read from each algorithm's constructor, so they cannot drift from the
code; the domains are stated once (:mod:`dpbandits.reference.domains`) and shown by
``dpbandits list``. The problem instance (K, T, epsilon), the number of runs, the generator, the
variant and a matroid are not parameters: they are given separately.
"""

from __future__ import annotations

from typing import Any

from ..errors import DPBanditsError
from .domains import RESERVED, Parameter, parameters_of
from .registry import canonical, get

__all__ = ["RESERVED", "Parameter", "parameters", "check_parameter_names", "parse_value"]


def parameters(name: str) -> list[Parameter]:
    """The parameters of registered algorithm ``name``, in the constructor's order."""
    return parameters_of(get(canonical(name)))


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
