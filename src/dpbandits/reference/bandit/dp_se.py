"""DP-SE: differentially private Successive Elimination, with epochs synchronised across arms.

Citation: T. Sajed, O. Sheffet. *An Optimal Private Stochastic-MAB Algorithm Based on an Optimal
Private Stopping Rule.* ICML 2019 (PMLR 97:5579-5588), arXiv:1905.09383. It is the experimental
baseline of Hu, Huang and Mehta (arXiv:2102.07929, section 6) and of the journal version with
N. Hegde (arXiv:2102.07929v3, section 6), both with beta = 1/T. Neither paper prints the
algorithm: this module follows Sajed and Sheffet's description, reconstructed in
docs/algorithms/dp-se.md.

Pseudocode (as reconstructed; ``l.N`` numbers its statements in order; ``e`` is the epoch
index, not Euler's number, and ``|S|`` is the size of S before the epoch's elimination)::

    l.1   input: K arms, eps, confidence beta (default 1/T), horizon T
    l.2   S <- [K]; e <- 0
    l.3   while |S| > 1 and rounds remain:
    l.4       e <- e + 1; Delta_e <- 2^-e
    l.5       R_e <- ceil(max{32 ln(8|S|e^2/beta) / Delta_e^2, 8 ln(4|S|e^2/beta) / (eps Delta_e)})
    l.6       reset the epoch sums; pull every arm of S exactly R_e times
    l.7       for a in S: mu~_a <- (sum of a's R_e rewards of epoch e) / R_e + Lap(1/(eps R_e))
    l.8       h_e <- sqrt(ln(8|S|e^2/beta) / (2 R_e));  c_e <- ln(4|S|e^2/beta) / (R_e eps)
    l.9       S <- {a in S : max_{a' in S} mu~_a' - mu~_a <= 2 (h_e + c_e)}
    l.10  pull the remaining arm until T

Privacy claim (Sajed and Sheffet): epsilon-DP for the whole action
sequence under the replacement of one reward vector (relation ROW). True: the vector of round t
is seen only through the pulled arm's reward, which enters one epoch mean of one arm
(sensitivity 1/R_e), released once with Lap(1/(eps R_e)) (the shared lazy-epoch release,
:func:`~dpbandits.reference.mechanisms.release_epoch`, on means); the epoch means of different
arms and epochs are over disjoint rewards, the schedule (R_e, the pull order) depends only on
earlier releases, and the eliminations read only the releases (post-processing). An epoch cut
short by the horizon releases nothing.

Confidence (used by the tests): with probability at least 1 - beta pi^2/12 > 1 - beta, every
released mean of every epoch lies within h_e + c_e of its arm's true mean (Hoeffding gives
beta/(4|S|e^2) per arm and epoch, the exact Laplace tail the same), and on that event the best
arm is never eliminated. R_e makes h_e <= Delta_e/8 and c_e <= Delta_e/8.

Regret (Sajed and Sheffet): O(sum_{a: Delta_a > 0} log T / Delta_a + K log T / eps), and
O(sqrt(K T log T) + K log T / eps) independent of the instance (their Theorem 4.4).

Deviations:
1. Sajed and Sheffet's own pseudocode could not be retrieved; the constants (the two terms of
   R_e, the noise Lap(1/(eps R_e)), the threshold 2(h_e + c_e) and |S| as the pre-elimination
   size) are our reconstruction (docs/algorithms/dp-se.md). One public implementation uses the same constants.
2. ``rounding="ceil"`` (default) is R_e as reconstructed. Public implementations write l.5 as
   R_e <- max{...} + 1 and round that real number in two ways: ``rounding="plus-one"`` pulls
   int(max{...} + 1) = floor(max{...}) + 1 times, which differs from the ceiling only when the
   maximum is an integer; ``rounding="ceil-plus-one"`` pulls ceil(max{...} + 1) = ceil(max{...}) + 1
   times, one pull per arm more than the ceiling in every epoch (at K = 2, T = 2751, beta = 1/T:
   1370 pulls per arm in epoch 1 instead of 1369, so the first release comes 2 rounds later).
   Every rounding here uses the integer R_e in the noise, h_e and c_e; an implementation that
   uses the unrounded max{...} + 1 there moves the threshold by less than one part in R_e.
3. The order of pulls inside an epoch is unspecified (the public implementations differ):
   ``order="round-robin"`` (default) cycles through S in increasing arm order; ``order="blocks"``
   pulls each arm of S R_e times in a row, in increasing arm order. Either order is fixed before
   the epoch's rewards are seen, so the privacy argument is unchanged.
4. beta defaults to 1/T, the value of both Hu et al. papers' experiments (and of Azize and
   Basu's); any beta in (0, 1] may be given.
5. The policy refuses rounds t > T: l.5 and l.8 depend on T through beta, and the horizon it was
   built for is part of the algorithm. Epoch lengths above 2^62 pulls are refused (they need an
   absurdly small epsilon or beta).
6. The Laplace draws come from one stream, at each epoch end one per (run, active arm) in that
   order, not from noise indexed by the slot (epoch, arm): same law.
7. DP-SE breaks no ties (l.9 keeps every arm within the threshold of the best release);
   ``tie_break`` is accepted for a uniform interface and has no effect.
"""

