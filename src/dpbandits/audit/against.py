"""The privacy stage of ``dpbandits audit --against`` and ``dpbandits validate``: audit a
candidate with what the reference knows about the algorithm ALGO.

A candidate that claims to implement ALGO is audited (:func:`audit_against`) with

* ALGO's claim at the audited epsilon and horizon (:class:`~dpbandits.audit.mechanism.RegistryMechanism`);
* a horizon that reaches ALGO's first data-dependent releases: the longer of the horizon found
  by coupling (:func:`audit_horizon`: the reference is run with one seed on two different reward
  tables, and the first round where any run's action differs is a round whose action depends on
  the rewards; the horizon is searched by doubling and then shrunk to the smallest T whose own
  first dependent round still falls inside it) and, where ALGO has designed pairs
  (:data:`dpbandits.audit.design.DESIGNED_ARMS`), the design's
  (:func:`dpbandits.audit.design.designed_horizon`, the horizon of ``dpbandits audit ALGO``: for
  DP-SE the smallest T >= K R_1(beta = 1/T) + 2, two rounds after its first elimination). A
  horizon given by the caller is used as it is; a design that does not fit in it contributes no
  pair;
* ALGO's worst-case pairs: its designed pairs (:func:`dpbandits.audit.design.designed_pairs`:
  the hybrid-counter UCBs, the lazy-epoch algorithms, DP-SE's first elimination, with
  ``deviations=True``: one more pair puts DP-SE's exact gap on the threshold), the known ones
  (:func:`dpbandits.audit.pairs.known_pairs`) and, up to :data:`GENERIC_HORIZON` rounds, the
  generic candidates of :func:`dpbandits.audit.pairs.candidate_pairs` at ALGO's release rounds
  and its first dependent round: the designed pairs aim at the faithful algorithm's worst case,
  the generic ones at a candidate's own bugs.

:func:`could_not_test` says when an audit's test sample held no evidence either way (the event
never occurred, or always occurred, on both sides; the bound is not a number): the answer is
then *could not test*, never a verdict (exit status 3 on the command line).
:func:`blind_spots` states what a generic audit (no ALGO) cannot see.
"""

from __future__ import annotations

import math
from typing import Any, Callable

import numpy as np

from .selection import SCREENING, Screening
from .sequential import SamplePlan

__all__ = ["audit_against", "audit_observed", "Claiming", "first_dependent_round",
           "audit_horizon", "planned_horizon", "could_not_test", "blind_spots", "WINDOW", "AGAINST_SAMPLES",
           "GENERIC_HORIZON"]

WINDOW = 12
"""Rounds after the first dependent round that the audited horizon keeps (the features of the
event tester read the actions of the next 12 rounds)."""

PROBE_RUNS = 64
"""Runs of the reference on each of the two probe tables."""

MAX_PROBE_HORIZON = 1 << 16
"""Longest horizon searched for a first dependent round."""

GENERIC_HORIZON = 512
"""Longest horizon at which an audit against ALGO adds the generic candidates to ALGO's designed
pairs. The designed pairs aim at the faithful algorithm's worst case; a candidate's own bug can
sit elsewhere (a noise draw reused across epochs), which the generic candidates look for. Beyond
this horizon (DP-SE's first elimination: 2740 rounds at K = 2, eps = 1) sixteen generic pairs of
runs cost a per-round candidate too much, and the designed and known pairs are screened alone."""

AGAINST_SAMPLES = 20_000
"""The most test runs per side of an audit against ALGO when the caller gives none (the
selection sample is a fifth of it, at least 200), the same for ``dpbandits audit --against`` and
``validate``'s privacy stage. The test sample drawn is sized from its power need and read in
looks that stop once the verdict is decided (:data:`PLAN`), so most audits draw fewer. The size
is set by a leak the audit must catch: a Lazy-UCB that releases its whole history's sum with
fresh noise at each epoch end (tests/audit/test_no_forget.py) was caught in 10 of 10 seeds at
20 000 and in 8 of 10 at 10 000 (the test sample's last look at the most allowed in both; with
the planned size as the last look, 6 of 10 at 10 000)."""

