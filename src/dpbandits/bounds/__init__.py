"""Regret bounds and privacy-composition formulas of the papers, as SymPy expressions.

One module per paper, one function per theorem, corollary or lemma, each returning a
:class:`~dpbandits.bounds.core.Bound`; :func:`check_regret` holds a simulated regret curve against
a bound. The catalogue is :data:`BOUNDS` (key -> bound); :func:`bounds_for` lists the bounds about
one registered algorithm.

Modules: ``prior`` (bounds the papers cite: UCB1, the known lower bounds, DP-SE),
``tossou2016`` (Tossou & Dimitrakakis, AAAI 2016), ``hu2021`` (Hu, Huang & Mehta, arXiv:2102.07929),
``hu_journal`` (its journal version, v3), ``chandak2023`` (Chandak, Hu & Hegde), ``wu_wang2025``
(Wu & Wang, arXiv:2502.10997).
"""

from __future__ import annotations

import importlib

from ..errors import DPBanditsError
from .check import BoundCheck, RegretCurve, check_regret
from .core import Bound

__all__ = ["Bound", "BoundCheck", "RegretCurve", "check_regret", "BOUNDS", "PAPERS", "get_bound",
           "bounds_for"]

PAPERS: tuple[str, ...] = (
    "prior",
    "wu_wang2025",
    "chandak2023",
    "hu2021",
    "hu_journal",
    "tossou2016",
)
"""Modules of this package that define bounds; each has ``bounds() -> list[Bound]``."""


def _catalogue() -> dict[str, Bound]:
    found: dict[str, Bound] = {}
    for paper in PAPERS:
        for bound in importlib.import_module(f"{__name__}.{paper}").bounds():
            if bound.key in found:
                raise DPBanditsError(f"two bounds share the key {bound.key}")
            found[bound.key] = bound
    return found


BOUNDS: dict[str, Bound] = _catalogue()
"""Every bound, by key (``<paper>.<result>[.<form>]``)."""


def get_bound(key: str) -> Bound:
    """The bound with this key; the error lists the known keys."""
    try:
        return BOUNDS[key]
    except KeyError:
        raise DPBanditsError(f"unknown bound {key!r}; known bounds: {', '.join(sorted(BOUNDS))}") from None


def bounds_for(name: str, variant: str | None = None, *, kind: str | None = None,
               explicit: bool = False) -> list[Bound]:
    """Bounds about the registered algorithm ``name`` (and its ``variant``, when the bound names one).

    A bound lists ``algorithms`` as registry names, optionally ``name:variant``; ``variant=None``
    means the algorithm's default variant. ``explicit=True`` keeps only bounds whose constants are
    all known (the ones a simulation can be held against).
    """
    from ..reference.registry import canonical, get

    name = canonical(name)
    variant = variant or get(name).default_variant
    tags = {name, f"{name}:{variant}"}
    chosen = [b for b in BOUNDS.values()
              if tags & set(b.algorithms)
              and (kind is None or b.kind == kind)
              and (not explicit or b.is_explicit())]
    return sorted(chosen, key=lambda b: (b.kind != "upper", b.key))
