"""AdaP-KLUCB: KL-UCB on a private mean of each arm's last episode, with per-arm doubling episodes.

Citation: A. Azize, D. Basu. *When Privacy Meets Partial Information: A Refined Analysis of
Differentially Private Bandits.* NeurIPS 2022, arXiv:2209.02570. Algorithm 1 (the framework),
eq. (7) (the AdaP-UCB index) and the AdaP-KLUCB index beside it. It is the experimental baseline
of Hu, Huang, Mehta and Hegde (arXiv:2102.07929v3, section 6), which miscites it as "Asi et al.
(2022)" (docs/errata.md#hj-adap-citation).

Pseudocode (Algorithm 1, the paper's line numbers)::

    l.1  input: privacy budget eps, K arms, alpha > 3
    l.3  initialisation: choose each arm once (rounds 1..K); t <- K
    l.4  for l = 1, 2, ...:
    l.5      t_l <- t + 1
    l.6      A_l <- argmax_a I_a(t_l - 1, alpha)
    l.7      choose A_l until the round t at which N_{A_l}(t) = 2 N_{A_l}(t_l - 1)

An arm's episodes have sizes 1 (its initial pull), then N_a at each choice: 1, 2, 4, ...
Each arm keeps only its last episode (of n_a samples, n_a = N_a / 2 after its first episode):

    mu~_a   = mean of the last episode + Lap(1 / (eps n_a))
    AdaP-KLUCB (``index="kl"``):
        I_a = max{q in [0, 1] : kl(Clip_[0,1](mu~_a + alpha ln(t_l) / (eps n_a)), q)
                                <= alpha ln(t_l) / n_a}
    AdaP-UCB, eq. (7) (``index="ucb"``):
        I_a = mu~_a + sqrt(alpha ln(2 t_l) / (2 n_a)) + alpha ln(t_l) / (eps n_a)

with kl(p, q) = p ln(p/q) + (1 - p) ln((1 - p)/(1 - q)) the Bernoulli relative entropy.

Privacy claim (Lemma 1 and Theorem 6; Theorems 7-8 for the two indexes): epsilon-DP for the
whole action sequence under the replacement of one reward vector (relation ROW). True: the vector
of round t is seen only through the pulled arm's reward, which enters exactly one episode mean
(sensitivity 1/n_a), released once with Lap(1/(eps n_a)) (an episode is an epoch of the shared
lazy-epoch release, :func:`~dpbandits.reference.mechanisms.release_epoch`, on means); episodes
are disjoint and their
boundaries depend only on past actions; the indexes read only the releases (post-processing).
An episode cut short by the horizon releases nothing.

Regret (Theorems 7 and 8, Azize & Basu 2022): AdaP-UCB
sum_a (16 alpha log T / min{Delta_a, eps} + alpha / (alpha - 3)); AdaP-KLUCB, Bernoulli rewards,
sum_a (C_1(alpha) Delta_a log T / min{d_inf(mu_a, mu*), C_2 eps Delta_a} + alpha / (alpha - 3)).

Deviations:
1. n_a after initialisation. The paper writes every n_a as N_a(t_l - 1) / 2, which is 0.5 while
   the last episode is the single initial pull (noise Lap(2/eps), doubled bonuses). By default
   (``init_episode_size=1``) n_a is the true episode size 1 there: Lap(1/eps) matches a
   one-sample mean's sensitivity. ``init_episode_size=0.5`` is the literal formula. From an arm's first episode on both readings agree.
2. "log" is the natural log (Azize & Basu): Example 2 calls the index a bound "with
   confidence t^-alpha", which with the KL in nats needs alpha ln t.
3. Ties go to a uniformly random arm by default (docs/errata.md#hj-ties): unlike the other indexes, the KL
   index saturates at 1 (a clipped mean of 1), so exact ties are frequent early, and lowest-arm
   ties would favour the optimal arm of the papers' settings. ``tie_break="first"`` is offered.
4. The private mean of an episode is drawn once, when the episode ends, and reused by every
   index until the arm's next episode ends; Lemma 1 releases each episode's mean once. The draws
   come from one stream in run order, not from noise indexed by the slot (arm, episode): same law.
5. The KL index is computed by bisection on q in [p, 1], 60 halvings (interval width 2^-60,
   below machine precision), returning the end whose computed kl(p, q) is at most d. kl is
   evaluated with log1p in q - p, which keeps it accurate where its two terms nearly cancel.
6. Rewards in [0, 1] are used as they come; Theorem 8 is stated for Bernoulli rewards (the
   privacy proof needs only rewards in [0, 1]).
7. Sources relied on, since the journal version prints no pseudocode: the text of Azize and
   Basu's submitted (anonymous) version: Algorithm 1, eq. (7), the AdaP-KLUCB index beside it,
   Example 2, and alpha = 3.1 (with beta = 1/T for DP-SE) in its experiments. It states the
   private mean as the episode mean plus Lap(2/(eps N_a(t_l - 1))), i.e. n_a = N_a / 2 (deviation
   1), and otherwise matches the pseudocode on docs/algorithms/adap-klucb.md. The published version was not compared.
"""

