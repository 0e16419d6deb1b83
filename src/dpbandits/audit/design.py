"""Designed neighbouring pairs, release horizons and the action-level loss of a pair.

The generic candidates of :func:`dpbandits.audit.pairs.candidate_pairs` change a row at fixed
rounds of a random table. The pairs designed here are derived from where each algorithm releases
a statistic that a single reward moves most (docs/audit-design.md):

* the hybrid-counter UCBs (DP-UCB-BOUND, DP-UCB: Tossou and Dimitrakakis, Alg. 1-2; Hybrid-UCB:
  Hu, Huang and Mehta, Alg. 4) lose most on one item of an arm's counter: item 2^k + 1 = 3 of
  the hybrid mechanism (in a logarithmic block and a binary node, docs/errata.md#td-hybrid-budget)
  and an arm's second observation in Hybrid-UCB (leaf 1 of tree 1, docs/errata.md#hhm-hybrid-tree).
  The pairs put that reward at the extremes (the whole row 1 vs 0, so whichever arm is pulled
  sees it) on a constant table (0 or 1), at the rounds where the item lands in some runs, with a
  horizon that lets the next decisions read both released nodes;
* DP-SE (Sajed and Sheffet) releases nothing before its first epoch ends: its first data-dependent
  release is after K R_1 rounds, R_1 from :func:`dpbandits.reference.bandit.dp_se.epoch_length`;
  its pairs balance the first elimination on its noise; for the audit of a candidate against
  DP-SE one more puts the exact gap on the threshold (a DP-SE that eliminates on exact means is
  then caught with certainty);
* the lazy-epoch algorithms (:data:`LAZY_EPOCH`; Hu, Huang and Mehta: Anytime-Lazy-UCB, Alg. 1,
  and Lazy-DP-TS, Alg. 3) release each epoch sum once with Lap(1/eps). Anytime-Lazy-UCB's pairs
  change arm 0's epoch 0, the reward of round 1, on a table where the other arms pay 1, so that
  arm 0's next pull is a threshold on its released mean in the Laplace tail; Lazy-DP-TS's
  change a reward of the first epochs (16 pulls) whose shifted mean is not clipped to 1;
  AdaP-KLUCB (Azize and Basu, Alg. 1) likewise, on its first episodes whose clipped mean
  is below 1;
* Private-UCB (:data:`TREE_TIES`; Mishra and Thakurta, Alg. 1) releases every arm's tree after
  each pull, but its relaxation Gamma_t / n_a decides almost every round whose counts differ; only at
  equal counts does Gamma_t / n_a cancel, so that the sign of the difference of the noisy sums
  decides the action. Its pair changes arm 0's leaf 1 (the reward of round 1) on the all-zero
  table, and the ties at 1, 2 and 4 pulls each read the three tree nodes that contain it.

Horizons: ``dpbandits audit ALGO`` audits an algorithm with a design at
:func:`designed_horizon` (for DP-SE the smallest T >= K R_1(beta = 1/T) + 2); ``dpbandits audit
--against ALGO`` (:mod:`dpbandits.validate.privacy`) at the longer of it and the horizon found by
coupling, with the generic candidates beside the designed pairs (a candidate's own bug can sit
outside the design). A horizon given by the caller is used as it is, and a design that does not
fit in it gives no pair.

:func:`action_level_loss` measures what the actions reveal on a pair: the privacy loss of every
whole action sequence, estimated from runs on both tables, with a Clopper-Pearson upper bound, and
the test-sample size an audit with the best event would need to refute a claim.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
from scipy import stats

from ..errors import DPBanditsError, check_epsilon, check_positive_int
from ..reference.environments import Table
from ..reference.registry import canonical, get
from .pairs import Pair

__all__ = ["designed_pairs", "designed_horizon", "release_horizon", "DESIGNED", "DESIGNED_ARMS",
           "designed_selection", "DP_SE_OFFSETS", "LAZY_EPOCH", "lazy_epoch_horizon",
           "TREE_TIES", "tree_ties_horizon",
           "ActionLevelLoss", "action_level_loss", "largest_action_level_loss", "most_revealing",
           "samples_needed"]

DESIGNED: dict[str, dict[str, Any]] = {
    "dp-ucb": {"steps": (3, 5), "after": 5,
               "why": "item 3 of every arm's hybrid counter (DP-UCB inserts every round, so item "
                      "= round) lies in the logarithmic block released at n = 4 and in the binary "
                      "node released at n = 3; rounds 4 and 5 read the two releases"},
    "dp-ucb-bound": {"steps": (3, 5), "after": 5,
                     "why": "with K = 2 the reward of round 5 is item 3 of its arm when rounds 3 "
                            "and 4 split; the radius nu_a is a function of the counts only, so "
                            "the noise decides an action only when the counts tie (rounds 3, 5 "
                            "and 9; the tie at 4 pulls each, round 9, reads the release at n = 4)"},
    "hybrid-ucb": {"steps": (3, 4), "after": 4,
                   "why": "with K = 2 the reward of round 3 is the second observation of its arm: "
                          "leaf 1 of tree 1, in two released tree nodes and one array"},
}
"""Algorithm -> the rounds whose reward the designed pairs change, the rounds after it that the
horizon keeps, and why those rounds."""

DESIGNED_ARMS: dict[str, int] = {"dp-ucb": 2, "dp-ucb-bound": 2, "hybrid-ucb": 2, "dp-se": 2,
                                 "anytime-lazy-ucb": 2, "lazy-dp-ts": 2, "adap-klucb": 2,
                                 "private-ucb": 2}
"""Arms of the designed pairs: the audit's default K for every algorithm with a design
(:func:`designed_pairs` returns pairs for exactly these names)."""


def designed_selection(name: str, samples: int) -> int:
    """Selection runs per side and designed pair for an audit with ``samples`` test runs per
    side. A few designed pairs replace many generic ones, so each gets the selection sample the
    generic candidates would share: whole-sequence events need it to rank the sequences. DP-SE's
    runs are long (its first release after K R_1 rounds): a quarter of that, at least 2000."""
    return max(2000, samples // 4) if canonical(name) == "dp-se" else samples


def release_horizon(name: str, K: int = 2, epsilon: float = 1.0, variant: str | None = None,
                    params: dict[str, Any] | None = None) -> int | None:
    """The horizon at which an audit of ``name`` reaches its first data-dependent releases.

    Hybrid-counter UCBs: the last designed round plus the rounds that read its releases
    (:data:`DESIGNED`). Lazy-epoch algorithms (:data:`LAZY_EPOCH`): K + 1, the first round
    whose action reads the private means released in rounds 1..K (Private-UCB,
    :data:`TREE_TIES`, likewise: round K + 1 reads every arm's tree after its leaf 1). DP-SE: K R_1 + 1, the round after its first epoch's release, with
    R_1 = :func:`~dpbandits.reference.bandit.dp_se.epoch_length` at beta = 1/T (its default),
    solved for the smallest T that reaches it. None when no designed horizon is known.
    """
    name = canonical(name)
    K = check_positive_int(K, "K", minimum=2)
    epsilon = check_epsilon(epsilon)
    params = dict(params or {})
    if name in DESIGNED:
        d = DESIGNED[name]
        return max(d["steps"]) + d["after"]
    if name in LAZY_EPOCH or name in TREE_TIES:
        return K + 1
    if name == "dp-se":
        from ..reference.bandit.dp_se import epoch_length

        T = K + 1
        for _ in range(64):      # T = K R_1(beta = 1/T) + 1 has a fixed point: R_1 grows as ln T
            beta = params.get("beta", 1.0 / T)
            needed = K * int(epoch_length(1, K, epsilon, beta)) + 1
            if needed <= T:
                return T
            T = needed
        raise DPBanditsError("DP-SE's first release horizon did not settle")  # pragma: no cover
    return None


def designed_horizon(name: str, K: int = 2, epsilon: float = 1.0,
                     params: dict[str, Any] | None = None) -> int | None:
    """The horizon of :func:`designed_pairs` when none is given (None: no design): the release
    horizon; for DP-SE the first horizon T that holds two rounds after its first release,
    T >= K R_1(beta = 1/T) + 2; for the lazy-epoch algorithms :func:`lazy_epoch_horizon`; for
    Private-UCB :func:`tree_ties_horizon`."""
    name = canonical(name)
    if name == "dp-se":
        pairs = _dp_se_pairs(check_positive_int(K, "K", minimum=2), check_epsilon(epsilon), None,
                             dict(params or {}))
        return pairs[0].T if pairs else None
    if name in LAZY_EPOCH:
        return lazy_epoch_horizon(name, check_positive_int(K, "K", minimum=2))
    if name in TREE_TIES:
        return tree_ties_horizon(check_positive_int(K, "K", minimum=2))
    return release_horizon(name, K, epsilon) if name in DESIGNED else None


def designed_pairs(name: str, K: int = 2, epsilon: float = 1.0, variant: str | None = None,
                   T: int | None = None, params: dict[str, Any] | None = None,
                   deviations: bool = False) -> list[Pair]:
    """The designed neighbouring pairs of ``name`` (empty when none are designed).

    Each pair is a constant table (all rewards 0, or all 1) whose row at a designed round is all
    ones on D0 and all zeros on D1 (whichever arm is pulled sees a change of 1). ``T`` defaults
    to :func:`designed_horizon`; a given ``T`` too short for a design gives no pairs.
    ``variant`` does not change the tables; it is accepted so that callers name the audited
    configuration in one place. ``params`` are the algorithm's parameters (DP-SE reads
    ``beta``, ``rounding`` and ``order``; the others' designs do not depend on theirs).
    ``deviations=True`` adds the pairs that catch a known deviation of an implementation from
    the reference with certainty (DP-SE: the exact gap on the elimination threshold), for the
    audit of a candidate against ``name`` (:mod:`dpbandits.validate.privacy`); they are weaker
    against the faithful algorithm, so the audit of the reference leaves them out.
    """
    name = canonical(name)
    get(name)
    K = check_positive_int(K, "K", minimum=2)
    epsilon = check_epsilon(epsilon)
    if name == "dp-se":
        return _dp_se_pairs(K, epsilon, T, dict(params or {}), deviations)
    if name in LAZY_EPOCH:
        return _lazy_epoch_pairs(name, K, T)
    if name in TREE_TIES:
        return _tree_ties_pairs(name, K, T)
    if name not in DESIGNED:
        return []
    T = check_positive_int(T or release_horizon(name, K), "T")
    pairs = []
    for step in DESIGNED[name]["steps"]:
        if step > T:
            continue
        for base in (0.0, 1.0):
            X = np.full((T, K), base)
            X[step - 1] = 1.0
            Y = X.copy()
            Y[step - 1] = 0.0
            pairs.append(Pair(Table(X), Table(Y), step,
                              f"designed: rewards {base:g}, round {step} row all 1 vs all 0"))
    return pairs


DP_SE_OFFSETS = (3, 6)
"""Distances, in noise scales 1/(eps R_1), of DP-SE's designed gap below its first elimination
threshold: the elimination then has probability about 0.05 and 0.004 (a difference of two
Laplace variables), where a change of 1/R_1 in one mean moves it most in ratio."""


def _dp_se_pairs(K: int, epsilon: float, T: int | None,
                 params: dict[str, Any] | None = None, deviations: bool = False) -> list[Pair]:
    """DP-SE's first elimination, balanced on its noise: arm 0 pays 1 always; the last arm pays 1
    on a share of its first epoch's pulls that puts the gap between the two released means
    ``offset`` noise scales below the threshold 2 (h_1 + c_1) (Sajed and Sheffet, DP-SE l.8-l.9);
    the other arms pay 0 (eliminated at once). The pair changes the row of round K R_1, the
    epoch's last pull (of the last arm), from all 1 to all 0: a change of 1/R_1 in its mean. The
    horizon keeps two rounds after the release: the second shows whether the last arm was
    eliminated (round K R_1 + 1 pulls arm 0 either way).

    With ``deviations``, a last pair puts the exact gap on the threshold: at or below it on D0, above it on D1 (the
    share of ones is ceil(R_1 (1 - 2 (h_1 + c_1)))). A faithful DP-SE eliminates with nearly
    the same probability on both; one whose first elimination reads the exact means eliminates
    on D1 and keeps on D0, always (the planted bug of ``examples/external/dp_se.py``).
    ``params`` may set DP-SE's ``beta`` (default 1/T) and ``rounding``; an ``order`` other than
    round-robin has no design."""
    from ..reference.bandit.dp_se import elimination_threshold, epoch_length

    params = dict(params or {})
    if params.get("order", "round-robin") != "round-robin":
        return []
    rounding = params.get("rounding", "ceil")

    def beta_at(T: int) -> float:
        return params.get("beta") or 1.0 / T

    if T is None:   # two rounds after the release must fit: T >= K R_1(1/T) + 2 (round K R_1 + 1
        T = release_horizon("dp-se", K, epsilon, params=params) + 1     # pulls arm 0 whether or
        while K * int(epoch_length(1, K, epsilon, beta_at(T), rounding)) + 2 > T:  # not the last
            T += 1                                                             # arm was eliminated)
    beta = beta_at(T)
    R1 = int(epoch_length(1, K, epsilon, beta, rounding))
    last = K * R1                       # the epoch's last pull, of arm K - 1 (round-robin)
    if last + 2 > T:
        return []
    threshold = float(elimination_threshold(1, K, R1, epsilon, beta))
    pairs = []
    for offset in (*DP_SE_OFFSETS, *((None,) if deviations else ())):
        if offset is None:              # on the threshold: kept on D0, eliminated on D1 (exact)
            ones = math.ceil(R1 * (1.0 - threshold))
        else:
            ones = int(round(R1 * (1.0 - (threshold - offset / (epsilon * R1)))))
        if not 1 <= ones <= R1:
            continue
        X = np.zeros((T, K))
        X[:, 0] = 1.0
        pulls = np.arange(K, last + 1, K) - 1          # rows of the last arm's pulls in epoch 1
        X[pulls[:ones - 1], K - 1] = 1.0
        X[last - 1] = 1.0
        Y = X.copy()
        Y[last - 1] = 0.0
        where = ("exact gap on the threshold" if offset is None
                 else f"gap {offset} noise scales below the threshold")
        pairs.append(Pair(Table(X), Table(Y), last,
                          f"designed: first elimination, {where}, round {last} row all 1 vs "
                          f"all 0"))
    return pairs


LAZY_EPOCH: dict[str, dict[str, Any]] = {
    "anytime-lazy-ucb": {
        "steps": (1,), "arm0": (0.0, 1.0), "others": 1.0, "horizon": None,
        "why": "arm 0's epoch 0 is the reward of round 1, released at once as mu~_0 = X + "
               "Lap(1/eps) (Alg. 1 l.2); arms 1..K-1 pay 1, so the first doubled epoch of the "
               "winner of round K + 1 releases a mean near 1 with half the noise (l.6-l.7) and "
               "its smaller bonus (l.4) puts arm 0's next pull at a threshold on mu~_0 below 0: "
               "an event of exact ratio e^eps in the Laplace tail"},
    "lazy-dp-ts": {
        "steps": (32, 36, 48), "arm0": (0.0,), "others": 1.0, "horizon": 96,
        "why": "the shifted mean Clip(mu~_j + 3 ln t / (eps O_j)) (Alg. 3 l.4) is 1 for every "
               "arm, and the Beta draws data-independent, until an epoch is long enough that "
               "the shift falls below 1 - mu~_j: with K = 2 both arms are pulled alike until "
               "about round 32 and then fill their epochs of 16 pulls (rounds 32 to 48 hold "
               "pulls 16 to 24 of each arm); arm 0 pays 0, so its epoch-16 mean (moved by 1/16 "
               "by the changed reward) is released unclipped near round 64 and read by every "
               "Beta draw up to T = 96; arm 1 pays 1 and stays clipped"},
    "adap-klucb": {
        "steps": (16, 32), "arm0": (0.0,), "others": 0.0, "horizon": 64,
        "why": "the KL index reads Clip(mu~_a + alpha ln t / (eps n_a)) (Azize and Basu, the "
               "AdaP-KLUCB index beside eq. (7)), which is 1 for both arms, so that the choices "
               "are ties broken at random, until an episode of n_a > alpha ln t samples ends: "
               "with alpha = 3.1 and t <= 64 the episodes of 16 samples; on the all-zero table "
               "rounds 16 and 32 fall in the episodes of 8 and 16 samples, whose means (moved "
               "by 1/n_a) are the first released unclipped, and the next episode choices read "
               "them up to T = 64"},
}
"""Lazy-epoch algorithms -> the designed rounds, the rewards of arm 0 on the other rounds (one
pair per round and value), the rewards of every other arm, the horizon (None:
:func:`lazy_epoch_horizon`'s K + 6), and why. The designed row is all 1 on D0 and all 0 on D1."""


def lazy_epoch_horizon(name: str, K: int) -> int:
    """The designed horizon of a lazy-epoch algorithm with K arms. Anytime-Lazy-UCB: rounds
    1..K release every arm's epoch 0; the winner of round K + 1 plays its epoch 1 (2 pulls,
    released after round K + 2), and the audit keeps the 4 rounds after it (the loser's epoch 1
    and the first round that reads both epoch-1 means), T = K + 6 (8 for K = 2). Lazy-DP-TS:
    the fixed horizon of :data:`LAZY_EPOCH` (96, designed for K = 2)."""
    horizon = LAZY_EPOCH[canonical(name)]["horizon"]
    return K + 6 if horizon is None else horizon


def _lazy_epoch_pairs(name: str, K: int, T: int | None) -> list[Pair]:
    """Arms 1..K-1 pay ``others`` on every round, arm 0 pays ``arm0`` (one pair per value and
    designed round); the pair changes the row of a designed round from all 1 to all 0 (for
    Anytime-Lazy-UCB round 1: arm 0's epoch 0, a single reward)."""
    design = LAZY_EPOCH[name]
    T = check_positive_int(T or lazy_epoch_horizon(name, K), "T")
    pairs, others = [], "arm 1 pays" if K == 2 else f"arms 1..{K - 1} pay"
    for step, arm0 in ((s, a) for s in design["steps"] for a in design["arm0"]):
        if T <= max(K, step):        # nothing reads the release
            continue
        X = np.full((T, K), design["others"])
        X[:, 0] = arm0
        X[step - 1] = 1.0
        Y = X.copy()
        Y[step - 1] = 0.0
        pairs.append(Pair(Table(X), Table(Y), step,
                          f"designed: arm 0 pays {arm0:g}, {others} {design['others']:g}, "
                          f"round {step} row all "
                          f"1 vs all 0"))
    return pairs


TREE_TIES: dict[str, dict[str, Any]] = {
    "private-ucb": {
        "steps": (1,), "base": 0.0, "cycles": 6,
        "why": "the index r_a/n_a + sqrt(2 ln t / n_a) + Gamma_t/n_a (Alg. 1 l.8) is decided by "
               "Gamma_t/n_a (Gamma_t from 105 to 173 at K = 2, T = 12) when the counts differ, "
               "in all but 0.07% of runs at round 4 and 1% to 14% at rounds 5 to 12, so the "
               "arm with fewer pulls is played; at equal counts n (rounds n K + 1) "
               "Gamma_t/n and the square root cancel and the action is the sign of the "
               "difference of the noisy sums, a threshold at the centre of the trees' noise. "
               "The reward of round 1 is leaf 1 of arm 0's tree (l.4), in the nodes [1], [1, 2] "
               "and [1, 4] that the ties at 1, 2 and 4 pulls each read alone, one node per tree "
               "(3 of the bit_length(T) = 4 levels for T <= 15: the accountant's 3/4 of "
               "eps/K = 0.375 at K = 2); on the all-zero table the sums of both arms are equal "
               "but for that reward"},
}
"""Tree-counter UCBs whose confidence relaxation leaves the noise a say only at equal pull
counts -> the designed rounds, the reward of every other cell, the horizon in cycles of K rounds
(:func:`tree_ties_horizon`) and why. The designed row is all 1 on D0 and all 0 on D1."""


def tree_ties_horizon(K: int, name: str = "private-ucb") -> int:
    """Private-UCB's designed horizon, ``cycles`` K = 6 K rounds (12 at K = 2): the ties after
    1 to 5 pulls each (rounds n K + 1) and the rounds that complete the fifth cycle. At K = 2,
    12 rounds keep the trees at bit_length(12) = 4 levels (node scale 8; 16 rounds would add a
    level and scale 10) and hold the tie at 4 pulls each (round 9), the last that reads a new
    node containing leaf 1 before 8 pulls; of the horizons 10 to 15, 12 gave the largest mean
    bound over ten seeds at 20 000 test runs per side (docs/audit-design.md)."""
    return TREE_TIES[canonical(name)]["cycles"] * check_positive_int(K, "K", minimum=2)


def _tree_ties_pairs(name: str, K: int, T: int | None) -> list[Pair]:
    """Every cell pays ``base``; the pair changes the row of a designed round from all 1 to all
    0 (round 1: arm 0's leaf 1)."""
    design = TREE_TIES[name]
    T = check_positive_int(T or tree_ties_horizon(K, name), "T")
    pairs = []
    for step in design["steps"]:
        if T <= K + step:            # no tie reads the changed leaf
            continue
        X = np.full((T, K), design["base"])
        X[step - 1] = 1.0
        Y = X.copy()
        Y[step - 1] = 0.0
        pairs.append(Pair(Table(X), Table(Y), step,
                          f"designed: rewards {design['base']:g}, round {step} row all 1 vs all "
                          f"0 (arm 0's leaf 1, read at equal counts)"))
    return pairs


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