PLAN = SamplePlan()
"""The test sample of an audit against ALGO (:class:`~dpbandits.audit.sequential.SamplePlan`):
sized for a loss of twice the claim on an event as frequent as the chosen one, at power 0.8,
at least 1000 runs per side, read in three looks at level alpha / 3 each."""


def first_dependent_round(name: str, K: int, T: int, epsilon: float | None = None,
                          variant: str | None = None, params: dict[str, Any] | None = None,
                          seed: int = 0) -> int | None:
    """The first round t <= T at which ALGO's action depends on the rewards (None if none).

    Found by coupling: :data:`PROBE_RUNS` runs of the reference with the same seed on two
    tables (Bernoulli arms with means 0.9 .. 0.1 and the reverse); the first round where any
    run's action differs. A difference under the same seed can only come from the rewards, so
    the round is a certain upper bound on the first data-dependent round of these tables
    (earlier dependence that these tables do not reveal stays unseen). A matroid semi-bandit
    ALGO (K base arms, its matroid in ``params``) gets a row 0 drawn with each table and plays
    bases of its matroid on them.
    """
    from ..reference import Bernoulli, get, make, simulate, spec
    from ..reference.environments import Table

    params = dict(params or {})
    factory = spec(name, K, epsilon=epsilon, variant=variant, T=T, **params)
    rng = np.random.default_rng(seed)
    means = np.linspace(0.9, 0.1, K)
    if get(name).feedback == "semi":
        from ..reference.matroid import MatroidEnvironment

        matroid = make(name, K, epsilon=epsilon, rng=0, variant=variant, T=T, **params).matroid
        rows = [Bernoulli(m).table(T + 1, rng) for m in (means, means[::-1])]
        tables = [MatroidEnvironment(matroid, Table(X[1:], X0=X[0])) for X in rows]
    else:
        tables = [Table(Bernoulli(m).table(T, rng)) for m in (means, means[::-1])]
    actions = [simulate(factory, table, T, runs=PROBE_RUNS, seed=seed, record_actions=True,
                        backend="reference").actions for table in tables]
    differs = np.flatnonzero((actions[0] != actions[1]).any(axis=0))
    return int(differs[0]) + 1 if differs.size else None


def audit_horizon(name: str, K: int, epsilon: float | None = None, variant: str | None = None,
                  params: dict[str, Any] | None = None, start: int = 16,
                  seed: int = 0) -> tuple[int, int | None]:
    """The horizon T to audit ALGO at and its first dependent round there.

    T starts at ``start`` and doubles until the first dependent round f(T) falls inside it
    (up to :data:`MAX_PROBE_HORIZON`); then T = f + :data:`WINDOW` is tried, a few times, and the
    smallest T with f(T) <= T - 1 is kept. Returns ``(start, None)`` when nothing depends on the
    rewards up to the largest horizon searched.
    """
    assert start >= 1, start
    T = start
    found = None
    while T <= MAX_PROBE_HORIZON:
        found = first_dependent_round(name, K, T, epsilon, variant, params, seed)
        if found is not None:
            break
        T *= 2
    if found is None:
        return start, None
    best = (T, found)
    for _ in range(6):
        trial = max(start, found + WINDOW)
        if trial >= best[0]:
            break
        there = first_dependent_round(name, K, trial, epsilon, variant, params, seed)
        if there is None or there >= trial:
            break
        best, found = (trial, there), there
    return best


