"""What every matroid-bandit policy shares: the matroid argument, the feedback checks, the greedy
call (``MatroidPolicy``), and, for the two private algorithms DPUCB-MAT and DPTS-MAT
(``PrivateMatroidPolicy``), their common private mean estimator (Sec. 3-4, Alg. 2 l.2 and
l.9-13 = Alg. 3 l.2 and l.10-14), their variants and their claim.

Protocol (the engine's ``semi`` feedback). ``K`` is the number of base arms L (the engine's K);
the paper's K, the rank, is ``rank`` (also ``super_arm_size``). A policy that observes round 0
gets ``observe(0, None, w0)`` with w0 of shape (runs, L) before round 1; ``act(t)`` returns the
greedy basis of every run, shape (runs, rank), in insertion order; ``observe(t, actions, x)``
gets x of shape (runs, rank), the weights of the chosen base arms in the same order.

Loops are not read at round 0. A loop (an element in no independent set, ``Matroid.loops``) is
spanned by the empty set, so Algorithm 1 skips it whatever its score: the greedy basis is a
function of the non-loop scores alone, and a loop is never played, so its w~_e is never updated
either. Line 2's w_0(e) of a loop therefore reaches no output, and the estimator does not read
it: the round-0 statistic is w_0(e) on the non-loop arms and 0 on the loops, plus the same
Laplace draws on all L arms (the random stream and every non-loop value are unchanged). A loop's
w~_e is its noise alone instead of w_0(e) + Lap, and the bases played are identical to the
printed algorithm's for every w_0 and noise: the compiled kernel, which still adds w_0(e) to a
loop's noise, plays bit-identical bases on matroids with loops. The row-0 release then has L'
values of sensitivity 1 (L' the non-loop arms), the L' eps / K of :func:`round_zero_claim`,
where L values were charged before.
"""

from __future__ import annotations

import numpy as np

from ...errors import DPBanditsError, check_rewards
from ..mechanisms import release_epoch
from ..sight import for_a_check
from ..noise import decision, laplace, release
from ..policy import PolicyBase
from ..privacy import Guarantee, PrivacyClaim, Variant
from .greedy import greedy
from .matroids import Matroid, Uniform

__all__ = ["MatroidPolicy", "PrivateMatroidPolicy", "round_zero_claim", "round_zero_variants",
           "ROUND_ZERO_COUNTEREXAMPLE"]

ROUND_ZERO_COUNTEREXAMPLE = (
    "synthetic instance (Table 2), eps = 2: w_0 = (1,1,1,0,0,0,0) vs (0,0,0,1,1,1,1) gives "
    "P{A^1 = {e1, e2, e3}} = 0.2203 vs 0.02338, a privacy loss of 2.243 > 2 (docs/errata.md#chh-round0, docs/errata.md#chh-round0)")


