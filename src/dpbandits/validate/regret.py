"""The regret stage: the fresh sample's curves, held against the explicit bounds about ALGO.

The candidate's pseudo-regret on the fresh sample is held against every upper bound about ALGO
in :mod:`dpbandits.bounds` with explicit constants (not flawed, not asymptotic, not about one
special instance, not a printed form the catalogue has corrected), with
:func:`dpbandits.bounds.check_regret` (simultaneous t band at level ``1 - alpha``; the verdicts
and their rule are in :mod:`dpbandits.bounds.check`). The reference's curve is checked the same
way, for comparison only.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .stages import Regret

__all__ = ["CURVE_POINTS", "curves", "regret_stage", "usable_bounds"]

CURVE_POINTS = 40
"""Checkpoints of the regret curves that are plotted and held against the bounds."""


def curves(problem: Any, T: int, fresh: tuple[np.ndarray, np.ndarray]) -> dict[str, Any]:
    """The fresh sample's regret and pull curves of the candidate and the reference (in that
    order in ``fresh``): ``regret_checkpoints``, ``regret`` (name -> per-run pseudo-regret),
    ``pull_checkpoints`` and ``pulls`` (name -> mean pulls per arm)."""
    points = np.unique(np.geomspace(1, T, CURVE_POINTS).round().astype(np.int64))
    pull_points = np.unique(np.linspace(1, T, CURVE_POINTS).round().astype(np.int64))
    return {"regret_checkpoints": points,
            "regret": {name: np.cumsum(problem.regret(actions), axis=1)[:, points - 1]
                       for name, actions in zip(("candidate", "reference"), fresh)},
            "pull_checkpoints": pull_points,
            "pulls": {name: problem.pulls(actions, pull_points).mean(axis=0)
                      for name, actions in zip(("candidate", "reference"), fresh)}}


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


def regret_stage(problem: Any, fresh: tuple[np.ndarray, np.ndarray], *, T: int,
                 against: str, variant: str | None, needs_horizon: bool,
                 epsilon: float | None, alpha: float) -> Regret:
    """The regret stage: the curves of the fresh sample (candidate and reference, in that order
    in ``fresh``) held against every usable upper bound about ALGO, at level ``1 - alpha``; the
    problem's symbols are its ``bound_values()`` (:class:`~dpbandits.validate.arms.Arms`,
    :class:`~dpbandits.validate.bases.Bases`)."""
    drawn = curves(problem, T, fresh)
    try:
        from ..bounds import RegretCurve, check_regret
    except ImportError as error:                    # the bounds package is optional here
        return Regret(curves=drawn, note=f"no bound available: dpbandits.bounds cannot be "
                                         f"imported ({error})")
    values = dict(problem.bound_values())
    if epsilon is not None:
        values["epsilon"] = epsilon
    usable, skipped = usable_bounds(against, variant, values)
    checks = []
    for bound in usable:
        args = {k: v for k, v in values.items() if k in bound.symbols}
        checks.append({"bound": bound.key,
                       **{name: check_regret(RegretCurve.from_runs(drawn["regret_checkpoints"],
                                                                   drawn["regret"][name]),
                                             bound, alpha=alpha, anytime=not needs_horizon,
                                             **args)
                          for name in ("candidate", "reference")}})
    notes = []
    if not usable:
        notes.append(f"no bound available: the catalogue has no explicit upper bound about {against}"
                     + (" that applies here" if skipped else ""))
    if skipped:
        notes.append("not used: " + "; ".join(skipped))
    return Regret(curves=drawn, checks=checks, note="; ".join(notes))
