"""DP-UCB-BOUND: UCB on hybrid-mechanism sums, with the mechanism's error bound added to the index.

Citation: A. C. Y. Tossou, C. Dimitrakakis. *Algorithms for Differentially Private Multi-Armed
Bandits.* AAAI 2016 (HAL hal-01234427, arXiv:1511.08681), Algorithm 1, Theorems 3.1 and 3.2,
eq. (2.2). The hybrid mechanism is Chan, Shi and Song's
(ICALP 2010), see :class:`dpbandits.reference.mechanisms.HybridCounter`.

Pseudocode (Algorithm 1; the paper prints no line numbers, so ``l.N`` counts its statements in
order, ``end`` lines not counted)::

    l.1   input: eps, the differential privacy parameter
    l.2   instantiate K hybrid mechanisms H_1..H_K, one for each arm a
    l.3   for t = 1..T:
    l.4       if t <= K:
    l.5           play arm a = t and observe the reward r_t
    l.6           insert r_t into H_a
    l.7       else:
    l.8           for all arms a:
    l.9               s_a(t) <- total sum released by H_a
    l.10              if n_{a,t} is a power of 2:
    l.11                  nu_a <- (sqrt 8 / eps) ln(4 t^4)
    l.12              else:
    l.13                  nu_a <- (sqrt 8 / eps) ln(4 t^4) log2 n_{a,t} + (sqrt 8 / eps) ln(4 t^4)
    l.14          pull a_t = argmax_a s_a(t)/n_{a,t} + sqrt(2 ln t / n_{a,t}) + nu_a / n_{a,t}
    l.15          observe the reward r_t
    l.16          insert r_t into H_{a_t}

nu_a is the error bound (2.2) of the hybrid mechanism at n = n_{a,t} and gamma = t^-4; at a power
of 2 only its logarithmic-mechanism term applies (no binary noise is present). It depends on t
and n_{a,t} only, never on rewards.

Privacy claim (Theorem 3.1): epsilon-DP after any number of plays, for the whole action sequence,
under the change of one reward (relation ROW: one row of the reward table). Argument: each arm's
hybrid mechanism is DP for its whole release sequence, one reward enters exactly one mechanism
(parallel composition) and the actions are a function of the releases and of data-independent
counts (post-processing). The argument needs a hybrid mechanism that is epsilon-DP. With the
paper's noise scales (Lap(1/eps) in the logarithmic part, Lap(k/eps) in the binary part) it is
only 2 epsilon-DP: reward 2^k + 1 of an arm lies in one logarithmic block at Lap(1/eps) and in k
binary nodes at Lap(k/eps), so the released sums lose exactly 2 eps (docs/errata.md#td-hybrid-budget). Variant
``paper`` is therefore proven 2 eps-DP and its claim is false; variant ``corrected`` (the
default) splits the budget as Chan et al. do, eps/2 + eps/2, and is epsilon-DP.

Regret (Theorem 3.2, as stated): for any 0 < lambda_0 < 1,
R <= sum_{a: Delta_a > 0} max(B (ln B + 7), 8 ln t / (lambda_0^2 Delta_a)) + Delta_a (1 + 2 pi^2 / 3),
B = sqrt(8) ln(4 t^4) / (eps (1 - lambda_0)). The proof supports a bound with Delta_a inside B and
a factor 2 more (docs/errata.md#td-thm32-delta, docs/errata.md#td-thm32-factor2); the ``corrected`` variant doubles nu_a, which only
changes constants.

Deviations:
1. Default variant ``corrected``: hybrid budgets eps_L = eps_B = eps/2 and nu_a computed with
   eps/2 in place of eps, so the index still bounds the mechanism's error (docs/errata.md#td-hybrid-budget). The
   printed scales are variant ``paper``, proven only 2 eps-DP.
2. The hybrid mechanism is Chan et al.'s construction: the binary part started at 2^k holds items
   2^k + 1 .. 2^(k+1) - 1 at the fixed node scale k / eps_B, not the "log t / eps" of the varying
   t, and not a tree whose root also holds item 2^k (docs/errata.md#td-binary-scale, docs/errata.md#td-tree-items).
3. ``log`` is ln in the radius sqrt(2 ln t / n) and in ln(4 t^4); the log n_{a,t} in nu_a counts
   tree levels and is log2 (docs/errata.md#td-log-base). ``tree_log_base="e"`` gives ln n_{a,t} instead.
4. The radius uses ln t with t the current round, as printed (docs/errata.md#td-ucb-radius).
5. Ties go to the lowest arm by default (docs/errata.md#td-ties; probability 0 under Laplace noise).
6. Rewards outside [0, 1] are refused (rewards lie in [0, 1], Sec. 2): privacy assumes
   sensitivity 1, and the paper does not say how it is enforced.
"""

