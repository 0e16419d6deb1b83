"""The regret stage: the fresh sample's curves, held against the explicit bounds about ALGO.

The candidate's pseudo-regret on the fresh sample is held against every upper bound about ALGO
in :mod:`dpbandits.bounds` with explicit constants (not flawed, not asymptotic, not about one
special instance, not a printed form the catalogue has corrected), with
:func:`dpbandits.bounds.check_regret` (simultaneous t band at level ``1 - alpha``). The
reference's curve is checked the same way, for comparison only.
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["CURVE_POINTS", "record_curves", "check_regret_bounds", "usable_bounds"]

CURVE_POINTS = 40
"""Checkpoints of the regret curves that are plotted and held against the bounds."""


def record_curves(result: Any, problem: Any, fresh: tuple[np.ndarray, np.ndarray]) -> None:
    """Put the fresh sample's regret and pull curves of the candidate and the reference (in that
    order in ``fresh``) into ``result.curves`` (:class:`~dpbandits.validate.summary.Validation`)."""
    T = result.T
    points = np.unique(np.geomspace(1, T, CURVE_POINTS).round().astype(np.int64))
    result.curves["regret_checkpoints"] = points
    result.curves["regret"] = {name: np.cumsum(problem.regret(actions), axis=1)[:, points - 1]
                               for name, actions in zip(("candidate", "reference"), fresh)}
    pull_points = np.unique(np.linspace(1, T, CURVE_POINTS).round().astype(np.int64))
    result.curves["pull_checkpoints"] = pull_points
    result.curves["pulls"] = {name: problem.pulls(actions, pull_points).mean(axis=0)
                              for name, actions in zip(("candidate", "reference"), fresh)}


def usable_bounds(against: str, variant: str | None, values: dict[str, Any]) -> tuple[list, list[str]]:
    """The upper bounds about ALGO that a simulation can be held against, and why others were not."""
    from ..bounds import BOUNDS, bounds_for

    corrected_away = {b.printed for b in BOUNDS.values() if b.printed}
    usable, skipped = [], []
    for bound in bounds_for(against, variant, kind="upper", explicit=True):
        reason = None
        if bound.status == "flawed":
            reason = "flawed"
        elif bound.key in corrected_away:
            reason = "a printed form the catalogue corrects"
        elif bound.asymptotic:
            reason = "asymptotic only"
        elif bound.instance:
            reason = f"about the {bound.instance} instance only"
        else:
            missing = [s for s in bound.symbols if s not in values and s not in ("T", "t")]
            if missing:
                reason = f"needs {', '.join(missing)}"
        if reason:
            skipped.append(f"{bound.key} ({reason})")
        else:
            usable.append(bound)
    return usable, skipped


def check_regret_bounds(result: Any, against: str, variant: str | None, needs_horizon: bool,
                        values: dict[str, Any]) -> None:
    """Hold the fresh sample's regret against every usable upper bound about ALGO; ``values``
    are the problem's symbols (``bound_values()`` of :class:`~dpbandits.validate.arms.Arms` and
    :class:`~dpbandits.validate.bases.Bases`)."""
    try:
        from ..bounds import RegretCurve, check_regret
    except ImportError as error:                    # the bounds package is optional here
        result.regret_note = f"no bound available: dpbandits.bounds cannot be imported ({error})"
        return
    values = dict(values)
    if result.epsilon is not None:
        values["epsilon"] = result.epsilon
    usable, skipped = usable_bounds(against, variant, values)
    for bound in usable:
        args = {k: v for k, v in values.items() if k in bound.symbols}
        checks = {name: check_regret(RegretCurve.from_runs(result.curves["regret_checkpoints"],
                                                           result.curves["regret"][name]), bound, alpha=result.alpha,
                                     anytime=not needs_horizon, **args)
                  for name in ("candidate", "reference")}
        result.regret_checks.append({"bound": bound.key, **checks})
    notes = []
    if not usable:
        notes.append(f"no bound available: the catalogue has no explicit upper bound about {against}"
                     + (" that applies here" if skipped else ""))
    if skipped:
        notes.append("not used: " + "; ".join(skipped))
    result.regret_note = "; ".join(notes)
