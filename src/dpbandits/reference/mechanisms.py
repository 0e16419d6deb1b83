"""Noise mechanisms: Laplace, the lazy-epoch release, and Chan, Shi and Song's continual counters.

Chan, T.-H. H., Shi, E., Song, D. *Private and continual release of statistics.* ICALP 2010;
ACM TISSEC 14(3), 2011. Tossou & Dimitrakakis, Sec. 2 and Fact B.1, describe them in words.

All counters are batch-first: one object holds a grid of independent counters (for example one
per (run, arm)), ``insert(where, values)`` adds one item to each counter named by ``where`` (an
index into the grid, each counter at most once per call), and ``value`` is the array of the
counters' current releases. Releasing is idempotent and draws no noise: ``value`` changes only
when its counter receives an item. Every counter draws exactly one Laplace variable per item.

Mechanisms and their privacy, for a stream of items in [0, 1] changed in one item:

* :class:`LogarithmicCounter` (``eps_L``): noise added to the running state at counts
  1, 2, 4, 8, ...; releases only there. ``eps_L``-DP (each item is in one noised block).
* :class:`BinaryCounter` (``eps_B``, horizon ``T``): the tree (binary) mechanism, one noised
  p-sum per insertion at scale ``levels / eps_B`` with ``levels = floor(log2 T) + 1``. ``eps_B``-DP.
* :class:`HybridCounter` (``epsilon``, ``split``): the logarithmic mechanism plus, between
  2^k and 2^(k+1), a binary mechanism over items 2^k+1..2^(k+1)-1 with ``k`` levels at node scale
  ``k / eps_B``. It is ``(eps_L + eps_B)``-DP. With ``split="chan"`` (the ``corrected`` variant)
  eps_L = eps_B = epsilon/2, so it is epsilon-DP; with ``split="paper"`` (Tossou and Dimitrakakis'
  noise scales, "scale 1/epsilon" and "log t / epsilon") eps_L = eps_B = epsilon and the counter is
  only 2 epsilon-DP, exactly (docs/errata.md#td-hybrid-budget; the worst item is 2^k + 1).

The lazy-epoch release (:func:`release_epoch`) is the mechanism of every algorithm that sums
its observations over epochs and releases each epoch's sum once, with fresh noise, at the epoch's
end: Hu, Huang and Mehta's Anytime-Lazy-UCB (Alg. 1 l.7), Lazy-DP-TS (Alg. 3 l.8) and the
arrays of Hybrid-UCB (Alg. 4 l.7), Chandak, Hu and Hegde's DPUCB-MAT and DPTS-MAT (Alg. 2
l.12, Alg. 3 l.13), DP-SE (l.7) and AdaP-KLUCB (Lemma 1). ``eps``-DP for the whole stream when
every observation in [0, 1] enters exactly one epoch sum and each sum gets one Lap(1/eps).

Deviations from the sources: none in the constructions. docs/errata.md#td-binary-scale and docs/errata.md#td-tree-items resolve two
ambiguous sentences of Tossou and Dimitrakakis towards Chan et al.'s construction.
"""

from __future__ import annotations

import math

import numpy as np

from ..errors import DPBanditsError, check_epsilon, check_positive_int
from .noise import laplace, publish, release
from .sight import for_a_check

__all__ = [
    "laplace",
    "release_epoch",
    "lazy_epoch_state",
    "binary_step",
    "LogarithmicCounter",
    "BinaryCounter",
    "HybridCounter",
    "HYBRID_SPLITS",
    "hybrid_budgets",
    "hybrid_noise_terms",
    "hybrid_error_variance",
    "hybrid_error_bound",
]

HYBRID_SPLITS = ("chan", "paper")
_MAX_LEVELS = 40  # hybrid counters hold fewer than 2**40 items


def hybrid_budgets(epsilon: float, split: str) -> tuple[float, float]:
    """(eps_L, eps_B) of the hybrid counter under a budget split (Sec. 2 (hybrid mechanism))."""
    epsilon = check_epsilon(epsilon)
    if split == "chan":
        return epsilon / 2, epsilon / 2
    if split == "paper":
        return epsilon, epsilon
    raise DPBanditsError(f"split must be one of {HYBRID_SPLITS}, got {split!r}")


def _lowest_set_bit(values: np.ndarray) -> np.ndarray:
    """Index of the lowest set bit of each positive integer."""
    return np.log2(values & -values).round().astype(np.int64)


