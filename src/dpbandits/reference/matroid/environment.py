"""The matroid-bandit environment: a matroid over the L base arms and a reward source for them.

Chandak, Hu & Hegde, Sec. 2: each round t the environment draws a weight
vector w_t in [0, 1]^L, i.i.d. over rounds; the learner plays a basis A^t and observes w_t(e) for
e in A^t (semi-bandit feedback). Round 0 is a free observation of the whole w_0 before round 1.

The coordinates of w_t may be dependent (docs/errata.md#chh-independence): any
:class:`~dpbandits.reference.environments.RewardSource` of L arms serves, for example
:class:`~dpbandits.reference.environments.Bernoulli` (independent arms, the synthetic
experiment), :class:`~dpbandits.reference.environments.Table` (one fixed table with row 0 given
as ``X0``, the audit shape: the private input is rows 0..n), or :class:`RowSampler` (whole rows
drawn from a fixed matrix, the movie experiment's random user).

Regret is measured against f(A*, w_bar), A* being the greedy basis on the means (Sec. 5).
"""

from __future__ import annotations

import numpy as np

from ...errors import DPBanditsError, check_positive_int, check_rewards
from ..environments import RewardSource
from .greedy import basis_value, optimal_basis
from .matroids import Matroid

__all__ = ["MatroidEnvironment", "RowSampler"]


class MatroidEnvironment(RewardSource):
    """A matroid over the L base arms of ``source``; what the engine needs for semi-bandits.

    ``means`` (L,) are w_bar, ``K`` = L is the number of base arms (the engine's K; the paper's K
    is :attr:`rank`), ``rows(rng, t, R)`` are the weight vectors of round t (t = 0 is the free
    round-0 row), ``optimal_basis`` is A* and ``optimal_value`` is f(A*, w_bar).
    """

    def __init__(self, matroid: Matroid, source: RewardSource) -> None:
        if not isinstance(matroid, Matroid):
            raise DPBanditsError(f"matroid must be a Matroid, got {matroid!r}")
        if not isinstance(source, RewardSource):
            raise DPBanditsError(f"source must be a RewardSource of the L base arms, got {source!r}")
        if source.K != matroid.L:
            raise DPBanditsError(f"source has K = {source.K} arms but the matroid has L = {matroid.L} "
                                 f"base arms")
        if matroid.rank < 1:
            raise DPBanditsError("matroid must have rank >= 1 (a basis with at least one base arm)")
        self.matroid = matroid
        self.source = source
        self.means = np.array(source.means, dtype=float)
        self.means.flags.writeable = False
        self.optimal_basis = optimal_basis(matroid, self.means)
        self.optimal_value = float(basis_value(self.optimal_basis, self.means))

    @property
    def L(self) -> int:
        return self.matroid.L

    @property
    def rank(self) -> int:
        """The size of every basis: the paper's K."""
        return self.matroid.rank

    def rows(self, rng: np.random.Generator, t: int, R: int) -> np.ndarray:
        return self.source.rows(rng, t, R)

    def table(self, T: int, rng: np.random.Generator) -> np.ndarray:
        return self.source.table(T, rng)

    def pseudo_regret(self, bases: np.ndarray) -> np.ndarray | float:
        """f(A*, w_bar) - f(A, w_bar) for one basis (k,) or a batch (R, k); never negative."""
        return self.optimal_value - basis_value(bases, self.means)

    def __repr__(self) -> str:
        return f"MatroidEnvironment({self.matroid!r}, {self.source!r})"


class RowSampler(RewardSource):
    """Whole reward vectors drawn uniformly, with replacement, from the rows of a fixed matrix.

    The movie experiment's law (Sec. 5.2): each round a uniformly random user u is selected and
    w_t(e) = 1 if u rated movie e. Coordinates are dependent; ``means`` are the column means.
    """

    def __init__(self, matrix: np.ndarray) -> None:
        try:
            array = np.asarray(matrix, dtype=float)
        except (TypeError, ValueError):
            raise DPBanditsError("matrix must be a numeric array of shape (rows, L)") from None
        if array.ndim != 2 or array.shape[0] < 1 or array.shape[1] < 2:
            raise DPBanditsError(f"matrix must have shape (rows, L) with rows >= 1 and L >= 2, "
                                 f"got {array.shape}")
        self.matrix = check_rewards(array, "matrix")
        self.matrix.flags.writeable = False
        self.means = self.matrix.mean(axis=0)

    def rows(self, rng: np.random.Generator, t: int, R: int) -> np.ndarray:
        R = check_positive_int(R, "R")
        return self.matrix[rng.integers(self.matrix.shape[0], size=R)]

    def __repr__(self) -> str:
        return f"RowSampler(matrix with shape {self.matrix.shape})"