class MatroidPolicy(PolicyBase):
    """Plumbing shared by the matroid policies (no algorithmic content)."""

    feedback = "semi"
    observes_round_zero: bool = True

    def __init__(self, K: int, *, runs: int = 1, rng, epsilon: float | None = None,
                 variant: str | None = None, matroid: Matroid | None = None,
                 tie_break: str = "first") -> None:
        super().__init__(K, runs=runs, rng=rng, epsilon=epsilon, variant=variant,
                         tie_break=tie_break)
        if matroid is None:
            matroid = Uniform(self.K, 1)
        if not isinstance(matroid, Matroid):
            raise DPBanditsError(f"matroid must be a Matroid over the K = {self.K} base arms, "
                                 f"got {matroid!r}")
        if matroid.L != self.K:
            raise DPBanditsError(f"matroid has L = {matroid.L} base arms but K = {self.K}")
        if matroid.rank < 1:
            raise DPBanditsError("matroid must have rank >= 1")
        self.matroid = matroid
        self.L = self.K
        self.rank = matroid.rank                # the paper's K: the size of every basis (Sec. 2.1)
        self.super_arm_size = self.rank
        self._round_zero_seen = False
        self._cell_offset = np.arange(self.runs)[:, None] * self.L

    def cells(self, actions: np.ndarray) -> np.ndarray:
        """Flat indices into (runs, L) state arrays of each run's played base arms, row-major."""
        return (self._cell_offset + actions).ravel()

    def basis(self, scores: np.ndarray) -> np.ndarray:
        """Algorithm 1 on every run's scores (runs, L): the bases (runs, rank), insertion order."""
        keys = self.rng.random(scores.shape) if self.tie_break == "random" else None
        return greedy(self.matroid, decision(scores), tie_keys=keys)

    def require_round_zero(self) -> None:
        if self.observes_round_zero and not self._round_zero_seen:
            raise DPBanditsError(f"{self.name} observes w_0 first: call observe(0, None, w0) with "
                                 f"w0 of shape ({self.runs}, {self.L}) before act(1)")

    def round_zero(self, t: int, actions, feedback: np.ndarray) -> np.ndarray:
        """Check the free round-0 observation w_0, shape (runs, L), and return it as float."""
        if not self.observes_round_zero:
            raise DPBanditsError(f"{self.name} (as configured) does not observe a round 0")
        if self._round_zero_seen:
            raise DPBanditsError("round 0 was already observed")
        self._round_zero_seen = True
        return self._checked(feedback, (self.runs, self.L), 0)

    def semi_feedback(self, t: int, actions: np.ndarray, feedback: np.ndarray) -> np.ndarray:
        """Check round t's feedback, shape (runs, rank), and return it as float."""
        if t < 1:
            raise DPBanditsError(f"t must be a round >= 1 here, got {t!r}")
        return self._checked(feedback, (self.runs, self.rank), t)

    def _checked(self, feedback: np.ndarray, shape: tuple[int, int], t: int) -> np.ndarray:
        x = np.asanyarray(feedback, dtype=float)    # a traced run's feedback stays watched
        if not self.validate_feedback:
            return x
        if x.shape != shape:
            raise DPBanditsError(f"feedback for {self.name} in round t = {t} must have shape {shape}, "
                                 f"got {x.shape}")
        check_rewards(for_a_check(x), f"rewards (round t = {t})")   # the domain, not a read
        return x

    def __repr__(self) -> str:
        eps = f", epsilon={self.epsilon:g}" if self.private else ""
        return (f"{type(self).__name__}(K={self.K}, runs={self.runs}{eps}, variant={self.variant!r}, "
                f"matroid={self.matroid!r})")


def round_zero_variants(index_term: str) -> tuple[Variant, Variant]:
    """The variants of DPUCB-MAT and DPTS-MAT; ``index_term`` names the index's privacy term."""
    return (
        Variant("paper", "as printed: round-0 noise Lap(K/eps) on all L base arms; eps-DP for "
                         "rows 1..n only"),
        Variant("corrected", f"round-0 noise Lap(L/eps), {index_term} eps/L while T_e = 1: "
                             "eps-DP for rows 0..n"),
    )