from __future__ import annotations

import math

import numpy as np

from ...errors import DPBanditsError
from ..declarations import LazyEpoch
from ..mechanisms import release_epoch
from ..noise import decision, laplace, release
from ..policy import PolicyBase
from ..privacy import Guarantee, PrivacyClaim, Variant
from ..domains import Interval

__all__ = ["AdaPKLUCB", "INDEXES", "INIT_EPISODE_SIZES", "bernoulli_kl", "kl_ucb_index"]

INDEXES = ("kl", "ucb")
"""Optimistic indexes: AdaP-KLUCB (``kl``) or AdaP-UCB, eq. (7) (``ucb``)."""

INIT_EPISODE_SIZES = (1.0, 0.5)
"""n_a right after the initial pull: the true size 1, or the paper's literal N_a / 2 = 0.5."""

_BISECTION_STEPS = 60
_SOURCE = "Azize & Basu (NeurIPS 2022, arXiv:2209.02570), Lemma 1 and Theorem 6"


def bernoulli_kl(p, q) -> np.ndarray:
    """kl(p, q) = p ln(p/q) + (1-p) ln((1-p)/(1-q)) for p, q in [0, 1], with 0 ln 0 = 0.

    +inf where q puts no mass on an outcome p does (q = 0 < p or q = 1 > p). Written with
    log1p in the gap x = q - p, so that near q = p, where the two terms nearly cancel, the
    result keeps its relative accuracy (the KL index needs it for small d).
    """
    p = np.asarray(p, dtype=float)
    q = np.asarray(q, dtype=float)
    x = q - p
    has_one = p > 0.0
    has_zero = p < 1.0
    with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
        ratio = x / np.where(has_one, p, 1.0)
        # x / p overflows only for subnormal p; there p ln(p/q) is computed directly (q > 0).
        ones = np.where(np.isfinite(ratio), -p * np.log1p(ratio), p * (np.log(p) - np.log(q)))
        zeros = -(1.0 - p) * np.log1p(-x / np.where(has_zero, 1.0 - p, 1.0))
    return np.where(has_one, ones, 0.0) + np.where(has_zero, zeros, 0.0)


def kl_ucb_index(p, d) -> np.ndarray:
    """max{q in [p, 1] : kl(p, q) <= d} for p in [0, 1] and d >= 0, elementwise.

    kl(p, .) is 0 at p and increasing on [p, 1], so the set is an interval [p, q*] and bisection
    finds q* (of the computed kl): the result lies in [q* - 2^-60, q*] and satisfies
    kl(p, result) <= d.
    """
    p = np.asarray(p, dtype=float)
    d = np.asarray(d, dtype=float)
    low = np.broadcast_to(p, np.broadcast(p, d).shape).copy()
    high = np.ones_like(low)
    for _ in range(_BISECTION_STEPS):
        mid = 0.5 * (low + high)
        inside = bernoulli_kl(p, mid) <= d
        low = np.where(inside, mid, low)
        high = np.where(inside, high, mid)
    return low