def _floor_log2(values: np.ndarray) -> np.ndarray:
    """floor(log2 n) for positive integers, exactly (no floating-point rounding at 2^k)."""
    out = np.floor(np.log2(values.astype(float))).astype(np.int64)
    out -= (np.left_shift(1, out) > values)           # guard against log2 rounding up
    out += (np.left_shift(1, out + 1) <= values)      # ... or down
    return out


def _is_power_of_two(values: np.ndarray) -> np.ndarray:
    return (values > 0) & ((values & (values - 1)) == 0)


class _Grid:
    """Bookkeeping shared by the counters: the grid shape and its flat index."""

    def __init__(self, shape: int | tuple[int, ...]) -> None:
        self.shape = (shape,) if isinstance(shape, (int, np.integer)) else tuple(int(s) for s in shape)
        if not self.shape or any(s < 1 for s in self.shape):
            raise DPBanditsError(f"shape must be a tuple of positive sizes, got {shape!r}")
        self.size = int(np.prod(self.shape))
        self.n = np.zeros(self.size, dtype=np.int64)
        self._value = np.zeros(self.size)

    @property
    def count(self) -> np.ndarray:
        """Number of items inserted into each counter."""
        return self.n.reshape(self.shape)

    @property
    def value(self) -> np.ndarray:
        """Each counter's current release (a read-only view)."""
        view = self._value.reshape(self.shape)
        view.flags.writeable = False
        return view

    def _flat(self, where) -> np.ndarray:
        try:
            flat = np.ravel_multi_index(where, self.shape) if isinstance(where, tuple) else np.asarray(where)
        except ValueError:
            raise DPBanditsError(f"where must index counters of the grid of shape {self.shape}") from None
        flat = np.atleast_1d(flat).astype(np.int64).ravel()
        checked = for_a_check(flat)  # input checks (their other side a raise), not reads
        # A negative flat index would silently wrap around to another counter.
        if checked.size and (checked.min() < 0 or checked.max() >= self.size):
            raise DPBanditsError(f"where must index counters 0..{self.size - 1} of the grid")
        if checked.size != np.unique(checked).size:
            raise DPBanditsError("insert() may add at most one item to each counter per call")
        return flat

    @staticmethod
    def _items(values, size: int) -> np.ndarray:
        # asanyarray and subok: a traced item keeps what the accountant follows of it
        x = np.broadcast_to(np.asanyarray(values, dtype=float), (size,), subok=True)
        plain = for_a_check(x)      # the domain check is not a read of the items' values
        if size and not (plain.min() >= 0.0 and plain.max() <= 1.0):
            raise DPBanditsError("counter items must lie in [0, 1] with no NaN")
        return x


# --8<-- [start:epoch-release]
def release_epoch(rng: np.random.Generator, Phi: np.ndarray, ends, scale, length=None) -> np.ndarray:
    """The lazy-epoch release: the epochs of the cells ``ends`` of ``Phi`` are over; release
    each one's sum with one fresh Lap(``scale``) draw and start the cells' next epochs at zero.

    ``Phi`` holds each cell's epoch sum (Hu, Huang and Mehta's Phi_j of Alg. 1 l.5: the rewards
    of arm j's current epoch; a cell is a (run, arm), ``ends`` a tuple of index arrays or flat
    indices into ``Phi``, each cell at most once). Returns ``Phi[ends] + Lap(scale)``, one
    draw per cell in the order of ``ends`` (``laplace(rng, scale, n)``, released by
    :func:`release`), and sets ``Phi[ends]`` to 0. With ``length`` (the epochs' lengths, DP-SE's
    R_e) it releases the epochs' means instead: ``Phi[ends] / length + Lap(scale)``. The caller
    divides a released sum by the epoch's length (O_j = 2^(r_j + 1) in Alg. 1 l.7) when it
    wants a mean: post-processing.

    Privacy (the epoch argument of Hu, Huang and Mehta's Theorem 2): when every observation, a
    reward in [0, 1], was added to exactly one cell's epoch sum, and whether an epoch has ended
    is decided on counts only (the caller passes the pull counts through :func:`decision`),
    changing one reward vector moves one released sum by at most 1 (a mean by 1 / length) and
    no other release. Each release is then (1 / scale)-DP for the rewards of its epoch, the
    epochs are disjoint, and the whole sequence of releases is (1 / scale)-DP by parallel
    composition (1 / (length scale) for means): eps for Lap(1/eps) on sums, or Lap(1/(eps R_e))
    on means. The accountant reads each call as a statistic plus one declared draw and charges
    |change of the statistic| / scale to the release that holds the changed reward.
    """
    statistic = Phi[ends] if length is None else Phi[ends] / length
    released = release(statistic, laplace(rng, scale, statistic.size))
    Phi[ends] = 0.0
    return released