from __future__ import annotations

import numpy as np

from ...errors import DPBanditsError, check_positive_int
from ..declarations import Declined, FirstElimination, TraceSetting
from ..mechanisms import release_epoch
from ..noise import decision
from ..policy import PolicyBase
from ..privacy import Guarantee, PrivacyClaim, Variant
from ..domains import OneOf

__all__ = ["DPSE", "ROUNDINGS", "ORDERS", "epoch_length", "round_epoch_length",
           "elimination_threshold"]

ROUNDINGS = ("ceil", "plus-one", "ceil-plus-one")
"""How the bound x of l.5 becomes a pull count: ceil(x) (the reconstruction), floor(x) + 1 or
ceil(x) + 1 (deviation 2)."""

ORDERS = ("round-robin", "blocks")
"""Order of the pulls inside an epoch (deviation 3)."""

_MAX_LENGTH = 2.0 ** 62
_SOURCE = "Sajed & Sheffet (ICML 2019, arXiv:1905.09383), privacy of DP-SE"


def round_epoch_length(bound, rounding: str = "ceil") -> np.ndarray:
    """The pull count R_e for a real lower bound: ceil(bound), floor(bound) + 1 or ceil(bound) + 1."""
    bound = np.asarray(bound, dtype=float)
    if not np.all(bound < _MAX_LENGTH):
        raise DPBanditsError(f"the epoch length exceeds 2^62 pulls (bound {np.max(bound):.3g}); "
                             "epsilon or beta is too small for DP-SE")
    if rounding == "ceil":
        return np.ceil(bound).astype(np.int64)
    if rounding == "plus-one":
        return (np.floor(bound) + 1.0).astype(np.int64)
    if rounding == "ceil-plus-one":
        return (np.ceil(bound) + 1.0).astype(np.int64)
    raise DPBanditsError(f"rounding must be one of {ROUNDINGS}, got {rounding!r}")


# --8<-- [start:schedule]
def epoch_length(e, n_active, epsilon: float, beta: float, rounding: str = "ceil") -> np.ndarray:
    """R_e of l.5 for epoch index ``e`` >= 1 and ``n_active`` = |S| arms (arrays broadcast)."""
    e = np.asarray(e, dtype=float)
    S = np.asarray(n_active, dtype=float)
    delta_e = np.exp2(-e)                                                        # [l.4]
    hoeffding = 32.0 * np.log(8.0 * S * e ** 2 / beta) / delta_e ** 2
    noise = 8.0 * np.log(4.0 * S * e ** 2 / beta) / (epsilon * delta_e)
    return round_epoch_length(np.maximum(hoeffding, noise), rounding)            # [l.5]


