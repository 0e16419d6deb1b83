"""Designed neighbouring pairs, release horizons and the action-level loss of a pair.

The generic candidates of :func:`dpbandits.audit.pairs.candidate_pairs` change a row at fixed
rounds of a random table. The designed pairs are derived from where an algorithm releases a
statistic that a single reward moves most (docs/audit-design.md). Each algorithm declares its
design beside its pseudocode (its ``audit_design``, one of the kinds of
:mod:`dpbandits.reference.declarations`: the hybrid-counter item, the lazy epoch, the tree ties,
the first elimination), with the rounds, horizons and the reason for them; this module reads the
declarations through the registry and wraps their tables into :class:`~dpbandits.audit.pairs.Pair`.

Horizons: ``dpbandits audit ALGO`` audits an algorithm with a design at
:func:`designed_horizon`; ``dpbandits audit --against ALGO`` (:mod:`dpbandits.audit.against`)
at the longer of it and the horizon found by coupling, with the generic candidates beside the
designed pairs (a candidate's own bug can sit outside the design). A horizon given by the
caller is used as it is, and a design that does not fit in it gives no pair.

:func:`action_level_loss` measures what the actions reveal on a pair: half of the runs on each
table choose the most revealing whole action sequences, the other half measure them (a loss
estimate, a Clopper-Pearson lower bound and the test runs an audit would need), and an
(epsilon, delta) statement at a stated confidence bounds every sequence: the loss of the
well-observed ones and the probability of the others.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
from scipy import stats

from ..errors import DPBanditsError, check_epsilon, check_positive_int
from ..reference.declarations import AuditDesign, TablePair
from ..reference.environments import Table
from ..reference.registry import Declared, canonical, declaration, get
from .confidence import epsilon_lower_bound
from .pairs import Pair

__all__ = ["designed_pairs", "designed_horizon", "release_horizon", "DESIGNS", "DESIGNED_ARMS",
           "designed_selection",
           "ActionLevelLoss", "action_level_loss", "largest_action_level_loss", "most_revealing",
           "samples_needed", "runs_to_refute_rare"]

DESIGNS: Mapping[str, AuditDesign] = Declared("audit_design")
"""Algorithm -> its declared audit design (docs/audit-design.md), for every algorithm with one."""

DESIGNED_ARMS: Mapping[str, int] = Declared("audit_design", lambda design: design.arms)
"""Arms of the designed pairs: the audit's default K for every algorithm with a design
(:func:`designed_pairs` returns pairs for exactly these names)."""


def _design(name: str) -> AuditDesign | None:
    return declaration(name, "audit_design")


def _pairs(tables: list[TablePair]) -> list[Pair]:
    return [Pair(Table(D0), Table(D1), step, description) for D0, D1, step, description in tables]


def designed_selection(name: str, samples: int) -> int:
    """Selection runs per side and designed pair for an audit with ``samples`` test runs per
    side. A few designed pairs replace many generic ones, so each gets the selection sample the
    generic candidates would share: whole-sequence events need it to rank the sequences; a
    design whose runs are long takes less (its ``selection``)."""
    design = _design(name)
    return samples if design is None else design.selection(samples)


def release_horizon(name: str, K: int = 2, epsilon: float = 1.0, variant: str | None = None,
                    params: dict[str, Any] | None = None) -> int | None:
    """The horizon at which an audit of ``name`` reaches its first data-dependent releases
    (the design's ``release_horizon``: for the hybrid-counter UCBs the last designed round plus
    the rounds that read its releases; for the lazy-epoch and tree-ties designs K + 1, the first
    round whose action reads the releases of rounds 1..K; for DP-SE K R_1 + 1, the round after
    its first epoch's release). None when no design is declared."""
    design = _design(name)
    K = check_positive_int(K, "K", minimum=2)
    epsilon = check_epsilon(epsilon)
    return None if design is None else design.release_horizon(K, epsilon, dict(params or {}))


def designed_horizon(name: str, K: int = 2, epsilon: float = 1.0,
                     params: dict[str, Any] | None = None) -> int | None:
    """The horizon of :func:`designed_pairs` when none is given (None: no design): the
    design's ``designed_horizon`` (for DP-SE the first horizon T that holds two rounds after its
    first release, T >= K R_1(beta = 1/T) + 2)."""
    design = _design(name)
    if design is None:
        return None
    return design.designed_horizon(check_positive_int(K, "K", minimum=2), check_epsilon(epsilon),
                                   dict(params or {}))


def designed_pairs(name: str, K: int = 2, epsilon: float = 1.0, variant: str | None = None,
                   T: int | None = None, params: dict[str, Any] | None = None,
                   deviations: bool = False) -> list[Pair]:
    """The designed neighbouring pairs of ``name`` (empty when none are designed).

    ``T`` defaults to :func:`designed_horizon`; a given ``T`` too short for a design gives no
    pairs. ``variant`` does not change the tables; it is accepted so that callers name the
    audited configuration in one place. ``params`` are the algorithm's parameters (DP-SE's
    design reads ``beta``, ``rounding`` and ``order``; the others' designs do not depend on
    theirs). ``deviations=True`` adds the pairs that catch a known deviation of an
    implementation from the reference with certainty (DP-SE: the exact gap on the elimination
    threshold), for the audit of a candidate against ``name`` (:mod:`dpbandits.audit.against`);
    they are weaker against the faithful algorithm, so the audit of the reference leaves them
    out.
    """
    name = canonical(name)
    get(name)
    K = check_positive_int(K, "K", minimum=2)
    epsilon = check_epsilon(epsilon)
    design = _design(name)
    if design is None:
        return []
    return _pairs(design.tables(K, epsilon, T, dict(params or {}), deviations))


# --- what the actions reveal -------------------------------------------------------------------

def _cp_lower(k, n, a):
    k = np.asarray(k, dtype=float)
    return np.where(k > 0, stats.beta.ppf(a, np.maximum(k, 1), n - k + 1), 0.0)


def _cp_upper(k, n, a):
    k = np.asarray(k, dtype=float)
    return np.where(k < n, stats.beta.ppf(1 - a, k + 1, np.maximum(n - k, 1)), 1.0)


def samples_needed(p_big: float, p_small: float, claim: float, alpha: float = 0.05,
                   limit: int = 10 ** 10) -> int | None:
    """Test runs per side at which an event of probabilities ``p_big`` vs ``p_small`` gives a
    Clopper-Pearson bound (alpha/2 per side, one hypothesis) above ``claim`` at the expected
    counts; None when ln(p_big / p_small) <= claim (no sample size can refute with this event)
    or when more than ``limit`` runs would be needed."""
    if p_small <= 0 or p_big <= 0 or math.log(p_big / p_small) <= claim:
        return None
    n = 100
    while n <= limit:
        lo = float(_cp_lower(math.floor(n * p_big), n, alpha / 2))
        hi = float(_cp_upper(math.ceil(n * p_small), n, alpha / 2))
        if lo > 0 and math.log(lo / hi) > claim:
            return n
        n = int(n * 1.25) + 1
    return None


def runs_to_refute_rare(p_big: float, claim: float, alpha: float = 0.05) -> float:
    """Test runs per side below which no event of probability at most ``p_big`` (on the side it
    is more likely) can give a Clopper-Pearson bound (alpha/2 per side, one hypothesis) above
    ``claim`` at the expected counts, even when it never occurs on the other side: k / p_big for
    the smallest count k whose lower bound, over the upper bound of a count of 0, exceeds
    e^claim. Both bounds are taken in their Poisson limit (small p_big, many runs), where
    they are k-th gamma quantile / n and ln(2/alpha) / n, so k does not depend on n."""
    if not 0 < p_big <= 1:
        raise DPBanditsError(f"p_big must lie in (0, 1], got {p_big}")
    need = math.exp(claim) * math.log(2 / alpha)
    k = 1
    while stats.gamma.ppf(alpha / 2, k) <= need:
        k += 1
    return k / p_big


@dataclass(frozen=True)
class ActionLevelLoss:
    """What a pair's action sequences reveal (see :func:`action_level_loss`).

    Two samples per side: ``n_selection`` runs choose, ``n`` fresh runs measure, so no number
    below is chosen and measured on the same runs.

    ``estimate`` is the loss |ln P0(o)/P1(o)| of the sequence o with the largest plug-in loss
    on the selection sample, measured on the fresh one (a point estimate, not a bound).
    ``event_*`` describe the union of sequences (ordered by their selection-sample ratio) that
    the selection sample says needs the fewest test runs to refute ``claim``, measured on the
    fresh sample; ``samples_needed`` is the number of test runs per side that event would need
    at its fresh probabilities (None: its fresh ratio does not exceed the claim, or more than
    1e10 runs); ``lower_bound`` is its one-hypothesis Clopper-Pearson lower bound on the
    pair's epsilon (level alpha).

    ``upper_bound`` and ``delta`` make one statement at confidence 1 - alpha: the actions are
    (upper_bound, delta)-DP on this pair, that is P_b(S) <= e^upper_bound P_{1-b}(S) + delta
    for every set S of action sequences and both directions. ``upper_bound`` bounds
    |ln P0(o)/P1(o)| over the ``sequences`` sequences seen at least ``min_count`` times on
    both sides of the selection sample; ``delta`` bounds the probability, on either side, of
    all the other sequences (``rare_mass`` is that probability's fresh estimate). Both come
    from fresh-sample Clopper-Pearson intervals, Bonferroni over the 4 m + 2 one-sided
    intervals of the m sequences and the two rare masses.

    When ``upper_bound`` < ``claim``, an event that refutes the claim has probability at most
    ``refutation_probability`` = delta e^claim / (e^claim - e^upper_bound) on its likelier side,
    so a refutation needs at least ``refutation_runs`` test runs per side
    (:func:`runs_to_refute_rare`); both are None otherwise, and when that probability is not
    below 1 (the statement then excludes no event). ``released_loss`` is the loss of
    the statistics the algorithm releases (the variant's proven epsilon): the actions are
    post-processing of them, so no action event can exceed it.
    """

    mechanism: str
    pair: str
    T: int
    K: int
    epsilon: float
    claim: float
    released_loss: float
    n_selection: int
    n: int
    alpha: float
    min_count: int
    estimate: float
    lower_bound: float
    upper_bound: float
    delta: float
    sequences: int
    rare_mass: float
    event_sequences: int
    event_p_big: float
    event_p_small: float
    event_estimate: float
    samples_needed: int | None
    refutation_probability: float | None
    refutation_runs: float | None

    def to_dict(self) -> dict:
        return asdict(self)

    @property
    def refuted(self) -> bool:
        """The fresh sample refutes the claim: the chosen event's lower bound exceeds it (a
        level-alpha test, the event being chosen on the other runs)."""
        return self.lower_bound > self.claim

    @property
    def refutable(self) -> bool:
        """The chosen event's fresh estimate exceeds the claim (an estimate, not a test)."""
        return self.samples_needed is not None

    @property
    def bounded_below_claim(self) -> bool:
        """The (upper_bound, delta) statement leaves the claim refutable only by events of
        probability at most ``refutation_probability``."""
        return self.refutation_probability is not None

    def summary(self) -> str:
        confidence = f"{100 * (1 - self.alpha):.0f}%"
        runs = (f"{self.n:,} fresh runs per side (chosen on {self.n_selection:,} others)")
        if self.sequences:
            seen = (f"on {runs} the most revealing action sequence loses {self.estimate:.3f} "
                    f"(estimate), an event {self.event_estimate:.3f} ({confidence} lower bound "
                    f"{self.lower_bound:.3f})")
        else:
            seen = (f"no action sequence was seen {self.min_count} times on both sides of "
                    f"{self.n_selection:,} selection runs per side")
        statement = (f"with {confidence} confidence the actions are ({self.upper_bound:.3f}, "
                     f"{self.delta:.1e})-DP on this pair (delta bounds the probability of the "
                     f"sequences seen fewer than {self.min_count} times)")
        if self.refuted:
            need = (f"the fresh sample refutes the claim {self.claim:g}; at the event's "
                    f"estimated probabilities an audit needs about {self.samples_needed:,} test "
                    "runs per side")
        elif self.refutable:
            need = (f"the event's estimate exceeds the claim {self.claim:g} but its lower "
                    "bound does not: not refuted at this sample; if the estimate is right, a "
                    f"refutation needs about {self.samples_needed:,} test runs per side")
        elif self.bounded_below_claim:
            need = (f"a refutation of the claim {self.claim:g} needs events of probability "
                    f"<= {self.refutation_probability:.1e}, at least about "
                    f"{self.refutation_runs:.1e} test runs per side (a bound on these actions "
                    "at this sample, not a proof of the claim)")
        else:
            need = (f"no event is estimated to exceed the claim {self.claim:g}, and the "
                    "(epsilon, delta) bound does not exclude one")
        return (f"{self.mechanism} on '{self.pair}' (K = {self.K}, T = {self.T}): released "
                f"statistics lose {self.released_loss:g}; {seen}; {statement}; {need}")


def _sequence_codes(actions: np.ndarray, K: int) -> np.ndarray:
    flat = actions.reshape(actions.shape[0], -1).astype(np.int64)
    if flat.shape[1] * math.log2(K) > 62:
        raise DPBanditsError("action sequences too long to enumerate (K^T > 2^62)")
    return flat @ (K ** np.arange(flat.shape[1], dtype=np.int64))


def _counts(codes: list[np.ndarray]) -> tuple[np.ndarray, list[np.ndarray]]:
    values, inverse = np.unique(np.concatenate(codes), return_inverse=True)
    bounds = np.cumsum([0] + [c.size for c in codes])
    return values, [np.bincount(inverse[a:b], minlength=values.size)
                    for a, b in zip(bounds[:-1], bounds[1:])]


def _on(values: np.ndarray, counts: np.ndarray, codes: np.ndarray) -> np.ndarray:
    """The counts of ``codes`` among ``values`` (0 for a code not among them)."""
    if values.size == 0:
        return np.zeros(codes.size, dtype=np.int64)
    at = np.clip(np.searchsorted(values, codes), 0, values.size - 1)
    return np.where(values[at] == codes, counts[at], 0)


def _log_ratio(big: int, small: int) -> float:
    if big == 0:
        return 0.0 if small == 0 else -math.inf
    return math.inf if small == 0 else math.log(big / small)


def _chosen_event(s_big: np.ndarray, s_small: np.ndarray, n: int, claim: float,
                  alpha: float) -> tuple[np.ndarray, int | None, float]:
    """On the selection counts of the well-observed sequences, the union of the sequences with
    the largest ratios that needs the fewest test runs to refute ``claim`` (when none does,
    the union with the largest ratio), as indices into the sequences."""
    order = np.argsort(-np.log(s_big / s_small), kind="stable")
    kb, ks = np.cumsum(s_big[order]) / n, np.cumsum(s_small[order]) / n
    best: tuple[int | None, int, float] = (None, 1, -math.inf)
    for j in range(min(order.size, 64)):
        need = samples_needed(float(kb[j]), float(ks[j]), claim, alpha)
        ratio = math.log(kb[j] / ks[j])
        if need is not None and (best[0] is None or need < best[0]):
            best = (need, j + 1, ratio)
        elif best[0] is None and ratio > best[2]:
            best = (None, j + 1, ratio)
    return order[:best[1]], best[0], best[2]


def action_level_loss(name: str, pair: Pair, *, epsilon: float = 1.0, variant: str | None = None,
                      n: int = 1_000_000, seed: int = 0, alpha: float = 0.05,
                      min_count: int = 200, workers: int = 1, backend: str = "auto",
                      params: dict[str, Any] | None = None) -> ActionLevelLoss:
    """The privacy loss that whole action sequences of ``name`` reveal on ``pair``.

    Runs ``n`` times on each table (seeded from ``seed``) and splits the runs of each side in
    two: the first half (the selection sample) chooses the well-observed sequences (at least
    ``min_count`` runs on both sides), the most revealing one and the union of sequences that
    would refute the claim soonest; the second half (fresh runs) measures them. Returns an
    :class:`ActionLevelLoss`: the chosen sequence's loss (estimate), the chosen event's loss,
    Clopper-Pearson lower bound and the test runs a refutation with it would need, and an
    (epsilon, delta) statement at confidence 1 - alpha that covers every sequence: a bound on
    the loss of the well-observed ones and a bound on the probability of the others.
    """
    from .mechanism import RegistryMechanism

    n = check_positive_int(n, "n", minimum=200)
    min_count = check_positive_int(min_count, "min_count")
    mechanism = RegistryMechanism(name, pair.K, epsilon, variant, dict(params or {}), T=pair.T,
                                  workers=workers, backend=backend)
    claim = mechanism.claimed.epsilon if mechanism.claimed else math.inf
    child = [int(s.generate_state(1)[0]) for s in np.random.SeedSequence(seed).spawn(2)]
    codes = [_sequence_codes(mechanism.sample(D, n, c), pair.K)
             for D, c in ((pair.D0, child[0]), (pair.D1, child[1]))]
    n_sel = n // 2
    n_test = n - n_sel
    values, (s0, s1) = _counts([codes[0][:n_sel], codes[1][:n_sel]])
    seen = (s0 >= min_count) & (s1 >= min_count)
    chosen, s0, s1 = values[seen], s0[seen], s1[seen]          # fixed by the selection sample
    test_values, (t0, t1) = _counts([codes[0][n_sel:], codes[1][n_sel:]])
    k0, k1 = _on(test_values, t0, chosen), _on(test_values, t1, chosen)
    m = chosen.size
    rare0, rare1 = n_test - int(k0.sum()), n_test - int(k1.sum())
    a = alpha / (4 * m + 2)
    with np.errstate(divide="ignore"):
        upper = float(max(np.max(np.log(_cp_upper(k0, n_test, a) / _cp_lower(k1, n_test, a)),
                                 initial=0.0),
                          np.max(np.log(_cp_upper(k1, n_test, a) / _cp_lower(k0, n_test, a)),
                                 initial=0.0)))
    delta = float(max(_cp_upper(rare0, n_test, a), _cp_upper(rare1, n_test, a)))
    estimate, event, lower = 0.0, (0, 0.0, 0.0, 0.0, None), 0.0
    if m:
        top = int(np.argmax(np.abs(np.log(s0 / s1))))
        estimate = abs(_log_ratio(int(k0[top]), int(k1[top])))
        candidates = []
        for big, small, t_big, t_small in ((s0, s1, k0, k1), (s1, s0, k1, k0)):
            union, need, ratio = _chosen_event(big, small, n_sel, claim, alpha)
            candidates.append((need is None, need or 0, -ratio, union, t_big, t_small))
        _, _, _, union, t_big, t_small = min(candidates, key=lambda c: c[:3])
        kb, ks = int(t_big[union].sum()), int(t_small[union].sum())
        pb, ps = kb / n_test, ks / n_test
        event = (int(union.size), pb, ps, _log_ratio(kb, ks), samples_needed(pb, ps, claim, alpha))
        lower = epsilon_lower_bound(kb, n_test, ks, n_test, alpha, 1)
    p_refute = runs = None
    if math.isfinite(claim) and upper < claim:
        limit = delta * math.exp(claim) / (math.exp(claim) - math.exp(upper))
        if limit < 1:                   # otherwise the statement excludes no event
            p_refute = max(limit, 1e-300)
            runs = runs_to_refute_rare(p_refute, claim, alpha)
    released = mechanism.claim.proven.epsilon if mechanism.claim.proven else math.inf
    return ActionLevelLoss(
        mechanism=mechanism.label, pair=pair.description, T=pair.T, K=pair.K, epsilon=epsilon,
        claim=claim, released_loss=float(released), n_selection=n_sel, n=n_test, alpha=alpha,
        min_count=min_count, estimate=estimate, lower_bound=float(lower), upper_bound=upper,
        delta=delta, sequences=m, rare_mass=max(rare0, rare1) / n_test,
        event_sequences=event[0], event_p_big=event[1], event_p_small=event[2],
        event_estimate=event[3], samples_needed=event[4], refutation_probability=p_refute,
        refutation_runs=runs)


def largest_action_level_loss(name: str, K: int = 2, *, epsilon: float = 1.0,
                              variant: str | None = None, n: int = 200_000, seed: int = 0,
                              alpha: float = 0.05, workers: int = 1,
                              backend: str = "auto") -> ActionLevelLoss | None:
    """:func:`action_level_loss` on every designed pair of ``name`` (None when no pair is
    designed), and of those the most revealing (:func:`most_revealing`). Each pair is its own
    experiment at level alpha."""
    results = [action_level_loss(name, pair, epsilon=epsilon, variant=variant, n=n, seed=seed,
                                 alpha=alpha, workers=workers, backend=backend)
               for pair in designed_pairs(name, K, epsilon, variant)]
    return most_revealing(results)


def most_revealing(results: list[ActionLevelLoss]) -> ActionLevelLoss | None:
    """The most revealing result: one that refutes its claim, then one estimated to refute it,
    each by the fewest test runs a refutation needs; then one whose upper bound does not
    exclude the claim (the largest upper bound); when every one does, the one that leaves the
    cheapest refutation open (the fewest ``refutation_runs``). None for an empty list."""
    for group in ([r for r in results if r.refuted], [r for r in results if r.refutable]):
        if group:
            return min(group, key=lambda r: (r.samples_needed or 0, -r.lower_bound))
    open_ = [r for r in results if not r.bounded_below_claim]
    if open_:
        return max(open_, key=lambda r: (r.upper_bound, r.delta))
    return min(results, key=lambda r: r.refutation_runs) if results else None
