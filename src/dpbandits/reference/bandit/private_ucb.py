"""Private-UCB: UCB on per-arm tree-mechanism sums with a privacy "confidence relaxation".

Citation: N. Mishra and A. Thakurta. *(Nearly) Optimal Differentially Private Stochastic
Multi-Arm Bandits.* UAI 2015, Algorithm 1 ("Differentially Private UCB Sampling"), Lemma 5,
Theorem 4. Used as the baseline "Private-UCB" by Tossou and Dimitrakakis (AAAI 2016,
arXiv:1511.08681), with "a failure probability chosen to be t^-4". The
algorithm box is transcribed from a secondary reproduction, not from the UAI paper.

Pseudocode (Mishra & Thakurta's Algorithm 1 as transcribed; ``l.N`` counts its statements)::

    l.1   input: horizon T, arms 1..K, privacy eps, failure probability gamma
    l.2   eps0 <- eps / K
    l.3   one empty tree per arm (tree-based aggregation, T leaves), each eps0-DP
    l.4   for t = 1..K: pull arm t; insert r_t into Tree_t; n_t <- 1
    l.5   Gamma <- K log^2(T) log(K T log(T) / gamma) / eps           ("confidence relaxation")
    l.6   for t = K+1..T:
    l.7       r_a(t) <- private total reward of arm a from Tree_a, for all a
    l.8       pull a* = argmax_a r_a(t)/n_a + sqrt(2 log t / n_a) + Gamma/n_a; observe r_t
    l.9       n_{a*} <- n_{a*} + 1; insert r_t into Tree_{a*}

Each tree is Chan, Shi and Song's binary mechanism with horizon T
(:class:`~dpbandits.reference.mechanisms.BinaryCounter`): floor(log2 T) + 1 levels, node scale
(floor(log2 T) + 1) / eps0, one Laplace draw per insertion. A tree receives only its arm's
rewards, so its leaf index is the arm's pull count.

Privacy claim (Mishra and Thakurta: composing the K trees): epsilon-DP for the whole action
sequence. Under the replacement of one reward (relation ROW) a changed reward enters one tree
only, so by parallel composition the algorithm is eps0 = eps/K-DP: the claim holds with a
factor K to spare (Mishra & Thakurta 2015), which handicaps the baseline. Gamma depends on t, T,
K and eps only, so the index is post-processing of the trees' releases.

Regret (Theorem 4): O(sum_{a: mu_a < mu*} K log^2 T log(K T / gamma) / (eps Delta_a) + Delta_a);
Lemma 5: with probability >= 1 - gamma every private total is within Gamma of the true total.

Deviations:
1. gamma (docs/errata.md#td-private-ucb): ``gamma_rule="t"`` (default) reads Tossou and Dimitrakakis'
   "failure probability t^-4" as gamma = t^-4 at step t, so Gamma_t is recomputed every step;
   ``gamma_rule="T"`` is Mishra and Thakurta's fixed gamma, at T^-4. Both are data-independent.
2. Logs (Mishra & Thakurta 2015): natural logs throughout by default; ``depth_log="log2"`` uses
   log2 T for the log^2 T factor (the tree depth).
3. Ties go to the lowest arm by default (docs/errata.md#td-ties; probability 0 under Laplace noise).
"""

from __future__ import annotations

import math

import numpy as np

from ...errors import DPBanditsError, check_epsilon, check_positive_int
from ..declarations import TreeTies
from ..mechanisms import BinaryCounter
from ..policy import PolicyBase
from ..privacy import Guarantee, PrivacyClaim, Variant

__all__ = ["PrivateUCB", "GAMMA_RULES", "DEPTH_LOGS", "confidence_relaxation"]

GAMMA_RULES = ("t", "T")
DEPTH_LOGS = ("ln", "log2")


def confidence_relaxation(K: int, T: int, epsilon: float, t: int, *, gamma_rule: str = "t",
                          depth_log: str = "ln") -> float:
    """Gamma_t = K log^2(T) ln(K T ln(T) / gamma) / eps (Alg. 1 l.5), gamma = t^-4 or T^-4.

    ``gamma_rule="t"``: gamma = t^-4 at step t; ``"T"``: gamma = T^-4 (then Gamma_t = Gamma_T for
    every t). ``depth_log`` is the log of the log^2 T factor: ``"ln"`` or ``"log2"``. The log of
    the ratio is taken as ln(K T ln T) + 4 ln(t or T), so no t^4 is formed.
    """
    K = check_positive_int(K, "K", minimum=2)
    T = check_positive_int(T, "T", minimum=2)
    epsilon = check_epsilon(epsilon)
    t = check_positive_int(t, "t")
    if t > T:
        raise DPBanditsError(f"t must be a round in 1..T = {T}, got {t}")
    if gamma_rule not in GAMMA_RULES:
        raise DPBanditsError(f"gamma_rule must be one of {GAMMA_RULES}, got {gamma_rule!r}")
    if depth_log not in DEPTH_LOGS:
        raise DPBanditsError(f"depth_log must be one of {DEPTH_LOGS}, got {depth_log!r}")
    depth = math.log(T) if depth_log == "ln" else math.log2(T)
    log_inv_gamma = 4.0 * math.log(t if gamma_rule == "t" else T)
    return K * depth ** 2 * (math.log(K * T * math.log(T)) + log_inv_gamma) / epsilon