def elimination_threshold(e, n_active, R, epsilon: float, beta: float) -> np.ndarray:
    """2 (h_e + c_e) of l.8-l.9 for epoch ``e``, |S| = ``n_active`` and R_e = ``R``."""
    e = np.asarray(e, dtype=float)
    S = np.asarray(n_active, dtype=float)
    R = np.asarray(R, dtype=float)
    h = np.sqrt(np.log(8.0 * S * e ** 2 / beta) / (2.0 * R))                     # [l.8]
    c = np.log(4.0 * S * e ** 2 / beta) / (R * epsilon)
    return 2.0 * (h + c)
# --8<-- [end:schedule]


class DPSE(PolicyBase):
    """DP-SE of Sajed and Sheffet, batch-first: each run has its own active set and epoch."""

    name = "dp-se"
    title = "DP-SE"
    paper = "Sajed & Sheffet (ICML 2019, arXiv:1905.09383), DP-SE"
    needs_horizon = True
    variants = (Variant("paper", "DP-SE as reconstructed in docs/algorithms/dp-se.md; no erratum"),)

    kernel = "dp_se"
    noise_scale = 1.0
    """A factor on the Laplace scale of l.7; 1 is DP-SE. Other values are planted variants only
    (what ``validate`` runs to state its power: ``planted_changes``); the compiled backend refuses
    them."""
    planted_changes = {"noise scale x 1/2": {"noise_scale": 0.5}}
    planted_parts = {
        "schedule alone: the first epoch's R_1 x 2 (its release and threshold as l.7-l.8 compute "
        "them from R_1; later epochs by l.5)": ("schedule", {"R": 2.0}),
    }
    """A planted variant that changes one part: epsilon x 2 moves the schedule (l.5), the noise
    (l.7) and the threshold's c_e (l.8) together, ``planted_changes`` the noise alone, this the
    schedule alone. The threshold 2 (h_e + c_e) has no factor to plant."""
    parameter_domains = {
        "rounding": OneOf(*ROUNDINGS, text="'ceil' (R_e = ceil(max{...}), the reconstruction), "
                          "'plus-one' (floor(max{...}) + 1) or 'ceil-plus-one' (ceil(max{...}) + "
                          "1, one pull per arm and epoch more: a public implementation's count)")}
    audit_design = FirstElimination(
        offsets=(3, 6), epoch_length=epoch_length, threshold=elimination_threshold,
        why="DP-SE releases nothing before its first epoch ends (after K R_1 rounds); its pairs "
            "put the gap between the two released means 3 and 6 noise scales 1/(eps R_1) below "
            "the first elimination threshold 2 (h_1 + c_1) (l.8-l.9), where the elimination has "
            "probability about 0.05 and 0.004 (a difference of two Laplace variables) and a "
            "change of 1/R_1 in one mean moves it most in ratio; for the audit of a candidate "
            "against DP-SE one more puts the exact gap on the threshold (a DP-SE that eliminates "
            "on exact means is then caught with certainty)")
    white_box_statistic = Declined(
        "its releases are one mean per arm and epoch, the first after K R_1 rounds; the action "
        "audit reads them at the first elimination (audit_design)")
    trace_setting = TraceSetting(
        K=2, T=720, params={"beta": 1.0},
        why="DP-SE's first epoch at K = 2 and beta = 1 ends at round 710, so its releases are "
            "traced at T = 720")

    def __init__(self, K: int, *, epsilon: float, runs: int = 1, rng, variant: str | None = None,
                 tie_break: str = "first", T: int | None = None, beta: float | None = None,
                 rounding: str = "ceil", order: str = "round-robin") -> None:
        super().__init__(K, runs=runs, rng=rng, epsilon=epsilon, variant=variant,
                         tie_break=tie_break)
        if T is None:
            raise DPBanditsError("DP-SE needs its horizon: T is required")
        self.T = check_positive_int(T, "T")      # T: the horizon (l.1)
        # beta: the confidence of l.5 and l.8, 1/T unless given (deviation 4)
        self.beta = 1.0 / self.T if beta is None else float(beta)
        self.rounding = rounding
        self.order = order
        shape = (self.runs, self.K)
        self.active = np.ones(shape, dtype=bool)        # S, one row per run           [l.2]
        self.n_active = np.full(self.runs, self.K, np.int64)   # |S|
        self.e = np.ones(self.runs, np.int64)           # e: the current epoch          [l.4]
        self.R = self._epoch_length(self.e, self.n_active)     # R_e of the current epoch [l.5]
        self.pos = np.zeros(self.runs, np.int64)        # pulls made in the current epoch
        self.sums = np.zeros(shape)                     # reward sums of the current epoch
        self.mu_tilde = np.full(shape, np.nan)          # mu~_a released at the last epoch end

    @property
    def claim(self) -> PrivacyClaim:
        guarantee = Guarantee(self.epsilon)
        return PrivacyClaim(guarantee, guarantee, "holds", _SOURCE,
                            "each reward enters one arm's epoch mean (sensitivity 1/R_e), "
                            "released once with Lap(1/(eps R_e)); eliminations are "
                            "post-processing")

    @property
    def done(self) -> np.ndarray:
        """Runs whose active set is a single arm (l.10)."""
        return self.n_active == 1

    def _epoch_length(self, e: np.ndarray, n_active: np.ndarray) -> np.ndarray:
        return epoch_length(e, n_active, self.epsilon, self.beta, self.rounding)

    # --8<-- [start:act-observe]
    def act(self, t: int) -> np.ndarray:
        if t > self.T:
            raise DPBanditsError(f"DP-SE was built for horizon T = {self.T}; got round t = {t}")
        # The slot: which arm of S, counted in increasing arm order, the epoch pulls now.
        if self.order == "round-robin":
            slot = self.pos % self.n_active                                      # [l.6]
        else:
            slot = self.pos // self.R                                            # [l.6]
        slot = np.where(self.done, 0, slot)                                      # [l.10]
        rank = np.cumsum(self.active, axis=1)
        return np.argmax(rank > slot[:, None], axis=1)

    def observe(self, t: int, actions: np.ndarray, feedback: np.ndarray) -> None:
        x = self.check_observation(t, actions, feedback)
        going = np.flatnonzero(~self.done)
        if going.size == 0:
            return
        self.sums[going, actions[going]] += x[going]                             # [l.6]
        self.pos[going] += 1
        pulls, length = decision(self.pos, self.n_active * self.R)   # counts, never rewards
        ended = going[pulls[going] == length[going]]                             # [l.6]
        if ended.size:
            self._end_epoch(ended)

    def _end_epoch(self, i: np.ndarray) -> None:
        """Release the epoch means of runs ``i``, eliminate, and start their next epoch."""
        active = self.active[i]
        R = self.R[i]
        run, arm = np.nonzero(active)                  # one draw per (run, active arm)
        scale = 1.0 / (self.epsilon * R[run])
        if self.noise_scale != 1.0:                    # a planted variant
            scale = self.noise_scale * scale
        mu = np.full(active.shape, -np.inf)
        mu[run, arm] = release_epoch(self.rng, self.sums, (i[run], arm), scale,  # [l.7]
                                     length=R[run])
        self.mu_tilde[i[run], arm] = mu[run, arm]
        threshold = elimination_threshold(self.e[i], self.n_active[i], R,        # [l.8]
                                          self.epsilon, self.beta)
        # The rule reads the releases and the public threshold only (post-processing).
        gap, width = decision(mu.max(axis=1, keepdims=True) - mu, threshold[:, None])
        keep = active & (gap <= width)                                           # [l.9]
        self.active[i] = keep
        self.n_active[i] = keep.sum(axis=1)
        self.pos[i] = 0
        self.e[i] += 1                                                           # [l.4]
        more = i[self.n_active[i] > 1]                                           # [l.3]
        self.R[more] = self._epoch_length(self.e[more], self.n_active[more])     # [l.5]
    # --8<-- [end:act-observe]