class PrivateMatroidPolicy(MatroidPolicy):
    """DPUCB-MAT and DPTS-MAT: the lazy, forgetful private means (Sec. 3-4) and their claim.

    Subclasses set ``source`` (their privacy theorem) and ``variants`` (from
    :func:`round_zero_variants`), and implement ``act`` on the private means and ``observe`` by
    ``observe_private_means``.
    """

    source: str
    default_variant = "corrected"

    def __init__(self, K: int, *, epsilon: float, runs: int = 1, rng, variant: str | None = None,
                 matroid: Matroid | None = None, tie_break: str = "first") -> None:
        super().__init__(K, runs=runs, rng=rng, epsilon=epsilon, variant=variant,
                         matroid=matroid, tie_break=tie_break)
        self.init_private_means()                                            # [Alg.2/3 l.1-2]

    @property
    def claim(self) -> PrivacyClaim:
        return round_zero_claim(self, self.source)

    # --8<-- [start:private-means]
    def init_private_means(self) -> None:
        """State of the estimator; round-0 noise at the variant's budget (see round_zero_claim)."""
        self.epsilon0 = self.epsilon / self.rank                                 # eps0 = eps / K
        initial_budget = self.epsilon0 if self.variant == "paper" else self.epsilon / self.L
        self.round_zero_scale = 1.0 / initial_budget
        shape = (self.runs, self.L)
        self.T_e = np.ones(shape)             # T_e: size of the last completed epoch
        self.s_e = np.zeros(shape, np.int64)  # s_e: number of completed doublings
        self.w_tilde = np.zeros(shape)        # w~_e: private mean of the last completed epoch
        self.n_buffer = np.zeros(shape, np.int64)  # |buffer_e|
        self.sum_buffer = np.zeros(shape)          # sum(buffer_e)
        self.inv_sqrt_T = np.ones(shape)           # 1 / sqrt(T_e)
        self.inv_eps_T = np.full(shape, 1.0 / initial_budget)  # 1 / (eps0 T_e) in the index
        self.is_loop = np.zeros(self.L, bool)      # loops: in no basis, w_0(e) not read
        self.is_loop[list(self.matroid.loops)] = True

    def observe_private_means(self, t: int, actions: np.ndarray | None, feedback: np.ndarray) -> None:
        """Round 0: w~_e = w_0(e) + Lap (l.2), w_0(e) read on the non-loop arms only (module
        header). Round t: buffer the played arms' weights; an arm
        whose buffer reaches 2^(s_e + 1) gets one fresh Lap(1/eps0) on the buffer's sum, which
        replaces its private mean, and its buffer is emptied (Alg. 2 l.9-13, Alg. 3 l.10-14):
        the shared lazy-epoch release, :func:`~dpbandits.reference.mechanisms.release_epoch`."""
        if t == 0:
            w0 = self.round_zero(t, actions, feedback)
            noise = laplace(self.rng, self.round_zero_scale, w0.shape)
            read = np.where(self.is_loop, 0.0, w0)      # a loop's weight is not read (header)
            self.w_tilde = np.ascontiguousarray(release(read, noise))                    # [Alg.2/3 l.2]
            return
        x = self.semi_feedback(t, actions, feedback).ravel()
        played = self.cells(actions)                   # state arrays are C-contiguous: flat views
        n_buffer, s_e = self.n_buffer.reshape(-1), self.s_e.reshape(-1)
        n_buffer[played] += 1                                                    # [Alg.2 l.9]
        self.sum_buffer.reshape(-1)[played] += x
        full = n_buffer[played] == np.left_shift(2, s_e[played])                 # [Alg.2 l.10]
        if not full.any():
            return
        done = played[full]             # (run, arm) cells whose epoch completes  [Alg.2 l.11]
        T = np.left_shift(2, s_e[done]).astype(float)                            # 2^(s_e + 1)
        self.T_e.reshape(-1)[done] = T                                           # [Alg.2 l.12]
        released = release_epoch(self.rng, self.sum_buffer.reshape(-1), done, 1.0 / self.epsilon0)
        self.w_tilde.reshape(-1)[done] = released / T
        s_e[done] += 1                                                           # [Alg.2 l.13]
        n_buffer[done] = 0
        self.inv_sqrt_T.reshape(-1)[done] = 1.0 / np.sqrt(T)
        self.inv_eps_T.reshape(-1)[done] = 1.0 / (self.epsilon0 * T)
    # --8<-- [end:private-means]


def round_zero_claim(policy: MatroidPolicy, source: str) -> PrivacyClaim:
    """The claim of DPUCB-MAT / DPTS-MAT (Theorems 1 and 3) for the policy's variant.

    Theorem 1's proof covers a change in a row s >= 1: only the K arms of A^s read it, each
    reward enters one epoch sum released once with Lap(K/eps), so K compositions of eps/K.
    Row 0 is read in all L' non-loop coordinates (L' the number of non-loop base arms; a loop's
    w_0(e) reaches no output and is not read, module header). As printed (``paper``) each gets
    Lap(K/eps), so a row-0 change costs up to L' eps / K; the claim fails whenever L' > K
    (counterexample below). ``corrected`` adds
    Lap(L/eps) to the L row-0 values (L1 sensitivity L): eps-DP for rows 0..n, since neighbours
    differ in one row only and nothing composes across rows.
    """
    eps = policy.epsilon
    claimed = Guarantee(eps)
    if policy.variant == "corrected":
        return PrivacyClaim(claimed, claimed, "holds", source,
                            "rows 1..n: Theorem 1's argument; row 0: L values of sensitivity 1 with "
                            "Lap(L/eps) (docs/errata.md#chh-round0)")
    free = policy.L - len(policy.matroid.loops)
    if free <= policy.rank:
        return PrivacyClaim(claimed, claimed, "holds", source,
                            "every non-loop base arm is in every basis: row 0 reads only K useful "
                            "values, each with Lap(K/eps)")
    return PrivacyClaim(claimed, Guarantee(eps * free / policy.rank), "false", source,
                        f"eps-DP for rows 1..n only; row 0 is read in all L' = {free} non-loop "
                        f"coordinates with Lap(K/eps), so L' eps / K in all. Counterexample: "
                        + ROUND_ZERO_COUNTEREXAMPLE)
