"""Report-noisy-max: sampling, exact output laws, and the doubling-epoch schedule it runs on.

Report-noisy-max (RNM) outputs ``J = argmax_j (u_j + Q_j)`` for utilities ``u`` (here the reward
sums of one epoch; a loss sum ``G`` enters as ``u = -G``) and i.i.d. noise ``Q_j`` of one family
and scale ``beta``. The full-information algorithms (FTNL / RNM-FTNL of Hu et al., naive FTNL,
Wu and Wang's RNM-FTNL(B, Q)) call it once per epoch on that epoch's data only, so the law of a
whole action trajectory given a fixed table is a product of single-RNM laws. This module gives
those laws exactly (Alg. 1 line 16):

* Gumbel(beta) (max-type): the exponential mechanism, ``P[J = j] = softmax(u / beta)_j``.
* Exponential(beta): permute-and-flip with ``q_i = exp((u_i - u*) / beta)``,
  ``P[J = j] = q_j * int_0^1 prod_{i != j} (1 - q_i x) dx``. The integrand is a polynomial of
  degree K - 1, so Gauss-Legendre quadrature with ``K // 2 + 1`` nodes is exact (up to rounding).
* Laplace(beta): ``P[J = j] = int f(z) prod_{i != j} F(u_j - u_i + z) dz``, integrated numerically
  (adaptive quadrature between the breakpoints ``{0} u {u_i - u_j}``, in log space around the
  integrand's largest breakpoint value so that tiny probabilities do not underflow).

Epochs (one convention for every algorithm here): epoch ``e = 0, 1, 2, ...`` covers rounds
``2^e .. 2^(e+1) - 1`` (Hu et al.'s epoch ``s``; Wu and Wang's epoch ``r = e + 1``). The action of
epoch 0 is data-independent; the action of epoch ``e >= 1`` is RNM applied to the sums of epoch
``e - 1``. With horizon T the epochs played are ``0 .. floor(log2 T)``.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import integrate, optimize, special

from ..errors import DPBanditsError, check_positive_int
from . import noise as noise_source

__all__ = [
    "NOISES",
    "sample_noise",
    "noisy_argmax",
    "log_probabilities",
    "probabilities",
    "resampled_sum_law",
    "epoch_of",
    "ends_epoch",
    "epoch_rounds",
    "epochs_played",
    "rounds_played_in_epoch",
    "literal_epoch_count",
    "epoch_sums",
    "EpochRNM",
]

NOISES = ("laplace", "exponential", "gumbel")
_MAX_ENUMERATION = 200_000  # largest number of resampled-sum vectors enumerated for B = 1


def _check_noise(noise: str) -> str:
    if noise not in NOISES:
        raise DPBanditsError(f"unknown noise {noise!r}; choose one of {list(NOISES)}")
    return noise


def _check_scale(scale: float) -> float:
    scale = float(scale)
    if not (math.isfinite(scale) and scale > 0):
        raise DPBanditsError(f"noise scale must be a positive finite number, got {scale}")
    return scale


def sample_noise(rng: np.random.Generator, noise: str, scale: float,
                 size: int | tuple[int, ...]) -> np.ndarray:
    """I.i.d. draws of Lap(scale), Exp(scale) (mean ``scale``) or max-type Gumbel(scale)."""
    return noise_source.draw(rng, _check_noise(noise), scale, size)


# --8<-- [start:noisy-argmax]
def noisy_argmax(rng: np.random.Generator, scores: np.ndarray, noise: str, scale: float) -> np.ndarray:
    """RNM on every row of ``scores`` (shape (R, K)): argmax_j (scores_j + Q_j), fresh Q per row.

    Ties have probability zero under continuous noise; ``argmax`` takes the lowest index.
    """
    Q = sample_noise(rng, noise, scale, scores.shape)
    return np.argmax(noise_source.release(scores, Q, kind="argmax"), axis=-1)
# --8<-- [end:noisy-argmax]


def log_probabilities(scores: np.ndarray, noise: str, scale: float) -> np.ndarray:
    """Exact ``log P[J = j]`` of RNM on one utility vector ``scores`` (shape (K,)).

    Invariant to adding a constant to every score; depends on ``scores / scale`` only.
    """
    u = np.asarray(scores, dtype=float)
    if u.ndim != 1 or u.size < 2 or not np.all(np.isfinite(u)):
        raise DPBanditsError(f"scores must be a finite vector of K >= 2 utilities, got shape {u.shape}")
    beta = _check_scale(scale)
    _check_noise(noise)
    u = (u - u.max()) / beta  # everything below is in units of beta, best utility 0
    if noise == "gumbel":
        return u - special.logsumexp(u)
    if noise == "exponential":
        return _permute_and_flip_log_probabilities(u)
    # Arms with equal utilities have equal probabilities: one integral per distinct utility.
    values, inverse, counts = np.unique(u, return_inverse=True, return_counts=True)
    return np.array([_laplace_log_probability(values, counts, k)
                     for k in range(values.size)])[inverse]


def probabilities(scores: np.ndarray, noise: str, scale: float) -> np.ndarray:
    """Exact ``P[J = j]`` of RNM on one utility vector (see :func:`log_probabilities`)."""
    return np.exp(log_probabilities(scores, noise, scale))


# --8<-- [start:exponential-law]
def _permute_and_flip_log_probabilities(u: np.ndarray) -> np.ndarray:
    """log q_j + log int_0^1 prod_{i != j} (1 - q_i x) dx, with q = exp(u), max(u) = 0.

    The integrand is a polynomial of degree K - 1: Gauss-Legendre with K // 2 + 1 nodes is exact.
    Arms with equal utilities share their factor and their probability."""
    values, inverse, counts = np.unique(u, return_inverse=True, return_counts=True)
    x, w = special.roots_legendre(u.size // 2 + 1)
    x, w = (x + 1.0) / 2.0, w / 2.0                      # nodes and weights on [0, 1]
    q = np.exp(values)
    log_factor = np.log1p(-np.outer(q, x))               # (values, nodes): log(1 - q_m x_k)
    log_all = counts @ log_factor                        # sum over every arm i
    log_integrand = log_all[None, :] - log_factor        # drop one arm of utility values[m]
    log_integral = special.logsumexp(log_integrand, b=w[None, :], axis=1)
    return (values + log_integral)[inverse]
# --8<-- [end:exponential-law]


# --8<-- [start:laplace-law]
def _laplace_log_probability(values: np.ndarray, counts: np.ndarray, k: int) -> float:
    """log of int f(z) prod_{i != j} F(u_j - u_i + z) dz for standard Laplace (scale 1), for an
    arm j of utility ``values[k]``, where ``counts[m]`` arms have utility ``values[m]``."""
    others = counts - (np.arange(counts.size) == k)
    d = (values[k] - values)[others > 0]
    others = others[others > 0]

    def log_integrand(z: float) -> float:
        x = d + z
        log_F = np.where(x < 0, math.log(0.5) + np.minimum(x, 0.0),
                         np.log1p(-0.5 * np.exp(-np.maximum(x, 0.0))))
        return -math.log(2.0) - abs(z) + float(others @ log_F)

    # The log-integrand is concave: its maximum lies between the smallest kink and the point
    # past the largest where the sum of the K - 1 slopes 0.5 e^-x / (1 - 0.5 e^-x) is below 1. With
    # many arms it is far from every kink (K = 10 000 equal utilities: at z = ln(K / 2), not
    # 0), and the integrand is scaled by its value there so that it stays finite.
    kinks = np.concatenate([[0.0], -d])
    top = optimize.minimize_scalar(lambda z: -log_integrand(z), method="bounded",
                                   bounds=(kinks.min(), kinks.max() + math.log(others.sum()) + 1.0),
                                   options={"xatol": 1e-6}).x
    # a break at the maximiser only where the kinks miss the maximum by more than a factor e
    # (elsewhere the breaks and the scale are the kinks', as they were)
    breaks = np.unique(kinks)
    if log_integrand(top) > max(log_integrand(b) for b in breaks) + 1.0:
        breaks = np.unique(np.append(breaks, top))
    peak = max(log_integrand(b) for b in breaks)
    edges = [-np.inf, *breaks.tolist(), np.inf]
    total = 0.0
    for a, b in zip(edges[:-1], edges[1:]):
        value, _ = integrate.quad(lambda z: math.exp(log_integrand(z) - peak), a, b,
                                  epsabs=0.0, epsrel=1e-12, limit=200)
        total += value
    return peak + math.log(total)
# --8<-- [end:laplace-law]


def resampled_sum_law(values: np.ndarray) -> np.ndarray:
    """Law of sum_t Bernoulli(values_t), independent: the Poisson-binomial pmf on 0..n."""
    pmf = np.ones(1)
    for p in np.asarray(values, dtype=float):
        pmf = np.convolve(pmf, [1.0 - p, p])
    return pmf


# --- the doubling-epoch schedule -------------------------------------------------------------

def epoch_of(t: int) -> int:
    """The epoch e = floor(log2 t) that contains round t (rounds are 1-based)."""
    return check_positive_int(t, "t").bit_length() - 1


def ends_epoch(t: int) -> bool:
    """True when round t is the last round of its epoch (t = 2^(e+1) - 1): an RNM call follows."""
    return (t + 1) & t == 0


def epoch_rounds(e: int) -> tuple[int, int]:
    """First and last round of epoch e: (2^e, 2^(e+1) - 1)."""
    return 1 << e, (1 << (e + 1)) - 1


def epochs_played(T: int) -> int:
    """N(T) = floor(log2 T) + 1: the number of epochs that contain at least one of rounds 1..T."""
    return check_positive_int(T, "T").bit_length()


def rounds_played_in_epoch(e: int, T: int) -> int:
    """m(e, T) = max(0, min(2^(e+1) - 1, T) - 2^e + 1): rounds of epoch e within horizon T."""
    first, last = epoch_rounds(e)
    return max(0, min(last, T) - first + 1)


def literal_epoch_count(T: int) -> int:
    """Wu and Wang's printed loop bound L(T) = ceil(log2(T - 1)) + 1 (docs/errata.md#ww-loop-bound), T >= 2.

    Undefined at T = 1 and one short at T = 2; equal to :func:`epochs_played` for T >= 3 only
    when T is 2^k or 2^k + 1. Kept for documentation and tests; the algorithms play N(T) epochs.
    """
    T = check_positive_int(T, "T", minimum=2)
    return (T - 2).bit_length() + 1   # ceil(log2(T - 1)) for T - 1 >= 1


def epoch_sums(table: np.ndarray) -> list[np.ndarray]:
    """Per-epoch column sums of a (T, K) table, for the complete epochs 0 .. N(T) - 2 and the last,
    possibly truncated, one. Entry e is the sum over rounds 2^e .. min(2^(e+1) - 1, T)."""
    T = table.shape[0]
    return [table[(1 << e) - 1: min((1 << (e + 1)) - 1, T)].sum(axis=0) for e in range(epochs_played(T))]


class EpochRNM:
    """The law of an epoch-RNM algorithm's actions given a fixed table (the audit's exact model).

    ``first``: the law of the epoch-0 action, a (K,) probability vector. ``noise``, ``scale``: the
    RNM noise. ``resample``: Wu and Wang's B = 1 (each observed reward replaced by an independent
    Bernoulli draw with that mean before summing).
    """

    def __init__(self, K: int, first: np.ndarray, noise: str, scale: float, resample: bool = False):
        self.K = K
        self.first = np.asarray(first, dtype=float)
        self.noise = _check_noise(noise)
        self.scale = _check_scale(scale)
        self.resample = bool(resample)
        self._laws: dict[bytes, np.ndarray] = {}   # epoch rows -> log law, computed once (tables
        # that differ in one row share every other epoch's law)

    def law_given_sums(self, sums: np.ndarray) -> np.ndarray:
        """P[J = j] for RNM on the utility vector ``sums`` (no resampling)."""
        return probabilities(sums, self.noise, self.scale)

    def law_given_rows(self, rows: np.ndarray) -> np.ndarray:
        """P[J = j] for the RNM that follows an epoch with observed reward rows ``rows`` (n, K)."""
        return np.exp(self.log_law_given_rows(rows))

    def log_law_given_rows(self, rows: np.ndarray) -> np.ndarray:
        """log P[J = j] for the RNM that follows an epoch with observed rows ``rows`` (n, K).

        Kept in log space throughout: at a large epsilon (a small noise scale) the law of an
        action behind by many noise scales is far below the smallest double (e^-3000 at
        epsilon = 3000), and its logarithm is still exact."""
        rows = np.asarray(rows, dtype=float)
        key = rows.tobytes() + str(rows.shape).encode()
        if key not in self._laws:
            self._laws[key] = self._log_law_given_rows(rows)
        return self._laws[key].copy()

    def _log_law_given_rows(self, rows: np.ndarray) -> np.ndarray:
        if not self.resample or np.all((rows == 0.0) | (rows == 1.0)):
            # resampling 0/1 rewards is the identity
            return log_probabilities(rows.sum(axis=0), self.noise, self.scale)
        laws = [resampled_sum_law(rows[:, j]) for j in range(self.K)]
        size = math.prod(law.size for law in laws)
        if size > _MAX_ENUMERATION:
            raise DPBanditsError(
                f"the exact law with Bernoulli resampling enumerates {size} sum vectors (limit "
                f"{_MAX_ENUMERATION}); use a table of 0/1 rewards, fewer actions or a shorter epoch")
        grids = np.meshgrid(*[np.arange(law.size) for law in laws], indexing="ij")
        weights = np.ones_like(grids[0], dtype=float)
        for j, law in enumerate(laws):
            weights = weights * law[grids[j]]
        sums = np.stack([g.ravel() for g in grids], axis=1).astype(float)
        flat = weights.ravel()
        keep = flat > 0
        log_laws = np.array([log_probabilities(s, self.noise, self.scale) for s in sums[keep]])
        return special.logsumexp(log_laws, b=flat[keep][:, None], axis=0)

    def choice_laws(self, table: np.ndarray) -> np.ndarray:
        """(N(T), K): row e is the law of the action played throughout epoch e, given ``table``.

        Only complete epochs feed an RNM whose output is played within the table's horizon.
        """
        return np.exp(self.log_choice_laws(table))

    def log_choice_laws(self, table: np.ndarray) -> np.ndarray:
        """The logarithms of :meth:`choice_laws`, computed without leaving log space (an
        impossible first action has -inf)."""
        table = np.asarray(table, dtype=float)
        T = table.shape[0]
        with np.errstate(divide="ignore"):
            laws = [np.log(self.first)]
        for e in range(1, epochs_played(T)):
            first, last = epoch_rounds(e - 1)
            laws.append(self.log_law_given_rows(table[first - 1:last]))
        return np.array(laws)

    def log_probability(self, table: np.ndarray, actions: np.ndarray) -> np.ndarray:
        """Exact log-probability of action trajectories ``actions`` ((T,) or (R, T)) given ``table``.

        A trajectory that changes action inside an epoch has probability 0 (log -inf).
        """
        table = np.asarray(table, dtype=float)
        acts = np.atleast_2d(np.asarray(actions))
        T = table.shape[0]
        if acts.shape[1] != T:
            raise DPBanditsError(f"actions must have T = {T} columns, got shape {acts.shape}")
        log_laws = self.log_choice_laws(table)   # an impossible action has log-probability -inf
        total = np.zeros(acts.shape[0])
        for e in range(epochs_played(T)):
            first, last = epoch_rounds(e)
            block = acts[:, first - 1:min(last, T)]
            constant = np.all(block == block[:, :1], axis=1)
            total += np.where(constant, log_laws[e][block[:, 0]], -np.inf)
        return total if np.ndim(actions) == 2 else total[0]

    def deterministic_pseudo_regret(self, means: np.ndarray, T: int) -> float:
        """Exact pseudo-regret on the deterministic table whose every row is ``means`` (Sec. 4).

        sum_e m(e, T) sum_j Delta_j P[J_e = j], with J_e's law computed from the epoch-(e-1) sums
        2^(e-1) * means (and the binomial law of the resampled sums when resampling is on).
        """
        means = np.asarray(means, dtype=float)
        gaps = means.max() - means
        regret = rounds_played_in_epoch(0, T) * float(self.first @ gaps)
        for e in range(1, epochs_played(T)):
            n = 1 << (e - 1)
            law = self.law_given_rows(np.broadcast_to(means, (n, self.K)))
            regret += rounds_played_in_epoch(e, T) * float(law @ gaps)
        return regret
