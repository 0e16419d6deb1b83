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

:func:`action_level_loss` measures what the actions reveal on a pair: the privacy loss of every
whole action sequence, estimated from runs on both tables, with a Clopper-Pearson upper bound, and
the test-sample size an audit with the best event would need to refute a claim.
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
from .pairs import Pair

__all__ = ["designed_pairs", "designed_horizon", "release_horizon", "DESIGNS", "DESIGNED_ARMS",
           "designed_selection",
           "ActionLevelLoss", "action_level_loss", "largest_action_level_loss", "most_revealing",
           "samples_needed"]

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


@dataclass(frozen=True)
class ActionLevelLoss:
    """What a pair's action sequences reveal (see :func:`action_level_loss`).

    ``estimate`` is a point estimate (plug-in, not a bound) of max over action sequences o of
    |ln P0(o)/P1(o)|, over the sequences seen at least ``min_count`` times on both sides;
    ``upper_bound`` bounds that maximum from above at confidence 1 - alpha (Clopper-Pearson,
    Bonferroni over the 2 m one-sided intervals of the m sequences); ``rare_mass`` is the largest
    share of runs, on either side, in the sequences left out. ``event_*`` describe the union of
    sequences (ordered by their estimated ratio) that needs the fewest test runs to refute
    ``claim``; ``samples_needed`` is that number (None: no event of this pair can refute it).
    ``released_loss`` is the loss of the statistics the algorithm releases (the variant's proven
    epsilon): the actions are post-processing of them, so no action event can exceed it.
    """

    mechanism: str
    pair: str
    T: int
    K: int
    epsilon: float
    claim: float
    released_loss: float
    n: int
    alpha: float
    estimate: float
    upper_bound: float
    sequences: int
    rare_mass: float
    event_sequences: int
    event_p_big: float
    event_p_small: float
    event_estimate: float
    samples_needed: int | None

    def to_dict(self) -> dict:
        return asdict(self)

    @property
    def refutable(self) -> bool:
        return self.samples_needed is not None

    def summary(self) -> str:
        need = (f"a refutation needs about {self.samples_needed:,} test runs per side"
                if self.refutable else
                "no event of this pair can refute the claim at any sample size (the actions' "
                f"loss is at most {self.upper_bound:.3f} < {self.claim:g})"
                if self.upper_bound < self.claim else
                "no event of this pair is estimated to exceed the claim")
        return (f"{self.mechanism} on '{self.pair}' (T = {self.T}): released statistics lose "
                f"{self.released_loss:g}; action sequences lose {self.estimate:.3f} (estimate, "
                f"{self.n:,} runs per side; {100 * (1 - self.alpha):.0f}% upper bound "
                f"{self.upper_bound:.3f}); {need}")


def _sequence_codes(actions: np.ndarray, K: int) -> np.ndarray:
    flat = actions.reshape(actions.shape[0], -1).astype(np.int64)
    if flat.shape[1] * math.log2(K) > 62:
        raise DPBanditsError("action sequences too long to enumerate (K^T > 2^62)")
    return flat @ (K ** np.arange(flat.shape[1], dtype=np.int64))