class PrivateUCB(PolicyBase):
    """Private-UCB of Mishra and Thakurta (UAI 2015), batch-first; needs the horizon T."""

    name = "private-ucb"
    title = "Private-UCB"
    paper = "Mishra & Thakurta (UAI 2015), Alg. 1; baseline of Tossou & Dimitrakakis (AAAI 2016)"
    needs_horizon = True
    variants = (Variant("paper", "as published: one tree per arm at eps/K, Gamma relaxation"),)
    default_variant = "paper"

    kernel = "private_ucb"
    audit_design = TreeTies(
        steps=(1,), base=0.0, cycles=6,
        why="the index r_a/n_a + sqrt(2 ln t / n_a) + Gamma_t/n_a (Alg. 1 l.8) is decided by "
            "Gamma_t/n_a (Gamma_t from 105 to 173 at K = 2, T = 12) when the counts differ, "
            "in all but 0.07% of runs at round 4 and 1% to 14% at rounds 5 to 12, so the "
            "arm with fewer pulls is played; at equal counts n (rounds n K + 1) "
            "Gamma_t/n and the square root cancel and the action is the sign of the "
            "difference of the noisy sums, a threshold at the centre of the trees' noise. "
            "The reward of round 1 is leaf 1 of arm 0's tree (l.4), in the nodes [1], [1, 2] "
            "and [1, 4] that the ties at 1, 2 and 4 pulls each read alone, one node per tree "
            "(3 of the bit_length(T) = 4 levels for T <= 15: the accountant's 3/4 of "
            "eps/K = 0.375 at K = 2); on the all-zero table the sums of both arms are equal "
            "but for that reward. The horizon, 6 K rounds (12 at K = 2), holds the ties after 1 "
            "to 5 pulls each and keeps the trees at 4 levels; of the horizons 10 to 15, 12 gave "
            "the largest mean bound over ten seeds at 20 000 test runs per side "
            "(docs/audit-design.md)")
    white_box_statistic = "trees.value"
    planted_parts = {
        "noise scale alone x 1/2 (the trees' node scale; Gamma_t unchanged)":
            ("noise scale", {"trees.scale": 0.5}),
        "bonus alone: Gamma_t x 1/2 (eps x 2 in l.5; the trees' noise unchanged)":
            ("bonus", {"epsilon": 2.0}),
    }
    """Planted variants that change one part (what ``validate`` runs to state its power):
    epsilon x 2 moves the trees' noise and the relaxation Gamma_t together; the trees fix their
    scale when built, so eps x 2 afterwards moves Gamma_t alone, and the trees' scale x 1/2 the
    noise alone; ``planted_changes`` moves the radius sqrt(2 ln t / n_a) alone."""
    planted_changes = {"confidence radius sqrt(3 ln t / n_a) for sqrt(2 ln t / n_a) (Gamma_t "
                       "and noise unchanged)": {"radius_scale": math.sqrt(1.5)}}

    def __init__(self, K: int, *, epsilon: float, T: int, runs: int = 1, rng,
                 variant: str | None = None, tie_break: str = "first", gamma_rule: str = "t",
                 depth_log: str = "ln") -> None:
        super().__init__(K, runs=runs, rng=rng, epsilon=epsilon, variant=variant,
                         tie_break=tie_break)
        # T: the horizon (Alg. 1 input), checked unless registry.check_arguments did
        self.T = T if self._arguments_checked else check_positive_int(T, "T")
        self.gamma_rule = gamma_rule
        self.depth_log = depth_log
        self.epsilon0 = self.epsilon / self.K                                  # [Alg.1 l.2]
        # Tree_a: the arm's rewards in pull order; n_a is its insertion count.
        self.trees = BinaryCounter((self.runs, self.K), self.epsilon0, self.T,
                                   self.rng)                                   # [Alg.1 l.3]

    @property
    def n(self) -> np.ndarray:
        """n_a: pulls of arm a so far (the insertion count of Tree_a), shape (runs, K)."""
        return self.trees.count

    @property
    def claim(self) -> PrivacyClaim:
        claimed = Guarantee(self.epsilon)
        return PrivacyClaim(claimed, Guarantee(self.epsilon0), "holds",
                            "Mishra & Thakurta (UAI 2015), Alg. 1: K trees at eps/K each",
                            "a changed reward enters one arm's tree only (parallel "
                            "composition), so the algorithm is eps/K-DP, stronger than claimed")

    def Gamma(self, t: int) -> float:
        """Gamma_t, the confidence relaxation of step t (l.5; deviations 1 and 2)."""
        return confidence_relaxation(self.K, self.T, self.epsilon, t,
                                     gamma_rule=self.gamma_rule, depth_log=self.depth_log)

    # --8<-- [start:index-act-observe]
    def index(self, t: int) -> np.ndarray:
        """r_a(t)/n_a + sqrt(2 ln t / n_a) + Gamma_t/n_a for every run and arm (l.8)."""
        n = self.n.astype(float)
        r = self.trees.value                                                   # [Alg.1 l.7]
        return r / n + self.radius_scale * np.sqrt(2.0 * math.log(t) / n) + self.Gamma(t) / n

    def act(self, t: int) -> np.ndarray:
        if t > self.T:
            raise DPBanditsError(f"{self.name} was built for horizon T = {self.T}; "
                                 f"got round t = {t}")
        if t <= self.K:
            return np.full(self.runs, t - 1)                                   # [Alg.1 l.4]
        return self.argmax(self.index(t))                                      # [Alg.1 l.8]

    def observe(self, t: int, actions: np.ndarray, feedback: np.ndarray) -> None:
        r = self.check_observation(t, actions, feedback)
        self.trees.insert((self._rows, actions), r)                            # [Alg.1 l.4, l.9]
    # --8<-- [end:index-act-observe]