from __future__ import annotations

import math

import numpy as np

from ...errors import DPBanditsError
from ..declarations import HybridItem
from ..mechanisms import HybridCounter
from ..policy import PolicyBase
from ..privacy import Guarantee, PrivacyClaim, Variant

__all__ = ["DPUCBBound", "hybrid_sums", "hybrid_variants", "hybrid_claim"]

_SOURCE = "Tossou & Dimitrakakis (AAAI 2016), Theorem 3.1"
_SPLIT = {"corrected": "chan", "paper": "paper"}
_SQRT8 = math.sqrt(8.0)


# --- what Algorithm 1 (DP-UCB-BOUND) and Algorithm 2 (DP-UCB, which runs Algorithm 1) share ---

def hybrid_variants(corrected_also: str = "") -> tuple[Variant, Variant]:
    """The two variants of an algorithm built on per-arm hybrid mechanisms: the budget split of
    Chan et al. (``corrected``, eps-DP) and the printed scales (``paper``, 2 eps-DP)."""
    return (
        Variant("corrected", f"hybrid budget split eps/2 + eps/2 (Chan et al.){corrected_also}: "
                             "eps-DP (docs/errata.md#td-hybrid-budget)"),
        Variant("paper", "noise scales as printed, Lap(1/eps) and Lap(k/eps): 2 eps-DP "
                         "(docs/errata.md#td-hybrid-budget)"),
    )


def hybrid_sums(policy: PolicyBase) -> HybridCounter:
    """H_a: one hybrid mechanism per (run, arm) at the policy's variant; its value is s_a(t)."""
    return HybridCounter((policy.runs, policy.K), policy.epsilon, policy.rng,
                         split=_SPLIT[policy.variant])


def hybrid_claim(policy: PolicyBase, H: HybridCounter, source: str,
                 data_independent: str = "") -> PrivacyClaim:
    """Theorem 3.1's claim, epsilon-DP under ROW, for a policy whose only access to rewards is one
    hybrid mechanism per arm ``H`` (each reward enters one of them): it holds exactly when the
    mechanism is eps-DP, i.e. for the budget split eps_L + eps_B = eps, and the printed scales
    lose 2 eps (docs/errata.md#td-hybrid-budget). ``data_independent`` names what else enters
    the mechanisms without depending on rewards."""
    claimed = Guarantee(policy.epsilon)
    proven = Guarantee(H.eps_L + H.eps_B)
    if policy.variant == "corrected":
        return PrivacyClaim(claimed, proven, "holds", source,
                            "each reward enters one arm's hybrid mechanism, eps/2 in the "
                            "logarithmic part plus eps/2 in one binary part; "
                            + (f"{data_independent} are data-independent; " if data_independent
                               else "") + "actions are post-processing")
    return PrivacyClaim(claimed, proven, "false", source,
                        "with the printed scales Lap(1/eps) and Lap(k/eps) reward 2^k + 1 of "
                        "an arm lies in one logarithmic block and k binary nodes of its "
                        "mechanism, so the released sums lose 2 eps "
                        "(docs/errata.md#td-hybrid-budget); the proof assumes an eps-DP hybrid "
                        "mechanism")


def _tree_log_of(base: float | str):
    """The log used for the tree depth in nu_a: log2 (default) or ln (docs/errata.md#td-log-base)."""
    if isinstance(base, str):
        base = base.strip().lower()
    if base in (2, "2"):
        return np.log2
    if base in ("e", math.e):
        return np.log
    raise DPBanditsError(f"tree_log_base must be 2 or 'e', got {base!r}")