def action_level_loss(name: str, pair: Pair, *, epsilon: float = 1.0, variant: str | None = None,
                      n: int = 1_000_000, seed: int = 0, alpha: float = 0.05,
                      min_count: int = 200, workers: int = 1, backend: str = "auto",
                      params: dict[str, Any] | None = None) -> ActionLevelLoss:
    """The privacy loss that whole action sequences of ``name`` reveal on ``pair``.

    Runs ``n`` times on each table (seeded from ``seed``), counts every distinct action sequence
    and returns an :class:`ActionLevelLoss`: the largest estimated |ln P0(o)/P1(o)|, its upper
    confidence bound (level 1 - alpha, Clopper-Pearson with Bonferroni over the sequences with at
    least ``min_count`` runs on both sides), and the test-sample size the best union of sequences
    would need to refute the claim at level alpha.
    """
    from .mechanism import RegistryMechanism

    n = check_positive_int(n, "n", minimum=100)
    mechanism = RegistryMechanism(name, pair.K, epsilon, variant, dict(params or {}), T=pair.T,
                                  workers=workers, backend=backend)
    claim = mechanism.claimed.epsilon if mechanism.claimed else math.inf
    child = [int(s.generate_state(1)[0]) for s in np.random.SeedSequence(seed).spawn(2)]
    codes0 = _sequence_codes(mechanism.sample(pair.D0, n, child[0]), pair.K)
    codes1 = _sequence_codes(mechanism.sample(pair.D1, n, child[1]), pair.K)
    values, inverse = np.unique(np.concatenate([codes0, codes1]), return_inverse=True)
    c0 = np.bincount(inverse[:n], minlength=values.size)
    c1 = np.bincount(inverse[n:], minlength=values.size)
    seen = (c0 >= min_count) & (c1 >= min_count)
    m = max(1, int(seen.sum()))
    a = alpha / (2 * m)
    k0, k1 = c0[seen], c1[seen]
    estimate = float(np.max(np.abs(np.log(k0 / k1)))) if seen.any() else 0.0
    upper = float(max(np.max(np.log(_cp_upper(k0, n, a) / _cp_lower(k1, n, a)), initial=0.0),
                      np.max(np.log(_cp_upper(k1, n, a) / _cp_lower(k0, n, a)), initial=0.0)))
    rare = float(max(c0[~seen].sum(), c1[~seen].sum()) / n)
    best = (None, 0, 0.0, 0.0, 0.0)
    for big, small in ((k0, k1), (k1, k0)):     # unions of the well-observed sequences only
        order = np.argsort(-np.log(big / small))
        kb, ks = np.cumsum(big[order]) / n, np.cumsum(small[order]) / n
        for j in range(min(order.size, 64)):
            if ks[j] <= 0:
                continue
            need = samples_needed(float(kb[j]), float(ks[j]), claim, alpha)
            est = math.log(kb[j] / ks[j])
            if need is not None and (best[0] is None or need < best[0]):
                best = (need, j + 1, float(kb[j]), float(ks[j]), est)
            elif best[0] is None and est > best[4]:
                best = (None, j + 1, float(kb[j]), float(ks[j]), est)
    released = mechanism.claim.proven.epsilon if mechanism.claim.proven else math.inf
    return ActionLevelLoss(
        mechanism=mechanism.label, pair=pair.description, T=pair.T, K=pair.K, epsilon=epsilon,
        claim=claim, released_loss=float(released), n=n, alpha=alpha, estimate=estimate,
        upper_bound=upper, sequences=int(seen.sum()), rare_mass=rare, event_sequences=best[1],
        event_p_big=best[2], event_p_small=best[3], event_estimate=best[4],
        samples_needed=best[0])


def largest_action_level_loss(name: str, K: int = 2, *, epsilon: float = 1.0,
                              variant: str | None = None, n: int = 200_000, seed: int = 0,
                              alpha: float = 0.05, workers: int = 1,
                              backend: str = "auto") -> ActionLevelLoss | None:
    """:func:`action_level_loss` on every designed pair of ``name`` (None when no pair is
    designed), and of those the most revealing: the pair that needs the fewest test runs to
    refute the claim, or when none can, the one with the largest upper bound (the weakest
    statement that no sample size suffices). Each pair is its own experiment at level alpha."""
    results = [action_level_loss(name, pair, epsilon=epsilon, variant=variant, n=n, seed=seed,
                                 alpha=alpha, workers=workers, backend=backend)
               for pair in designed_pairs(name, K, epsilon, variant)]
    return most_revealing(results)


def most_revealing(results: list[ActionLevelLoss]) -> ActionLevelLoss | None:
    """The result that needs the fewest test runs to refute its claim; when none can, the one
    with the largest upper bound. None for an empty list."""
    refutable = [r for r in results if r.refutable]
    if refutable:
        return min(refutable, key=lambda r: r.samples_needed)
    return max(results, key=lambda r: r.upper_bound) if results else None
