"""What each stage of a validation returns: a frozen result of its own.

:func:`~dpbandits.validate.core.run_checked` runs the stages and builds the summary
:class:`~dpbandits.validate.summary.Validation` once from their results
(:meth:`~dpbandits.validate.summary.Validation.of_stages`); no stage writes into another's
result or into the summary.

* :class:`Setup`: the checked request and the candidate's name, the problem's size and means
  (:mod:`~dpbandits.validate.loading`); the summary holds it (``result.setup.T``) and does
  not restate its fields;
* :class:`Behaviour`: the corrected comparisons of both samples (:mod:`~dpbandits.validate.arms`
  or :mod:`~dpbandits.validate.bases`, :mod:`~dpbandits.validate.correction`);
* :class:`Difference`: the exact first action difference on the fixed table, and whether any
  round could differ at this horizon (:mod:`~dpbandits.validate.power`,
  :func:`~dpbandits.validate.loading.dependence`);
* :class:`Alternatives`: a differing candidate against the reference's documented alternatives;
* :class:`Planted`: a conforming candidate's size against the reference's planted variants;
* :class:`Privacy`: the privacy audit and the sentence about ALGO's claim;
* :class:`Regret`: the fresh sample's curves and their checks against the bounds
  (:mod:`~dpbandits.validate.regret`).

The containers inside (lists, dicts) are the stages' own; a stage's result is not changed after
it is returned.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

__all__ = ["Setup", "Behaviour", "Difference", "Alternatives", "Planted", "Privacy", "Regret"]


@dataclass(frozen=True, kw_only=True)
class Setup:
    """The request as checked, the candidate's label and the problem's size and means."""

    algorithm: str
    variant: str | None
    epsilon: float | None
    candidate: str
    K: int
    T: int
    runs: int
    seed: int
    alpha: float
    power: float
    means: list[float]
    matroid: str = ""
    """Semi-bandit ALGO: the matroid whose bases are the super arms (empty otherwise)."""
    super_arm_size: int = 0
    """Semi-bandit ALGO: the size k of every basis, the matroid's rank (0 otherwise); ``K`` is
    then the number L of base arms."""
    filled_note: str = ""
    """Which of the reference's values a candidate requiring them gets (DP-SE's beta = 1/T):
    :func:`dpbandits.candidates.filled_note`; empty when none is set from the problem."""


@dataclass(frozen=True, kw_only=True)
class Behaviour:
    """Every comparison of both samples, Holm-corrected over all of them."""

    comparisons: list[Any]

    @property
    def rejects(self) -> bool:
        """Some comparison is rejected (the verdict is ``differs`` or path-only)."""
        return any(c.rejected for c in self.comparisons)


@dataclass(frozen=True, kw_only=True)
class Difference:
    """The first action difference on the fixed table, and why no round could differ (None
    when some round could, or when it was not asked)."""

    first_action_difference: dict[str, Any] = field(default_factory=dict)
    untestable: dict[str, Any] | None = None


@dataclass(frozen=True, kw_only=True)
class Alternatives:
    """The tries of the reference's documented alternatives (empty when none was run)."""

    tried: list[dict[str, Any]] = field(default_factory=list)


@dataclass(frozen=True, kw_only=True)
class Planted:
    """The reference's planted variants, told apart at this size or not (empty when none ran)."""

    checks: list[dict[str, Any]] = field(default_factory=list)


@dataclass(frozen=True, kw_only=True)
class Privacy:
    """The audit's result (None: not audited or no claim) and the sentence about ALGO's claim."""

    audit: Any = None
    note: str = ""


@dataclass(frozen=True, kw_only=True)
class Regret:
    """The fresh sample's curves, one check per usable bound, and what was not used."""

    curves: dict[str, Any] = field(default_factory=dict)
    checks: list[dict[str, Any]] = field(default_factory=list)
    note: str = ""
