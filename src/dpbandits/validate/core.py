"""The validation: behaviour, privacy and regret of a candidate against a registered algorithm.

**Samples.** The candidate (any :class:`~dpbandits.audit.mechanism.Mechanism`: a single-run
act/observe policy or a function of the table through :mod:`dpbandits.audit.adapters`, a program
in any language through :mod:`dpbandits.audit.external`) and the reference (the registered
algorithm ALGO, through the engine) each produce R runs of T rounds twice:

* ``fixed``: every run of both on one reward table drawn from the setting (the audit shape). The
  two samples are independent and each is i.i.d. given the table, so a two-sample test compares
  the two conditional output distributions given that table.
* ``fresh``: every run on its own freshly drawn table (the regret shape). The reference runs as
  one batch of R runs in the engine with fresh rewards per run; the candidate runs once per table,
  R times, with independent seeds. Both samples are i.i.d. from the output distribution averaged
  over the environment, and independent of each other.

**Comparisons.** On each sample: the pull count of every arm at the checkpoints (Mann-Whitney U),
the action at chosen rounds (chi-square test of homogeneity, or its permutation version when an
expected count is below 5), the pseudo-regret at the checkpoints (Mann-Whitney U). See
:mod:`dpbandits.validate.stats` for each test's guarantee.

**Semi-bandits.** Against a matroid algorithm (OMM, CTS, DPUCB-MAT, DPTS-MAT: Chandak, Hu &
Hegde, Sec. 2) the candidate is a single-run act/observe class that plays bases
(:class:`~dpbandits.audit.adapters.SemiPolicyMechanism`, built with the matroid in
``params["matroid"]``), or a mechanism with ``K`` = L base arms, ``feedback = "semi"`` and
``sample(table, n, seed)`` returning bases of shape (n, T, k), k the matroid's rank; the tables
carry the free row 0 (``table.X0``) these algorithms observe before round 1. Every basis is
checked against the matroid and sorted (its order within a round is post-processing). The
comparisons are the same with base arms for arms: the pulls of every base arm (the rounds whose
basis held it) and the regret against the best basis f(A*, w_bar) - f(A_t, w_bar) at the
checkpoints, and the distribution of the basis played at chosen rounds. The environment is a
named matroid setting (default :data:`DEFAULT_MATROID_SETTING`), or Bernoulli means of the base
arms with ``params["matroid"]``. The privacy audit uses neighbouring tables that give a row 0.
The regret bounds of the matroid algorithms need the per-base-arm gaps Delta_{e,min}, which are
not computed here: they are listed as not used.

**Correction and verdict.** Holm's step-down procedure over *all* comparisons of both samples at
family-wise level ``alpha``: if the candidate's output distribution is the reference's (on the
fixed table and averaged over the environment), the verdict is ``differs`` with probability at
most ``alpha`` (up to the normal approximation of Mann-Whitney). ``differs`` names the first
difference: the rejected comparison with the smallest round (then the smallest p-value). Each
comparison reports its effect size, p-value, Holm-adjusted p-value and the smallest effect the
sample could have detected with probability ``power`` at level ``alpha / m``.

**Privacy.** The candidate is audited (:func:`dpbandits.audit.audit`) against the claim ALGO makes
at ``epsilon``: the known worst-case pairs for ALGO (docs/errata.md) and the generic candidate pairs at ALGO's
release rounds, with the event tester's Clopper-Pearson lower bound on epsilon at confidence
``1 - alpha`` (its own correction over pairs is stated in the audit result).

**Regret.** The candidate's pseudo-regret on the fresh sample is held against every upper bound
about ALGO in :mod:`dpbandits.bounds` with explicit constants (not flawed, not asymptotic, not
about one special instance, not a printed form the catalogue has corrected), with
:func:`dpbandits.bounds.check_regret` (simultaneous t band at level ``1 - alpha``). The
reference's curve is checked the same way, for comparison only.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from ..errors import DPBanditsError, check_epsilon, check_positive_int, check_probability, check_seed
from . import stats as st

__all__ = ["Comparison", "Validation", "validate", "checkpoints_for", "rounds_for",
           "semi_bandit_matroid",
           "DEFAULT_HORIZON", "DEFAULT_RUNS", "DEFAULT_SETTING", "MIN_RUNS"]

from .defaults import DEFAULT_HORIZON, DEFAULT_RUNS, DEFAULT_SETTING, MIN_RUNS
PATH_ONLY = "conforms in outcome, differs in path"
"""The behaviour verdict when only path comparisons (the fixed table) are rejected."""
CURVE_POINTS = 40
"""Checkpoints of the regret curves that are plotted and held against the bounds."""
DEFAULT_MATROID_SETTING = "chandak-synthetic"
"""The environment of a semi-bandit ALGO when neither a setting nor means are given: Chandak, Hu
& Hegde (2023), Sec. 5.1, Table 2 (a linear matroid of rank 3 over L = 7 base arms)."""
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


@dataclass
class Validation:
    """The answer of :func:`validate`: behaviour, privacy and regret, with everything behind them."""

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
    comparisons: list[Comparison]
    audit: Any = None
    """The :class:`~dpbandits.audit.result.AuditResult`, or None (see ``privacy_note``)."""
    privacy_note: str = ""
    regret_checks: list[dict[str, Any]] = field(default_factory=list)
    """One dict per bound: ``bound`` (key), ``candidate`` and ``reference`` (BoundCheck)."""
    regret_note: str = ""
    curves: dict[str, Any] = field(default_factory=dict)
    """On the fresh sample: ``regret`` (name -> per-run pseudo-regret, shape (R, C), at
    ``regret_checkpoints``) and ``pulls`` (name -> mean pulls per arm, shape (C', K), at
    ``pull_checkpoints``), for ``candidate`` and ``reference``."""
    matroid: str = ""
    """Semi-bandit ALGO: the matroid whose bases are the super arms (empty otherwise)."""
    super_arm_size: int = 0
    """Semi-bandit ALGO: the size k of every basis, the matroid's rank (0 otherwise); ``K`` is
    then the number L of base arms."""

    @property
    def behaviour(self) -> str:
        """``conforms`` when Holm's procedure rejects no comparison; ``conforms in outcome,
        differs in path`` when every rejection is a path comparison (the fixed table) and no
        outcome comparison (fresh tables: pull counts, regret, actions) is rejected at the
        detectable effects stated beside it; ``differs`` otherwise."""
        rejected = [c for c in self.comparisons if c.rejected]
        if not rejected:
            return "conforms"
        if all(c.kind == "path" for c in rejected) and any(c.kind == "outcome" for c in self.comparisons):
            return PATH_ONLY
        return "differs"

    @property
    def rejected(self) -> list[Comparison]:
        """Every rejected comparison: outcomes first, then paths, each by round (then p-value)."""
        return sorted((c for c in self.comparisons if c.rejected),
                      key=lambda c: (c.kind != "outcome", c.t, c.p_value))

    @property
    def first_difference(self) -> Comparison | None:
        """The rejected comparison at the earliest round (then the smallest p-value)."""
        rejected = [c for c in self.comparisons if c.rejected]
        return min(rejected, key=lambda c: (c.t, c.p_value)) if rejected else None

    def departure(self, kind: str | None = None) -> int | None:
        """Estimated first round at which the candidate departs from the reference: the earliest
        tested round from which on *every* later tested round of the same kind (``path``,
        ``outcome``, or both when None) has a rejected comparison (Holm over all comparisons at
        family-wise level alpha). A single chance rejection followed by agreement does not move
        it; the departure lies between the tested round before it and it."""
        chosen = [c for c in self.comparisons if kind is None or c.kind == kind]
        rounds = sorted({c.t for c in chosen})
        hit = {c.t for c in chosen if c.rejected}
        start = None
        for t in reversed(rounds):
            if t not in hit:
                break
            start = t
        return start

    @property
    def privacy(self) -> str:
        """``consistent``, ``violation``, ``could not test``, ``not audited`` or ``not applicable``
        (ALGO makes no privacy claim)."""
        if self.audit is None:
            return "not applicable" if self.epsilon is None else "not audited"
        from .privacy import could_not_test

        if self.audit.verdict != "violation" and could_not_test(self.audit) is not None:
            return "could not test"
        return self.audit.verdict

    @property
    def regret(self) -> str:
        """``respected`` (some bound could have been violated and none was), ``violated``,
        ``vacuous at this size`` (every applicable bound is at least T x largest gap, so no run
        could violate it: larger T is needed, see each check's ``informative_from``),
        ``not applicable`` or ``no bound available``."""
        if not self.regret_checks:
            return "no bound available"
        verdicts = [entry["candidate"].verdict for entry in self.regret_checks]
        if "violated" in verdicts:
            return "violated"
        if "holds" in verdicts:
            return "respected"
        return "vacuous at this size" if "vacuous at this size" in verdicts else "not applicable"

    @property
    def ok(self) -> bool:
        """Conforms, no privacy violation and no regret bound violated."""
        return self.behaviour == "conforms" and self.privacy != "violation" and self.regret != "violated"

    @property
    def exit_status(self) -> int:
        """0 when :attr:`ok`, 1 otherwise, 3 when ok except that the privacy audit could not
        test (the command line's exit status)."""
        if not self.ok:
            return 1
        return 3 if self.privacy == "could not test" else 0

    def evidence(self) -> dict[str, Any]:
        """Per kind (``path``, ``outcome``): comparisons, rejections, the estimated departure,
        and the largest |effect| against the detectable effect of the same comparison."""
        out = {}
        for kind in ("path", "outcome"):
            chosen = [c for c in self.comparisons if c.kind == kind]
            if not chosen:
                continue
            largest = max(chosen, key=lambda c: abs(c.effect) / c.detectable
                          if c.detectable and math.isfinite(c.detectable) else 0.0)
            out[kind] = {"sample": chosen[0].sample, "comparisons": len(chosen),
                         "rejected": sum(c.rejected for c in chosen),
                         "departure": self.departure(kind),
                         "largest_effect": {"comparison": largest.describe(),
                                            "effect": largest.effect,
                                            "detectable": largest.detectable}}
        return out

    def summary(self, shown: int = 5) -> str:
        """A readable report: the three verdicts and the comparisons closest to rejection."""
        variant = f" [{self.variant}]" if self.variant else ""
        eps = f" at epsilon = {self.epsilon:g}" if self.epsilon is not None else ""
        m = len(self.comparisons)
        lines = [f"{self.candidate} against {self.algorithm}{variant}{eps}",
                 f"  means = {[round(x, 4) for x in self.means]}, T = {self.T}, {self.runs} runs per "
                 f"sample (fixed table and fresh tables), seed = {self.seed}"]
        if self.super_arm_size:
            lines.append(f"  semi-bandit: every round a super arm, a basis of {self.matroid} "
                         f"(k = {self.super_arm_size} of L = {self.K} base arms); the pulls of a "
                         f"base arm count the rounds whose super arm held it")
        lines += ["",
                 f"behaviour: {self.behaviour.upper()} ({m} comparisons, Holm at family-wise level "
                 f"{self.alpha:g}; detectable effects at {100 * self.power:g}% power, level alpha/m)"]
        for kind, facts in self.evidence().items():
            played = "super arm" if self.super_arm_size else "arm"
            what = (f"path comparisons (the fixed table; the {played} played in given rounds)"
                    if kind == "path"
                    else "outcome comparisons (fresh tables: pull counts and regret from T/8 on)")
            departs = facts["departure"]
            lines.append(f"  {what}: {facts['rejected']} of {facts['comparisons']} rejected"
                         + (f"; departs from round {departs} on (every later tested round rejected)"
                            if departs else ""))
            if not facts["rejected"]:
                lines.append(f"    largest effect against what was detectable: "
                             f"{facts['largest_effect']['comparison']}")
        if self.behaviour == PATH_ONLY:
            lines.append("  the outcomes agree within the detectable effects above; only the "
                         "trajectories differ, as tie breaking or the order of "
                         "the first pulls do (try --param tie_break=random or "
                         "--param initial_order=random where ALGO offers them)")
        departs = self.departure()
        if departs is not None:
            lines.append(f"  estimated departure: round {departs} (the earliest tested round "
                         f"from which every later tested round has a rejected comparison)")
        rejected = self.rejected
        if rejected:
            lines.append(f"  rejected ({len(rejected)}):")
            lines += [f"    {c.describe()}" for c in rejected]
        closest = [c for c in sorted(self.comparisons, key=lambda c: c.p_value) if not c.rejected][:shown]
        if closest:
            lines.append("  smallest p-values not rejected:")
        for c in closest:
            lines.append(f"    {c.describe()}")
        lines.append("")
        if self.audit is not None:
            from .privacy import could_not_test

            reason = could_not_test(self.audit)
            shown_audit = self.audit.summary() if self.privacy != "could not test" else reason
            lines.append(f"privacy: {self.privacy.upper()} ({shown_audit})")
            lines.append(f"  {self.privacy_note}")
            lines += [f"  {note}" for note in self.audit.notes]
        else:
            lines.append(f"privacy: {self.privacy.upper()}" + (f" ({self.privacy_note})" if self.privacy_note else ""))
        lines.append("")
        lines.append(f"regret: {self.regret.upper()}" + (f" ({self.regret_note})" if self.regret_note else ""))
        for entry in self.regret_checks:
            cand, ref = entry["candidate"], entry["reference"]
            lines.append(f"  {entry['bound']}: candidate {cand.verdict} (mean / bound at the last "
                         f"checkpoint {cand.final_ratio:.3g}); reference {ref.verdict} "
                         f"({ref.final_ratio:.3g}); {cand.informative_note}")
        return "\n".join(lines)

    def to_dict(self) -> dict[str, Any]:
        first = self.first_difference
        regret = self.curves.get("regret", {})
        curves = {"checkpoints": np.asarray(self.curves.get("regret_checkpoints", [])).tolist(),
                  **{name: {"mean": values.mean(axis=0).tolist(),
                            "std": values.std(axis=0, ddof=1).tolist()}
                     for name, values in regret.items()}}
        return {"algorithm": self.algorithm, "variant": self.variant, "epsilon": self.epsilon,
                "candidate": self.candidate, "K": self.K, "T": self.T, "runs": self.runs,
                "matroid": self.matroid or None, "super_arm_size": self.super_arm_size or None,
                "seed": self.seed, "means": self.means, "alpha": self.alpha, "power": self.power,
                "correction": f"Holm over {len(self.comparisons)} comparisons",
                "behaviour": self.behaviour,
                "first_difference": None if first is None else first.to_dict(),
                "departure": self.departure(),
                "departure_rule": "the earliest tested round from which every later tested round "
                                  "has a rejected comparison (Holm, family-wise level alpha)",
                "evidence": self.evidence(),
                "rejected": [c.to_dict() for c in self.rejected],
                "privacy": self.privacy, "privacy_note": self.privacy_note,
                "regret": self.regret, "regret_note": self.regret_note,
                "ok": self.ok,
                "comparisons": [c.to_dict() for c in self.comparisons],
                "audit": None if self.audit is None else self.audit.to_dict(),
                "regret_checks": [{"bound": e["bound"], "candidate": e["candidate"].to_dict(),
                                   "reference": e["reference"].to_dict()} for e in self.regret_checks],
                "regret_curves": curves}


# -- which rounds are compared ------------------------------------------------------------------

def checkpoints_for(T: int, K: int) -> list[int]:
    """Rounds at which pull counts and regret are compared: 2K (just after the first pulls of
    every arm), T/8, T/4, T/2 and T (those below 1 or above T dropped)."""
    return sorted({t for t in (2 * K, T // 8, T // 4, T // 2, T) if 1 <= t <= T})


def rounds_for(T: int, K: int) -> list[int]:
    """Rounds whose action is compared: 1, 2, K, K + 1, K + 2 (initial exploration and the
    first decisions), T/2 and T."""
    return sorted({t for t in (1, 2, K, K + 1, K + 2, T // 2, T) if 1 <= t <= T})


# -- the validation -----------------------------------------------------------------------------

def _single_runs(candidate: Any, requests: list[tuple[Any, int, int]]) -> list[np.ndarray]:
    """One ``sample`` call per request, in order. An external program with ``workers > 1`` gets
    that many calls at once (each call starts its own process); the outputs do not change."""
    from ..audit.external import CommandMechanism

    copies = getattr(candidate, "workers", 1)
    if isinstance(candidate, CommandMechanism) and copies > 1:
        from concurrent.futures import ThreadPoolExecutor

        with ThreadPoolExecutor(max_workers=copies) as pool:
            return list(pool.map(lambda request: candidate.sample(*request), requests))
    many = getattr(candidate, "sample_many", None)
    return many(requests) if many else [candidate.sample(*request) for request in requests]


def _seed(sequence: np.random.SeedSequence) -> int:
    return int(sequence.generate_state(1)[0])


def _checked_actions(actions: Any, n: int, T: int, K: int, who: str) -> np.ndarray:
    array = np.asarray(actions)
    if array.shape != (n, T):
        raise DPBanditsError(f"{who}: expected actions of shape ({n}, {T}), got {array.shape}")
    if array.size and (array.min() < 0 or array.max() >= K):
        raise DPBanditsError(f"{who}: actions outside 0..{K - 1}")
    return array.astype(np.int64)


def _compare(sample: str, cand: np.ndarray, ref: np.ndarray, gaps: np.ndarray, K: int,
             rng: np.random.Generator) -> list[dict[str, Any]]:
    """The raw comparisons of one sample (before the correction)."""
    T = cand.shape[1]
    rows: list[dict[str, Any]] = []
    pulls_c = np.stack([np.cumsum(cand == a, axis=1) for a in range(K)], axis=2)
    pulls_r = np.stack([np.cumsum(ref == a, axis=1) for a in range(K)], axis=2)
    regret_c, regret_r = np.cumsum(gaps[cand], axis=1), np.cumsum(gaps[ref], axis=1)
    for t in checkpoints_for(T, K):
        for a in range(K):
            x, y = pulls_c[:, t - 1, a], pulls_r[:, t - 1, a]
            rows.append(dict(sample=sample, quantity=f"pulls of arm {a}", t=t, horizon=T,
                             outcome=st.mann_whitney(x, y), x=x, y=y,
                             candidate=float(x.mean()), reference=float(y.mean())))
    for t in rounds_for(T, K):
        x, y = cand[:, t - 1], ref[:, t - 1]
        rows.append(dict(sample=sample, quantity="action", t=t, horizon=T,
                         outcome=st.homogeneity(x, y, K, rng), x=None, y=None,
                         n_total=x.size + y.size,
                         candidate=float(np.bincount(x, minlength=K).argmax()),
                         reference=float(np.bincount(y, minlength=K).argmax())))
    for t in checkpoints_for(T, K):
        x, y = regret_c[:, t - 1], regret_r[:, t - 1]
        rows.append(dict(sample=sample, quantity="regret", t=t, horizon=T, outcome=st.mann_whitney(x, y),
                         x=x, y=y, candidate=float(x.mean()), reference=float(y.mean())))
    return rows


class _Arms:
    """A bandit or full-information problem: K arms with Bernoulli (or a setting's) rewards;
    an action is one arm, a run's output an (T,) array of arms."""

    def __init__(self, source: Any) -> None:
        self.source = source
        self.K = source.K
        self.means = np.asarray(source.means, dtype=float)
        self.gaps = np.asarray(source.gaps, dtype=float)

    @classmethod
    def build(cls, setting: str | None, means: Any) -> "_Arms":
        from ..reference import Bernoulli, get_setting

        return cls(Bernoulli(np.asarray(means, dtype=float)) if means is not None else
                   get_setting(setting or DEFAULT_SETTING).environment())

    def table(self, T: int, rng: np.random.Generator) -> Any:
        from ..reference.environments import Table

        return Table(self.source.table(T, rng), means=self.source.means)

    def one_run(self, output: Any) -> np.ndarray:
        return np.asarray(output).reshape(1, -1)

    def checked(self, actions: Any, n: int, T: int, who: str) -> np.ndarray:
        return _checked_actions(actions, n, T, self.K, who)

    def regret(self, actions: np.ndarray) -> np.ndarray:
        """Each round's pseudo-regret mu* - mu_{a_t}, shape (n, T)."""
        return self.gaps[actions]

    def pulls(self, actions: np.ndarray, points: np.ndarray) -> np.ndarray:
        """Pulls of every arm in rounds 1..t for each t in ``points``, shape (n, len(points), K)."""
        return np.stack([np.cumsum(actions == a, axis=1)[:, points - 1] for a in range(self.K)],
                        axis=2)

    def compare(self, sample: str, cand: np.ndarray, ref: np.ndarray,
                rng: np.random.Generator) -> list[dict[str, Any]]:
        return _compare(sample, cand, ref, self.gaps, self.K, rng)

    def bound_values(self) -> dict[str, Any]:
        positive = self.gaps[self.gaps > 0]
        values: dict[str, Any] = {"K": float(self.K), "gaps": self.gaps}
        if positive.size:
            values["Delta_min"] = float(positive.min())
            values["Delta_max"] = float(positive.max())
        return values


class _Bases:
    """A matroid semi-bandit problem (Chandak, Hu & Hegde, Sec. 2): L base arms, a matroid of
    rank k; an action is a super arm, a basis of k base arms, and a run's output a (T, k) array,
    whose rows are sorted here (the order within a basis is post-processing, not behaviour).
    Tables carry the free row 0 that the matroid algorithms observe before round 1."""

    def __init__(self, environment: Any) -> None:
        self.source = environment
        self.matroid = environment.matroid
        self.K = environment.L
        self.k = environment.rank
        self.means = np.asarray(environment.means, dtype=float)

    @classmethod
    def build(cls, setting: str | None, means: Any, params: dict[str, Any]) -> "_Bases":
        """The environment of a semi-bandit ALGO: a named matroid setting (default
        :data:`DEFAULT_MATROID_SETTING`), whose matroid goes into ``params``, or Bernoulli
        ``means`` of the base arms with ``params["matroid"]`` (default: ALGO's own,
        a uniform matroid of rank 1). ``params`` is updated in place."""
        from ..reference import Bernoulli
        from ..reference.matroid import MatroidEnvironment, Uniform, matroid_setting

        if means is not None:
            arms = Bernoulli(np.asarray(means, dtype=float))
            params.setdefault("matroid", Uniform(arms.K, 1))      # the policies' own default
            return cls(MatroidEnvironment(params["matroid"], arms))
        environment = matroid_setting(setting or DEFAULT_MATROID_SETTING)
        given = params.get("matroid")
        if given is not None and repr(given) != repr(environment.matroid):
            raise DPBanditsError(f"the setting {setting or DEFAULT_MATROID_SETTING} has its own "
                                 f"matroid; to use another, give means and params['matroid']")
        params["matroid"] = environment.matroid
        return cls(environment)

    def table(self, T: int, rng: np.random.Generator) -> Any:
        """Rows 0..T of the environment: row 0 as ``X0``, rounds 1..T as the table."""
        from ..reference.environments import Table

        X = self.source.table(T + 1, rng)
        return Table(X[1:], means=self.means, X0=X[0])

    def one_run(self, output: Any) -> np.ndarray:
        return np.asarray(output)

    def checked(self, actions: Any, n: int, T: int, who: str) -> np.ndarray:
        """The bases of shape (n, T, k), each sorted; every row must be a basis of the matroid."""
        array = np.asarray(actions)
        if array.shape != (n, T, self.k):
            raise DPBanditsError(f"{who}: expected super arms of shape ({n}, {T}, {self.k}), "
                                 f"got {array.shape}")
        if array.size and (array.dtype.kind not in "iu" or array.min() < 0 or array.max() >= self.K):
            raise DPBanditsError(f"{who}: super arms must hold integer base arms in 0..{self.K - 1}")
        bases = np.sort(array.astype(np.int64), axis=2)
        for basis in np.unique(bases.reshape(-1, self.k), axis=0):
            if np.any(np.diff(basis) == 0) or not self.matroid.is_basis(basis.tolist()):
                raise DPBanditsError(f"{who}: the super arm {basis.tolist()} is not a basis of "
                                     f"{self.matroid!r}")
        return bases

    def regret(self, bases: np.ndarray) -> np.ndarray:
        """Each round's pseudo-regret f(A*, w_bar) - f(A_t, w_bar) (Sec. 2), shape (n, T)."""
        return self.source.optimal_value - self.means[bases].sum(axis=2)

    def inclusion(self, bases: np.ndarray) -> np.ndarray:
        """(n, T, L) booleans: was base arm e in round t's super arm."""
        n, T, _ = bases.shape
        held = np.zeros((n, T, self.K), dtype=bool)
        np.put_along_axis(held, bases, True, axis=2)
        return held

    def pulls(self, bases: np.ndarray, points: np.ndarray) -> np.ndarray:
        """Rounds in 1..t whose super arm held each base arm, for each t in ``points``,
        shape (n, len(points), L)."""
        return np.cumsum(self.inclusion(bases), axis=1, dtype=np.int32)[:, points - 1]

    def masks(self, bases: np.ndarray) -> np.ndarray:
        """Each super arm as the bit mask sum of 2^e (float, exact up to 52 base arms)."""
        if self.K > 52:
            return np.full(bases.shape[:-1], np.nan)
        return np.left_shift(1, bases).sum(axis=-1).astype(float)

    def compare(self, sample: str, cand: np.ndarray, ref: np.ndarray,
                rng: np.random.Generator) -> list[dict[str, Any]]:
        """Pulls of every base arm and regret at :func:`checkpoints_for` (L, T) (Mann-Whitney U),
        the super arm of the rounds :func:`rounds_for` (L, T) (homogeneity of the super arms'
        distributions), as :func:`_compare` does for arms."""
        T = cand.shape[1]
        checkpoints = np.asarray(checkpoints_for(T, self.K))
        pulls_c, pulls_r = self.pulls(cand, checkpoints), self.pulls(ref, checkpoints)
        regret_c = np.cumsum(self.regret(cand), axis=1)
        regret_r = np.cumsum(self.regret(ref), axis=1)
        rows: list[dict[str, Any]] = []
        for i, t in enumerate(checkpoints):
            for e in range(self.K):
                x, y = pulls_c[:, i, e], pulls_r[:, i, e]
                rows.append(dict(sample=sample, quantity=f"pulls of base arm {e}", t=int(t),
                                 horizon=T, outcome=st.mann_whitney(x, y), x=x, y=y,
                                 candidate=float(x.mean()), reference=float(y.mean())))
        for t in rounds_for(T, self.K):
            x, y = cand[:, t - 1], ref[:, t - 1]
            _, codes = np.unique(np.concatenate([x, y]), axis=0, return_inverse=True)
            codes = codes.ravel()
            rows.append(dict(sample=sample, quantity="super arm", t=t, horizon=T,
                             outcome=st.homogeneity(codes[:len(x)], codes[len(x):],
                                                    int(codes.max()) + 1, rng),
                             x=None, y=None, n_total=len(x) + len(y),
                             candidate=_modal(self.masks(x)), reference=_modal(self.masks(y))))
        for t in checkpoints:
            x, y = regret_c[:, t - 1], regret_r[:, t - 1]
            rows.append(dict(sample=sample, quantity="regret", t=int(t), horizon=T,
                             outcome=st.mann_whitney(x, y), x=x, y=y,
                             candidate=float(x.mean()), reference=float(y.mean())))
        return rows

    def bound_values(self) -> dict[str, Any]:
        """The paper's K (the rank) and L; the per-arm gaps Delta_{e,min} of Chandak, Hu &
        Hegde's Theorem 2 are not computed, so bounds that need them are listed as not used."""
        return {"K": float(self.k), "L": float(self.K)}


def _modal(masks: np.ndarray) -> float:
    """The most frequent super arm's bit mask (the smallest among equals); NaN when not shown."""
    if np.isnan(masks).any():
        return float("nan")
    values, counts = np.unique(masks, return_counts=True)
    return float(values[counts.argmax()])


def _corrected(rows: list[dict[str, Any]], alpha: float, power: float) -> list[Comparison]:
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


def _usable_bounds(against: str, variant: str | None, values: dict[str, Any]) -> tuple[list, list[str]]:
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


def validate(candidate: Any, against: str, *, epsilon: float | None = None,
             variant: str | None = None, params: dict[str, Any] | None = None,
             setting: str | None = None, means: Any = None, horizon: int = DEFAULT_HORIZON,
             runs: int = DEFAULT_RUNS, seed: int = 0, alpha: float = 0.05, power: float = 0.8,
             audit_samples: int = 10_000, audit_horizon: int | None = None,
             progress: Callable[[str], None] | None = None,
             backend: str = "auto") -> Validation:
    """Validate ``candidate`` against the registered algorithm ``against`` (module docstring).

    Parameters
    ----------
    candidate
        Anything :func:`dpbandits.candidates.load` accepts: a Python class or factory (built per
        run for the problem K, T, epsilon, params), ``MODULE:OBJECT`` or ``FILE.py:OBJECT``, a
        :class:`~dpbandits.candidates.Command`, or a mechanism with ``K``, ``feedback``,
        ``label`` and ``sample(table, n, seed)``. Against a matroid semi-bandit ALGO: a Python
        act/observe class or factory, built with the problem's matroid in ``params["matroid"]``
        (:class:`~dpbandits.audit.adapters.SemiPolicyMechanism`), or a mechanism with
        ``feedback = "semi"`` whose ``sample`` returns (n, T, k) bases.
    against, variant, params
        The reference: registered algorithm ALGO, its variant (default: ALGO's default) and
        extra parameters.
    epsilon
        The privacy parameter epsilon of ALGO (required when ALGO is private).
    setting, means
        The environment: a named setting or Bernoulli arm means (default ``hu2021-setting2``;
        for a matroid ALGO a matroid setting, default ``chandak-synthetic``, or base-arm means
        with ``params["matroid"]``).
    horizon, runs
        Rounds T per run and runs R per sample (R >= 20).
    seed
        Everything random (tables, runs, permutations, the audit) derives from it.
    alpha, power
        Family-wise level of the behavioural comparisons (also the audit's and the regret
        check's level), and the power at which detectable effects are reported.
    audit_samples, audit_horizon
        Test runs per side of the privacy audit (0 skips it) and its horizon (None: the horizon
        that reaches ALGO's first data-dependent output,
        :func:`dpbandits.validate.privacy.audit_horizon`).
    backend
        The engine's backend for the reference side (``auto``, ``reference`` or ``compiled``);
        ``reference`` when a compiled kernel is the candidate, as in its certificate.
    """
    from ..audit.mechanism import RegistryMechanism
    from ..reference import get, spec, simulate
    from ..reference.registry import canonical

    from ..reference.engine import check_backend

    check_backend(backend)
    say = progress or (lambda message: None)
    against = canonical(against)
    cls = get(against)
    semi = cls.feedback == "semi"
    if cls.private:
        if epsilon is None:
            raise DPBanditsError(f"{against} is private: epsilon is required")
        epsilon = check_epsilon(epsilon)
    if setting is not None and means is not None:
        raise DPBanditsError("give a setting or means, not both")
    params = dict(params or {})
    problem = (_Bases.build(setting, means, params) if semi
               else _Arms.build(setting, means))
    if not (hasattr(candidate, "K") and hasattr(candidate, "sample")):
        from ..candidates import load

        candidate = load(candidate, K=problem.K, epsilon=epsilon if cls.private else None,
                         params=params, feedback=cls.feedback)
    feedback = getattr(candidate, "feedback", "bandit")
    if feedback != cls.feedback:
        raise DPBanditsError(f"the candidate observes {feedback!r} feedback but {against} is a "
                             f"{cls.feedback!r}-feedback algorithm")
    if not cls.private:
        epsilon = None
    T = check_positive_int(horizon, "horizon")
    runs = check_positive_int(runs, "runs", minimum=MIN_RUNS)
    seed = check_seed(seed)
    alpha = check_probability(alpha, "alpha")
    power = check_probability(power, "power")
    audit_samples = check_positive_int(audit_samples, "audit_samples", minimum=0)
    K = problem.K
    if candidate.K != K:
        raise DPBanditsError(f"the candidate has K = {candidate.K} "
                             f"{'base arms' if semi else 'arms'} but the setting has {K}")
    reference = RegistryMechanism(against, K, epsilon, variant, params, T=T, backend=backend)
    factory = spec(against, K, epsilon=epsilon, variant=reference.variant, T=T, **params)
    label = getattr(candidate, "label", "candidate")

    (s_fixed, s_fresh, s_cand_fixed, s_ref_fixed, s_cand_fresh, s_ref_fresh, s_tests,
     s_audit) = np.random.SeedSequence(seed).spawn(8)
    samples: dict[str, tuple[np.ndarray, np.ndarray]] = {}
    say(f"behaviour: {runs} runs of each on one fixed table")
    table = problem.table(T, np.random.default_rng(s_fixed))
    samples["fixed"] = (
        problem.checked(candidate.sample(table, runs, _seed(s_cand_fixed)), runs, T, label),
        problem.checked(reference.sample(table, runs, _seed(s_ref_fixed)), runs, T, "reference"))
    say(f"behaviour: {runs} runs of each, every run on a fresh table")
    fresh_rng = np.random.default_rng(s_fresh)
    requests = [(problem.table(T, fresh_rng), 1, _seed(child)) for child in s_cand_fresh.spawn(runs)]
    outputs = _single_runs(candidate, requests)
    cand_fresh = problem.checked(np.concatenate([problem.one_run(o) for o in outputs]), runs, T, label)
    ref_fresh = simulate(factory, problem.source, T, runs=runs, seed=_seed(s_ref_fresh),
                         record_actions=True, backend=backend).actions
    samples["fresh"] = (cand_fresh, problem.checked(ref_fresh, runs, T, "reference"))

    say("behaviour: two-sample tests")
    test_rng = np.random.default_rng(s_tests)
    rows = [row for name, (c, r) in samples.items() for row in problem.compare(name, c, r, test_rng)]
    result = Validation(against, reference.variant if len(cls.variants) > 1 else None, epsilon,
                        label, K, T, runs, seed, alpha, power, [float(x) for x in problem.means],
                        _corrected(rows, alpha, power))
    if semi:
        result.matroid, result.super_arm_size = repr(problem.matroid), problem.k

    points = np.unique(np.geomspace(1, T, CURVE_POINTS).round().astype(np.int64))
    result.curves["regret_checkpoints"] = points
    result.curves["regret"] = {name: np.cumsum(problem.regret(actions), axis=1)[:, points - 1]
                               for name, actions in zip(("candidate", "reference"), samples["fresh"])}
    pull_points = np.unique(np.linspace(1, T, CURVE_POINTS).round().astype(np.int64))
    result.curves["pull_checkpoints"] = pull_points
    result.curves["pulls"] = {name: problem.pulls(actions, pull_points).mean(axis=0)
                              for name, actions in zip(("candidate", "reference"), samples["fresh"])}

    if epsilon is None:
        result.privacy_note = f"{against} makes no privacy claim"
    elif audit_samples == 0:
        result.privacy_note = "audit skipped (audit_samples = 0)"
    else:
        from .privacy import audit_against

        audit_T = None if audit_horizon is None else check_positive_int(audit_horizon, "audit_horizon")
        claim_source = RegistryMechanism(against, K, epsilon, reference.variant, params,
                                         T=audit_T or T)
        result.privacy_note = f"{against}'s claim: {claim_source.claim.summary()}"
        result.audit = audit_against(candidate, against, epsilon=epsilon, variant=reference.variant,
                                     params=params, T=audit_T, samples=max(100, audit_samples),
                                     alpha=alpha, seed=_seed(s_audit), progress=progress)

    say("regret: checks against the bounds")
    _check_regret(result, against, reference.variant, cls.needs_horizon, problem.bound_values())
    return result


def semi_bandit_matroid(setting: str | None, means: Any, params: dict[str, Any]) -> Any:
    """The matroid a semi-bandit candidate plays in :func:`validate` with this ``setting`` or
    ``means`` (module docstring: default :data:`DEFAULT_MATROID_SETTING`); ``params`` gets it
    as ``params["matroid"]``, as :func:`validate` does. Raises on a setting that is not a
    matroid setting or a matroid that is not the setting's."""
    return _Bases.build(setting, means, params).matroid


def _check_regret(result: Validation, against: str, variant: str | None, needs_horizon: bool,
                  values: dict[str, Any]) -> None:
    """Hold the fresh sample's regret against every usable upper bound about ALGO; ``values``
    are the problem's symbols (:meth:`_Arms.bound_values`, :meth:`_Bases.bound_values`)."""
    try:
        from ..bounds import RegretCurve, check_regret
    except ImportError as error:                    # the bounds package is optional here
        result.regret_note = f"no bound available: dpbandits.bounds cannot be imported ({error})"
        return
    values = dict(values)
    if result.epsilon is not None:
        values["epsilon"] = result.epsilon
    usable, skipped = _usable_bounds(against, variant, values)
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