def planned_horizon(name: str, K: int, epsilon: float, params: dict[str, Any] | None = None,
                    T: int | None = None) -> tuple[int, str]:
    """The horizon an audit against ALGO will run at, as far as it is known before any work, and
    where it comes from (empty when given): ``T`` when given; otherwise at least ALGO's release
    horizon (:func:`~dpbandits.audit.design.release_horizon`, computed without building a table;
    the designed horizon is at least as long) and at least the coupling search's first horizon,
    16. The search itself (:func:`audit_horizon`) may end longer, up to
    :data:`MAX_PROBE_HORIZON` + :data:`WINDOW`, on 64 runs of the reference."""
    if T is not None:
        return T, ""
    from .design import release_horizon

    released = release_horizon(name, K, epsilon, params=dict(params or {}))
    if released is None or released <= 16:
        return 16, ""
    return released, f"{name}'s release horizon at epsilon = {epsilon:g}, K = {K}"


# --- the audit -----------------------------------------------------------------------------------

class Claiming:
    """The candidate, presented to the audit with ALGO's claim and release rounds.

    It also records, for every table it ran on, up to :data:`DISTINCT` distinct output
    sequences, so that :func:`distinct_outputs` can tell whether the output ever varied over the
    tested pair. ``claimed=None`` keeps the candidate's own claim.
    """

    def __init__(self, candidate: Any, claimed: Any = None, boundaries: list[int] | None = None,
                 claim: Any = None) -> None:
        self._candidate = candidate
        self.K = candidate.K
        self.feedback = getattr(candidate, "feedback", "bandit")
        self.label = getattr(candidate, "label", "candidate")
        self.claimed = getattr(candidate, "claimed", None) if claimed is None else claimed
        self.claim = claim
        self._boundaries = list(boundaries or [])
        self._outputs: dict[bytes, set[bytes]] = {}

    def _record(self, table: Any, output: np.ndarray) -> np.ndarray:
        key = np.asarray(getattr(table, "X", table), dtype=float).tobytes()
        seen = self._outputs.setdefault(key, set())
        # Up to DISTINCT distinct runs, found one at a time: each step keeps the first run left
        # and drops every run equal to it (a few passes over the sample, where sorting the runs
        # to find all distinct ones cost seconds per sample at T = 8000). Which runs are kept
        # does not change distinct_outputs: a table's set holds DISTINCT runs or all of them.
        rows = np.ascontiguousarray(output).reshape(len(output), -1)
        while len(seen) < DISTINCT and len(rows):
            seen.add(rows[0].tobytes())
            rows = rows[(rows != rows[0]).any(axis=1)]
        return output

    def distinct_outputs(self, pair: dict) -> int:
        """Distinct output sequences seen on the two tables of ``pair`` (a result's pair dict),
        counted together, up to :data:`DISTINCT`."""
        keys = [np.asarray(pair[name], dtype=float).tobytes() for name in ("D0", "D1")]
        return min(DISTINCT, len(set().union(*(self._outputs.get(k, set()) for k in keys))))

    def sample(self, table: Any, n: int, seed: int) -> np.ndarray:
        return self._record(table, self._candidate.sample(table, n, seed))

    @property
    def sample_from(self) -> Callable[[Any, int, int, int], np.ndarray] | None:
        """The candidate's ``sample_from(table, first, n, seed)`` (runs ``first`` on of a
        sample), recorded like ``sample``; None when the candidate has none."""
        extend = getattr(self._candidate, "sample_from", None)
        if not callable(extend):
            return None
        return lambda table, first, n, seed: self._record(table, extend(table, first, n, seed))

    @property
    def sample_many_from(self) -> Callable[[list], list] | None:
        """The candidate's ``sample_many_from(requests)`` (many (table, first, n, seed) requests
        sent together), each output recorded like ``sample``'s; None when it has none."""
        many = getattr(self._candidate, "sample_many_from", None)
        if not callable(many):
            return None
        return lambda requests: [self._record(request[0], output) for request, output
                                 in zip(requests, many(requests))]

    def exact_model(self) -> None:
        """A black box: no trajectory probabilities."""
        return None

    def epoch_boundaries(self, T: int) -> list[int]:
        """ALGO's release rounds: where a faithful candidate releases, the pairs are placed."""
        return [t for t in self._boundaries if t <= T]

    def white_box(self) -> None:
        return None


DISTINCT = 3
"""Distinct outputs per table that :class:`Claiming` keeps (two already show variation)."""