class DPUCBBound(PolicyBase):
    """DP-UCB-BOUND of Tossou and Dimitrakakis, batch-first."""

    name = "dp-ucb-bound"
    title = "DP-UCB-BOUND"
    paper = "Tossou & Dimitrakakis (AAAI 2016), Alg. 1"
    variants = hybrid_variants(" and nu_a at eps/2")
    default_variant = "corrected"

    kernel = "dp_ucb"
    audit_design = HybridItem(
        steps=(3, 5), after=5,
        why="with K = 2 the reward of round 5 is item 3 of its arm when rounds 3 and 4 split; the "
            "radius nu_a is a function of the counts only, so the noise decides an action only "
            "when the counts tie (rounds 3, 5 and 9; the tie at 4 pulls each, round 9, reads the "
            "release at n = 4)")
    white_box_statistic = "H.value"
    planted_parts = {
        "bonus alone x 1/2 (nu_a with both hybrid budgets x 2, as the paper's scales give it; "
        "noise unchanged)": ("bonus", {"eps_L": 2.0, "eps_B": 2.0}),
        "noise scale alone x 1/2 (the hybrid mechanisms' budgets x 2, as the paper's scales; "
        "bonus unchanged)": ("noise scale", {"H.eps_L": 2.0, "H.eps_B": 2.0}),
    }
    """Planted variants that change one part (what ``validate`` runs to state its power):
    variant ``paper`` and epsilon x 2 change the noise and the bonus nu_a together (nu_a reads
    the policy's ``eps_L`` and ``eps_B``, the noise the hybrid mechanisms' own); each of these
    multiplies one side's budgets by 2, giving that part the paper's value and leaving the other;
    ``planted_changes`` moves the radius sqrt(2 ln t / n) alone."""
    planted_changes = {"confidence radius sqrt(3 ln t / n) for sqrt(2 ln t / n) (bonus and "
                       "noise unchanged)": {"radius_scale": math.sqrt(1.5)}}

    def __init__(self, K: int, *, epsilon: float, runs: int = 1, rng, variant: str | None = None,
                 tie_break: str = "first", tree_log_base: float | str = 2) -> None:
        super().__init__(K, runs=runs, rng=rng, epsilon=epsilon, variant=variant,
                         tie_break=tie_break)
        self._tree_log = _tree_log_of(tree_log_base)
        self.H = hybrid_sums(self)                                               # [Alg.1 l.2]
        self.eps_L, self.eps_B = self.H.eps_L, self.H.eps_B
        self.n = np.zeros((self.runs, self.K), np.int64)  # n_{a,t}: pulls of arm a before round t

    @property
    def claim(self) -> PrivacyClaim:
        return hybrid_claim(self, self.H, _SOURCE)

    # --8<-- [start:index-act-observe]
    def nu(self, t: int) -> np.ndarray:
        """nu_a of Algorithm 1 for every run and arm at round t, from n_{a,t} only.

        Eq. (2.2) with gamma = t^-4 and the hybrid budgets of the variant:
        sqrt(8) ln(4 t^4) (1/eps_L + [n not a power of 2] log2(n) / eps_B).
        """
        n = self.n
        c = _SQRT8 * math.log(4 * t ** 4)
        power = (n & (n - 1)) == 0                                               # [Alg.1 l.10]
        levels = np.where(power, 0.0, self._tree_log(np.maximum(n, 1)) / self.eps_B)
        return c * (levels + 1.0 / self.eps_L)                                   # [Alg.1 l.11-13]

    def index(self, t: int) -> np.ndarray:
        """s_a(t)/n_{a,t} + sqrt(2 ln t / n_{a,t}) + nu_a / n_{a,t}, shape (runs, K)."""
        n = self.n.astype(float)
        s = self.H.value                                                         # [Alg.1 l.9]
        radius = self.radius_scale * np.sqrt(2.0 * math.log(t) / n)
        return s / n + radius + self.nu(t) / n                                   # [Alg.1 l.14]

    def act(self, t: int) -> np.ndarray:
        if t <= self.K:
            return np.full(self.runs, t - 1)                                     # [Alg.1 l.5]
        return self.argmax(self.index(t))                                        # [Alg.1 l.14]

    def observe(self, t: int, actions: np.ndarray, feedback: np.ndarray) -> None:
        r = self.check_observation(t, actions, feedback)
        self.H.insert((self._rows, actions), r)                                  # [Alg.1 l.6, l.16]
        self.n[self._rows, actions] += 1
    # --8<-- [end:index-act-observe]
