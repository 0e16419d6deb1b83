"""The correction: every raw comparison of both samples becomes one :class:`Comparison`, with
Holm's step-down procedure over all of them at family-wise level ``alpha``.

If the candidate's output distribution is the reference's (on the fixed table and averaged over
the environment), some comparison is rejected with probability at most ``alpha`` (up to the
normal approximation of Mann-Whitney). Each comparison reports its effect size, p-value,
Holm-adjusted p-value and the smallest effect the sample could have detected with probability
``power`` at level ``alpha / m`` (:mod:`dpbandits.validate.stats`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from . import stats as st

__all__ = ["Comparison", "ACTIONS", "corrected"]

ACTIONS = ("action", "super arm")
"""The quantities that compare the distribution of the action played in one round: an arm
(bandit and full information) or a super arm, the set of base arms of a basis (semi-bandit)."""


@dataclass(frozen=True)
class Comparison:
    """One two-sample comparison of the candidate's and the reference's outputs."""

    sample: str
    """``fixed`` (one shared table) or ``fresh`` (a new table per run)."""
    quantity: str
    """``pulls of arm a``, ``action`` or ``regret``; for a semi-bandit ALGO ``pulls of base
    arm e`` (rounds whose super arm included e) and ``super arm``."""
    t: int
    """The round: pull counts and regret summed over rounds 1..t, or the action of round t."""
    test: str
    statistic: float
    p_value: float
    p_holm: float
    """Holm-adjusted p-value (rejected iff ``p_holm <= alpha``)."""
    effect: float
    """Rank-biserial correlation in [-1, 1] (positive: candidate larger), or Cramér's V in [0, 1]."""
    detectable: float
    """Smallest effect (same scale as ``effect``) detected with the stated power at alpha / m."""
    detectable_shift: float
    """The same as a shift of the mean in pulls or regret (NaN for actions)."""
    candidate: float
    """Candidate's mean (pulls, regret), most frequent arm (action) or most frequent super arm
    as the bit mask sum of 2^e over its base arms e (NaN beyond 52 base arms)."""
    reference: float
    rejected: bool
    horizon: int = 0
    """The validation's horizon T (0 when unknown: every fresh pull or regret row is an outcome)."""

    @property
    def kind(self) -> str:
        """``outcome`` for pull counts and regret on fresh tables from checkpoint T/8 on (what a
        user of the algorithm gets, averaged over the environment); ``path`` for every
        comparison on the fixed table (the law of the trajectory given one table), for the arm
        played in a given round (the trajectory itself, which tie breaking and the order of the
        first pulls change) and for the checkpoint 2K just after the first pulls of every arm
        (how the initial exploration went, where ties between arms pulled once are frequent)."""
        early = self.t < self.horizon // 8 if self.horizon else False
        return ("outcome" if self.sample == "fresh" and self.quantity not in ACTIONS and not early
                else "path")

    @property
    def summary_statistic(self) -> str:
        """What ``candidate`` and ``reference`` hold: ``mean`` over runs, or the ``mode`` (most
        frequent arm) of an action's distribution."""
        return "mode" if self.quantity in ACTIONS else "mean"

    def to_dict(self) -> dict[str, Any]:
        out = {k: (None if isinstance(v, float) and not math.isfinite(v) else v)
               for k, v in self.__dict__.items()}
        out.update(kind=self.kind, summary_statistic=self.summary_statistic)
        return out

    def describe(self) -> str:
        if self.quantity in ACTIONS:
            played = "arm" if self.quantity == "action" else "super arm"
            what = (f"{self.kind}: distribution of the {played} played in round {self.t}, "
                    f"{self.sample} {'table' if self.sample == 'fixed' else 'tables'}")
            show = (lambda v: f"{v:.0f}") if self.quantity == "action" else _base_arms
            values = (f"modal {played}: candidate {show(self.candidate)}, reference "
                      f"{show(self.reference)}; "
                      f"Cramér's V {self.effect:.3f}, detectable {self.detectable:.3f}")
        else:
            what = (f"{self.kind}: {self.quantity} at t = {self.t}, {self.sample} "
                    f"{'table' if self.sample == 'fixed' else 'tables'}")
            values = (f"mean: candidate {self.candidate:.4g}, reference {self.reference:.4g}; "
                      f"rank-biserial {self.effect:+.3f}, detectable {self.detectable:.3f}")
        return f"{what} ({self.test}, p = {self.p_value:.2g}, Holm {self.p_holm:.2g}; {values})"


def _base_arms(mask: float) -> str:
    """The super arm of a bit mask (sum of 2^e over its base arms e), as the set of its arms."""
    if not math.isfinite(mask):
        return "(not shown)"
    bits = int(mask)
    return "{" + ", ".join(str(e) for e in range(bits.bit_length()) if bits >> e & 1) + "}"


def corrected(rows: list[dict[str, Any]], alpha: float, power: float) -> list[Comparison]:
    """One :class:`Comparison` per raw comparison in ``rows``
    (:func:`~dpbandits.validate.arms.compare_arms`), rejected by Holm at family-wise level ``alpha``; detectable effects at ``power``."""
    p_values = [row["outcome"].p_value for row in rows]
    rejected = st.holm(p_values, alpha)
    adjusted = st.holm_adjusted(p_values)
    level = alpha / len(rows)
    comparisons = []
    for row, reject, p_holm in zip(rows, rejected, adjusted):
        outcome: st.TestOutcome = row["outcome"]
        if row["x"] is None:                       # an action: Cramér's V scale
            shift = float("nan")
            detectable = (st.cramers_v_detectable(row["n_total"], outcome.dof, level, power)
                          if outcome.dof else float("nan"))
        else:
            x, y = row["x"], row["y"]
            detectable = st.rank_biserial_detectable(x.size, y.size, level, power)
            shift = st.mean_shift_detectable(x, y, level, power)
        comparisons.append(Comparison(
            sample=row["sample"], quantity=row["quantity"], t=int(row["t"]), test=outcome.test,
            statistic=float(outcome.statistic), p_value=float(outcome.p_value),
            p_holm=float(p_holm), effect=float(outcome.effect), detectable=float(detectable),
            detectable_shift=float(shift), candidate=row["candidate"], reference=row["reference"],
            rejected=bool(reject), horizon=int(row["horizon"])))
    return comparisons