def audit_observed(candidate: Claiming, pairs: list, *, samples: int, n_selection: int,
                   alpha: float, seed: int, progress: Callable[[str], None] | None = None,
                   notes: tuple[str, ...] = (), plan: SamplePlan | None = None,
                   screening: Screening | None = None):
    """The event audit of ``candidate`` on ``pairs`` (``samples`` test runs per side, or at most
    that many with a ``plan``; the selection in two stages with a ``screening``), with the
    number of distinct outputs seen on the tested pair in ``counts["distinct_outputs"]`` and
    ``notes`` appended."""
    from .testers import event_result, event_stages

    stages = event_stages(candidate, pairs, n_selection=n_selection, n_test=samples, alpha=alpha,
                          seed=seed, progress=progress, plan=plan, screening=screening)
    distinct = candidate.distinct_outputs(stages.selection.pair.to_dict())
    return event_result(stages, notes=notes, counts={"distinct_outputs": distinct})


def audit_against(candidate: Any, against: str, *, epsilon: float, variant: str | None = None,
                  params: dict[str, Any] | None = None, T: int | None = None,
                  samples: int = AGAINST_SAMPLES, alpha: float = 0.05, seed: int = 0,
                  progress: Callable[[str], None] | None = None):
    """Audit ``candidate`` (a mechanism with K arms) against ALGO's claim at ``epsilon``.

    ``T`` is the audited horizon (default: the longer of :func:`audit_horizon` and ALGO's
    designed horizon, where it has a design). The event tester's Clopper-Pearson bound holds at
    confidence ``1 - alpha`` (one event tested on a fresh sample, chosen with the pair on a
    selection sample of ``max(2000, samples // 5)`` runs per side and pair, or
    ``max(200, samples // 5)`` when only designed and known pairs are screened). The test
    sample is at most ``samples`` runs per side: sized from its power need and read in looks
    that stop once the verdict is decided (:data:`PLAN`; the bound at level alpha / looks at
    each look, valid at ``1 - alpha`` whichever look it stops at). The result's ``notes`` say
    how the horizon, the pairs and the test sample were chosen.

    The arguments are trusted: the entry points (``dpbandits audit --against``,
    ``dpbandits validate``, :func:`dpbandits.testing.assert_private`) check them once, before any
    work (sizes with :func:`dpbandits.limits.check_audit_size` at :func:`planned_horizon`).
    """
    from .design import DESIGNED_ARMS, designed_horizon, designed_pairs
    from .mechanism import RegistryMechanism
    from .pairs import candidate_pairs, known_pairs
    from ..reference.registry import canonical

    against = canonical(against)
    K = candidate.K
    params = dict(params or {})
    notes = []
    design_T = designed_horizon(against, K, epsilon, params) if against in DESIGNED_ARMS else None
    if T is not None:
        first = first_dependent_round(against, K, T, epsilon, variant, params, seed)
        notes.append(f"horizon T = {T} (given); {against}'s first data-dependent action "
                     + (f"is in round {first}" if first else "is beyond it: the audit sees only "
                        "outputs that do not depend on the rewards"))
    else:
        T, first = audit_horizon(against, K, epsilon, variant, params, seed=seed)
        coupled = (f"{against}'s first data-dependent action is in round {first} (the reference "
                   f"on two tables with one seed)" if first else f"no data-dependent action of "
                   f"{against} found up to T = {MAX_PROBE_HORIZON}")
        if design_T is not None and design_T > T:
            T = design_T
            first = first_dependent_round(against, K, T, epsilon, variant, params, seed)
            coupled += f"; the designed horizon of {against}, longer, is kept"
        notes.append(f"horizon T = {T}: {coupled}")
    filled = getattr(candidate, "filled_at", None)     # a candidate built per run (candidates)
    filled_line = filled(T) if callable(filled) else ""
    if isinstance(filled_line, str) and filled_line:
        notes.append(f"{filled_line}; at the audit's horizon")
    reference = RegistryMechanism(against, K, epsilon, variant, params, T=T)
    boundaries = sorted(set(reference.epoch_boundaries(T)) | ({first - 1} if first and first > 1 else set()))
    relation = reference.claimed.relation if reference.claimed else None
    designed = designed_pairs(against, K, epsilon, variant, T, params, deviations=True)
    known = known_pairs(against, K, T)
    semi = getattr(candidate, "feedback", "bandit") == "semi"
    generic = [] if designed and T > GENERIC_HORIZON else candidate_pairs(
        K, T, boundaries=boundaries, row_zero=semi, **({"relation": relation} if relation else {}))
    if semi:        # the matroid algorithms read a row 0 first: only pairs that give one
        designed, known = ([pair for pair in chosen if pair.D0.X0 is not None]
                           for chosen in (designed, known))
    pairs = designed + known + generic
    n_selection = max(2000 if generic else 200, samples // 5)
    notes.append(f"pairs: {len(designed)} designed from the reference, {len(known)} known worst "
                 f"cases (docs/errata.md) and {len(generic)} generic candidates"
                 + (f" at rounds {boundaries[:6]}{'...' if len(boundaries) > 6 else ''} and 1, 2, "
                    f"3, T/2, T" if generic else f" (none: T > {GENERIC_HORIZON})")
                 + f"; selection at most {n_selection} runs per side and pair")
    if progress:
        progress(f"privacy: {candidate.label} against {against}'s claim at T = {T}, "
                 f"{len(pairs)} candidate pairs, {samples} test runs per side")
    mechanism = Claiming(candidate, reference.claimed, boundaries, reference.claim)
    return audit_observed(mechanism, pairs, samples=samples, n_selection=n_selection,
                          alpha=alpha, seed=seed, progress=progress, notes=tuple(notes), plan=PLAN,
                          screening=SCREENING)


def could_not_test(result: Any) -> str | None:
    """Why ``result`` holds no evidence either way, or None when it is a verdict.

    No evidence: the candidate's output was one and the same sequence in every run on both
    tables of the tested pair (``counts["distinct_outputs"] == 1``, recorded by
    :func:`audit_observed`), or the event occurred in every test run on both tables, or the
    bound is not a number. An event with no counts on either side while the outputs did vary is
    not this case: no event separated the tables on the selection sample, and the bound 0 is a
    valid (weak) result.
    """
    counts = result.counts
    n0, n1 = counts.get("n_D0"), counts.get("n_D1")
    k0, k1 = counts.get("in_S_D0"), counts.get("in_S_D1")
    if counts.get("distinct_outputs") == 1:
        return (f"the output was the same action sequence in every run on both tables of the "
                f"pair ({result.pair.get('description', '')}): nothing in it depends on the "
                f"rewards at this horizon (T = {result.pair.get('T')})")
    if k0 is not None and k1 is not None:
        if k0 == 0 and k1 == 0 and "distinct_outputs" not in counts:
            return (f"the event never occurred in {n0} + {n1} test runs on either table: the "
                    f"outputs gave no evidence either way")
        if k0 == n0 and k1 == n1:
            return f"the event occurred in every one of {n0} + {n1} test runs on both tables"
    bound = result.epsilon_lower_bound
    if bound is None or (isinstance(bound, float) and math.isnan(bound)):
        return "the lower bound is not a number"
    return None


def blind_spots(T: int, K: int) -> str:
    """What a generic audit (no ALGO named) cannot see, for the printed report."""
    return (f"generic audit (no --against): neighbouring tables change one row at rounds 1, 2, 3, "
            f"{T // 2} and {T} of a table with Bernoulli means 0.9 .. 0.1 over K = {K} arms, at "
            f"horizon T = {T}. It cannot see outputs that depend on the rewards only after round "
            f"{T} (for example DP-SE's first elimination after K x R_1 rounds), releases at other "
            f"rounds, or worst cases that need a designed table; name the algorithm the program "
            f"implements with --against ALGO to use its claim, its pairs and its horizon")