# --8<-- [end:epoch-release]


def lazy_epoch_state(policy: object, shape: tuple[int, int]) -> None:
    """The per-arm lazy epochs' state on ``policy``, one cell per (run, arm) (Hu, Huang and
    Mehta, Alg. 1 l.1; Alg. 3 l.1-2 of the journal version): ``O`` (O_j, the size of the last
    processed epoch, 1 before the first), ``r`` (r_j, that epoch's index), ``mu_tilde`` (mu~_j,
    its private mean), ``N`` (N_j, the pulls in the current, unprocessed epoch) and ``Phi``
    (Phi_j, that epoch's reward sum, emptied by :func:`release_epoch`)."""
    policy.O = np.ones(shape)
    policy.r = np.zeros(shape, np.int64)
    policy.mu_tilde = np.zeros(shape)
    policy.N = np.zeros(shape, np.int64)
    policy.Phi = np.zeros(shape)


# --8<-- [start:binary-step]
def binary_step(alpha: np.ndarray, alpha_hat: np.ndarray, tau: np.ndarray, x: np.ndarray,
                 scale: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One insertion into binary mechanisms at local times ``tau`` (rows of alpha are counters).

    Chan et al., Binary Mechanism: i = lowest set bit of tau; alpha_i = sum_{j<i} alpha_j + x;
    lower p-sums are cleared; hat alpha_i = alpha_i + Lap(scale). Returns the new outputs
    B(tau) = sum of hat alpha_j over the set bits j of tau. Modifies alpha, alpha_hat in place.
    """
    levels = np.arange(alpha.shape[1])
    i = _lowest_set_bit(tau)
    lower = levels[None, :] < i[:, None]
    p_sum = (alpha * lower).sum(axis=1) + x
    alpha[lower] = 0.0
    alpha_hat[lower] = 0.0
    rows = np.arange(tau.size)
    alpha[rows, i] = p_sum
    alpha_hat[rows, i] = release(p_sum, laplace(rng, scale, tau.size))
    set_bits = ((tau[:, None] >> levels[None, :]) & 1).astype(bool)
    return publish((alpha_hat * set_bits).sum(axis=1))
# --8<-- [end:binary-step]


class LogarithmicCounter(_Grid):
    """Chan et al.'s logarithmic mechanism: eps_L-DP, releases at counts 1, 2, 4, 8, ...

    ``beta`` accumulates the items and, at each power of two, one fresh Lap(1/eps_L) draw (noise
    accumulates; it is never redrawn). Between powers the release stays at its last value.
    """

    def __init__(self, shape: int | tuple[int, ...], epsilon: float, rng: np.random.Generator) -> None:
        super().__init__(shape)
        self.epsilon = check_epsilon(epsilon)
        self.rng = rng
        self.beta = np.zeros(self.size)

    def insert(self, where, values) -> None:
        flat = self._flat(where)
        x = self._items(values, flat.size)
        self.n[flat] += 1
        self.beta[flat] += x
        due = flat[_is_power_of_two(self.n[flat])]
        self.beta[due] = release(self.beta[due], laplace(self.rng, 1.0 / self.epsilon, due.size))
        self._value[due] = self.beta[due]


class BinaryCounter(_Grid):
    """Chan et al.'s binary (tree) mechanism for at most ``horizon`` items per counter.

    Node scale ``levels / eps_B`` with ``levels = floor(log2 horizon) + 1`` (the most p-sums any item
    belongs to), so each counter is eps_B-DP for its whole release sequence.
    """

    def __init__(self, shape: int | tuple[int, ...], epsilon: float, horizon: int,
                 rng: np.random.Generator) -> None:
        super().__init__(shape)
        self.epsilon = check_epsilon(epsilon)
        self.horizon = check_positive_int(horizon, "horizon")
        self.levels = int(self.horizon).bit_length()
        self.scale = self.levels / self.epsilon
        self.rng = rng
        self.alpha = np.zeros((self.size, self.levels))
        self.alpha_hat = np.zeros((self.size, self.levels))

    def insert(self, where, values) -> None:
        flat = self._flat(where)
        x = self._items(values, flat.size)
        if flat.size and for_a_check(self.n[flat]).max() >= self.horizon:
            raise DPBanditsError(f"a binary counter holds at most horizon = {self.horizon} items")
        self.n[flat] += 1
        alpha, alpha_hat = self.alpha[flat], self.alpha_hat[flat]
        self._value[flat] = binary_step(alpha, alpha_hat, self.n[flat], x, self.scale, self.rng)
        self.alpha[flat], self.alpha_hat[flat] = alpha, alpha_hat


# --8<-- [start:hybrid-counter]
class HybridCounter(_Grid):
    """Chan et al.'s hybrid mechanism, unbounded; ``(eps_L + eps_B)``-DP (see module docstring).

    At n = 2^k the item goes into the logarithmic mechanism only and the release is L(2^k); a new
    binary mechanism with k levels and node scale k/eps_B then takes items 2^k+1..2^(k+1)-1, and
    the release at n = 2^k + tau is L(2^k) + B(tau).
    """

    def __init__(self, shape: int | tuple[int, ...], epsilon: float, rng: np.random.Generator,
                 split: str = "chan") -> None:
        super().__init__(shape)
        self.epsilon = check_epsilon(epsilon)
        self.split = split
        self.eps_L, self.eps_B = hybrid_budgets(epsilon, split)
        self.rng = rng
        self.beta = np.zeros(self.size)
        self.log_release = np.zeros(self.size)
        self.alpha = np.zeros((self.size, _MAX_LEVELS))
        self.alpha_hat = np.zeros((self.size, _MAX_LEVELS))

    def insert(self, where, values) -> None:
        flat = self._flat(where)
        x = self._items(values, flat.size)
        self.n[flat] += 1
        self.beta[flat] += x
        power = _is_power_of_two(self.n[flat])
        at_power, inside = flat[power], flat[~power]
        # n = 2^k: logarithmic release, and a fresh binary mechanism for the next block.
        self.beta[at_power] = release(self.beta[at_power],
                                      laplace(self.rng, 1.0 / self.eps_L, at_power.size))
        self.log_release[at_power] = self.beta[at_power]
        self.alpha[at_power] = 0.0
        self.alpha_hat[at_power] = 0.0
        self._value[at_power] = self.log_release[at_power]
        if inside.size:
            n = self.n[inside]
            k = _floor_log2(n)
            tau = n - np.left_shift(1, k)
            alpha, alpha_hat = self.alpha[inside], self.alpha_hat[inside]
            binary = binary_step(alpha, alpha_hat, tau, x[~power], k / self.eps_B, self.rng)
            self.alpha[inside], self.alpha_hat[inside] = alpha, alpha_hat
            self._value[inside] = publish(self.log_release[inside] + binary)
# --8<-- [end:hybrid-counter]


def hybrid_noise_terms(n: int) -> int:
    """N(n): the number of Laplace terms in the hybrid release after n items (Sec. 2 (hybrid mechanism))."""
    n = check_positive_int(n, "n")
    k = n.bit_length() - 1
    return k + 1 + bin(n - (1 << k)).count("1")


def hybrid_error_variance(n: int, epsilon: float, split: str = "chan") -> float:
    """Var[H(n) - sum of items] = 2(k+1)/eps_L^2 + popcount(n - 2^k) * 2 k^2 / eps_B^2."""
    n = check_positive_int(n, "n")
    eps_L, eps_B = hybrid_budgets(epsilon, split)
    k = n.bit_length() - 1
    return 2 * (k + 1) / eps_L ** 2 + bin(n - (1 << k)).count("1") * 2 * k ** 2 / eps_B ** 2


def hybrid_error_bound(n: int, gamma: float, epsilon: float, split: str = "paper") -> float:
    """Tossou and Dimitrakakis eq. (2.2): |H(n) - sum| <= this with probability >= 1 - gamma.

    (sqrt(8)/eps) ln(4/gamma) log2(n) + (sqrt(8)/eps) ln(4/gamma) under the ``paper`` split; the
    ``chan`` split halves both budgets and so doubles the bound. Valid when
    ln(4/gamma) >= floor(log2 n) + 1 (docs/errata.md#td-lemma-b2).
    """
    n = check_positive_int(n, "n")
    epsilon = check_epsilon(epsilon)
    if not 0 < gamma < 1:
        raise DPBanditsError(f"gamma must lie in (0, 1), got {gamma!r}")
    scale = 1.0 if split == "paper" else 2.0
    if split not in HYBRID_SPLITS:
        raise DPBanditsError(f"split must be one of {HYBRID_SPLITS}, got {split!r}")
    c = scale * math.sqrt(8) / epsilon * math.log(4 / gamma)
    return c * math.log2(n) + c