class AdaPKLUCB(PolicyBase):
    """AdaP-KLUCB (and AdaP-UCB) of Azize and Basu, batch-first.

    Each run commits to one arm per episode, so the episode state is one value per run.
    """

    name = "adap-klucb"
    title = "AdaP-KLUCB"
    paper = "Azize & Basu (NeurIPS 2022, arXiv:2209.02570), Alg. 1 with the KL-UCB index"
    variants = (Variant("paper", "Algorithm 1 with the KL-UCB (or eq. (7)) index; no erratum"),)

    kernel = "adap_klucb"
    audit_design = LazyEpoch(
        steps=(16, 32), arm0=(0.0,), others=0.0, horizon=64,
        why="the KL index reads Clip(mu~_a + alpha ln t / (eps n_a)) (Azize and Basu, the "
            "AdaP-KLUCB index beside eq. (7)), which is 1 for both arms, so that the choices "
            "are ties broken at random, until an episode of n_a > alpha ln t samples ends: "
            "with alpha = 3.1 and t <= 64 the episodes of 16 samples; on the all-zero table "
            "rounds 16 and 32 fall in the episodes of 8 and 16 samples, whose means (moved "
            "by 1/n_a) are the first released unclipped, and the next episode choices read "
            "them up to T = 64")
    white_box_statistic = "mu_tilde"
    parameter_domains = {"alpha": Interval(3, None)}
    planted_parts = {
        "noise scale alone x 1/2 (every Laplace draw at half its scale; index unchanged)":
            ("noise scale", {"rng": 0.5}),
        "bonus alone: the privacy shift alpha ln t / (eps n_a) x 1/2 (eps x 2 in the index; "
        "noise unchanged)": ("bonus", {"epsilon": 2.0, "rng": 2.0}),
    }
    """Planted variants that change one part (what ``validate`` runs to state its power):
    epsilon x 2 moves the noise Lap(1/(eps n_a)) and the index's alpha ln t / (eps n_a)
    together; these scale the Laplace draws alone, or double eps and the draws' scale so that
    only the index's privacy shift moves; ``planted_changes`` moves the confidence radius alone
    (the KL ball's level alpha ln t / n_a, or with ``index=ucb`` the radius of eq. (7)). The
    episode schedule (each episode doubles N_a) has no factor to plant."""
    planted_changes = {"confidence radius: the KL ball's level alpha ln t / n_a x 1/2 (with "
                       "index=ucb the radius x 1/sqrt(2); shift and noise unchanged)":
                       {"radius_scale": math.sqrt(0.5)}}

    def __init__(self, K: int, *, epsilon: float, runs: int = 1, rng, variant: str | None = None,
                 tie_break: str = "random", alpha: float = 3.1, index: str = "kl",
                 init_episode_size: float = 1.0) -> None:
        super().__init__(K, runs=runs, rng=rng, epsilon=epsilon, variant=variant,
                         tie_break=tie_break)
        self.alpha = float(alpha)             # alpha: the exploration parameter (l.1, > 3)
        self.index_kind = index
        self.init_episode_size = float(init_episode_size)
        shape = (self.runs, self.K)
        self.N = np.zeros(shape, np.int64)    # N_a: pulls of arm a so far
        self.n = np.ones(shape)               # n_a: size of a's last finished episode
        self.mu_tilde = np.zeros(shape)       # mu~_a: private mean of that episode
        self.arm = np.zeros(self.runs, np.int64)       # A_l: the arm of the current episode
        self.length = np.zeros(self.runs, np.int64)    # its length N_{A_l}(t_l - 1)
        self.left = np.zeros(self.runs, np.int64)      # its pulls still to make
        self.total = np.zeros(self.runs)               # its reward sum so far

    @property
    def claim(self) -> PrivacyClaim:
        guarantee = Guarantee(self.epsilon)
        return PrivacyClaim(guarantee, guarantee, "holds", _SOURCE,
                            "each reward enters one episode mean (sensitivity 1/n_a), released "
                            "once with Lap(1/(eps n_a)); with init_episode_size=0.5 the initial "
                            "pull gets Lap(2/eps), which only adds privacy")

    # --8<-- [start:index-act-observe]
    def index(self, t: int, rows: np.ndarray | None = None) -> np.ndarray:
        """I_a(t_l - 1, alpha) with t_l = t for the runs ``rows`` (default all); shape (m, K)."""
        rows = self._rows if rows is None else rows
        mu, n = self.mu_tilde[rows], self.n[rows]
        log_t = math.log(t)
        if self.index_kind == "ucb":                                             # eq. (7)
            return (mu + self.radius_scale * np.sqrt(self.alpha * math.log(2 * t) / (2.0 * n))
                    + self.alpha * log_t / (self.epsilon * n))
        shifted = np.clip(mu + self.alpha * log_t / (self.epsilon * n), 0.0, 1.0)
        # the KL ball's level; its radius grows as the level's square root (Pinsker)
        return kl_ucb_index(shifted, self.radius_scale ** 2 * self.alpha * log_t / n)

    def act(self, t: int) -> np.ndarray:
        if t <= self.K:
            return np.full(self.runs, t - 1)                                     # [Alg.1 l.3]
        start = np.flatnonzero(decision(self.left) == 0)   # a count, never rewards  [Alg.1 l.5]
        if start.size:
            chosen = self.argmax(self.index(t, start))                           # [Alg.1 l.6]
            length = self.N[start, chosen]
            self.arm[start] = chosen                                             # [Alg.1 l.7]
            self.length[start] = length
            self.left[start] = length
            self.total[start] = 0.0
        return self.arm.copy()

    def observe(self, t: int, actions: np.ndarray, feedback: np.ndarray) -> None:
        x = self.check_observation(t, actions, feedback)
        rows = self._rows
        if t <= self.K:
            n0 = self.init_episode_size                                          # deviation 1
            self.N[rows, actions] = 1                                            # [Alg.1 l.3]
            self.n[rows, actions] = n0
            L = laplace(self.rng, 1.0 / (self.epsilon * n0), self.runs)
            self.mu_tilde[rows, actions] = release(x, L)
            return
        if not np.array_equal(actions, self.arm):
            raise DPBanditsError(f"actions at round t = {t} are not the ones AdaP-KLUCB chose")
        self.N[rows, actions] += 1                                               # [Alg.1 l.7]
        self.total += x
        self.left -= 1
        ended = np.flatnonzero(decision(self.left) == 0)   # the episode of [Alg.1 l.7] ends
        if ended.size:
            j, n = self.arm[ended], self.length[ended].astype(float)
            self.mu_tilde[ended, j] = release_epoch(self.rng, self.total, ended,    # Lemma 1
                                                    1.0 / (self.epsilon * n), length=n)
            self.n[ended, j] = n
    # --8<-- [end:index-act-observe]
